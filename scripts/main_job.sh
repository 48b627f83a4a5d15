#!/bin/sh
# The main job, given the storscope binary (run.sh builds it; first_screen.sh
# puts its screen into README.md). With no further arguments it tells what
# storscope is for, on one screen: suite `paper` at scale quick on the
# study's medium simulated (its figures and its guidelines, with their
# evidence), then the same medium with sensorlog, storscope's store, on it
# (B0 and M1 through its files) and what the store changes, side by side
# (storscope compare). 2.5 s of CPU and 101 MiB at most here
# (bench/rss_cpu.py --cases main; scripts/test.sh holds it under 256 MiB).
# With arguments, `storscope run` with them (a -t replaces the target).
#   scripts/main_job.sh BIN [storscope run arguments]
set -eu
bin=$1
shift
medium=sim:emmc-stm32u5
# a 32-bit board (armhf) cannot map the 4 GiB model and its data: 1 GiB of it
[ "$(getconf LONG_BIT)" -ge 64 ] || medium=sim:emmc-stm32u5,capacity=1G
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
