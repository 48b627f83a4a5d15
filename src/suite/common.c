#include "workload.h"

#include "storscope/device.h"

#include <string.h>

int wl_pattern_check(const uint8_t *buf, uint64_t off, size_t len, uint64_t seed,
                     uint64_t *bad)
{
    size_t i = 0;
    while (i < len) {
        uint64_t o = off + i;
        uint64_t w = sts_mix64(seed ^ (o >> 3));
        for (unsigned b = (unsigned)(o & 7); b < 8 && i < len; b++, i++)
            if (buf[i] != (uint8_t)(w >> (8 * b))) {
                *bad = off + i;
                return STS_ECORRUPT;
            }
    }
    return STS_OK;
}

const uint8_t *wl_pattern_src(const struct sts_ctx *c, uint64_t off, uint64_t chunk)
{
    uint64_t span = c->buf_size - c->buf_size % (chunk ? chunk : 1);
    return c->buf + (span > chunk ? (off % span) / chunk * chunk : 0);
}

/* null: has no medium: its spread is the host's, and no verdict rests on it */
static int no_medium(const struct sts_ctx *c)
{
    return c->target && c->target->kind && !strcmp(c->target->kind, "null");
}

uint32_t wl_runs(const struct sts_ctx *c, uint32_t quick, uint32_t full)
{
    uint32_t r = c->plan->runs ? c->plan->runs : (c->plan->scale == STS_SCALE_FULL ? full : quick);
    /* a noisy model is cheap to repeat (virtual time) and needs it: five
     * runs a point keep its verdicts where the noiseless model's are, or
     * say they are unresolved, in 20 of 20 seeds (bench/verdicts_noise.py) */
    if (!c->plan->runs && r && r < WL_NOISY_RUNS && c->target &&
        (c->target->flags & STS_T_NOISY))
        r = WL_NOISY_RUNS;
    return r > WL_MAX_RUNS ? WL_MAX_RUNS : r;
}

int wl_run_again(const struct sts_ctx *c, const double *runs, uint32_t n, uint32_t asked)
{
    if (n < asked)
        return 1;
    /* (null:'s B0 would run 64 times a point for nothing) */
    if (c->plan->runs || n < 2 || n >= WL_ADAPT_MAX_RUNS || no_medium(c))
        return 0;
    /* a real device keeps the runs asked for: more of them narrow its
     * intervals without catching what changes between executions (page
     * cache, filesystem state) - on ext4 10 identical B2 runs then gave
     * 2 guideline sets, where fixed runs give 1 (bench/verdicts_disks.py) */
    if (!(c->target && (c->target->flags & STS_T_VIRTUAL_TIME)))
        return 0;
    /* in float: a Cortex-M33 has single precision in hardware (double is
     * a library call), and a 0.5 % threshold needs no more digits */
    float mean = 0, m2 = 0, p = (float)WL_PRECISION;
    for (uint32_t i = 0; i < n; i++)
        mean += (float)runs[i];
    mean /= (float)n;
    for (uint32_t i = 0; i < n; i++)
        m2 += ((float)runs[i] - mean) * ((float)runs[i] - mean);
    /* the standard error squared, var / n, against (precision x mean)^2:
     * no square root */
    return mean > 0 && m2 / (float)((n - 1) * n) > p * p * mean * mean;
}

/* the figures of this target do not repeat: a real device, a noisy model */
static int does_not_repeat(const struct sts_ctx *c)
{
    return c->target && ((c->target->flags & STS_T_NOISY) ||
                         !(c->target->flags & STS_T_VIRTUAL_TIME));
}

uint32_t wl_rounds_runs(const struct sts_ctx *c, uint32_t runs)
{
    /* a real device's rounds: fewer than WL_ROUNDS_MIN leave its spells
     * unmeasured (one run a point took its interval from that run's
     * operations, which a spell slows alike); null: has no medium */
    if (!c->plan->runs && c->rounds && runs < WL_ROUNDS_MIN && does_not_repeat(c) &&
        !no_medium(c))
        return WL_ROUNDS_MIN;
    return runs;
}

int wl_in_rounds(const struct sts_ctx *c, uint32_t runs, uint64_t points)
{
    return c->rounds && points && runs >= 2 && c->rounds_len / points >= WL_ROUNDS_MIN &&
           does_not_repeat(c);
}

void wl_run_progress(struct sts_ctx *c, const char *label, uint64_t step, uint64_t steps,
                     uint32_t r, uint32_t asked)
{
    sts_report_progress(c, label, step * asked + (r < asked ? r : asked - 1), steps * asked);
}

uint64_t wl_size(const struct sts_plan *p, uint64_t quick, uint64_t full)
{
    return p->size_bytes ? p->size_bytes : (p->scale == STS_SCALE_FULL ? full : quick);
}

uint64_t wl_duration(const struct sts_plan *p, uint64_t quick, uint64_t full)
{
    return p->duration_ns ? p->duration_ns : (p->scale == STS_SCALE_FULL ? full : quick);
}

/* The geometry under bare extents on raw flash; 0 when that is not the target. */
static uint32_t raw_flash_flags(const struct sts_target *t)
{
    if (!(t->flags & STS_T_NO_FS_METADATA) || !t->bd || !t->bd->ops)
        return 0;
    struct sts_bd_geometry g;
    memset(&g, 0, sizeof(g));
    t->bd->ops->geometry(t->bd->ctx, &g);
    return g.flags & STS_BD_NEEDS_ERASE;
}

const char *sts_target_no_rewrite(const struct sts_target *t)
{
    if (t->flags & STS_T_APPEND_ONLY)
        return WL_APPEND_ONLY_WHY;
    if (raw_flash_flags(t) & STS_BD_NEEDS_ERASE)
        return WL_RAW_FLASH_WHY;
    return NULL;
}

const char *wl_chunk_unusable(const struct sts_ctx *c, uint64_t chunk)
{
    if (chunk > c->buf_size)
        return "chunk is larger than the I/O buffer of this build";
    uint32_t a = c->target->io_align;
    if (a > 1 && chunk % a) /* say whose rule it is */
        return c->target->io_align_from_device
                   ? "direct=1 needs transfers in multiples of the device's logical block "
                     "(direct_align_bytes in the environment)"
                   : "direct=1 needs transfers in multiples of 4 KiB here: storscope's default, "
                     "no block device was found under the filesystem (direct_align_bytes)";
    return NULL;
}

static int io_fail(struct sts_ctx *c, int rc, const char *what)
{
    if (rc == STS_EINTR)
        return rc;
    char msg[sizeof(c->errmsg)];
    sts_strlcpy(msg, what, sizeof(msg));
    sts_strlcat(msg, " ", sizeof(msg));
    sts_strlcat(msg, c->scratch_path[0] ? c->scratch_path : "(file)", sizeof(msg));
    sts_strlcat(msg, ": ", sizeof(msg));
    sts_strlcat(msg, sts_strerror(rc), sizeof(msg));
    if (rc == STS_ENOTSUP && raw_flash_flags(c->target)) {
        /* extentfs refused what raw flash cannot take: say what and why */
        sts_strlcat(msg, " (", sizeof(msg));
        sts_strlcat(msg, WL_RAW_FLASH_WHY, sizeof(msg));
        sts_strlcat(msg, ")", sizeof(msg));
    }
    return sts_fail(c, rc, msg);
}

int wl_fail_on(struct sts_ctx *c, int rc, const char *what, const char *path)
{
    sts_strlcpy(c->scratch_path, path, sizeof(c->scratch_path));
    return io_fail(c, rc, what);
}

int wl_open(struct sts_ctx *c, const char *path, int flags, sts_fh *fh)
{
    sts_strlcpy(c->scratch_path, path, sizeof(c->scratch_path));
    int rc = c->target->fs.ops->open(c->target->fs.ctx, path, flags, fh);
    return rc < 0 ? io_fail(c, rc, "open") : STS_OK;
}

int wl_close(struct sts_ctx *c, sts_fh fh)
{
    int rc = c->target->fs.ops->close(c->target->fs.ctx, fh);
    return rc < 0 ? io_fail(c, rc, "close") : STS_OK;
}

int wl_remove(struct sts_ctx *c, const char *path)
{
    int rc = c->target->fs.ops->unlink(c->target->fs.ctx, path);
    if (rc == STS_OK || rc == STS_ENOENT) {
        if (strcmp(c->scratch_path, path) == 0)
            c->scratch_path[0] = '\0';
        return STS_OK;
    }
    return wl_fail_on(c, rc, "remove", path); /* named, even when it was not the scratch file */
}

int wl_write(struct sts_ctx *c, sts_fh fh, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    while (len) {
        size_t done = 0;
        int rc = c->target->fs.ops->write(c->target->fs.ctx, fh, p, len, &done);
        if (rc < 0)
            return io_fail(c, rc, "write");
        if (done == 0)
            return io_fail(c, STS_ENOSPC, "write");
        p += done;
        len -= done;
    }
    return STS_OK;
}

int wl_read(struct sts_ctx *c, sts_fh fh, void *buf, size_t len)
{
    uint8_t *p = buf;
    while (len) {
        size_t done = 0;
        int rc = c->target->fs.ops->read(c->target->fs.ctx, fh, p, len, &done);
        if (rc < 0)
            return io_fail(c, rc, "read");
        if (done == 0)
            return io_fail(c, STS_EIO, "read past end of");
        p += done;
        len -= done;
    }
    return STS_OK;
}

int wl_seek(struct sts_ctx *c, sts_fh fh, uint64_t off)
{
    int rc = c->target->fs.ops->seek(c->target->fs.ctx, fh, off);
    return rc < 0 ? io_fail(c, rc, "seek") : STS_OK;
}

int wl_sync(struct sts_ctx *c, sts_fh fh, enum sts_sync_kind kind)
{
    int rc = c->target->fs.ops->sync(c->target->fs.ctx, fh, kind);
    return rc < 0 ? io_fail(c, rc, "sync") : STS_OK;
}

int wl_drop_cache(struct sts_ctx *c, sts_fh fh)
{
    if (!c->target->fs.ops->advise)
        return STS_OK;
    int rc = c->target->fs.ops->advise(c->target->fs.ctx, fh, STS_ADV_DROP_CACHE);
    return rc < 0 && rc != STS_ENOTSUP ? io_fail(c, rc, "drop cache of") : STS_OK;
}

int wl_verify(struct sts_ctx *c, const uint8_t *buf, uint64_t off, size_t len)
{
    uint64_t bad;
    if (!c->plan->verify || wl_pattern_check(buf, off, len, c->plan->seed, &bad) == STS_OK)
        return STS_OK;
    char msg[sizeof(c->errmsg)], num[24];
    sts_strlcpy(msg, "verify: data read from ", sizeof(msg));
    sts_strlcat(msg, c->scratch_path, sizeof(msg));
    sts_strlcat(msg, " at offset ", sizeof(msg));
    sts_fmt_u64(num, bad);
    sts_strlcat(msg, num, sizeof(msg));
    sts_strlcat(msg, " differs from what was written", sizeof(msg));
    return sts_fail(c, STS_ECORRUPT, msg);
}

int wl_prefill(struct sts_ctx *c, const char *path, uint64_t size)
{
    sts_fh fh;
    if (wl_read_only(c)) {
        int rc = wl_open(c, path, STS_O_RDONLY | STS_O_CREAT, &fh);
        return rc ? rc : wl_close(c, fh);
    }
    int rc = wl_open(c, path, STS_O_WRONLY | STS_O_CREAT | STS_O_TRUNC, &fh);
    if (rc)
        return rc;
    size_t chunk = c->buf_size < MIB ? c->buf_size : (size_t)MIB;
    if (c->target->io_align > 1)
        chunk -= chunk % c->target->io_align;
    for (uint64_t off = 0; off < size && !rc; off += chunk) {
        size_t n = size - off < chunk ? (size_t)(size - off) : chunk;
        if (sts_should_stop(c)) {
            rc = STS_EINTR;
            break;
        }
        sts_pattern_fill(c->buf, off, n, c->plan->seed);
        rc = wl_write(c, fh, c->buf, n);
    }
    if (!rc)
        rc = wl_sync(c, fh, STS_SYNC_FULL);
    int rc2 = wl_close(c, fh);
    /* set-up is not part of the next point's device counters */
    if (c->target->counters) {
        struct sts_kv discard[32];
        (void)c->target->counters(c->target, discard, 32);
    }
    return rc ? rc : rc2;
}

double wl_rate(uint64_t bytes, uint64_t ns)
{
    return (double)bytes * 1e9 / (double)(ns ? ns : 1);
}

void wl_lat_reset(struct sts_ctx *c)
{
    for (int i = 0; i < STS_CTX_LATS; i++) {
        sts_welford_init(&c->lat[i].w);
        sts_hist_reset(&c->lat[i].h);
        c->lat[i].max_at = 0;
    }
}

const char *wl_label(char *buf, size_t n, const char *op, uint64_t chunk)
{
    char sz[24];
    sts_fmt_bytes(sz, sizeof(sz), chunk);
    sts_strlcpy(buf, op, n);
    sts_strlcat(buf, " chunk ", n);
    sts_strlcat(buf, sz, n);
    return buf;
}

int wl_emit_runs(struct sts_ctx *c, const char *name, const struct sts_kv *params,
                 size_t n_params, const double *runs, size_t n_runs,
                 const struct sts_kv *metrics, size_t n_metrics,
                 const struct sts_lat_report *lat, size_t n_lat)
{
    return wl_emit_metric(c, name, "bytes_per_second", params, n_params, runs, n_runs, metrics,
                          n_metrics, lat, n_lat);
}

void wl_counters_take(struct sts_ctx *c, struct wl_counters *acc)
{
    struct sts_kv now[32];
    size_t n = c->target->counters ? c->target->counters(c->target, now, 32) : 0;
    if (!acc)
        return;
    for (size_t i = 0; i < n; i++) {
        if (i >= acc->n) { /* the first phase: the keys, as the target names them */
            acc->kv[i] = now[i];
            acc->n = i + 1;
        } else if (now[i].type == STS_KV_UINT && acc->kv[i].type == STS_KV_UINT) {
            acc->kv[i].v.u += now[i].v.u;
        } else if (now[i].type == STS_KV_DOUBLE && acc->kv[i].type == STS_KV_DOUBLE) {
            acc->kv[i].v.d += now[i].v.d;
        }
    }
}

int wl_emit_metric(struct sts_ctx *c, const char *name, const char *run_metric,
                   const struct sts_kv *params, size_t n_params, const double *runs, size_t n_runs,
                   const struct sts_kv *metrics, size_t n_metrics,
                   const struct sts_lat_report *lat, size_t n_lat)
{
    return wl_emit_metric_dev(c, name, run_metric, params, n_params, runs, n_runs, metrics,
                              n_metrics, lat, n_lat, NULL);
}

int wl_emit_metric_dev(struct sts_ctx *c, const char *name, const char *run_metric,
                       const struct sts_kv *params, size_t n_params, const double *runs,
                       size_t n_runs, const struct sts_kv *metrics, size_t n_metrics,
                       const struct sts_lat_report *lat, size_t n_lat,
                       const struct wl_counters *dev)
{
    struct sts_point p = {
        .name = name,
        .params = params,
        .n_params = n_params,
        .run_metric = run_metric,
        .runs = runs,
        .n_runs = n_runs,
        .metrics = metrics,
        .n_metrics = n_metrics,
        .lat = lat,
        .n_lat = n_lat,
        .device = dev ? dev->kv : NULL,
        .n_device = dev ? dev->n : 0,
    };
    sts_welford_init(&p.run_stats);
    for (size_t i = 0; i < n_runs; i++)
        sts_welford_add(&p.run_stats, runs[i]);
    return sts_emit_point(c, &p);
}

int wl_emit_skipped(struct sts_ctx *c, const char *name, const struct sts_kv *params,
                    size_t n_params, const char *why)
{
    struct sts_point p = {.name = name, .params = params, .n_params = n_params, .skipped = why};
    sts_welford_init(&p.run_stats);
    return sts_emit_point(c, &p);
}

void *wl_borrow(struct sts_ctx *c, size_t skip, size_t bytes)
{
    uintptr_t at = ((uintptr_t)c->buf + skip + 15u) & ~(uintptr_t)15u;
    uintptr_t end = (uintptr_t)c->buf + c->buf_size;
    return at <= end && bytes <= end - at ? (void *)at : NULL;
}
