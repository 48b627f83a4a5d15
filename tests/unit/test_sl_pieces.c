/* A sync after every record (issue 40): on a medium whose pages are
 * smaller than a chunk (raw NOR: 256 B pages, 4 KiB chunks), a chunk a sync
 * closed goes on in its next page as a piece (format 5), so a synced record
 * costs a page, not a chunk - in bytes programmed, in erases once the log
 * has wrapped, and in what the log keeps. The oracle is the test's own
 * record generator and arithmetic on the medium's geometry, never the
 * store's accounting. */
#include "sts_test.h"
#include "sensorlog/sensorlog.h"
#include "storscope/error.h"
#include "storscope/sim.h"

#include "test_mem.h"

#include <string.h>

#define PIECE_SEGS 64
static struct sts_sim sim;
static struct sts_bd bd;
static struct sl_log lg;
static struct sl_config cfg;
static struct sl_seg_info segs[PIECE_SEGS];
static struct sl_stream_info streams[8];
static uint8_t ring[2048];
static STS_TEST_BIG uint8_t chunk_buf[4096];
static STS_TEST_BIG uint8_t read_buf[4096];
static STS_TEST_BIG uint8_t own_buf[4096];

/* A NOR log of `capacity` in 4 KiB chunks (16 pages) and 64 KiB segments. */
/* 1: a NOR with ECC (no_ecc=0: a cut's page reads as an error, programs
 * are pages, and pieces start at the next one); 0: nor-spi as it is, which
 * programs bytes and whose cut tears only them (pieces a byte apart) */
static int with_ecc;

static int nor_log(uint64_t capacity, uint16_t *id)
{
    struct sts_sim_params p = *sts_sim_profile_find("nor-spi");
    p.capacity = capacity;
    p.bad_permille = 0;
    p.no_ecc = (uint8_t)!with_ecc;
    if (sts_sim_arena_bytes(&p, capacity) > STS_TEST_IOBUF_BYTES)
        return STS_ENOMEM;
    int rc = sts_sim_init(&sim, &p, 11, sts_test_iobuf, STS_TEST_IOBUF_BYTES, capacity, &bd);
    memset(&cfg, 0, sizeof(cfg));
    cfg.bd = bd;
    cfg.buffer = ring;
    cfg.buffer_bytes = sizeof(ring);
    cfg.chunk_bytes = 4096;
    cfg.segment_bytes = 64u << 10;
    cfg.chunk_buf = chunk_buf;
    cfg.read_buf = read_buf;
    cfg.segs = segs;
    cfg.n_segs = PIECE_SEGS;
    cfg.streams = streams;
    cfg.max_streams = 8;
    if (!rc)
        rc = sl_format(&lg, &cfg);
    return rc ? rc : sl_stream_create(&lg, "imu", id);
}

/* Record k: its bytes follow from k, stamped 1000 + 10 k. */
static uint64_t ts_of(uint64_t k) { return 1000 + 10 * k; }

static int append_one(uint16_t id, uint64_t k)
{
    uint8_t buf[32];
    size_t len = sts_test_rec_bytes(k, buf);
    int rc;
    while ((rc = sl_append(&lg, id, ts_of(k), buf, len)) == SL_EFULL)
        if ((rc = sl_pump(&lg)) < 0)
            return rc;
    return rc;
}

/* Records first .. first + n - 1, each synced alone. */
static int append_each_synced(uint16_t id, uint64_t first, uint64_t n)
{
    for (uint64_t k = first; k < first + n; k++) {
        int rc = append_one(id, k);
        if (rc || (rc = sl_sync(&lg)) != SL_OK)
            return rc;
    }
    return SL_OK;
}

/* 1 when r is record k, intact (a log of one stream: gseq is k). */
static int is_record(const struct sl_record *r, uint64_t k)
{
    uint8_t want[32];
    size_t len = sts_test_rec_bytes(k, want);
    return r->gseq == k && r->ts == ts_of(k) && r->len == len && !memcmp(r->data, want, len);
}

/* Reads the log from its oldest record: how many came back, each intact
 * and in order with no gap, ending at record `last`; 0 at the first that
 * is not. */
static uint64_t read_from_oldest(uint16_t id, uint64_t last)
{
    struct sl_iter it;
    struct sl_record r;
    uint64_t n = 0, next = UINT64_MAX;
    if (sl_iter_from_gseq(&lg, &it, id, 0))
        return 0;
    while (sl_iter_next(&it, &r) == SL_OK) {
        if ((next != UINT64_MAX && r.gseq != next) || !is_record(&r, r.gseq))
            return 0;
        next = r.gseq + 1;
        n++;
    }
    /* (nothing was damaged: nothing may be counted as passed over) */
    return next == last + 1 && !it.skipped && !it.torn && !it.lost_records ? n : 0;
}

/* Wrapped three times over, a log whose every record was synced alone
 * erases about a page's worth a record and keeps about a record a page.
 * 1 MiB of NOR in 16 segments of 16 chunks (a header, a catalog page, 14
 * for data) of 16 pages: a lap is 16 x 14 x 16 = 3,584 pages; a segment's
 * 64 KiB is erased for 224 records (293 B a record), and at least 13
 * segments are live (one erased ahead, the writer's partly filled), 2,912
 * records. Before format 5 a sync closed its chunk: 4,681 B erased a
 * record, 182 records kept. */
static void a_synced_record_costs_a_page_not_a_chunk(void)
{
    uint16_t id;
    with_ecc = 1;
    CHECK_EQ(nor_log(1u << 20, &id), 0);
    with_ecc = 0;
    const uint64_t lap = 16 * 14 * 16;
    CHECK_EQ(append_each_synced(id, 0, 3 * lap), 0);
    uint64_t erased0 = sim.n.blocks_erased, w0 = sim.n.bytes_written;
    CHECK_EQ(append_each_synced(id, 3 * lap, lap), 0);
    uint64_t erased = (sim.n.blocks_erased - erased0) * 4096, written = sim.n.bytes_written - w0;
    /* a 10-29 B record and a 52 B header fit one 256 B page: its program
     * is that page, and a segment's header and catalog page a few more */
    CHECK(written <= lap * 256 * 9 / 8);
    CHECK(erased <= lap * 320);
    struct sl_stats st;
    sl_stats(&lg, &st);
    CHECK(st.evictions >= 3 * 16); /* it did wrap, three times */
    uint64_t kept = read_from_oldest(id, 4 * lap - 1);
    CHECK(kept >= 13 * 14 * 16);
    CHECK(kept <= 16 * 16 * 16); /* (a page a record: never more) */
}

/* On a NOR without ECC (nor-spi) a cut tears only the bytes it was
 * programming, so a record synced alone costs its piece's bytes, not a
 * page; and a piece after a chunk's first needs no header of 52 bytes
 * (version 6): a short piece is 8 bytes besides its records (magic, three
 * one-byte varints here, a 4-byte CRC). A record of 10-29 B with its
 * header of 1 to 16 bytes is then 19 to 53 bytes, so a 4 KiB chunk holds
 * at least (4096 - 52 - 45) / 53 + 1 = 76 of them where 52-byte headers
 * kept 42. Wrapped three times over, at least 13 segments of 14 data
 * chunks are live: 13,832 records or more; each record writes at most 53
 * bytes and a share of the segments' headers and catalog pages (format 5
 * wrote 63 to 97). */
static void a_synced_record_costs_its_bytes_on_a_nor_without_ecc(void)
{
    uint16_t id;
    CHECK_EQ(nor_log(1u << 20, &id), 0);
    const uint64_t lap = 16 * 14 * 76;
    CHECK_EQ(append_each_synced(id, 0, 3 * lap), 0);
    uint64_t w0 = sim.n.bytes_written;
    CHECK_EQ(append_each_synced(id, 3 * lap, lap), 0);
    uint64_t written = sim.n.bytes_written - w0;
    CHECK(written <= lap * 53 * 9 / 8);
    CHECK(written >= lap * 19);
    struct sl_stats st;
    sl_stats(&lg, &st);
    CHECK(st.evictions >= 16); /* it did wrap */
    uint64_t kept = read_from_oldest(id, 4 * lap - 1);
    CHECK(kept >= 13 * 14 * 76);
}

/* Every way in reads the records of later pieces: from the oldest, from a
 * sequence number or a time inside a later piece of an earlier chunk (the
 * search lands past that chunk, whose first piece ends before the key),
 * the latest n across pieces and chunks, and all of it after a remount,
 * which numbers on after the last piece. */
static void pieces_are_read_every_way_and_after_a_remount(void)
{
    uint16_t id;
    CHECK_EQ(nor_log(512u << 10, &id), 0);
    const uint64_t n = 200; /* about 13 chunks of 15 pieces */
    CHECK_EQ(append_each_synced(id, 0, n), 0);
    CHECK(lg.piece_off != 0); /* the writer is inside a chunk, after its pieces */
    for (int pass = 0; pass < 2; pass++) {
        CHECK_EQ(read_from_oldest(id, n - 1), n);
        for (uint64_t k = 1; k < n; k += 7) {
            struct sl_iter it;
            struct sl_record r;
            CHECK_EQ(sl_iter_from_gseq(&lg, &it, id, k), 0);
            CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
            CHECK(is_record(&r, k));
            CHECK_EQ(sl_iter_from_ts(&lg, &it, id, ts_of(k) - 5), 0);
            CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
            CHECK(is_record(&r, k));
        }
        for (uint64_t want = 1; want <= 40; want += 13) {
            struct sl_iter it;
            struct sl_record r;
            CHECK_EQ(sl_iter_latest(&lg, &it, id, want), 0);
            for (uint64_t k = n - want; k < n; k++) {
                CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
                CHECK(is_record(&r, k));
            }
            CHECK_EQ(sl_iter_next(&it, &r), SL_ENOENT);
        }
        if (sts_test_failed_now())
            return;
        sts_sim_power_cut(&sim);
        sts_sim_power_on(&sim);
        CHECK_EQ(sl_mount(&lg, &cfg), 0);
    }
    /* numbering goes on after the last piece: no number is given twice */
    CHECK_EQ(append_each_synced(id, n, 20), 0);
    CHECK_EQ(read_from_oldest(id, n + 19), n + 20);
}

/* A reader following the writer sees each record as its sync lands, from
 * the chunk the writer is still filling piece by piece, and never skips
 * the pieces added after it read that chunk. */
static void a_reader_following_the_writer_gets_every_synced_record(void)
{
    uint16_t id;
    CHECK_EQ(nor_log(256u << 10, &id), 0);
    CHECK_EQ(append_each_synced(id, 0, 1), 0);
    struct sl_iter it;
    struct sl_record r;
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, id, 0), 0);
    sl_iter_set_buffer(&it, own_buf);
    uint64_t got = 0;
    for (uint64_t k = 1; k <= 120; k++) {
        while (sl_iter_next(&it, &r) == SL_OK) {
            CHECK(is_record(&r, got));
            got++;
        }
        CHECK_EQ(got, k); /* every record synced so far, none more */
        if (sts_test_failed_now())
            return;
        CHECK_EQ(append_each_synced(id, k, 1), 0);
    }
}

/* A cut while a piece is programmed tears its page (with ECC: the torn
 * page fails the chunk's read as a whole, and the reader reads page by
 * page) or its bytes (without: they read back half-programmed): the synced
 * pieces before it in the chunk read back, and so does everything after
 * the remount. */
static void torn_piece(void)
{
    uint16_t id;
    CHECK_EQ(nor_log(256u << 10, &id), 0);
    CHECK_EQ(append_each_synced(id, 0, 6), 0); /* pieces 0..5 of one chunk */
    CHECK(lg.piece_off != 0);
    CHECK_EQ(append_one(id, 6), 0);
    struct sts_sim_faults cut = {.cut_after_ops = sim.host_ops};
    sts_sim_set_faults(&sim, &cut);
    CHECK(sl_sync(&lg) != SL_OK); /* the piece's program is cut */
    sts_sim_power_on(&sim);
    struct sts_sim_faults none = {0};
    sts_sim_set_faults(&sim, &none);
    CHECK_EQ(sl_mount(&lg, &cfg), 0);
    CHECK_EQ(read_from_oldest(id, 5), 6);
    CHECK_EQ(append_each_synced(id, 6, 10), 0); /* numbered on from the last synced */
    CHECK_EQ(read_from_oldest(id, 15), 16);
}

static void a_torn_piece_keeps_the_pieces_before_it(void)
{
    for (with_ecc = 1; with_ecc >= 0; with_ecc--)
        torn_piece();
    with_ecc = 0;
}

/* A header of the chunk's place that numbers its records before where the
 * piece before it ended is not the next piece, however well it checks: a
 * copy of the chunk's second piece programmed into the blank page after
 * its last one (an image written by hand, a stale copy) must not bring
 * those records back a second time, out of order. Pieces a page apart
 * (a NOR with ECC), so the blank page is there to write into. */
static void a_piece_numbered_back_is_not_the_next_one(void)
{
    uint16_t id;
    with_ecc = 1;
    CHECK_EQ(nor_log(256u << 10, &id), 0);
    with_ecc = 0;
    CHECK_EQ(append_each_synced(id, 0, 4), 0); /* pieces 0..3 of one chunk, a page each */
    uint32_t seg = lg.cur_seg, chunk = lg.next_chunk;
    uint64_t base = (uint64_t)seg * (64u << 10) + (uint64_t)chunk * 4096;
    uint8_t piece[256];
    CHECK_EQ(bd.ops->read(bd.ctx, base + 256, piece, sizeof(piece)), 0); /* piece 1 */
    CHECK_EQ(bd.ops->program(bd.ctx, base + 4 * 256, piece, sizeof(piece)), 0); /* page 4 */
    CHECK_EQ(read_from_oldest(id, 3), 4); /* 0..3, each once, in order */
}

/* A piece damaged after its sync loses its own records, said so, and not
 * those of the pieces after it. */
static void a_damaged_piece_costs_only_its_records(void)
{
    uint16_t id;
    with_ecc = 1; /* pieces a page apart: the third is page 2 */
    CHECK_EQ(nor_log(256u << 10, &id), 0);
    with_ecc = 0;
    CHECK_EQ(append_each_synced(id, 0, 8), 0);
    uint32_t seg = lg.cur_seg, chunk = lg.next_chunk;
    CHECK_EQ(append_each_synced(id, 8, 30), 0); /* on into the next chunks */
    /* the third piece (page 2) of that chunk: a byte of its payload
     * cleared, as a NOR bit that leaked would */
    uint64_t at = (uint64_t)seg * (64u << 10) + (uint64_t)chunk * 4096 + 2 * 256 + 56;
    uint8_t b = 0;
    while (!(b & 0xF0))
        CHECK_EQ(bd.ops->read(bd.ctx, ++at, &b, 1), 0);
    b = (uint8_t)(b & 0x0F); /* (a program only clears bits) */
    CHECK_EQ(bd.ops->program(bd.ctx, at, &b, 1), 0);
    struct sl_iter it;
    struct sl_record r;
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, id, 0), 0);
    uint64_t n = 0, missing = 0, next = 0;
    while (sl_iter_next(&it, &r) == SL_OK) {
        CHECK(is_record(&r, r.gseq));
        missing += r.gseq - next;
        next = r.gseq + 1;
        n++;
    }
    CHECK_EQ(next, 38);
    CHECK_EQ(missing, 1); /* the one record of that piece */
    CHECK_EQ(it.skipped, 1);
}

/* A payload byte at `off` in chunk `chunk` of segment `seg` cleared, as a
 * NOR cell that leaked would (UINT32_MAX: none), then a power cycle and a
 * mount. */
static void leak_and_remount(uint32_t seg, uint32_t chunk, uint32_t off)
{
    if (off != UINT32_MAX) {
        uint64_t at = (uint64_t)seg * (64u << 10) + (uint64_t)chunk * 4096 + off;
        uint8_t b;
        CHECK_EQ(bd.ops->read(bd.ctx, at, &b, 1), 0);
        CHECK(b != 0);
        b = 0; /* (a program only clears bits) */
        CHECK_EQ(bd.ops->program(bd.ctx, at, &b, 1), 0);
    }
    sts_sim_power_cut(&sim);
    sts_sim_power_on(&sim);
    CHECK_EQ(sl_mount(&lg, &cfg), 0);
}

/* Short pieces (version 6) name neither their place nor their first
 * record: each follows from the piece before, its CRC going on from that
 * one's. A piece damaged after its sync in the newest chunk then hides the
 * pieces after it, which were synced too; mount must not take that for a
 * torn end (a cut leaves nothing after the piece it tore, and numbers on
 * from there): the records lost are reported, and no number is given
 * twice. The oracle is the test's own count of synced records. */
static void a_damaged_short_piece_in_the_newest_chunk_is_reported(void)
{
    uint16_t id;
    CHECK_EQ(nor_log(256u << 10, &id), 0);
    CHECK_EQ(append_each_synced(id, 0, 3), 0);
    uint32_t seg = lg.cur_seg, chunk = lg.next_chunk, third = lg.piece_off;
    CHECK_EQ(append_each_synced(id, 3, 5), 0); /* pieces 3..7 of the same chunk */
    CHECK_EQ(lg.next_chunk, chunk);
    /* the fourth piece (record 3), 10 bytes in (past its 8 header bytes) */
    leak_and_remount(seg, chunk, third + 10);
    CHECK_EQ(sl_stream_open(&lg, "imu", &id), 0);
    CHECK_EQ(append_each_synced(id, 100, 3), 0); /* records the test calls 100..102 */
    struct sl_iter it;
    struct sl_record r;
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, id, 0), 0);
    uint64_t got = 0, last = 0, after = 0;
    while (sl_iter_next(&it, &r) == SL_OK) {
        if (got < 3) {
            CHECK(is_record(&r, got)); /* the pieces before the damaged one */
        } else { /* then only what was written after the mount, numbered past */
            uint8_t want[32];
            size_t len = sts_test_rec_bytes(100 + after, want);
            CHECK(r.len == len && !memcmp(r.data, want, len));
            CHECK(r.gseq > 7); /* no number the lost records had */
            after++;
        }
        CHECK(!got || r.gseq > last);
        last = r.gseq;
        got++;
    }
    CHECK_EQ(got, 3 + 3);
    struct sl_stats st;
    sl_stats(&lg, &st);
    CHECK(st.corrupt_chunks + it.skipped + it.torn + it.lost_records > 0); /* said so */
}

/* The newest chunk's last piece, damaged after its sync, looks like a
 * piece a power cut tore in every byte (nothing follows it to tell), so
 * its records are lost as a torn one's would be - but not silently: mount
 * says it found written bytes past the last piece that checks
 * (sl_stats.torn_pieces; before, every counter stayed 0). A clean remount
 * and one after a cut between syncs find none; a cut that tears the
 * piece's program is one. The oracle is the test's own record count. */
static void last_piece(int how) /* 0 clean, 1 damaged after its sync, 2 torn by a cut */
{
    uint16_t id;
    CHECK_EQ(nor_log(256u << 10, &id), 0);
    CHECK_EQ(append_each_synced(id, 0, 4), 0);
    uint32_t seg = lg.cur_seg, chunk = lg.next_chunk, fifth = lg.piece_off;
    CHECK_EQ(append_one(id, 4), 0);
    if (how == 2) {
        struct sts_sim_faults cut = {.cut_after_ops = sim.host_ops};
        sts_sim_set_faults(&sim, &cut);
        CHECK(sl_sync(&lg) != SL_OK); /* the piece's program is cut */
        struct sts_sim_faults none = {0};
        sts_sim_set_faults(&sim, &none);
    } else {
        CHECK_EQ(sl_sync(&lg), SL_OK);
        CHECK_EQ(lg.next_chunk, chunk); /* the fifth piece went to the same chunk */
    }
    leak_and_remount(seg, chunk, how == 1 ? fifth + 6 : UINT32_MAX);
    struct sl_stats st;
    sl_stats(&lg, &st);
    CHECK_EQ(st.torn_pieces, how ? 1 : 0);
    CHECK_EQ(st.corrupt_chunks, 0);
    CHECK_EQ(read_from_oldest(id, how ? 3 : 4), how ? 4 : 5);
}

static void a_damaged_last_piece_is_reported_as_a_torn_one(void)
{
    for (int how = 0; how < 3; how++)
        last_piece(how);
}

/* Records of no data in a run take no byte, so only a count bounds how
 * many a chunk holds: mount numbers past a damaged newest chunk by that
 * bound. The bound held for one piece but not for a chunk of several: two
 * syncs of 3,000 event markers each (4 KiB chunks: the bound is 4,044) put
 * 6,000 numbers in one chunk, and after that chunk was damaged mount gave
 * numbers 4,044.. again - a reader that had read on to 5,999 and resumes
 * after it would skip what came next. The oracle is the test's own count
 * of the numbers given before the cut. */
static void a_damaged_chunk_of_many_pieces_gives_no_number_twice(void)
{
    uint16_t id;
    CHECK_EQ(nor_log(256u << 10, &id), 0);
    CHECK_EQ(sl_sync(&lg), 0); /* the stream's catalog page */
    uint64_t given = 0;
    uint32_t first_chunk = UINT32_MAX, start = lg.next_chunk;
    for (int piece = 0; piece < 2; piece++) {
        for (int k = 0; k < 3000; k++, given++) {
            int rc;
            while ((rc = sl_append(&lg, id, ts_of(given), NULL, 0)) == SL_EFULL)
                CHECK(sl_pump(&lg) >= 0);
            CHECK_EQ(rc, 0);
        }
        CHECK_EQ(sl_sync(&lg), 0);
        if (!piece) { /* 3,000 fit one chunk: its bound is 4,044, not less */
            CHECK(lg.piece_off != 0);
            CHECK_EQ(lg.next_chunk, start);
            first_chunk = lg.next_chunk;
        }
    }
    CHECK(first_chunk != UINT32_MAX);
    /* the newest data chunk: the one a piece goes on in, else the last */
    uint32_t seg = lg.cur_seg, chunk = lg.piece_off ? lg.next_chunk : lg.next_chunk - 1;
    uint64_t at = (uint64_t)seg * (64u << 10) + (uint64_t)chunk * 4096;
    uint8_t h[64];
    CHECK_EQ(bd.ops->read(bd.ctx, at, h, sizeof(h)), 0);
    uint32_t off = 24; /* a header byte past its magic and place that is not 0 */
    while (off < sizeof(h) && !h[off])
        off++;
    CHECK(off < sizeof(h));
    uint8_t zero = 0;
    CHECK_EQ(bd.ops->program(bd.ctx, at + off, &zero, 1), 0);
    sts_sim_power_cut(&sim);
    sts_sim_power_on(&sim);
    CHECK_EQ(sl_mount(&lg, &cfg), 0);
    CHECK_EQ(sl_stream_open(&lg, "imu", &id), 0);
    CHECK_EQ(append_each_synced(id, 100, 3), 0);
    struct sl_iter it;
    struct sl_record r;
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, id, 0), 0);
    uint64_t after = 0, last = 0, got = 0;
    while (sl_iter_next(&it, &r) == SL_OK) {
        CHECK(!got || r.gseq > last);
        last = r.gseq;
        got++;
        if (r.len) { /* written after the mount: numbered past every number given */
            uint8_t want[32];
            size_t len = sts_test_rec_bytes(100 + after, want);
            CHECK(r.len == len && !memcmp(r.data, want, len) && r.ts == ts_of(100 + after));
            CHECK(r.gseq >= given);
            after++;
        }
    }
    CHECK_EQ(after, 3);
    struct sl_stats st;
    sl_stats(&lg, &st);
    CHECK(st.corrupt_chunks + it.skipped + it.torn > 0); /* the loss is said */
}

/* The oldest segment's tail may be missing by design - an eviction a
 * power cut stopped erases the records first and the header last - and the
 * reader excuses exactly that gap as evicted. A segment whose data reaches
 * its end did not lose its tail that way: a damaged last piece there is a
 * loss, and must be counted as one (torn), not excused. */
static void a_damaged_last_piece_of_the_oldest_segment_is_a_loss(void)
{
    uint16_t id;
    CHECK_EQ(nor_log(256u << 10, &id), 0);
    CHECK_EQ(append_each_synced(id, 0, 3000), 0);
    uint32_t oldest = UINT32_MAX;
    for (uint32_t i = 0; i < lg.n_segs; i++)
        if (lg.segs[i].seq && (oldest == UINT32_MAX || lg.segs[i].seq < lg.segs[oldest].seq))
            oldest = i;
    CHECK(oldest != UINT32_MAX && oldest != lg.cur_seg);
    CHECK_EQ(lg.st.evictions, 0); /* nothing left the log: no gap is by design */
    /* the last byte written in it: the last piece's CRC */
    uint64_t base = (uint64_t)oldest * (64u << 10), at = base + (64u << 10);
    uint8_t b = 0xFF;
    while (b == 0xFF && at > base)
        CHECK_EQ(bd.ops->read(bd.ctx, --at, &b, 1), 0);
    CHECK(at > base + 4096);
    uint8_t cleared = (uint8_t)(b & (b - 1)); /* one programmed bit more, as a leak */
    if (cleared == b)
        cleared = 0;
    CHECK_EQ(bd.ops->program(bd.ctx, at, &cleared, 1), 0);
    struct sl_iter it;
    struct sl_record r;
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, id, 0), 0);
    uint64_t got = 0;
    while (sl_iter_next(&it, &r) == SL_OK)
        got++;
    CHECK(got > 0 && got < 3000);
    CHECK_EQ(it.evicted, 0);
    CHECK(it.torn + it.skipped >= 1); /* said, as a loss */
}

/* A log formatted before pieces (version 4) is written on without them,
 * and one formatted before short pieces (version 5) with pieces of a full
 * chunk header, so the firmware that wrote it still reads all of it; the
 * segment headers are rewritten to say 4 or 5, as that library wrote them. */
static void log_of_version(unsigned version)
{
    uint16_t id;
    CHECK_EQ(nor_log(256u << 10, &id), 0);
    CHECK_EQ(sl_sync(&lg), 0); /* the stream's catalog page */
    for (uint32_t s = 0; s < lg.n_segs; s++) {
        uint64_t at = (uint64_t)s * (64u << 10);
        uint8_t h[60];
        CHECK_EQ(bd.ops->read(bd.ctx, at, h, sizeof(h)), 0);
        if (memcmp(h, "SLSG", 4))
            continue;
        CHECK_EQ(h[4], 7); /* a NOR without ECC: carried short pieces */
        /* NOR bits only clear: a header saying 4 goes into an erased copy */
        h[4] = (uint8_t)version;
        uint32_t sum = sl_crc32c(0, h, 56);
        for (int i = 0; i < 4; i++)
            h[56 + i] = (uint8_t)(sum >> (8 * i));
        uint8_t block[4096];
        CHECK_EQ(bd.ops->read(bd.ctx, at, block, sizeof(block)), 0);
        memcpy(block, h, sizeof(h));
        CHECK_EQ(bd.ops->erase(bd.ctx, at, sizeof(block)), 0);
        CHECK_EQ(bd.ops->program(bd.ctx, at, block, sizeof(block)), 0);
    }
    CHECK_EQ(sl_mount(&lg, &cfg), 0);
    CHECK_EQ(lg.version, version);
    CHECK_EQ(sl_stream_open(&lg, "imu", &id), 0);
    CHECK_EQ(append_each_synced(id, 0, 1), 0); /* a chunk's first piece */
    uint64_t w0 = sim.n.bytes_written;
    CHECK_EQ(append_each_synced(id, 1, 4), 0);
    uint64_t each = (sim.n.bytes_written - w0) / 4;
    if (version == 4) {
        CHECK_EQ(lg.piece_off, 0); /* each sync closed its chunk */
    } else {
        CHECK(lg.piece_off != 0); /* pieces, each with a 52-byte chunk header */
        CHECK(each > 52 + 10);
    }
    CHECK_EQ(read_from_oldest(id, 4), 5);
    sts_sim_power_cut(&sim);
    sts_sim_power_on(&sim);
    CHECK_EQ(sl_mount(&lg, &cfg), 0);
    CHECK_EQ(lg.version, version); /* the new segments' headers say it too */
    CHECK_EQ(read_from_oldest(id, 4), 5);
}

static void a_version_4_log_is_written_on_without_pieces(void) { log_of_version(4); }
static void a_version_5_log_is_written_on_with_full_pieces(void) { log_of_version(5); }

const struct sts_test_case test_sl_pieces_cases[] = {
    {"a_damaged_last_piece_is_reported_as_a_torn_one",
     a_damaged_last_piece_is_reported_as_a_torn_one},
    {"a_synced_record_costs_its_bytes_on_a_nor_without_ecc",
     a_synced_record_costs_its_bytes_on_a_nor_without_ecc},
    {"a_synced_record_costs_a_page_not_a_chunk", a_synced_record_costs_a_page_not_a_chunk},
    {"pieces_are_read_every_way_and_after_a_remount",
     pieces_are_read_every_way_and_after_a_remount},
    {"a_reader_following_the_writer_gets_every_synced_record",
     a_reader_following_the_writer_gets_every_synced_record},
    {"a_torn_piece_keeps_the_pieces_before_it", a_torn_piece_keeps_the_pieces_before_it},
    {"a_piece_numbered_back_is_not_the_next_one", a_piece_numbered_back_is_not_the_next_one},
    {"a_damaged_piece_costs_only_its_records", a_damaged_piece_costs_only_its_records},
    {"a_damaged_short_piece_in_the_newest_chunk_is_reported",
     a_damaged_short_piece_in_the_newest_chunk_is_reported},
    {"a_damaged_chunk_of_many_pieces_gives_no_number_twice",
     a_damaged_chunk_of_many_pieces_gives_no_number_twice},
    {"a_damaged_last_piece_of_the_oldest_segment_is_a_loss",
     a_damaged_last_piece_of_the_oldest_segment_is_a_loss},
    {"a_version_4_log_is_written_on_without_pieces",
     a_version_4_log_is_written_on_without_pieces},
    {"a_version_5_log_is_written_on_with_full_pieces",
     a_version_5_log_is_written_on_with_full_pieces},
    {NULL, NULL},
};
