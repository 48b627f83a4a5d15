/* sensorlog's configuration: the CRC done elsewhere (issue 16), the
 * defaults the header documents, layouts past 4 GiB, and a format that
 * does O(1) device work and leaves the old log gone. */
#include "sts_test.h"
#include "sensorlog/sensorlog.h"
#include "storscope/error.h"
#include "storscope/rng.h"
#include "storscope/port.h"
#include "storscope/sensorlog_fs.h"
#include "storscope/sim.h"
#include "storscope/suite.h"

#include "test_mem.h"

#include <string.h>

#include "sl_fixture.h"

/* ---- issue 16 (CPU): the CRC can be done elsewhere ------------------------ */
/* An independent CRC-32C, bit by bit (reflected polynomial 0x82F63B78):
 * what a hardware unit set to Castagnoli computes. */
static uint64_t hook_calls, hook_bytes;
static uint32_t bitwise_crc32c(void *ctx, uint32_t crc, const void *data, size_t len)
{
    uint32_t poly = ctx ? 0xEDB88320u : 0x82F63B78u; /* ctx set: the wrong one, CRC-32 */
    const uint8_t *p = data;
    hook_calls++;
    hook_bytes += len;
    crc = ~crc;
    while (len--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++)
            crc = crc & 1 ? (crc >> 1) ^ poly : crc >> 1;
    }
    return ~crc;
}

static void crc_can_be_done_elsewhere(void)
{
    /* the known answer for "123456789" (RFC 3720), both ways */
    CHECK_EQ(bitwise_crc32c(NULL, 0, "123456789", 9), 0xE3069283u);
    CHECK_EQ(sl_crc32c(0, "123456789", 9), 0xE3069283u);
    CHECK_EQ(nor_log(256 * 1024, 16 * 1024), 0);
    cfg.crc32c = bitwise_crc32c;
    cfg.crc_ctx = NULL;
    CHECK_EQ(sl_format(&lg, &cfg), 0);
    hook_calls = hook_bytes = 0;
    uint16_t id;
    CHECK_EQ(sl_stream_create(&lg, "imu", &id), 0);
    uint64_t k = 0, ts = 1;
    CHECK_EQ(append_rounds(&id, 1, &k, 500, &ts), 0);
    CHECK_EQ(sl_sync(&lg), 0);
    CHECK(hook_calls > 0 && hook_bytes > 500 * 4); /* every chunk went through it */
    CHECK_EQ(sl_mount(&lg, &cfg), 0);
    CHECK_EQ(read_back(id, 0, 500), 0);
    /* the same log read with the library's own CRC: the same function, so
     * it mounts and reads the same */
    cfg.crc32c = NULL;
    CHECK_EQ(sl_mount(&lg, &cfg), 0);
    CHECK_EQ(read_back(id, 0, 500), 0);
    /* a hook that computes another function is what checks: nothing of
     * this log is valid under it */
    cfg.crc32c = bitwise_crc32c;
    cfg.crc_ctx = &hook_calls;
    CHECK(sl_mount(&lg, &cfg) != SL_OK);
    cfg.crc32c = NULL;
    cfg.crc_ctx = NULL;
}

/* Issue 16 (NOR): "measure which costs what first". Every byte programmed
 * is data, a record header, a chunk header, padding or metadata (segment
 * headers, catalog chunks); the record headers of 12-byte records 10 ticks
 * apart on one stream are 3 bytes each (stream, length, step: one varint
 * byte each), counted here independently. */
static void write_amplification_is_accounted_for(void)
{
    nor_with_ecc = 1; /* whole pages: a sync pads its last one */
    CHECK_EQ(nor_log(256 * 1024, 16 * 1024), 0);
    nor_with_ecc = 0;
    uint16_t id;
    CHECK_EQ(sl_stream_create(&lg, "imu", &id), 0);
    static const uint8_t rec[12] = {1, 2, 3};
    uint64_t n = 3000;
    for (uint64_t i = 0; i < n; i++) {
        int rc = sl_append(&lg, id, 10 * i, rec, sizeof(rec));
        if (rc == SL_EFULL) {
            CHECK_EQ(pump_all(), 0);
            rc = sl_append(&lg, id, 10 * i, rec, sizeof(rec));
        }
        CHECK_EQ(rc, 0);
        if (i % 500 == 499) /* syncs pad what is left of their chunk */
            CHECK_EQ(sl_sync(&lg), 0);
    }
    CHECK_EQ(sl_sync(&lg), 0);
    struct sl_stats st;
    sl_stats(&lg, &st);
    CHECK_EQ(st.write_errors, 0);
    CHECK_EQ(st.appended_bytes, 12 * n);
    /* fixed size at a steady rate (format doc, version 3): a data chunk's
     * first record has a head and its length (none before it), its second a
     * head and its step (the first steps 0 from the chunk's base), its third
     * a plain head, which the fourth turns into a run's two bytes (0 and
     * the count); the rest join the run (a 1 KiB chunk holds ~80 of them,
     * fewer than a run's 255): 2 + 2 + 1 + 1 bytes a chunk */
    uint64_t data_chunks = st.chunk_header_bytes / 52;
    CHECK_EQ(st.record_header_bytes, 6 * data_chunks);
    CHECK_EQ(st.programmed_bytes, st.appended_bytes + st.record_header_bytes +
                                      st.chunk_header_bytes + st.padding_bytes + st.meta_bytes);
    CHECK_EQ(st.chunk_header_bytes % 52, 0);
    CHECK(st.padding_bytes > 0 && st.meta_bytes >= 2 * 1024); /* the header and catalog page */
}

/* Issue 16 (NOR): a stream of fixed-size samples at a steady rate pays a
 * few header bytes a chunk, not a byte a record - in nanoseconds as in
 * milliseconds: records store the change of step, omit an unchanged length,
 * and a run of like records costs two bytes (the step itself, 1e6 ns, took
 * three bytes, and stream, length and step one each). Read back exact. */
static void steady_rate_fixed_size_costs_bytes_a_chunk_not_a_record(void)
{
    CHECK_EQ(nor_log(256 * 1024, 16 * 1024), 0);
    uint16_t id;
    CHECK_EQ(sl_stream_create(&lg, "imu", &id), 0);
    static const uint8_t rec[12] = {9};
    const uint64_t t0 = 1700000000000000000ull, period = 1000000; /* ns since 1970, 1 kHz */
    for (uint64_t i = 0; i < 1000; i++) {
        int rc = sl_append(&lg, id, t0 + i * period, rec, sizeof(rec));
        if (rc == SL_EFULL) {
            CHECK_EQ(pump_all(), 0);
            rc = sl_append(&lg, id, t0 + i * period, rec, sizeof(rec));
        }
        CHECK_EQ(rc, 0);
    }
    CHECK_EQ(sl_sync(&lg), 0);
    struct sl_stats st;
    sl_stats(&lg, &st);
    /* per chunk: the first record's head and length (2), the second's head
     * and step (1 + 3: 1e6 from the first's 0), the third's plain head and
     * the run the fourth opens (1 + 1); about 13 chunks of 1 KiB */
    uint64_t data_chunks = st.chunk_header_bytes / 52;
    CHECK(data_chunks > 5 && data_chunks < 30);
    CHECK_EQ(st.record_header_bytes, (2 + 4 + 1 + 1) * data_chunks);
    struct sl_iter it;
    struct sl_record r;
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, id, 0), 0);
    for (uint64_t i = 0; i < 1000; i++) {
        CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
        CHECK_EQ(r.ts, t0 + i * period);
    }
}

/* Issue 16 (RAM): sl_ram_bytes is the header's formula, summed here from
 * the parts the caller allocates; a configuration sl_layout refuses is 0. */
static void ram_formula_sums_what_the_caller_allocates(void)
{
    CHECK_EQ(nor_log(1024 * 1024, 64 * 1024), 0);
    cfg.max_streams = 3;
    cfg.buffer_bytes = 1280;
    /* 1 MiB in 64 KiB segments: 16 segment entries */
    size_t want = sizeof(struct sl_log) + 2 * 1024 + 16 * sizeof(struct sl_seg_info) +
                  3 * sizeof(struct sl_stream_info) + 1280;
    CHECK_EQ(sl_ram_bytes(&cfg), want);
    cfg.chunk_bytes = 1000; /* not a multiple of the page: refused */
    CHECK_EQ(sl_ram_bytes(&cfg), 0);
}

/* A record may take up to a chunk's payload (it was 255 bytes); larger is
 * refused, and so is one the RAM buffer could never hold. */
static void records_as_large_as_a_chunk_holds(void)
{
    CHECK_EQ(nor_log(512 * 1024, 8192), 0);
    uint32_t most = sl_record_max(&lg);
    CHECK_EQ(most, 1024u - 52u - 16u); /* chunk - chunk header - largest record header */
    uint16_t id;
    CHECK_EQ(sl_stream_create(&lg, "big", &id), 0);
    static uint8_t data[1024];
    const uint32_t sizes[] = {most, 0, 256, 1, 700, most - 1, 300, most};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        for (uint32_t b = 0; b < sizes[i]; b++)
            data[b] = (uint8_t)(sts_mix64(i * 4096 + b) >> 7);
        int rc = sl_append(&lg, id, 10 * i, data, sizes[i]);
        if (rc == SL_EFULL) {
            CHECK_EQ(pump_all(), 0);
            rc = sl_append(&lg, id, 10 * i, data, sizes[i]);
        }
        CHECK_EQ(rc, 0);
    }
    CHECK_EQ(sl_append(&lg, id, 99, data, most + 1), SL_EINVAL);
    CHECK_EQ(sl_sync(&lg), 0);
    struct sl_iter it;
    struct sl_record r;
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, id, 0), 0);
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
        CHECK_EQ(r.len, sizes[i]);
        CHECK_EQ(r.ts, 10 * i);
        for (uint32_t b = 0; b < r.len; b++)
            if (r.data[b] != (uint8_t)(sts_mix64(i * 4096 + b) >> 7)) {
                CHECK_EQ(b, UINT32_MAX);
                break;
            }
    }
    CHECK_EQ(sl_iter_next(&it, &r), SL_ENOENT);
    /* a buffer of 400 bytes can never take 500 bytes: not "full", wrong */
    cfg.buffer_bytes = 400;
    CHECK_EQ(sl_format(&lg, &cfg), 0);
    CHECK_EQ(sl_stream_create(&lg, "big", &id), 0);
    CHECK_EQ(sl_append(&lg, id, 0, data, 500), SL_ENOMEM);
    CHECK_EQ(sl_append(&lg, id, 0, data, 400 - 12), SL_OK);
}

/* ---- the defaults the header documents ---------------------------------- */
static struct sts_bd_geometry fake_geo;
static void fake_geometry(void *ctx, struct sts_bd_geometry *g)
{
    (void)ctx;
    *g = fake_geo;
}
static const struct sts_bd_ops geometry_only_ops = {
    .version = STS_BD_OPS_VERSION, NULL, NULL, NULL, NULL, fake_geometry, NULL, NULL, NULL
};

/* What sensorlog.h says of chunk_bytes, page_bytes and segment_bytes left
 * at 0 (it once documented a 512 B chunk while the code used 4 KiB). */
static void layout_defaults_are_what_the_header_says(void)
{
    struct sl_config c;
    memset(&c, 0, sizeof(c));
    c.bd = (struct sts_bd){&geometry_only_ops, NULL};
    struct sl_layout l;
    /* raw NOR: the program unit is the page; chunk max(page, 4 KiB);
     * segment max(erase block, 16 chunks) = 64 KiB, doubled to 256 KiB so
     * the 16 MiB hold at most 64 segments, and once more so that a
     * segment's header and catalog page (2 chunks) are 1/128 of it, not
     * 1/32: 32 segments */
    fake_geo = (struct sts_bd_geometry){.capacity = 16u << 20, .prog_size = 256,
                                        .erase_size = 4096, .flags = STS_BD_NEEDS_ERASE};
    CHECK_EQ(sl_layout(&c, &l), 0);
    CHECK(l.raw && l.page_bytes == 256 && l.chunk_bytes == 4096 && l.erase_bytes == 4096);
    CHECK_EQ(l.segment_bytes, 524288);
    CHECK_EQ(l.segments, 32);
    /* a small one keeps the smallest: 1 MiB in 64 KiB segments (16); 2 MiB
     * doubles once, to 16 segments of 128 KiB, and no further (8 is too few) */
    fake_geo.capacity = 1u << 20;
    CHECK_EQ(sl_layout(&c, &l), 0);
    CHECK_EQ(l.segment_bytes, 65536);
    CHECK_EQ(l.segments, 16);
    fake_geo.capacity = 2u << 20;
    CHECK_EQ(sl_layout(&c, &l), 0);
    CHECK_EQ(l.segment_bytes, 131072);
    CHECK_EQ(l.segments, 16);
    /* 1 GiB of NOR: 64 segments of 16 MiB (4,096 chunks) */
    fake_geo.capacity = 1u << 30;
    CHECK_EQ(sl_layout(&c, &l), 0);
    CHECK_EQ(l.segment_bytes, 16u << 20);
    /* managed media that report no page: 16 KiB pages, so 16 KiB chunks */
    fake_geo = (struct sts_bd_geometry){.capacity = 64u << 20, .prog_size = 512};
    CHECK_EQ(sl_layout(&c, &l), 0);
    CHECK(!l.raw && l.page_bytes == 16384 && l.chunk_bytes == 16384);
    CHECK_EQ(l.segment_bytes, 128 * 16384); /* 16 chunks doubled 3 times: 32 segments */
    /* 256 MiB: 64 segments of 4 MiB, 256 chunks each, already past 128 */
    fake_geo.capacity = 256u << 20;
    CHECK_EQ(sl_layout(&c, &l), 0);
    CHECK_EQ(l.segment_bytes, 4u << 20);
    fake_geo.capacity = 64u << 20;
    /* ... one that reports 4 KiB pages gets 4 KiB chunks; page_bytes overrides */
    fake_geo.page_size = 4096;
    CHECK_EQ(sl_layout(&c, &l), 0);
    CHECK_EQ(l.chunk_bytes, 4096);
    c.page_bytes = 8192;
    CHECK_EQ(sl_layout(&c, &l), 0);
    CHECK_EQ(l.chunk_bytes, 8192);
    /* a chunk smaller than the page would share it with the next: refused */
    c.chunk_bytes = 4096;
    CHECK_EQ(sl_layout(&c, &l), SL_EINVAL);
}

/* Past 4 GiB the layout divides and aligns in 64 bits (sensorlog divides
 * bit by bit, not with libgcc's 828 B): the segment count and the offset's
 * alignment, against the host's own 64-bit / and %, over a 16 GiB device,
 * erase blocks that are not powers of two and offsets each side of 4 GiB. */
static void layouts_past_4_gib_divide_and_align_as_the_host_does(void)
{
    struct sl_config c;
    memset(&c, 0, sizeof(c));
    c.bd = (struct sts_bd){&geometry_only_ops, NULL};
    struct sl_layout l;
    uint64_t x = 0x9E3779B97F4A7C15ull, tried = 0, refused = 0;
    static const uint32_t erases[] = {4096, 12288, 65536, 196608};
    for (int i = 0; i < 400; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint32_t erase = erases[i % 4];
        fake_geo = (struct sts_bd_geometry){.capacity = (16ull << 30) + (x >> 40),
                                            .prog_size = 256, .erase_size = erase,
                                            .flags = STS_BD_NEEDS_ERASE};
        c.chunk_bytes = 4096;
        c.segment_bytes = erase * (erase < 65536 ? 48 : 3); /* 3 to 48 erase blocks */
        /* half aligned to the erase block, half anywhere; below and above 4 GiB */
        uint64_t off = (x >> 3) % (fake_geo.capacity / 2);
        if (i % 2)
            off -= off % erase;
        c.offset = off;
        uint64_t size = fake_geo.capacity - off;
        int rc = sl_layout(&c, &l);
        int bad = off % erase != 0 || off % 4096 != 0;
        CHECK_EQ(rc, bad ? SL_EINVAL : 0);
        if (!rc)
            CHECK_EQ(l.segments, size / c.segment_bytes);
        tried++;
        refused += bad;
    }
    CHECK(refused > 100 && refused < tried - 100); /* both answers were asked for */
}

/* The published check value, so other tools can read the format. */
static void crc32c_check_value(void)
{
    CHECK_EQ(sl_crc32c(0, "123456789", 9), 0xE3069283u);
    CHECK_EQ(sl_crc32c(sl_crc32c(0, "1234", 4), "56789", 5), 0xE3069283u);
}

/* SPI NOR erases a 64 KiB block in the time of ~3 sectors (the sim's
 * nor-spi, from the W25Q datasheet): format uses the block erase on
 * segments aligned to it, always; the pump only when erase_unit_bytes asks
 * (its step is what the RAM buffer must outlast). Counted at the device. */
static void nor_erases_whole_blocks_where_asked(void)
{
    static const uint32_t units[] = {0, 65536, 8192};
    for (size_t u = 0; u < 3; u++) {
        CHECK_EQ(medium("nor-spi", 1u << 20, 0, 0), 0);
        cfg.chunk_bytes = 1024;
        cfg.segment_bytes = 65536;
        cfg.erase_unit_bytes = units[u];
        erase_len_lo = UINT64_MAX;
        erase_len_hi = 0;
        CHECK_EQ(sl_format(&lg, &cfg), 0);
        CHECK_EQ(cnt.erases, 0); /* a blank chip: nothing to erase */
        uint16_t id;
        CHECK_EQ(sl_stream_create(&lg, "imu", &id), 0);
        uint64_t k = 0, ts = 1, e0 = cnt.erases;
        erase_len_lo = UINT64_MAX;
        erase_len_hi = 0;
        for (int lap = 0; lap < 60; lap++) { /* ~1.5 MB: the log wraps */
            CHECK_EQ(append_rounds(&id, 1, &k, 1000, &ts), 0);
            CHECK_EQ(pump_all(), 0);
        }
        CHECK(cnt.erases > e0);
        uint64_t step = units[u] ? units[u] : 4096;
        CHECK_EQ(erase_len_lo, step);
        CHECK_EQ(erase_len_hi, step);
        uint64_t last;
        CHECK_EQ(sl_sync(&lg), 0);
        CHECK_EQ(read_kept(id, &ts, &last, &e0), 0);
        CHECK_EQ(last, k - 1);
        /* formatting it again erases the one segment it opens, in one block
         * command whatever the pump's unit (1 MiB of sectors would be 256) */
        e0 = cnt.erases;
        erase_len_lo = UINT64_MAX;
        CHECK_EQ(sl_format(&lg, &cfg), 0);
        CHECK_EQ(cnt.erases - e0, 1);
        CHECK_EQ(erase_len_lo, 65536);
    }
    /* a unit the segments do not divide into, or not of whole sectors */
    CHECK_EQ(medium("nor-spi", 1u << 20, 0, 0), 0);
    cfg.chunk_bytes = 1024;
    cfg.segment_bytes = 65536;
    cfg.erase_unit_bytes = 12288;
    CHECK_EQ(sl_format(&lg, &cfg), SL_EINVAL);
    cfg.erase_unit_bytes = 6144;
    CHECK_EQ(sl_format(&lg, &cfg), SL_EINVAL);
}

/* Issue 16 (per-record durability): a sync writes the pages its chunk
 * fills, not the whole chunk - on NOR with 1 KiB chunks of 256-byte pages
 * and ECC, one 12-byte record synced costs one page program (52 + 14
 * bytes), where it cost four; on a NOR without ECC (nor-spi), which
 * programs bytes and whose cuts tear only them, it costs its piece's bytes
 * alone: a chunk header and the record with its header (1 to 16 bytes)
 * for the chunk's first, then 8 bytes of short piece (version 6).
 * Each record synced so stays found after a remount. */
static void a_sync_programs_the_pages_it_fills(void)
{
    for (nor_with_ecc = 1; nor_with_ecc >= 0; nor_with_ecc--) {
        CHECK_EQ(nor_log(256 * 1024, 16 * 1024), 0);
        uint16_t id;
        CHECK_EQ(sl_stream_create(&lg, "imu", &id), 0);
        CHECK_EQ(sl_sync(&lg), 0);
        uint8_t rec[32];
        /* 16 chunks a segment: its header, a catalog page, the create's
         * update and its mirror, then data - 10 records stay within it */
        for (uint64_t k = 0; k < 10; k++) {
            uint64_t b0 = cnt.bytes_programmed, p0 = cnt.programs;
            size_t len = make_record(id, k, rec);
            CHECK_EQ(sl_append(&lg, id, k, rec, len), 0);
            CHECK_EQ(sl_sync(&lg), 0);
            CHECK_EQ(cnt.programs - p0, 1);
            uint64_t bytes = cnt.bytes_programmed - b0;
            if (nor_with_ecc)
                CHECK_EQ(bytes, 256);
            else if (k == 0) /* the chunk's first piece: a chunk header */
                CHECK(bytes > 52 + len && bytes <= 52 + len + 16);
            else /* a short piece: magic, three one-byte varints, CRC (8 bytes) */
                CHECK(bytes > 8 + len && bytes <= 8 + len + 16);
        }
        CHECK_EQ(sl_mount(&lg, &cfg), 0);
        CHECK_EQ(sl_stream_open(&lg, "imu", &id), 0);
        CHECK_EQ(read_back(id, 0, 10), 0);
    }
    nor_with_ecc = 0;
}

/* Issue 16 (format): sl_format() does O(1) device work beyond the segment
 * it opens - it reads the headers, erases one segment and leaves the rest
 * to the pump - and the log it leaves is empty: mount does not take the
 * old log's segments for its own (it numbers past them), and as the new log
 * wraps it erases each old segment before writing there. Counted at the
 * device on a 1 MiB NOR of 16 KiB segments (64 of them). */
static void format_is_o1_and_the_old_log_stays_gone(void)
{
    CHECK_EQ(nor_log(1u << 20, 16 * 1024), 0);
    uint16_t id;
    CHECK_EQ(sl_stream_create(&lg, "old", &id), 0);
    uint64_t k = 0, ts = 1;
    for (int lap = 0; lap < 40; lap++) { /* ~1 MB: every segment holds data */
        CHECK_EQ(append_rounds(&id, 1, &k, 1000, &ts), 0);
        CHECK_EQ(pump_all(), 0);
    }
    CHECK_EQ(sl_sync(&lg), 0);
    uint64_t e0 = cnt.erases, r0 = cnt.reads;
    CHECK_EQ(sl_format(&lg, &cfg), 0);
    CHECK_EQ(cnt.erases - e0, 4); /* one 16 KiB segment of 4 KiB sectors */
    CHECK(cnt.reads - r0 <= 64 + 64); /* a header each (a stand-in at most each) */
    CHECK_EQ(sl_mount(&lg, &cfg), 0);
    uint16_t old;
    CHECK_EQ(sl_stream_open(&lg, "old", &old), SL_ENOENT);
    struct sl_iter it;
    struct sl_record r;
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, 0, 0), 0);
    CHECK_EQ(sl_iter_next(&it, &r), SL_ENOENT); /* empty */
    /* the new log wraps over the old segments, erasing each first */
    uint16_t nid;
    CHECK_EQ(sl_stream_create(&lg, "new", &nid), 0);
    uint64_t nk = 0;
    ts = 1;
    for (int lap = 0; lap < 60; lap++) {
        CHECK_EQ(append_rounds(&nid, 1, &nk, 1000, &ts), 0);
        CHECK_EQ(pump_all(), 0);
    }
    CHECK_EQ(sl_sync(&lg), 0);
    CHECK(cnt.erases - e0 >= 4 * 64); /* every segment erased in its turn */
    CHECK_EQ(sl_mount(&lg, &cfg), 0);
    uint64_t first, last, n;
    CHECK_EQ(read_kept(nid, &first, &last, &n), 0);
    CHECK_EQ(last, nk - 1);
    CHECK(n > 10000);
}

const struct sts_test_case test_sl_config_cases[] = {
    {"format_is_o1_and_the_old_log_stays_gone", format_is_o1_and_the_old_log_stays_gone},
    {"a_sync_programs_the_pages_it_fills", a_sync_programs_the_pages_it_fills},
    {"nor_erases_whole_blocks_where_asked", nor_erases_whole_blocks_where_asked},
    {"crc32c_check_value", crc32c_check_value},
    {"layout_defaults_are_what_the_header_says", layout_defaults_are_what_the_header_says},
    {"layouts_past_4_gib_divide_and_align_as_the_host_does",
     layouts_past_4_gib_divide_and_align_as_the_host_does},
    {"crc_can_be_done_elsewhere", crc_can_be_done_elsewhere},
    {"ram_formula_sums_what_the_caller_allocates", ram_formula_sums_what_the_caller_allocates},
    {"write_amplification_is_accounted_for", write_amplification_is_accounted_for},
    {"steady_rate_fixed_size_costs_bytes_a_chunk_not_a_record",
     steady_rate_fixed_size_costs_bytes_a_chunk_not_a_record},
    {"records_as_large_as_a_chunk_holds", records_as_large_as_a_chunk_holds},
    {NULL, NULL},
};
