#!/bin/sh
# L1 on an RTOS under QEMU (issue 18): images with real producer and
# writer tasks and images with L1's event loop, on the same paced
# emmc-stm32u5, at the study's rates and at ten times them. Every document
# must validate; every producer must have counted its whole schedule (a
# producer that slept through its alarm once hung the run: the board's
# alarm fix), the I/O task must lose nothing at either rate, and the stacks
# must have been measured. Prints real tasks beside the event loop.
#   run_l1.sh QEMU TASKS LOOP TASKS_X10 LOOP_X10 PYTHON SCHEMA OUTDIR RTOS [FS]
# FS: extentfs (default) or filex (the user's FileX: with ThreadX, the study's stack).
set -eu
qemu=$1 tasks=$2 loop=$3 tasks_x10=$4 loop_x10=$5 python=$6 schema=$7 out=$8 rtos=$9
fs=${10:-extentfs}
tag=$rtos; [ "$fs" = extentfs ] || tag=$rtos-$fs
for img in tasks loop tasks_x10 loop_x10; do
    eval elf=\$$img
    timeout 900 "$qemu" -M mps2-an505 -nographic -semihosting-config enable=on,target=native \
        -icount shift=0,sleep=off -kernel "$elf" </dev/null >"$out/l1-$tag-$img.json"
done
for x in "" _x10; do
"$python" - "$out/l1-$tag-tasks$x.json" "$out/l1-$tag-loop$x.json" "$schema" "$rtos" "$fs" <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[3]))
rtos, fs = sys.argv[4], sys.argv[5]
def load(path, tasks):
    doc = json.load(open(path))
    jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)
    assert doc["status"] == "ok", doc["status"]
    assert doc["environment"]["rtos"] == rtos, doc["environment"]
    assert doc["environment"]["filesystem"] == fs, doc["environment"]
    t = doc["tests"][0]
    assert t["id"] == "L1" and t["status"] == "ok", (t["status"], t.get("error"))
    assert t["params"]["tasks"] is tasks, t["params"]
    pts = {(p["name"], p["params"]["mode"]): p for p in t["points"]}
    return t, pts
tt, tp = load(sys.argv[1], True)
lt, lp = load(sys.argv[2], False)
dur_s = tt["params"]["duration_ns"] / 1e9
# the schedule, from the streams themselves: every record of it is counted
expected = 0
for s in tt["params"]["streams"].split(","):
    hz = int(s.split(":")[1].split("x")[0])
    expected += round(hz * dur_s)
print("L1 on %s + %s, emmc-stm32u5 paced in MCU time, %s for %g s:" % (rtos, fs, tt["params"]["streams"], dur_s))
print("  %-7s %-13s %8s %6s %6s %12s %10s" % ("mode", "scheduling", "records", "lost",
      "late", "worst stall", "RAM need"))
for mode in ("direct", "mutex", "iotask"):
    for name, t, pts in (("real tasks", tt, tp), ("event loop", lt, lp)):
        m = pts[("sustained", mode)]["metrics"]
        print("  %-7s %-13s %8d %6d %6d %9.2f ms %8d B" % (
            mode, name, m["records_produced"], m["records_lost"], m["records_late"],
            m["worst_stall_ns"] / 1e6, m["required_buffer_bytes"]))
        assert m["records_produced"] == expected, (name, mode, m["records_produced"], expected)
io = tp[("sustained", "iotask")]["metrics"]
assert io["records_lost"] == 0 and io["records_late"] == 0, io
print("stack used: producer task %d B of 1024, writer task %d B of 8192"
      % (tt["producer_task_stack_used_bytes"], tt["writer_task_stack_used_bytes"]))
assert 0 < tt["producer_task_stack_used_bytes"] < 1024
assert 0 < tt["writer_task_stack_used_bytes"] < 8192
PY
done
