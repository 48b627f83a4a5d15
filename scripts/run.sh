#!/bin/sh
# The main job: install what is missing, build (Release), run suite `paper`
# at scale quick on the study's medium simulated, with sensorlog on it
# (sim:emmc-stm32u5+sensorlog), print the summary and write results.json.
# Extra arguments go to `storscope run` (e.g. -t posix:/mnt/sdcard --scale full).
set -eu
cd "$(dirname "$0")/.."
scripts/deps.sh --runtime
# preset `run`: Release without the tests, so only the runtime packages are needed
cmake --preset run >/dev/null
cmake --build --preset run --target storscope_cli -j"$(nproc)" >/dev/null
target=sim:emmc-stm32u5+sensorlog
# a 32-bit board (armhf) cannot map the 4 GiB model and its data: 1 GiB of it
[ "$(getconf LONG_BIT)" -ge 64 ] || target=sim:emmc-stm32u5,capacity=1G+sensorlog
for a in "$@"; do
    case $a in -t | --target | --target=* | -t?*) target= ;; esac
done
rc=0
build/run/storscope run -o results.json ${target:+-t "$target"} "$@" || rc=$?
# the README's other commands say `storscope`: where it is, since run.sh
# does not install it
if ! command -v storscope >/dev/null 2>&1; then
    echo "storscope is $(pwd)/build/run/storscope (not on PATH; to put it there:" \
         "cmake --build --preset run && cmake --install build/run --prefix ~/.local," \
         "with ~/.local/bin on PATH)" >&2
fi
exit $rc
