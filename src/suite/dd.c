/* seq (seed 003): what dd and hdparm report on ARM boards. A dd-style
 * sequential write of the whole file in 1 MiB blocks ending with a data
 * sync (conv=fdatasync), an uncached sequential read after the cache was
 * dropped (like hdparm -t) and a cached reread of the same file through the
 * filesystem. The last is hdparm -T's analogue, not its measurement: hdparm
 * rereads 2 MiB of the block device's buffer cache, not a file.
 * Best and median of N runs, as the seed reports best of 5. */
#include "workload.h"

#define SEQ_PATH "seq.dat"

static uint64_t seq_size(const struct sts_plan *p)
{
    return wl_size(p, 16 * MIB, 256 * MIB);
}

static size_t seq_block(const struct sts_ctx *c)
{
    size_t bs = c->buf_size < MIB ? c->buf_size : (size_t)MIB;
    if (c->target->io_align > 1)
        bs -= bs % c->target->io_align;
    return bs;
}

/* The largest write a pass makes, which results say: a file smaller than a
 * block goes in one write of its size, not "at 1 MiB". */
static uint64_t seq_block_said(const struct sts_ctx *c, uint64_t size)
{
    return size < seq_block(c) ? size : seq_block(c);
}

static int seq_pass(struct sts_ctx *c, int is_write, int drop, uint64_t size, uint64_t *ns)
{
    size_t bs = seq_block(c);
    sts_fh fh;
    int rc = wl_open(c, SEQ_PATH, is_write ? STS_O_WRONLY | STS_O_CREAT | STS_O_TRUNC
                                           : STS_O_RDONLY, &fh);
    if (rc)
        return rc;
    if (drop)
        rc = wl_drop_cache(c, fh);
    uint64_t t0 = wl_now(c);
    for (uint64_t off = 0; off < size && !rc; off += bs) {
        size_t n = size - off < bs ? (size_t)(size - off) : bs;
        if (sts_should_stop(c)) {
            rc = STS_EINTR;
        } else if (is_write) {
            if (c->plan->verify)
                sts_pattern_fill(c->buf, off, n, c->plan->seed);
            /* without --verify: the pattern filled once before the timing, each
             * block its own part of it (never zeros, which compress to nothing) */
            rc = wl_write(c, fh, c->plan->verify ? c->buf : wl_pattern_src(c, off, bs), n);
        } else {
            rc = wl_read(c, fh, c->buf, n);
            if (!rc)
                rc = wl_verify(c, c->buf, off, n);
        }
    }
    if (!rc && is_write)
        rc = wl_sync(c, fh, STS_SYNC_DATA);
    *ns = wl_now(c) - t0;
    int rc2 = wl_close(c, fh);
    return rc ? rc : rc2;
}

static double median(double *v, size_t n)
{
    for (size_t i = 1; i < n; i++) /* insertion sort: n is at most a few dozen */
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

static int seq_emit(struct sts_ctx *c, const char *name, uint64_t size, const double *runs,
                    uint32_t n)
{
    double sorted[WL_MAX_RUNS];
    for (uint32_t i = 0; i < n; i++)
        sorted[i] = runs[i];
    double med = median(sorted, n);
    double best = sorted[n - 1];
    struct sts_kv params[] = {
        STS_KV_S("op", name),
        STS_KV_U("file_bytes", size),
        STS_KV_U("block_bytes", seq_block_said(c, size)),
    };
    struct sts_kv metrics[] = {
        STS_KV_D("best_bytes_per_second", best),
        STS_KV_D("median_bytes_per_second", med),
    };
    return wl_emit_runs(c, name, params, WL_COUNT(params), runs, n, metrics,
                        WL_COUNT(metrics), NULL, 0);
}

static int seq_run(struct sts_ctx *c)
{
    uint64_t size = seq_size(c->plan);
    uint32_t runs = wl_runs(c, 3, 5);
    struct sts_kv tp[] = {
        STS_KV_U("file_bytes", size),
        STS_KV_U("block_bytes", seq_block_said(c, size)),
        STS_KV_U("runs", runs),
    };
    int rc = sts_test_begin(c, tp, WL_COUNT(tp));
    if (rc)
        return rc;
    if (!c->plan->verify)
        sts_pattern_fill(c->buf, 0, c->buf_size, c->plan->seed);
    double w[WL_MAX_RUNS], ru[WL_MAX_RUNS], rcached[WL_MAX_RUNS];
    int has_cache = (c->target->flags & STS_T_HAS_CACHE) != 0;
    int ro = wl_read_only(c);
    if (ro)
        rc = wl_prefill(c, SEQ_PATH, size); /* adopt what the medium holds */
    for (uint32_t r = 0; r < runs && !rc; r++) {
        uint64_t ns = 0;
        if (!ro) {
            sts_report_progress(c, "dd write + fdatasync", r, runs);
            rc = seq_pass(c, 1, 0, size, &ns);
            w[r] = wl_rate(size, ns);
        }
        if (!rc) {
            sts_report_progress(c, "uncached read", r, runs);
            rc = seq_pass(c, 0, 1, size, &ns);
            ru[r] = wl_rate(size, ns);
        }
        if (!rc && has_cache) {
            sts_report_progress(c, "cached read", r, runs);
            rc = seq_pass(c, 0, 0, size, &ns); /* the uncached pass warmed the cache */
            rcached[r] = wl_rate(size, ns);
        }
    }
    if (!rc && ro) {
        struct sts_kv params[] = {STS_KV_S("op", "write")};
        rc = wl_emit_skipped(c, "write", params, 1, WL_READ_ONLY_WHY);
    } else if (!rc) {
        rc = seq_emit(c, "write", size, w, runs);
    }
    if (!rc)
        rc = seq_emit(c, "read_uncached", size, ru, runs);
    if (!rc) {
        if (has_cache) {
            rc = seq_emit(c, "read_cached", size, rcached, runs);
        } else {
            struct sts_kv params[] = {STS_KV_S("op", "read_cached")};
            rc = wl_emit_skipped(c, "read_cached", params, 1,
                                 "the target has no cache in front of the medium");
        }
    }
    int rc2 = wl_remove(c, SEQ_PATH);
    return rc ? rc : rc2;
}

const struct sts_test_def sts_test_seq = {
    "seq", "dd-style sequential write with fdatasync, uncached and cached reads (best of N)",
    "seed 003 (dd/hdparm)", seq_size, seq_run, 0, 0, 0,
};
