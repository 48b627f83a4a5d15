#!/bin/sh
# L1 with real producer and writer tasks on ThreadX and FreeRTOS under QEMU
# (issue 18), beside L1's event loop on the same paced device: builds the
# RTOS images from the kernels' sources you give (never fetched by the
# build), runs ctest's firmware-l1-* (firmware/run_l1.sh: each checks every
# producer's schedule and the I/O task) and prints bench/README.md's table.
# With FILEX, each kernel + FileX is measured too (ThreadX + FileX: the
# study's stack).
#   [FILEX=<filex source>] sh bench/l1_rtos.sh <threadx source> <freertos source>
set -eu
cd "$(dirname "$0")/.."
tx=$1 frt=$2
b=build/fw-rtos
cmake --preset firmware -B $b -DSTORSCOPE_THREADX_DIR="$tx" -DSTORSCOPE_FREERTOS_DIR="$frt" \
    -DSTORSCOPE_FILEX_DIR="${FILEX:-}" >/dev/null
cmake --build $b -j"$(nproc)" >/dev/null
ctest --test-dir $b -R "firmware-l1-" -j2 --output-on-failure >&2
sh bench/kernel_versions.sh "$tx" "$frt"
echo
python3 - "$b/firmware" <<'PY'
import json, os, sys
d = sys.argv[1]
kernels = [("threadx", "ThreadX"), ("freertos", "FreeRTOS")]
if os.path.exists(d + "/l1-threadx-filex-tasks.json"):
    kernels += [("threadx-filex", "ThreadX + FileX"), ("freertos-filex", "FreeRTOS + FileX")]
def pts(rtos, sched, x):
    t = json.load(open("%s/l1-%s-%s%s.json" % (d, rtos, sched, x)))["tests"][0]
    return t, {p["params"]["mode"]: p["metrics"] for p in t["points"] if p["name"] == "sustained"}
for x, label in (("", "the study's streams"), ("_x10", "ten times the study's rates")):
    t, _ = pts("threadx", "tasks", x)
    print("%s (%s), %g s, %d records:" % (label, t["params"]["streams"],
          t["params"]["duration_ns"] / 1e9, _["direct"]["records_produced"]))
    print()
    print("| mode | kernel | real tasks: lost / late | event loop: lost / late "
          "| real tasks: RAM needed | event loop: RAM needed | worst stall (both) |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for mode in ("direct", "mutex", "iotask"):
        for rtos, name in kernels:
            _, tk = pts(rtos, "tasks", x)
            _, lp = pts(rtos, "loop", x)
            a, b = tk[mode], lp[mode]
            print("| %s | %s | %d / %d | %d / %d | %d B | %d B | %.2f / %.2f ms |" % (
                mode, name, a["records_lost"], a["records_late"], b["records_lost"],
                b["records_late"], a["required_buffer_bytes"], b["required_buffer_bytes"],
                a["worst_stall_ns"] / 1e6, b["worst_stall_ns"] / 1e6))
    print()
print("| task (stack of) | " + " | ".join(k[1] for k in kernels) + " |")
print("| --- |" + " --- |" * len(kernels))
for key, name in (("producer_task_stack_used_bytes", "L1 producer (1 KiB)"),
                  ("writer_task_stack_used_bytes", "L1 writer (8 KiB)")):
    print("| %s | %s |" % (name, " | ".join(
        "%d B" % max(pts(r, "tasks", x)[0][key] for x in ("", "_x10"))
        for r, _ in kernels)))
PY
