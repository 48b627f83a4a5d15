#!/bin/sh
# The libFuzzer targets (fuzz/): builds preset `fuzz` (clang, ASan+UBSan)
# and runs each target for SECONDS (default 75) on a copy of its committed
# corpus, two at a time; prints executions per second and in all. A crash,
# a leak, a timeout (10 s an input) or an out-of-memory stops the script
# with the input saved in build/fuzz/artifacts/ (commit it under
# fuzz/regressions/TARGET/: this script replays those first).
#   scripts/fuzz.sh [SECONDS]            CI runs 75 s each (5 min in all)
#   scripts/fuzz.sh 3600                 the longer run
set -eu
cd "$(dirname "$0")/.."
seconds=${1:-75}
if ! command -v clang >/dev/null || ! dpkg-query -W -f='${Status}' libclang-rt-14-dev 2>/dev/null |
    grep -q "ok installed"; then
    echo "fuzz.sh: needs clang and libFuzzer: apt-get install -y clang libclang-rt-14-dev" >&2
    exit 1
fi
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j"$(nproc)" >/dev/null
art=build/fuzz/artifacts
mkdir -p "$art"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# inputs that once crashed a target, replayed first
for t in results log_dump sensorlog spec; do
    if [ -d fuzz/regressions/"$t" ]; then
        build/fuzz/fuzz_"$t" -runs=0 fuzz/regressions/"$t" >"$work/replay.log" 2>&1 ||
            { cat "$work/replay.log" >&2; echo "fuzz_$t: a regression input fails again" >&2; exit 1; }
    fi
done
run_one() {
    t=$1
    mkdir -p "$work/$t"
    cp fuzz/corpus/"$t"/* "$work/$t/"
    # inputs as large as the largest seed (images are 64-120 KiB)
    if build/fuzz/fuzz_"$t" "$work/$t" -max_total_time="$seconds" -timeout=10 \
        -rss_limit_mb=2048 -close_fd_mask=3 -print_final_stats=1 \
        -artifact_prefix="$art/$t-" >"$work/$t.log" 2>&1; then
        echo "ok" >"$work/$t.status"
    else
        echo "FAILED" >"$work/$t.status"
    fi
}
set -- results log_dump sensorlog spec
while [ $# -gt 0 ]; do
    run_one "$1" &
    if [ $# -gt 1 ]; then run_one "$2" & fi
    wait
    shift $(($# > 1 ? 2 : 1))
done
rc=0
for t in results log_dump sensorlog spec; do
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t.log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/$t.log")
    cov=$(grep -Eo 'cov: [0-9]+' "$work/$t.log" | tail -n 1)
    status=$(cat "$work/$t.status")
    printf 'fuzz_%-10s %-6s %10s execs in %s s, %s/s, %s\n' "$t" "$status" "${execs:-?}" \
        "$seconds" "${rate:-?}" "${cov:-cov: ?}"
    if [ "$status" != ok ]; then
        grep -E 'ERROR|SUMMARY|Test unit written' "$work/$t.log" | head -n 20 >&2
        rc=1
    fi
done
exit $rc
