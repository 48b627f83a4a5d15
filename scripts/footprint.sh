#!/bin/sh
# Flash and RAM of each portable component for Cortex-M33 at -Os (newlib),
# written to docs/footprint.md. Sizes are of the object files before
# --gc-sections, i.e. upper bounds of what a firmware links.
# FOOTPRINT_OUT=FILE writes there instead (scripts/test.sh checks the budget).
set -eu
cd "$(dirname "$0")/.."
cmake --preset cortex-m33 >/dev/null
cmake --build --preset cortex-m33 -j"$(nproc)" >/dev/null
obj=build/cortex-m33/CMakeFiles/storscope_portable.dir
sizes() { # text data bss summed over the given object files
    arm-none-eabi-size "$@" | awk 'NR > 1 { t += $1; d += $2; b += $3 } END { print t, d, b }'
}
row() { # name, files...
    name=$1; shift
    set -- $(for f in "$@"; do echo "$obj/$f.obj"; done)
    s=$(sizes "$@")
    echo "$s" | awk -v n="$name" '{ printf "| %s | %d | %d | %d |\n", n, $1, $2, $3 }'
}
core="src/core/error.c src/core/rng.c src/core/welford.c src/core/hist.c src/core/units.c \
src/core/result.c src/core/target_spec.c src/core/engine.c src/suite/common.c \
src/suite/registry.c src/output/json_writer.c src/output/json_sink.c"
{
# sizes the text below states, measured by the compiler for this target:
# each probe is a bss array as large as the thing, read back with nm -S
probe=build/cortex-m33/footprint_probe
mkdir -p "$probe"
cat > "$probe/probe.c" <<'PROBE'
#include "sensorlog/sensorlog.h"
#include "storscope/stats.h"
#include <stdint.h>
char probe_sl_log[sizeof(struct sl_log)];
char probe_seg_info[sizeof(struct sl_seg_info)];
char probe_hist_default[2 * STS_HIST_BUCKETS * sizeof(uint64_t)];
char probe_sub_bits[STS_HIST_SUB_BITS];
char probe_hist_sub4[2 * STS_HIST_BUCKETS_FOR(4, STS_HIST_MAX_EXP) * sizeof(uint64_t)];
/* sl_ram_bytes() of tests/unit/test_sl_ram.c's configuration: 1 KiB chunks,
 * 16 segments, 3 streams, a 768 B ring */
char probe_sl_study_min[sizeof(struct sl_log) + 2 * 1024 + 16 * sizeof(struct sl_seg_info) +
                        3 * sizeof(struct sl_stream_info) + 768];
PROBE
arm-none-eabi-gcc -mcpu=cortex-m33 -mthumb -Os -std=c11 -fno-common -Iinclude \
    -c "$probe/probe.c" -o "$probe/probe.o"
probe_size() { # bytes of probe symbol $1
    hex=$(arm-none-eabi-nm -S "$probe/probe.o" | awk -v s="probe_$1" '$4 == s { print $2 }')
    echo $(( 0x$hex ))
}
sl_log_bytes=$(probe_size sl_log)
seg_info_bytes=$(probe_size seg_info)
kib() { awk -v b="$1" 'BEGIN { printf "%.1f KiB", b / 1024 }'; }
hist_default=$(kib $(( $(probe_size hist_default) / 2 )))
hist_sub4=$(kib $(( $(probe_size hist_sub4) / 2 )))
hist_both=$(probe_size hist_default)
resolution=$(awk -v b="$(probe_size sub_bits)" 'BEGIN { printf "%.2f", 100 / 2 ^ (b + 1) }')

echo "# Footprint on Cortex-M33"
echo
echo "\`scripts/footprint.sh\` (arm-none-eabi-gcc $(arm-none-eabi-gcc -dumpversion), \`-mcpu=cortex-m33 -mthumb -Os\`,"
echo "newlib-nano, soft-float). Bytes per component, object files before \`--gc-sections\`:"
echo "upper bounds of what a firmware links. RAM excludes what the caller provides"
echo "and sizes: the I/O buffer, the histogram buckets (2 x $hist_default at the default"
echo "resolution; 2 x $hist_sub4 at sub_bits 4) and the simulator's arena / RAM disk."
echo
echo "| component | text (flash) | data | bss |"
echo "| --- | --- | --- | --- |"
row "engine core (errors, RNG, stats, histogram, units, spec parser, engine, registry, workload helpers)" \
    src/core/error.c src/core/rng.c src/core/welford.c src/core/hist.c src/core/units.c \
    src/core/result.c src/core/target_spec.c src/core/engine.c src/suite/common.c src/suite/registry.c
row "JSON writer + results sink" src/output/json_writer.c src/output/json_sink.c
row "workload B0/B1/B2 (seq.c)" src/suite/seq.c
row "workload M1 (m1.c)" src/suite/m1.c
row "workload fsync" src/suite/fsync.c
row "workload seq (dd.c)" src/suite/dd.c
row "simulator (sim.c)" src/bd/sim.c
row "simulator profiles (11 rows + parameter parser)" src/bd/sim_profiles.c
row "simulator counters as results' key-values (optional: the MCU images that report them)" src/bd/sim_counters.c
row "extentfs" src/fs/extentfs.c
row "analysis (detectors, tier table, guidelines, the collecting sink)" src/analysis/analysis.c src/analysis/an_collect.c src/analysis/an_tier.c
row "null + RAM block devices, null target" src/bd/null_bd.c src/bd/ram_bd.c src/target/null_target.c
row "workloads S1, S2, M2, L1, nb" src/suite/s1.c src/suite/meta.c src/suite/m2.c src/suite/l1.c src/suite/l1_streams.c src/suite/l1_tasks.c src/suite/nb.c
row "fits: Student's t, log-log slope, least squares (core; S2, M2 and the analysis use them)" src/core/fit.c
row "analysis: text, system findings (S1, M2, L1), the probe's guidelines" src/analysis/an_text.c src/analysis/analysis_system.c src/analysis/analysis_probe.c
row "**sensorlog** (format, mount, write + pump, read; needs only device.h)" src/sensorlog/sl_layout.c src/sensorlog/sl_chunk.c src/sensorlog/sl_format.c src/sensorlog/sl_mount.c src/sensorlog/sl_stream.c src/sensorlog/sl_append.c src/sensorlog/sl_write.c src/sensorlog/sl_iter.c src/sensorlog/sl_read.c
s=$(sizes $(for f in $core src/suite/seq.c src/bd/sim.c src/bd/sim_profiles.c src/fs/extentfs.c; do echo "$obj/$f.obj"; done))
echo "$s" | awk '{ printf "| **engine core + JSON + one workload (B0) + simulator + extentfs** | **%d** | **%d** | **%d** |\n", $1, $2, $3 }'
echo
echo "Budget: 32 KiB of flash and 8 KiB of static RAM for the engine core, one"
total_text=$(echo "$s" | awk '{ print $1 }')
total_bss=$(echo "$s" | awk '{ print $3 }')
verdict=$(echo "$s" | awk '{ print ($1 <= 32768 && $2 + $3 <= 8192) ? "met" : "NOT met" }')
echo "workload and the simulator: $verdict by the objects above ($total_text B of flash;"
echo "static RAM: $total_bss bytes; the engine keeps its state on the caller's stack and"
echo "in caller-provided buffers). Soft-float double arithmetic and libm (pow, log10,"
echo "sqrt, floor) come on top when linked; the linked image below shows the whole"
echo "bill. The model's noise (noise=, stalls=, bimodal=, drift=, which test the"
echo "host's analysis) is left out of these builds (-DSTS_SIM_NOISE=0, set by"
echo "cmake/arm-none-eabi.cmake), and libm's log, exp and cos with it."
echo
echo "sensorlog alone is the row above: for comparison, the reference notes give"
echo "littlefs at 11,776 B of flash (21,940 B with its non-blocking variant) on a"
echo "Cortex-M4. Its RAM is the caller's: the record buffer, two chunk buffers and"
echo "the per-segment table ($seg_info_bytes B per segment, sizeof(struct sl_seg_info));"
echo "the log's own state, sizeof(struct sl_log), is $sl_log_bytes B on this target."
echo "The smallest configuration for the study's three streams on NOR (1 KiB"
echo "chunks, 16 segments, 3 streams, 2 ms erase slices, a 768 B ring;"
echo "tests/unit/test_sl_ram.c runs it without losing a record and asserts it"
echo "fits 4 KiB on a 32-bit MCU) takes $(probe_size sl_study_min) B of RAM all told here."
echo
# what a logger links of sensorlog, with and without the readers, for each
# kind of medium (parts for managed media, pieces for raw flash) and with both
writer_both=$(sh scripts/sensorlog-linked-size.sh)
reader_both=$(sh scripts/sensorlog-linked-size.sh -DWITH_READER)
writer_raw=$(sh scripts/sensorlog-linked-size.sh -DSL_PARTS=0)
reader_raw=$(sh scripts/sensorlog-linked-size.sh -DWITH_READER -DSL_PARTS=0)
writer_full=$(sh scripts/sensorlog-linked-size.sh -DSL_PARTS=0 -DSL_SHORT=0)
reader_full=$(sh scripts/sensorlog-linked-size.sh -DWITH_READER -DSL_PARTS=0 -DSL_SHORT=0)
writer_managed=$(sh scripts/sensorlog-linked-size.sh -DSL_PIECES=0)
reader_managed=$(sh scripts/sensorlog-linked-size.sh -DWITH_READER -DSL_PIECES=0)
echo "Linked into a logger with \`--gc-sections\` (a \`main\` that mounts or formats,"
echo "appends, pumps and syncs; then the same reading back the latest records and"
echo "from a time), sensorlog adds this much code and constants to a program:"
echo "its own objects and what they pull in from libgcc and newlib, over an"
echo "empty program, memcpy and memset excepted (issue 40's count;"
echo "\`scripts/sensorlog-linked-size.sh [options] --by-object\` lists them)."
echo
echo "| build | writer | writer and readers |"
echo "| --- | --- | --- |"
echo "| raw flash (\`-DSL_PARTS=0\`: pieces, short ones on a NOR without ECC, no parts) | $writer_raw B | $reader_raw B |"
echo "| raw flash without short pieces (\`-DSL_PARTS=0 -DSL_SHORT=0\`) | $writer_full B | $reader_full B |"
echo "| managed media (\`-DSL_PIECES=0\`: parts, no pieces) | $writer_managed B | $reader_managed B |"
echo "| both (the default: any medium) | $writer_both B | $reader_both B |"
echo
echo "Parts (format 4) serve random reads inside the 16 KiB chunks of managed"
echo "media; pieces (format 5) let a chunk a sync closed go on in its next page,"
echo "which only a medium whose pages are smaller than a chunk (raw NOR, NAND)"
echo "can use. A build without parts writes none and cannot check a chunk that"
echo "has them; one without pieces writes none and refuses a log that may hold"
echo "them (version 5) rather than lose them (ctest sensorlog-no-pieces)."
echo "Short pieces (formats 6 and 7) let a piece after a chunk's first on a NOR"
echo "without ECC go without a chunk header, and from format 7 go on from the"
echo "record before them (a steady stream's record synced alone: 19 bytes, not"
echo "~66); a build without them writes version 5 there and refuses a log in 6 or 7 (ctest"
echo "sensorlog-no-short)."
echo
# each build against the goal, in words that stay true whichever way it goes
against() { # bytes
    if [ "$1" -le 8192 ]; then echo "$((8192 - $1)) B within it"; else echo "$(($1 - 8192)) B over it"; fi
}
echo "**The goal, 8 KiB for a writer** (issue 40), build by build: managed media"
echo "$(against "$writer_managed"), raw flash without short pieces $(against "$writer_full"),"
echo "the raw-flash default, with short pieces, $(against "$writer_raw"), and the build"
echo "with both $(against "$writer_both"). sensorlog divides 64-bit numbers, compares"
echo "names and moves staged bytes with its own few dozen bytes each: libgcc's"
echo "64-bit division (828 B), newlib's strcmp (444 B) and memmove (256 B) were"
echo "linked for them before, and an own-objects count left them out."
echo "scripts/test.sh holds each writer to what it measures, so they only shrink."
echo
cmake --preset firmware >/dev/null
cmake --build --preset firmware -j"$(nproc)" --target storscope-suite >/dev/null
elf=build/firmware/firmware/storscope-suite.elf
echo "Linked, with \`--gc-sections\`: \`storscope-suite.elf\` (B0, B2, M1, fsync, the"
echo "simulator, extentfs, the JSON sink, the QEMU board, newlib-nano, libm, libgcc):"
echo
echo "| section | bytes |"
echo "| --- | --- |"
arm-none-eabi-size -A "$elf" | awk '$1 == ".text" || $1 == ".data" || $1 == ".bss" || $1 == ".psram" { printf "| %s | %d |\n", $1, $2 }'
echo
echo "Its .bss is the two latency histograms ($hist_both B at the default $resolution %"
echo "resolution) and the board; .psram holds the caller-provided I/O buffer"
echo "(2 MiB, for the study's 2 MiB chunks) and the simulator's 1 MiB arena."
echo
# sensorlog's CRC-32C on the MCU (issue 43.3): its size from the image's
# symbols, its cost a byte from QEMU's instruction count
cmake --build --preset firmware -j"$(nproc)" --target storscope-crc >/dev/null
crc_elf=build/firmware/firmware/storscope-crc.elf
crc_code=$((0x$(arm-none-eabi-nm -S "$crc_elf" | awk '$4 == "sl_crc32c" { print $2 }')))
crc_table=$((0x$(arm-none-eabi-nm -S "$crc_elf" | awk '$4 == "t.0" { print $2 }')))
if command -v qemu-system-arm >/dev/null; then
    crc_line=$(timeout 120 qemu-system-arm -M mps2-an505 -nographic -semihosting-config \
        enable=on,target=native -icount shift=0,sleep=off -kernel "$crc_elf" </dev/null)
    crc_per_byte=$(echo "$crc_line" | sed -n 's/.* instructions, \([0-9.]*\) a byte.*/\1/p')
else
    crc_per_byte="(not measured: qemu-system-arm is not installed)"
fi
echo "**CRC-32C on the MCU**: sensorlog's \`sl_crc32c\`, four bits at a time, is"
echo "$crc_code B of code and a $crc_table B table, and runs $crc_per_byte instructions a byte"
echo "on the Cortex-M33 (\`storscope-crc.elf\` under QEMU's \`-icount shift=0\`, over"
echo "64 KiB of random bytes, after RFC 3720's vectors; ctest \`firmware-crc32c\`)."
echo "QEMU models no pipeline, so this counts instructions, not cycles: a"
echo "Cortex-M33 takes at least a cycle each, two for a load it cannot pipeline."
echo "A host uses the CPU's CRC32C instruction or slice-by-8 instead"
echo "(\`src/sensorlog/crc32c_host.c\`, ctest \`crc32c\`)."
} > "${FOOTPRINT_OUT:-docs/footprint.md}"
cat "${FOOTPRINT_OUT:-docs/footprint.md}"
