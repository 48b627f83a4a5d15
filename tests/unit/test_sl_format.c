/* sensorlog's format versions: a version-2 log written by the version-2
 * library (a committed image) still mounts, reads and is written in
 * version 2, and a version-6 one in version 6; version 7's carried short
 * pieces cost a steady stream's synced record 19 bytes; version 3's runs read back exactly, never cost more than the
 * heads they replace, and decode by docs/sensorlog-format.md with a
 * decoder of the test's own; versions the library does not know are
 * refused. */
#include "sts_test.h"
#include "sensorlog/sensorlog.h"
#include "storscope/rng.h"
#include "storscope/sim.h"

#include "../../src/sensorlog/sl_internal.h" /* sl_div64 */
#include "sl_v2_image.h"
#include "sl_v6_image.h"
#include "test_mem.h"

#include <string.h>

static struct sts_sim sim;
static struct sts_bd bd;
static struct sl_log lg;
static struct sl_config cfg;
static uint8_t ring[2048], chunk_buf[4096], read_buf[4096];
static struct sl_seg_info segs[32];
static struct sl_stream_info streams[40];

/* A formatted-or-not NOR of `capacity` with sensorlog set up over it. */
static int nor(uint64_t capacity, uint32_t chunk, uint32_t seg)
{
    struct sts_sim_params p = *sts_sim_profile_find("nor-spi");
    p.capacity = capacity;
    int rc = sts_sim_init(&sim, &p, 3, sts_test_sim_arena, sizeof(sts_test_sim_arena), capacity,
                          &bd);
    memset(&cfg, 0, sizeof(cfg));
    cfg.bd = bd;
    cfg.buffer = ring;
    cfg.buffer_bytes = sizeof(ring);
    cfg.chunk_buf = chunk_buf;
    cfg.read_buf = read_buf;
    cfg.segs = segs;
    cfg.n_segs = sizeof(segs) / sizeof(segs[0]);
    cfg.streams = streams;
    cfg.max_streams = 40;
    cfg.chunk_bytes = chunk;
    cfg.segment_bytes = seg;
    return rc;
}

static int append(uint16_t id, uint64_t ts, const void *data, size_t len)
{
    int rc = sl_append(&lg, id, ts, data, len);
    while (rc == SL_EFULL) { /* the ring is full: the pump makes room */
        int p = sl_pump(&lg);
        if (p < 0)
            return p;
        rc = sl_append(&lg, id, ts, data, len);
    }
    return rc;
}

/* ---- the version-2 image ---------------------------------------------------- */
/* Record i of the generators' workloads (tests/fixtures/sensorlog/
 * make_v2_image.c, make_v6_image.c): len bytes, byte b = i * 31 + b,
 * stamped ts. */
static int record_ok(const struct sl_record *r, uint32_t i, size_t len, uint64_t ts)
{
    if (r->ts != ts || r->len != len)
        return 0;
    for (size_t b = 0; b < len; b++)
        if (r->data[b] != (uint8_t)(i * 31 + b))
            return 0;
    return 1;
}
/* make_v2_image.c: "imu" 12 bytes, "env" 5 + i % 8 bytes when i % 7 == 3,
 * both stamped 1000 + i. */
static int v2_record_ok(const struct sl_record *r, uint32_t i, size_t len)
{
    return record_ok(r, i, len, 1000 + i);
}

/* A 64 KiB NOR holding a committed image (a generator's extents), mounted
 * in version `want`, with its streams "imu" and "env" open. */
#define MOUNT_IMAGE(image, want, imu, env)                                                  \
    do {                                                                                    \
        CHECK_EQ(nor(64 * 1024, 1024, 16 * 1024), 0);                                       \
        for (size_t k_ = 0; k_ < sizeof(image) / sizeof(image[0]); k_++)                   \
            CHECK_EQ(bd.ops->program(bd.ctx, image[k_].addr, image[k_].bytes, image[k_].len), \
                     0);                                                                    \
        CHECK_EQ(sl_mount(&lg, &cfg), 0);                                                   \
        CHECK_EQ(lg.version, want);                                                         \
        CHECK_EQ(sl_stream_open(&lg, "imu", &imu), 0);                                      \
        CHECK_EQ(sl_stream_open(&lg, "env", &env), 0);                                      \
    } while (0)

static void version_2_log_reads_and_is_written_in_version_2(void)
{
    uint16_t imu, env;
    MOUNT_IMAGE(sl_v2_image, 2, imu, env);
    struct sl_iter it;
    struct sl_record r;
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, 0, 0), 0);
    for (uint32_t i = 0; i < 300; i++) {
        CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
        CHECK(r.stream == imu && v2_record_ok(&r, i, 12));
        if (i % 7 == 3) {
            CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
            CHECK(r.stream == env && v2_record_ok(&r, i, 5 + i % 8));
        }
    }
    CHECK_EQ(sl_iter_next(&it, &r), SL_ENOENT);
    CHECK_EQ(it.skipped + it.torn, 0);

    /* written on: a steady stream, which version 3 would pack into runs */
    uint8_t rec[12];
    for (uint32_t i = 300; i < 700; i++) {
        for (int b = 0; b < 12; b++)
            rec[b] = (uint8_t)(i * 31 + b);
        CHECK_EQ(append(imu, 1000 + i, rec, 12), 0);
    }
    CHECK_EQ(sl_sync(&lg), 0);
    struct sl_stats st;
    sl_stats(&lg, &st);
    CHECK(st.record_header_bytes >= 400); /* a head a record: no run */
    CHECK_EQ(sl_mount(&lg, &cfg), 0);
    CHECK_EQ(lg.version, 2);
    /* every segment header on the medium says 2 (byte 4, docs/sensorlog-format.md) */
    uint32_t headers = 0;
    for (uint32_t s = 0; s < 4; s++) {
        uint8_t h[8];
        CHECK_EQ(bd.ops->read(bd.ctx, (uint64_t)s * 16384, h, sizeof(h)), 0);
        if (h[0] == 0xFF)
            continue;
        headers++;
        CHECK_EQ(h[4] | h[5] << 8, 2);
    }
    CHECK(headers >= 2); /* the first segment and the one written after mount */
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, imu, 0), 0);
    uint32_t got = 0;
    while (sl_iter_next(&it, &r) == SL_OK) {
        CHECK(v2_record_ok(&r, got, 12));
        got++;
    }
    CHECK_EQ(got, 700);
}

/* ---- runs ------------------------------------------------------------------- */
/* Record k of pattern `mode`: its stream slot (0..2), length, step from the
 * record before, and bytes. 0: one stream, fixed size, steady rate; 1: A A
 * B repeated (runs of two); 2: a random mix; 3: 4-byte records of one
 * stream (long runs: over 255 in a 4 KiB chunk), with a step change now
 * and then. */
static uint16_t ids[3]; /* the streams write_pattern created */
struct pattern_rec {
    uint32_t slot, len;
    uint64_t step;
};
static struct pattern_rec pattern(int mode, uint64_t k)
{
    uint64_t x = sts_mix64(k * 7919 + (uint64_t)mode);
    switch (mode) {
    case 0: return (struct pattern_rec){0, 12, 1000};
    case 1: return (struct pattern_rec){k % 3 == 2, 12, 10};
    case 2: return (struct pattern_rec){(uint32_t)(x % 3), x >> 8 & 1 ? 8 : 12, x >> 9 & 3 ? 1 : 2};
    default: return (struct pattern_rec){0, 4, k % 700 == 699 ? 3 : 1};
    }
}
static void pattern_bytes(uint64_t k, uint32_t len, uint8_t *out)
{
    for (uint32_t b = 0; b < len; b++)
        out[b] = (uint8_t)(sts_mix64(k ^ 0xC0FFEE) >> (b % 8 * 8));
}

/* Writes n records of pattern mode into a fresh log (version 2's rules
 * when v2: the writer follows lg.version) and checks every one reads back;
 * returns the record header bytes it took. */
static uint64_t write_pattern(int mode, uint64_t n, int v2, uint32_t chunk)
{
    uint64_t fail = UINT64_MAX;
    if (nor(1024 * 1024, chunk, 64 * 1024) || sl_format(&lg, &cfg))
        return fail;
    if (v2)
        lg.version = 2;
    static const char *const names[3] = {"imu", "ppg", "env"};
    for (int s = 0; s < 3; s++)
        if (sl_stream_create(&lg, names[s], &ids[s]))
            return fail;
    uint64_t ts = 5000;
    uint8_t data[16];
    for (uint64_t k = 0; k < n; k++) {
        struct pattern_rec p = pattern(mode, k);
        ts += p.step;
        pattern_bytes(k, p.len, data);
        if (append(ids[p.slot], ts, data, p.len))
            return fail;
    }
    if (sl_sync(&lg))
        return fail;
    struct sl_iter it;
    struct sl_record r;
    if (sl_iter_from_gseq(&lg, &it, 0, 0))
        return fail;
    ts = 5000;
    for (uint64_t k = 0; k < n; k++) {
        struct pattern_rec p = pattern(mode, k);
        ts += p.step;
        pattern_bytes(k, p.len, data);
        if (sl_iter_next(&it, &r) != SL_OK || r.stream != ids[p.slot] || r.len != p.len ||
            r.ts != ts || r.gseq != k || memcmp(r.data, data, p.len))
            return fail;
    }
    if (sl_iter_next(&it, &r) != SL_ENOENT)
        return fail;
    struct sl_stats st;
    sl_stats(&lg, &st);
    return st.record_header_bytes;
}

static void runs_read_back_and_never_cost_more_than_heads(void)
{
    for (int mode = 0; mode < 4; mode++) {
        uint32_t chunk = mode == 3 ? 4096 : 1024;
        uint64_t n = mode == 3 ? 5000 : 3000;
        uint64_t v2 = write_pattern(mode, n, 1, chunk);
        uint64_t v3 = write_pattern(mode, n, 0, chunk);
        CHECK(v2 != UINT64_MAX && v3 != UINT64_MAX);
        CHECK(v3 <= v2);
        struct sl_stats st;
        sl_stats(&lg, &st);
        uint64_t data_chunks = st.chunk_header_bytes / 52;
        if (mode == 0 || mode == 3) { /* one stream: a chunk's heads, not a record's */
            CHECK(v2 >= n);
            CHECK(v3 <= 8 * data_chunks + 2 * n / 255 + 2 * (n / 700 + 1) * 4);
        }
        if (mode == 1) /* runs of two: exactly what the heads cost */
            CHECK_EQ(v3, v2);
    }
}

/* An independent reading of docs/sensorlog-format.md's data payload: head
 * varint (stream << 2 | len follows << 1 | step changes), the fields, the
 * data; a head of 0 and a count byte c: c records like the last one. */
static uint64_t varint(const uint8_t *c, uint32_t *pos)
{
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
        uint8_t b = c[(*pos)++];
        v |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80))
            return v;
    }
}

static void runs_decode_as_the_format_says(void)
{
    const uint64_t n = 5000;
    CHECK(write_pattern(3, n, 0, 4096) != UINT64_MAX);
    struct sl_stats st;
    sl_stats(&lg, &st);
    uint64_t k = 0, headers = 0, ts_want = 5000, runs = 0, longest = 0;
    uint8_t c[4096], want[16];
    for (uint32_t chunk = 0; chunk < 16 * 16 && k < n; chunk++) { /* 16 segments of 16 */
        CHECK_EQ(bd.ops->read(bd.ctx, (uint64_t)chunk * 4096, c, sizeof(c)), 0);
        if (c[0] != 0x43 || c[1] != 0x4B || c[2] != 1)
            continue; /* a segment header, a catalog page, or unwritten */
        uint32_t used = (uint32_t)(c[4] | c[5] << 8), nrec = (uint32_t)(c[6] | c[7] << 8);
        uint64_t first = 0, ts = 0;
        for (int b = 7; b >= 0; b--) {
            first = first << 8 | c[16 + b];
            ts = ts << 8 | c[24 + b];
        }
        CHECK_EQ(first, k);
        uint32_t pos = 52, len = 0, stream = 0, left = 0;
        uint64_t step = 0;
        for (uint32_t i = 0; i < nrec; i++, k++) {
            if (!left) {
                uint32_t at = pos;
                uint64_t head = varint(c, &pos);
                if (head == 0) {
                    left = c[pos++];
                    CHECK(left > 0 && stream != 0);
                    runs++;
                    longest = left > longest ? left : longest;
                } else {
                    stream = (uint32_t)(head >> 2);
                    if (head & 2)
                        len = (uint32_t)varint(c, &pos);
                    if (head & 1) {
                        uint64_t z = varint(c, &pos);
                        step += (z >> 1) ^ (uint64_t)-(int64_t)(z & 1);
                    }
                    left = 1;
                }
                headers += pos - at;
            }
            left--;
            ts += step; /* the first record's step is 0: it is at ts_base */
            struct pattern_rec p = pattern(3, k);
            pattern_bytes(k, p.len, want);
            CHECK(stream == ids[0] && len == p.len && !memcmp(c + pos, want, len));
            ts_want += p.step;
            CHECK_EQ(ts, ts_want);
            pos += len;
        }
        CHECK_EQ(pos, 52 + used);
    }
    CHECK_EQ(k, n);
    CHECK_EQ(headers, st.record_header_bytes);
    CHECK(runs > 0 && longest == 255);
}

/* ---- the version-6 image: short pieces that start afresh ------------------ */
/* make_v6_image.c's workload: "imu" 12 bytes stamped 1000 + i; "env"
 * 5 + i % 8 bytes when i % 7 == 3, stamped 3 earlier when i % 3 == 0. */
static void expect_v6_workload(struct sl_iter *it, uint16_t imu, uint16_t env)
{
    struct sl_record r;
    for (uint32_t i = 0; i < 300; i++) {
        CHECK_EQ(sl_iter_next(it, &r), SL_OK);
        CHECK(r.stream == imu && record_ok(&r, i, 12, 1000 + i));
        if (i % 7 == 3) {
            CHECK_EQ(sl_iter_next(it, &r), SL_OK);
            CHECK(r.stream == env && record_ok(&r, i, 5 + i % 8, 1000 + i - (i % 3 ? 0 : 3)));
        }
        if (sts_test_failed_now())
            return;
    }
}

/* A log the version-6 library wrote (its pieces' first records repeat
 * nothing of the piece before) reads back whole with today's reader, and
 * is written on in version 6: a record synced alone then costs its 3-byte
 * head again (version 7 would carry the piece before's and spend 1 or 0). */
static void version_6_log_reads_and_is_written_in_version_6(void)
{
    uint16_t imu, env;
    MOUNT_IMAGE(sl_v6_image, 6, imu, env);
    struct sl_iter it;
    struct sl_record r;
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, 0, 0), 0);
    expect_v6_workload(&it, imu, env);
    CHECK_EQ(sl_iter_next(&it, &r), SL_ENOENT);
    CHECK_EQ(it.skipped + it.torn, 0);
    /* the newest 50 (short pieces of one record each, then 25 at a time) */
    CHECK_EQ(sl_iter_latest(&lg, &it, imu, 50), 0);
    for (uint32_t i = 250; i < 300; i++) {
        CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
        CHECK(record_ok(&r, i, 12, 1000 + i));
    }

    /* written on, each record synced: short pieces of version 6 */
    struct sl_stats st0 = {0}, st;
    uint8_t rec[12];
    for (uint32_t i = 300; i < 400; i++) {
        for (int b = 0; b < 12; b++)
            rec[b] = (uint8_t)(i * 31 + b);
        CHECK_EQ(append(imu, 1000 + i, rec, 12), 0);
        CHECK_EQ(sl_sync(&lg), 0);
        if (i == 300)
            sl_stats(&lg, &st0); /* (record 300 opens a chunk: a full header) */
    }
    sl_stats(&lg, &st);
    CHECK(st.record_header_bytes - st0.record_header_bytes >= 3 * 95); /* afresh: 3 a record */
    CHECK_EQ(sl_mount(&lg, &cfg), 0);
    CHECK_EQ(lg.version, 6);
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, 0, 0), 0);
    expect_v6_workload(&it, imu, env);
    for (uint32_t i = 300; i < 400; i++) {
        CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
        CHECK(r.stream == imu && record_ok(&r, i, 12, 1000 + i));
    }
    CHECK_EQ(sl_iter_next(&it, &r), SL_ENOENT);
    CHECK_EQ(it.skipped + it.torn, 0);
}

/* Version 7 on a NOR without ECC: a 12-byte record of a steady stream
 * synced alone is a short piece of 19 bytes (docs/sensorlog-format.md:
 * the magic byte, saying one record like the one before it; the payload's
 * length; the rise of the running maximum; no head; the 12 bytes; the
 * CRC: 1 + 1 + 1 + 12 + 4), counted on the device's bytes written. A
 * record that changes length or step carries its fields (a head, the
 * length, the change of step). All read back, also after a remount. */
static void a_steady_synced_record_costs_19_bytes_in_version_7(void)
{
    CHECK_EQ(nor(256 * 1024, 4096, 64 * 1024), 0);
    CHECK_EQ(sl_format(&lg, &cfg), 0);
    CHECK_EQ(lg.version, 7);
    uint16_t id;
    CHECK_EQ(sl_stream_create(&lg, "imu", &id), 0);
    uint8_t rec[16];
    uint64_t ts = 5000;
    for (uint32_t i = 0; i < 3; i++) { /* a chunk's first piece, and the step set */
        memset(rec, (int)i, sizeof(rec));
        CHECK_EQ(append(id, ts += 10, rec, 12), 0);
        CHECK_EQ(sl_sync(&lg), 0);
    }
    uint64_t w0 = sim.n.bytes_written;
    for (uint32_t i = 3; i < 103; i++) {
        memset(rec, (int)i, sizeof(rec));
        CHECK_EQ(append(id, ts += 10, rec, 12), 0);
        CHECK_EQ(sl_sync(&lg), 0);
    }
    CHECK_EQ(sim.n.bytes_written - w0, 100u * 19);
    /* one longer, one at another step: a head, the length, the step's change */
    w0 = sim.n.bytes_written;
    memset(rec, 103, sizeof(rec));
    CHECK_EQ(append(id, ts += 10, rec, 16), 0);
    CHECK_EQ(sl_sync(&lg), 0);
    CHECK_EQ(sim.n.bytes_written - w0, 1u + 1 + 1 + (1 + 1) + 16 + 4);
    w0 = sim.n.bytes_written;
    memset(rec, 104, sizeof(rec));
    CHECK_EQ(append(id, ts += 30, rec, 16), 0);
    CHECK_EQ(sl_sync(&lg), 0);
    CHECK_EQ(sim.n.bytes_written - w0, 1u + 1 + 1 + (1 + 1) + 16 + 4);
    for (int pass = 0; pass < 2; pass++) {
        struct sl_iter it;
        struct sl_record r;
        CHECK_EQ(sl_iter_from_gseq(&lg, &it, id, 0), 0);
        uint64_t want = 5000;
        for (uint32_t i = 0; i < 105; i++) {
            want += i == 104 ? 30 : 10;
            CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
            CHECK(r.ts == want && r.len == (i < 103 ? 12 : 16) && r.data[0] == (uint8_t)i &&
                  r.data[r.len - 1] == (uint8_t)i);
        }
        CHECK_EQ(sl_iter_next(&it, &r), SL_ENOENT);
        CHECK_EQ(sl_mount(&lg, &cfg), 0);
    }
}

/* Records staged as a carried piece (version 7) that go out as a chunk's
 * first piece instead - a catalog page took the chunk (a stream created
 * while they waited), or their program failed and the chunk is written
 * again in a fresh segment - have their first record written to repeat
 * nothing, and read back exact: stream, length, time and bytes. Both
 * kinds of carried first record: with a head (its length changed) and
 * without one (like the record before). */
static void carried_records_moved_to_a_chunks_first_piece_read_back(void)
{
    CHECK_EQ(nor(256 * 1024, 4096, 64 * 1024), 0);
    CHECK_EQ(sl_format(&lg, &cfg), 0);
    uint16_t id, other;
    CHECK_EQ(sl_stream_create(&lg, "imu", &id), 0);
    uint8_t rec[16];
    uint64_t ts = 7000;
    uint32_t n = 0;
    for (uint32_t i = 0; i < 4; i++, n++) { /* a first piece, then short ones */
        memset(rec, (int)n, sizeof(rec));
        CHECK_EQ(append(id, ts += 10, rec, 12), 0);
        CHECK_EQ(sl_sync(&lg), 0);
    }
    for (int moved = 0; moved < 4; moved++) {
        /* staged, not yet written: like the record before (moved 0, 2: no
         * head), or of another length (1, 3: a head) */
        uint32_t len = moved == 1 || moved == 2 ? 16 : 12;
        memset(rec, (int)n, sizeof(rec));
        CHECK_EQ(append(id, ts += 10, rec, len), 0);
        n++;
        int pumped;
        while ((pumped = sl_pump(&lg)) == SL_BUSY)
            ;
        CHECK_EQ(pumped, SL_OK);
        CHECK_EQ(lg.staged_records, 1);
        CHECK_EQ(lg.carried, moved & 1 ? 1 : 2);
        CHECK(lg.piece_off != 0);
        if (moved < 2) { /* a catalog page takes the chunk */
            char name[8] = "s0";
            name[1] = (char)('0' + moved);
            CHECK_EQ(sl_stream_create(&lg, name, &other), 0);
            CHECK_EQ(sl_sync(&lg), 0);
        } else { /* the short piece's program fails: the chunk goes again elsewhere */
            uint64_t at = (uint64_t)lg.cur_seg * lg.seg_bytes +
                          (uint64_t)lg.next_chunk * lg.chunk + lg.piece_off;
            struct sts_sim_faults f = {.prog_error_ppm = 1000000, .error_lo = at,
                                       .error_hi = at + 64};
            sts_sim_set_faults(&sim, &f);
            CHECK_EQ(sl_sync(&lg), 0);
            struct sts_sim_faults none = {0};
            sts_sim_set_faults(&sim, &none);
        }
        CHECK(lg.piece_off != 0 || lg.carried == 0);
        for (uint32_t i = 0; i < 3; i++, n++) { /* short pieces after it again */
            memset(rec, (int)n, sizeof(rec));
            CHECK_EQ(append(id, ts += 10, rec, len), 0);
            CHECK_EQ(sl_sync(&lg), 0);
        }
        if (sts_test_failed_now())
            return;
    }
    struct sl_stats st;
    sl_stats(&lg, &st);
    CHECK(st.write_errors >= 2);
    for (int pass = 0; pass < 2; pass++) {
        struct sl_iter it;
        struct sl_record r;
        CHECK_EQ(sl_iter_from_gseq(&lg, &it, id, 0), 0);
        uint64_t want_ts = 7000;
        uint32_t len = 12;
        for (uint32_t k = 0; k < n; k++) {
            want_ts += 10;
            if (k >= 4 && (k - 4) % 4 == 0) /* the moved record sets the length */
                len = (k - 4) / 4 == 1 || (k - 4) / 4 == 2 ? 16 : 12;
            CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
            CHECK(r.stream == id && r.ts == want_ts && r.len == len && r.data[0] == (uint8_t)k &&
                  r.data[len - 1] == (uint8_t)k);
            if (sts_test_failed_now())
                return;
        }
        CHECK_EQ(sl_iter_next(&it, &r), SL_ENOENT);
        CHECK_EQ(it.skipped + it.torn, 0);
        CHECK_EQ(sl_mount(&lg, &cfg), 0);
        CHECK_EQ(sl_stream_open(&lg, "imu", &id), 0);
    }
}

/* ---- versions it does not know -------------------------------------------- */
static void unknown_versions_are_refused(void)
{
    static const uint16_t versions[] = {1, SL_FORMAT_VERSION + 1};
    for (size_t v = 0; v < 2; v++) {
        CHECK_EQ(nor(64 * 1024, 1024, 16 * 1024), 0);
        CHECK_EQ(sl_format(&lg, &cfg), 0);
        /* segment 0's header as another version wrote it: version at 4, the
         * CRC of its 56 bytes at 56 */
        uint8_t h[60];
        CHECK_EQ(bd.ops->read(bd.ctx, 0, h, sizeof(h)), 0);
        CHECK_EQ(h[4] | h[5] << 8, SL_FORMAT_VERSION); /* (nor(): no ECC, version 7) */
        h[4] = (uint8_t)versions[v];
        h[5] = (uint8_t)(versions[v] >> 8);
        uint32_t crc = sl_crc32c(0, h, 56);
        for (int b = 0; b < 4; b++)
            h[56 + b] = (uint8_t)(crc >> (8 * b));
        CHECK_EQ(bd.ops->erase(bd.ctx, 0, 4096), 0);
        CHECK_EQ(bd.ops->program(bd.ctx, 0, h, sizeof(h)), 0);
        CHECK_EQ(sl_mount(&lg, &cfg), SL_ECORRUPT);
    }
}

/* sensorlog divides 64-bit numbers bit by bit (libgcc's division would be
 * 828 B of the writer): quotient and remainder as the compiler's own / and
 * % give them, for numerators and divisors of every width, divisors past
 * 2^63 (where shifting the remainder left loses its top bit) and 1. */
static void sl_div64_agrees_with_the_compilers_division(void)
{
    struct sts_rng r;
    sts_rng_seed(&r, 20261206);
    static const uint64_t edges[][2] = {
        {UINT64_MAX, 1}, {UINT64_MAX, UINT64_MAX}, {UINT64_MAX - 1, UINT64_MAX},
        {UINT64_MAX, (1ull << 63) + 1}, {(1ull << 63) + 5, 1ull << 63}, {0, 7},
        {17ull << 30, 196608}, {5, 9}, {1ull << 32, 0xFFFFFFFFu},
    };
    for (int i = 0; i < 4000; i++) {
        uint64_t n, d;
        if (i < (int)(sizeof(edges) / sizeof(edges[0]))) {
            n = edges[i][0];
            d = edges[i][1];
        } else { /* each of n and d from 1 to 64 bits wide */
            n = sts_rng_next(&r) >> sts_rng_below(&r, 64);
            d = sts_rng_next(&r) >> sts_rng_below(&r, 64);
            d += !d;
        }
        uint64_t rem = UINT64_MAX;
        CHECK_EQ(sl_div64(n, d, &rem), n / d);
        CHECK_EQ(rem, n % d);
        CHECK_EQ(sl_div64(n, d, NULL), n / d);
    }
}

const struct sts_test_case test_sl_format_cases[] = {
    {"sl_div64_agrees_with_the_compilers_division", sl_div64_agrees_with_the_compilers_division},
    {"version_2_log_reads_and_is_written_in_version_2",
     version_2_log_reads_and_is_written_in_version_2},
    {"runs_read_back_and_never_cost_more_than_heads", runs_read_back_and_never_cost_more_than_heads},
    {"runs_decode_as_the_format_says", runs_decode_as_the_format_says},
    {"version_6_log_reads_and_is_written_in_version_6",
     version_6_log_reads_and_is_written_in_version_6},
    {"a_steady_synced_record_costs_19_bytes_in_version_7",
     a_steady_synced_record_costs_19_bytes_in_version_7},
    {"carried_records_moved_to_a_chunks_first_piece_read_back",
     carried_records_moved_to_a_chunks_first_piece_read_back},
    {"unknown_versions_are_refused", unknown_versions_are_refused},
    {NULL, NULL},
};
