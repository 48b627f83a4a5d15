#!/bin/sh
# The main job: install what is missing, build (Release), run suite `paper`
# at scale quick on the default target (a scratch directory under $TMPDIR or
# /tmp), print the summary and write results.json.
# Extra arguments go to `storscope run` (e.g. -t posix:/mnt/sdcard --scale full).
set -eu
cd "$(dirname "$0")/.."
scripts/deps.sh --runtime
cmake --preset release >/dev/null
cmake --build --preset release --target storscope_cli -j"$(nproc)" >/dev/null
exec build/release/storscope run -o results.json "$@"
