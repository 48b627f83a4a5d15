#!/bin/sh
# Does a compressing filesystem flatter storscope's write figures? The same
# seq test (dd-style 1 MiB writes + fdatasync) on two loop-mounted btrfs
# images, one with compress=zstd, alternated for ROUNDS rounds; the ratio
# compressed / plain of the median best write throughput should be near 1
# when the data is incompressible. Needs root, btrfs-progs and loop devices.
#   bench/compress_btrfs.sh [BIN] [ROUNDS]   (BIN: build/release/storscope)
set -eu
bin=${1:-build/release/storscope}
rounds=${2:-3}
work=$(mktemp -d /var/tmp/storscope-compress.XXXXXX)
cleanup() {
    for m in plain zstd; do umount "$work/$m" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT INT TERM
for m in plain zstd; do
    truncate -s 2G "$work/$m.img"
    mkfs.btrfs -q "$work/$m.img"
    mkdir "$work/$m"
done
mount -o loop "$work/plain.img" "$work/plain"
mount -o loop,compress=zstd "$work/zstd.img" "$work/zstd"
best_write() { # best write throughput of the seq test on $1, bytes/s
    "$bin" run -q -t "posix:$1" --tests seq --size 256M --runs 3 -o "$work/r.json" >/dev/null
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print([p for p in d["tests"][0]["points"] if p["name"] == "write"][0]["metrics"]["best_bytes_per_second"])' "$work/r.json"
}
echo "round plain_MBps zstd_MBps"
: > "$work/ratios"
i=0
while [ "$i" -lt "$rounds" ]; do
    if [ $((i % 2)) -eq 0 ]; then p=$(best_write "$work/plain"); z=$(best_write "$work/zstd")
    else z=$(best_write "$work/zstd"); p=$(best_write "$work/plain"); fi
    echo "$i $p $z" | awk '{ printf "%5d %10.1f %9.1f\n", $1, $2 / 1e6, $3 / 1e6 }'
    echo "$p $z" >> "$work/ratios"
    i=$((i + 1))
done
python3 -c 'import statistics,sys
rows=[tuple(map(float,l.split())) for l in open(sys.argv[1])]
p=statistics.median(r[0] for r in rows); z=statistics.median(r[1] for r in rows)
print("median write: plain %.1f MB/s, zstd %.1f MB/s, zstd/plain %.2f" % (p/1e6, z/1e6, z/p))' "$work/ratios"
