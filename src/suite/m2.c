/* M2: aging to saturation (the study's mock sensor node). Every interval
 * each of 3 streams runs a file lifecycle - create, open, write, flush,
 * close - and the latencies are recorded with the free space the target's
 * filesystem reports at that moment, until the next lifecycle would take
 * free space below the floor. The files stay: that is what ages the volume.
 * They are all removed at the end (and when the run fails or is stopped).
 *
 * The three streams run interleaved, as three tasks would (create A, B,
 * C, open A, B, C, ...), so a reopen does not simply hit the lookup cache
 * the create just filled.
 *
 * What slows creates down: in M2 the files present and the free space
 * change together (each round adds three files of one size), so no fit
 * against either can tell them apart. A probe can: every round also
 * creates one empty file in a directory of its own that never holds more
 * than that file. If the probe slows as much as the creates, free space
 * (allocation) is the cause; if it stays flat, the directory's size is.
 *
 * Time: in virtual time lifecycle k happens at k * interval (30 min by
 * default) without waiting; in real time at k * interval when an interval
 * is given, back to back otherwise. Fits (t in days): a line and
 * y = A exp(B t) for each operation, and the free space at which create and
 * open latency first exceed the threshold (200 ms by default). */
#include "storscope/fit.h"
#include "storscope/port.h"
#include "workload.h"

#include <string.h>

#define M2_STREAMS 3
#define M2_MAX_LIFECYCLES 100000u
#define NS_PER_DAY 86400e9
#define M2_PROBE_DIR "m2_probe"
#define M2_PROBE_FILE M2_PROBE_DIR "/p"

enum { OP_CREATE, OP_OPEN, OP_WRITE, OP_FLUSH, OP_CLOSE, N_OPS };
static const char *const op_key[N_OPS] = {"create_ns", "open_ns", "write_ns", "flush_ns",
                                          "close_ns"};
static const char *const op_max_key[N_OPS] = {"create_max_ns", "open_max_ns", "write_max_ns",
                                              "flush_max_ns", "close_max_ns"};
/* summary keys must be static strings: [op][A, B, R^2, slope, line R^2] */
static const char *const fit_key[N_OPS][5] = {
    {"create_exp_a_ns", "create_exp_b_per_day", "create_exp_r2", "create_line_slope_ns_per_day",
     "create_line_r2"},
    {"open_exp_a_ns", "open_exp_b_per_day", "open_exp_r2", "open_line_slope_ns_per_day",
     "open_line_r2"},
    {NULL, NULL, NULL, NULL, NULL},
    {"flush_exp_a_ns", "flush_exp_b_per_day", "flush_exp_r2", "flush_line_slope_ns_per_day",
     "flush_line_r2"},
    {"close_exp_a_ns", "close_exp_b_per_day", "close_exp_r2", "close_line_slope_ns_per_day",
     "close_line_r2"},
};

struct m2_cfg {
    uint64_t file_bytes, chunk, interval_ns, threshold_ns, max_ns;
    uint32_t floor_permille;
    int virtual_time;
};

/* Create and probe latency over the run in M2_TREND_BINS bins of `width`
 * consecutive rounds; when the bins are full, neighbours merge and the
 * width doubles. The first and last quarter are only known at the end, and
 * this keeps them to within one bin in 1.5 KB whatever the run's length. */
#define M2_TREND_BINS 64
struct m2_trend {
    double create_ns[M2_TREND_BINS], probe_ns[M2_TREND_BINS];
    uint32_t rounds[M2_TREND_BINS], width, used;
};

static void trend_add(struct m2_trend *t, uint32_t k, double create_ns, double probe_ns)
{
    if (!t->width)
        t->width = 1;
    if (k / t->width >= M2_TREND_BINS) {
        for (uint32_t i = 0; i < M2_TREND_BINS / 2; i++) {
            t->create_ns[i] = t->create_ns[2 * i] + t->create_ns[2 * i + 1];
            t->probe_ns[i] = t->probe_ns[2 * i] + t->probe_ns[2 * i + 1];
            t->rounds[i] = t->rounds[2 * i] + t->rounds[2 * i + 1];
        }
        memset(t->create_ns + M2_TREND_BINS / 2, 0, sizeof(double) * M2_TREND_BINS / 2);
        memset(t->probe_ns + M2_TREND_BINS / 2, 0, sizeof(double) * M2_TREND_BINS / 2);
        memset(t->rounds + M2_TREND_BINS / 2, 0, sizeof(uint32_t) * M2_TREND_BINS / 2);
        t->width *= 2;
    }
    uint32_t b = k / t->width;
    t->create_ns[b] += create_ns;
    t->probe_ns[b] += probe_ns;
    t->rounds[b]++;
    t->used = b + 1;
}

/* Mean over the first (last = 0) or last quarter of the bins used. */
static double trend_quarter(const struct m2_trend *t, const double *v, int last)
{
    uint32_t q = t->used / 4 ? t->used / 4 : 1, from = last ? t->used - q : 0, n = 0;
    double sum = 0;
    for (uint32_t i = from; i < from + q; i++) {
        sum += v[i];
        n += t->rounds[i];
    }
    return n ? sum / n : 0;
}

#define M2_CROSS_ROUNDS 2 /* rounds in a row over the threshold that make a crossing */

struct m2_state {
    struct sts_ctx *c;
    struct m2_cfg cfg;
    uint32_t created;            /* lifecycles whose files exist */
    uint32_t completed;          /* lifecycles measured */
    struct sts_an_aging fit[N_OPS];
    /* create / open crossed the threshold: in two rounds in a row, so one
     * slow round (a stall, a housekeeping pause) is not a cliff; the free
     * space and files are the first round's. over[] counts the rounds in
     * a row over it so far. */
    int crossed[2], over[2];
    uint64_t crossed_free[2], crossed_files[2];
    /* the free space of the last lifecycle under the threshold (0: none
     * yet), and so where the crossing's interval begins */
    uint64_t under_free[2], crossed_before[2];
    int probe_dir;               /* M2_PROBE_DIR exists: the probe runs */
    struct m2_trend trend;
};

/* "m1000012": stream 1's file of lifecycle 12. Eight characters, so a FAT
 * filesystem that is given upper-case names (+filex,names=upper) keeps
 * each in one 8.3 directory entry, as an MCU logger naming its files so
 * would; with names as given FileX adds a long-name entry to each. */
static void file_name(char *buf, size_t n, uint32_t stream, uint32_t k)
{
    char num[24];
    sts_strlcpy(buf, "m", n);
    sts_fmt_u64(num, stream);
    sts_strlcat(buf, num, n);
    sts_fmt_u64(num, 1000000 + k); /* fixed width without printf */
    sts_strlcat(buf, num + 1, n);
}

/* Removes every file M2 made; the first failure, named, or 0. */
static int remove_all(struct m2_state *m)
{
    const struct sts_fs_ops *ops = m->c->target->fs.ops;
    char name[32];
    int rc = STS_OK;
    for (uint32_t k = 0; k < m->created; k++)
        for (uint32_t s = 0; s < M2_STREAMS; s++) {
            file_name(name, sizeof(name), s, k);
            int r = ops->unlink(m->c->target->fs.ctx, name);
            if (r && r != STS_ENOENT && !rc) /* one that never got made is no failure */
                rc = wl_fail_on(m->c, r, "remove", name);
        }
    m->created = 0;
    if (m->probe_dir) {
        int r = ops->unlink(m->c->target->fs.ctx, M2_PROBE_FILE);
        if (r && r != STS_ENOENT && !rc)
            rc = wl_fail_on(m->c, r, "remove", M2_PROBE_FILE);
        r = ops->rmdir(m->c->target->fs.ctx, M2_PROBE_DIR);
        if (r && !rc)
            rc = wl_fail_on(m->c, r, "remove", M2_PROBE_DIR);
        m->probe_dir = 0;
    }
    return rc;
}

/* Makes the probe's directory before any of M2's files exist, so finding
 * it costs the least a lookup can. A filesystem without directories has
 * no probe: the cause of a slowdown is then reported as unknown. */
static int probe_setup(struct m2_state *m)
{
    const struct sts_fs_ops *ops = m->c->target->fs.ops;
    if (!ops->mkdir || !ops->rmdir)
        return STS_OK;
    int rc = ops->mkdir(m->c->target->fs.ctx, M2_PROBE_DIR);
    if (rc == STS_ENOTSUP)
        return STS_OK;
    if (rc)
        return wl_fail_on(m->c, rc, "mkdir", M2_PROBE_DIR);
    m->probe_dir = 1;
    return STS_OK;
}

/* Creates (opens with O_CREAT, closes) the probe's empty file in its own
 * directory, timed as M2's creates are, then removes it, untimed. */
static int probe_create(struct m2_state *m, uint64_t *ns)
{
    struct sts_ctx *c = m->c;
    const struct sts_fs_ops *ops = c->target->fs.ops;
    sts_fh h;
    uint64_t t0 = wl_now(c);
    int rc = ops->open(c->target->fs.ctx, M2_PROBE_FILE, STS_O_WRONLY | STS_O_CREAT | STS_O_TRUNC,
                       &h);
    if (rc)
        return wl_fail_on(c, rc, "create", M2_PROBE_FILE);
    rc = ops->close(c->target->fs.ctx, h);
    *ns = wl_now(c) - t0;
    if (rc)
        return wl_fail_on(c, rc, "close", M2_PROBE_FILE);
    rc = ops->unlink(c->target->fs.ctx, M2_PROBE_FILE);
    return rc ? wl_fail_on(c, rc, "remove", M2_PROBE_FILE) : STS_OK;
}

/* Round k's three lifecycles, interleaved step by step as three tasks
 * sharing the filesystem run them: create A, B, C; open A, B, C; a chunk of
 * each in turn; flush each; close each. One stream after another, every
 * reopen would find its file in the filesystem's lookup cache and time
 * nothing. t[s][op] gets stream s's latency of op (write: all its chunks). */
static int lifecycles(struct m2_state *m, uint32_t k, uint64_t t[M2_STREAMS][N_OPS])
{
    struct sts_ctx *c = m->c;
    const struct sts_fs_ops *ops = c->target->fs.ops;
    char name[M2_STREAMS][32];
    sts_fh fh[M2_STREAMS];
    uint32_t s, n_open = 0; /* fh[0 .. n_open) are open */
    int rc = STS_OK;
    for (s = 0; s < M2_STREAMS; s++)
        file_name(name[s], sizeof(name[s]), s, k);
    for (s = 0; s < M2_STREAMS && !rc; s++) {
        sts_fh h;
        uint64_t t0 = wl_now(c);
        rc = ops->open(c->target->fs.ctx, name[s], STS_O_WRONLY | STS_O_CREAT | STS_O_TRUNC, &h);
        if (rc == STS_ENOSPC) /* out of names or space ends the aging run: no error */
            return rc;
        if (rc)
            return wl_fail_on(c, rc, "create", name[s]);
        rc = wl_close(c, h);
        t[s][OP_CREATE] = wl_now(c) - t0;
    }
    for (s = 0; s < M2_STREAMS && !rc; s++) {
        uint64_t t0 = wl_now(c);
        rc = wl_open(c, name[s], STS_O_WRONLY, &fh[s]);
        t[s][OP_OPEN] = wl_now(c) - t0;
        n_open += !rc;
    }
    for (uint64_t off = 0; off < m->cfg.file_bytes && !rc; off += m->cfg.chunk) {
        uint64_t len = m->cfg.file_bytes - off < m->cfg.chunk ? m->cfg.file_bytes - off
                                                              : m->cfg.chunk;
        sts_pattern_fill(c->buf, off, (size_t)len, c->plan->seed);
        for (s = 0; s < M2_STREAMS && !rc; s++) {
            uint64_t t0 = wl_now(c);
            rc = wl_write(c, fh[s], c->buf, (size_t)len);
            t[s][OP_WRITE] += wl_now(c) - t0;
        }
    }
    for (s = 0; s < M2_STREAMS && !rc; s++) {
        uint64_t t0 = wl_now(c);
        rc = wl_sync(c, fh[s], STS_SYNC_FULL);
        t[s][OP_FLUSH] = wl_now(c) - t0;
    }
    int crc = STS_OK;
    for (s = 0; s < n_open; s++) { /* every handle, whatever failed before */
        uint64_t t0 = wl_now(c);
        int r = wl_close(c, fh[s]);
        t[s][OP_CLOSE] = wl_now(c) - t0;
        crc = crc ? crc : r;
    }
    /* the files are on the medium from here on, whatever happened to them */
    sts_strlcpy(c->scratch_path, "", sizeof(c->scratch_path));
    return rc ? rc : crc;
}

/* Waits until lifecycle k is due in real time; 1 when stopped meanwhile. */
static int wait_due(struct m2_state *m, uint64_t start, uint32_t k)
{
    if (m->cfg.virtual_time || !m->cfg.interval_ns)
        return 0;
    uint64_t due = start + (uint64_t)k * m->cfg.interval_ns;
    while (wl_now(m->c) < due) {
        if (sts_should_stop(m->c))
            return 1;
        uint64_t left = due - wl_now(m->c), slice = 100000000ull; /* answer Ctrl-C in 0.1 s */
        sts_port_wait_until(sts_clock_now(sts_port_clock()) + (left < slice ? left : slice));
    }
    return 0;
}

static int emit_lifecycle(struct m2_state *m, uint32_t k, uint64_t t_ns,
                          const struct sts_statvfs *sv, const uint64_t sum[N_OPS],
                          const uint64_t max[N_OPS], uint64_t probe_ns)
{
    struct sts_kv params[] = {STS_KV_U("lifecycle", k), STS_KV_U("streams", M2_STREAMS),
                              STS_KV_U("file_bytes", m->cfg.file_bytes)};
    struct sts_kv metrics[5 + 2 * N_OPS];
    size_t n = 0;
    metrics[n++] = STS_KV_U("t_ns", t_ns);
    metrics[n++] = STS_KV_U("files", (uint64_t)k * M2_STREAMS); /* present before this round */
    if (m->probe_dir)
        metrics[n++] = STS_KV_U("probe_create_ns", probe_ns);
    metrics[n++] = STS_KV_U("free_bytes", sv->free_bytes);
    metrics[n++] = STS_KV_U("total_bytes", sv->total_bytes);
    for (int op = 0; op < N_OPS; op++) {
        metrics[n++] = STS_KV_D(op_key[op], (double)sum[op] / M2_STREAMS);
        metrics[n++] = STS_KV_U(op_max_key[op], max[op]);
    }
    double run = (double)sum[OP_CREATE] / M2_STREAMS;
    return wl_emit_metric(m->c, "lifecycle", "create_ns", params, WL_COUNT(params), &run, 1,
                          metrics, n, NULL, 0);
}

static void record(struct m2_state *m, uint32_t k, double days, const struct sts_statvfs *sv,
                   const uint64_t sum[N_OPS], uint64_t probe_ns)
{
    for (int op = 0; op < N_OPS; op++)
        sts_an_aging_add(&m->fit[op], days, (double)sum[op] / M2_STREAMS);
    for (int i = 0; i < 2; i++) {
        if (m->crossed[i])
            continue;
        if ((double)sum[i] / M2_STREAMS <= (double)m->cfg.threshold_ns) {
            m->over[i] = 0;
            m->under_free[i] = sv->free_bytes;
            continue;
        }
        if (!m->over[i]++) {
            m->crossed_free[i] = sv->free_bytes;
            m->crossed_files[i] = (uint64_t)k * M2_STREAMS;
            m->crossed_before[i] = m->under_free[i];
        }
        m->crossed[i] = m->over[i] >= M2_CROSS_ROUNDS;
    }
    trend_add(&m->trend, k, (double)sum[OP_CREATE] / M2_STREAMS, (double)probe_ns);
}

/* Why create latency grew, from the first and last quarter of the run
 * (means, so one slow round decides nothing): "none" below 2x growth;
 * "free space" when a create in an empty directory grew by at least half
 * as much as M2's creates; "directory" when it did not; "unknown" with no
 * probe. */
static const char *growth_cause(const struct m2_state *m)
{
    const struct m2_trend *t = &m->trend;
    if (m->completed < 4)
        return "unknown";
    double c0 = trend_quarter(t, t->create_ns, 0), c1 = trend_quarter(t, t->create_ns, 1);
    if (!(c1 >= 2 * c0))
        return "none";
    if (!m->probe_dir)
        return "unknown";
    double p0 = trend_quarter(t, t->probe_ns, 0), p1 = trend_quarter(t, t->probe_ns, 1);
    return p1 - p0 >= 0.5 * (c1 - c0) ? "free space" : "directory";
}

static void summarize(struct m2_state *m, const char *stopped)
{
    struct sts_ctx *c = m->c;
    sts_set_summary(c, STS_KV_U("lifecycles", m->completed));
    sts_set_summary(c, STS_KV_S("stopped_by", stopped));
    sts_set_summary(c, STS_KV_S("create_growth_cause", growth_cause(m)));
    if (m->probe_dir && m->completed >= 4) {
        const struct m2_trend *t = &m->trend;
        sts_set_summary(c, STS_KV_D("probe_create_first_ns", trend_quarter(t, t->probe_ns, 0)));
        sts_set_summary(c, STS_KV_D("probe_create_last_ns", trend_quarter(t, t->probe_ns, 1)));
        sts_set_summary(c, STS_KV_D("create_first_ns", trend_quarter(t, t->create_ns, 0)));
        sts_set_summary(c, STS_KV_D("create_last_ns", trend_quarter(t, t->create_ns, 1)));
    }
    static const char *const cross_key[2] = {"create_threshold_free_bytes",
                                             "open_threshold_free_bytes"};
    static const char *const cross_files_key[2] = {"create_threshold_files",
                                                   "open_threshold_files"};
    static const char *const before_key[2] = {"create_threshold_free_before_bytes",
                                              "open_threshold_free_before_bytes"};
    for (int i = 0; i < 2; i++)
        if (m->crossed[i]) {
            sts_set_summary(c, STS_KV_U(cross_key[i], m->crossed_free[i]));
            sts_set_summary(c, STS_KV_U(cross_files_key[i], m->crossed_files[i]));
            if (m->crossed_before[i])
                sts_set_summary(c, STS_KV_U(before_key[i], m->crossed_before[i]));
        }
    for (int op = 0; op < N_OPS; op++) {
        if (!fit_key[op][0])
            continue; /* write latency is a throughput, seen in the points */
        struct sts_an_aging_fit f;
        sts_an_aging_result(&m->fit[op], &f);
        int exp_too = op == OP_CREATE || op == OP_OPEN; /* the study's exponential fits */
        if (f.has_exp && exp_too) {
            sts_set_summary(c, STS_KV_D(fit_key[op][0], f.exp_a));
            sts_set_summary(c, STS_KV_D(fit_key[op][1], f.exp_b));
            sts_set_summary(c, STS_KV_D(fit_key[op][2], f.exp_r2));
        }
        if (f.has_line) {
            sts_set_summary(c, STS_KV_D(fit_key[op][3], f.line_b));
            sts_set_summary(c, STS_KV_D(fit_key[op][4], f.line_r2));
        }
    }
}

/* Why M2 cannot run here, or NULL. */
static const char *m2_refusal(struct sts_ctx *c, const struct sts_statvfs *sv, int *err)
{
    *err = STS_ENOTSUP;
    if (c->target->flags & STS_T_NO_FS_METADATA)
        return "M2 ages a filesystem's metadata; this target has bare extents (give it a "
               "filesystem)";
    if (wl_read_only(c))
        return "M2 creates files: " WL_READ_ONLY_WHY;
    if (!(c->target->flags & STS_T_USER_FS))
        return NULL;
    if (!c->plan->capacity_bytes)
        return "M2 fills the filesystem to its floor; give --capacity SIZE of a filesystem set "
               "aside for it (a loop-mounted image), never one in use";
    *err = STS_ENOSPC;
    if (sv->total_bytes > c->plan->capacity_bytes)
        return "M2 refuses a filesystem larger than --capacity (use a loop-mounted image of "
               "that size)";
    return NULL;
}

static int m2_run(struct sts_ctx *c)
{
    static struct m2_state m; /* no large stack frame on an MCU */
    memset(&m, 0, sizeof(m));
    m.c = c;
    const struct sts_plan *p = c->plan;
    m.cfg.virtual_time = (c->target->flags & STS_T_VIRTUAL_TIME) != 0;
    m.cfg.file_bytes = wl_size(p, 1 * MIB, 7 * MIB);
    m.cfg.chunk = c->buf_size < 64 * KIB ? c->buf_size : 64 * KIB;
    m.cfg.interval_ns = p->interval_ns ? p->interval_ns
                                       : (m.cfg.virtual_time ? 30ull * 60 * 1000000000ull : 0);
    m.cfg.floor_permille = p->floor_permille ? p->floor_permille : 50;
    m.cfg.threshold_ns = p->threshold_ns ? p->threshold_ns : 200000000ull;
    m.cfg.max_ns = p->duration_ns; /* only when asked: the test runs to the floor */
    struct sts_kv tp[] = {
        STS_KV_U("streams", M2_STREAMS),
        STS_KV_U("file_bytes", m.cfg.file_bytes),
        STS_KV_U("interval_ns", m.cfg.interval_ns),
        STS_KV_U("floor_permille", m.cfg.floor_permille),
        STS_KV_U("threshold_ns", m.cfg.threshold_ns),
        STS_KV_S("time", m.cfg.virtual_time ? "virtual" : "real"),
    };
    int rc = sts_test_begin(c, tp, WL_COUNT(tp));
    if (rc)
        return rc;
    const struct sts_fs_ops *ops = c->target->fs.ops;
    struct sts_statvfs sv;
    rc = ops->statvfs(c->target->fs.ctx, &sv);
    if (rc)
        return wl_fail_on(c, rc, "statvfs", "(filesystem)");
    int err;
    const char *why = m2_refusal(c, &sv, &err);
    if (why)
        return sts_fail(c, err, why);
    rc = probe_setup(&m);
    if (rc)
        return rc;
    uint64_t floor = sv.total_bytes / 1000 * m.cfg.floor_permille;
    uint64_t start = wl_now(c), full_at = sv.free_bytes;
    const char *stopped = "floor";
    for (uint32_t k = 0;; k++) {
        if (wait_due(&m, start, k) || sts_should_stop(c)) {
            rc = STS_EINTR;
            break;
        }
        rc = ops->statvfs(c->target->fs.ctx, &sv);
        if (rc) {
            rc = wl_fail_on(c, rc, "statvfs", "(filesystem)");
            break;
        }
        /* the whole next lifecycle must fit above the floor */
        if (sv.free_bytes < floor || sv.free_bytes - floor < M2_STREAMS * m.cfg.file_bytes)
            break;
        uint64_t t_ns = m.cfg.virtual_time ? (uint64_t)k * m.cfg.interval_ns : wl_now(c) - start;
        if (m.cfg.max_ns && t_ns >= m.cfg.max_ns) {
            stopped = "duration";
            break;
        }
        if (k >= M2_MAX_LIFECYCLES) {
            stopped = "lifecycle limit";
            break;
        }
        sts_report_progress(c, "lifecycles to the floor", full_at - sv.free_bytes,
                            full_at - floor);
        uint64_t sum[N_OPS] = {0}, max[N_OPS] = {0};
        m.created = k + 1; /* from here its files may exist */
        uint64_t t[M2_STREAMS][N_OPS] = {{0}};
        rc = lifecycles(&m, k, t);
        uint64_t probe_ns = 0;
        if (!rc && m.probe_dir)
            rc = probe_create(&m, &probe_ns);
        for (uint32_t s = 0; s < M2_STREAMS && !rc; s++)
            for (int op = 0; op < N_OPS; op++) {
                sum[op] += t[s][op];
                max[op] = t[s][op] > max[op] ? t[s][op] : max[op];
            }
        if (rc == STS_ENOSPC) {
            stopped = "filesystem full";
            rc = STS_OK;
            break;
        }
        if (rc)
            break;
        record(&m, k, (double)t_ns / NS_PER_DAY, &sv, sum, probe_ns);
        m.completed++;
        rc = emit_lifecycle(&m, k, t_ns, &sv, sum, max, probe_ns);
        if (rc)
            break;
    }
    if (!rc || rc == STS_EINTR)
        summarize(&m, rc ? "interrupted" : stopped);
    int rrc = remove_all(&m);
    if (!rc && rrc)
        rc = rrc;
    return rc;
}

static uint64_t m2_scratch(const struct sts_plan *p)
{
    /* one lifecycle; beyond that M2 keeps to its own floor */
    return M2_STREAMS * wl_size(p, 1 * MIB, 7 * MIB);
}

const struct sts_test_def sts_test_m2 = {
    "M2", "Aging to saturation: 3 streams create, open, write, flush, close a file each "
          "interval until the free-space floor",
    "study M2 (Figure 8)", m2_scratch, m2_run, 0, 0, 0,
};
