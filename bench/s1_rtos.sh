#!/bin/sh
# S1 on ThreadX and FreeRTOS under QEMU (issue 18), beside Linux: builds the
# RTOS firmware images from the kernels' sources you give (never fetched by
# the build), runs ctest's firmware-s1-* (each asserts the study's finding)
# and prints bench/README.md's table from the results.
#   [FILEX=<filex source>] sh bench/s1_rtos.sh <threadx source> <freertos source> [linux S1 JSON]
# With FILEX, ThreadX + FileX (the study's stack) is measured too.
# The Linux JSON: storscope run -t sim:emmc-stm32u5,clock=real,capacity=64M
#   --tests S1 --scale quick -o s1-linux.json
set -eu
cd "$(dirname "$0")/.."
tx=$1 frt=$2 linux=${3:-}
b=build/fw-rtos
cmake --preset firmware -B $b -DSTORSCOPE_THREADX_DIR="$tx" -DSTORSCOPE_FREERTOS_DIR="$frt" \
    -DSTORSCOPE_FILEX_DIR="${FILEX:-}" >/dev/null
cmake --build $b -j"$(nproc)" >/dev/null
ctest --test-dir $b -R "firmware-s1-" -j2 --output-on-failure >&2
sh bench/kernel_versions.sh "$tx" "$frt"
echo
python3 - "$b/firmware" "$linux" <<'PY'
import json, sys
d, linux = sys.argv[1], sys.argv[2]
def points(path):
    t = json.load(open(path))["tests"][0]
    return {(p["params"]["op"], p["params"]["mode"], p["params"]["chunk_bytes"],
             p["params"]["load_tasks"]): p for p in t["points"]}
def summary(path):
    return json.load(open(path))["tests"][0]
runs = [("ThreadX", points(d + "/s1-threadx-equal.json"), points(d + "/s1-threadx-above.json")),
        ("FreeRTOS", points(d + "/s1-freertos-equal.json"), points(d + "/s1-freertos-above.json"))]
import os
if os.path.exists(d + "/s1-threadx-filex-equal.json"):
    runs.insert(1, ("ThreadX + FileX", points(d + "/s1-threadx-filex-equal.json"),
                    points(d + "/s1-threadx-filex-above.json")))
if linux:
    runs.append(("Linux (CFS)", points(linux), None))
def loss(pts, k):
    return "/".join("%.0f" % (100 * pts[k + (n,)]["metrics"]["degradation"]) for n in (1, 2, 3, 4))
print("| mode, 1 KiB | " + " | ".join(
    "%s: equal priority | %s: above the load" % (r[0], r[0]) if r[2] else "%s" % r[0]
    for r in runs) + " |")
print("| --- |" + " --- |" * sum(2 if r[2] else 1 for r in runs))
for mode in ("direct", "mutex", "iotask"):
    for op in ("write", "read"):
        cells = []
        for _, eq, ab in runs:
            cells.append(loss(eq, (op, mode, 1024)))
            if ab:
                cells.append(loss(ab, (op, mode, 1024)))
        print("| %s %s | %s |" % (mode, op, " | ".join(cells)))
print()
print("| chunk | " + " | ".join("%s base (KB/s) | %s: I/O task above the load, 4 loads, kept" % (r[0], r[0])
                                 for r in runs if r[2]) + " |")
print("| --- |" + " --- | --- |" * sum(1 for r in runs if r[2]))
for c in (1, 64, 1024, 8192):
    cells = []
    for _, eq, ab in runs:
        if ab:
            cells.append("%.0f" % (ab[("write", "iotask", c, 0)]["runs"]["mean"] / 1e3))
            cells.append("%.0f %%" % (100 * (1 - ab[("write", "iotask", c, 4)]["metrics"]["degradation"])))
    print("| %d B | %s |" % (c, " | ".join(cells)))
print()
print("| task | ThreadX | FreeRTOS |")
print("| --- | --- | --- |")
for key, name in (("storage_task_stack_used_bytes", "S1 storage task"),
                  ("load_task_stack_used_bytes", "S1 load task")):
    print("| %s | %s |" % (name, " | ".join("%d B" % summary(d + "/s1-%s-equal.json" % r)[key]
                                            for r in ("threadx", "freertos"))))
PY
