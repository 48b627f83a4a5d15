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
env = doc["environment"]
cost = [env["engine_%s_call_%s_ns" % (op, sz)] for op in ("write", "read")
        for sz in ("1_byte", "512_bytes")]
assert all(c > 0 for c in cost), cost
# the engine's share of B0's 1-byte figures on this MCU
b0 = {(p["name"], p["params"]["chunk_bytes"]): 1e9 / p["runs"]["mean"] for p in doc["tests"][0]["points"]
      if p["params"]["chunk_bytes"] == 1}
print("engine on the MCU: a 1-B write call %d ns (%.0f %% of B0's 1-B write), a 1-B read %d ns "
      "(%.0f %%), 512-B write %d ns, read %d ns" % (cost[0], 100.0 * cost[0] / b0[("write", 1)],
      cost[2], 100.0 * cost[2] / b0[("read", 1)], cost[1], cost[3]))
print("nb on the MCU: blocking %.1f us per call (max %.1f), non-blocking %.2f us per call "
      "(max %.2f), %.0f polls per block" % (nb["blocking"]["blocked_mean_ns"] / 1e3,
      nb["blocking"]["blocked_max_ns"] / 1e3, nb["nonblocking"]["blocked_mean_ns"] / 1e3,
      nb["nonblocking"]["blocked_max_ns"] / 1e3, nb["nonblocking"]["polls_per_block_mean"]))
PY
