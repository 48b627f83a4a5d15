#!/bin/sh
# Runs the FileX suite image under QEMU: a storscope-result/1 document that
# validates, with S2's and B0's points, every read verified.
set -eu
qemu=$1 elf=$2 python=$3 schema=$4 out=$5
timeout 900 "$qemu" -M mps2-an505 -nographic -semihosting-config enable=on,target=native \
    -icount shift=0,sleep=off -kernel "$elf" </dev/null >"$out/suite-filex.json"
"$python" - "$out/suite-filex.json" "$schema" <<'PY'
import json, sys, jsonschema
doc = json.load(open(sys.argv[1]))
jsonschema.validate(doc, json.load(open(sys.argv[2])), cls=jsonschema.Draft202012Validator)
assert doc["status"] == "ok", doc["status"]
assert [t["id"] for t in doc["tests"]] == ["S2", "B0"]
assert doc["environment"]["filesystem"] == "filex"
s2 = doc["tests"][0]
print("FileX on the MCU: S2 open+close grows as N^%.2f (+-%.2f), %d B0 points verified"
      % (s2["open_close_exponent_flat"], s2["open_close_exponent_flat_ci95"],
         len(doc["tests"][1]["points"])))
PY
