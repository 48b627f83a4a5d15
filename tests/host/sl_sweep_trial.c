/* sensorlog's durability sweep, a trial's steps (sl_sweep.h): the oracle,
 * the medium, the workload, and the check of what reads back against what
 * was synced. */
#include "sl_sweep.h"
#include "storscope/error.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint8_t *got;      /* by timestamp: the record was read back */
uint8_t *evicted;  /* by timestamp: missing, but evicted */
uint64_t *gseq_at; /* by timestamp: the sequence number it was read with */

/* What the readers of every trial saw: records checked, passes the log
 * wrapped past (SL_EOVERTAKEN) */
uint64_t reader_records, reader_overtaken;

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
void base_faults(const struct sweep_config *c, struct sts_sim_faults *f)
{
    f->prog_error_ppm = c->prog_error_ppm;
    f->permanent = c->prog_error_ppm != 0;
    f->silent = (uint8_t)c->silent;
}

int trial_init(struct trial *t, const struct sweep_config *c, uint64_t seed)
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

void hide_submit(struct trial *t, struct sts_bd_ops *ops)
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

int pick_alive(struct trial *t)
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

int create(struct trial *t)
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

int append_one(struct trial *t, uint32_t i)
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

int sync_all(struct trial *t)
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
int workload(struct trial *t, uint32_t steps)
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
            /* the idle loop's maintenance, on managed media: it trims the
             * segments deleted streams left at the tail, so cuts land
             * around those trims too (no draw: raw flash's trials stay
             * what they were) */
            for (uint32_t j = 0; j < 2 && rc >= 0 && !t->log.needs_erase && dice % 4 == 0; j++)
                rc = sl_maintain(&t->log);
            rc = rc == SL_BUSY ? SL_OK : rc;
        }
    }
    return rc;
}

/* ---- checking ------------------------------------------------------------ */
struct seen seen[MAX_INC];

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
int check(struct trial *t, uint64_t *lost, uint64_t *wrong)
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
void adopt_medium(struct trial *t)
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
