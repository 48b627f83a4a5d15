/* L1: sustained logging. N streams (default imu 1 kHz x 12 B, ppg 100 Hz x
 * 24 B, env 1 Hz x 64 B) produce records on a fixed schedule for a duration;
 * a logger writes them through one of three architectures and makes them
 * durable every sync interval:
 *   direct - one storage task writes each record to its stream's file as it
 *            comes, from one FIFO shared by the streams;
 *   mutex  - each stream's task writes its own records under a shared lock,
 *            each with its own FIFO (the RAM budget split between them);
 *   iotask - producers append to RAM; one I/O task packs the records of all
 *            streams (4-byte header each) into one file in aligned 4 KiB
 *            chunks and pads the last chunk at each sync.
 * A record that does not fit the FIFO is lost; one made durable later than
 * the deadline is late. Reported: the rate sustained, records lost and late,
 * the worst single storage call (stall) and the most RAM the records ever
 * needed - the buffer that would have absorbed every stall seen. With
 * bisect, the highest rate multiplier each mode sustains without loss.
 *
 * The tasks are scheduled by one event loop (the writer runs while records
 * arrive by their timestamps), so L1 runs in virtual time and on a bare
 * MCU alike; lock and context-switch costs are S1's business. */
#include "storscope/port.h"
#include "l1_internal.h"

#include <string.h>

static const char *const mode_name[N_MODES] = {"direct", "mutex", "iotask"};
static const char *const sum_key[N_MODES][5] = {
    {"direct_required_buffer_bytes", "direct_worst_stall_ns", "direct_lossless",
     "direct_max_lossless_scale", "direct_max_lossless_bps"},
    {"mutex_required_buffer_bytes", "mutex_worst_stall_ns", "mutex_lossless",
     "mutex_max_lossless_scale", "mutex_max_lossless_bps"},
    {"iotask_required_buffer_bytes", "iotask_worst_stall_ns", "iotask_lossless",
     "iotask_max_lossless_scale", "iotask_max_lossless_bps"},
};
static const char *const file_name[L1_MAX_STREAMS] = {"l1_s0", "l1_s1", "l1_s2", "l1_s3",
                                                      "l1_s4", "l1_s5", "l1_s6", "l1_s7"};

/* ---- one run at a rate multiplier ------------------------------------- */
uint64_t l1_now(struct l1 *l)
{
    return wl_now(l->c) + l->idle_ns - l->start;
}

#define L1_HOUR_NS 3600000000000ull

/* Ends the hour being counted: the worse of it and the worst so far. */
static void hour_close(struct l1_result *r)
{
    const struct l1_hour *h = &r->hour, *w = &r->worst_hour;
    if (h->lost > w->lost || (h->lost == w->lost && h->stall_ns > w->stall_ns))
        r->worst_hour = *h;
}

void l1_hour_note(struct l1 *l, uint64_t t, uint64_t lost, uint64_t stall_ns)
{
    struct l1_result *r = &l->r;
    if (l->tasks)
        return;
    if (t / L1_HOUR_NS != r->hour.index) {
        hour_close(r);
        r->hour = (struct l1_hour){t / L1_HOUR_NS, 0, 0};
    }
    r->hour.lost += lost;
    r->hour.stall_ns = stall_ns > r->hour.stall_ns ? stall_ns : r->hour.stall_ns;
}

static int timed(struct l1 *l, int rc, uint64_t t0)
{
    uint64_t d = l1_now(l) - t0;
    l1_hour_note(l, t0 + d, 0, d);
    sts_lat_record(&l->c->lat[0], d);
    if (d > l->r.worst_stall_ns)
        l->r.worst_stall_ns = d;
    return rc;
}

static uint64_t fifo_limit(const struct l1 *l)
{
    return l->mode == MODE_MUTEX ? l->buffer_bytes / l->n : l->buffer_bytes;
}

/* Appends a record produced at t; -1 when the stream has no run left. */
static int track(struct l1_stream *s, uint64_t t)
{
    if (s->n_runs) {
        struct l1_span *r = &s->runs[(s->head + s->n_runs - 1) % L1_RUNS];
        if (r->t + r->n * s->period == t) {
            r->n++;
            s->count++;
            return 0;
        }
    }
    if (s->n_runs == L1_RUNS)
        return -1;
    s->runs[(s->head + s->n_runs++) % L1_RUNS] = (struct l1_span){t, 1};
    s->count++;
    return 0;
}

/* Production time of the k-th record not yet durable (0 = oldest). */
static uint64_t tracked_time(const struct l1_stream *s, uint64_t k)
{
    for (uint32_t i = 0; i < s->n_runs; i++) {
        const struct l1_span *r = &s->runs[(s->head + i) % L1_RUNS];
        if (k < r->n)
            return r->t + k * s->period;
        k -= r->n;
    }
    return UINT64_MAX;
}

/* Records of s arrived by t: a burst arrives whole with its last record,
 * one period apart from time 0, none at or after the run's end (as
 * l1_arrival and the producers have them). Counted, not stepped through:
 * a writer busy past several arrivals has not produced them yet. */
static uint64_t arrived_by(const struct l1 *l, const struct l1_stream *s, uint64_t t)
{
    if (!l->duration_ns)
        return 0;
    t = t < l->duration_ns ? t : l->duration_ns - 1;
    return (t / s->period + 1) / s->burst * s->burst;
}

uint64_t l1_at_risk(const struct l1 *l, uint64_t t)
{
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < l->n; i++) {
        const struct l1_stream *s = &l->s[i];
        uint64_t a = arrived_by(l, s, t);
        /* tracked: kept and not durable; arrived but not produced yet: kept
         * unless the FIFO turns them away (then lost, not at risk; an upper
         * bound either way) */
        bytes += (s->count + (a > s->produced ? a - s->produced : 0)) * s->rec;
    }
    return bytes;
}

/* The peak comes just before a sync ends: from then on every byte kept so
 * far is durable. */
void l1_note_at_risk(struct l1 *l, uint64_t t)
{
    uint64_t bytes = l1_at_risk(l, t);
    if (bytes > l->r.at_risk_peak)
        l->r.at_risk_peak = bytes;
}

/* The oldest n records became durable at time t: ages recorded, late counted. */
void l1_pop(struct l1 *l, struct l1_stream *s, uint64_t n, uint64_t t)
{
    l->r.durable += n;
    l->r.durable_bytes += n * s->rec;
    while (n) {
        struct l1_span *r = &s->runs[s->head];
        uint64_t k = n < r->n ? n : r->n;
        for (uint64_t i = 0; i < k; i++) {
            uint64_t age = t - (r->t + i * s->period);
            sts_lat_record(&l->c->lat[1], age);
            if (age > l->deadline_ns) {
                l->r.late++;
                l1_hour_note(l, t, 1, 0);
            }
        }
        r->t += k * s->period;
        r->n -= k;
        n -= k;
        s->count -= k;
        if (!r->n) {
            s->head = (s->head + 1) % L1_RUNS;
            s->n_runs--;
        }
    }
}

void l1_produce_stream(struct l1 *l, struct l1_stream *s, uint64_t t)
{
    uint32_t bytes = s->rec + (l->mode == MODE_IOTASK ? L1_HDR : 0);
    /* (a burst the run ends before never arrives) */
    for (; l1_arrival(s) < l->duration_ns && l1_arrival(s) <= t; s->next_t += s->period) {
        s->produced++;
        uint64_t used = l->mode == MODE_MUTEX ? s->pending_bytes : l->pending_total;
        if (used + bytes > fifo_limit(l) || track(s, s->next_t)) {
            s->lost++; /* reject newest: the FIFO is full */
            l1_hour_note(l, t, 1, 0);
            continue;
        }
        s->pending++;
        s->pending_bytes += bytes;
        l->pending_total += bytes;
        if (s->pending_bytes > s->max_pending_bytes)
            s->max_pending_bytes = s->pending_bytes;
        if (l->pending_total > l->max_pending_total)
            l->max_pending_total = l->pending_total;
    }
}

/* Every record due by `t` arrives: into its FIFO, or lost. */
static void produce(struct l1 *l, uint64_t t)
{
    for (uint32_t i = 0; i < l->n; i++)
        l1_produce_stream(l, &l->s[i], t);
}

/* Records written so far are durable at time t: the late ones counted. */
static void durable(struct l1 *l, uint64_t t, int all)
{
    l1_note_at_risk(l, t);
    for (uint32_t i = 0; i < l->n; i++) {
        struct l1_stream *s = &l->s[i];
        l1_pop(l, s, all ? s->count : s->count - s->pending, t);
        if (all) {
            s->pending = 0;
            s->pending_bytes = 0;
        }
    }
    if (all)
        l->pending_total = 0;
}

int l1_write_bytes(struct l1 *l, sts_fh fh, uint64_t *off, uint32_t len, uint64_t seed)
{
    sts_pattern_fill(l->c->buf, *off, len, seed);
    uint64_t t0 = l1_now(l);
    int rc = timed(l, wl_write(l->c, fh, l->c->buf, len), t0);
    *off += len;
    l->r.bytes_written += len;
    l->r.writes++;
    return rc;
}

struct l1_stream *l1_take_record(struct l1 *l, struct l1_stream *only)
{
    struct l1_stream *best = NULL;
    uint64_t best_t = UINT64_MAX;
    for (uint32_t i = 0; i < l->n; i++) {
        struct l1_stream *s = &l->s[i];
        if (!s->pending || (only && s != only))
            continue;
        uint64_t t = tracked_time(s, s->count - s->pending);
        if (t < best_t)
            best_t = t, best = &l->s[i];
    }
    if (best) {
        best->pending--;
        best->pending_bytes -= best->rec;
        l->pending_total -= best->rec;
    }
    return best;
}

/* direct / mutex: the oldest pending record of any stream, one write. */
static int write_one_record(struct l1 *l)
{
    struct l1_stream *s = l1_take_record(l, NULL);
    return s ? l1_write_bytes(l, s->fh, &s->file_off, s->rec, l->c->plan->seed + 1) : 0;
}

int l1_sync_file(struct l1 *l, sts_fh fh)
{
    uint64_t t0 = l1_now(l);
    int rc = timed(l, wl_sync(l->c, fh, STS_SYNC_DATA), t0);
    l->r.syncs++;
    return rc;
}

static int sync_all(struct l1 *l)
{
    int rc = 0;
    if (l->mode == MODE_IOTASK) {
        /* the partial chunk goes out padded, so the next one stays aligned */
        uint32_t part = (uint32_t)(l->pending_total % L1_CHUNK);
        if (l->pending_total / L1_CHUNK) /* full chunks the writer had no time for */
            for (uint64_t k = l->pending_total / L1_CHUNK; k && !rc; k--)
                rc = l1_write_bytes(l, l->log_fh, &l->iot_off, L1_CHUNK, l->c->plan->seed);
        if (part && !rc)
            rc = l1_write_bytes(l, l->log_fh, &l->iot_off, L1_CHUNK, l->c->plan->seed);
        if (!rc)
            rc = l1_sync_file(l, l->log_fh);
        if (!rc)
            durable(l, l1_now(l), 1);
        return rc;
    }
    for (uint32_t i = 0; i < l->n && !rc; i++) {
        struct l1_stream *s = &l->s[i];
        if (s->count == s->pending)
            continue; /* nothing written since the last sync */
        rc = l1_sync_file(l, s->fh);
    }
    if (!rc)
        durable(l, l1_now(l), 0);
    return rc;
}

/* The writer's next piece of work; 0 with *idle set when there is none. */
static int step(struct l1 *l, int *idle)
{
    *idle = 0;
    if (l->mode == MODE_IOTASK) {
        if (l->pending_total < L1_CHUNK) {
            *idle = 1;
            return 0;
        }
        /* the chunk's records leave RAM; they become durable at the sync */
        int rc = l1_write_bytes(l, l->log_fh, &l->iot_off, L1_CHUNK, l->c->plan->seed);
        l->pending_total -= L1_CHUNK;
        return rc;
    }
    if (!l->pending_total) {
        *idle = 1;
        return 0;
    }
    return write_one_record(l);
}

/* Until t: a filesystem with background work (fs ops idle: sensorlog
 * erasing ahead) does it meanwhile, as a logger's idle loop would, its
 * device time on the clock; the rest of the wait the device rests. A step
 * that runs past t (an erase the device cannot suspend) holds the writer
 * up, as it would the loop. */
static int wait_for(struct l1 *l, uint64_t t)
{
    uint64_t n = l1_now(l);
    if (t <= n)
        return STS_OK;
    if (!l->virtual_time) {
        sts_port_wait_until(sts_clock_now(sts_port_clock()) + (t - n));
        return STS_OK;
    }
    const struct sts_fs *fs = &l->c->target->fs;
    int (*idle)(void *) = fs->ops->version >= 2 ? fs->ops->idle : NULL;
    while (idle && (n = l1_now(l)) < t) {
        int rc = idle(fs->ctx);
        if (rc < 0)
            return wl_fail_on(l->c, rc, "erase ahead (idle time) on", "the store");
        if (!rc || l1_now(l) == n)
            break; /* none left, or none that takes time */
    }
    n = l1_now(l);
    if (t > n)
        l->idle_ns += t - n; /* nothing happens on the device meanwhile */
    return STS_OK;
}

/* Opens the run's files; *opened gets how many are open, whatever failed. */
static int open_files(struct l1 *l, uint32_t *opened)
{
    int rc = 0;
    *opened = 0;
    if (l->mode == MODE_IOTASK) {
        rc = wl_open(l->c, "l1_log", STS_O_WRONLY | STS_O_CREAT | STS_O_TRUNC, &l->log_fh);
        *opened = !rc;
        return rc;
    }
    for (uint32_t i = 0; i < l->n && !rc; i++) {
        rc = wl_open(l->c, file_name[i], STS_O_WRONLY | STS_O_CREAT | STS_O_TRUNC, &l->s[i].fh);
        *opened += !rc;
    }
    return rc;
}

/* Closes and removes the run's files; the first failure, named, or 0. */
static int close_files(struct l1 *l, uint32_t opened)
{
    struct sts_ctx *c = l->c;
    const struct sts_fs_ops *ops = c->target->fs.ops;
    int rc = STS_OK;
    for (uint32_t i = 0; i < (l->mode == MODE_IOTASK ? (opened ? 1u : 0u) : opened); i++) {
        const char *name = l->mode == MODE_IOTASK ? "l1_log" : file_name[i];
        sts_fh fh = l->mode == MODE_IOTASK ? l->log_fh : l->s[i].fh;
        int r = ops->close(c->target->fs.ctx, fh);
        if (r && !rc)
            rc = wl_fail_on(c, r, "close", name);
        r = ops->unlink(c->target->fs.ctx, name);
        if (r && r != STS_ENOENT && !rc)
            rc = wl_fail_on(c, r, "remove", name);
    }
    c->scratch_path[0] = '\0';
    return rc;
}

/* The writer and the producers in one event loop (virtual time, or real
 * time on a port without threads). */
static int run_loop(struct l1 *l)
{
    struct sts_ctx *c = l->c;
    int rc = STS_OK;
    uint64_t next_sync = l->sync_ns;
    for (;;) {
        if (sts_should_stop(c)) {
            rc = STS_EINTR;
            break;
        }
        uint64_t t = l1_now(l);
        produce(l, t);
        int idle = 0;
        if (t >= l->duration_ns) { /* production is over: drain, then make it durable */
            while (!rc && !idle)
                rc = step(l, &idle);
            if (!rc)
                rc = sync_all(l);
            break;
        }
        if (t >= next_sync) {
            rc = sync_all(l);
            while (next_sync <= t)
                next_sync += l->sync_ns;
            if (rc)
                break;
            continue;
        }
        rc = step(l, &idle);
        if (rc)
            break;
        if (idle) { /* until the next record or the next sync */
            uint64_t next = next_sync < l->duration_ns ? next_sync : l->duration_ns;
            for (uint32_t i = 0; i < l->n; i++)
                if (l1_arrival(&l->s[i]) < next)
                    next = l1_arrival(&l->s[i]);
            rc = wait_for(l, next);
            if (rc)
                break;
        }
    }
    return rc;
}

static int run_once(struct l1 *l, int mode, double scale)
{
    struct sts_ctx *c = l->c;
    l->mode = mode;
    memset(&l->r, 0, sizeof(l->r));
    l->pending_total = l->max_pending_total = l->iot_off = 0;
    for (uint32_t i = 0; i < l->n; i++) {
        struct l1_stream *s = &l->s[i];
        s->period = (uint64_t)((double)s->period_ns / scale);
        s->period = s->period ? s->period : 1;
        s->next_t = 0;
        s->produced = s->lost = s->file_off = 0;
        s->head = s->n_runs = 0;
        s->count = s->pending = 0;
        s->pending_bytes = s->max_pending_bytes = 0;
    }
    wl_lat_reset(c);
    uint32_t opened;
    int rc = open_files(l, &opened);
    if (rc) {
        (void)close_files(l, opened); /* only what opened; the open's error first */
        return rc;
    }
    l->idle_ns = 0;
    l->start = wl_now(c);
    rc = l->tasks ? l1_tasks_run(l) : run_loop(l);
    l->r.elapsed_ns = l1_now(l);
    hour_close(&l->r);
    uint64_t sum_max = 0;
    for (uint32_t i = 0; i < l->n; i++) {
        l->r.produced += l->s[i].produced;
        l->r.lost += l->s[i].lost;
        l->r.lost_by_stream[i] = l->s[i].lost;
        l->r.payload_bytes += (l->s[i].produced - l->s[i].lost) * l->s[i].rec;
        sum_max += l->s[i].max_pending_bytes;
    }
    /* per-task FIFOs (mutex) each need their own worst case */
    l->r.required_buffer = mode == MODE_MUTEX ? sum_max : l->max_pending_total;
    int crc = close_files(l, l->n);
    return rc ? rc : crc;
}

static int lossless(const struct l1_result *r)
{
    return r->lost == 0 && r->late == 0;
}

/* with_lat: the latency recorders hold this run (not so after a search) */
static int emit(struct l1 *l, const char *name, int mode, double scale, int with_lat)
{
    const struct l1_result *r = &l->r;
    struct sts_kv params[] = {STS_KV_S("mode", mode_name[mode]), STS_KV_D("rate_scale", scale),
                              STS_KV_U("streams", l->n), STS_KV_U("buffer_bytes", l->buffer_bytes),
                              STS_KV_U("deadline_ns", l->deadline_ns),
                              STS_KV_U("sync_interval_ns", l->sync_ns)};
    /* which stream lost records: each stream's own count, named after it */
    static char lost_key[L1_MAX_STREAMS][L1_NAME_MAX + 16];
    struct sts_kv metrics[15 + L1_MAX_STREAMS] = {
        STS_KV_U("records_produced", r->produced),
        STS_KV_U("records_lost", r->lost),
        STS_KV_U("records_late", r->late),
        STS_KV_U("payload_bytes", r->payload_bytes),
        STS_KV_U("bytes_written", r->bytes_written),
        STS_KV_U("write_calls", r->writes),
        STS_KV_U("sync_calls", r->syncs),
        STS_KV_U("worst_stall_ns", r->worst_stall_ns),
        STS_KV_U("required_buffer_bytes", r->required_buffer),
        STS_KV_B("lossless", lossless(r)),
        /* max_lossless only: the search stopped at the space set aside, the
         * device may sustain more (a lower bound, not the limit) */
        STS_KV_B("capped_by_space", r->capped),
        /* measured, not the sync interval's share: the sync's own time and
         * the records still queued behind it count */
        STS_KV_U("at_risk_peak_bytes", r->at_risk_peak),
    };
    size_t n_metrics = 12;
    if (!l->tasks) { /* its worst hour: where a day's losses gather, and its stall */
        metrics[n_metrics++] = STS_KV_U("worst_hour_index", r->worst_hour.index);
        metrics[n_metrics++] = STS_KV_U("worst_hour_records_lost", r->worst_hour.lost);
        metrics[n_metrics++] = STS_KV_U("worst_hour_stall_ns", r->worst_hour.stall_ns);
    }
    for (uint32_t i = 0; i < l->n; i++) {
        memcpy(lost_key[i], "records_lost_", 13);
        memcpy(lost_key[i] + 13, l->s[i].name, strlen(l->s[i].name) + 1);
        metrics[n_metrics++] = STS_KV_U(lost_key[i], r->lost_by_stream[i]);
    }
    double run = wl_rate(r->payload_bytes, r->elapsed_ns);
    struct sts_lat_report lat[] = {{.name = "storage_call", .lat = &l->c->lat[0]},
                                   {.name = "record_to_durable", .lat = &l->c->lat[1]}};
    return wl_emit_runs(l->c, name, params, WL_COUNT(params), &run, 1, metrics, n_metrics, lat,
                        with_lat ? 2 : 0);
}

/* A run the storage failed (a power cut ends it so): what it had then,
 * for a plan that checks what a cut takes against what it measured. */
static int emit_at_failure(struct l1 *l, int mode)
{
    const struct l1_result *r = &l->r;
    struct sts_kv params[] = {STS_KV_S("mode", mode_name[mode]), STS_KV_U("streams", l->n),
                              STS_KV_U("buffer_bytes", l->buffer_bytes),
                              STS_KV_U("sync_interval_ns", l->sync_ns)};
    uint64_t kept = 0;
    for (uint32_t i = 0; i < l->n; i++)
        kept += (l->s[i].produced - l->s[i].lost) * l->s[i].rec;
    struct sts_kv metrics[] = {
        STS_KV_U("failed_at_ns", r->elapsed_ns),
        STS_KV_U("records_produced", r->produced),
        STS_KV_U("records_lost", r->lost),
        STS_KV_U("records_durable", r->durable),
        STS_KV_U("kept_bytes", kept),
        STS_KV_U("durable_bytes", r->durable_bytes),
        STS_KV_U("at_risk_bytes", l1_at_risk(l, r->elapsed_ns)),
    };
    double run = wl_rate(r->durable_bytes, r->elapsed_ns);
    return wl_emit_runs(l->c, "at_failure", params, WL_COUNT(params), &run, 1, metrics,
                        WL_COUNT(metrics), NULL, 0);
}

static uint64_t l1_scratch(const struct sts_plan *p);

/* Highest multiplier of every stream's rate with nothing lost or late:
 * doubling to the first failure, then halving the interval 8 times. The
 * doubling stops where the next run would write more than the space the
 * run was allowed (l1_scratch, checked before the run): *capped says so.
 * The sustained run at the nominal rate (`nominal`) is the first probe: a
 * rerun of it would meet a medium the runs before have aged, and could
 * report a highest lossless rate below one that was just sustained. */
static int bisect(struct l1 *l, int mode, const struct l1_result *nominal, double *best,
                  double *best_bps, struct l1_result *best_r, int *capped)
{
    double lo = 0, hi = 1;
    uint64_t budget = l1_scratch(l->c->plan);
    int rc;
    *capped = 0;
    if (lossless(nominal)) {
        *best_r = *nominal;
        *best_bps = wl_rate(nominal->payload_bytes, nominal->elapsed_ns);
        *best = 1;
        lo = 1;
        hi = 2;
        if (2 * nominal->bytes_written + L1_CHUNK > budget) {
            *capped = 1;
            return STS_OK;
        }
    }
    for (; lossless(nominal);) {
        rc = run_once(l, mode, hi);
        if (rc)
            return rc;
        if (!lossless(&l->r))
            break;
        *best_r = l->r;
        *best_bps = wl_rate(l->r.payload_bytes, l->r.elapsed_ns);
        *capped = 2 * l->r.bytes_written + L1_CHUNK > budget;
        if (hi >= 1048576 || *capped) { /* outruns any rate worth testing, or the space */
            *best = hi;
            return STS_OK;
        }
        lo = hi;
        hi *= 2;
    }
    if (lo == 0) /* the nominal rate lost: search below it (hi = 1) */
        lo = 1.0 / 1024;
    for (int k = 0; k < 8; k++) {
        double mid = (lo + hi) / 2;
        rc = run_once(l, mode, mid);
        if (rc)
            return rc;
        if (lossless(&l->r)) {
            lo = mid;
            *best_r = l->r;
            *best_bps = wl_rate(l->r.payload_bytes, l->r.elapsed_ns);
        } else {
            hi = mid;
        }
    }
    *best = lo;
    return STS_OK;
}

static int l1_run(struct sts_ctx *c)
{
    const struct sts_plan *p = c->plan;
    const char *spec = p->streams ? p->streams : L1_DEFAULT_STREAMS;
    uint64_t duration = wl_duration(p, 3000000000ull, 60000000000ull);
    uint64_t deadline = p->deadline_ns ? p->deadline_ns : 2000000000ull;
    uint64_t buffer = p->buffer_bytes ? p->buffer_bytes : 64 * KIB;
    uint64_t sync_ns = p->sync_interval_ns ? p->sync_interval_ns : 1000000000ull;
    struct sts_kv tp[] = {
        STS_KV_S("streams", spec),
        STS_KV_U("duration_ns", duration),
        STS_KV_U("deadline_ns", deadline),
        STS_KV_U("buffer_bytes", buffer),
        STS_KV_U("sync_interval_ns", sync_ns),
        STS_KV_B("bisect", p->bisect != 0),
        STS_KV_B("tasks", p->tasks != 0),
        STS_KV_S("writers", p->l1_writer > 0 && p->l1_writer <= N_MODES
                                ? mode_name[p->l1_writer - 1] : "all"),
    };
    int rc = sts_test_begin(c, tp, WL_COUNT(tp));
    if (rc)
        return rc;
    /* the state (~9 KiB of runs) is lent by the workspace, past the I/O chunk */
    struct l1 *l = wl_borrow(c, L1_CHUNK, sizeof(struct l1));
    if (!l)
        return sts_fail(c, STS_ENOMEM, "L1: the workspace buffer is too small (needs 14 KiB)");
    memset(l, 0, sizeof(*l)); /* no 9 KiB temporary on an MCU's stack */
    l->c = c;
    l->duration_ns = duration;
    l->deadline_ns = deadline;
    l->buffer_bytes = buffer;
    l->sync_ns = sync_ns;
    l->virtual_time = (c->target->flags & STS_T_VIRTUAL_TIME) != 0;
    const char *why = l1_parse_streams(l, spec);
    if (why)
        return sts_fail(c, STS_EINVAL, why);
    if (wl_read_only(c))
        return sts_fail(c, STS_ENOTSUP, "L1 writes logs: " WL_READ_ONLY_WHY);
    if (p->tasks) { /* the tasks' state and stacks, past L1's own */
        size_t skip = L1_CHUNK + sizeof(struct l1) + 16;
        l->tasks = l1_tasks_init(l, wl_borrow(c, skip, l1_tasks_bytes()), l1_tasks_bytes(), &why);
        if (!l->tasks)
            return sts_fail(c, STS_ENOTSUP, why);
    }
    for (int mode = 0; mode < N_MODES && !rc; mode++) {
        if (p->l1_writer && p->l1_writer != mode + 1)
            continue;
        sts_report_progress(c, mode_name[mode], (uint64_t)mode, N_MODES);
        if (mode != MODE_IOTASK && c->target->io_align > 1) {
            struct sts_kv sp[] = {STS_KV_S("mode", mode_name[mode])};
            rc = wl_emit_skipped(c, "sustained", sp, 1, "record-sized writes are not possible "
                                                        "with direct I/O (aligned sizes only)");
            continue;
        }
        rc = run_once(l, mode, 1.0);
        if (rc && rc != STS_EINTR)
            (void)emit_at_failure(l, mode); /* the run's own error is the one to report */
        if (!rc)
            rc = emit(l, "sustained", mode, 1.0, 1);
        if (rc)
            break;
        sts_set_summary(c, STS_KV_U(sum_key[mode][0], l->r.required_buffer));
        sts_set_summary(c, STS_KV_U(sum_key[mode][1], l->r.worst_stall_ns));
        sts_set_summary(c, STS_KV_B(sum_key[mode][2], lossless(&l->r)));
        if (p->bisect) {
            double best = 0, bps = 0;
            struct l1_result nominal = l->r;
            memset(&l->r, 0, sizeof(l->r)); /* lossy at every rate tried: zeros */
            struct l1_result found = l->r;
            int capped = 0;
            rc = bisect(l, mode, &nominal, &best, &bps, &found, &capped);
            if (rc)
                break;
            /* the lossless probe itself, not a rerun: real time is not repeatable */
            l->r = found;
            l->r.capped = capped;
            rc = emit(l, "max_lossless", mode, best, 0);
            sts_set_summary(c, STS_KV_D(sum_key[mode][3], best));
            sts_set_summary(c, STS_KV_D(sum_key[mode][4], bps));
        }
    }
    size_t prod_stack = 0, writer_stack = 0;
    if (l->tasks)
        l1_tasks_stacks(l->tasks, &prod_stack, &writer_stack);
    if (prod_stack) /* measured by an RTOS port: docs/porting.md */
        sts_set_summary(c, STS_KV_U("producer_task_stack_used_bytes", prod_stack));
    if (writer_stack)
        sts_set_summary(c, STS_KV_U("writer_task_stack_used_bytes", writer_stack));
    return rc;
}

/* The most one run may write: --size when given; else room for 8x the
 * default streams (~14.5 KB/s), and with --bisect 64 times that, at most
 * 256 MiB (the doubling stops there and says so). */
static uint64_t l1_scratch(const struct sts_plan *p)
{
    if (p->size_bytes)
        return p->size_bytes;
    uint64_t d = wl_duration(p, 3000000000ull, 60000000000ull) / 1000000000ull + 1;
    uint64_t b = d * 128 * KIB * (p->bisect ? 64 : 1);
    return (b < 256 * MIB ? b : 256 * MIB) + 16 * L1_CHUNK;
}

const struct sts_test_def sts_test_l1 = {
    "L1", "Sustained logging: streams at fixed rates through direct, mutex and iotask writers",
    "issue L1 (the study's guidelines 6.2)", l1_scratch, l1_run, 0, 0, 1,
};
