/* sensorlog's durability sweep: power cuts after every device command k
 * (and a second cut 1..40 commands into the recovery), single bit flips
 * and 8-bit bursts in a synced image, and transient read errors during
 * mount, on simulated NOR, NAND, eMMC and SD with their real page sizes
 * and the library's default chunk and segment sizes.
 *
 * The oracle is independent of the store: the harness keeps, per stream,
 * how many records were appended and how many were covered by the last
 * sl_sync() that returned SL_OK. A record carries its stream's
 * incarnation and its index, and its bytes and timestamp follow from them,
 * so a record returned from the wrong place, twice, or damaged is caught.
 * After remounting, every record covered by a sync must be there, once,
 * in order, unless it is older than the oldest record the log still holds
 * (the log recycles its oldest segment by design).
 *
 *   sensorlog_sweep [--cuts N] [--flips N] [--scale N] [--seed S] [--only NAME]
 *                   [--trial K SECOND] [-v]
 *
 * --cuts N: first cuts per configuration (each k in 1..N, at most the
 * workload's command count); --scale N: a workload N times as long (more
 * commands to cut); --flips N: flips and bursts per configuration;
 * --trial: one power-cut trial, to look at. Exit 0 when nothing synced was lost and no wrong data was
 * returned; the counts are printed either way. */
#include "sensorlog/sensorlog.h"
#include "storscope/error.h"
#include "storscope/rng.h"
#include "storscope/sim.h"
#include "storscope/invertbd.h"
#include "storscope/verifybd.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STREAMS 8   /* catalog slots: small, so slots are reused */
#define MAX_SLOTS 128   /* the most a configuration asks for */
#define MAX_INC 4096    /* stream incarnations in one trial */
#define MAX_RECORDS (1u << 20)
#define NO_INC 0xFFFFu /* a record the oracle forgot */

struct sweep_config {
    const char *name;
    const char *profile;
    uint64_t capacity;
    uint32_t erase_bytes;  /* 0: the profile's */
    uint32_t chunk, segment; /* 0: the library's defaults */
    int nonblocking;       /* use the device's submit/poll */
    uint32_t workload_steps;
    uint32_t erase_unit;   /* cfg.erase_unit_bytes: 0 = the erase block */
    int reformat;          /* an old log is written, then formatted over (format
                              leaves its segments to be erased lazily) first */
    uint32_t erase_slice_ns; /* cfg.erase_slice_ns: erases suspended between slices */
    uint32_t record_len;   /* every record this long, in bursts of one stream (format 3's
                              runs form); 0: 8 .. 48 bytes, streams at random */
    uint32_t max_streams;  /* catalog slots; 0: MAX_STREAMS (one page) */
    uint32_t catalog_pct;  /* percent of steps that create or delete a stream; 0: 7 */
    uint32_t prefill_pct;  /* old data (seeded random bytes) in this percent of the
                              erase blocks before the first format; 0 none */
    uint32_t prog_error_ppm; /* programs that fail for good (the block grows bad: it
                                takes no more programs or erases, what it held reads) */
    int reader;            /* a reader with a buffer of its own goes through the log
                              between the workload's steps, checking every record */
    int sync_each;         /* a sync after every record appended: on pages smaller than a
                              chunk, each goes on in a piece (format 5) */
    int ecc;               /* a NOR with ECC (no_ecc=0): a cut page reads as an error, and
                              pieces go a page apart, not a byte */
    int silent;            /* prog_error_ppm's failures say nothing: the program and later
                              ones and erases in that block report success, change nothing */
    int verify;            /* the log's device reads back every program (sts_verifybd) */
    int erases_to_zero;    /* flash that erases to 0x00, under sts_invertbd */
};

/* Media small enough that the workload recycles every segment several
 * times within the commands swept. */
static const struct sweep_config configs[] = {
    {"nor-defaults", "nor-spi", 256u << 10, 0, 0, 0, 0, 900, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"nor-1k-chunks", "nor-spi", 128u << 10, 0, 1024, 8192, 0, 900, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* 2 MiB in 1 KiB chunks: the default segment (16 KiB) doubles to 128 KiB */
    {"nor-doubled-segments", "nor-spi", 2u << 20, 0, 1024, 0, 0, 7200, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* the pump erases 64 KiB blocks (SPI NOR's large erase): cuts inside one */
    {"nor-large-erase", "nor-spi", 1u << 20, 0, 1024, 64u << 10, 0, 900, 64u << 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* a log formatted over an old one: its segments must never come back */
    {"nor-reformatted", "nor-spi", 256u << 10, 0, 1024, 16u << 10, 0, 900, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"emmc-reformatted", "emmc-stm32u5", 2u << 20, 256u << 10, 0, 0, 0, 900, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"nand-defaults", "nand-slc", 1u << 20, 0, 0, 0, 0, 900, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"emmc-defaults", "emmc-stm32u5", 2u << 20, 256u << 10, 0, 0, 0, 900, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"emmc-nonblocking", "emmc-stm32u5", 2u << 20, 256u << 10, 0, 0, 1, 900, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"sd-defaults", "sd-consumer", 2u << 20, 256u << 10, 0, 0, 0, 900, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* erases suspended every 1 ms (SPI NOR erase suspend): cuts between the
     * slices, with writes in between, and in a suspended 64 KiB block */
    {"nor-sliced-erase", "nor-spi", 256u << 10, 0, 1024, 16u << 10, 0, 900, 0, 0, 1000000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"nor-large-sliced", "nor-spi", 512u << 10, 0, 1024, 64u << 10, 0, 1800, 64u << 10, 0, 5000000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* fixed-size records in bursts: runs, cut anywhere in them */
    {"nor-runs", "nor-spi", 256u << 10, 0, 0, 0, 0, 900, 0, 0, 0, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* a catalog of 3 pages, streams created and deleted at 35 % of steps:
     * segments fill with catalog updates and the updated pages are written
     * again every 29 catalog chunks, cut anywhere in that */
    {"nor-catalog-pages", "nor-spi", 256u << 10, 0, 1024, 64u << 10, 0, 900, 0, 0, 0, 0, 120, 35, 0, 0, 0, 0, 0, 0, 0, 0},
    /* the dirty world (issue 40): formatted over another filesystem's data
     * with blank blocks between; pages that fail to program for good, their
     * blocks retired when the log comes round; a reader in step with the
     * writer that the log wraps past */
    {.name = "nor-dirty", .profile = "nor-spi", .capacity = 256u << 10, .chunk = 1024,
     .segment = 16u << 10, .workload_steps = 900, .prefill_pct = 50},
    {.name = "nand-growing-bad", .profile = "nand-slc", .capacity = 1u << 20,
     .erase_bytes = 16u << 10, .workload_steps = 900, .prog_error_ppm = 4000},
    {.name = "nor-reader", .profile = "nor-spi", .capacity = 128u << 10, .chunk = 1024,
     .segment = 8192, .workload_steps = 900, .reader = 1},
    /* a sync after every record (issue 40): chunks go on in pieces, one a
     * page, cut anywhere in them; on NAND two 2 KiB pages a chunk; and a
     * reader following the writer through the pieces */
    {.name = "nor-sync-each", .profile = "nor-spi", .capacity = 256u << 10,
     .workload_steps = 900, .sync_each = 1},
    {.name = "nand-sync-each", .profile = "nand-slc", .capacity = 1u << 20,
     .erase_bytes = 16u << 10, .workload_steps = 900, .sync_each = 1},
    {.name = "nor-sync-reader", .profile = "nor-spi", .capacity = 128u << 10,
     .segment = 16u << 10, .workload_steps = 900, .reader = 1, .sync_each = 1},
    /* session 23: nor-spi has no ECC (a cut leaves bits, pieces a byte
     * apart); the page-rule path on a NOR that has it */
    {.name = "nor-ecc-sync-each", .profile = "nor-spi", .capacity = 256u << 10,
     .workload_steps = 900, .sync_each = 1, .ecc = 1},
    /* blocks that go bad without a word (littlefs's emulated PROGNOOP and
     * ERASENOOP): caught by reading back each program, then as above */
    {.name = "nand-silent-bad", .profile = "nand-slc", .capacity = 1u << 20,
     .erase_bytes = 16u << 10, .workload_steps = 900, .prog_error_ppm = 4000, .silent = 1,
     .verify = 1},
    {.name = "nor-silent-bad-sync-each", .profile = "nor-spi", .capacity = 256u << 10,
     .chunk = 1024, .segment = 16u << 10, .workload_steps = 900, .prog_error_ppm = 1000,
     .silent = 1, .verify = 1, .sync_each = 1},
    /* flash that erases to 0x00 (a program sets bits), seen through
     * sts_invertbd: cuts leave their bits half-way the other way */
    {.name = "nor-erases-to-zero", .profile = "nor-spi", .capacity = 256u << 10,
     .chunk = 1024, .segment = 16u << 10, .workload_steps = 900, .erases_to_zero = 1},
    {.name = "nor-erases-to-zero-sync-each", .profile = "nor-spi", .capacity = 256u << 10,
     .workload_steps = 900, .erases_to_zero = 1, .sync_each = 1},
    /* pieces that fail to program on NOR (session 30: segments retired with
     * their old headers were taken for live ones at mount, and a reader's
     * pass stopped at the first, 46 synced records unread) */
    {.name = "nor-failing-pieces", .profile = "nor-spi", .capacity = 256u << 10,
     .chunk = 1024, .segment = 16u << 10, .workload_steps = 900, .prog_error_ppm = 1000,
     .sync_each = 1},
};

static uint8_t *got;      /* by timestamp: the record was read back */
static uint8_t *evicted;  /* by timestamp: missing, but evicted */
static uint64_t *gseq_at; /* by timestamp: the sequence number it was read with */

/* ---- the oracle -------------------------------------------------------- */
struct inc {               /* one incarnation of a stream name */
    char name[12];
    uint64_t appended;     /* records appended so far (k = 0 .. appended - 1) */
    uint64_t durable;      /* records covered by the last successful sync */
    uint64_t durable_then; /* `appended` when the current sync was asked for */
    int alive;             /* created and not deleted, as far as the harness knows */
    int deleted_unsynced;  /* deleted after the last sync: may or may not be gone */
    uint16_t id;
};

struct trial {
    const struct sweep_config *c;
    struct sts_sim sim;
    void *arena;
    struct sts_bd bd;
    struct sl_config cfg;
    struct sl_log log;
    struct sl_seg_info *segs;
    struct sl_stream_info streams[MAX_SLOTS];
    uint8_t *ring, *chunk_buf, *read_buf;
    struct inc inc[MAX_INC];
    uint32_t n_inc;
    uint16_t *rec_inc;     /* by timestamp: the record's incarnation and index */
    uint32_t *rec_k;
    uint64_t evicted_end;  /* largest end of an evicted range (the evict hook) */
    uint64_t slack;        /* sequence numbers a damaged chunk may hide at the front */
    uint64_t lost_bytes;   /* the last check: bytes of the synced records missing */
    uint64_t torn;         /* the last check's iterator: chunks torn or damaged at segment ends */
    uint64_t torn_pieces;  /* the last flip's mount: a torn last piece found (sl_stats) */
    uint64_t ts;           /* global append counter: every record's timestamp */
    struct sts_rng rng;
    char why[200];
    uint32_t last_pick; /* the stream pick_alive chose last */
    /* the reader (configuration `reader`): an iterator with a buffer of
     * its own, read between the workload's steps */
    struct sl_iter rit;
    uint8_t *rbuf;
    struct sts_verifybd vbd; /* configuration `verify` */
    uint8_t vbuf[4096];
    struct sts_invertbd ibd; /* configuration `erases_to_zero` */
    uint8_t ibuf[64u << 10];
    int rstarted;
    uint64_t rwrong;
    uint64_t rnext, rlosses; /* the gseq expected next; skipped + torn when it was set */
    char rwhy[200];          /* what the reader got first that it should not have */
};

/* What the readers of every trial saw: records checked, passes the log
 * wrapped past (SL_EOVERTAKEN) */
static uint64_t reader_records, reader_overtaken;

static uint32_t fixed_len; /* the configuration's record_len */

static size_t record_bytes(uint32_t inc, uint64_t k, uint64_t ts, uint8_t *out)
{
    size_t len = fixed_len ? fixed_len : 8 + (size_t)(sts_mix64(inc * 7919ull + k) % 41);
    out[0] = (uint8_t)inc;
    out[1] = (uint8_t)(inc >> 8);
    for (int i = 0; i < 4; i++)
        out[2 + i] = (uint8_t)(k >> (8 * i));
    for (size_t i = 6; i < len; i++)
        out[i] = (uint8_t)(sts_mix64(ts * 131 + i) >> 16);
    return len;
}

static void on_evict(void *ctx, uint64_t first, uint64_t end)
{
    struct trial *t = ctx;
    (void)first;
    if (end > t->evicted_end)
        t->evicted_end = end;
}

/* ---- the medium ---------------------------------------------------------- */
/* The faults a configuration's medium has all along (a power cut adds to
 * them). */
static void base_faults(const struct sweep_config *c, struct sts_sim_faults *f)
{
    f->prog_error_ppm = c->prog_error_ppm;
    f->permanent = c->prog_error_ppm != 0;
    f->silent = (uint8_t)c->silent;
}

static int trial_init(struct trial *t, const struct sweep_config *c, uint64_t seed)
{
    struct sts_sim_params p = *sts_sim_profile_find(c->profile);
    if (c->ecc)
        p.no_ecc = 0;
    p.erases_to_zero = (uint8_t)c->erases_to_zero;
    p.capacity = c->capacity;
    p.bad_permille = 0;
    p.erase_tail_x100 = 0;
    if (c->erase_bytes)
        p.erase_bytes = c->erase_bytes;
    if (p.cache_bytes > 4 * (uint64_t)p.page_bytes)
        p.cache_bytes = 4 * (uint64_t)p.page_bytes;
    size_t need = sts_sim_arena_bytes(&p, c->capacity);
    if (!t->arena)
        t->arena = malloc(need);
    memset(&t->sim, 0, sizeof(t->sim));
    if (!t->arena || sts_sim_init(&t->sim, &p, seed, t->arena, need, c->capacity, &t->bd))
        return -1;
    if (c->prefill_pct) {
        char spec[32], err[160];
        snprintf(spec, sizeof(spec), "random:%" PRIu32, c->prefill_pct);
        if (sts_sim_prefill_old(&t->sim, &t->bd, spec, seed, err, sizeof(err)))
            return -1;
    }
    struct sts_sim_faults base = {0};
    base_faults(c, &base);
    sts_sim_set_faults(&t->sim, &base);
    t->c = c;
    fixed_len = c->record_len;
    t->last_pick = UINT32_MAX;
    memset(&t->cfg, 0, sizeof(t->cfg));
    t->cfg.bd = t->bd;
    t->cfg.chunk_bytes = c->chunk;
    t->cfg.segment_bytes = c->segment;
    t->cfg.erase_unit_bytes = c->erase_unit;
    t->cfg.erase_slice_ns = c->erase_slice_ns;
    size_t chunk = 64u << 10; /* enough for any default chunk */
    if (!t->ring) {
        t->rec_inc = malloc(MAX_RECORDS * sizeof(*t->rec_inc));
        t->rec_k = malloc(MAX_RECORDS * sizeof(*t->rec_k));
        got = malloc(MAX_RECORDS);
        evicted = malloc(MAX_RECORDS);
        gseq_at = malloc(MAX_RECORDS * sizeof(*gseq_at));
        t->ring = malloc(16u << 10);
        t->chunk_buf = malloc(chunk);
        t->read_buf = malloc(chunk);
        t->rbuf = malloc(chunk);
        t->segs = calloc(4096, sizeof(*t->segs));
    }
    t->cfg.buffer = t->ring;
    t->cfg.buffer_bytes = 16u << 10;
    t->cfg.chunk_buf = t->chunk_buf;
    t->cfg.read_buf = t->read_buf;
    t->cfg.segs = t->segs;
    t->cfg.n_segs = 4096;
    t->cfg.streams = t->streams;
    t->cfg.max_streams = c->max_streams ? c->max_streams : MAX_STREAMS;
    memset(t->inc, 0, sizeof(t->inc));
    t->n_inc = 0;
    t->ts = 1;
    sts_rng_seed(&t->rng, seed * 7 + 3);
    t->evicted_end = 0;
    t->slack = 0;
    t->cfg.evict = on_evict;
    t->cfg.evict_ctx = t;
    t->rstarted = 0;
    t->rwrong = 0;
    return t->ring && t->chunk_buf && t->read_buf && t->rbuf && t->segs && t->rec_inc && t->rec_k && got && evicted && gseq_at ? 0 : -1;
}

static void hide_submit(struct trial *t, struct sts_bd_ops *ops)
{
    /* a blocking-only view of the model, unless the configuration asks for
     * the non-blocking path */
    *ops = *t->bd.ops;
    if (!t->c->nonblocking) {
        ops->submit = NULL;
        ops->poll = NULL;
    }
    t->cfg.bd.ops = ops;
    if (t->c->erases_to_zero) {
        struct sts_bd view = t->cfg.bd;
        sts_invertbd_init(&t->ibd, &view, t->ibuf, sizeof(t->ibuf), &t->cfg.bd);
    }
    if (t->c->verify) {
        struct sts_bd view = t->cfg.bd;
        sts_verifybd_init(&t->vbd, &view, t->vbuf, sizeof(t->vbuf), &t->cfg.bd);
    }
}

/* ---- the workload -------------------------------------------------------- */
static uint32_t alive_count(const struct trial *t)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < t->n_inc; i++)
        n += t->inc[i].alive;
    return n;
}

static int pick_alive(struct trial *t)
{
    uint32_t n = alive_count(t);
    if (!n)
        return -1;
    /* bursts: a sensor's samples come several at a time */
    if (fixed_len && t->last_pick < t->n_inc && t->inc[t->last_pick].alive &&
        sts_rng_below(&t->rng, 4))
        return (int)t->last_pick;
    uint32_t want = (uint32_t)sts_rng_below(&t->rng, n);
    for (uint32_t i = 0; i < t->n_inc; i++)
        if (t->inc[i].alive && want-- == 0)
            return (int)(t->last_pick = i);
    return -1;
}

static int create(struct trial *t)
{
    if (t->n_inc >= MAX_INC)
        return SL_OK;
    struct inc *s = &t->inc[t->n_inc];
    snprintf(s->name, sizeof(s->name), "s%" PRIu32, t->n_inc);
    int rc = sl_stream_create(&t->log, s->name, &s->id);
    if (rc)
        return rc == SL_ENOSPC ? SL_OK : rc;
    s->alive = 1;
    t->n_inc++;
    return SL_OK;
}

static int append_one(struct trial *t, uint32_t i)
{
    uint8_t buf[64];
    struct inc *s = &t->inc[i];
    size_t len = record_bytes(i, s->appended, t->ts, buf);
    int rc;
    while ((rc = sl_append(&t->log, s->id, t->ts, buf, len)) == SL_EFULL) {
        rc = sl_pump(&t->log);
        if (rc < 0)
            return rc;
    }
    if (rc)
        return rc;
    if (t->ts >= MAX_RECORDS)
        return SL_ENOMEM;
    {
        t->rec_inc[t->ts] = (uint16_t)i;
        t->rec_k[t->ts] = (uint32_t)s->appended;
    }
    s->appended++;
    t->ts++;
    return SL_OK;
}

static int sync_all(struct trial *t)
{
    for (uint32_t i = 0; i < t->n_inc; i++)
        t->inc[i].durable_then = t->inc[i].appended;
    int rc = sl_sync(&t->log);
    if (rc)
        return rc;
    for (uint32_t i = 0; i < t->n_inc; i++) {
        t->inc[i].durable = t->inc[i].durable_then;
        if (!t->inc[i].alive)
            t->inc[i].deleted_unsynced = 0; /* the delete is durable too */
    }
    return SL_OK;
}

static int rec_matches(const struct trial *t, const struct sl_record *r);

/* A few records more for the reader, as a task beside the writer would
 * read them: each must be the oracle's record with its timestamp. It
 * starts over, from the oldest record or the latest 20, at the end of the
 * log, when the log wrapped past it, and when the device failed (a cut). */
static void read_some(struct trial *t)
{
    if (!t->rstarted) {
        int rc = sts_rng_below(&t->rng, 2) ? sl_iter_from_gseq(&t->log, &t->rit, 0, 0)
                                           : sl_iter_latest(&t->log, &t->rit, 0, 20);
        if (rc)
            return;
        sl_iter_set_buffer(&t->rit, t->rbuf);
        t->rstarted = 1;
        t->rnext = UINT64_MAX;
    }
    for (int n = 0; n < 8; n++) {
        struct sl_record r;
        int rc = sl_iter_next(&t->rit, &r);
        if (rc) {
            reader_overtaken += rc == SL_EOVERTAKEN;
            t->rstarted = 0;
            return;
        }
        reader_records++;
        /* the record after the last one, unless the iterator counted what
         * it passed over (a damaged chunk, a torn end): a gap it does not
         * count is records hidden, or a recycled segment's taken for its */
        uint64_t losses = t->rit.skipped + t->rit.torn + t->rit.evicted;
        int gap = t->rnext != UINT64_MAX && r.gseq != t->rnext && losses == t->rlosses;
        if ((gap || !rec_matches(t, &r)) && !t->rwrong++)
            snprintf(t->rwhy, sizeof(t->rwhy), "the reader got %s (ts %" PRIu64 ", gseq %" PRIu64
                     ", after %" PRIu64 ")", gap ? "a gap it did not count" : "a wrong record",
                     r.ts, r.gseq, t->rnext - 1);
        t->rnext = r.gseq + 1;
        t->rlosses = losses;
    }
}

/* Random appends, syncs, creates, deletes and pumps; stops at the first
 * error (the power cut). */
static int workload(struct trial *t, uint32_t steps)
{
    int rc = SL_OK;
    for (uint32_t step = 0; step < steps && !rc; step++) {
        if (t->c->reader)
            read_some(t);
        uint32_t dice = (uint32_t)sts_rng_below(&t->rng, 100);
        uint32_t cat = t->c->catalog_pct ? t->c->catalog_pct : 7;
        if (dice < cat * 4 / 7 || alive_count(t) == 0) {
            rc = create(t);
        } else if (dice < cat && alive_count(t) > 1) {
            int i = pick_alive(t);
            rc = sl_stream_delete(&t->log, t->inc[i].id);
            t->inc[i].alive = 0;
            t->inc[i].deleted_unsynced = 1;
        } else if (dice < cat + 15) {
            rc = sync_all(t);
        } else {
            int i = pick_alive(t);
            uint32_t n = 1 + (uint32_t)sts_rng_below(&t->rng, 40);
            for (uint32_t j = 0; j < n && !rc; j++) {
                rc = append_one(t, (uint32_t)i);
                if (!rc && t->c->sync_each)
                    rc = sync_all(t);
            }
            for (uint32_t j = 0; j < 3 && rc >= 0; j++)
                rc = sl_pump(&t->log);
            rc = rc == SL_BUSY ? SL_OK : rc;
        }
    }
    return rc;
}

/* ---- checking ------------------------------------------------------------ */
struct seen {
    uint64_t first, next; /* records k in [first, next) were read, some maybe not */
    int any;
};
static struct seen seen[MAX_INC];

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* 1 when r is the record the oracle appended as number r->ts. */
static int rec_matches(const struct trial *t, const struct sl_record *r)
{
    uint32_t inc = r->len >= 6 ? (uint32_t)(r->data[0] | r->data[1] << 8) : UINT32_MAX;
    uint64_t k = r->len >= 6 ? get32(r->data + 2) : 0;
    uint8_t want[64];
    return inc < t->n_inc && r->ts < t->ts && t->rec_inc[r->ts] == inc && t->rec_k[r->ts] == k &&
           record_bytes(inc, k, r->ts, want) == r->len && !memcmp(want, r->data, r->len);
}

/* Records found again by a search: some of those the pass from the start
 * read, each by its sequence number and by its timestamp (the oracle's
 * append index: unique, and growing in log order), must come back as the
 * first record there - what a reader positioned inside a chunk (in parts,
 * on managed media) gets must be what reading from the start got. */
#define SAMPLES 16
static uint64_t sample_gseq[SAMPLES], sample_ts[SAMPLES];

static void check_searches(struct trial *t, uint32_t n, uint64_t *wrong)
{
    for (uint32_t i = 0; i < n; i++) {
        struct sl_iter it;
        struct sl_record r;
        int by_ts = 0;
        if (sl_iter_from_gseq(&t->log, &it, 0, sample_gseq[i]) ||
            sl_iter_next(&it, &r) || r.gseq != sample_gseq[i] || !rec_matches(t, &r) ||
            /* a log formatted over may hold segments of the old one, which a
             * search by time may take (check() looks for that) */
            (by_ts = 1, !t->c->reformat &&
                            (sl_iter_from_ts(&t->log, &it, 0, sample_ts[i]) ||
                             sl_iter_next(&it, &r) || r.ts != sample_ts[i] || !rec_matches(t, &r)))) {
            (*wrong)++;
            snprintf(t->why, sizeof(t->why), "a search by %s for gseq %" PRIu64 " found another",
                     by_ts ? "time" : "number", sample_gseq[i]);
        }
    }
}

/* Reads everything back and checks it against the oracle: 0, or -1 with
 * t->why set; *lost counts synced records that are missing, *wrong records
 * returned that were never appended there (or twice, or out of order). */
static int check(struct trial *t, uint64_t *lost, uint64_t *wrong)
{
    memset(seen, 0, sizeof(seen));
    memset(got, 0, t->ts);
    t->lost_bytes = 0;
    *lost = *wrong = 0;
    t->why[0] = '\0';
    struct sl_iter it;
    struct sl_record r;
    if (sl_iter_from_gseq(&t->log, &it, 0, 0))
        return snprintf(t->why, sizeof(t->why), "iterator refused"), -1;
    uint64_t last_gseq = 0, oldest_ts = UINT64_MAX, oldest_gseq = UINT64_MAX;
    uint32_t samples = 0;
    int rc;
    while ((rc = sl_iter_next(&it, &r)) == SL_OK) {
        uint32_t inc = r.len >= 6 ? (uint32_t)(r.data[0] | r.data[1] << 8) : UINT32_MAX;
        uint64_t k = r.len >= 6 ? get32(r.data + 2) : 0;
        if (!rec_matches(t, &r) || got[r.ts]) {
            (*wrong)++;
            snprintf(t->why, sizeof(t->why), "wrong or repeated record at gseq %" PRIu64, r.gseq);
            continue;
        }
        got[r.ts] = 1;
        gseq_at[r.ts] = r.gseq;
        if (samples < SAMPLES && r.gseq % 97 == 0) {
            sample_gseq[samples] = r.gseq;
            sample_ts[samples++] = r.ts;
        }
        if (oldest_gseq != UINT64_MAX && r.gseq <= last_gseq) {
            (*wrong)++;
            snprintf(t->why, sizeof(t->why), "sequence number %" PRIu64 " after %" PRIu64,
                     r.gseq, last_gseq);
        }
        last_gseq = r.gseq;
        if (oldest_gseq == UINT64_MAX) {
            oldest_gseq = r.gseq;
            oldest_ts = r.ts;
        }
        struct seen *s = &seen[inc];
        if (s->any && k < s->next) {
            (*wrong)++; /* out of order */
            snprintf(t->why, sizeof(t->why), "%s: record %" PRIu64 " after %" PRIu64,
                     t->inc[inc].name, k, s->next - 1);
        }
        if (!s->any)
            s->first = k;
        s->any = 1;
        s->next = k + 1;
    }
    t->torn = it.torn;
    check_searches(t, samples, wrong);
    if (rc == SL_ENOENT && t->c->reformat) {
        /* a search by time starts at the oldest segment by its start time:
         * a segment of the log formatted over, taken for live, shows here
         * (one by sequence number starts past it) */
        struct sl_iter by_ts;
        if (sl_iter_from_ts(&t->log, &by_ts, 0, 0) == SL_OK)
            while (sl_iter_next(&by_ts, &r) == SL_OK) {
                uint32_t inc = r.len >= 6 ? (uint32_t)(r.data[0] | r.data[1] << 8) : UINT32_MAX;
                if (inc >= t->n_inc || r.ts >= t->ts || t->rec_inc[r.ts] != inc) {
                    (*wrong)++;
                    snprintf(t->why, sizeof(t->why), "a record of the log formatted over, "
                             "at gseq %" PRIu64, r.gseq);
                    break;
                }
            }
    }
    if (rc != SL_ENOENT) {
        (*wrong)++;
        snprintf(t->why, sizeof(t->why), "iterator error %d", rc);
    }
    /* a missing record was evicted when the record read next after it (in
     * append order) is at or before the end of the last eviction: eviction
     * takes the oldest segment, whose erase a cut may leave half done */
    uint64_t next_gseq = UINT64_MAX;
    for (uint64_t ts = t->ts; ts-- > 1;) {
        if (got[ts])
            next_gseq = gseq_at[ts];
        evicted[ts] = next_gseq <= t->evicted_end + t->slack;
    }
    /* or when its own number is known and below that end: records take
     * consecutive numbers in append order, so one that follows a record
     * read (number g) by d records, none of them one the oracle forgot
     * (which may have taken numbers of its own), is number g + d. The rule
     * above alone misses it when the next record read lies past a gap of
     * such forgotten numbers (issue 16 audit, seed 20261203: the evicted
     * tail of the oldest segment, then numbers a cut had used) */
    uint64_t prev_gseq = 0, d = 0;
    int exact = 0;
    for (uint64_t ts = 1; ts < t->ts; ts++) {
        if (got[ts]) {
            prev_gseq = gseq_at[ts];
            d = 0;
            exact = 1;
        } else if (t->rec_inc[ts] == NO_INC) {
            exact = 0;
        } else if (exact && prev_gseq + ++d < t->evicted_end + t->slack) {
            evicted[ts] = 1;
        }
    }
    /* before the oldest record read: evicted too when the oldest segment
     * the log holds starts at or before the eviction line (records numbered
     * in between but never synced left a gap in the numbers, no segment
     * went missing) */
    uint64_t log_start = UINT64_MAX;
    for (uint32_t i = 0; i < t->log.n_segs; i++) {
        const struct sl_seg_info *g = &t->log.cfg.segs[i];
        if (g->seq && g->first_gseq < log_start)
            log_start = g->first_gseq;
    }
    for (uint64_t ts = 1; ts < oldest_ts && ts < t->ts; ts++)
        evicted[ts] |= log_start <= t->evicted_end;
    static int named[MAX_INC];
    for (uint32_t i = 0; i < t->n_inc; i++) {
        uint16_t id;
        named[i] = sl_stream_open(&t->log, t->inc[i].name, &id) == SL_OK;
        if (!named[i] && t->inc[i].alive && t->inc[i].durable) {
            *lost += 1;
            snprintf(t->why, sizeof(t->why), "stream %s (%" PRIu64 " records synced) is gone",
                     t->inc[i].name, t->inc[i].durable);
        }
    }
    for (uint64_t ts = 1; ts < t->ts; ts++) {
        uint32_t i = t->rec_inc[ts];
        if (i == NO_INC)
            continue;
        uint64_t k = t->rec_k[ts];
        const struct inc *s = &t->inc[i];
        if (k >= s->durable || !named[i] || (!s->alive && !s->deleted_unsynced))
            continue; /* not synced, or its stream is gone (deleted) */
        if (got[ts])
            continue;
        if (evicted[ts])
            continue; /* evicted with the oldest segment */
        if (!*lost)
            snprintf(t->why, sizeof(t->why),
                     "%s record %" PRIu64 " (ts %" PRIu64 ") synced but missing; log "
                     "starts at gseq %" PRIu64 " ts %" PRIu64 ", evicted up to %" PRIu64,
                     s->name, k, ts, oldest_gseq, oldest_ts, t->evicted_end);
        (*lost)++;
        uint8_t b[64];
        t->lost_bytes += record_bytes(i, k, ts, b);
    }
    return *lost || *wrong ? -1 : 0;
}

/* After a mount that checked: the oracle forgets what the cut lost (records
 * never synced, creates and deletes never made durable) so the recovery's
 * records continue each stream. */
static void adopt_medium(struct trial *t)
{
    for (uint32_t i = 0; i < t->n_inc; i++) {
        struct inc *s = &t->inc[i];
        uint16_t id;
        int named = sl_stream_open(&t->log, s->name, &id) == SL_OK;
        s->alive = named;
        s->deleted_unsynced = 0;
        s->id = named ? id : 0;
        uint64_t have = seen[i].any ? seen[i].next : s->durable;
        s->appended = have > s->durable ? have : s->durable;
    }
    /* records the cut took (never synced) are forgotten: their indices are
     * appended again */
    for (uint64_t ts = 1; ts < t->ts; ts++) {
        uint32_t i = t->rec_inc[ts];
        if (i != NO_INC && !got[ts] && t->rec_k[ts] >= t->inc[i].appended)
            t->rec_inc[ts] = NO_INC;
    }
}

/* ---- one power-cut trial -------------------------------------------------- */
static int cut_happened(const struct trial *t)
{
    return t->sim.off;
}

enum { TRIAL_OK, TRIAL_LOST, TRIAL_NO_CUT };
static uint32_t recovery_steps = 300, workload_scale = 1;

/* The trial's verdict, or a loss when the reader got what it should not. */
static int reader_verdict(struct trial *t, int verdict)
{
    if (!t->rwrong)
        return verdict;
    snprintf(t->why, sizeof(t->why), "%s", t->rwhy);
    return TRIAL_LOST;
}

static int mount(struct trial *t)
{
    t->rstarted = 0; /* an iterator does not outlive the mount it was made on */
    return sl_mount(&t->log, &t->cfg);
}

/* Runs the workload with a power cut during command k, then mounts (with a
 * second cut `second` commands into the recovery, 0 none), writes a
 * little, remounts and checks. */
static int cut_trial(struct trial *t, const struct sweep_config *c, uint64_t k, uint64_t second,
                     uint64_t *lost, uint64_t *wrong)
{
    struct sts_bd_ops ops;
    *lost = *wrong = 0;
    if (trial_init(t, c, 1))
        return snprintf(t->why, sizeof(t->why), "no memory"), TRIAL_LOST;
    hide_submit(t, &ops);
    int rc = sl_format(&t->log, &t->cfg);
    if (!rc && c->reformat) {
        /* an old log over the medium, then a format over it: the oracle
         * forgets the old records, so any of them read back is wrong */
        rc = workload(t, c->workload_steps);
        if (!rc)
            rc = sync_all(t);
        memset(t->inc, 0, sizeof(t->inc));
        t->n_inc = 0;
        for (uint64_t ts = 0; ts < t->ts; ts++)
            t->rec_inc[ts] = NO_INC; /* forgotten: read back, it is wrong */
        t->evicted_end = 0;
        t->slack = 0;
        if (!rc)
            rc = sl_format(&t->log, &t->cfg);
    }
    if (rc)
        return snprintf(t->why, sizeof(t->why), "format: %d", rc), TRIAL_LOST;
    struct sts_sim_faults f = {.cut_after_ops = t->sim.host_ops + k - 1};
    base_faults(c, &f);
    sts_sim_set_faults(&t->sim, &f);
    rc = workload(t, c->workload_steps * workload_scale);
    if (!cut_happened(t)) {
        if (rc)
            return snprintf(t->why, sizeof(t->why), "workload failed without a cut: %d", rc),
                   TRIAL_LOST;
        return reader_verdict(t, TRIAL_NO_CUT);
    }
    sts_sim_power_on(&t->sim);
    if (second) {
        struct sts_sim_faults f2 = {.cut_after_ops = t->sim.host_ops + second - 1};
        base_faults(c, &f2);
        sts_sim_set_faults(&t->sim, &f2);
    }
    rc = mount(t);
    if (!rc && !cut_happened(t)) {
        int bad = check(t, lost, wrong);
        if (cut_happened(t))
            goto final; /* cut while reading: what was read proves nothing */
        if (bad)
            return TRIAL_LOST;
        adopt_medium(t);
        /* the recovery: a new stream and more records, synced */
        rc = create(t);
        for (uint32_t j = 0; j < 30 && !rc; j++) {
            int i = pick_alive(t);
            rc = i < 0 ? SL_OK : append_one(t, (uint32_t)i);
        }
        if (!rc)
            rc = sync_all(t);
        if (!rc) /* on round the medium, through the segment the cut hit */
            rc = workload(t, recovery_steps);
    }
    if (rc && !cut_happened(t))
        return snprintf(t->why, sizeof(t->why), "recovery failed without a cut: %d", rc),
               TRIAL_LOST;
final:
    *lost = *wrong = 0;
    sts_sim_power_on(&t->sim);
    struct sts_sim_faults none = {0};
    base_faults(c, &none);
    sts_sim_set_faults(&t->sim, &none);
    rc = mount(t);
    if (rc) {
        for (uint32_t i = 0; i < t->n_inc; i++)
            *lost += t->inc[i].alive ? t->inc[i].durable : 0;
        snprintf(t->why, sizeof(t->why), "final mount: %d", rc);
        return *lost ? TRIAL_LOST : TRIAL_OK;
    }
    if (check(t, lost, wrong))
        return TRIAL_LOST;
    /* a mount that misjudged what it found (a half-erased segment taken for
     * erased, a torn one for free) shows only once writing goes on over it */
    adopt_medium(t);
    rc = workload(t, recovery_steps);
    if (!rc)
        rc = sync_all(t);
    if (!rc)
        rc = mount(t);
    if (rc)
        return snprintf(t->why, sizeof(t->why), "writing after recovery failed: %d", rc),
               TRIAL_LOST;
    if (check(t, lost, wrong)) {
        size_t n = strlen(t->why);
        snprintf(t->why + n, sizeof(t->why) - n, " (after writing on)");
        return TRIAL_LOST;
    }
    return reader_verdict(t, TRIAL_OK);
}

/* ---- bit flips and bursts ---------------------------------------------- */
/* Damages bits [bit, bit + width) of the stored page that holds byte addr,
 * as wear or a disturbed cell would: the model's store is changed in place. */
static int damage(struct trial *t, uint64_t addr, uint32_t width, uint8_t pattern)
{
    struct sts_sim *s = &t->sim;
    uint32_t pb = s->p.page_bytes, page = (uint32_t)(addr / pb);
    if (!s->store_map || !s->store_map[page])
        return 0; /* nothing stored there: reads return blank */
    uint8_t *p = s->store + (size_t)(s->store_map[page] - 1) * pb + addr % pb;
    if (width == 1)
        *p ^= (uint8_t)(1u << (pattern & 7));
    else
        *p ^= pattern ? pattern : 0xA5;
    return 1;
}

/* A synced log, one flip or burst, a mount and a read. Nothing wrong may
 * come back; what is lost must fit in one chunk and be reported. */
static int flip_trial(struct trial *t, const struct sweep_config *c, uint64_t seed, int burst,
                      uint64_t *lost, uint64_t *wrong, uint64_t *reported)
{
    struct sts_bd_ops ops;
    *lost = *wrong = *reported = 0;
    if (trial_init(t, c, 1))
        return TRIAL_LOST;
    hide_submit(t, &ops);
    if (sl_format(&t->log, &t->cfg) || workload(t, c->workload_steps / 3) || sync_all(t))
        return snprintf(t->why, sizeof(t->why), "clean run failed"), TRIAL_LOST;
    struct sts_rng rng;
    sts_rng_seed(&rng, seed);
    uint64_t addr;
    int tries = 0;
    do
        addr = sts_rng_below(&rng, c->capacity);
    while (!damage(t, addr, burst ? 8 : 1, (uint8_t)sts_rng_below(&rng, 256)) && ++tries < 1000);
    /* a damaged first chunk hides where the oldest segment starts */
    t->slack = (t->log.chunk - 48) / 7 + 1;
    int rc = mount(t);
    if (rc) {
        for (uint32_t i = 0; i < t->n_inc; i++)
            *lost += t->inc[i].alive ? t->inc[i].durable : 0;
        snprintf(t->why, sizeof(t->why), "mount after a flip at %" PRIu64 ": %d", addr, rc);
        return TRIAL_LOST;
    }
    check(t, lost, wrong);
    struct sl_stats st;
    sl_stats(&t->log, &st);
    /* (damage to the newest chunk's last piece looks like a power cut's
     * torn end in every byte: mount says it found one, torn_pieces) */
    *reported = st.corrupt_chunks + st.repaired + t->torn + st.torn_pieces;
    t->torn_pieces = st.torn_pieces;
    uint32_t per_chunk = (t->log.chunk - 48) / 8 + 1;
    if (*wrong || *lost > per_chunk || (*lost && !*reported)) {
        if (!t->why[0])
            snprintf(t->why, sizeof(t->why), "flip at %" PRIu64, addr);
        size_t n = strlen(t->why);
        snprintf(t->why + n, sizeof(t->why) - n, " (flip at %" PRIu64 ", reported %" PRIu64 ")",
                 addr, *reported);
        return TRIAL_LOST;
    }
    return TRIAL_OK;
}

/* Transient read errors while mounting: the mount may fail (and be
 * retried) but must never lead the writer to erase synced data. */
static int read_error_trial(struct trial *t, const struct sweep_config *c, uint64_t seed,
                            uint64_t *lost, uint64_t *wrong)
{
    struct sts_bd_ops ops;
    *lost = *wrong = 0;
    if (trial_init(t, c, seed))
        return TRIAL_LOST;
    hide_submit(t, &ops);
    if (sl_format(&t->log, &t->cfg) || workload(t, c->workload_steps / 2) || sync_all(t))
        return snprintf(t->why, sizeof(t->why), "clean run failed"), TRIAL_LOST;
    struct sts_sim_faults f = {.read_error_ppm = 100000 + (uint32_t)(seed % 5) * 100000};
    sts_sim_set_faults(&t->sim, &f);
    int rc = mount(t);
    struct sts_sim_faults none = {0};
    sts_sim_set_faults(&t->sim, &none);
    if (rc == SL_OK) { /* write on: the first segment opened must not be one with data */
        if (workload(t, 40) || sync_all(t))
            return snprintf(t->why, sizeof(t->why), "writing after the mount failed"),
                   TRIAL_LOST;
    }
    if (mount(t))
        return snprintf(t->why, sizeof(t->why), "clean remount failed"), TRIAL_LOST;
    return check(t, lost, wrong) ? TRIAL_LOST : TRIAL_OK;
}

/* ---- main ------------------------------------------------------------------ */
int main(int argc, char **argv)
{
    uint64_t cuts = 400, flips = 200, seed = 1;
    const char *only = NULL;
    uint64_t one_k = 0, one_second = 0;
    int verbose = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--cuts") && i + 1 < argc)
            cuts = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--flips") && i + 1 < argc)
            flips = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--scale") && i + 1 < argc)
            workload_scale = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--trial") && i + 2 < argc) {
            one_k = strtoull(argv[++i], NULL, 10);
            one_second = strtoull(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "-v"))
            verbose = 1;
        else {
            fprintf(stderr, "usage: %s [--cuts N] [--flips N] [--scale N] [--seed S] [--only CONFIG]\n"
                    "       [--trial K SECOND] [-v]\n",
                    argv[0]);
            return 2;
        }
    }
    int known = !only;
    for (size_t ci = 0; ci < sizeof(configs) / sizeof(configs[0]) && !known; ci++)
        known = !strcmp(only, configs[ci].name);
    if (!known) { /* a typo would otherwise sweep nothing and pass */
        fprintf(stderr, "%s: no configuration named '%s'; they are:", argv[0], only);
        for (size_t ci = 0; ci < sizeof(configs) / sizeof(configs[0]); ci++)
            fprintf(stderr, " %s", configs[ci].name);
        fprintf(stderr, "\n");
        return 2;
    }
    static struct trial t;
    uint64_t total_cuts = 0, total_lost_trials = 0, total_flips = 0, flip_bad = 0;
    uint64_t flip_lost_records = 0, flip_reported = 0, rerr_trials = 0, rerr_bad = 0;
    for (size_t ci = 0; ci < sizeof(configs) / sizeof(configs[0]); ci++) {
        const struct sweep_config *c = &configs[ci];
        if (only && strcmp(only, c->name))
            continue;
        uint64_t lost_trials = 0, n = 0, lost_records = 0, shown = 0;
        free(t.arena);
        t.arena = NULL;
        if (one_k) {
            uint64_t lost, wrong;
            int r = cut_trial(&t, c, one_k, one_second, &lost, &wrong);
            printf("%s: cut %" PRIu64 ", second %" PRIu64 ": %s %s\n", c->name, one_k, one_second,
                   r == TRIAL_OK ? "ok" : r == TRIAL_NO_CUT ? "no cut" : "LOST", t.why);
            total_lost_trials += r == TRIAL_LOST; /* the exit status says it too */
            continue;
        }
        for (uint64_t k = 1; k <= cuts; k++) {
            uint64_t lost, wrong;
            uint64_t second = 1 + (k * 7 + seed) % 40; /* 1 .. 40 */
            int r = cut_trial(&t, c, k, second, &lost, &wrong);
            if (r == TRIAL_NO_CUT)
                break; /* past the workload's last command */
            n++;
            if (r == TRIAL_LOST) {
                lost_trials++;
                lost_records += lost;
                if (verbose || shown++ < 3)
                    printf("  %s: cut after command %" PRIu64 ", second cut %" PRIu64 ": %s\n",
                           c->name, k, second, t.why);
            }
        }
        printf("%-18s power cuts: %6" PRIu64 " tried, %4" PRIu64 " lost synced data (%" PRIu64
               " records)\n", c->name, n, lost_trials, lost_records);
        if (c->reader)
            printf("%-18s reader: %" PRIu64 " records checked, %" PRIu64 " passes overtaken by "
                   "the writer\n", c->name, reader_records, reader_overtaken);
        total_cuts += n;
        total_lost_trials += lost_trials;
        uint64_t bad = 0, fl_lost = 0, fl_rep = 0, fl_bytes = 0, fl_torn = 0;
        for (uint64_t j = 0; j < flips; j++) {
            uint64_t lost, wrong, reported;
            int r = flip_trial(&t, c, seed * 1000003 + j, (int)(j & 1), &lost, &wrong, &reported);
            fl_lost += lost;
            fl_bytes += t.lost_bytes;
            fl_rep += reported != 0;
            fl_torn += lost && t.torn_pieces;
            if (r != TRIAL_OK) {
                bad++;
                if (verbose || bad <= 3)
                    printf("  %s: %s %" PRIu64 ": %s\n", c->name, j & 1 ? "burst" : "flip", j,
                           t.why);
            }
        }
        printf("%-18s flips/bursts: %5" PRIu64 " tried, %4" PRIu64 " beyond one chunk, "
               "unreported or wrong; %.2f records (%.0f B) lost per flip; %" PRIu64
               " reported; %" PRIu64 " of them as a torn last piece\n",
               c->name, flips, bad, flips ? (double)fl_lost / (double)flips : 0.0,
               flips ? (double)fl_bytes / (double)flips : 0.0, fl_rep, fl_torn);
        total_flips += flips;
        flip_bad += bad;
        flip_lost_records += fl_lost;
        flip_reported += fl_rep;
        uint64_t rbad = 0;
        for (uint64_t j = 0; j < 20; j++) {
            uint64_t lost, wrong;
            if (read_error_trial(&t, c, seed + j, &lost, &wrong) != TRIAL_OK) {
                rbad++;
                if (verbose || rbad <= 3)
                    printf("  %s: read errors %" PRIu64 ": %s\n", c->name, j, t.why);
            }
        }
        printf("%-18s read errors at mount: 20 tried, %" PRIu64 " lost synced data\n", c->name,
               rbad);
        rerr_trials += 20;
        rerr_bad += rbad;
    }
    printf("total: %" PRIu64 " power cuts, %" PRIu64 " lost synced data; %" PRIu64
           " flips/bursts, %" PRIu64 " failed (%" PRIu64 " records lost, %" PRIu64
           " reported); %" PRIu64 " read-error mounts, %" PRIu64 " lost\n",
           total_cuts, total_lost_trials, total_flips, flip_bad, flip_lost_records, flip_reported,
           rerr_trials, rerr_bad);
    return total_lost_trials || flip_bad || rerr_bad ? 1 : 0;
}
