#!/bin/sh
# Line coverage of src/ by the test suite, and a floor under it (issue 42).
#   coverage.sh [FLOOR]   FLOOR in percent of src/'s lines, 90 unless given
# Builds the `coverage` preset (gcc --coverage), runs its ctest (every test
# but the VM's, whose storscope runs inside a guest and writes no host
# counters), then lcov: the figure, every file's rate lowest first (in
# build/coverage/coverage.txt) and an exit of 1 under the floor.
set -eu
cd "$(dirname "$0")/.."
floor=${1:-90}
case $floor in
'' | *[!0-9.]*) echo "coverage.sh: the floor is a percentage, like 90 (got '$floor')" >&2; exit 2 ;;
esac
scripts/deps.sh --only build-essential cmake lcov
cmake --preset coverage >/dev/null
cmake --build --preset coverage -j"$(nproc)" >/dev/null
find build/coverage -name '*.gcda' -delete # (counts from an earlier run would add up)
ctest --preset coverage -j"$(nproc)" >build/coverage/ctest.log ||
    { tail -n 30 build/coverage/ctest.log; echo "coverage.sh: a test failed" >&2; exit 1; }
# (lcov 1.16 on Debian 12's perl warns "Subroutine ... redefined", and gcov
# notes sources edited since the build: both in lcov.log, not on screen)
lcov --quiet --capture --directory build/coverage --output-file build/coverage/all.info \
    2>build/coverage/lcov.log
lcov --quiet --extract build/coverage/all.info "$PWD/src/*" -o build/coverage/src.info
lcov --list build/coverage/src.info 2>/dev/null |
    awk -F'|' 'NR > 5 && /%/ { print }' | sort -t'|' -k2 -n >build/coverage/coverage.txt
rate=$(lcov --summary build/coverage/src.info 2>&1 | awk '/lines\.*:/ { sub("%", "", $2); print $2 }')
lines=$(lcov --summary build/coverage/src.info 2>&1 | sed -n 's/.*lines\.*: [0-9.]*% (\(.*\))/\1/p')
echo "line coverage of src/: $rate % ($lines); the floor is $floor %"
echo "lowest files (build/coverage/coverage.txt):"
head -n 8 build/coverage/coverage.txt
if awk -v r="$rate" -v f="$floor" 'BEGIN { exit !(r + 0 < f + 0) }'; then
    echo "coverage.sh: line coverage of src/ is $rate %, under the floor of $floor %" >&2
    exit 1
fi
