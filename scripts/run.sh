#!/bin/sh
# The main job: install what is missing, build (Release), then
# scripts/main_job.sh: suite `paper` at scale quick on the study's medium
# simulated, its guidelines, and the same medium with sensorlog on it beside
# it; results.json and results-sensorlog.json. Extra arguments go to
# `storscope run` instead (e.g. -t posix:/mnt/sdcard --scale full).
set -eu
cd "$(dirname "$0")/.."
# a clone where root ran run.sh first has a build/ this user cannot write:
# CMake would fail with twenty lines about it
if [ -e build ] && { [ ! -w build ] || { [ -e build/run ] && [ ! -w build/run ]; }; }; then
    owner=$(stat -c %U build/run 2>/dev/null || stat -c %U build)
    echo "storscope: $(pwd)/build belongs to $owner (run.sh ran as $owner here first) and" \
         "$(id -un) cannot write it: remove it as $owner (rm -rf $(pwd)/build), or run" \
         "run.sh as $owner" >&2
    exit 1
fi
scripts/deps.sh --runtime
# preset `run`: Release without the tests, so only the runtime packages are needed
cmake --preset run >/dev/null
cmake --build --preset run --target storscope_cli -j"$(nproc)" >/dev/null
rc=0
scripts/main_job.sh build/run/storscope "$@" || rc=$?
# the README's other commands say `storscope`: where it is, since run.sh
# does not install it
if ! command -v storscope >/dev/null 2>&1; then
    echo "storscope is $(pwd)/build/run/storscope (not on PATH; to put it there:" \
         "cmake --build --preset run && cmake --install build/run --prefix ~/.local," \
         "with ~/.local/bin on PATH)" >&2
fi
exit $rc
