#!/bin/sh
# Bytes of code and constants (.text and .rodata) that sensorlog adds to a
# logger for Cortex-M33 at -Os with --gc-sections (it keeps what is called):
# a main that formats or mounts, appends, pumps and syncs; with
# -DWITH_READER it also reads back the latest records and from a time.
#   scripts/sensorlog-linked-size.sh [-DWITH_READER] [-DSL_PARTS=0] [--by-object]
# What is linked counts (issue 40): the store's own objects and what they
# pull in from libgcc and newlib, over an empty program, memcpy and memset
# excepted (scripts/linked_bytes.py). Issue 16 bounds the writer at 8 KiB:
# scripts/test.sh checks it.
set -eu
cd "$(dirname "$0")/.."
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT INT TERM
cat > "$probe/logger.c" <<'LOGGER'
#include "sensorlog/sensorlog.h"
static struct sl_log lg;
static struct sl_config cfg;
struct sts_bd board_bd;
int main(void)
{
    uint16_t id = 0;
    cfg.bd = board_bd;
    if (sl_mount(&lg, &cfg) && sl_format(&lg, &cfg))
        return 1;
    if (sl_stream_open(&lg, "imu", &id))
        (void)sl_stream_create(&lg, "imu", &id);
    for (;;) {
        static const unsigned char rec[12];
        (void)sl_append(&lg, id, 0, rec, sizeof(rec));
        (void)sl_pump(&lg);
#ifdef WITH_READER
        struct sl_iter it;
        struct sl_record r;
        if (!sl_iter_latest(&lg, &it, id, 10))
            while (sl_iter_next(&it, &r) == SL_OK)
                ;
        (void)sl_iter_from_ts(&lg, &it, id, 5);
#endif
        (void)sl_sync(&lg);
    }
}
LOGGER
by_object=
flags=
for a in "$@"; do
    if [ "$a" = --by-object ]; then by_object=--by-object; else flags="$flags $a"; fi
done
echo 'int main(void) { for (;;) ; }' > "$probe/empty.c"
for f in src/sensorlog/sl_*.c "$probe/logger.c" "$probe/empty.c"; do
    # shellcheck disable=SC2086 # (the options, one word each)
    arm-none-eabi-gcc -mcpu=cortex-m33 -mthumb -Os -std=c11 -ffunction-sections \
        -fdata-sections $flags -Iinclude -c "$f" -o "$probe/$(basename "$f" .c).lo"
done
link() { # name, objects...
    name=$1
    shift
    arm-none-eabi-gcc -mcpu=cortex-m33 -mthumb -Os "$@" -Wl,--gc-sections \
        -specs=nano.specs -specs=nosys.specs -Wl,-Map="$probe/$name.map" -o "$probe/$name.elf" \
        2>"$probe/link.log" || { cat "$probe/link.log" >&2; exit 1; }
}
link empty "$probe/empty.lo"
link logger "$probe"/sl_*.lo "$probe/logger.lo"
python3 scripts/linked_bytes.py "$probe/logger.map" "$probe/empty.map" logger.lo $by_object
