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
                wl_pattern_fill(c->buf, pos, (size_t)chunk, c->plan->seed);
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

static int sweep_point(struct sts_ctx *c, const struct sweep *sw, uint64_t chunk, int is_write,
                       uint64_t step, uint64_t steps)
{
    const char *name = is_write ? "write" : "read";
    struct sts_kv params[] = {
        STS_KV_S("op", name),
        STS_KV_U("chunk_bytes", chunk),
        STS_KV_U("file_bytes", sw->file_bytes),
        STS_KV_U("iterations", sw->iterations ? sw->iterations : sw->file_bytes / chunk),
    };
    const char *why = wl_chunk_unusable(c, chunk);
    if (!why && is_write && wl_read_only(c))
        why = WL_READ_ONLY_WHY;
    if (!why && is_write && sw->iterations && wl_append_only(c))
        why = WL_APPEND_ONLY_WHY; /* B2 wraps around its file */
    if (why)
        return wl_emit_skipped(c, name, params, WL_COUNT(params), why);

    double runs[WL_MAX_RUNS];
    uint64_t bytes = 0, ns_total = 0;
    char label[48];
    wl_label(label, sizeof(label), name, chunk);
    wl_lat_reset(c);
    uint32_t r = 0;
    for (; wl_run_again(c, runs, r, sw->runs); r++) {
        wl_run_progress(c, label, step, steps, r, sw->runs);
        sts_fh fh;
        int flags = is_write ? STS_O_WRONLY | STS_O_CREAT : STS_O_RDONLY;
        if (is_write && !sw->iterations)
            flags |= STS_O_TRUNC;
        int rc = wl_open(c, sw->path, flags, &fh);
        if (rc)
            return rc;
        if (!is_write)
            rc = wl_drop_cache(c, fh);
        uint64_t ns = 0;
        if (!rc)
            rc = timed_pass(c, fh, is_write, chunk, sw, &bytes, &ns);
        int rc2 = wl_close(c, fh);
        if (rc || rc2)
            return rc ? rc : rc2;
        runs[r] = wl_rate(bytes, ns);
        ns_total += ns;
    }
    struct sts_kv metrics[] = {
        STS_KV_U("bytes_per_run", bytes),
        STS_KV_U("ops_per_run", bytes / chunk),
        STS_KV_U("mean_elapsed_ns", ns_total / r),
    };
    struct sts_lat_report lat = {.name = is_write ? "write" : "read", .lat = &c->lat[0]};
    return wl_emit_runs(c, name, params, WL_COUNT(params), runs, r, metrics,
                        WL_COUNT(metrics), &lat, sw->iterations ? 1 : 0);
}

static int run_sweep(struct sts_ctx *c, const struct sweep *sw)
{
    struct sts_kv tp[] = {
        STS_KV_U("file_bytes", sw->file_bytes),
        STS_KV_U("min_chunk_bytes", sw->min_chunk),
        STS_KV_U("max_chunk_bytes", sw->max_chunk),
        STS_KV_U("runs", sw->runs),
        STS_KV_U("iterations", sw->iterations),
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
        wl_pattern_fill(c->buf, 0, c->buf_size, c->plan->seed);
    }
    uint64_t steps = 0;
    for (uint64_t ch = sw->min_chunk; ch <= sw->max_chunk; ch *= 2)
        steps += 2;
    uint64_t step = 0;
    for (uint64_t ch = sw->min_chunk; ch <= sw->max_chunk && !rc; ch *= 2) {
        if (sw->iterations && !c->plan->verify)
            wl_pattern_fill(c->buf, 0, c->buf_size, c->plan->seed);
        rc = sweep_point(c, sw, ch, 1, step++, steps);
        if (!rc)
            rc = sweep_point(c, sw, ch, 0, step++, steps);
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
    b0_scratch, b0_run, 0, 0,
};
const struct sts_test_def sts_test_b1 = {
    "B1", "Sequential read/write of one file, chunks up to 2 MiB (the study: 4 MiB, 10 runs)", "study B1",
    b1_scratch, b1_run, 0, 0,
};
const struct sts_test_def sts_test_b2 = {
    "B2", "Fixed iterations per chunk size, 1 B .. 2 MiB, wrapping in a 4 MiB file (the study: 500)", "study B2",
    b2_scratch, b2_run, 0, 0,
};
