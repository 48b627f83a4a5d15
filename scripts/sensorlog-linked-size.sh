#!/bin/sh
# Bytes of sensorlog's code and constants (.text and .rodata) linked into a
# logger for Cortex-M33 at -Os with --gc-sections (it keeps what is called):
# a main that formats or mounts, appends, pumps and syncs; with
# -DWITH_READER it also reads back the latest records and from a time.
#   scripts/sensorlog-linked-size.sh [-DWITH_READER] [-DSL_PARTS=0]
# Issue 16 bounds the writer at 8 KiB: scripts/test.sh checks it.
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
for f in src/sensorlog/sl_*.c "$probe/logger.c"; do
    arm-none-eabi-gcc -mcpu=cortex-m33 -mthumb -Os -std=c11 -ffunction-sections \
        -fdata-sections "$@" -Iinclude -c "$f" -o "$probe/$(basename "$f" .c).lo"
done
arm-none-eabi-gcc -mcpu=cortex-m33 -mthumb -Os "$probe"/*.lo -Wl,--gc-sections \
    -specs=nano.specs -specs=nosys.specs -Wl,-Map="$probe/logger.map" -o "$probe/logger.elf" \
    2>"$probe/link.log" || { cat "$probe/link.log" >&2; exit 1; }
python3 - "$probe/logger.map" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
text = text[text.index("Linker script and memory map"):]
# input sections of sensorlog's objects kept in the image: name, address,
# size, object (a long name puts the rest on the next line: \s spans it)
sizes = re.findall(r"^ \.(?:text|rodata)\S*\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+\S*/sl_\w+\.lo$", text, re.M)
print(sum(int(s, 16) for s in sizes))
PY
