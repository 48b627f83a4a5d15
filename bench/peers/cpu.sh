#!/bin/sh
# Host instructions per 12-byte record for each store: its append and its
# share of pumping and syncing (a sync each second of virtual time, on the
# 16 MiB NOR model), counted by callgrind only while inside the store's
# calls and outside the device model (--toggle-collect flips collection on
# entering and leaving each named function, so the c_* device functions
# nested in a store call are left out).
#   bench/peers/cpu.sh [BIN] [RECORDS]        (valgrind from Debian)
set -eu
bin=${1:-build/peers/sensorlog_peers}
n=${2:-200000}
out=$(mktemp)
trap 'rm -f "$out"' EXIT INT TERM
for store in sensorlog littlefs "FlashDB TSDB"; do
    if ! "$bin" --cpu 10 --only "$store" >/dev/null 2>&1; then
        echo "$store: not built in $bin"
        continue
    fi
    valgrind --tool=callgrind --callgrind-out-file="$out" --collect-atstart=no \
        --zero-before=peer_cpu_start \
        --toggle-collect='peer_cpu_append*' --toggle-collect='peer_cpu_sync*' \
        --toggle-collect='c_read*' --toggle-collect='c_program*' --toggle-collect='c_erase*' \
        --toggle-collect='c_flush*' "$bin" --cpu "$n" --only "$store" >/dev/null 2>&1
    ir=$(awk '/^(summary|totals):/ {print $2; exit}' "$out")
    echo "$store: $ir instructions for $n records, $((ir / n)) a record"
done
