#!/bin/sh
# storscope probe beside f3probe and flashbench on the same loop-backed
# image (root; Debian packages f3, flashbench). Usage:
#     sudo sh bench/probe_beside.sh build/release/storscope [SIZE_MB]
set -eu
bin=${1:-build/release/storscope}
mb=${2:-256}
img=$(mktemp /var/tmp/probe-beside.XXXXXX)
trap 'losetup -d "$dev" 2>/dev/null || true; rm -f "$img"' EXIT
truncate -s "${mb}M" "$img"
dev=$(losetup -f --show "$img")
echo "== $dev: a ${mb} MiB loop-backed image"
echo "-- f3probe --destructive --time-ops"
f3probe --destructive --time-ops "$dev" 2>&1 | grep -E "Good news|Bad news|Usable|Announced|Probe time" || true
echo "-- flashbench -a --blocksize=1024"
flashbench -a "$dev" --blocksize=1024 2>&1 | tail -n 4 || true
echo "-- storscope probe --allow-destructive --preserve"
"$bin" probe "raw:$dev" --allow-destructive --preserve || true
