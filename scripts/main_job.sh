#!/bin/sh
# The main job, given the storscope binary (run.sh builds it; first_screen.sh
# puts its screen into README.md). With no further arguments it tells what
# storscope is for, on one screen: suite `paper` at scale quick on the
# study's medium simulated (its figures and its guidelines, with their
# evidence), then the same medium with sensorlog, storscope's store, on it
# (B0 and M1 through its files) and what the store changes, side by side
# (storscope compare). 1.3 s of CPU and 15 MiB at most here
# (bench/rss_cpu.py --cases main; scripts/test.sh holds it under 256 MiB).
# With arguments, `storscope run` with them (a -t replaces the target).
#   scripts/main_job.sh BIN [storscope run arguments]
set -eu
bin=$1
shift
medium=sim:emmc-stm32u5
# The model's size by what the machine has, not by its word size: the 4 GiB
# model peaks at 15 MiB here (bench/rss_cpu.py --cases main; 101 MiB before
# sensorlog trimmed what deleted files held), and it wants 512 MiB available,
# a margin kept for what a model keeps; a machine with less, or a 32-bit one (armhf:
# 4 GiB and its data cannot be mapped), gets 1 GiB of it, and is told so.
# STORSCOPE_MEMINFO names another /proc/meminfo (the test of this choice).
meminfo=${STORSCOPE_MEMINFO:-/proc/meminfo}
avail_kib=$(awk '/^MemAvailable:/ { print $2; exit }' "$meminfo" 2>/dev/null || true)
bits=${STORSCOPE_LONG_BIT:-$(getconf LONG_BIT)}
if [ "$bits" -lt 64 ]; then
    medium=sim:emmc-stm32u5,capacity=1G
    why="a ${bits}-bit host cannot map the 4 GiB model and its data"
elif [ -n "$avail_kib" ] && [ "$avail_kib" -lt 524288 ]; then
    medium=sim:emmc-stm32u5,capacity=1G
    why="$((avail_kib / 1024)) MiB of memory available, under the 512 MiB the 4 GiB model wants"
fi
if [ "$medium" != sim:emmc-stm32u5 ]; then
    echo "storscope: the study's eMMC modelled at 1 GiB of its 4 GiB: $why" >&2
fi
if [ $# -gt 0 ]; then
    target=$medium+sensorlog
    for a in "$@"; do
        case $a in -t | --target | --target=* | -t?*) target= ;; esac
    done
    exec "$bin" run -o results.json ${target:+-t "$target"} "$@"
fi
"$bin" run -o results.json -t "$medium"
echo
echo "The same medium with sensorlog, storscope's flash log store, on it (B0 and M1 through"
echo "its files; results-sensorlog.json), beside the bare medium:"
echo
"$bin" run -q -o results-sensorlog.json -t "$medium+sensorlog" --tests B0,M1
"$bin" compare results.json results-sensorlog.json
