/* fsync profile (seed 001): what fio --rw=randwrite --bs=4k --fsync=1
 * --ioengine=sync --time_based measures. Each operation is a 4 KiB write at
 * a random aligned offset, each block once per pass (fio's random map),
 * followed by a full sync. The file is laid out as
 * fio lays it out by default (overwrite=0): allocated, not written, so a
 * first write to a block also converts its unwritten extent, which the
 * sync must commit. --overwrite (fio --overwrite=1) writes it in full first;
 * so does --verify, which reads every block back, and a filesystem that
 * cannot allocate. The point's `layout` says which ran. */
#include "workload.h"

#include <string.h>

#define FSYNC_PATH "fsync.dat"
#define FSYNC_BS 4096u
#define FSYNC_VIRTUAL_MAX_OPS 100000u /* on a virtual clock: enough for every figure */

static uint64_t fsync_size(const struct sts_plan *p)
{
    return wl_size(p, 16 * MIB, 500 * MIB);
}

/* The file, laid out as fio lays it out (*layout "allocated") where the
 * filesystem can allocate without writing, else written in full. */
static int fsync_lay_out(struct sts_ctx *c, uint64_t size, const char **layout)
{
    sts_report_progress(c, "laying out the file", 0, 0);
    *layout = "written";
    if (!c->plan->overwrite && !c->plan->verify && c->target->fs.ops->allocate) {
        sts_fh lf;
        int rc = wl_open(c, FSYNC_PATH, STS_O_WRONLY | STS_O_CREAT | STS_O_TRUNC, &lf);
        if (rc)
            return rc;
        int arc = c->target->fs.ops->allocate(c->target->fs.ctx, lf, size);
        if (!arc)
            arc = wl_sync(c, lf, STS_SYNC_FULL);
        int crc = wl_close(c, lf);
        if (arc && arc != STS_ENOTSUP)
            return wl_fail_on(c, arc, "allocate", FSYNC_PATH);
        if (crc)
            return crc;
        *layout = arc ? "written" : "allocated";
    }
    return strcmp(*layout, "allocated") ? wl_prefill(c, FSYNC_PATH, size) : STS_OK;
}

/* What the timed loop did: operations, time, and the operation that failed. */
struct fsync_loop {
    uint64_t ops, elapsed;
    const char *failed_op; /* NULL, or "seek", "write", "sync" */
};

/* 4 KiB writes, each followed by a full sync, until the duration runs out
 * (or Ctrl-C: STS_EINTR). The hot loop calls the method table directly:
 * wl_* wrappers only add error text, which is built once, after a
 * failure. */
static int fsync_loop(struct sts_ctx *c, sts_fh fh, uint64_t size, uint64_t duration,
                      struct fsync_loop *out)
{
    uint64_t blocks = size / FSYNC_BS;
    struct sts_lat *op_lat = &c->lat[0], *flush_lat = &c->lat[1];
    const struct sts_fs_ops *ops = c->target->fs.ops;
    void *fs = c->target->fs.ctx;
    int verify = c->plan->verify, rc = STS_OK;
    const uint64_t progress_every = 250000000ull;
    uint64_t t0 = wl_now(c), prev = t0, next_progress = t0 + progress_every, frozen = 0;
    /* On a virtual clock the figures are exact long before a fast model's
     * duration runs out: sim:ram fsyncs 10 million times a virtual second,
     * which took the host 9 s of CPU for the 2 s quick scale asks for. */
    uint64_t max_ops = (c->target->flags & STS_T_VIRTUAL_TIME) ? FSYNC_VIRTUAL_MAX_OPS : UINT64_MAX;
    *out = (struct fsync_loop){0, 0, NULL};
    while (prev - t0 < duration && out->ops < max_ops) {
        if (sts_should_stop(c)) {
            rc = STS_EINTR;
            break;
        }
        /* each block once per pass, as fio's random map does: on a file laid
         * out unwritten, a repeat would land on an extent already converted */
        uint64_t pass = out->ops / blocks;
        uint64_t off = wl_perm_at(blocks, c->plan->seed + pass, out->ops % blocks) * FSYNC_BS;
        if (verify)
            sts_pattern_fill(c->buf, off, FSYNC_BS, c->plan->seed);
        size_t done = 0;
        rc = ops->seek(fs, fh, off);
        if (rc) {
            out->failed_op = "seek";
            break;
        }
        rc = ops->write(fs, fh, verify ? c->buf : wl_pattern_src(c, off, FSYNC_BS), FSYNC_BS,
                        &done);
        if (!rc && done != FSYNC_BS)
            rc = STS_ENOSPC;
        if (rc) {
            out->failed_op = "write";
            break;
        }
        uint64_t mid = wl_now(c);
        rc = ops->sync(fs, fh, STS_SYNC_FULL);
        uint64_t now = wl_now(c);
        if (rc) {
            out->failed_op = "sync";
            break;
        }
        if (now == prev && ++frozen > 1000000)
            return sts_fail(c, STS_EINVAL, "the target's clock does not advance: timing "
                                           "during the fsync loop is impossible");
        sts_lat_record(op_lat, now - prev);
        sts_lat_record(flush_lat, now - mid);
        out->ops++;
        prev = now;
        if (now >= next_progress) {
            sts_report_progress(c, "4 KiB write + fsync", now - t0, duration);
            next_progress = now + progress_every;
        }
    }
    out->elapsed = prev - t0;
    return rc;
}

/* --verify: every block read back; the last write of each must stick. */
static int fsync_read_back(struct sts_ctx *c, uint64_t size)
{
    sts_fh fh;
    int rc = wl_open(c, FSYNC_PATH, STS_O_RDONLY, &fh);
    if (rc)
        return rc;
    for (uint64_t off = 0; !rc && off < size; off += FSYNC_BS) {
        rc = wl_read(c, fh, c->buf, FSYNC_BS);
        if (!rc)
            rc = wl_verify(c, c->buf, off, FSYNC_BS);
    }
    int rc2 = wl_close(c, fh); /* closed on every path: a failed read-back kept it claimed */
    return rc ? rc : rc2;
}

/* The one point, its summary and its two latency series. */
static int fsync_emit(struct sts_ctx *c, uint64_t size, uint64_t duration, const char *layout,
                      const struct fsync_loop *lp, int stopped)
{
    double iops = (double)lp->ops * 1e9 / (double)(lp->elapsed ? lp->elapsed : 1);
    double bps = iops * FSYNC_BS;
    double runs[1] = {bps};
    struct sts_lat *op_lat = &c->lat[0];
    struct sts_kv params[] = {
        STS_KV_S("op", "randwrite+fsync"),
        STS_KV_U("block_bytes", FSYNC_BS),
        STS_KV_U("file_bytes", size),
        STS_KV_U("duration_ns", duration),
        STS_KV_S("layout", layout), /* "allocated" (fio's default) or "written" */
    };
    struct sts_kv metrics[] = {
        STS_KV_D("iops", iops),
        STS_KV_D("bytes_per_second", bps),
        STS_KV_U("ops", lp->ops),
        STS_KV_U("bytes", lp->ops * FSYNC_BS),
        STS_KV_U("elapsed_ns", lp->elapsed),
        STS_KV_B("partial", stopped), /* stopped by the user before the duration ran out */
    };
    struct sts_lat_report lat[] = {{.name = "write+flush", .lat = op_lat},
                                   {.name = "flush", .lat = &c->lat[1]}};
    sts_set_summary(c, STS_KV_D("iops", iops));
    sts_set_summary(c, STS_KV_D("bytes_per_second", bps));
    sts_set_summary(c, STS_KV_D("mean_latency_ns", op_lat->w.mean));
    sts_set_summary(c, STS_KV_U("p99_latency_ns", sts_hist_percentile(&op_lat->h, 99.0)));
    sts_set_summary(c, STS_KV_U("p99_99_latency_ns", sts_hist_percentile(&op_lat->h, 99.99)));
    sts_set_summary(c, STS_KV_U("max_latency_ns", op_lat->h.max));
    return wl_emit_runs(c, "randwrite+fsync", params, WL_COUNT(params), runs, 1, metrics,
                        WL_COUNT(metrics), lat, WL_COUNT(lat));
}

static int fsync_run(struct sts_ctx *c)
{
    uint64_t size = fsync_size(c->plan);
    uint64_t duration = wl_duration(c->plan, 2000000000ull, 30000000000ull);
    struct sts_kv tp[] = {
        STS_KV_U("block_bytes", FSYNC_BS),
        STS_KV_U("file_bytes", size),
        STS_KV_U("duration_ns", duration),
        STS_KV_S("sync", "full"),
    };
    int rc = sts_test_begin(c, tp, WL_COUNT(tp));
    if (rc)
        return rc;
    if (wl_read_only(c))
        return sts_fail(c, STS_ENOTSUP, "fsync writes: " WL_READ_ONLY_WHY);
    const char *no_rewrite = wl_no_rewrite(c); /* fio's randwrite rewrites its blocks */
    if (no_rewrite)
        return sts_fail(c, STS_ENOTSUP, no_rewrite);
    if (size < FSYNC_BS)
        return sts_fail(c, STS_EINVAL, "--size must be at least 4 KiB for fsync");
    const char *why = wl_chunk_unusable(c, FSYNC_BS);
    if (why)
        return sts_fail(c, STS_ENOTSUP, why);
    const char *layout;
    rc = fsync_lay_out(c, size, &layout);
    if (rc)
        return rc;
    sts_fh fh;
    rc = wl_open(c, FSYNC_PATH, STS_O_RDWR, &fh);
    if (rc)
        return rc;
    /* fio invalidates the file's cache before a job (invalidate=1) */
    rc = wl_drop_cache(c, fh);
    if (rc) {
        (void)wl_close(c, fh);
        return rc;
    }
    /* the whole buffer, once: each block written takes its own part of it */
    sts_pattern_fill(c->buf, 0, c->buf_size, c->plan->seed);
    struct fsync_loop lp;
    rc = fsync_loop(c, fh, size, duration, &lp);
    if (lp.failed_op) { /* "sync fsync.dat: I/O error" */
        (void)c->target->fs.ops->close(c->target->fs.ctx, fh);
        return wl_fail_on(c, rc, lp.failed_op, FSYNC_PATH);
    }
    if (rc && rc != STS_EINTR) { /* (a clock that does not advance) */
        (void)wl_close(c, fh);
        return rc;
    }
    int rc2 = wl_close(c, fh);
    int stopped = rc == STS_EINTR;
    if (rc2)
        return rc2;
    if (stopped && !lp.ops)
        return rc;
    if (c->plan->verify && !stopped) {
        rc = fsync_read_back(c, size);
        if (rc)
            return rc;
    }
    rc = fsync_emit(c, size, duration, layout, &lp, stopped);
    rc2 = wl_remove(c, FSYNC_PATH);
    if (stopped) /* the partial point is kept; the run still ends as interrupted */
        return STS_EINTR;
    return rc ? rc : rc2;
}

const struct sts_test_def sts_test_fsync = {
    "fsync", "4 KiB random writes with a flush after each, time-based (fio fsync=1)",
    "seed 001", fsync_size, fsync_run, FSYNC_BS, 1, 0,
};
