/* sensorlog on simulated NOR and eMMC, in virtual time: what is appended
 * and synced reads back, through wrap-around, power cuts and remounts;
 * appends never touch the device; a pump does at most one device
 * operation; mount and searches read O(log n) chunks. The fixture is
 * sl_fixture.c's; parts, tasks, the facade and the configuration have
 * files of their own (test_sl_parts.c, test_sl_tasks.c, test_sl_facade.c,
 * test_sl_config.c). */
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

const struct sts_test_case test_sensorlog_cases[] = {
    {"roundtrip_on_nor", roundtrip_on_nor},
    {"mount_finds_everything_in_log_reads", mount_finds_everything_in_log_reads},
    {"wraps_around_evicting_the_oldest_evenly", wraps_around_evicting_the_oldest_evenly},
    {"appends_never_touch_the_device_and_pumps_do_one_operation",
     appends_never_touch_the_device_and_pumps_do_one_operation},
    {"full_buffer_policies", full_buffer_policies},
    {"timestamps_of_any_size_cost_bytes_not_chunks", timestamps_of_any_size_cost_bytes_not_chunks},
    {"a_time_search_reads_chunk_headers_only", a_time_search_reads_chunk_headers_only},
    {"latest_n_reads_only_the_chunks_they_are_in", latest_n_reads_only_the_chunks_they_are_in},
    {NULL, NULL},
};
