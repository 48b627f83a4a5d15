/* B0, B1, B2: sequential read/write chunk sweeps (the study's section 4). */
#include "workload.h"

struct sweep {
    const char *path;
    uint64_t file_bytes;
    uint64_t min_chunk, max_chunk; /* powers of two */
    uint32_t runs;
    uint32_t iterations; /* 0: transfer the whole file; else a fixed count
                            wrapping inside the file (B2) */
};

/* One timed pass over the file. Writes end with a data sync inside the
 * timed region (dd conv=fdatasync semantics): otherwise a host page cache
 * would report memory speed. */
static int timed_pass(struct sts_ctx *c, sts_fh fh, int is_write, uint64_t chunk,
                      const struct sweep *sw, uint64_t *bytes, uint64_t *ns)
{
    uint64_t n_ops = sw->iterations ? sw->iterations : sw->file_bytes / chunk;
    int per_op = sw->iterations != 0; /* B2 looks at per-operation behaviour */
    int verify = c->plan->verify;
    uint64_t pos = 0;
    int rc = STS_OK;
    uint64_t t0 = wl_now(c), prev = t0;
    for (uint64_t i = 0; i < n_ops; i++) {
        if (sts_should_stop(c))
            return STS_EINTR;
        if (pos + chunk > sw->file_bytes) {
            rc = wl_seek(c, fh, 0);
            if (rc)
                return rc;
            pos = 0;
        }
        if (is_write) {
            if (verify)
                sts_pattern_fill(c->buf, pos, (size_t)chunk, c->plan->seed);
            /* without --verify the buffer holds the pattern once, filled
             * outside the timing: each chunk takes its own part of it */
            rc = wl_write(c, fh, verify ? c->buf : wl_pattern_src(c, pos, chunk), (size_t)chunk);
        } else {
            rc = wl_read(c, fh, c->buf, (size_t)chunk);
            if (!rc && verify)
                rc = wl_verify(c, c->buf, pos, (size_t)chunk);
        }
        if (rc)
            return rc;
        pos += chunk;
        if (per_op) {
            uint64_t now = wl_now(c);
            sts_lat_record(&c->lat[0], now - prev);
            prev = now;
        }
    }
    if (is_write)
        rc = wl_sync(c, fh, STS_SYNC_DATA);
    *ns = wl_now(c) - t0;
    *bytes = n_ops * chunk;
    return rc;
}

/* The point's parameters into kv[4]; NULL when it can run, else why not. */
static const char *point_params(const struct sts_ctx *c, const struct sweep *sw, uint64_t chunk,
                                int is_write, struct sts_kv kv[4])
{
    kv[0] = STS_KV_S("op", is_write ? "write" : "read");
    kv[1] = STS_KV_U("chunk_bytes", chunk);
    kv[2] = STS_KV_U("file_bytes", sw->file_bytes);
    kv[3] = STS_KV_U("iterations",
                                    sw->iterations ? sw->iterations : sw->file_bytes / chunk);
    const char *why = wl_chunk_unusable(c, chunk);
    if (!why && is_write && wl_read_only(c))
        why = WL_READ_ONLY_WHY;
    if (!why && is_write && sw->iterations && wl_append_only(c))
        why = WL_APPEND_ONLY_WHY; /* B2 wraps around its file */
    return why;
}

/* One run of a point: open, the timed pass, close; its rate into *rate. */
static int point_run(struct sts_ctx *c, const struct sweep *sw, uint64_t chunk, int is_write,
                     double *rate, uint64_t *ns)
{
    sts_fh fh;
    int flags = is_write ? STS_O_WRONLY | STS_O_CREAT : STS_O_RDONLY;
    if (is_write && !sw->iterations)
        flags |= STS_O_TRUNC;
    int rc = wl_open(c, sw->path, flags, &fh);
    if (rc)
        return rc;
    if (!is_write)
        rc = wl_drop_cache(c, fh);
    uint64_t bytes = 0;
    *ns = 0;
    if (!rc)
        rc = timed_pass(c, fh, is_write, chunk, sw, &bytes, ns);
    int rc2 = wl_close(c, fh);
    *rate = wl_rate(bytes, *ns);
    return rc ? rc : rc2;
}

/* with_lat 0: the latencies are not this point's (a sweep in rounds that
 * was stopped before its last round) and are left out */
static int point_emit(struct sts_ctx *c, const struct sweep *sw, uint64_t chunk, int is_write,
                      const struct sts_kv params[4], const double *runs, uint32_t n,
                      uint64_t ns_total, int with_lat)
{
    uint64_t ops = sw->iterations ? sw->iterations : sw->file_bytes / chunk;
    struct sts_kv metrics[] = {
        STS_KV_U("bytes_per_run", ops * chunk),
        STS_KV_U("ops_per_run", ops),
        STS_KV_U("mean_elapsed_ns", ns_total / n),
    };
    struct sts_lat_report lat = {.name = is_write ? "write" : "read", .lat = &c->lat[0]};
    return wl_emit_runs(c, is_write ? "write" : "read", params, 4, runs, n, metrics,
                        WL_COUNT(metrics), &lat, sw->iterations && with_lat ? 1 : 0);
}

#define SWEEP_MAX_POINTS 48 /* 1 B .. 2 MiB written and read, and room */

/* Whether a point (n runs so far, in runs[]) needs a round before its
 * last: the last round adds one more run to every point. */
static int point_wants_more(const struct sts_ctx *c, const double *runs, uint32_t n,
                            uint32_t asked)
{
    return n + 1 < asked || (n >= 2 && wl_run_again(c, runs, n, n));
}

/* Points first .. first + points - 1 of the sweep (2 a chunk size: write,
 * read), their runs in rounds (docs/analysis.md, "Rounds"): each round runs
 * every point that wants another run, in order; the last round runs every
 * point once more and emits it straight after that run, so its latencies
 * are that run's operations (the recorders are shared) - or, for a single
 * point, all its runs'. table[p * cap + r] holds run r of point p. One
 * point at a time is each point's runs one after another. */
static int sweep_rounds(struct sts_ctx *c, const struct sweep *sw, uint32_t first,
                        uint32_t points, uint32_t all_points, double *table, uint32_t cap)
{
    uint32_t n[SWEEP_MAX_POINTS] = {0};
    uint8_t enough[SWEEP_MAX_POINTS] = {0}; /* wants no round before its last */
    uint64_t ns_total[SWEEP_MAX_POINTS] = {0};
    uint64_t per = sw->runs < cap ? sw->runs : cap, total = per * all_points;
    uint64_t done = per * first;
    int last = !point_wants_more(c, table, 0, sw->runs);
    for (;;) {
        int more = 0;
        for (uint32_t p = 0; p < points; p++) {
            uint32_t g = first + p;
            uint64_t chunk = sw->min_chunk << (g / 2);
            double *runs = table + (size_t)p * cap;
            struct sts_kv params[4];
            const char *why = point_params(c, sw, chunk, !(g & 1), params);
            int rc = why && last ? wl_emit_skipped(c, params[0].v.s, params, 4, why) : 0;
            if (rc)
                return rc;
            if (why || (!last && enough[p]))
                continue;
            char label[48];
            sts_report_progress(c, wl_label(label, sizeof(label), params[0].v.s, chunk),
                                done < total ? done : total - 1, total);
            done++;
            if (!(g & 1) && sw->iterations && !c->plan->verify)
                sts_pattern_fill(c->buf, 0, c->buf_size, c->plan->seed); /* reads took the buffer */
            if (!n[p] || (last && points > 1))
                wl_lat_reset(c);
            uint64_t ns = 0;
            rc = point_run(c, sw, chunk, !(g & 1), &runs[n[p]], &ns);
            for (uint32_t q = last ? p : 0; rc == STS_EINTR && q < points; q++) {
                /* stopped (Ctrl-C): what the rounds measured is kept */
                uint32_t h = first + q;
                struct sts_kv kv[4];
                if (n[q] && !point_params(c, sw, sw->min_chunk << (h / 2), !(h & 1), kv))
                    (void)point_emit(c, sw, sw->min_chunk << (h / 2), !(h & 1), kv,
                                     table + (size_t)q * cap, n[q], ns_total[q], 0);
            }
            if (rc)
                return rc;
            n[p]++;
            ns_total[p] += ns;
            if (last)
                rc = point_emit(c, sw, chunk, !(g & 1), params, runs, n[p], ns_total[p], 1);
            if (rc)
                return rc;
            enough[p] = n[p] + 1 >= cap || !point_wants_more(c, runs, n[p], sw->runs);
            more |= !enough[p];
        }
        if (last)
            return STS_OK;
        last = !more; /* when no point wants another, the next round is the last */
    }
}

static int run_sweep(struct sts_ctx *c, const struct sweep *sw)
{
    uint64_t steps = 0;
    for (uint64_t ch = sw->min_chunk; ch <= sw->max_chunk; ch *= 2)
        steps += 2;
    if (steps > SWEEP_MAX_POINTS)
        return wl_fail_on(c, STS_EINVAL, "sweep: too many chunk sizes", sw->path);
    int rounds = wl_in_rounds(c, sw->runs, steps);
    struct sts_kv tp[] = {
        STS_KV_U("file_bytes", sw->file_bytes),
        STS_KV_U("min_chunk_bytes", sw->min_chunk),
        STS_KV_U("max_chunk_bytes", sw->max_chunk),
        STS_KV_U("runs", sw->runs),
        STS_KV_U("iterations", sw->iterations),
        STS_KV_B("rounds", rounds),
    };
    int rc = sts_test_begin(c, tp, WL_COUNT(tp));
    if (rc)
        return rc;
    if (sw->iterations || wl_read_only(c)) { /* B2 reads and rewrites an existing file */
        rc = wl_prefill(c, sw->path, sw->file_bytes);
        if (rc)
            return rc;
    } else if (!c->plan->verify) {
        /* without --verify the data is written once, outside the timing */
        sts_pattern_fill(c->buf, 0, c->buf_size, c->plan->seed);
    }
    if (rounds) {
        uint32_t cap = (uint32_t)(c->rounds_len / steps);
        rc = sweep_rounds(c, sw, 0, (uint32_t)steps, (uint32_t)steps, c->rounds,
                          cap > WL_MAX_RUNS ? WL_MAX_RUNS : cap);
    } else {
        double runs[WL_MAX_RUNS];
        for (uint32_t p = 0; p < steps && !rc; p++)
            rc = sweep_rounds(c, sw, p, 1, (uint32_t)steps, runs, WL_MAX_RUNS);
    }
    int rc2 = wl_remove(c, sw->path);
    return rc ? rc : rc2;
}

/* Sizes shrink at quick scale; full is the study's Table 2. */
static void b0_config(const struct sts_plan *p, struct sweep *sw)
{
    int full = p->scale == STS_SCALE_FULL;
    *sw = (struct sweep){"B0.dat", full ? 1 * MIB : 256 * KIB, 1, 1024, full ? 10 : 3, 0};
}

static void b1_config(const struct sts_plan *p, struct sweep *sw)
{
    int full = p->scale == STS_SCALE_FULL;
    *sw = (struct sweep){"B1.dat", full ? 4 * MIB : 2 * MIB, full ? 1 : 64, 2 * MIB,
                         full ? 10 : 2, 0};
}

static void b2_config(const struct sts_plan *p, struct sweep *sw)
{
    int full = p->scale == STS_SCALE_FULL;
    /* The study gives one series per chunk size for B2. */
    *sw = (struct sweep){"B2.dat", 4 * MIB, 1, 2 * MIB, 1, full ? 500 : 50};
}

#define SWEEP_TEST(name, cfg)                                              \
    static int name##_run(struct sts_ctx *c)                               \
    {                                                                      \
        struct sweep sw;                                                   \
        cfg(c->plan, &sw);                                                 \
        sw.runs = wl_runs(c, sw.runs, sw.runs);                            \
        sw.runs = wl_rounds_runs(c, sw.runs);                              \
        return run_sweep(c, &sw);                                          \
    }                                                                      \
    static uint64_t name##_scratch(const struct sts_plan *p)               \
    {                                                                      \
        struct sweep sw;                                                   \
        cfg(p, &sw);                                                       \
        return sw.file_bytes;                                              \
    }

SWEEP_TEST(b0, b0_config)
SWEEP_TEST(b1, b1_config)
SWEEP_TEST(b2, b2_config)

const struct sts_test_def sts_test_b0 = {
    "B0", "Sequential read/write of one file, chunks 1 B .. 1 KiB (the study: 1 MiB, 10 runs)", "study B0",
    b0_scratch, b0_run, 0, 0, 0,
};
const struct sts_test_def sts_test_b1 = {
    "B1", "Sequential read/write of one file, chunks up to 2 MiB (the study: 4 MiB, 10 runs)", "study B1",
    b1_scratch, b1_run, 0, 0, 0,
};
const struct sts_test_def sts_test_b2 = {
    "B2", "Fixed iterations per chunk size, 1 B .. 2 MiB, wrapping in a 4 MiB file (the study: 500)", "study B2",
    b2_scratch, b2_run, 0, 0, 0,
};
