/* sensorlog on simulated NOR and eMMC, in virtual time: what is appended
 * and synced reads back, through wrap-around, power cuts and remounts;
 * appends never touch the device; a pump does at most one device
 * operation; mount and searches read O(log n) chunks. */
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

#define arena sts_test_sim_arena

/* ---- a device shim that counts what reaches the medium ------------------ */
struct counting {
    struct sts_bd inner;
    uint64_t reads, programs, erases, flushes, submits;
    uint64_t bytes_read, bytes_programmed;
    uint64_t read_max; /* the largest read command */
    int nonblocking; /* expose the inner device's submit/poll */
};
static struct counting cnt;

static int c_read(void *ctx, uint64_t a, void *b, size_t n)
{
    (void)ctx;
    cnt.reads++;
    cnt.bytes_read += n;
    cnt.read_max = n > cnt.read_max ? n : cnt.read_max;
    return cnt.inner.ops->read(cnt.inner.ctx, a, b, n);
}
static int c_program(void *ctx, uint64_t a, const void *b, size_t n)
{
    (void)ctx;
    cnt.programs++;
    cnt.bytes_programmed += n;
    return cnt.inner.ops->program(cnt.inner.ctx, a, b, n);
}
static uint64_t erase_len_lo, erase_len_hi; /* the smallest and largest erase command */
static int c_erase(void *ctx, uint64_t a, uint64_t n)
{
    (void)ctx;
    cnt.erases++;
    erase_len_lo = n < erase_len_lo ? n : erase_len_lo;
    erase_len_hi = n > erase_len_hi ? n : erase_len_hi;
    return cnt.inner.ops->erase(cnt.inner.ctx, a, n);
}
static int c_flush(void *ctx)
{
    (void)ctx;
    cnt.flushes++;
    return cnt.inner.ops->flush(cnt.inner.ctx);
}
static void c_geometry(void *ctx, struct sts_bd_geometry *g)
{
    (void)ctx;
    cnt.inner.ops->geometry(cnt.inner.ctx, g);
}
static int c_submit(void *ctx, struct sts_bd_req *req)
{
    (void)ctx;
    cnt.submits++;
    if (req->op == STS_BD_PROGRAM)
        cnt.programs++;
    return cnt.inner.ops->submit(cnt.inner.ctx, req);
}
static int c_poll(void *ctx, struct sts_bd_req **done)
{
    (void)ctx;
    return cnt.inner.ops->poll(cnt.inner.ctx, done);
}
static const struct sts_bd_ops counting_ops = {
    .version = STS_BD_OPS_VERSION, c_read, c_program, c_erase, c_flush, c_geometry, NULL, NULL,
    NULL
};
static const struct sts_bd_ops counting_nb_ops = {
    .version = STS_BD_OPS_VERSION, c_read, c_program, c_erase, c_flush, c_geometry, c_submit,
    c_poll, NULL
};
static uint64_t device_ops(void)
{
    return cnt.reads + cnt.programs + cnt.erases + cnt.flushes;
}

/* ---- fixture ------------------------------------------------------------ */
#define N_SEGS 160
static struct sts_sim sim;
static struct sl_log lg;
static struct sl_seg_info segs[N_SEGS];
static uint8_t ring[8192];
static uint8_t chunk_buf[4096] __attribute__((aligned(8)));
static uint8_t read_buf[4096] __attribute__((aligned(8)));
static struct sl_config cfg;
static struct sl_stream_info streams[1024];

/* 1: the NOR reads a cut's pages as errors, as a chip with ECC does, and
 * programs whole pages (no_ecc=0); 0: the profile's own (nor-spi: bytes) */
static int nor_with_ecc;

static int medium(const char *profile, uint64_t capacity, uint32_t erase_bytes, int nonblocking)
{
    struct sts_sim_params p = *sts_sim_profile_find(profile);
    p.capacity = capacity;
    if (nor_with_ecc)
        p.no_ecc = 0;
    if (erase_bytes) { /* a small managed medium: erase blocks that fit */
        p.erase_bytes = erase_bytes;
        p.page_bytes = 4096;
        p.cache_bytes = 16384;
    }
    p.bad_permille = 0;
    if (sts_sim_arena_bytes(&p, capacity) > sizeof(arena))
        return STS_ENOMEM;
    memset(&cnt, 0, sizeof(cnt));
    int rc = sts_sim_init(&sim, &p, 1, arena, sizeof(arena), capacity, &cnt.inner);
    cnt.nonblocking = nonblocking;
    memset(&cfg, 0, sizeof(cfg));
    cfg.bd = (struct sts_bd){nonblocking ? &counting_nb_ops : &counting_ops, &cnt};
    cfg.buffer = ring;
    cfg.buffer_bytes = sizeof(ring);
    cfg.chunk_buf = chunk_buf;
    cfg.read_buf = read_buf;
    cfg.segs = segs;
    cfg.n_segs = N_SEGS;
    cfg.streams = streams;
    cfg.max_streams = 40; /* one catalog page of a 1 KiB chunk */
    return rc;
}

/* A NOR log of 1 KiB chunks in segments of seg_bytes, formatted. */
static int nor_log(uint64_t capacity, uint32_t seg_bytes)
{
    int rc = medium("nor-spi", capacity, 0, 0);
    cfg.chunk_bytes = 1024;
    cfg.segment_bytes = seg_bytes;
    return rc ? rc : sl_format(&lg, &cfg);
}

/* Record k of a stream: its bytes follow from (stream, k), so a record read
 * back from the wrong place, or torn, does not check. */
static size_t make_record(uint16_t stream, uint64_t k, uint8_t *out)
{
    size_t len = 4 + (size_t)(sts_mix64(stream * 1000003ull + k) % 29);
    for (size_t i = 0; i < len; i++)
        out[i] = (uint8_t)(sts_mix64(k * 131 + i + stream) >> 8);
    return len;
}

static int record_ok(const struct sl_record *r, uint64_t k)
{
    uint8_t want[64];
    size_t len = make_record(r->stream, k, want);
    return r->len == len && memcmp(r->data, want, len) == 0;
}

static int pump_all(void)
{
    int rc;
    while ((rc = sl_pump(&lg)) == SL_BUSY)
        ;
    return rc;
}

/* Appends n records to each stream, timestamps in steps of 10. */
static int append_rounds(const uint16_t *ids, int n_ids, uint64_t *next_k, uint64_t rounds,
                         uint64_t *ts)
{
    uint8_t buf[64];
    for (uint64_t r = 0; r < rounds; r++)
        for (int i = 0; i < n_ids; i++) {
            size_t len = make_record(ids[i], next_k[i], buf);
            int rc = sl_append(&lg, ids[i], *ts, buf, len);
            if (rc == SL_EFULL) { /* the pump's turn, as an I/O task would take it */
                rc = pump_all();
                if (!rc)
                    rc = sl_append(&lg, ids[i], *ts, buf, len);
            }
            if (rc)
                return rc;
            next_k[i]++;
            *ts += 10;
        }
    return SL_OK;
}

/* Reads a stream from the start: records k0, k0+1, ... in order, intact. */
static int read_back(uint16_t id, uint64_t k0, uint64_t expect_n)
{
    struct sl_iter it;
    struct sl_record r;
    if (sl_iter_from_gseq(&lg, &it, id, 0))
        return -1;
    uint64_t n = 0, k = k0;
    while (sl_iter_next(&it, &r) == SL_OK) {
        if (r.stream != id || !record_ok(&r, k))
            return -2;
        n++;
        k++;
    }
    return n == expect_n ? 0 : -3;
}

/* Reads whatever the log still holds of a stream: 0 when the records run
 * contiguously and intact from *first to *last (n of them). */
static int read_kept(uint16_t id, uint64_t *first, uint64_t *last, uint64_t *n)
{
    struct sl_iter it;
    struct sl_record r;
    if (sl_iter_from_gseq(&lg, &it, id, 0) || sl_iter_next(&it, &r) || !record_ok(&r, r.gseq))
        return -1;
    *first = *last = r.gseq;
    *n = 1;
    while (sl_iter_next(&it, &r) == SL_OK) {
        if (r.gseq != *last + 1 || !record_ok(&r, r.gseq))
            return -2;
        *last = r.gseq;
        (*n)++;
    }
    return 0;
}

static void roundtrip_on_nor(void)
{
    CHECK_EQ(nor_log(512 * 1024, 8192), 0);
    uint16_t ids[3];
    CHECK_EQ(sl_stream_create(&lg, "imu", &ids[0]), 0);
    CHECK_EQ(sl_stream_create(&lg, "ppg", &ids[1]), 0);
    CHECK_EQ(sl_stream_create(&lg, "env", &ids[2]), 0);
    CHECK_EQ(sl_stream_create(&lg, "imu", &ids[0]), SL_EEXIST);
    uint64_t k[3] = {0}, ts = 1000;
    CHECK_EQ(append_rounds(ids, 3, k, 300, &ts), 0);
    CHECK_EQ(sl_sync(&lg), 0);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(read_back(ids[i], 0, 300), 0);
    /* every stream together, in append order */
    struct sl_iter it;
    struct sl_record r;
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, 0, 0), 0);
    uint64_t n = 0, last_ts = 0;
    while (sl_iter_next(&it, &r) == SL_OK) {
        CHECK_EQ(r.gseq, n);
        CHECK(r.ts > last_ts);
        last_ts = r.ts;
        n++;
    }
    CHECK_EQ(n, 900);
    /* every write was a chunk's header and what it holds, not rounded up:
     * the NOR (no ECC) programs bytes */
    struct sl_stats st;
    sl_stats(&lg, &st);
    CHECK_EQ(st.appended_records, 900);
    CHECK_EQ(st.padding_bytes, 0);
    /* 3-byte record headers on ~18-byte records, and per 8 KiB segment a header
     * and a catalog page: under 3 */
    CHECK(st.write_amplification > 1.0 && st.write_amplification < 3.0);
}

static void mount_finds_everything_in_log_reads(void)
{
    CHECK_EQ(nor_log(512 * 1024, 8192), 0);
    uint16_t id;
    CHECK_EQ(sl_stream_create(&lg, "imu", &id), 0);
    uint64_t k = 0, ts = 5;
    CHECK_EQ(append_rounds(&id, 1, &k, 1000, &ts), 0);
    CHECK_EQ(sl_sync(&lg), 0);
    /* a second stream created late lives in a catalog chunk, not a header */
    uint16_t late;
    CHECK_EQ(sl_stream_create(&lg, "late", &late), 0);
    uint64_t kl = 0;
    CHECK_EQ(append_rounds(&late, 1, &kl, 10, &ts), 0);
    CHECK_EQ(sl_sync(&lg), 0);
    uint64_t before = cnt.reads;
    CHECK_EQ(sl_mount(&lg, &cfg), 0);
    /* headers (64 segments) + the catalog page + bisection of 8 chunks (3
     * steps, each reading the next chunk too where one does not check) +
     * the last chunk + the one catalog update since (two copies) + the last
     * chunk again for the numbering + one look past the end */
    uint64_t reads = cnt.reads - before;
    CHECK(reads <= 64 + 1 + 2 * 3 + 1 + 2 + 1 + 1);
    uint16_t again;
    CHECK_EQ(sl_stream_open(&lg, "imu", &again), 0);
    CHECK_EQ(again, id);
    CHECK_EQ(sl_stream_open(&lg, "late", &again), 0);
    CHECK_EQ(again, late);
    CHECK_EQ(read_back(id, 0, 1000), 0);
    CHECK_EQ(read_back(late, 0, 10), 0);
    /* writing goes on after the mount, and the numbering continues */
    CHECK_EQ(append_rounds(&id, 1, &k, 50, &ts), 0);
    CHECK_EQ(sl_sync(&lg), 0);
    CHECK_EQ(read_back(id, 0, 1050), 0);
    /* nothing there: a clear answer */
    CHECK_EQ(medium("nor-spi", 512 * 1024, 0, 0), 0);
    cfg.chunk_bytes = 1024;
    cfg.segment_bytes = 8192;
    CHECK_EQ(sl_mount(&lg, &cfg), SL_ENOENT);
}

static uint64_t evicted_first, evicted_end, evictions;
static void on_evict(void *ctx, uint64_t first, uint64_t end)
{
    (void)ctx;
    if (evictions && first != evicted_end)
        evicted_first = UINT64_MAX; /* not the oldest: flagged */
    else if (!evictions)
        evicted_first = first;
    evicted_end = end;
    evictions++;
}

static void wraps_around_evicting_the_oldest_evenly(void)
{
    CHECK_EQ(medium("nor-spi", 256 * 1024, 0, 0), 0);
    cfg.chunk_bytes = 1024;
    cfg.segment_bytes = 8192;
    cfg.free_segments = 2;
    cfg.evict = on_evict;
    evictions = 0;
    CHECK_EQ(sl_format(&lg, &cfg), 0);
    uint16_t id;
    CHECK_EQ(sl_stream_create(&lg, "imu", &id), 0);
    uint64_t k = 0, ts = 1;
    /* ~2.6 MB of records through 256 KiB: about ten laps */
    for (int lap = 0; lap < 100; lap++) {
        CHECK_EQ(append_rounds(&id, 1, &k, 1000, &ts), 0);
        CHECK_EQ(pump_all(), 0);
    }
    CHECK_EQ(sl_sync(&lg), 0);
    CHECK(evictions > 200);
    CHECK_EQ(evicted_first, 0);
    struct sl_stats st;
    sl_stats(&lg, &st);
    CHECK(st.erase_max - st.erase_min <= 1); /* circular: wear even by construction */
    /* what is left is the newest run of records, contiguous to the last one */
    uint64_t first, g, n;
    CHECK_EQ(read_kept(id, &first, &g, &n), 0);
    CHECK_EQ(first, evicted_end); /* the first record not evicted */
    CHECK_EQ(g, k - 1);
    /* the floor: two segments erased ahead, the rest holds data */
    CHECK(st.free_bytes >= 2 * (8192 - 2 * 1024)); /* a header and a catalog page each */
    CHECK(n * 20 > 256 * 1024 / 2);
}

static void appends_never_touch_the_device_and_pumps_do_one_operation(void)
{
    CHECK_EQ(nor_log(512 * 1024, 8192), 0);
    uint16_t id;
    CHECK_EQ(sl_stream_create(&lg, "imu", &id), 0);
    uint8_t buf[64];
    uint64_t ops = device_ops(), pumps = 0;
    for (uint64_t k = 0; k < 5000; k++) {
        uint64_t before = device_ops();
        size_t len = make_record(id, k, buf);
        int rc = sl_append(&lg, id, k, buf, len);
        CHECK_EQ(device_ops(), before);
        if (rc == SL_EFULL) {
            for (;;) { /* the pump runs when the buffer is full */
                before = device_ops();
                rc = sl_pump(&lg);
                pumps++;
                CHECK(device_ops() - before <= 1);
                if (rc != SL_BUSY)
                    break;
            }
            CHECK_EQ(rc, 0);
            CHECK_EQ(sl_append(&lg, id, k, buf, len), 0);
        }
    }
    CHECK(pumps > 0);
    CHECK(device_ops() > ops);
    CHECK_EQ(sl_sync(&lg), 0);
    CHECK_EQ(read_back(id, 0, 5000), 0);
}

static void full_buffer_policies(void)
{
    CHECK_EQ(medium("nor-spi", 512 * 1024, 0, 0), 0);
    cfg.chunk_bytes = 1024;
    cfg.segment_bytes = 8192;
    cfg.buffer_bytes = 400;
    CHECK_EQ(sl_format(&lg, &cfg), 0);
    uint16_t id;
    uint8_t data[30] = {0};
    CHECK_EQ(sl_stream_create(&lg, "s", &id), 0);
    int k = 0;
    while (sl_append(&lg, id, (uint64_t)k, data, sizeof(data)) == SL_OK)
        k++;
    CHECK_EQ(k, 400 / (12 + 30)); /* 12 bytes of header each in RAM */
    struct sl_stats st;
    sl_stats(&lg, &st);
    CHECK_EQ(st.rejected_records, 1);
    /* drop oldest: the newest always gets in, the oldest go */
    cfg.full_policy = SL_DROP_OLDEST;
    CHECK_EQ(sl_format(&lg, &cfg), 0);
    CHECK_EQ(sl_stream_create(&lg, "s", &id), 0);
    for (int i = 0; i < 25; i++) {
        data[0] = (uint8_t)i;
        CHECK_EQ(sl_append(&lg, id, (uint64_t)i, data, sizeof(data)), 0);
    }
    CHECK_EQ(sl_sync(&lg), 0);
    struct sl_iter it;
    struct sl_record r;
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, id, 0), 0);
    CHECK_EQ(sl_iter_next(&it, &r), 0);
    CHECK_EQ(r.data[0], 16); /* 16 dropped, the last 9 kept */
    sl_stats(&lg, &st);
    CHECK_EQ(st.dropped_records, 16);
}

/* Timestamps are the caller's, in any unit: 100 records 3 s apart in
 * nanoseconds used to take a chunk each (a delta above 2^31 closed the
 * chunk: write amplification ~390). Deltas of any size, backwards too, and
 * the extremes of 64 bits come back exactly. */
static void timestamps_of_any_size_cost_bytes_not_chunks(void)
{
    CHECK_EQ(nor_log(512 * 1024, 8192), 0);
    uint16_t id;
    CHECK_EQ(sl_stream_create(&lg, "ns", &id), 0);
    CHECK_EQ(sl_sync(&lg), 0);
    struct sl_stats st;
    sl_stats(&lg, &st);
    uint64_t before = st.programmed_bytes;
    uint8_t data[12];
    for (uint64_t i = 0; i < 100; i++) {
        memset(data, (int)i, sizeof(data));
        CHECK_EQ(sl_append(&lg, id, 1700000000000000000ull + i * 3000000000ull, data, 12), 0);
    }
    CHECK_EQ(sl_sync(&lg), 0);
    sl_stats(&lg, &st);
    /* 100 records of 12 bytes plus at most 16 bytes of header each: 2,800
     * bytes, three 1 KiB chunks (976 bytes of payload each) */
    CHECK(st.programmed_bytes - before <= 3 * 1024);
    static const uint64_t odd[] = {0, UINT64_MAX, 1, 1ull << 63, (1ull << 63) - 1, 5, 5, 4,
                                   UINT64_MAX - 1, 0};
    for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
        data[0] = (uint8_t)i;
        CHECK_EQ(sl_append(&lg, id, odd[i], data, 1), 0);
    }
    CHECK_EQ(sl_sync(&lg), 0);
    struct sl_iter it;
    struct sl_record r;
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, id, 0), 0);
    for (uint64_t i = 0; i < 100; i++) {
        CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
        CHECK_EQ(r.ts, 1700000000000000000ull + i * 3000000000ull);
        CHECK(r.len == 12 && r.data[0] == (uint8_t)i && r.data[11] == (uint8_t)i);
    }
    for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
        CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
        CHECK_EQ(r.ts, odd[i]);
        CHECK(r.len == 1 && r.data[0] == (uint8_t)i);
    }
    CHECK_EQ(sl_iter_next(&it, &r), SL_ENOENT);
    /* and after a remount */
    CHECK_EQ(sl_mount(&lg, &cfg), 0);
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, id, 100), 0);
    for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
        CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
        CHECK_EQ(r.ts, odd[i]);
    }
}

/* Issue 16 (reads): a search bisects over chunk headers, reading each as a
 * header (52 bytes here: NOR reads any length), not as a whole chunk; only
 * the chunk the iterator starts in is read whole. Where it starts is
 * checked against a walk from the beginning. */
static void a_time_search_reads_chunk_headers_only(void)
{
    CHECK_EQ(nor_log(1024 * 1024, 64 * 1024), 0); /* 64 chunks a segment */
    uint16_t id;
    CHECK_EQ(sl_stream_create(&lg, "imu", &id), 0);
    uint64_t k = 0, ts = 1;
    CHECK_EQ(append_rounds(&id, 1, &k, 2500, &ts), 0); /* ~60 KB: most of a segment */
    CHECK_EQ(sl_sync(&lg), 0);
    for (uint64_t want = 1; want < ts; want += 977) {
        struct sl_iter it;
        struct sl_record r;
        uint64_t reads = cnt.reads, bytes = cnt.bytes_read;
        CHECK_EQ(sl_iter_from_ts(&lg, &it, id, want), 0);
        uint64_t n = cnt.reads - reads;
        CHECK(n <= 7);                      /* log2(64) + 1 probes */
        CHECK_EQ(cnt.bytes_read - bytes, n * 52); /* headers only */
        CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
        CHECK(cnt.bytes_read - bytes <= n * 52 + 2 * 1024); /* then one chunk, or two */
        /* the first record at or after `want`: timestamps are 1, 11, 21, ... */
        CHECK_EQ(r.ts, want + (10 - (want - 1) % 10) % 10);
        CHECK(record_ok(&r, (r.ts - 1) / 10));
    }
}

/* Issue 16 (reads): the latest n records of a stream without a search: the
 * walk back reads the chunks they are in and no others (three streams
 * interleaved, over segments, after the log wrapped). Checked against the
 * stream read whole. */
static void latest_n_reads_only_the_chunks_they_are_in(void)
{
    CHECK_EQ(nor_log(256 * 1024, 16 * 1024), 0);
    uint16_t ids[3];
    CHECK_EQ(sl_stream_create(&lg, "a", &ids[0]), 0);
    CHECK_EQ(sl_stream_create(&lg, "b", &ids[1]), 0);
    CHECK_EQ(sl_stream_create(&lg, "c", &ids[2]), 0);
    uint64_t k[3] = {0}, ts = 1;
    CHECK_EQ(append_rounds(ids, 3, k, 6000, &ts), 0); /* ~450 KB: the 256 KiB log wrapped */
    CHECK_EQ(sl_sync(&lg), 0);
    static uint64_t all[20000];
    struct sl_iter it;
    struct sl_record r;
    uint64_t total = 0;
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, ids[1], 0), 0);
    while (sl_iter_next(&it, &r) == SL_OK && total < 20000)
        all[total++] = r.gseq;
    CHECK(total > 1000 && total < k[1]); /* the oldest were evicted */
    static const uint64_t ns[] = {0, 1, 2, 17, 100, 1000, 19999};
    for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
        uint64_t n = ns[i] < total ? ns[i] : total, got = 0;
        uint64_t reads = cnt.reads;
        CHECK_EQ(sl_iter_latest(&lg, &it, ids[1], ns[i]), 0);
        while (sl_iter_next(&it, &r) == SL_OK) {
            CHECK(got < n);
            if (got < n)
                CHECK_EQ(r.gseq, all[total - n + got]);
            CHECK(record_ok(&r, k[1] - total + (total - n) + got));
            got++;
        }
        CHECK_EQ(got, n);
        /* at most the chunks the n records and the other streams' records
         * between them fill: records of at most 32 + 3 bytes, 972 bytes of
         * payload a chunk less a record that did not fit; each read twice
         * (walking back, then forward) but the one the walk stopped in, and
         * no header read to find the newest: its place is in RAM */
        uint64_t most_chunks = (3 * n * 35) / (972 - 35) + 2;
        if (n == 1)
            CHECK_EQ(cnt.reads - reads, 1); /* the newest chunk, once */
        else if (n)
            CHECK(cnt.reads - reads <= 2 * most_chunks - 1);
        else
            CHECK_EQ(cnt.reads - reads, 0);
    }
    /* after a remount the writer's segment is closed where it stopped: the
     * walk starts where mount found its data to end (no header search, and
     * no reading of the empty chunks behind it) */
    CHECK_EQ(sl_mount(&lg, &cfg), 0);
    uint64_t reads = cnt.reads, got = 0;
    CHECK_EQ(sl_iter_latest(&lg, &it, ids[1], 17), 0);
    while (sl_iter_next(&it, &r) == SL_OK)
        CHECK_EQ(r.gseq, all[total - 17 + got++]);
    CHECK_EQ(got, 17);
    CHECK(cnt.reads - reads <= 2 * ((3 * 17 * 35) / (972 - 35) + 2) - 1);
}

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

/* ---- parts (format 4) -------------------------------------------------------- */
/* The oracle of part_log's workload: record i's stream slot, length and
 * timestamp. Lengths from 1 to 600 (some span several 512 B parts), runs of
 * a fixed-size stream (which must not cross a part boundary), and steps
 * that change, stay, or jump by 2^40. */
#define PART_RECS 2400
static struct {
    uint8_t slot;
    uint16_t len;
    uint64_t ts;
} part_rec[PART_RECS];
static uint16_t part_ids[3];

static void part_bytes_of(uint32_t i, uint8_t *out, uint32_t len)
{
    for (uint32_t b = 0; b < len; b++)
        out[b] = (uint8_t)(sts_mix64(i * 7919ull + b / 8) >> (b % 8 * 8));
}

static int part_rec_ok(const struct sl_record *r)
{
    static uint8_t want[600];
    if (r->gseq >= PART_RECS)
        return 0;
    uint32_t i = (uint32_t)r->gseq;
    part_bytes_of(i, want, part_rec[i].len);
    return r->stream == part_ids[part_rec[i].slot] && r->len == part_rec[i].len &&
           r->ts == part_rec[i].ts && memcmp(r->data, want, r->len) == 0;
}

/* A managed medium with 4 KiB chunks in parts of 512 bytes, holding the
 * workload above, synced now and then. */
static void part_log(void)
{
    CHECK_EQ(medium("emmc-stm32u5", 1024 * 1024, 65536, 0), 0);
    cfg.part_bytes = 512;
    CHECK_EQ(sl_format(&lg, &cfg), 0);
    CHECK_EQ(lg.part, 512);
    static const char *names[3] = {"imu", "ppg", "env"};
    for (int s = 0; s < 3; s++)
        CHECK_EQ(sl_stream_create(&lg, names[s], &part_ids[s]), 0);
    static uint8_t data[600];
    uint64_t ts = 1000, step = 3;
    for (uint32_t i = 0; i < PART_RECS; i++) {
        uint64_t x = sts_mix64(i + 77);
        int steady = (i / 200) % 2 == 0; /* stretches of one fixed-size stream: runs */
        uint8_t slot = steady ? 0 : (uint8_t)(x % 3);
        uint16_t len = steady ? 12 : (uint16_t)(x >> 8 & 15) == 0 ? (uint16_t)(513 + x % 88)
                                                                     : (uint16_t)(1 + (x >> 16) % 300);
        if (!steady && (x >> 24 & 63) == 0)
            step = (x >> 30 & 1) ? 1ull << 40 : step + 1;
        ts += steady ? 3 : step;
        part_rec[i].slot = slot;
        part_rec[i].len = len;
        part_rec[i].ts = ts;
        part_bytes_of(i, data, len);
        int rc = sl_append(&lg, part_ids[slot], ts, data, len);
        if (rc == SL_EFULL && !(rc = pump_all()))
            rc = sl_append(&lg, part_ids[slot], ts, data, len);
        CHECK_EQ(rc, 0);
        if (x % 97 == 0)
            CHECK_EQ(sl_sync(&lg), 0);
    }
    CHECK_EQ(sl_sync(&lg), 0);
}

/* A search lands in the part its target is in and reads that part and the
 * next, not the chunk: 4 KiB chunks, 512 B parts. Every record reads back
 * exactly from the log's start, from its own sequence number and from its
 * own timestamp, and reading on from a start crosses parts and chunks. */
static void a_search_reads_the_part_it_lands_in_not_the_chunk(void)
{
    part_log();
    struct sl_iter it;
    struct sl_record r;
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, 0, 0), 0);
    for (uint32_t i = 0; i < PART_RECS; i++) {
        CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
        CHECK_EQ(r.gseq, i);
        CHECK(part_rec_ok(&r));
    }
    CHECK_EQ(sl_iter_next(&it, &r), SL_ENOENT);
    CHECK_EQ(it.skipped + it.torn, 0);
    uint64_t most = 0, total = 0, n = 0;
    for (uint32_t i = 0; i < PART_RECS; i += 7, n++) {
        uint64_t before = cnt.bytes_read;
        cnt.read_max = 0;
        CHECK_EQ(sl_iter_from_gseq(&lg, &it, 0, i), 0);
        CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
        most = cnt.read_max > most ? cnt.read_max : most;
        total += cnt.bytes_read - before;
        CHECK_EQ(r.gseq, i);
        CHECK(part_rec_ok(&r));
        for (int k = 0; k < 40 && i + 1 + (uint32_t)k < PART_RECS; k++) { /* reading on */
            CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
            CHECK_EQ(r.gseq, i + 1 + (uint32_t)k);
            CHECK(part_rec_ok(&r));
        }
        /* by time: the first record of its stream at or after its stamp */
        uint8_t slot = part_rec[i].slot;
        CHECK_EQ(sl_iter_from_ts(&lg, &it, part_ids[slot], part_rec[i].ts), 0);
        CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
        uint32_t want = 0;
        while (part_rec[want].slot != slot || part_rec[want].ts < part_rec[i].ts)
            want++;
        CHECK_EQ(r.gseq, want);
        CHECK(part_rec_ok(&r));
    }
    /* a search and its first record: header reads of 512 bytes (its table
     * is in it) and two parts of 512 (1,536 bytes with the device's 512 B
     * read unit), never a whole chunk of 4,096; 2.6 KB in all (the
     * workload's chunks hold 13 to 300 records: a search by number guesses
     * well in neither) */
    CHECK(most <= 1536);
    CHECK(total / n < 3072);
}

/* A damaged part loses the records that start in it (and one that runs
 * into it from the part before), counted, and nothing else: the parts after
 * it in its chunk are read on from where their table entries say a record
 * starts (before, it lost the rest of its chunk). A search landing before
 * it in the same chunk reads past it too, one landing after it reads on
 * from there, and no record comes back wrong. */
static void a_damaged_part_loses_its_own_records_and_nothing_else(void)
{
    part_log();
    /* a data chunk in the first segment, three parts in: one byte flipped */
    uint32_t chunk = lg.hdr_chunks + 6 + 4; /* after the catalog chunks of three creates */
    uint8_t hdr[64];
    CHECK_EQ(cnt.inner.ops->read(cnt.inner.ctx, (uint64_t)chunk * 4096, hdr, sizeof(hdr)), 0);
    CHECK_EQ(hdr[2], 1);                        /* a data chunk */
    CHECK_EQ(hdr[3] >> 4, 2);                   /* parts of 2^(2 + 7) bytes */
    uint16_t used = (uint16_t)(hdr[4] | hdr[5] << 8), nrec = (uint16_t)(hdr[6] | hdr[7] << 8);
    uint64_t first = 0;
    memcpy(&first, hdr + 16, 8);
    CHECK(used > 4 * 512);
    /* the part table (entries of 16 bytes after the 52-byte header: CRC,
     * where the first record starting in the part is, its index, 0xFFFF
     * for none): the damage goes in the first part from 3 on where a
     * record starts; in3 .. in_next are the records starting in it */
    uint8_t table[8 * 16];
    CHECK_EQ(cnt.inner.ops->read(cnt.inner.ctx, (uint64_t)chunk * 4096 + 52, table, sizeof(table)),
             0);
#define ENTRY16(k, at) ((uint32_t)(table[(k) * 16 + (at)] | table[(k) * 16 + (at) + 1] << 8))
    uint32_t k = 3;
    while (k < 7 && ENTRY16(k, 4) == 0xFFFF)
        k++;
    CHECK(k < 7 && (k + 1) * 512 < used);
    uint32_t next = k + 1;
    while (next < 8 && next * 512 < used && ENTRY16(next, 4) == 0xFFFF)
        next++;
    uint32_t in3 = ENTRY16(k, 6), in4 = next < 8 && next * 512 < used ? ENTRY16(next, 6) : nrec;
#undef ENTRY16
    CHECK(in3 > 0 && in3 < in4 && in4 <= nrec);
    CHECK_EQ(sts_test_flip(&sim, (uint64_t)chunk * 4096 + 52 + 8 * 16 + k * 512 + 100, 0x10), 0);
    static uint8_t seen[PART_RECS];
    memset(seen, 0, sizeof(seen));
    uint64_t found = 0;
    struct sl_iter it;
    struct sl_record r;
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, 0, 0), 0);
    while (sl_iter_next(&it, &r) == SL_OK) {
        CHECK(part_rec_ok(&r));
        CHECK(!seen[r.gseq]);
        seen[r.gseq] = 1;
        found++;
    }
    CHECK_EQ(it.skipped, 1); /* read whole, the chunk does not check */
    /* missing: those that start in part k, maybe the one before them, no other */
    for (uint64_t g = 0; g < PART_RECS; g++)
        if (g < first + in3 - 1 || g >= first + in4)
            CHECK(seen[g]);
        else if (g >= first + in3)
            CHECK(!seen[g]);
    CHECK(found >= PART_RECS - (in4 - in3) - 1 && found <= PART_RECS - (in4 - in3));
    /* "latest n" counts what the forward read gives: exactly the newest n
     * of the records seen above, across the damaged chunk too */
    uint64_t from_chunk = 0, from_damage = 0; /* seen from the chunk's first, its part k's */
    for (uint64_t g = first; g < PART_RECS; g++) {
        from_chunk += seen[g];
        from_damage += g >= first + in3 - 1 ? seen[g] : 0;
    }
    const uint64_t ns[] = {1, 7, 300, from_damage - 1, from_damage + 1, from_chunk,
                           from_chunk + 3, PART_RECS};
    for (size_t t = 0; t < sizeof(ns) / sizeof(ns[0]); t++) {
        uint64_t want = ns[t] < found ? ns[t] : found, g = PART_RECS, n = 0;
        while (n < want) /* the want-th newest seen */
            n += seen[--g];
        CHECK_EQ(sl_iter_latest(&lg, &it, 0, ns[t]), 0);
        n = 0;
        while (sl_iter_next(&it, &r) == SL_OK) {
            CHECK(part_rec_ok(&r));
            while (g < PART_RECS && !seen[g])
                g++;
            CHECK_EQ(r.gseq, g);
            g++;
            n++;
        }
        CHECK_EQ(n, want);
    }
    /* positioned in part 0 of that chunk: its records up to the damage */
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, 0, first), 0);
    uint64_t got = 0;
    while (sl_iter_next(&it, &r) == SL_OK && r.gseq < first + nrec) {
        CHECK(part_rec_ok(&r));
        got++;
    }
    CHECK(got > 0 && got < nrec);
    CHECK(got >= nrec - (in4 - in3) - 1); /* and on past the damage */
    CHECK_EQ(it.skipped, 1);
    CHECK(part_rec_ok(&r)); /* and on into the next chunk */
    /* positioned after it: from the part after the damaged one */
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, 0, first + nrec - 1), 0);
    CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
    CHECK_EQ(r.gseq, first + nrec - 1);
    CHECK(part_rec_ok(&r));
    CHECK_EQ(it.skipped, 0);
}

/* "Latest n" on parts: the newest chunk, closed early by a sync, is read
 * as far as it is used, and the chunk after the one the start is in is
 * read in parts - so the latest few records of a 4 KiB chunk holding a
 * sync's few cost a header and a sector, not the chunk. Every n, of every
 * stream and of all, gives exactly the oracle's newest n, in order. */
static void latest_n_reads_what_the_newest_chunk_holds(void)
{
    part_log();
    static const uint32_t ns[] = {1, 2, 5, 47, 100, 333, 1000, PART_RECS + 5};
    for (int slot = -1; slot < 3; slot++)
        for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
            struct sl_iter it;
            struct sl_record r;
            uint16_t id = slot < 0 ? 0 : part_ids[slot];
            CHECK_EQ(sl_iter_latest(&lg, &it, id, ns[k]), 0);
            uint32_t want = PART_RECS, left = ns[k]; /* back to the oracle's n-th newest */
            while (want > 0 && left > 0) {
                want--;
                if (slot < 0 || part_rec[want].slot == slot)
                    left--;
            }
            for (; want < PART_RECS; want++) {
                if (slot >= 0 && part_rec[want].slot != slot)
                    continue;
                CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
                CHECK_EQ(r.gseq, want);
                CHECK(part_rec_ok(&r));
            }
            CHECK_EQ(sl_iter_next(&it, &r), SL_ENOENT);
        }
    /* a sync's few records in the newest chunk: the latest two cost its
     * header read and the sector the records are in */
    static uint8_t data[20];
    for (uint32_t i = 0; i < 3; i++)
        CHECK_EQ(sl_append(&lg, part_ids[1], (1ull << 50) + i, data, sizeof(data)), 0);
    CHECK_EQ(sl_sync(&lg), 0);
    uint64_t before = cnt.bytes_read;
    cnt.read_max = 0;
    struct sl_iter it;
    struct sl_record r;
    CHECK_EQ(sl_iter_latest(&lg, &it, part_ids[1], 2), 0);
    CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
    CHECK_EQ(r.ts, (1ull << 50) + 1);
    CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
    CHECK_EQ(r.ts, (1ull << 50) + 2);
    CHECK_EQ(sl_iter_next(&it, &r), SL_ENOENT);
    uint64_t reads0 = cnt.reads; (void)reads0;
    CHECK_EQ(cnt.bytes_read - before, 512); /* the header's sector holds them: one read */
    CHECK(cnt.read_max < 4096);
}

/* A log found in version 3 is written on in version 3: no parts, whatever
 * the configuration says, so the firmware that wrote it can read it. The
 * segment headers of part_log's log are rewritten to say 3 (with their CRC),
 * as a version-3 library would have written them. */
static void a_version_3_log_is_written_on_without_parts(void)
{
    part_log();
    for (uint32_t seg = 0; seg < lg.n_segs; seg++) {
        uint64_t at = (uint64_t)seg * lg.seg_bytes;
        uint8_t h[60], want[60];
        CHECK_EQ(cnt.inner.ops->read(cnt.inner.ctx, at, h, sizeof(h)), 0);
        if (memcmp(h, "SLSG", 4))
            continue; /* free */
        CHECK_EQ(h[4], 4); /* managed media: chunks of one page, parts, no pieces */
        memcpy(want, h, sizeof(want));
        want[4] = 3;
        uint32_t sum = sl_crc32c(0, want, 56);
        for (int b = 0; b < 4; b++)
            want[56 + b] = (uint8_t)(sum >> (8 * b));
        for (int b = 0; b < 60; b++)
            if (want[b] != h[b])
                CHECK_EQ(sts_test_flip(&sim, at + (uint64_t)b, (uint8_t)(want[b] ^ h[b])), 0);
    }
    CHECK_EQ(sl_mount(&lg, &cfg), 0);
    CHECK_EQ(lg.version, 3);
    CHECK_EQ(lg.part, 0);
    uint64_t first = lg.next_gseq;
    uint32_t seg = lg.cur_seg, chunk = lg.next_chunk;
    static uint8_t data[300];
    for (uint32_t i = 0; i < 100; i++) {
        part_bytes_of(PART_RECS + i, data, 300);
        int rc = sl_append(&lg, part_ids[0], 1ull << 50 | i, data, 300);
        if (rc == SL_EFULL && !(rc = pump_all()))
            rc = sl_append(&lg, part_ids[0], 1ull << 50 | i, data, 300);
        CHECK_EQ(rc, 0);
    }
    CHECK_EQ(sl_sync(&lg), 0);
    CHECK(lg.cur_seg != seg || lg.next_chunk > chunk);
    /* the chunks written since: flags without a part, records at offset 52 */
    uint32_t data_chunks = 0;
    for (uint32_t c = lg.hdr_chunks; c < lg.next_chunk; c++) {
        uint8_t h[64];
        CHECK_EQ(cnt.inner.ops->read(cnt.inner.ctx, (uint64_t)lg.cur_seg * lg.seg_bytes +
                                                        (uint64_t)c * 4096, h, sizeof(h)), 0);
        if (h[2] != 1)
            continue;
        data_chunks++;
        CHECK_EQ(h[3] >> 4, 0);
    }
    CHECK(data_chunks >= 7); /* 30 KB of records in 4 KiB chunks, one segment */
    struct sl_iter it;
    struct sl_record r;
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, 0, first), 0);
    for (uint32_t i = 0; i < 100; i++) {
        CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
        part_bytes_of(PART_RECS + i, data, 300);
        CHECK(r.ts == (1ull << 50 | i) && r.len == 300 && !memcmp(r.data, data, 300));
    }
    CHECK_EQ(sl_iter_next(&it, &r), SL_ENOENT);
}

/* A steady stream is found where its timestamps say it should be: the
 * first header read is a guess between the segment's start and the next
 * one's (both in RAM), the next steps to the neighbour; bisection alone
 * took log2(64) = 6 reads. By sequence number the same. */
/* The first record of stream id at or after ts `want` (by_ts), or at
 * sequence number `want`, into *r; *most grows to the reads the search took. */
static int search(uint16_t id, int by_ts, uint64_t want, struct sl_record *r, uint64_t *most)
{
    struct sl_iter it;
    uint64_t reads = cnt.reads;
    int rc = by_ts ? sl_iter_from_ts(&lg, &it, id, want) : sl_iter_from_gseq(&lg, &it, id, want);
    uint64_t n = cnt.reads - reads;
    *most = n > *most ? n : *most;
    return rc ? rc : sl_iter_next(&it, r);
}

static void a_steady_stream_is_found_in_three_header_reads(void)
{
    CHECK_EQ(nor_log(1024 * 1024, 64 * 1024), 0); /* 64 chunks a segment */
    uint16_t id;
    CHECK_EQ(sl_stream_create(&lg, "imu", &id), 0);
    uint64_t k = 0, ts = 1;
    CHECK_EQ(append_rounds(&id, 1, &k, 8000, &ts), 0); /* several segments */
    CHECK_EQ(sl_sync(&lg), 0);
    uint64_t most = 0, searches = 0;
    struct sl_record r;
    for (uint64_t want = 1; want < ts; want += 331, searches++) {
        uint64_t at = want + (10 - (want - 1) % 10) % 10; /* stamps 1, 11, 21, ... */
        CHECK_EQ(search(id, 1, want, &r, &most), SL_OK);
        CHECK_EQ(r.ts, at);
        CHECK_EQ(search(id, 0, r.gseq, &r, &most), SL_OK);
        CHECK_EQ(r.ts, at);
    }
    CHECK(searches > 200);
    CHECK(most <= 3);
    /* after a mount the newest segment's data ends where mount found it,
     * not at the segment's end: the guess must know */
    CHECK_EQ(sl_mount(&lg, &cfg), 0);
    most = 0;
    for (uint64_t want = ts - 5000; want < ts; want += 97) {
        CHECK_EQ(search(id, 1, want, &r, &most), SL_OK);
        CHECK_EQ(r.ts, want + (10 - (want - 1) % 10) % 10);
    }
    CHECK(most <= 3);

    /* a clock that jumps (a day, in the middle of a segment) misleads the
     * guess: the search still finds every record, in at most twice
     * bisection's reads */
    CHECK_EQ(nor_log(1024 * 1024, 64 * 1024), 0);
    CHECK_EQ(sl_stream_create(&lg, "imu", &id), 0);
    k = 0;
    ts = 1;
    CHECK_EQ(append_rounds(&id, 1, &k, 1200, &ts), 0);
    uint64_t jump_at = ts;
    ts += 86400000000ull;
    CHECK_EQ(append_rounds(&id, 1, &k, 1200, &ts), 0);
    CHECK_EQ(sl_sync(&lg), 0);
    most = 0;
    for (uint64_t i = 0; i < 2400; i += 37) {
        uint64_t want = i < 1200 ? 1 + 10 * i : jump_at + 86400000000ull + 10 * (i - 1200);
        CHECK_EQ(search(id, 1, want, &r, &most), SL_OK);
        CHECK_EQ(r.ts, want);
        CHECK(record_ok(&r, i));
    }
    CHECK(most <= 2 * 6 + 1);
}

static void searches_by_time_and_sequence_read_log_n_chunks(void)
{
    CHECK_EQ(nor_log(1024 * 1024, 65536), 0);
    uint16_t ids[2];
    CHECK_EQ(sl_stream_create(&lg, "a", &ids[0]), 0);
    CHECK_EQ(sl_stream_create(&lg, "b", &ids[1]), 0);
    uint64_t k[2] = {0}, ts = 100;
    CHECK_EQ(append_rounds(ids, 2, k, 12000, &ts), 0); /* ts 100 .. 240090 */
    CHECK_EQ(sl_sync(&lg), 0);
    struct sl_iter it;
    struct sl_record r;
    uint64_t before = cnt.reads;
    CHECK_EQ(sl_iter_from_ts(&lg, &it, ids[1], 150005), 0);
    CHECK_EQ(sl_iter_next(&it, &r), 0);
    /* 64 chunks per segment: 6 bisection steps, then the chunk itself */
    CHECK(cnt.reads - before <= 8);
    CHECK_EQ(r.ts, 150010); /* b's records sit at 110, 130, ...: first >= 150005 */
    CHECK(record_ok(&r, (150010 - 110) / 20));
    before = cnt.reads;
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, 0, 20001), 0);
    CHECK_EQ(sl_iter_next(&it, &r), 0);
    CHECK(cnt.reads - before <= 8);
    CHECK_EQ(r.gseq, 20001);
    CHECK_EQ(r.stream, ids[1]);
    CHECK(record_ok(&r, 10000));
    /* past the end: nothing, and no error */
    CHECK_EQ(sl_iter_from_ts(&lg, &it, ids[0], 10000000), 0);
    CHECK_EQ(sl_iter_next(&it, &r), SL_ENOENT);
}

/* Power cut during every one of the first device commands after a sync
 * point: what was synced before the cut reads back intact, nothing else
 * reads back wrong, and the log mounts and goes on. */
static void power_cuts_lose_nothing_synced(void)
{
    for (uint64_t cut = 1; cut <= 60; cut += 3) {
        CHECK_EQ(nor_log(256 * 1024, 8192), 0);
        uint16_t id;
        CHECK_EQ(sl_stream_create(&lg, "imu", &id), 0);
        uint64_t k = 0, ts = 1;
        CHECK_EQ(append_rounds(&id, 1, &k, 200, &ts), 0);
        CHECK_EQ(sl_sync(&lg), 0);
        uint64_t synced = k;
        struct sts_sim_faults f = {.cut_after_ops = sim.host_ops + cut};
        sts_sim_set_faults(&sim, &f);
        int rc = append_rounds(&id, 1, &k, 3000, &ts); /* ~60 KB: ~70 commands */
        if (!rc)
            rc = sl_sync(&lg);
        CHECK_EQ((uint64_t)(int64_t)rc, (uint64_t)(int64_t)SL_EIO); /* the cut came */
        sts_sim_power_on(&sim);
        struct sts_sim_faults none = {0};
        sts_sim_set_faults(&sim, &none);
        CHECK_EQ(sl_mount(&lg, &cfg), 0);
        CHECK_EQ(sl_stream_open(&lg, "imu", &id), 0);
        struct sl_iter it;
        struct sl_record r;
        CHECK_EQ(sl_iter_from_gseq(&lg, &it, id, 0), 0);
        uint64_t n = 0;
        while (sl_iter_next(&it, &r) == SL_OK) {
            CHECK_EQ(r.gseq, n);
            CHECK(record_ok(&r, n));
            n++;
        }
        CHECK(n >= synced);
        /* and the log takes new records after the last one that survived */
        uint64_t k2 = n;
        CHECK_EQ(append_rounds(&id, 1, &k2, 20, &ts), 0);
        CHECK_EQ(sl_sync(&lg), 0);
        CHECK_EQ(read_back(id, 0, n + 20), 0);
    }
}

static void managed_media_and_the_nonblocking_path(void)
{
    CHECK_EQ(medium("emmc-stm32u5", 1024 * 1024, 65536, 1), 0);
    CHECK_EQ(sl_format(&lg, &cfg), 0); /* defaults: 4 KiB chunks, 64 KiB segments */
    uint16_t id;
    CHECK_EQ(sl_stream_create(&lg, "imu", &id), 0);
    uint64_t k = 0, ts = 1;
    CHECK_EQ(append_rounds(&id, 1, &k, 20000, &ts), 0); /* ~0.5 MB: wraps the 1 MiB? no: half */
    CHECK_EQ(sl_sync(&lg), 0);
    CHECK(cnt.submits > 0);            /* programs went through submit/poll */
    CHECK_EQ(cnt.programs, cnt.submits);
    CHECK_EQ(read_back(id, 0, 20000), 0);
    CHECK_EQ(sl_mount(&lg, &cfg), 0);
    CHECK_EQ(read_back(id, 0, 20000), 0);
}

static void streams_cost_the_same_however_many_there_are(void)
{
    CHECK_EQ(nor_log(512 * 1024, 8192), 0);
    char name[8] = "s00";
    uint16_t id = 0;
    uint64_t cost[2] = {0};
    uint32_t max = lg.max_streams; /* what a 1 KiB chunk's catalog holds */
    CHECK_EQ(max, (1024 - 56) / 24);
    for (uint32_t i = 0; i < max; i++) {
        name[1] = (char)('0' + i / 10);
        name[2] = (char)('0' + i % 10);
        CHECK_EQ(pump_all(), 0);
        uint64_t before = device_ops();
        CHECK_EQ(sl_stream_create(&lg, name, &id), 0);
        CHECK_EQ(device_ops(), before); /* create itself: RAM only */
        CHECK_EQ(pump_all(), 0);
        if (i == 1 || i == max - 1)
            cost[i == 1 ? 0 : 1] = device_ops() - before;
    }
    CHECK_EQ(cost[0], cost[1]); /* one catalog chunk, 2 streams or 40 */
    CHECK_EQ(cost[0], 2);       /* written twice: a damaged copy loses no name */
    CHECK_EQ(sl_stream_create(&lg, "one-too-many", &id), SL_ENOSPC);
    CHECK_EQ(sl_stream_delete(&lg, id), 0);
    CHECK_EQ(sl_stream_create(&lg, "one-too-many", &id), 0);
    CHECK_EQ(sl_stream_create(&lg, "a-name-far-too-long", &id), SL_EINVAL);
}

/* ---- appends from several tasks at once ---------------------------------- */
struct producer {
    struct sts_task task;
    uint16_t id;
    uint64_t k, n;
    uint64_t sync_every; /* records between sync requests; 0 none */
    int rc;
};
static struct sts_mutex ring_lock;
static volatile int producers_left;

static void port_lock(void *ctx)
{
    sts_port()->mutex_lock(ctx);
}
static void port_unlock(void *ctx)
{
    sts_port()->mutex_unlock(ctx);
}

/* Every task of these tests gives the others a turn at the end of a step.
 * Spinning instead starves the one waiting for a lock on FreeRTOS, whose
 * mutexes are not handed to a waiter: a task preempted inside a lock it
 * takes in a loop (a producer in sl_append, a reader in sl_iter_next)
 * keeps the pump blocked a whole round of time slices, again and again
 * (ThreadX hands a mutex over; pthreads are fair enough). */
static int again(void)
{
    sts_port()->yield();
    return STS_STEP_AGAIN;
}

static int produce_step(void *arg)
{
    struct producer *p = arg;
    uint8_t buf[64];
    for (int i = 0; i < 8 && p->k < p->n; i++) {
        size_t len = make_record(p->id, p->k, buf);
        int rc = sl_append(&lg, p->id, p->k, buf, len);
        if (rc == SL_EFULL)
            return again(); /* the pump task will make room */
        if (rc) {
            p->rc = rc;
            break;
        }
        p->k++;
        if (p->sync_every && p->k % p->sync_every == 0)
            sl_sync_request(&lg);
    }
    if (p->k < p->n && !p->rc)
        return again();
    __atomic_sub_fetch(&producers_left, 1, __ATOMIC_ACQ_REL);
    return STS_STEP_DONE;
}

static int pump_rc;
static int pump_step(void *arg)
{
    (void)arg;
    int rc = sl_pump(&lg);
    if (rc < 0) {
        pump_rc = rc;
        return STS_STEP_DONE;
    }
    return __atomic_load_n(&producers_left, __ATOMIC_ACQUIRE) || rc == SL_BUSY ? again()
                                                                               : STS_STEP_DONE;
}

/* Three producer tasks append while a pump task writes (threads on POSIX,
 * the super loop on the bare-metal port): every stream's records come back
 * whole and in order. ThreadSanitizer runs this in CI. */
static void appends_from_several_tasks(void)
{
    const struct sts_port_ops *port = sts_port();
    CHECK_EQ(nor_log(512 * 1024, 8192), 0);
    CHECK_EQ(port->mutex_init(&ring_lock), 0);
    lg.cfg.lock = port_lock;
    lg.cfg.unlock = port_unlock;
    lg.cfg.lock_ctx = &ring_lock;
    static struct producer prod[3];
    static const char *const names[3] = {"imu", "ppg", "env"};
    producers_left = 3;
    pump_rc = 0;
    for (int i = 0; i < 3; i++) {
        prod[i] = (struct producer){.n = 3000};
        CHECK_EQ(sl_stream_create(&lg, names[i], &prod[i].id), 0);
    }
    struct sts_task pump_task;
    for (int i = 0; i < 3; i++)
        CHECK_EQ(port->task_start(&prod[i].task, produce_step, &prod[i], sts_test_task_attr(i)), 0);
    CHECK_EQ(port->task_start(&pump_task, pump_step, NULL, sts_test_task_attr(3)), 0);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(port->task_join(&prod[i].task), 0);
    CHECK_EQ(port->task_join(&pump_task), 0);
    CHECK_EQ(pump_rc, 0);
    CHECK_EQ(sl_sync(&lg), 0);
    port->mutex_destroy(&ring_lock);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(prod[i].rc, 0);
        CHECK_EQ(read_back(prod[i].id, 0, 3000), 0);
    }
}

/* ---- every call from the context the header allows ------------------------ */
static struct sts_mutex io_mutex;
static struct producer *others_prod;

struct reader {
    struct sts_task task;
    struct sl_iter it;
    uint8_t buf[1024] __attribute__((aligned(8)));
    int started, final_pass;
    uint64_t last[3], seen, passes;
    int rc;
};

/* Reads the whole log again and again while producers append: every
 * record in its stream's order, intact, from the start. */
static int read_step(void *arg)
{
    struct reader *r = arg;
    if (!r->started) {
        r->final_pass = !__atomic_load_n(&producers_left, __ATOMIC_ACQUIRE);
        r->rc = sl_iter_from_gseq(&lg, &r->it, 0, 0);
        if (r->rc)
            return STS_STEP_DONE;
        sl_iter_set_buffer(&r->it, r->buf); /* the pump reuses read_buf meanwhile */
        r->started = 1;
        for (int i = 0; i < 3; i++)
            r->last[i] = UINT64_MAX; /* the first expected is record 0 */
    }
    for (int n = 0; n < 16; n++) {
        struct sl_record rec;
        int rc = sl_iter_next(&r->it, &rec);
        if (rc == SL_ENOENT) {
            r->passes++;
            r->started = 0;
            return r->final_pass ? STS_STEP_DONE : again();
        }
        int i = 0;
        while (i < 3 && others_prod[i].id != rec.stream)
            i++;
        if (rc || i == 3 || rec.ts != r->last[i] + 1 || !record_ok(&rec, rec.ts)) {
            r->rc = rc ? rc : -100 - i;
            return STS_STEP_DONE;
        }
        r->last[i] = rec.ts;
        r->seen++;
    }
    return again();
}

/* Both locks of the calling contract, as port mutexes (io_lock: every call
 * from a task other than the pump's). */
static int both_locks_on(void)
{
    const struct sts_port_ops *port = sts_port();
    int rc = port->mutex_init(&ring_lock);
    if (!rc)
        rc = port->mutex_init(&io_mutex);
    lg.cfg.lock = port_lock;
    lg.cfg.unlock = port_unlock;
    lg.cfg.lock_ctx = &ring_lock;
    lg.cfg.io_lock = port_lock;
    lg.cfg.io_unlock = port_unlock;
    lg.cfg.io_lock_ctx = &io_mutex;
    return rc;
}

static void both_locks_off(void)
{
    lg.cfg.lock = lg.cfg.unlock = lg.cfg.io_lock = lg.cfg.io_unlock = NULL;
    sts_port()->mutex_destroy(&ring_lock);
    sts_port()->mutex_destroy(&io_mutex);
}

struct cataloguer {
    struct sts_task task;
    uint64_t most; /* records the producers append in all */
    uint64_t rounds, last_appended, next_change;
    int rc;
};

/* Statistics are read all along, and a stream comes and goes every 500
 * records appended (as often as that: every change costs the pump two
 * catalog chunks, which go before data, so a change on every step would
 * starve the producers). */
static int catalog_step(void *arg)
{
    struct cataloguer *c = arg;
    uint16_t id, imu;
    struct sl_stats st;
    int rc = 0;
    sl_stats(&lg, &st);
    if (st.appended_records < c->last_appended || st.appended_records > c->most)
        rc = -200; /* a torn or stale counter */
    c->last_appended = st.appended_records;
    if (!rc && st.appended_records >= c->next_change) {
        c->next_change += 500;
        rc = sl_stream_create(&lg, "tmp", &id);
        if (!rc)
            rc = sl_stream_open(&lg, "imu", &imu);
        if (!rc)
            rc = sl_stream_delete(&lg, id);
        c->rounds++;
    }
    if (rc) {
        c->rc = rc;
        return STS_STEP_DONE;
    }
    return __atomic_load_n(&producers_left, __ATOMIC_ACQUIRE) ? again() : STS_STEP_DONE;
}

/* Producers that also ask for syncs, the pump, a reader and a task changing
 * streams and reading statistics, all at once (threads on POSIX: TSan
 * checks the contract of sensorlog.h in CI; the super loop on bare metal).
 * Every record comes back, in order, to the reader and after. */
static void every_call_from_its_own_task(void)
{
    const struct sts_port_ops *port = sts_port();
    CHECK_EQ(nor_log(512 * 1024, 8192), 0);
    CHECK_EQ(both_locks_on(), 0);
    static struct producer prod[3];
    static struct reader rd;
    static struct cataloguer cat;
    static const char *const names[3] = {"imu", "ppg", "env"};
    others_prod = prod;
    producers_left = 3;
    pump_rc = 0;
    memset(&rd, 0, sizeof(rd));
    memset(&cat, 0, sizeof(cat));
    cat.most = 3 * 3000;
    for (int i = 0; i < 3; i++) {
        prod[i] = (struct producer){.n = 3000, .sync_every = 250};
        CHECK_EQ(sl_stream_create(&lg, names[i], &prod[i].id), 0);
    }
    struct sts_task pump_task;
    for (int i = 0; i < 3; i++)
        CHECK_EQ(port->task_start(&prod[i].task, produce_step, &prod[i], sts_test_task_attr(i)), 0);
    CHECK_EQ(port->task_start(&pump_task, pump_step, NULL, sts_test_task_attr(3)), 0);
    CHECK_EQ(port->task_start(&rd.task, read_step, &rd, sts_test_task_attr(4)), 0);
    CHECK_EQ(port->task_start(&cat.task, catalog_step, &cat, sts_test_task_attr(5)), 0);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(port->task_join(&prod[i].task), 0);
    CHECK_EQ(port->task_join(&pump_task), 0);
    CHECK_EQ(port->task_join(&cat.task), 0);
    CHECK_EQ(sl_sync(&lg), 0);
    CHECK_EQ(port->task_join(&rd.task), 0);
    CHECK_EQ(pump_rc, 0);
    CHECK_EQ(rd.rc, 0);
    CHECK_EQ(cat.rc, 0);
    CHECK(rd.passes >= 1 && cat.rounds >= 1);
    struct sl_stats st;
    sl_stats(&lg, &st);
    CHECK_EQ(st.appended_records, 9000);
    CHECK(st.syncs >= 1);
    both_locks_off();
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(prod[i].rc, 0);
        CHECK_EQ(read_back(prod[i].id, 0, 3000), 0);
    }
}

/* ---- readers in other tasks while the log wraps (issue 40) -------------- */
/* A reader of the latest records of one stream (stream != 0), or of the
 * whole log from its oldest record (stream 0): each pass starts a search,
 * lets the other tasks run (the pump may reuse read_buf meanwhile), gives
 * the iterator its own buffer and reads to the end. Every record it gets is
 * its stream's, intact, and the one after the last it got of that stream;
 * SL_EOVERTAKEN (the writer recycled the segment it was in) starts a new
 * pass. */
struct latest_reader {
    struct sts_task task;
    uint16_t stream;
    struct sl_iter it;
    uint8_t buf[1024] __attribute__((aligned(8)));
    int in_pass, final_pass;
    uint64_t last[3], records, passes, overtaken;
    int rc;
};
static struct producer *latest_prod;

static int latest_read_step(void *arg)
{
    struct latest_reader *r = arg;
    if (!r->in_pass) {
        r->final_pass = !__atomic_load_n(&producers_left, __ATOMIC_ACQUIRE);
        r->rc = r->stream ? sl_iter_latest(&lg, &r->it, r->stream, 50)
                          : sl_iter_from_gseq(&lg, &r->it, 0, 0);
        if (r->rc)
            return STS_STEP_DONE;
        sts_port()->yield(); /* the pump's turn between the search and the buffer */
        sl_iter_set_buffer(&r->it, r->buf);
        for (int i = 0; i < 3; i++)
            r->last[i] = UINT64_MAX; /* the first of a stream: any record */
        r->in_pass = 1;
    }
    for (int n = 0; n < 16; n++) {
        struct sl_record rec;
        int rc = sl_iter_next(&r->it, &rec);
        if (rc == SL_ENOENT || rc == SL_EOVERTAKEN) {
            r->overtaken += rc == SL_EOVERTAKEN;
            r->passes++;
            r->in_pass = 0;
            return r->final_pass && rc == SL_ENOENT ? STS_STEP_DONE : again();
        }
        int i = 0;
        while (i < 3 && latest_prod[i].id != rec.stream)
            i++;
        if (rc || i == 3 || (r->stream && rec.stream != r->stream) ||
            (r->last[i] != UINT64_MAX && rec.ts != r->last[i] + 1) || !record_ok(&rec, rec.ts)) {
            r->rc = rc ? rc : -100 - i;
            return STS_STEP_DONE;
        }
        r->last[i] = rec.ts;
        r->records++;
    }
    return again();
}

/* Producers, the pump, two readers of the latest records and one of the
 * whole log, and a task creating and deleting streams, on a log that wraps
 * twice: no reader ever gets a record that is not the one it asked for
 * (with the search's chunk copied out of read_buf after the pump reused
 * it, readers got other records: issue 40 counted 788 in 4.75 M reads). */
static void readers_in_other_tasks_get_their_records_or_overtaken(void)
{
    const struct sts_port_ops *port = sts_port();
    CHECK_EQ(nor_log(128 * 1024, 8192), 0);
    CHECK_EQ(both_locks_on(), 0);
    static struct producer prod[3];
    static struct latest_reader rd[3];
    static struct cataloguer cat;
    static const char *const names[3] = {"imu", "ppg", "env"};
    latest_prod = prod;
    producers_left = 3;
    pump_rc = 0;
    memset(&cat, 0, sizeof(cat));
    cat.most = 3 * 6000;
    for (int i = 0; i < 3; i++) {
        prod[i] = (struct producer){.n = 6000, .sync_every = 500};
        CHECK_EQ(sl_stream_create(&lg, names[i], &prod[i].id), 0);
    }
    struct sts_task pump_task;
    for (int i = 0; i < 3; i++) {
        memset(&rd[i], 0, sizeof(rd[i]));
        rd[i].stream = i < 2 ? prod[i].id : 0;
    }
    for (int i = 0; i < 3; i++)
        CHECK_EQ(port->task_start(&prod[i].task, produce_step, &prod[i], sts_test_task_attr(i)), 0);
    CHECK_EQ(port->task_start(&pump_task, pump_step, NULL, sts_test_task_attr(3)), 0);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(port->task_start(&rd[i].task, latest_read_step, &rd[i], sts_test_task_attr(4 + i)),
                 0);
    CHECK_EQ(port->task_start(&cat.task, catalog_step, &cat, sts_test_task_attr(7)), 0);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(port->task_join(&prod[i].task), 0);
    CHECK_EQ(port->task_join(&pump_task), 0);
    CHECK_EQ(port->task_join(&cat.task), 0);
    CHECK_EQ(sl_sync(&lg), 0);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(port->task_join(&rd[i].task), 0);
    both_locks_off();
    CHECK_EQ(pump_rc, 0);
    CHECK_EQ(cat.rc, 0);
    struct sl_stats st;
    sl_stats(&lg, &st);
    CHECK(st.evictions >= 2 * 15); /* the log wrapped twice: segments were recycled */
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(prod[i].rc, 0);
        CHECK_EQ(rd[i].rc, 0);
        CHECK(rd[i].passes >= 1 && rd[i].records >= 1);
    }
}

/* A sync while records keep coming: it closes the chunk at what was appended
 * before it and completes, instead of writing a chunk per new record (a
 * bug the NOR benchmark found: write amplification 21). */
static void sync_completes_while_records_keep_coming(void)
{
    CHECK_EQ(nor_log(512 * 1024, 8192), 0);
    uint16_t id;
    uint8_t buf[64];
    CHECK_EQ(sl_stream_create(&lg, "imu", &id), 0);
    uint64_t k = 0;
    for (; k < 30; k++)
        CHECK_EQ(sl_append(&lg, id, k, buf, make_record(id, k, buf)), 0);
    sl_sync_request(&lg);
    uint64_t programs = cnt.programs, pumps = 0, flushes = cnt.flushes;
    while (lg.sync_wanted && pumps < 1000) {
        CHECK_EQ(sl_append(&lg, id, k, buf, make_record(id, k, buf)), 0); /* one per pump */
        k++;
        int rc = sl_pump(&lg);
        CHECK(rc >= 0);
        pumps++;
    }
    CHECK(!lg.sync_wanted);
    /* the catalog chunk (twice), then the 30 records: no chunk per record */
    CHECK(cnt.programs - programs <= 3);
    CHECK_EQ(cnt.flushes - flushes, 1);
    CHECK_EQ(sl_sync(&lg), 0);
    CHECK_EQ(read_back(id, 0, k), 0);
}

/* A catalog of several pages: creates and deletes rewrite one page each,
 * a segment takes at most 32 of them, and mount rebuilds the catalog from
 * the newest segment's pages and updates. */
static void catalog_pages_survive_mount(void)
{
    CHECK_EQ(medium("nor-spi", 512 * 1024, 0, 0), 0);
    cfg.chunk_bytes = 1024;      /* 40 entries a page */
    cfg.segment_bytes = 16384;   /* 16 chunks: a header and 5 pages, then data */
    cfg.max_streams = 200;
    CHECK_EQ(sl_format(&lg, &cfg), 0);
    CHECK_EQ(lg.n_pages, 5);
    char name[8] = "s000";
    uint16_t ids[150];
    for (int i = 0; i < 150; i++) {
        name[1] = (char)('0' + i / 100);
        name[2] = (char)('0' + i / 10 % 10);
        name[3] = (char)('0' + i % 10);
        uint64_t before = cnt.programs;
        CHECK_EQ(sl_stream_create(&lg, name, &ids[i]), 0);
        CHECK_EQ(pump_all(), 0);
        /* one page chunk, written twice; every 32 updates a fresh segment:
         * header and 5 pages (and the erases ahead the idle pump does, not
         * counted here) */
        uint64_t programs = cnt.programs - before;
        CHECK(programs == 2 || programs == 1 + 5 || programs == 2 + 1 + 5);
    }
    for (int i = 0; i < 150; i += 3)
        CHECK_EQ(sl_stream_delete(&lg, ids[i]), 0);
    uint64_t k = 0, ts = 1;
    CHECK_EQ(append_rounds(&ids[149], 1, &k, 100, &ts), 0);
    CHECK_EQ(sl_sync(&lg), 0);
    uint64_t before = cnt.reads;
    CHECK_EQ(sl_mount(&lg, &cfg), 0);
    /* headers, 5 pages, the bisection, the last chunk and at most 32 updates */
    CHECK(cnt.reads - before <= 32 + 5 + 5 + 1 + 32);
    for (int i = 0; i < 150; i++) {
        name[1] = (char)('0' + i / 100);
        name[2] = (char)('0' + i / 10 % 10);
        name[3] = (char)('0' + i % 10);
        uint16_t id = 0;
        if (i % 3 == 0) {
            CHECK_EQ(sl_stream_open(&lg, name, &id), SL_ENOENT);
        } else {
            CHECK_EQ(sl_stream_open(&lg, name, &id), 0);
            CHECK_EQ(id, ids[i]);
        }
    }
    CHECK_EQ(read_back(ids[149], 0, 100), 0);
}

/* Raw NAND with factory bad blocks and program failures: bad blocks are
 * retired, failed writes are redone in the next segment, and every record
 * still reads back in order. */
static void bad_blocks_and_failed_programs_on_nand(void)
{
    struct sts_sim_params p = *sts_sim_profile_find("nand-slc");
    p.capacity = 1024 * 1024;
    p.erase_bytes = 16384;
    p.bad_permille = 100;
    CHECK(sts_sim_arena_bytes(&p, p.capacity) <= sizeof(arena));
    memset(&cnt, 0, sizeof(cnt));
    CHECK_EQ(sts_sim_init(&sim, &p, 3, arena, sizeof(arena), p.capacity, &cnt.inner), 0);
    memset(&cfg, 0, sizeof(cfg));
    cfg = (struct sl_config){.bd = {&counting_ops, &cnt}, .chunk_bytes = 2048,
                             .segment_bytes = 16384, .buffer = ring,
                             .buffer_bytes = sizeof(ring), .chunk_buf = chunk_buf,
                             .read_buf = read_buf, .segs = segs, .n_segs = N_SEGS,
                             .streams = streams, .max_streams = 64};
    CHECK_EQ(sl_format(&lg, &cfg), 0);
    struct sl_stats st;
    uint16_t id;
    CHECK_EQ(sl_stream_create(&lg, "imu", &id), 0);
    struct sts_sim_faults f = {.prog_error_ppm = 20000}; /* 2 % of programs fail */
    sts_sim_set_faults(&sim, &f);
    uint64_t k = 0, ts = 1;
    CHECK_EQ(append_rounds(&id, 1, &k, 40000, &ts), 0); /* ~0.8 MB: wraps */
    CHECK_EQ(sl_sync(&lg), 0);
    sl_stats(&lg, &st);
    CHECK(st.write_errors > 0);
    CHECK(st.bad_segments > 0); /* the seed gives this medium some: found as it wraps */
    uint64_t first, g, n;
    CHECK_EQ(read_kept(id, &first, &g, &n), 0);
    CHECK_EQ(g, k - 1); /* nothing lost at the end, contiguous from the oldest kept */
    CHECK(n > 10000);
    /* and mount finds the same */
    struct sts_sim_faults none = {0};
    sts_sim_set_faults(&sim, &none);
    CHECK_EQ(sl_mount(&lg, &cfg), 0);
    uint64_t first2, last2, n2;
    CHECK_EQ(read_kept(id, &first2, &last2, &n2), 0);
    CHECK_EQ(first2, first);
    CHECK_EQ(last2, g);
    CHECK_EQ(n2, n);
}

/* ---- the facade: sensorlog as a storscope filesystem ---------------------- */
static struct sts_slfs slfs;
static struct sts_slfs_file slfs_files[64];

static int facade(struct sts_fs *fs)
{
    int rc = medium("emmc-stm32u5", 1024 * 1024, 65536, 0);
    if (rc)
        return rc;
    struct sts_slfs_config fc = {.log = cfg, .files = slfs_files, .n_files = 64};
    fc.log.chunk_bytes = 4096;
    fc.log.segment_bytes = 65536;
    return sts_slfs_init(&slfs, &fc, fs);
}

/* The facade cuts writes into records of up to STS_SLFS_RECORD_MAX bytes; a
 * RAM buffer that cannot hold one is refused at init, before the medium is
 * touched (it was taken, and the first long write failed with STS_ENOMEM). */
static void facade_refuses_a_buffer_too_small_for_a_record(void)
{
    struct sts_fs fs;
    CHECK_EQ(medium("emmc-stm32u5", 1024 * 1024, 65536, 0), 0);
    struct sts_slfs_config fc = {.log = cfg, .files = slfs_files, .n_files = 64};
    fc.log.chunk_bytes = 4096;
    fc.log.segment_bytes = 65536;
    fc.log.buffer_bytes = 12 + 254; /* a ring header (12 B) and one byte short of a record */
    CHECK_EQ(sts_slfs_init(&slfs, &fc, &fs), STS_EINVAL);
    CHECK_EQ(cnt.programs + cnt.erases, 0);
    fc.log.buffer_bytes = 12 + 255;
    CHECK_EQ(sts_slfs_init(&slfs, &fc, &fs), 0);
    const struct sts_fs_ops *o = fs.ops;
    sts_fh a;
    uint8_t buf[2000], got[2000];
    size_t done;
    for (int i = 0; i < 2000; i++)
        buf[i] = (uint8_t)(i * 31 + 7);
    CHECK_EQ(o->open(fs.ctx, "a", STS_O_WRONLY | STS_O_CREAT | STS_O_TRUNC, &a), 0);
    CHECK_EQ(o->write(fs.ctx, a, buf, sizeof(buf), &done), 0); /* eight records, one at a time */
    CHECK_EQ(done, sizeof(buf));
    CHECK_EQ(o->sync(fs.ctx, a, STS_SYNC_DATA), 0);
    CHECK_EQ(o->seek(fs.ctx, a, 0), 0);
    CHECK_EQ(o->read(fs.ctx, a, got, sizeof(got), &done), 0);
    CHECK_EQ(done, sizeof(got));
    CHECK(!memcmp(buf, got, sizeof(got)));
    CHECK_EQ(o->close(fs.ctx, a), 0);
}

static void facade_files_append_and_read_anywhere(void)
{
    struct sts_fs fs;
    CHECK_EQ(facade(&fs), 0);
    const struct sts_fs_ops *o = fs.ops;
    sts_fh a, b;
    CHECK_EQ(o->mkdir(fs.ctx, "d"), 0);
    CHECK_EQ(o->open(fs.ctx, "d/a", STS_O_WRONLY | STS_O_CREAT | STS_O_TRUNC, &a), 0);
    CHECK_EQ(o->open(fs.ctx, "b", STS_O_WRONLY | STS_O_CREAT | STS_O_TRUNC, &b), 0);
    /* two files written in turns: each keeps its bytes in order */
    uint8_t buf[1000], got[1000];
    size_t done;
    for (int round = 0; round < 40; round++) { /* 40 stretches: past 32 the last is scanned */
        for (int i = 0; i < 1000; i++)
            buf[i] = (uint8_t)(round * 7 + i);
        CHECK_EQ(o->write(fs.ctx, a, buf, 1000, &done), 0);
        CHECK_EQ(done, 1000);
        CHECK_EQ(o->write(fs.ctx, b, buf, 300, &done), 0);
    }
    CHECK_EQ(o->seek(fs.ctx, a, 10), 0);
    CHECK_EQ(o->write(fs.ctx, a, buf, 10, &done), STS_ENOTSUP); /* append-only */
    CHECK_EQ(o->sync(fs.ctx, a, STS_SYNC_DATA), 0);
    struct sts_stat st;
    CHECK_EQ(o->stat(fs.ctx, "d/a", &st), 0);
    CHECK_EQ(st.size, 40000);
    CHECK_EQ(o->stat(fs.ctx, "d", &st), 0);
    CHECK(st.is_dir);
    CHECK_EQ(o->close(fs.ctx, a), 0);
    CHECK_EQ(o->open(fs.ctx, "d/a", STS_O_RDONLY, &a), 0);
    /* positioned reads anywhere, including across records and runs */
    static const uint64_t offs[] = {0, 1, 254, 255, 999, 1000, 20123, 39990};
    for (size_t k = 0; k < sizeof(offs) / sizeof(offs[0]); k++) {
        uint64_t before = cnt.reads;
        CHECK_EQ(o->seek(fs.ctx, a, offs[k]), 0);
        CHECK_EQ(o->read(fs.ctx, a, got, 10, &done), 0);
        CHECK_EQ(done, offs[k] + 10 > 40000 ? 40000 - offs[k] : 10);
        for (size_t i = 0; i < done; i++) {
            uint64_t at = offs[k] + i;
            CHECK_EQ(got[i], (uint8_t)((at / 1000) * 7 + at % 1000));
        }
        if (offs[k] < 32000) /* the first 32 stretches are indexed */
            /* a search, not a scan: a bisection, plus a look past the end
             * of a segment's data (a damaged chunk is told from the end by
             * the chunk after it) */
            CHECK(cnt.reads - before <= 9);
    }
    /* sequential read of the whole file */
    CHECK_EQ(o->seek(fs.ctx, a, 0), 0);
    uint64_t total = 0;
    while (o->read(fs.ctx, a, got, 777, &done) == 0 && done) {
        for (size_t i = 0; i < done; i++) {
            uint64_t at = total + i;
            CHECK_EQ(got[i], (uint8_t)((at / 1000) * 7 + at % 1000));
        }
        total += done;
    }
    CHECK_EQ(total, 40000);
    CHECK_EQ(o->close(fs.ctx, a), 0);
    CHECK_EQ(o->close(fs.ctx, b), 0);
    CHECK_EQ(o->unlink(fs.ctx, "d/a"), 0);
    CHECK_EQ(o->open(fs.ctx, "d/a", STS_O_RDONLY, &a), STS_ENOENT);
    CHECK_EQ(o->open(fs.ctx, "a-name-too-long-for-it", STS_O_RDONLY | STS_O_CREAT, &a),
             STS_EINVAL);
    struct sts_statvfs sv;
    CHECK_EQ(o->statvfs(fs.ctx, &sv), 0);
    /* what the files hold, about 5 bytes of record header per 255: b is left */
    CHECK_EQ(sv.total_bytes - sv.free_bytes, 40 * 300 + (40 * 300 + 254) / 255 * 5);
}

/* A file whose start the circular log has wrapped past: a read there says
 * so (STS_EEVICTED, "evicted: ..."), not "out of range" - what B0 printed
 * on a 4 MiB NOR whose 64 KiB segments were mostly catalog copies. The end
 * of the file still reads. */
static void facade_read_of_an_evicted_start_says_evicted(void)
{
    struct sts_fs fs;
    CHECK_EQ(facade(&fs), 0);
    const struct sts_fs_ops *o = fs.ops;
    sts_fh a;
    uint8_t buf[1000], got[10];
    size_t done;
    for (int i = 0; i < 1000; i++)
        buf[i] = (uint8_t)i;
    CHECK_EQ(o->open(fs.ctx, "a", STS_O_WRONLY | STS_O_CREAT | STS_O_TRUNC, &a), 0);
    for (int round = 0; round < 2000; round++) { /* 2 MB into a 1 MiB log: it wraps */
        CHECK_EQ(o->write(fs.ctx, a, buf, sizeof(buf), &done), 0);
        CHECK_EQ(done, sizeof(buf));
    }
    CHECK_EQ(o->sync(fs.ctx, a, STS_SYNC_DATA), 0);
    CHECK_EQ(o->seek(fs.ctx, a, 0), 0);
    CHECK_EQ(o->read(fs.ctx, a, got, sizeof(got), &done), STS_EEVICTED);
    CHECK(strstr(sts_strerror(STS_EEVICTED), "evicted") != NULL);
    CHECK_EQ(o->seek(fs.ctx, a, 2000000 - 10), 0);
    CHECK_EQ(o->read(fs.ctx, a, got, sizeof(got), &done), 0);
    CHECK_EQ(done, 10);
    CHECK_EQ(got[0], (uint8_t)990);
    CHECK_EQ(o->close(fs.ctx, a), 0);
}

/* A file written in pieces of every size 1..600 reads back at every offset
 * (positioned reads used to fail with STS_ECORRUPT unless the file had been
 * written in multiples of 255 bytes: a record was assumed to be 255 long).
 * Offsets are visited in a stride, so each read positions afresh. */
static void facade_reads_any_offset_of_a_file_written_in_pieces(void)
{
    struct sts_fs fs;
    CHECK_EQ(facade(&fs), 0);
    const struct sts_fs_ops *o = fs.ops;
    sts_fh a, b;
    CHECK_EQ(o->open(fs.ctx, "a", STS_O_WRONLY | STS_O_CREAT | STS_O_TRUNC, &a), 0);
    CHECK_EQ(o->open(fs.ctx, "b", STS_O_WRONLY | STS_O_CREAT | STS_O_TRUNC, &b), 0);
    static uint8_t buf[600];
    uint64_t size = 0;
    size_t done;
    for (uint32_t piece = 1; piece <= 600; piece++) {
        for (uint32_t i = 0; i < piece; i++)
            buf[i] = (uint8_t)(sts_mix64(size + i) >> 13);
        CHECK_EQ(o->write(fs.ctx, a, buf, piece, &done), 0);
        size += piece;
        if (piece % 97 == 0) /* now and then another file's bytes in between */
            CHECK_EQ(o->write(fs.ctx, b, buf, 5, &done), 0);
    }
    CHECK_EQ(size, 600u * 601u / 2u);
    CHECK_EQ(o->sync(fs.ctx, a, STS_SYNC_DATA), 0);
    CHECK_EQ(o->close(fs.ctx, a), 0);
    CHECK_EQ(o->open(fs.ctx, "a", STS_O_RDONLY, &a), 0);
    /* every offset of the first 2,000 bytes (pieces 1..62), then the first,
     * middle and last byte of every piece; each read positions afresh */
    uint64_t bad_at = UINT64_MAX, piece_start = 0;
    int bad_rc = 0;
    for (uint64_t at = 0; at < size && bad_at == UINT64_MAX;) {
        uint8_t got[3];
        CHECK_EQ(o->seek(fs.ctx, a, at), 0);
        int rc = o->read(fs.ctx, a, got, sizeof(got), &done);
        int ok = rc == 0 && done == (size - at < 3 ? size - at : 3);
        for (size_t i = 0; ok && i < done; i++)
            ok = got[i] == (uint8_t)(sts_mix64(at + i) >> 13);
        if (!ok) {
            bad_at = at;
            bad_rc = rc;
        }
        if (at < 2000) {
            at++;
            continue;
        }
        /* the piece holding `at`: pieces 1, 2, ... start at k(k-1)/2 */
        uint64_t k = 1;
        while ((k + 1) * k / 2 <= at)
            k++;
        piece_start = k * (k - 1) / 2;
        uint64_t mid = piece_start + k / 2, last = piece_start + k - 1;
        at = at < mid ? mid : at < last ? last : last + 1;
    }
    CHECK_EQ(bad_rc, 0);
    CHECK_EQ(bad_at, UINT64_MAX); /* names the first offset that read wrong */
    CHECK_EQ(o->close(fs.ctx, a), 0);
    CHECK_EQ(o->close(fs.ctx, b), 0);
}

/* The engine's workloads on the facade, with every read verified. */
/* Issue 13.2: after a power cut the facade mounts the log again and looks
 * for every byte its last sync made durable. The check must pass after a
 * cut, and must fail - naming the file - when synced bytes are gone. */
static long find_bytes(const uint8_t *hay, size_t n, const uint8_t *needle, size_t k)
{
    for (size_t i = 0; i + k <= n; i++)
        if (!memcmp(hay + i, needle, k))
            return (long)i;
    return -1;
}

static void facade_checks_what_a_cut_may_not_take(void)
{
    struct sts_fs fs;
    CHECK_EQ(facade(&fs), 0);
    sts_fh a, b;
    static uint8_t data[20000];
    for (size_t i = 0; i < sizeof(data); i++)
        data[i] = (uint8_t)(sts_mix64(i) >> 9);
    size_t done;
    CHECK_EQ(fs.ops->open(fs.ctx, "a", STS_O_WRONLY | STS_O_CREAT, &a), 0);
    CHECK_EQ(fs.ops->open(fs.ctx, "b", STS_O_WRONLY | STS_O_CREAT, &b), 0);
    CHECK_EQ(fs.ops->write(fs.ctx, a, data, 7000, &done), 0);
    CHECK_EQ(fs.ops->write(fs.ctx, b, data + 7000, 5000, &done), 0);
    CHECK_EQ(fs.ops->sync(fs.ctx, a, STS_SYNC_DATA), 0);
    CHECK_EQ(fs.ops->write(fs.ctx, a, data + 12000, 8000, &done), 0); /* never synced */
    sts_sim_power_cut(&sim);
    sts_sim_power_on(&sim);
    uint32_t files;
    uint64_t bytes;
    char why[160];
    CHECK_EQ(sts_slfs_check_after_cut(&slfs, &files, &bytes, why, sizeof(why)), 0);
    CHECK_EQ(files, 2);
    CHECK_EQ(bytes, 12000); /* what the sync covered, not the 8000 after it */
    /* the same medium with one synced byte of file b changed: b's chunk no
     * longer checks, its records are passed over and its end is missing */
    uint64_t at = 0;
    uint8_t probe[4096];
    for (; at < 1024 * 1024; at += 4096) /* the chunk holding b's bytes (torn pages fail) */
        if (!cnt.inner.ops->read(cnt.inner.ctx, at, probe, sizeof(probe)) &&
            find_bytes(probe, sizeof(probe), data + 7000 + 255 * 8 + 10, 64) >= 0)
            break;
    CHECK(at < 1024 * 1024);
    if (at >= 1024 * 1024)
        return;
    probe[find_bytes(probe, sizeof(probe), data + 7000 + 255 * 8 + 10, 64)] ^= 0x10;
    uint32_t pb = sim.p.page_bytes;
    for (uint32_t i = 0; i < sizeof(probe); i++) { /* behind the model's back */
        uint32_t page = (uint32_t)((at + i) / pb);
        sim.store[(size_t)(sim.store_map[page] - 1) * pb + (at + i) % pb] = probe[i];
    }
    CHECK_EQ(sts_slfs_check_after_cut(&slfs, &files, &bytes, why, sizeof(why)), STS_ECORRUPT);
    CHECK(!strncmp(why, "file b: ", 8));
}

static void workloads_run_on_the_facade(void)
{
    static struct sts_target t;
    memset(&t, 0, sizeof(t));
    CHECK_EQ(facade(&t.fs), 0);
    sts_sim_clock(&sim, &t.clock);
    t.kind = "sensorlog";
    t.flags = STS_T_KEEPS_DATA | STS_T_VIRTUAL_TIME | STS_T_APPEND_ONLY;
    /* what fits a 1 MiB medium: dd-style seq (its --size), L1, and fsync */
    const struct sts_test_def *tests[] = {sts_test_find("seq"), sts_test_find("L1"),
                                          sts_test_find("fsync")};
    struct sts_plan plan = {.tests = tests, .n_tests = 3, .seed = 9, .verify = 1,
                            .size_bytes = 64 * 1024, .runs = 1, .duration_ns = 500000000};
    struct sts_workspace ws = {sts_test_iobuf, STS_TEST_IOBUF_BYTES, sts_test_hist,
                               STS_HIST_BUCKETS, STS_HIST_SUB_BITS, STS_HIST_MAX_EXP, NULL, 0};
    struct sts_run_info ri = {.tool_version = STORSCOPE_VERSION, .target = "sensorlog:"};
    /* fsync cannot run (it rewrites in place): the run reports it, nothing fails */
    CHECK_EQ(sts_engine_run(&plan, &t, &ws, NULL, 0, &ri), 0);
    struct sl_stats st;
    sl_stats(&slfs.log, &st);
    CHECK(st.programmed_bytes > 64 * 1024); /* at least seq's file went through it */
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

const struct sts_test_case test_sensorlog_cases[] = {
    {"format_is_o1_and_the_old_log_stays_gone", format_is_o1_and_the_old_log_stays_gone},
    {"a_sync_programs_the_pages_it_fills", a_sync_programs_the_pages_it_fills},
    {"nor_erases_whole_blocks_where_asked", nor_erases_whole_blocks_where_asked},
    {"crc32c_check_value", crc32c_check_value},
    {"layout_defaults_are_what_the_header_says", layout_defaults_are_what_the_header_says},
    {"layouts_past_4_gib_divide_and_align_as_the_host_does",
     layouts_past_4_gib_divide_and_align_as_the_host_does},
    {"facade_files_append_and_read_anywhere", facade_files_append_and_read_anywhere},
    {"facade_read_of_an_evicted_start_says_evicted", facade_read_of_an_evicted_start_says_evicted},
    {"facade_refuses_a_buffer_too_small_for_a_record",
     facade_refuses_a_buffer_too_small_for_a_record},
    {"facade_checks_what_a_cut_may_not_take", facade_checks_what_a_cut_may_not_take},
    {"workloads_run_on_the_facade", workloads_run_on_the_facade},
    {"facade_reads_any_offset_of_a_file_written_in_pieces",
     facade_reads_any_offset_of_a_file_written_in_pieces},
    {"appends_from_several_tasks", appends_from_several_tasks},
    {"every_call_from_its_own_task", every_call_from_its_own_task},
    {"readers_in_other_tasks_get_their_records_or_overtaken",
     readers_in_other_tasks_get_their_records_or_overtaken},
    {"bad_blocks_and_failed_programs_on_nand", bad_blocks_and_failed_programs_on_nand},
    {"sync_completes_while_records_keep_coming", sync_completes_while_records_keep_coming},
    {"catalog_pages_survive_mount", catalog_pages_survive_mount},
    {"roundtrip_on_nor", roundtrip_on_nor},
    {"mount_finds_everything_in_log_reads", mount_finds_everything_in_log_reads},
    {"wraps_around_evicting_the_oldest_evenly", wraps_around_evicting_the_oldest_evenly},
    {"appends_never_touch_the_device_and_pumps_do_one_operation",
     appends_never_touch_the_device_and_pumps_do_one_operation},
    {"full_buffer_policies", full_buffer_policies},
    {"timestamps_of_any_size_cost_bytes_not_chunks", timestamps_of_any_size_cost_bytes_not_chunks},
    {"a_time_search_reads_chunk_headers_only", a_time_search_reads_chunk_headers_only},
    {"crc_can_be_done_elsewhere", crc_can_be_done_elsewhere},
    {"ram_formula_sums_what_the_caller_allocates", ram_formula_sums_what_the_caller_allocates},
    {"write_amplification_is_accounted_for", write_amplification_is_accounted_for},
    {"steady_rate_fixed_size_costs_bytes_a_chunk_not_a_record",
     steady_rate_fixed_size_costs_bytes_a_chunk_not_a_record},
    {"latest_n_reads_only_the_chunks_they_are_in", latest_n_reads_only_the_chunks_they_are_in},
    {"records_as_large_as_a_chunk_holds", records_as_large_as_a_chunk_holds},
    {"a_steady_stream_is_found_in_three_header_reads",
     a_steady_stream_is_found_in_three_header_reads},
    {"a_search_reads_the_part_it_lands_in_not_the_chunk",
     a_search_reads_the_part_it_lands_in_not_the_chunk},
    {"a_damaged_part_loses_its_own_records_and_nothing_else",
     a_damaged_part_loses_its_own_records_and_nothing_else},
    {"a_version_3_log_is_written_on_without_parts", a_version_3_log_is_written_on_without_parts},
    {"latest_n_reads_what_the_newest_chunk_holds", latest_n_reads_what_the_newest_chunk_holds},
    {"searches_by_time_and_sequence_read_log_n_chunks",
     searches_by_time_and_sequence_read_log_n_chunks},
    {"power_cuts_lose_nothing_synced", power_cuts_lose_nothing_synced},
    {"managed_media_and_the_nonblocking_path", managed_media_and_the_nonblocking_path},
    {"streams_cost_the_same_however_many_there_are",
     streams_cost_the_same_however_many_there_are},
    {NULL, NULL},
};
