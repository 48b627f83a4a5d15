#!/bin/sh
# Bytes of code and constants (.text and .rodata) each store adds to a
# logger that writes, for Cortex-M33 at -Os with --gc-sections, counted as
# scripts/sensorlog-linked-size.sh counts sensorlog's (issue 40's rule):
# what is linked over an empty program - the store's objects and what they
# pull in from libgcc and newlib (64-bit division, strcmp, memmove...) -
# except memcpy and memset, and the logger's own main and device stubs
# (scripts/linked_bytes.py).
#
#   sh bench/peers/code_size.sh LITTLEFS_DIR FLASHDB_DIR
#
# Each logger does what the peers bench has it do (bench/peers/peer_*.c):
#   sensorlog  mount or format, open or create a stream, append, pump, sync
#              (scripts/sensorlog-linked-size.sh, raw flash: -DSL_PARTS=0)
#   littlefs   mount or format, a file per 1/16 of the device opened for
#              appending, write, sync, close, remove the oldest, fs_size;
#              LFS_NO_DEBUG/WARN/ERROR/ASSERT (its README's advice for size),
#              its buffers given (no malloc): its best for code
#   FlashDB    its TSDB over FAL (fal.c, fal_flash.c, fal_partition.c):
#              init, append; FDB_WRITE_GRAN 1 (NOR), the bench's fdb_cfg.h
# Nothing of littlefs or FlashDB is in this repository: give their trees.
set -eu
[ $# -eq 2 ] || { echo "usage: sh bench/peers/code_size.sh LITTLEFS_DIR FLASHDB_DIR" >&2; exit 2; }
lfs=$1
fdb=$2
[ -f "$lfs/lfs.c" ] || { echo "code_size.sh: $lfs/lfs.c not found (littlefs v2 tree)" >&2; exit 2; }
[ -f "$fdb/src/fdb_tsdb.c" ] || { echo "code_size.sh: $fdb/src/fdb_tsdb.c not found (FlashDB tree)" >&2; exit 2; }
here=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT INT TERM
[ -z "${KEEP:-}" ] || echo "work: $work" >&2
cc="arm-none-eabi-gcc -mcpu=cortex-m33 -mthumb -Os -std=c11 -ffunction-sections -fdata-sections -w"

# What map $1 links over the empty program, less the logger object $2.
count() {
    python3 "$here/scripts/linked_bytes.py" "$1" "$work/empty.map" "$2"
}

link() { # name, objects...
    name=$1
    shift
    arm-none-eabi-gcc -mcpu=cortex-m33 -mthumb -Os "$@" -Wl,--gc-sections -specs=nano.specs \
        -specs=nosys.specs -Wl,-Map="$work/$name.map" -o "$work/$name.elf" 2>"$work/$name.log" ||
        { cat "$work/$name.log" >&2; exit 1; }
}

echo 'int main(void) { for (;;) ; }' > "$work/empty.c"
$cc -c "$work/empty.c" -o "$work/empty.o"
link empty "$work/empty.o"

# ---- littlefs
cat > "$work/lfs_logger.c" <<'C'
#include "lfs.h"
static lfs_t fs;
static lfs_file_t file;
static struct lfs_file_config fcfg;
static struct lfs_config cfg; /* the board fills read/prog/erase/sync and the sizes */
static unsigned char rcache[256], pcache[256], fcache[256], look[32];
int main(void)
{
    static const unsigned char rec[12];
    cfg.read_buffer = rcache;
    cfg.prog_buffer = pcache;
    cfg.lookahead_buffer = look;
    if (lfs_mount(&fs, &cfg) && (lfs_format(&fs, &cfg) || lfs_mount(&fs, &cfg)))
        return 1;
    fcfg.buffer = fcache;
    for (unsigned n = 0;; n++) {
        char name[2] = {(char)('a' + n % 16), 0};
        if (lfs_fs_size(&fs) > 100)
            (void)lfs_remove(&fs, name);
        if (lfs_file_opencfg(&fs, &file, name, LFS_O_WRONLY | LFS_O_CREAT | LFS_O_APPEND, &fcfg))
            return 1;
        for (int k = 0; k < 1000; k++) {
            (void)lfs_file_write(&fs, &file, rec, sizeof(rec));
            (void)lfs_file_sync(&fs, &file);
        }
        (void)lfs_file_close(&fs, &file);
    }
}
C
for f in "$lfs/lfs.c" "$lfs/lfs_util.c" "$work/lfs_logger.c"; do
    $cc -DLFS_NO_DEBUG -DLFS_NO_WARN -DLFS_NO_ERROR -DLFS_NO_ASSERT -DLFS_NO_MALLOC -I"$lfs" \
        -c "$f" -o "$work/$(basename "$f" .c).o"
done
link lfs "$work/lfs.o" "$work/lfs_util.o" "$work/lfs_logger.o"
lfs_bytes=$(count "$work/lfs.map" lfs_logger.o)

# ---- FlashDB TSDB over FAL
cat > "$work/fdb_logger.c" <<'C'
#include <flashdb.h>
static struct fdb_tsdb db;
static fdb_time_t now(void) { static fdb_time_t t; return ++t; }
static int d_init(void) { return 0; }
static int d_read(long off, uint8_t *buf, size_t n) { (void)off; (void)buf; return (int)n; }
static int d_write(long off, const uint8_t *buf, size_t n) { (void)off; (void)buf; return (int)n; }
static int d_erase(long off, size_t n) { (void)off; return (int)n; }
const struct fal_flash_dev peer_fal_nor = {"peer_nor", 0, 16 * 1024 * 1024, 4096,
                                           {d_init, d_read, d_write, d_erase}, 1};
const struct fal_flash_dev peer_fal_nor1m = {"peer_nor1m", 0, 1024 * 1024, 4096,
                                             {d_init, d_read, d_write, d_erase}, 1};
const struct fal_flash_dev peer_fal_managed = {"peer_managed", 0, 256 * 1024 * 1024, 4096,
                                               {d_init, d_read, d_write, d_erase}, 1};
int main(void)
{
    static const unsigned char rec[12];
    struct fdb_blob blob;
    if (fal_init() < 0 || fdb_tsdb_init(&db, "log", "nor_db", now, 12, NULL) != FDB_NO_ERR)
        return 1;
    for (;;)
        (void)fdb_tsl_append(&db, fdb_blob_make(&blob, rec, sizeof(rec)));
}
C
fdb_objs=
for f in "$fdb/src/fdb.c" "$fdb/src/fdb_tsdb.c" "$fdb/src/fdb_utils.c" "$fdb/port/fal/src/fal.c" \
         "$fdb/port/fal/src/fal_flash.c" "$fdb/port/fal/src/fal_partition.c" "$work/fdb_logger.c"; do
    $cc -I"$here/bench/peers/flashdb" -I"$fdb/inc" -I"$fdb/port/fal/inc" -c "$f" \
        -o "$work/$(basename "$f" .c).o"
    fdb_objs="$fdb_objs $work/$(basename "$f" .c).o"
done
# shellcheck disable=SC2086
link fdb $fdb_objs
fdb_bytes=$(count "$work/fdb.map" fdb_logger.o)

sl_bytes=$(sh "$here/scripts/sensorlog-linked-size.sh" -DSL_PARTS=0)
echo "| store (a logger that writes, Cortex-M33, -Os, --gc-sections) | bytes |"
echo "| --- | --- |"
echo "| sensorlog (raw flash: -DSL_PARTS=0) | $sl_bytes |"
echo "| littlefs ($(sed -n 's/^#define LFS_VERSION 0x\([0-9a-f]*\).*/0x\1/p' "$lfs/lfs.h"), LFS_NO_DEBUG/WARN/ERROR/ASSERT, LFS_NO_MALLOC) | $lfs_bytes |"
echo "| FlashDB TSDB with FAL (FDB_WRITE_GRAN 1) | $fdb_bytes |"
