/* sensorlog in the dirty world (issue 40), continued: a stopped eviction
 * under a reader, the floor of erased segments, damaged and torn chunks, a
 * clock that went back, stream ids the catalog does not hold, readers while
 * the writer goes on, and formats over another geometry. */
#include "sts_test.h"
#include "sensorlog/sensorlog.h"
#include "storscope/device.h"
#include "storscope/error.h"
#include "storscope/rng.h"
#include "storscope/sim.h"
#include "storscope/invertbd.h"
#include "storscope/verifybd.h"

#include "test_mem.h"

#include <string.h>

#include "dirty_fixture.h"

/* ---- a stopped eviction under a reader ---------------------------------- */
/* The power goes while the oldest segment of a wrapped log is being
 * evicted: its later erase blocks are erased, its header's block (erased
 * last) is not. A reader from the oldest record then gets that block's
 * records and next the second segment's: the records between them left the
 * log by design, and the reader is told how many (it.evicted), never a
 * silent jump (a sweep found one: the reader took gseq 756 after 663). */
static void a_stopped_eviction_is_a_gap_the_reader_is_told_of(void)
{
    uint16_t id;
    CHECK_EQ(small_nor_log(&id), 0);
    CHECK_EQ(append_synced(id, 0, 30000, 0, 0), 0); /* twice round the log and more */
    uint32_t oldest = 0, second = 0;
    for (uint32_t i = 0; i < 16; i++)
        if (segs[i].seq && segs[i].seq < segs[oldest].seq)
            oldest = i;
    for (uint32_t i = 0; i < 16; i++)
        if (segs[i].seq == segs[oldest].seq + 1)
            second = i;
    uint64_t first = segs[oldest].first_gseq, next = segs[second].first_gseq;
    /* the eviction's first steps: every 4 KiB sector but the header's */
    const uint64_t base = (uint64_t)oldest * (16u << 10);
    for (uint64_t a = base + 4096; a < base + (16u << 10); a += 4096)
        CHECK_EQ(bd.ops->erase(bd.ctx, a, 4096), 0);
    remount();
    CHECK_EQ(sl_mount(&lg, &cfg), 0);
    struct sl_iter it;
    struct sl_record r;
    uint64_t got = 0, prev = 0, jumped = 0;
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, id, 0), 0);
    while (sl_iter_next(&it, &r) == SL_OK) {
        if (got && r.gseq != prev + 1)
            jumped += r.gseq - prev - 1;
        prev = r.gseq;
        got++;
    }
    CHECK(jumped > 0);                 /* the header's block kept some records */
    CHECK_EQ(it.evicted, jumped);      /* every one passed over, told */
    CHECK_EQ(it.torn + it.skipped + it.lost_records, 0); /* and not as a loss */
    CHECK_EQ(got + jumped, 30000 - first);
    CHECK(next > first);
}

/* ---- the floor of erased segments --------------------------------------- */
/* Once the pump is idle a wrapped log keeps exactly cfg.free_segments
 * segments erased ahead (1 by default), no more: each one more is a
 * segment of records evicted before it had to be. */
static void the_pump_keeps_exactly_the_floor_erased(void)
{
    uint16_t id;
    CHECK_EQ(small_nor_log(&id), 0);
    CHECK_EQ(append_synced(id, 0, 30000, 0, 0), 0); /* twice round the log and more */
    for (int i = 0; i < 1000 && sl_pump(&lg) == SL_BUSY; i++)
        ;
    CHECK_EQ(sl_pump(&lg), SL_OK); /* idle: nothing left to do */
    uint32_t erased = 0, live = 0;
    for (uint32_t i = 0; i < 16; i++) {
        erased += !segs[i].seq && segs[i].erased == 1;
        live += segs[i].seq != 0;
    }
    CHECK_EQ(erased, 1);
    CHECK_EQ(live, 15);
    /* the default floor is one segment (0 = 1), so a log needs three: one erased
     * ahead, one written, one holding the oldest records; two are refused
     * rather than keep nothing once wrapped */
    for (uint64_t n_segs = 2; n_segs <= 3; n_segs++) {
        CHECK_EQ(dirty_medium("nor-spi", n_segs * (64u << 10), 0), 0);
        cfg.chunk_bytes = 1024;
        cfg.segment_bytes = 64u << 10;
        CHECK_EQ(sl_format(&lg, &cfg), n_segs == 2 ? SL_EINVAL : SL_OK);
    }
}

/* ---- a damaged newest chunk's numbers ----------------------------------- */
/* The newest chunk's header damaged (its CRC fails; magic, place and
 * first number still say it was written): mount numbers the next records
 * past every record that chunk may have held, so no number ever means two
 * records - a reader that kept a position before the damage never finds
 * another record under it. The records written after the mount carry
 * numbers from the damaged chunk's end on, at the least. */
static void a_damaged_newest_chunk_keeps_its_numbers(void)
{
    uint16_t id;
    CHECK_EQ(small_nor_log(&id), 0);
    CHECK_EQ(append_synced(id, 0, 100, 0, 0), 0);
    uint32_t seg = lg.cur_seg, chunk = lg.piece_off ? lg.next_chunk : lg.next_chunk - 1;
    uint64_t at = (uint64_t)seg * (16u << 10) + (uint64_t)chunk * 1024;
    uint8_t hdr[52];
    CHECK_EQ(bd.ops->read(bd.ctx, at, hdr, sizeof(hdr)), 0);
    uint64_t first = 0, end; /* little-endian fields (docs/sensorlog-format.md) */
    for (int b = 7; b >= 0; b--)
        first = first << 8 | hdr[16 + b];
    end = first + (uint64_t)(hdr[6] | hdr[7] << 8); /* + n_records */
    CHECK(first < 100 && end == 100); /* the newest chunk ends the log */
    CHECK_EQ(sts_test_flip(&sim, at + 4, 0x01), 0); /* `used`: not a field the votes read */
    remount();
    CHECK_EQ(sl_mount(&lg, &cfg), 0);
    CHECK_EQ(sl_stream_open(&lg, "imu", &id), 0);
    uint8_t buf[32], want[32];
    for (uint64_t k = 100; k < 150; k++) {
        size_t len = sts_test_rec_bytes(k, buf);
        CHECK_EQ(sl_append(&lg, id, k, buf, len), 0);
    }
    CHECK_EQ(sl_sync(&lg), 0);
    struct sl_iter it;
    struct sl_record r;
    uint64_t newer = 0;
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, id, 0), 0);
    while (sl_iter_next(&it, &r) == SL_OK)
        for (uint64_t k = 100; k < 150; k++)
            if (r.len == sts_test_rec_bytes(k, want) && !memcmp(r.data, want, r.len)) {
                CHECK(r.gseq >= end); /* never a number the damaged chunk's records had */
                newer++;
            }
    CHECK_EQ(newer, 50);
}

/* A chunk torn by a power cut past the log's end, whose header program got
 * only as far as its segment's number: a torn tail, never synced - not a
 * written chunk damaged afterwards. Mount reports nothing and numbers on
 * from the last record (one matching field taken for a written chunk
 * made it report a damaged chunk and skip a chunk's worth of numbers). */
static void a_tail_torn_in_its_header_is_not_damage(void)
{
    uint16_t id;
    CHECK_EQ(small_nor_log(&id), 0);
    CHECK_EQ(append_synced(id, 0, 100, 0, 0), 0);
    uint32_t seg = lg.cur_seg, end = lg.piece_off ? lg.next_chunk + 1 : lg.next_chunk;
    CHECK(end + 1 < 16);
    uint8_t seq[4]; /* the segment header's sequence number, little-endian (offset 8) */
    for (int b = 0; b < 4; b++)
        seq[b] = (uint8_t)(lg.seq >> (8 * b));
    CHECK_EQ(bd.ops->program(bd.ctx, (uint64_t)seg * (16u << 10) + (uint64_t)end * 1024 + 8, seq,
                             4), 0);
    remount();
    CHECK_EQ(sl_mount(&lg, &cfg), 0);
    CHECK_EQ(sl_stream_open(&lg, "imu", &id), 0);
    struct sl_stats st;
    sl_stats(&lg, &st);
    CHECK_EQ(st.corrupt_chunks, 0);
    uint8_t buf[32];
    size_t len = sts_test_rec_bytes(100, buf);
    CHECK_EQ(sl_append(&lg, id, 100, buf, len), 0);
    CHECK_EQ(sl_sync(&lg), 0);
    struct sl_iter it;
    struct sl_record r;
    CHECK_EQ(sl_iter_latest(&lg, &it, id, 1), 0);
    CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
    CHECK_EQ(r.gseq, 100); /* on from the last record: nothing skipped */
}

/* ---- damage in two chunks in a row -------------------------------------- */
/* Two consecutive chunks of a segment damaged (a byte of each one's
 * records, as wear leaves it): the reader counts both and goes on with
 * the rest of the segment. It used to take the first for the segment's
 * torn end when the chunk after it did not check either, and skip every
 * chunk after them unsaid (log dump of a demo image with 200 flipped
 * bytes showed 0 of 11,010 records). At most two chunks' records (10-29
 * B each, so under 2 x 1024 / 11 = 187) are missing, and no other. */
static void damage_in_two_chunks_in_a_row_costs_only_them(void)
{
    uint16_t id;
    CHECK_EQ(small_nor_log(&id), 0);
    CHECK_EQ(append_synced(id, 0, 3000, 0, 100), 0);
    uint64_t all = read_all(id);
    CHECK_EQ(all, 3000);
    /* segment 1 (16 chunks of 1 KiB: its header, a catalog page, data) */
    const uint64_t seg = 16u << 10;
    CHECK_EQ(sts_test_flip(&sim, seg + 5 * 1024 + 300, 0x10), 0);
    CHECK_EQ(sts_test_flip(&sim, seg + 6 * 1024 + 300, 0x10), 0);
    remount();
    CHECK_EQ(sl_mount(&lg, &cfg), 0);
    struct sl_iter it;
    struct sl_record r;
    uint8_t want[32];
    uint64_t n = 0, last = 0;
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, id, 0), 0);
    while (sl_iter_next(&it, &r) == SL_OK) {
        CHECK(r.len == sts_test_rec_bytes(r.gseq, want) && !memcmp(r.data, want, r.len));
        last = r.gseq;
        n++;
    }
    CHECK_EQ(last, 2999);
    CHECK(n < all && all - n < 187);
    CHECK_EQ(it.skipped, 2); /* both counted, as damage */
    CHECK_EQ(it.torn, 0);
}

/* ---- 5: a clock that went back ------------------------------------------- */
/* Timestamps 1000..1999, then 0..999 (an RTC reset): a time query finds
 * where the log reaches the time and returns from there every record a
 * full read returns, whatever their timestamps. */
static uint64_t count_from_ts(uint16_t id, uint64_t ts)
{
    struct sl_iter it;
    struct sl_record r;
    uint64_t n = 0;
    if (sl_iter_from_ts(&lg, &it, id, ts))
        return UINT64_MAX;
    while (sl_iter_next(&it, &r) == SL_OK)
        n++;
    return n;
}

static void a_clock_reset_hides_no_records_from_time_queries(void)
{
    uint16_t id;
    CHECK_EQ(small_nor_log(&id), 0);
    CHECK_EQ(append_synced(id, 0, 1000, 1000, 0), 0);
    CHECK_EQ(append_synced(id, 1000, 1000, 0, 0), 0);
    CHECK_EQ(read_all(id), 2000);
    CHECK_EQ(count_from_ts(id, 500), 2000);  /* the log reaches 500 at its first record */
    CHECK_EQ(count_from_ts(id, 1000), 2000);
    CHECK_EQ(count_from_ts(id, 1500), 1500); /* 1500..1999, then all of 0..999 */
    CHECK_EQ(count_from_ts(id, 1999), 1001);
    CHECK_EQ(count_from_ts(id, 2000), 0);    /* never reached */
    remount();
    CHECK_EQ(sl_mount(&lg, &cfg), 0);
    CHECK_EQ(count_from_ts(id, 1500), 1500);
}

/* ---- 6: a stream the catalog does not hold is SL_ENOENT, as documented ----- */
static void append_to_a_missing_stream_is_enoent(void)
{
    CHECK_EQ(dirty_medium("nor-spi", 256u << 10, 0), 0);
    CHECK_EQ(sl_format(&lg, &cfg), 0);
    CHECK_EQ(sl_append(&lg, 3, 0, "x", 1), SL_ENOENT);      /* a free slot */
    CHECK_EQ(sl_append(&lg, 17, 0, "x", 1), SL_ENOENT);     /* beyond the catalog */
    CHECK_EQ(sl_append(&lg, 65535, 0, "x", 1), SL_ENOENT);
    CHECK_EQ(sl_append(&lg, 0, 0, "x", 1), SL_ENOENT);      /* no stream has id 0 */
    uint16_t id;
    CHECK_EQ(sl_stream_create(&lg, "s", &id), 0);
    CHECK_EQ(sl_append(&lg, id, 0, NULL, 1), SL_EINVAL);   /* a bad argument stays one */
    CHECK_EQ(sl_append(&lg, id, 0, "x", 1), 0);
}

/* ---- 2: what a reader sees while the writer goes on ---------------------- */
/* An iterator with a buffer of its own, a few records into the oldest
 * segment, while the writer wraps the log past it: SL_EOVERTAKEN on every
 * later call, never a record of the segment's new contents; from it->gseq
 * a new search goes on at the oldest record still there. */
static void a_reader_the_log_wrapped_past_is_told_so(void)
{
    uint16_t id;
    CHECK_EQ(small_nor_log(&id), 0);
    CHECK_EQ(append_synced(id, 0, 1000, 0, 0), 0);
    static uint8_t own[1024];
    struct sl_iter it;
    struct sl_record r;
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, id, 0), 0);
    sl_iter_set_buffer(&it, own);
    for (int i = 0; i < 10; i++) {
        CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
        CHECK_EQ(r.gseq, (uint64_t)i);
    }
    CHECK_EQ(append_synced(id, 1000, 20000, 1000, 0), 0); /* round the log and more */
    CHECK(oldest_gseq() > 1000);
    int rc = SL_OK;
    uint64_t more = 0;
    while ((rc = sl_iter_next(&it, &r)) == SL_OK && more < 100000) {
        CHECK(r.gseq == it.gseq - 1 && r.gseq == 10 + more); /* only what followed, in order */
        more++;
    }
    CHECK_EQ(rc, SL_EOVERTAKEN);
    CHECK_EQ(sl_iter_next(&it, &r), SL_EOVERTAKEN);
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, id, it.gseq), 0);
    CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
    CHECK_EQ(r.gseq, oldest_gseq());
}

/* A stream deleted while a reader reads it, and its slot given to a new
 * stream (ids are slots, which go round): the reader gets the old
 * stream's records and none of the new one's. */
static void a_reused_slot_does_not_feed_an_old_streams_reader(void)
{
    uint16_t id, other;
    CHECK_EQ(small_nor_log(&id), 0);
    CHECK_EQ(append_synced(id, 0, 300, 0, 0), 0);
    struct sl_iter it;
    struct sl_record r;
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, id, 0), 0);
    CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
    CHECK_EQ(sl_stream_delete(&lg, id), 0);
    for (int i = 0; i < 15; i++) { /* round the 16 slots, back to the deleted one */
        CHECK_EQ(sl_stream_create(&lg, "tmp", &other), 0);
        CHECK_EQ(sl_stream_delete(&lg, other), 0);
    }
    CHECK_EQ(sl_stream_create(&lg, "new", &other), 0);
    CHECK_EQ(other, id);
    CHECK_EQ(append_synced(other, 300, 300, 300, 0), 0);
    uint64_t n = 1;
    while (sl_iter_next(&it, &r) == SL_OK) {
        CHECK(r.gseq < 300); /* the old stream's: records 0..299 */
        n++;
    }
    CHECK_EQ(n, 300);
}

/* A log formatted over another of another geometry: the old log's segment
 * headers lie at the new segments' starts. Format left them in every
 * segment the writer had not reached, and mount refuses a header it cannot
 * decode as this log's (another format or geometry): after a power cut the
 * new log did not mount at all (found on a real SD card under Linux,
 * tests/vm/kernel_vm.py). */
static void fill_then_reformat(uint64_t *kept)
{
    uint16_t id;
    cfg.chunk_bytes = 1024;
    cfg.segment_bytes = 16u << 10; /* the old log: a header every 16 KiB */
    CHECK_EQ(sl_format(&lg, &cfg), 0);
    CHECK_EQ(sl_stream_create(&lg, "old", &id), 0);
    CHECK_EQ(append_synced(id, 0, 50000, 0, 100), 0);
    cfg.chunk_bytes = 4096;
    cfg.segment_bytes = 64u << 10; /* the new one: a segment every 64 KiB */
    CHECK_EQ(sl_format(&lg, &cfg), 0);
    CHECK_EQ(sl_stream_create(&lg, "imu", &id), 0);
    CHECK_EQ(append_synced(id, 0, 500, 0, 50), 0);
    *kept = 500;
}

static void format_over_another_geometry_mounts_after_a_cut(void)
{
    uint64_t n = 0;
    uint16_t id;
    CHECK_EQ(dirty_medium("nor-spi", 1u << 20, 0), 0);
    fill_then_reformat(&n);
    remount();
    CHECK_EQ(sl_mount(&lg, &cfg), 0);
    CHECK_EQ(sl_stream_open(&lg, "imu", &id), 0);
    CHECK_EQ(read_all(id), n);
    /* a geometry no header is of: another's log, refused as before */
    cfg.chunk_bytes = 2048;
    cfg.segment_bytes = 32u << 10;
    CHECK_EQ(sl_mount(&lg, &cfg), SL_ECORRUPT);
}

/* The same on a managed card that ignores discard (a trim is advice):
 * erasing the old header is not enough there, it must be overwritten. */
static struct sts_ram_bd card_ram;
static struct sts_bd card;
static int card_read(void *ctx, uint64_t a, void *b, size_t n)
{
    const struct sts_bd *c = ctx;
    return c->ops->read(c->ctx, a, b, n);
}
static int card_program(void *ctx, uint64_t a, const void *b, size_t n)
{
    const struct sts_bd *c = ctx;
    return c->ops->program(c->ctx, a, b, n);
}
static int card_ignores_discard(void *ctx, uint64_t a, uint64_t n)
{
    (void)ctx, (void)a, (void)n;
    return STS_OK;
}
static int card_flush(void *ctx)
{
    const struct sts_bd *c = ctx;
    return c->ops->flush(c->ctx);
}
static void card_geometry(void *ctx, struct sts_bd_geometry *g)
{
    const struct sts_bd *c = ctx;
    c->ops->geometry(c->ctx, g);
}
static const struct sts_bd_ops card_ops = {
    .version = STS_BD_OPS_VERSION, card_read, card_program, card_ignores_discard, card_flush,
    card_geometry, NULL, NULL, NULL
};

static void format_over_another_geometry_on_a_card_that_ignores_discard(void)
{
    uint64_t n = 0;
    uint16_t id;
    CHECK_EQ(dirty_medium("nor-spi", 1u << 20, 0), 0); /* (the config; the device is replaced) */
    memset(sts_test_iobuf, 0, 1u << 20);
    sts_ram_bd_init(&card_ram, &card, sts_test_iobuf, 1u << 20);
    cfg.bd = (struct sts_bd){&card_ops, &card};
    cfg.page_bytes = 512; /* a card's sector: its real page is not known here */
    fill_then_reformat(&n);
    CHECK_EQ(sl_mount(&lg, &cfg), 0); /* a reboot: RAM keeps what was programmed */
    CHECK_EQ(sl_stream_open(&lg, "imu", &id), 0);
    CHECK_EQ(read_all(id), n);
}

const struct sts_test_case test_sl_damage_cases[] = {
    {"the_pump_keeps_exactly_the_floor_erased", the_pump_keeps_exactly_the_floor_erased},
    {"a_damaged_newest_chunk_keeps_its_numbers", a_damaged_newest_chunk_keeps_its_numbers},
    {"a_tail_torn_in_its_header_is_not_damage", a_tail_torn_in_its_header_is_not_damage},
    {"damage_in_two_chunks_in_a_row_costs_only_them",
     damage_in_two_chunks_in_a_row_costs_only_them},
    {"a_stopped_eviction_is_a_gap_the_reader_is_told_of",
     a_stopped_eviction_is_a_gap_the_reader_is_told_of},
    {"a_clock_reset_hides_no_records_from_time_queries",
     a_clock_reset_hides_no_records_from_time_queries},
    {"append_to_a_missing_stream_is_enoent", append_to_a_missing_stream_is_enoent},
    {"a_reader_the_log_wrapped_past_is_told_so", a_reader_the_log_wrapped_past_is_told_so},
    {"a_reused_slot_does_not_feed_an_old_streams_reader",
     a_reused_slot_does_not_feed_an_old_streams_reader},
    {"format_over_another_geometry_mounts_after_a_cut",
     format_over_another_geometry_mounts_after_a_cut},
    {"format_over_another_geometry_on_a_card_that_ignores_discard",
     format_over_another_geometry_on_a_card_that_ignores_discard},
    {NULL, NULL},
};
