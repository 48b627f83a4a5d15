/* S2: metadata bursts (the study's Tables 3 and 4). For each file count N:
 * create N files in one directory, open+close each, delete each; per-file
 * latency and totals over runs; then the guideline variant with the same
 * files spread over ceil(sqrt(N)) subdirectories. The results carry the
 * growth exponent of per-file latency against N (log-log slope, 95 % CI). */
#include "storscope/fit.h"
#include "workload.h"

#include <math.h>
#include <string.h>

#define S2_MAX_COUNTS 5
enum { OP_CREATE, OP_OPEN, OP_DELETE, N_OPS };
static const char *const op_name[N_OPS] = {"create", "open_close", "delete"};
/* summary keys need static strings */
static const char *const exp_key[2][N_OPS] = {
    {"create_exponent_flat", "open_close_exponent_flat", "delete_exponent_flat"},
    {"create_exponent_subdirs", "open_close_exponent_subdirs", "delete_exponent_subdirs"},
};
static const char *const ci_key[2][N_OPS] = {
    {"create_exponent_flat_ci95", "open_close_exponent_flat_ci95", "delete_exponent_flat_ci95"},
    {"create_exponent_subdirs_ci95", "open_close_exponent_subdirs_ci95",
     "delete_exponent_subdirs_ci95"},
};

struct s2_cfg {
    uint32_t counts[S2_MAX_COUNTS];
    uint32_t runs;
};

static void s2_config(const struct sts_plan *p, struct s2_cfg *cfg)
{
    if (p->scale == STS_SCALE_FULL)
        *cfg = (struct s2_cfg){{200, 400, 600, 800, 1000}, 10};
    else
        *cfg = (struct s2_cfg){{50, 100, 150, 200, 250}, 2};
}

static uint32_t isqrt_up(uint32_t n)
{
    uint32_t r = 0;
    while (r * r < n)
        r++;
    return r;
}

/* "s2/f00012" or "s2/d003/f00012" */
static void path_of(char *buf, size_t n, uint32_t i, uint32_t dirs)
{
    char num[24];
    sts_strlcpy(buf, "s2/", n);
    if (dirs) {
        sts_fmt_u64(num, 1000 + i % dirs); /* fixed width without printf */
        sts_strlcat(buf, "d", n);
        sts_strlcat(buf, num + 1, n);
        sts_strlcat(buf, "/", n);
    }
    sts_fmt_u64(num, 100000 + i);
    sts_strlcat(buf, "f", n);
    sts_strlcat(buf, num + 1, n);
}

static void dir_of(char *buf, size_t n, uint32_t d)
{
    char num[24];
    sts_fmt_u64(num, 1000 + d);
    sts_strlcpy(buf, "s2/d", n);
    sts_strlcat(buf, num + 1, n);
}

/* Removes whatever a run left behind (after a failure). */
static void s2_clean(struct sts_ctx *c, uint32_t n, uint32_t dirs)
{
    const struct sts_fs_ops *ops = c->target->fs.ops;
    void *fs = c->target->fs.ctx;
    char path[48];
    for (uint32_t i = 0; i < n; i++) {
        path_of(path, sizeof(path), i, dirs);
        (void)ops->unlink(fs, path);
    }
    for (uint32_t d = 0; d < dirs; d++) {
        dir_of(path, sizeof(path), d);
        (void)ops->rmdir(fs, path);
    }
    (void)ops->rmdir(fs, "s2");
}

static int fs_fail(struct sts_ctx *c, int rc, const char *what, const char *path)
{
    char msg[sizeof(c->errmsg)];
    sts_strlcpy(msg, "S2: ", sizeof(msg));
    sts_strlcat(msg, what, sizeof(msg));
    sts_strlcat(msg, " ", sizeof(msg));
    sts_strlcat(msg, path, sizeof(msg));
    sts_strlcat(msg, ": ", sizeof(msg));
    sts_strlcat(msg, sts_strerror(rc), sizeof(msg));
    return sts_fail(c, rc, msg);
}

/* One run: per-file latencies into w[op]; totals into total[op]. */
static int s2_once(struct sts_ctx *c, uint32_t n, uint32_t dirs, struct sts_welford *w,
                   uint64_t *total, struct wl_counters *dev)
{
    const struct sts_fs_ops *ops = c->target->fs.ops;
    void *fs = c->target->fs.ctx;
    char path[48];
    int rc = ops->mkdir(fs, "s2");
    if (rc)
        return fs_fail(c, rc, "mkdir", "s2");
    for (uint32_t d = 0; d < dirs && !rc; d++) {
        dir_of(path, sizeof(path), d);
        rc = ops->mkdir(fs, path);
        if (rc)
            return fs_fail(c, rc, "mkdir", path);
    }
    wl_counters_take(c, NULL); /* the directories are set-up, no point's */
    for (int op = 0; op < N_OPS; op++) {
        uint64_t t0 = wl_now(c), prev = t0;
        for (uint32_t i = 0; i < n; i++) {
            if (sts_should_stop(c))
                return STS_EINTR;
            path_of(path, sizeof(path), i, dirs);
            sts_fh fh;
            if (op == OP_DELETE) {
                rc = ops->unlink(fs, path);
            } else {
                rc = ops->open(fs, path, op == OP_CREATE ? STS_O_WRONLY | STS_O_CREAT | STS_O_TRUNC
                                                         : STS_O_RDONLY, &fh);
                if (!rc)
                    rc = ops->close(fs, fh);
            }
            if (rc)
                return fs_fail(c, rc, op_name[op], path);
            uint64_t now = wl_now(c);
            sts_welford_add(&w[op], (double)(now - prev));
            if (op != OP_DELETE)
                sts_lat_record(&c->lat[op == OP_OPEN ? 0 : 1], now - prev);
            prev = now;
        }
        total[op] = prev - t0;
        wl_counters_take(c, &dev[op]); /* each phase's device work is its own point's */
    }
    for (uint32_t d = 0; d < dirs; d++) {
        dir_of(path, sizeof(path), d);
        rc = ops->rmdir(fs, path);
        if (rc)
            return fs_fail(c, rc, "rmdir", path);
    }
    rc = ops->rmdir(fs, "s2");
    wl_counters_take(c, NULL);
    return rc ? fs_fail(c, rc, "rmdir", "s2") : STS_OK;
}

static int s2_run(struct sts_ctx *c)
{
    struct s2_cfg cfg;
    s2_config(c->plan, &cfg);
    cfg.runs = wl_runs(c, cfg.runs, cfg.runs);
    struct sts_kv tp[] = {
        STS_KV_U("min_files", cfg.counts[0]),
        STS_KV_U("max_files", cfg.counts[S2_MAX_COUNTS - 1]),
        STS_KV_U("runs", cfg.runs),
    };
    int rc = sts_test_begin(c, tp, WL_COUNT(tp));
    if (rc)
        return rc;
    if (c->target->flags & STS_T_NO_FS_METADATA)
        return sts_fail(c, STS_ENOTSUP, "S2 measures a filesystem's metadata; this target "
                                        "has bare extents, no directories (give it a filesystem)");
    if (wl_read_only(c))
        return sts_fail(c, STS_ENOTSUP, "S2 creates files: " WL_READ_ONLY_WHY);
    double per_file[2][N_OPS][S2_MAX_COUNTS], xs[S2_MAX_COUNTS];
    uint64_t step = 0, steps = 2ull * S2_MAX_COUNTS * cfg.runs;
    for (int layout = 0; layout < 2 && !rc; layout++) {
        for (int k = 0; k < S2_MAX_COUNTS && !rc; k++) {
            uint32_t n = cfg.counts[k];
            uint32_t dirs = layout ? isqrt_up(n) : 0;
            xs[k] = n;
            struct sts_welford w[N_OPS];
            double totals[N_OPS][WL_MAX_RUNS];
            struct wl_counters dev[N_OPS];
            memset(dev, 0, sizeof(dev));
            for (int op = 0; op < N_OPS; op++)
                sts_welford_init(&w[op]);
            wl_lat_reset(c);
            for (uint32_t r = 0; r < cfg.runs && !rc; r++) {
                sts_report_progress(c, layout ? "files in subdirectories" : "files in one directory",
                                    step++, steps);
                uint64_t total[N_OPS] = {0};
                rc = s2_once(c, n, dirs, w, total, dev);
                if (rc) {
                    s2_clean(c, n, dirs);
                    break;
                }
                for (int op = 0; op < N_OPS; op++)
                    totals[op][r] = (double)total[op];
            }
            for (int op = 0; op < N_OPS && !rc; op++) {
                per_file[layout][op][k] = w[op].mean;
                struct sts_kv params[] = {
                    STS_KV_S("op", op_name[op]),
                    STS_KV_U("files", n),
                    STS_KV_U("subdirs", dirs),
                    STS_KV_S("layout", layout ? "subdirs" : "flat"),
                };
                struct sts_kv metrics[] = {
                    STS_KV_D("per_file_mean_ns", w[op].mean),
                    STS_KV_D("per_file_sd_ns", sts_welford_sd(&w[op])),
                    STS_KV_D("per_file_max_ns", w[op].max),
                };
                struct sts_lat_report lat = {.name = "per_file", .lat = &c->lat[op == OP_OPEN ? 0 : 1]};
                rc = wl_emit_metric_dev(c, op_name[op], "total_ns", params, WL_COUNT(params),
                                        totals[op], cfg.runs, metrics, WL_COUNT(metrics), &lat,
                                        op == OP_DELETE ? 0 : 1,
                                        c->target->counters ? &dev[op] : NULL);
            }
        }
    }
    if (rc)
        return rc;
    for (int layout = 0; layout < 2; layout++)
        for (int op = 0; op < N_OPS; op++) {
            double slope = 0, ci = 0, most = 0;
            for (int k = 0; k < S2_MAX_COUNTS; k++)
                most = per_file[layout][op][k] > most ? per_file[layout][op][k] : most;
            /* no measurable cost at any N (a store that keeps names in RAM):
             * exactly flat, which a log-log fit cannot say */
            if (most > 0 &&
                sts_an_loglog_slope(xs, per_file[layout][op], S2_MAX_COUNTS, &slope, &ci))
                continue;
            sts_set_summary(c, STS_KV_D(exp_key[layout][op], slope));
            sts_set_summary(c, STS_KV_D(ci_key[layout][op], ci));
        }
    return STS_OK;
}

/* Empty files: what they cost is metadata. A bound over the filesystems a
 * logger runs: 4 KiB a file (an inode, FAT's cluster for a directory's
 * entries, littlefs's commit) and 128 KiB a subdirectory (littlefs's
 * metadata pair at 64 KiB blocks): 3 MiB quick, 8 MiB full. A flat 16 MiB
 * refused S2 on the 8 and 16 MiB volumes of an MCU (issue 46). */
static uint64_t s2_scratch(const struct sts_plan *p)
{
    struct s2_cfg cfg;
    s2_config(p, &cfg);
    uint32_t files = cfg.counts[S2_MAX_COUNTS - 1];
    return (uint64_t)files * 4096 + (uint64_t)isqrt_up(files) * (128u << 10);
}

const struct sts_test_def sts_test_s2 = {
    "S2", "Metadata bursts: create, open+close, delete N files, flat and in subdirectories",
    "study S2 (Tables 3, 4)", s2_scratch, s2_run, 0, 0, 0,
};
