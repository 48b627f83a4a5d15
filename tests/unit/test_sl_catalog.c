/* sensorlog's stream catalog under many creates and deletes: a segment
 * fills with catalog updates instead of being left after 32 of them (a
 * burst of creates burnt a segment, and on NOR its erase, every 16), mount
 * still rebuilds the catalog from at most SL_CATALOG_UPDATES + 1 catalog
 * chunks (what a version-3 reader walks), and a power cut anywhere in the
 * burst, including while every page is being rewritten, keeps every name
 * whose create or delete had returned. */
#include "sts_test.h"
#include "sensorlog/sensorlog.h"
#include "storscope/error.h"
#include "storscope/sensorlog_fs.h"
#include "storscope/sim.h"

#include "test_mem.h"

#include <string.h>

/* ---- a NOR that counts chunk writes and reads --------------------------- */
static struct sts_sim sim;
static struct sts_bd inner;
static uint64_t programs, programmed, reads, erased;

static int c_read(void *ctx, uint64_t a, void *b, size_t n)
{
    (void)ctx;
    reads++;
    return inner.ops->read(inner.ctx, a, b, n);
}
static int c_program(void *ctx, uint64_t a, const void *b, size_t n)
{
    (void)ctx;
    programs++;
    programmed += n;
    return inner.ops->program(inner.ctx, a, b, n);
}
static int c_erase(void *ctx, uint64_t a, uint64_t n)
{
    (void)ctx;
    erased += n;
    return inner.ops->erase(inner.ctx, a, n);
}
static int c_flush(void *ctx)
{
    (void)ctx;
    return inner.ops->flush(inner.ctx);
}
static void c_geometry(void *ctx, struct sts_bd_geometry *g)
{
    (void)ctx;
    inner.ops->geometry(inner.ctx, g);
}
static const struct sts_bd_ops counted = {
    .version = STS_BD_OPS_VERSION, c_read, c_program, c_erase, c_flush, c_geometry, NULL, NULL,
    NULL
};

static struct sl_log lg;
static struct sl_config cfg;
static uint8_t ring[2048], chunk_buf[1024], read_buf[1024];
static struct sl_seg_info segs[16];
static struct sl_stream_info streams[200];

/* A 1 MiB NOR log: 1 KiB chunks (40 catalog entries a page), 64 KiB
 * segments of 64 chunks, `max_streams` slots. */
static int nor_log(uint32_t max_streams)
{
    struct sts_sim_params p = *sts_sim_profile_find("nor-spi");
    p.capacity = 1024 * 1024;
    programs = reads = 0;
    int rc = sts_sim_init(&sim, &p, 5, sts_test_sim_arena, sizeof(sts_test_sim_arena),
                          p.capacity, &inner);
    memset(&cfg, 0, sizeof(cfg));
    cfg.bd = (struct sts_bd){&counted, NULL};
    cfg.buffer = ring;
    cfg.buffer_bytes = sizeof(ring);
    cfg.chunk_buf = chunk_buf;
    cfg.read_buf = read_buf;
    cfg.segs = segs;
    cfg.n_segs = 16;
    cfg.streams = streams;
    cfg.max_streams = max_streams;
    cfg.chunk_bytes = 1024;
    cfg.segment_bytes = 64 * 1024;
    return rc ? rc : sl_format(&lg, &cfg);
}

static int pump_all(void)
{
    int rc;
    while ((rc = sl_pump(&lg)) == SL_BUSY)
        ;
    return rc;
}

/* ---- the burst: op i creates "c<i>", or (odd i from 30 on) deletes
 * "c<i-29>": 30 streams live, give or take one, whatever the length ---- */
#define OPS 360
static uint16_t ids[OPS + 30];
static uint8_t state[OPS + 30]; /* the test's own catalog: 0 never, 1 created, 2 deleted */

static int is_delete(uint32_t i)
{
    return i >= 30 && i % 2 == 1;
}

static void name_of(uint32_t i, char name[8])
{
    name[0] = 'c';
    name[1] = (char)('0' + i / 100 % 10);
    name[2] = (char)('0' + i / 10 % 10);
    name[3] = (char)('0' + i % 10);
    name[4] = 0;
}

/* Op i, written through to the device. */
static int op(uint32_t i)
{
    char name[8];
    int rc;
    if (is_delete(i)) {
        rc = sl_stream_delete(&lg, ids[i - 29]);
    } else {
        name_of(i, name);
        rc = sl_stream_create(&lg, name, &ids[i]);
    }
    return rc ? rc : pump_all();
}
static void done(uint32_t i)
{
    if (is_delete(i))
        state[i - 29] = 2;
    else
        state[i] = 1;
}

/* After a mount: every name the test's catalog holds is there with its id,
 * every deleted one is gone; `doubt` (an op a cut interrupted) may have
 * gone either way. `checked` counts the names looked at. */
static uint32_t checked;
static void catalog_matches(uint32_t n_ops, uint32_t doubt)
{
    checked = 0;
    for (uint32_t i = 0; i < n_ops; i++) {
        if (is_delete(i) || i == doubt || (is_delete(doubt) && i == doubt - 29))
            continue;
        char name[8];
        name_of(i, name);
        uint16_t id = 0;
        int rc = sl_stream_open(&lg, name, &id);
        if (state[i] == 1) {
            CHECK_EQ(rc, SL_OK);
            CHECK_EQ(id, ids[i]);
        } else {
            CHECK_EQ(rc, SL_ENOENT);
        }
        checked++;
    }
}

/* Before: a segment took 32 catalog chunks (16 creates, each written
 * twice) and the next began, so 360 ops used 23 segments of which 30 of 64
 * chunks stayed unwritten, and the 1 MiB log wrapped. Now a segment is
 * written to its end; every SL_CATALOG_UPDATES - 2P chunks the P pages are
 * written again, so mount finds all of them among the newest
 * SL_CATALOG_UPDATES + 1 catalog chunks. */
static void catalog_updates_fill_their_segment(void)
{
    static const uint32_t slots[2] = {40, 200}; /* 1 catalog page, 5 */
    for (int v = 0; v < 2; v++) {
        CHECK_EQ(nor_log(slots[v]), 0);
        uint32_t pages = lg.n_pages, seq0 = lg.seq;
        uint64_t programs0 = programs;
        memset(state, 0, sizeof(state));
        for (uint32_t i = 0; i < OPS; i++) {
            CHECK_EQ(op(i), SL_OK);
            done(i);
        }
        uint32_t opened = lg.seq - seq0;
        uint64_t written = programs - programs0; /* one chunk each */
        /* every segment but the open one was written to its last chunk */
        CHECK(opened >= 1);
        CHECK((uint64_t)(opened - 1) * 64 <= written);
        /* an op is a page written twice; a rewrite of the P pages at most
         * every 32 - P catalog chunks, and each segment its header and P */
        CHECK(written <= 2 * OPS + 2 * OPS * pages / (32 - pages) + 1 + opened * (1 + pages));
        uint64_t reads0 = reads;
        CHECK_EQ(sl_mount(&lg, &cfg), 0);
        /* 16 headers, the end of the newest segment (bisection over 64
         * chunks: 8), its header pages, its last chunk and at most 33
         * catalog chunks back from there, then the last chunk again and
         * the one past it (the log's numbering goes on from there) */
        CHECK(reads - reads0 <= 16 + 8 + pages + 1 + SL_CATALOG_UPDATES + 1 + 2);
        catalog_matches(OPS, OPS);
        CHECK_EQ(checked, 30 + (OPS - 30) / 2);
        /* writing goes on after the mount, and a second mount agrees */
        for (uint32_t i = OPS; i < OPS + 30; i++) {
            CHECK_EQ(op(i), SL_OK);
            done(i);
        }
        CHECK_EQ(sl_mount(&lg, &cfg), 0);
        catalog_matches(OPS + 30, OPS + 30);
        CHECK_EQ(checked, 30 + OPS / 2);
    }
}

/* A power cut during each device command of a burst of 120 ops (three
 * catalog pages: refreshes every 26 chunks, so several are cut part-way):
 * after the remount, every op that had returned holds, the op that was
 * cut went one way or the other, and the log takes more creates. */
static void a_cut_anywhere_in_a_burst_of_creates_keeps_every_name(void)
{
    uint32_t cuts = 0, refreshes_cut = 0;
    for (uint64_t cut = 1; cut <= 330; cut += 2) {
        CHECK_EQ(nor_log(120), 0);
        CHECK_EQ(lg.n_pages, 3);
        memset(state, 0, sizeof(state));
        struct sts_sim_faults f = {.cut_after_ops = sim.host_ops + cut};
        sts_sim_set_faults(&sim, &f);
        uint32_t i = 0;
        int rc = SL_OK;
        for (; i < 120 && rc == SL_OK; i++) {
            rc = op(i);
            if (rc == SL_OK)
                done(i);
        }
        if (rc == SL_OK)
            break; /* the burst took fewer commands than this */
        CHECK_EQ(rc, SL_EIO);
        uint32_t cut_op = i - 1;
        refreshes_cut += lg.refresh_pages != 0;
        sts_sim_power_on(&sim);
        struct sts_sim_faults none = {0};
        sts_sim_set_faults(&sim, &none);
        CHECK_EQ(sl_mount(&lg, &cfg), SL_OK);
        catalog_matches(cut_op, cut_op);
        /* the first writes after the remount: the rest of the burst */
        if (is_delete(cut_op)) { /* the cut delete: done again, or already done */
            uint16_t id;
            char name[8];
            name_of(cut_op - 29, name);
            if (sl_stream_open(&lg, name, &id) == SL_OK)
                CHECK_EQ(op(cut_op), SL_OK);
            done(cut_op);
        } else { /* the cut create: there or not; made sure */
            char name[8];
            name_of(cut_op, name);
            if (sl_stream_open(&lg, name, &ids[cut_op]) != SL_OK)
                CHECK_EQ(op(cut_op), SL_OK);
            done(cut_op);
        }
        for (uint32_t j = cut_op + 1; j < 150; j++) {
            CHECK_EQ(op(j), SL_OK);
            done(j);
        }
        CHECK_EQ(sl_mount(&lg, &cfg), SL_OK);
        catalog_matches(150, 150);
        CHECK_EQ(checked, 90);
        cuts++;
    }
    CHECK(cuts > 100);
    CHECK(refreshes_cut >= 3); /* cuts did fall inside a rewrite of the pages */
}

/* The facade has no idle time of its own: it erases ahead as it goes. Each
 * create took two 4 KiB chunks (its catalog page, twice) and the facade
 * erased one 4 KiB sector per operation, so it fell behind and the create
 * that opened a segment erased the rest of it at once (a NOR segment of
 * 1 MiB: seconds). Now no operation erases much more than it wrote, through
 * four laps of the medium. */
static struct sts_slfs fsx;
static struct sts_slfs_file files[32];

/* The facade on a 1 MiB NOR: 4 KiB chunks in 64 KiB segments, 32 files,
 * `ring_bytes` of RAM buffer. */
static int nor_facade(uint8_t *ring_buf, uint32_t ring_bytes, struct sts_fs *fs)
{
    struct sts_sim_params p = *sts_sim_profile_find("nor-spi");
    p.capacity = 1024 * 1024;
    if (sts_sim_init(&sim, &p, 9, sts_test_sim_arena, sizeof(sts_test_sim_arena), p.capacity,
                     &inner))
        return STS_EINVAL;
    static uint8_t chunk4k[4096], read4k[4096];
    struct sts_slfs_config fc = {
        .log = {.bd = {&counted, NULL}, .chunk_bytes = 4096, .segment_bytes = 64 * 1024,
                .buffer = ring_buf, .buffer_bytes = ring_bytes, .chunk_buf = chunk4k,
                .read_buf = read4k, .segs = segs, .n_segs = 16, .streams = streams,
                .max_streams = 32},
        .files = files, .n_files = 32};
    return sts_slfs_init(&fsx, &fc, fs);
}

static void facade_operations_erase_as_much_as_they_write(void)
{
    struct sts_fs fs;
    CHECK_EQ(nor_facade(ring, sizeof(ring), &fs), STS_OK);
    uint64_t worst = 0, wrote = 0, erased_all = 0;
    erased = 0;
    for (uint32_t i = 0; i < 600; i++) { /* 1,200 chunks: over four laps of 256 */
        char name[8];
        name_of(i % 20, name);
        uint64_t p0 = programs, e0 = erased;
        sts_fh fh;
        if (i / 20 % 2 == 0) { /* 20 creates, then 20 deletes */
            CHECK_EQ(fs.ops->open(fs.ctx, name, STS_O_WRONLY | STS_O_CREAT, &fh), STS_OK);
            CHECK_EQ(fs.ops->close(fs.ctx, fh), STS_OK);
        } else {
            CHECK_EQ(fs.ops->unlink(fs.ctx, name), STS_OK);
        }
        uint64_t e = erased - e0, w = (programs - p0) * 4096;
        wrote += w;
        erased_all += e;
        if (e > w && e - w > worst)
            worst = e - w;
    }
    CHECK(erased_all >= wrote - 1024 * 1024); /* the laps did need erasing */
    CHECK(worst <= 2 * 4096);                 /* and no operation took a segment's */
}

/* The facade writes a chunk when it is full, as an I/O task would, not
 * when the next sync comes: with the chunks of a second left in RAM, the
 * sync paid for all of them and their erases (on an aged NOR over a
 * second, so L1's records synced each second were late). 40 KiB in 255-B
 * writes fills 10 of its 4 KiB chunks before the sync, with room to spare
 * in a 64 KiB RAM buffer, so nothing but the facade's choice writes them. */
static void facade_writes_chunks_as_they_fill(void)
{
    static uint8_t ring64k[65536];
    struct sts_fs fs;
    CHECK_EQ(nor_facade(ring64k, sizeof(ring64k), &fs), STS_OK);
    sts_fh fh;
    CHECK_EQ(fs.ops->open(fs.ctx, "log", STS_O_WRONLY | STS_O_CREAT, &fh), STS_OK);
    uint8_t piece[255];
    memset(piece, 0x5A, sizeof(piece));
    uint64_t p0 = programs;
    size_t done;
    for (uint32_t i = 0; i < 40 * 1024 / sizeof(piece); i++)
        CHECK_EQ(fs.ops->write(fs.ctx, fh, piece, sizeof(piece), &done), STS_OK);
    uint64_t by_writes = programs - p0;
    CHECK(by_writes >= 8); /* 40,800 B: at least 8 whole chunks of 4,044 payload bytes */
    p0 = programs;
    CHECK_EQ(fs.ops->sync(fs.ctx, fh, STS_SYNC_DATA), STS_OK);
    CHECK(programs - p0 <= 2); /* the last, partial chunk */
    /* so a device that fails is reported by the write that needed it, not
     * by a sync seconds later: power is cut at the next command (the
     * sync's chunk goes on in a piece: the write that fills it needs it) */
    struct sts_sim_faults cut = {.cut_after_ops = sim.host_ops};
    sts_sim_set_faults(&sim, &cut);
    int rc = STS_OK;
    uint32_t writes = 0;
    while (rc == STS_OK && writes < 40 * 1024 / sizeof(piece)) {
        rc = fs.ops->write(fs.ctx, fh, piece, sizeof(piece), &done);
        writes++;
    }
    CHECK(rc != STS_OK);
    CHECK(writes <= 4096 / sizeof(piece) + 1); /* the write that filled the first chunk */
    struct sts_sim_faults none = {0};
    sts_sim_set_faults(&sim, &none);
}

/* A create costs the same whatever the number of streams: its catalog
 * page is written whole, every slot, used or free. Session 15 tried
 * writing a page only up to its last slot in use (half the programs of a
 * create on NOR, on average): a create then cost more with every stream
 * alive, up to the whole page, and M2 read that as creates slowing as the
 * medium filled - the growth with the number of files that sensorlog is
 * built not to have. Counted at the device: the bytes programmed by the
 * 1st and the 14th create (one catalog page of 40 slots, written twice;
 * the 16th is followed by the rewrite of the page, every 31 catalog
 * chunks). */
static void a_create_costs_the_same_whatever_the_streams(void)
{
    CHECK_EQ(nor_log(40), 0);
    uint64_t cost[2] = {0, 0};
    for (uint32_t i = 0; i < 14; i++) {
        char name[8];
        name_of(i, name);
        CHECK_EQ(pump_all(), SL_OK); /* the segment is open: a create is its page */
        uint64_t p0 = programmed;
        uint16_t id;
        CHECK_EQ(sl_stream_create(&lg, name, &id), SL_OK);
        CHECK_EQ(pump_all(), SL_OK);
        if (i == 0 || i == 13)
            cost[i != 0] = programmed - p0;
    }
    /* two copies of the page, every slot of it: a chunk header, the page's
     * 8 bytes and 40 entries of 24 (the NOR programs bytes: 1,020 of the
     * 1 KiB chunk) */
    CHECK_EQ(cost[0], 2 * (52 + 8 + 40 * 24));
    CHECK_EQ(cost[1], cost[0]);
}

/* Whether the device holds n bytes equal to pat anywhere (entries never
 * cross a 1 KiB chunk: reading chunk by chunk finds them); -1 if a read
 * fails. */
static int device_holds(const uint8_t *pat, size_t n)
{
    static uint8_t blk[1024];
    for (uint64_t a = 0; a < 1024 * 1024; a += sizeof(blk)) {
        if (inner.ops->read(inner.ctx, a, blk, sizeof(blk)))
            return -1;
        for (size_t i = 0; i + n <= sizeof(blk); i++)
            if (!memcmp(blk + i, pat, n))
                return 1;
    }
    return 0;
}

/* Names are found whole ("im" is not "imu"), a name is read no further
 * than the 15 bytes one may take (no strlen past an unterminated array:
 * ASan's build checks), and a name that takes a longer one's slot goes to
 * the catalog padded with NULs, not with the old name's tail. */
static void names_match_whole_and_go_to_the_catalog_padded(void)
{
    CHECK_EQ(nor_log(2), 0);
    uint16_t a, b, id = 0;
    CHECK_EQ(sl_stream_create(&lg, "fourteen-bytes", &a), SL_OK);
    char unterminated[15];
    memset(unterminated, 'x', sizeof(unterminated));
    CHECK_EQ(sl_stream_create(&lg, unterminated, &id), SL_EINVAL);
    CHECK_EQ(sl_stream_create(&lg, "imu", &b), SL_OK);
    CHECK_EQ(sl_stream_create(&lg, "imu", &id), SL_EEXIST);
    static const char *const absent[] = {"im", "imu2", "fourteen-byte", "fourteen-bytesx", ""};
    for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++)
        CHECK_EQ(sl_stream_open(&lg, absent[i], &id), SL_ENOENT);
    CHECK_EQ(sl_stream_open(&lg, "imu", &id), SL_OK);
    CHECK_EQ(id, b);
    CHECK_EQ(sl_stream_delete(&lg, a), SL_OK);
    CHECK_EQ(sl_stream_create(&lg, "ab", &id), SL_OK); /* slots go round: a's */
    CHECK_EQ(id, a);
    CHECK_EQ(pump_all(), SL_OK);
    uint8_t entry[16] = {(uint8_t)a, (uint8_t)(a >> 8), 'a', 'b'}; /* id, name, 12 NULs */
    CHECK_EQ(device_holds(entry, sizeof(entry)), 1);
    static const uint8_t tail[] = {'a', 'b', 0, 'r', 't', 'e', 'e', 'n'};
    CHECK_EQ(device_holds(tail, sizeof(tail)), 0);
    CHECK_EQ(sl_mount(&lg, &cfg), SL_OK);
    CHECK_EQ(sl_stream_open(&lg, "ab", &id), SL_OK);
    CHECK_EQ(id, a);
    CHECK_EQ(sl_stream_open(&lg, "fourteen-bytes", &id), SL_ENOENT);
    CHECK_EQ(sl_stream_open(&lg, "imu", &id), SL_OK);
    CHECK_EQ(id, b);
}

const struct sts_test_case test_sl_catalog_cases[] = {
    {"names_match_whole_and_go_to_the_catalog_padded",
     names_match_whole_and_go_to_the_catalog_padded},
    {"a_create_costs_the_same_whatever_the_streams", a_create_costs_the_same_whatever_the_streams},
    {"facade_writes_chunks_as_they_fill", facade_writes_chunks_as_they_fill},
    {"facade_operations_erase_as_much_as_they_write",
     facade_operations_erase_as_much_as_they_write},
    {"catalog_updates_fill_their_segment", catalog_updates_fill_their_segment},
    {"a_cut_anywhere_in_a_burst_of_creates_keeps_every_name",
     a_cut_anywhere_in_a_burst_of_creates_keeps_every_name},
    {NULL, NULL},
};
