/* The first screen: what a user came for, in a few lines. One line per
 * test with its headline figures, formed when the test ends (so it works
 * the same on a live run and on a saved one replayed by `report`), printed
 * after the run. The per-point tables are `--tables`. */
#include "storscope/output.h"
#include "storscope/analysis.h"
#include "storscope/target.h"
#include "storscope/units.h"

#include <stdarg.h>
#include <string.h>

static void add(struct sts_summary_line *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void add(struct sts_summary_line *l, const char *fmt, ...)
{
    size_t used = strlen(l->text);
    if (used + 1 >= sizeof(l->text))
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->text + used, sizeof(l->text) - used, fmt, ap);
    va_end(ap);
}

/* "; " between parts of a line, none before the first (the text starts
 * with one space) */
static const char *sep(const struct sts_summary_line *l)
{
    return l->text[1] ? "; " : "";
}

static double num(const struct sts_kv *kv, size_t n, const char *key, double dflt)
{
    const struct sts_kv *k = sts_kv_find(kv, n, key);
    return k ? sts_kv_number(k) : dflt;
}

static const char *str(const struct sts_kv *kv, size_t n, const char *key)
{
    const struct sts_kv *k = sts_kv_find(kv, n, key);
    return k && k->type == STS_KV_STR ? k->v.s : NULL;
}

static struct sts_summary_op *op_of(struct sts_summary_sink *ss, const char *name)
{
    for (size_t i = 0; i < ss->n_ops; i++)
        if (!strcmp(ss->ops[i].name, name))
            return &ss->ops[i];
    if (ss->n_ops == STS_SUMMARY_OPS)
        return NULL;
    struct sts_summary_op *o = &ss->ops[ss->n_ops++];
    memset(o, 0, sizeof(*o));
    sts_strlcpy(o->name, name, sizeof(o->name));
    return o;
}

static int sum_test_begin(void *ctx, const struct sts_test_info *ti)
{
    struct sts_summary_sink *ss = ctx;
    ss->n_ops = 0;
    ss->runs_lo = ss->runs_hi = 0;
    memset(ss->mode, 0, sizeof(ss->mode));
    ss->m2_free = -1;
    ss->m2_floor_permille = num(ti->params, ti->n_params, "floor_permille", 50);
    ss->m2_file_bytes = num(ti->params, ti->n_params, "file_bytes", 0);
    ss->m2_threshold_ns = num(ti->params, ti->n_params, "threshold_ns", 200e6);
    return 0;
}

enum { MODE_DIRECT, MODE_MUTEX, MODE_IOTASK };
static const char *const mode_name[STS_SUMMARY_MODES] = {"direct", "mutex", "iotask"};

static int mode_of(const struct sts_point *p)
{
    const char *m = str(p->params, p->n_params, "mode");
    for (int i = 0; m && i < STS_SUMMARY_MODES; i++)
        if (!strcmp(m, mode_name[i]))
            return i;
    return -1;
}

/* S1 and L1: per access mode. */
static void mode_point(struct sts_summary_sink *ss, const struct sts_point *p, int mode)
{
    struct sts_summary_mode *m = &ss->mode[mode];
    if (!strcmp(p->name, "write") && num(p->params, p->n_params, "load_tasks", -1) == 4) {
        m->deg_sum += num(p->metrics, p->n_metrics, "degradation", 0);
        m->deg_n++;
    } else if (!strcmp(p->name, "sustained")) {
        m->seen = 1;
        m->lost = num(p->metrics, p->n_metrics, "records_lost", 0);
        m->need = num(p->metrics, p->n_metrics, "required_buffer_bytes", 0);
    }
}

static int sum_point(void *ctx, const struct sts_test_info *ti, const struct sts_point *p)
{
    struct sts_summary_sink *ss = ctx;
    (void)ti;
    int mode = mode_of(p);
    if (mode >= 0 && !p->skipped) {
        mode_point(ss, p, mode);
        return 0;
    }
    if (sts_kv_find(p->metrics, p->n_metrics, "free_bytes")) { /* M2's lifecycles */
        ss->m2_free = num(p->metrics, p->n_metrics, "free_bytes", 0);
        ss->m2_files = num(p->metrics, p->n_metrics, "files", 0);
        ss->m2_total = num(p->metrics, p->n_metrics, "total_bytes", 0);
        ss->m2_t_ns = num(p->metrics, p->n_metrics, "t_ns", 0);
        return 0;
    }
    struct sts_summary_op *o = op_of(ss, p->name);
    if (!o || o->done)
        return 0;
    double x = num(p->params, p->n_params, "chunk_bytes",
                   num(p->params, p->n_params, "block_bytes", -1));
    double files = num(p->params, p->n_params, "files", -1);
    o->per_file = x < 0 && files > 0;
    if (o->per_file) {
        if (o->measured && files < o->last_x) { /* S2's second layout starts over */
            o->done = 1;
            return 0;
        }
        x = files;
    }
    if (p->skipped) {
        if (!o->skipped++)
            sts_strlcpy(o->skip_why, p->skipped, sizeof(o->skip_why));
        return 0;
    }
    double v = p->run_stats.mean;
    unsigned runs = p->run_stats.n > 9999 ? 9999 : (unsigned)p->run_stats.n;
    if (!ss->runs_hi || runs < ss->runs_lo)
        ss->runs_lo = runs;
    if (runs > ss->runs_hi)
        ss->runs_hi = runs;
    o->is_time = p->run_metric && !strcmp(p->run_metric, "total_ns");
    if (o->per_file)
        v /= files; /* S2: time per run over files per run */
    if (!o->measured++) {
        o->first_x = x;
        o->first_v = v;
    }
    o->last_x = x;
    o->last_v = v;
    o->mean_lat = o->p50 = o->p99 = -1;
    o->blocked_ns = num(p->metrics, p->n_metrics, "blocked_mean_ns", -1);
    o->polls = num(p->metrics, p->n_metrics, "polls_per_block_mean", -1);
    if (p->n_lat && p->lat[0].lat->w.n) {
        o->mean_lat = p->lat[0].lat->w.mean;
        if (p->lat[0].lat->h.total) {
            o->p50 = (double)sts_hist_percentile(&p->lat[0].lat->h, 50);
            o->p99 = (double)sts_hist_percentile(&p->lat[0].lat->h, 99);
        } else if (p->lat[0].p99_ns > 0) { /* a saved run, replayed */
            o->p50 = p->lat[0].p50_ns;
            o->p99 = p->lat[0].p99_ns;
        }
    }
    if (x == 4096) {
        o->at4k_v = v;
        o->at4k_p50 = o->p50;
        o->at4k_p99 = o->p99;
    }
    return 0;
}

static void at(char *buf, size_t n, double x, int per_file)
{
    if (x < 0)
        buf[0] = '\0';
    else if (per_file)
        snprintf(buf, n, " with %.0f files", x);
    else {
        char b[24];
        sts_fmt_bytes(b, sizeof(b), (uint64_t)x);
        snprintf(buf, n, " at %s", b);
    }
}

static void value(char *buf, size_t n, const struct sts_summary_op *o, double v)
{
    if (o->is_time)
        sts_fmt_ns(buf, n, v);
    else
        sts_fmt_rate(buf, n, v);
}

/* "write 1.36 MiB/s at 1 B .. 4.87 MiB/s at 1 KiB"; per-file series (S2)
 * at their largest N only: "create 5.96 ms" after "per file with 250 files:" */
static void series_text(struct sts_summary_line *l, const struct sts_summary_op *o, int latency)
{
    char v0[24], v1[24], x0[32], x1[32];
    value(v0, sizeof(v0), o, o->first_v);
    value(v1, sizeof(v1), o, o->last_v);
    at(x0, sizeof(x0), o->first_x, o->per_file);
    at(x1, sizeof(x1), o->last_x, o->per_file);
    const char *name = !strcmp(o->name, "open_close") ? "open+close" : o->name;
    int first = l->text[strlen(l->text) - 1] == ' ';
    if (o->per_file) {
        if (first)
            add(l, "per file%s:", x1);
        add(l, "%s %s %s", first ? "" : ",", name, v1);
        return;
    }
    add(l, "%s%s", first ? "" : "; ", name);
    if (o->measured == 1 || o->first_x == o->last_x)
        add(l, " %s%s", v1, x1);
    else
        add(l, " %s%s .. %s%s", v0, x0, v1, x1);
    if (latency && o->mean_lat >= 0) {
        char m[16], p[16], q[16];
        sts_fmt_ns(m, sizeof(m), o->mean_lat);
        if (o->p99 >= 0) {
            sts_fmt_ns(p, sizeof(p), o->p50);
            sts_fmt_ns(q, sizeof(q), o->p99);
            add(l, " (p50 %s, p99 %s)", p, q);
        } else {
            add(l, " (mean %s)", m);
        }
    }
}

static void modes_text(struct sts_summary_line *l, const struct sts_summary_sink *ss, int s1)
{
    const char *sep = "";
    for (int m = 0; m < STS_SUMMARY_MODES; m++) {
        const struct sts_summary_mode *md = &ss->mode[m];
        if (s1 && md->deg_n) {
            add(l, "%s%s %.0f %%", sep, mode_name[m], 100.0 * md->deg_sum / md->deg_n);
            sep = ", ";
        } else if (!s1 && md->seen) {
            char need[24];
            sts_fmt_bytes(need, sizeof(need), (uint64_t)md->need);
            add(l, "%s%s %.0f lost, buffer %s", sep, mode_name[m], md->lost, need);
            sep = "; ";
        }
    }
}

static void m2_text(struct sts_summary_line *l, const struct sts_summary_sink *ss,
                    const struct sts_test_end *te)
{
    const struct sts_kv *s = te->summary;
    size_t n = te->n_summary;
    const char *stopped = str(s, n, "stopped_by"), *cause = str(s, n, "create_growth_cause");
    double days = ss->m2_t_ns / 86400e9;
    char span[24];
    if (days >= 1)
        snprintf(span, sizeof(span), "%.1f days", days);
    else if (days * 24 >= 1)
        snprintf(span, sizeof(span), "%.1f hours", days * 24);
    else
        sts_fmt_ns(span, sizeof(span), ss->m2_t_ns);
    add(l, "%.0f lifecycles over %s", num(s, n, "lifecycles", 0), span);
    if (stopped && ss->m2_free >= 0) {
        char fr[24];
        sts_fmt_bytes(fr, sizeof(fr), (uint64_t)ss->m2_free);
        /* short of the floor: with room for two more lifecycles left, the
         * filesystem ran out of file names (a file-count limit), not space */
        double floor = ss->m2_total * ss->m2_floor_permille / 1000;
        int names = ss->m2_free > floor + 6 * ss->m2_file_bytes;
        if (!strcmp(stopped, "filesystem full"))
            add(l, ", stopped: the filesystem refused a file with %s free and %.0f of M2's files "
                   "(out of %s)", fr, ss->m2_files + 3, names ? "file names" : "space");
        else
            add(l, ", stopped by the %s with %s free", stopped, fr);
    }
    double c0 = num(s, n, "create_first_ns", -1), c1 = num(s, n, "create_last_ns", -1);
    if (c0 >= 0 && c1 >= 0) {
        char a[16], b[16];
        sts_fmt_ns(a, sizeof(a), c0);
        sts_fmt_ns(b, sizeof(b), c1);
        add(l, "; create %s -> %s", a, b);
        if (cause && strcmp(cause, "none"))
            add(l, " (cause: %s)", cause);
    }
    double cross = num(s, n, "create_threshold_free_bytes", -1);
    if (cross >= 0) {
        char fr[24], thr[16];
        sts_fmt_bytes(fr, sizeof(fr), (uint64_t)cross);
        sts_fmt_ns(thr, sizeof(thr), ss->m2_threshold_ns);
        add(l, "; create passed %s with %s free and %.0f files", thr, fr,
            num(s, n, "create_threshold_files", 0));
    }
}

static int sum_test_end(void *ctx, const struct sts_test_end *te)
{
    struct sts_summary_sink *ss = ctx;
    ss->elapsed_ns += te->elapsed_ns;
    ss->tests_ok += te->status == STS_TEST_OK;
    ss->tests_failed += te->status == STS_TEST_FAILED;
    ss->tests_skipped += te->status == STS_TEST_NOT_APPLICABLE;
    ss->interrupted |= te->status == STS_TEST_INTERRUPTED;
    if (ss->n == STS_SUMMARY_TESTS)
        return 0;
    struct sts_summary_line *l = &ss->line[ss->n++];
    snprintf(l->id, sizeof(l->id), "%s", te->id);
    l->text[0] = ' ';
    l->text[1] = '\0';
    if (te->status == STS_TEST_NOT_APPLICABLE) {
        add(l, "not applicable: %s", te->error ? te->error : "");
        return 0;
    }
    if (te->status == STS_TEST_FAILED) {
        add(l, "FAILED: %s", te->error ? te->error : "");
        return 0;
    }
    const struct sts_kv *s = te->summary;
    size_t n = te->n_summary;
    if (!strcmp(te->id, "M2")) {
        m2_text(l, ss, te);
    } else if (!strcmp(te->id, "S1")) {
        add(l, "write throughput lost with 4 load tasks: ");
        modes_text(l, ss, 1);
    } else if (!strcmp(te->id, "L1")) {
        modes_text(l, ss, 0);
    } else if (!strcmp(te->id, "nb")) { /* what the caller is blocked for, per call */
        for (size_t i = 0; i < ss->n_ops; i++) {
            const struct sts_summary_op *o = &ss->ops[i];
            char b[16];
            if (!o->measured || o->blocked_ns < 0)
                continue;
            sts_fmt_ns(b, sizeof(b), o->blocked_ns);
            add(l, "%s%s read: the caller is blocked %s a call", sep(l), o->name, b);
            if (o->polls > 0)
                add(l, " (%.0f polls a 512 B block)", o->polls);
        }
    } else if (!strcmp(te->id, "rand")) { /* at 4 KiB, as fio is usually quoted */
        for (size_t i = 0; i < ss->n_ops; i++) {
            const struct sts_summary_op *o = &ss->ops[i];
            char r[24], a[16], b[16];
            if (!o->measured || o->at4k_v <= 0)
                continue;
            sts_fmt_rate(r, sizeof(r), o->at4k_v);
            add(l, "%s%s 4 KiB: %.0f IOPS (%s)", sep(l), o->name, o->at4k_v / 4096, r);
            if (o->at4k_p99 >= 0) {
                sts_fmt_ns(a, sizeof(a), o->at4k_p50);
                sts_fmt_ns(b, sizeof(b), o->at4k_p99);
                add(l, ", p50 %s, p99 %s", a, b);
            }
        }
    } else if (sts_kv_find(s, n, "iops")) {
        /* the tail fio users look for: a stall of a second is one sync in
         * thousands, below p99, and must show here, not only in a guideline */
        char m[16], p[16], p4[16], mx[16];
        sts_fmt_ns(m, sizeof(m), num(s, n, "mean_latency_ns", 0));
        sts_fmt_ns(p, sizeof(p), num(s, n, "p99_latency_ns", 0));
        add(l, "%.0f IOPS, write+sync mean %s, p99 %s", num(s, n, "iops", 0), m, p);
        if (sts_kv_find(s, n, "max_latency_ns")) {
            sts_fmt_ns(mx, sizeof(mx), num(s, n, "max_latency_ns", 0));
            if (sts_kv_find(s, n, "p99_99_latency_ns")) { /* (saved runs may lack it) */
                sts_fmt_ns(p4, sizeof(p4), num(s, n, "p99_99_latency_ns", 0));
                add(l, ", p99.99 %s", p4);
            }
            add(l, ", max %s", mx);
        }
    } else {
        int latency = !strcmp(te->id, "M1") || !strcmp(te->id, "rand");
        for (size_t i = 0; i < ss->n_ops; i++)
            if (ss->ops[i].measured)
                series_text(l, &ss->ops[i], latency);
        /* figures that a rerun would not repeat say what they are the mean
         * of: a single sample is named as one (issue 41) */
        if (!ss->exact && ss->runs_hi == 1)
            add(l, "%sone run a point (single samples: no spread between runs)", sep(l));
        else if (!ss->exact && ss->runs_hi > ss->runs_lo)
            add(l, "%s%u to %u runs a point", sep(l), ss->runs_lo, ss->runs_hi);
        else if (!ss->exact && ss->runs_hi)
            add(l, "%s%u runs a point", sep(l), ss->runs_hi);
        const double e = num(s, n, "open_close_exponent_flat", -1e9);
        if (e > -1e9) {
            char cls[32];
            double ci = num(s, n, "open_close_exponent_flat_ci95", 0);
            sts_an_growth_class(e, ci, cls, sizeof(cls));
            add(l, "%sopen+close %s in files per directory (N^%.2f +-%.2f)", sep(l), cls, e, ci);
        }
    }
    for (size_t i = 0; i < ss->n_ops; i++)
        if (ss->ops[i].skipped)
            add(l, "%s%s not measured at %u size%s: %s", sep(l), ss->ops[i].name,
                ss->ops[i].skipped, ss->ops[i].skipped == 1 ? "" : "s", ss->ops[i].skip_why);
    if (te->status == STS_TEST_INTERRUPTED)
        add(l, " (interrupted)");
    return 0;
}

static int sum_run_begin(void *ctx, const struct sts_run_info *ri)
{
    struct sts_summary_sink *ss = ctx;
    ss->virtual_clock = sts_run_is_virtual(ri);
    const struct sts_kv *noisy = sts_kv_find(ri->env, ri->n_env, "sim_noisy");
    ss->exact = ss->virtual_clock && !(noisy && noisy->type == STS_KV_BOOL && noisy->v.b);
    return 0;
}

int sts_run_is_virtual(const struct sts_run_info *ri)
{
    const struct sts_kv *clock = sts_kv_find(ri->env, ri->n_env, "clock");
    return clock && clock->type == STS_KV_STR && clock->v.s && !strcmp(clock->v.s, "virtual");
}

void sts_print_totals(FILE *out, const struct sts_run_end *re, int virtual_clock)
{
    fprintf(out, "\n%u test%s ok, %u failed, %u not applicable%s, %.1f s %s\n", re->tests_ok,
            re->tests_ok == 1 ? "" : "s", re->tests_failed, re->tests_skipped,
            re->interrupted ? " (interrupted)" : "", (double)re->elapsed_ns / 1e9,
            virtual_clock ? "of " STS_VIRTUAL_TIME : "on the target's clock");
}

static const struct sts_sink_ops summary_ops = {
    .run_begin = sum_run_begin,
    .test_begin = sum_test_begin,
    .point = sum_point,
    .test_end = sum_test_end,
};

void sts_summary_sink_init(struct sts_summary_sink *ss, struct sts_sink *sink)
{
    memset(ss, 0, sizeof(*ss));
    sink->ops = &summary_ops;
    sink->ctx = ss;
}

void sts_summary_add_analysis(struct sts_summary_sink *ss, const struct sts_analysis *an)
{
    for (size_t i = 0; i < an->n_findings; i++) {
        const struct sts_an_item *f = &an->finding[i];
        const char *what = !strcmp(f->kind, "knee")      ? "write knee at"
                           : !strcmp(f->kind, "plateau") ? "read plateau from"
                           : !strcmp(f->kind, "dip")     ? "write dip at"
                                                         : NULL;
        int64_t at_bytes = !strcmp(f->kind, "knee")      ? an->write_knee_bytes
                           : !strcmp(f->kind, "plateau") ? an->read_plateau_bytes
                                                         : an->write_dip_bytes;
        for (size_t k = 0; what && at_bytes >= 0 && k < ss->n; k++)
            if (!strcmp(ss->line[k].id, f->test)) {
                char b[24];
                sts_fmt_bytes(b, sizeof(b), (uint64_t)at_bytes);
                add(&ss->line[k], "; %s %s", what, b);
            }
    }
}

void sts_summary_print(const struct sts_summary_sink *ss, FILE *out)
{
    for (size_t i = 0; i < ss->n; i++)
        fprintf(out, "  %-6s%s\n", ss->line[i].id, ss->line[i].text + 1);
}
