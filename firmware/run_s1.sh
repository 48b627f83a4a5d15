#!/bin/sh
# S1 on an RTOS under QEMU (issue 18): the image with the storage tasks at
# the load's priority and the one with them above it; both documents must
# validate, and the study's finding must hold: with 4 load tasks at equal
# priority direct writes lose >= 80 %, and with the storage side above the
# load the I/O task keeps >= 90 % of its throughput. Prints the table.
set -eu
qemu=$1 equal=$2 above=$3 python=$4 schema=$5 out=$6 rtos=$7 fs=${8:-extentfs}
tag=$rtos; [ "$fs" = extentfs ] || tag=$rtos-$fs
for img in equal above; do
    eval elf=\$$img
    timeout 900 "$qemu" -M mps2-an505 -nographic -semihosting-config enable=on,target=native \
        -icount shift=0,sleep=off -kernel "$elf" </dev/null >"$out/s1-$tag-$img.json"
done
"$python" - "$out/s1-$tag-equal.json" "$out/s1-$tag-above.json" "$schema" "$rtos" "$fs" <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[3]))
rtos, fs = sys.argv[4], sys.argv[5]
def loss(path):
    doc = json.load(open(path))
    jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)
    assert doc["status"] == "ok", doc["status"]
    assert doc["environment"]["rtos"] == rtos, doc["environment"]
    assert doc["environment"]["filesystem"] == fs, doc["environment"]
    t = doc["tests"][0]
    assert t["id"] == "S1" and t["status"] == "ok", t["status"]
    out = {}
    for p in t["points"]:
        q = p["params"]
        out[(q["op"], q["mode"], q["chunk_bytes"], q["load_tasks"])] = p["metrics"]["degradation"]
    return t, out
teq, eq = loss(sys.argv[1])
tab, ab = loss(sys.argv[2])
assert tab.get("priority_applied") is True, "the storage side did not run above the load"
print("S1 on %s + %s, throughput lost with 1/2/3/4 load tasks (%%), 1 KiB chunks:" % (rtos, fs))
for mode in ("direct", "mutex", "iotask"):
    for op in ("write", "read"):
        e = "/".join("%.0f" % (100 * eq[(op, mode, 1024, n)]) for n in (1, 2, 3, 4))
        a = "/".join("%.0f" % (100 * ab[(op, mode, 1024, n)]) for n in (1, 2, 3, 4))
        print("  %-6s %-5s equal priority %s, storage above the load %s" % (mode, op, e, a))
print("stack used: storage task %d B, load task %d B" % (teq["storage_task_stack_used_bytes"],
                                                         teq["load_task_stack_used_bytes"]))
for c in (1, 64, 8192):
    print("  iotask write, %d B records, above the load, kept with 4 load tasks: %.0f %%"
          % (c, 100 * (1 - ab[("write", "iotask", c, 4)])))
# above the load, direct and mutexed access keep their throughput at every
# load count, measured against their own 0-load point: a 0-load point that
# ran fast (FreeRTOS's mutex writes once did, 7,214 against 5,413 kB/s)
# shows as a loss at every count (issue 46). 15 %: ThreadX + FileX's mutex
# writes swing -8..14 % with where FileX's flushes fall, not with the load
for mode in ("direct", "mutex"):
    for op in ("write", "read"):
        for n in (1, 2, 3, 4):
            d = ab[(op, mode, 1024, n)]
            assert abs(d) <= 0.15, "%s %s above the load, %d load tasks: %.0f %% lost against " \
                "its 0-load point" % (mode, op, n, 100 * d)
# (>= 80 %: the study's "up to 98 %" is over every chunk size; at 1 KiB a
# write holds the card 410 us since issue 46's refit, time the storage task
# sleeps through whoever runs, so it loses 86 % on ThreadX (with and without
# FileX) where it lost 96 % with the 15 us command before)
worst = eq[("write", "direct", 1024, 4)]
assert worst >= 0.80, "direct writes lost only %.0f %% with 4 load tasks" % (100 * worst)
# the guideline's I/O task: records of 1 KiB and up, batched into whole blocks
kept = 1 - max(ab[("write", "iotask", c, 4)] for c in (1024, 8192))
assert kept >= 0.90, "the I/O task above the load kept only %.0f %%" % (100 * kept)
PY
