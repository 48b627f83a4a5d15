#!/bin/sh
# Runs the suite image twice under QEMU; both outputs must be the same bytes
# and a storscope-result/1 document that validates against the schema.
set -eu
qemu=$1 elf=$2 python=$3 schema=$4 out=$5
for i in 1 2; do
    timeout 900 "$qemu" -M mps2-an505 -nographic -semihosting-config enable=on,target=native \
        -icount shift=0,sleep=off -kernel "$elf" </dev/null >"$out/suite-$i.json"
done
cmp "$out/suite-1.json" "$out/suite-2.json"
"$python" - "$out/suite-1.json" "$schema" <<'PY'
import json, sys, jsonschema
doc = json.load(open(sys.argv[1]))
jsonschema.validate(doc, json.load(open(sys.argv[2])), cls=jsonschema.Draft202012Validator)
assert doc["status"] == "ok", doc["status"]
ids = [t["id"] for t in doc["tests"]]
assert ids == ["B0", "B2", "M1", "fsync", "nb"], ids
assert doc["tests"][3]["iops"] > 0
nb = {p["name"]: p["metrics"] for p in doc["tests"][4]["points"]}
print("suite JSON valid and identical across runs:", ids, "fsync iops %.0f" % doc["tests"][3]["iops"])
print("nb on the MCU: blocking %.1f us per call (max %.1f), non-blocking %.2f us per call "
      "(max %.2f), %.0f polls per block" % (nb["blocking"]["blocked_mean_ns"] / 1e3,
      nb["blocking"]["blocked_max_ns"] / 1e3, nb["nonblocking"]["blocked_mean_ns"] / 1e3,
      nb["nonblocking"]["blocked_max_ns"] / 1e3, nb["nonblocking"]["polls_per_block_mean"]))
PY
