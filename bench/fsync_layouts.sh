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
truncate -s 2G "$work/btrfs.img"
mkfs.btrfs -q "$work/btrfs.img"
mkdir "$work/btrfs"
mount -o loop "$work/btrfs.img" "$work/btrfs"
truncate -s 2G "$work/xfs.img"
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
