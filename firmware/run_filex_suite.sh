#!/bin/sh
# Runs the FileX paper-suite image under QEMU: a storscope-result/1 document
# that validates, with the paper suite's tests, and prints B0's cells beside
# the study's (Figure 3: FileX on the STM32U5 at 160 MHz) - the small-chunk
# figures are FileX's CPU time per call, which this image counts.
set -eu
qemu=$1 elf=$2 python=$3 schema=$4 out=$5
timeout 900 "$qemu" -M mps2-an505 -nographic -semihosting-config enable=on,target=native \
    -icount shift=0,sleep=off -kernel "$elf" </dev/null >"$out/suite-filex.json"
"$python" - "$out/suite-filex.json" "$schema" <<'PY'
import json, sys, jsonschema
doc = json.load(open(sys.argv[1]))
jsonschema.validate(doc, json.load(open(sys.argv[2])), cls=jsonschema.Draft202012Validator)
assert doc["status"] == "ok", doc["status"]
tests = {t["id"]: t for t in doc["tests"]}
assert list(tests) == ["B0", "B1", "B2", "M1", "S2", "M2"], list(tests)
assert doc["environment"]["filesystem"] == "filex"
b0 = {(p["name"], p["params"]["chunk_bytes"]): p["runs"]["mean"] / 1e3
      for p in tests["B0"]["points"] if not p.get("skipped")}
study = {("write", 1): 100, ("read", 1): 150, ("write", 1024): 1650, ("read", 1024): 4000}
print("FileX on the MCU at 160 MHz, B0 (kB/s) beside the study's:")
for k, v in study.items():
    print("  %-5s %4d B: %8.1f  study %5d  (%.2fx)" % (k[0], k[1], b0[k], v, b0[k] / v))
s2 = tests["S2"]
print("  S2 open+close grows as N^%.2f (+-%.2f)" % (s2["open_close_exponent_flat"],
                                                    s2["open_close_exponent_flat_ci95"]))
PY
