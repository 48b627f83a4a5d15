#!/bin/sh
# The fsync workload against fio in both file layouts (allocated: both
# tools' defaults; written: storscope --overwrite vs fio --overwrite=1), on
# the directory given (ext4 here) and on loop-mounted btrfs and XFS images.
# Needs root (mount), fio, btrfs-progs and xfsprogs.
#   bench/fsync_layouts.sh DIR [BIN] [ROUNDS] [SECONDS]
set -eu
dir=$1
bin=${2:-build/release/storscope}
rounds=${3:-4}
secs=${4:-5}
here=$(dirname "$0")
work=$(mktemp -d /var/tmp/storscope-layouts.XXXXXX)
cleanup() {
    umount "$work/btrfs" 2>/dev/null || true
    umount "$work/xfs" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT INT TERM
# written in full, not sparse: a sparse image makes the host allocate
# under the first write to each part of it, and storscope's fsync ran
# 16-26 % below fio's on XFS that way; on an image written in full they
# agree (bench/README, session 33)
dd if=/dev/zero of="$work/btrfs.img" bs=1M count=2048 status=none
mkfs.btrfs -q "$work/btrfs.img"
mkdir "$work/btrfs"
mount -o loop "$work/btrfs.img" "$work/btrfs"
dd if=/dev/zero of="$work/xfs.img" bs=1M count=2048 status=none
mkfs.xfs -q "$work/xfs.img"
mkdir "$work/xfs"
mount -o loop "$work/xfs.img" "$work/xfs"
for target in "$dir" "$work/btrfs" "$work/xfs"; do
    fstype=$(stat -f -c %T "$target")
    for layout in allocated written; do
        echo "== $fstype ($target), layout $layout"
        /usr/bin/python3 "$here/fio_compare.py" fsync "$target" --bin "$bin" --rounds "$rounds" \
            --duration "$secs" --size 128M --layout "$layout" | tail -n +1
    done
done
