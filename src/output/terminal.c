#include "storscope/output.h"
#include "storscope/units.h"

#include <string.h>

void sts_fmt_rate(char *buf, size_t n, double bps)
{
    static const char *const unit[] = {"B/s", "KiB/s", "MiB/s", "GiB/s"};
    int u = 0;
    while (u < 3 && bps >= 1024.0 * 0.995)
        bps /= 1024.0, u++;
    snprintf(buf, n, bps >= 100 ? "%.0f %s" : bps >= 10 ? "%.1f %s" : "%.2f %s", bps, unit[u]);
}

void sts_fmt_ns(char *buf, size_t n, double ns)
{
    if (ns < 1e3)
        snprintf(buf, n, "%.0f ns", ns);
    else if (ns < 1e6)
        snprintf(buf, n, "%.1f us", ns / 1e3);
    else if (ns < 1e9)
        snprintf(buf, n, "%.2f ms", ns / 1e6);
    else
        snprintf(buf, n, "%.2f s", ns / 1e9);
}

static int term_run_begin(void *ctx, const struct sts_run_info *ri)
{
    struct sts_term_sink *ts = ctx;
    ts->virtual_clock = sts_run_is_virtual(ri);
    return 0;
}

static int term_test_begin(void *ctx, const struct sts_test_info *ti)
{
    struct sts_term_sink *ts = ctx;
    fprintf(ts->out, "\n%s  %s\n", ti->id, ti->title);
    /* what this run used: at quick scale it is not the study's size */
    static const char *const keys[][2] = {{"file_bytes", "file"}, {"runs", "runs"},
                                          {"iterations", "iterations"}, {"reads", "reads"}};
    int any = 0;
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        const struct sts_kv *kv = sts_kv_find(ti->params, ti->n_params, keys[i][0]);
        if (!kv || sts_kv_number(kv) <= 0)
            continue;
        char v[32];
        if (i == 0)
            sts_fmt_bytes(v, sizeof(v), (uint64_t)sts_kv_number(kv));
        else
            snprintf(v, sizeof(v), "%.0f", sts_kv_number(kv));
        fprintf(ts->out, "%s%s %s", any ? ", " : "    this run: ", keys[i][1], v);
        any = 1;
    }
    if (any)
        fputc('\n', ts->out);
    ts->first_point = 1;
    return 0;
}

static double metric(const struct sts_point *p, const char *key)
{
    const struct sts_kv *kv = sts_kv_find(p->metrics, p->n_metrics, key);
    return kv ? sts_kv_number(kv) : 0.0;
}

/* M2: one row per lifecycle, latencies against time and free space. */
static int term_lifecycle(struct sts_term_sink *ts, const struct sts_point *p)
{
    static const char *const ops[] = {"create_ns", "open_ns", "write_ns", "flush_ns",
                                      "close_ns"};
    if (ts->first_point) {
        fprintf(ts->out, "  %9s %10s %12s %10s %10s %10s %10s %10s\n", "lifecycle", "time",
                "free", "create", "open", "write", "flush", "close");
        ts->first_point = 0;
    }
    /* a long run thins out: lifecycles 0-9, then 10, 20 .. 90, 100, 200 ..;
     * every one is in the JSON */
    const struct sts_kv *kk = sts_kv_find(p->params, p->n_params, "lifecycle");
    uint64_t k = kk ? (uint64_t)sts_kv_number(kk) : 0, step = 1;
    while (step * 10 <= k)
        step *= 10;
    char t[24], fr[24], v[5][16];
    double days = metric(p, "t_ns") / 86400e9;
    snprintf(t, sizeof(t), days >= 1 ? "%.2f d" : "%.2f h", days >= 1 ? days : days * 24);
    sts_fmt_bytes(fr, sizeof(fr), (uint64_t)metric(p, "free_bytes"));
    for (int i = 0; i < 5; i++)
        sts_fmt_ns(v[i], sizeof(v[i]), metric(p, ops[i]));
    /* the row is held rather than dropped: the last one, nearest the floor,
     * is printed when the test ends */
    snprintf(ts->held_row, sizeof(ts->held_row), "  %9llu %10s %12s %10s %10s %10s %10s %10s\n",
             (unsigned long long)k, t, fr, v[0], v[1], v[2], v[3], v[4]);
    if (k % step == 0) {
        fputs(ts->held_row, ts->out);
        ts->held_row[0] = 0;
    }
    return 0;
}

/* L1: one row per mode and rate, what a logger designer reads. */
static int term_logging(struct sts_term_sink *ts, const struct sts_point *p)
{
    if (ts->first_point) {
        fprintf(ts->out, "  %-13s %-7s %6s %12s %9s %8s %8s %11s %11s\n", "run", "mode", "rate",
                "sustained", "records", "lost", "late", "worst stall", "buffer need");
        ts->first_point = 0;
    }
    const struct sts_kv *mode = sts_kv_find(p->params, p->n_params, "mode");
    const struct sts_kv *scale = sts_kv_find(p->params, p->n_params, "rate_scale");
    char rate[24], stall[16], need[24];
    sts_fmt_rate(rate, sizeof(rate), p->run_stats.mean);
    sts_fmt_ns(stall, sizeof(stall), metric(p, "worst_stall_ns"));
    sts_fmt_bytes(need, sizeof(need), (uint64_t)metric(p, "required_buffer_bytes"));
    fprintf(ts->out, "  %-13s %-7s %5.2fx %12s %9.0f %8.0f %8.0f %11s %11s\n", p->name,
            mode ? mode->v.s : "-", scale ? sts_kv_number(scale) : 1.0, rate,
            metric(p, "records_produced"), metric(p, "records_lost"), metric(p, "records_late"),
            stall, need);
    return 0;
}

/* Points skipped for one reason become one row at the test's end ("write
 * 64 B .. 2 MiB skipped at 15 sizes: ...") instead of a row per size. */
static void hold_skip(struct sts_term_sink *ts, const struct sts_point *p,
                      const char *label)
{
    struct sts_term_skip *g = NULL;
    for (size_t i = 0; i < ts->n_skips && !g; i++)
        if (!strcmp(ts->skip[i].name, p->name) && !strcmp(ts->skip[i].why, p->skipped))
            g = &ts->skip[i];
    if (!g) {
        if (ts->n_skips == STS_TERM_SKIPS) { /* more reasons than rows held: as it comes */
            fprintf(ts->out, "  %-16s %10s  skipped: %s\n", p->name, label, p->skipped);
            return;
        }
        g = &ts->skip[ts->n_skips++];
        snprintf(g->name, sizeof(g->name), "%s", p->name);
        snprintf(g->why, sizeof(g->why), "%s", p->skipped);
        snprintf(g->first, sizeof(g->first), "%s", label);
        g->count = 0;
    }
    snprintf(g->last, sizeof(g->last), "%s", label);
    g->count++;
}

static void print_skips(struct sts_term_sink *ts)
{
    for (size_t i = 0; i < ts->n_skips; i++) {
        const struct sts_term_skip *g = &ts->skip[i];
        if (g->count == 1)
            fprintf(ts->out, "  %-16s %10s  skipped: %s\n", g->name, g->first, g->why);
        else
            fprintf(ts->out, "  %-16s %s .. %s skipped (%u points): %s\n", g->name, g->first,
                    g->last, g->count, g->why);
    }
    ts->n_skips = 0;
}

static int term_point(void *ctx, const struct sts_test_info *ti, const struct sts_point *p)
{
    struct sts_term_sink *ts = ctx;
    (void)ti;
    if (!p->skipped && sts_kv_find(p->metrics, p->n_metrics, "free_bytes"))
        return term_lifecycle(ts, p);
    if (!p->skipped && sts_kv_find(p->metrics, p->n_metrics, "records_lost"))
        return term_logging(ts, p);
    if (ts->first_point && !p->skipped) {
        /* S2's runs are durations: the column says so */
        int is_time = p->run_metric && !strcmp(p->run_metric, "total_ns");
        fprintf(ts->out, "  %-16s %10s  %12s %8s  %4s  %10s %10s %10s\n", "op", "chunk",
                is_time ? "time per run" : "throughput", "+-sd", "runs", "lat p50", "lat p99",
                "lat max");
        ts->first_point = 0;
    }
    char chunk[24] = "-";
    const struct sts_kv *c = sts_kv_find(p->params, p->n_params, "chunk_bytes");
    if (!c)
        c = sts_kv_find(p->params, p->n_params, "block_bytes");
    const struct sts_kv *files = sts_kv_find(p->params, p->n_params, "files");
    if (c)
        sts_fmt_bytes(chunk, sizeof(chunk), (uint64_t)sts_kv_number(c));
    else if (files)
        snprintf(chunk, sizeof(chunk), "%.0f files", sts_kv_number(files));
    if (p->skipped) {
        hold_skip(ts, p, chunk);
        return 0;
    }
    char rate[24], sd[16] = "-", p50[16] = "-", p99[16] = "-", mx[16] = "-";
    if (p->run_metric && !strcmp(p->run_metric, "total_ns"))
        sts_fmt_ns(rate, sizeof(rate), p->run_stats.mean); /* a duration per run */
    else
        sts_fmt_rate(rate, sizeof(rate), p->run_stats.mean);
    if (p->n_runs > 1 && p->run_stats.mean > 0)
        snprintf(sd, sizeof(sd), "%.1f %%", 100.0 * sts_welford_sd(&p->run_stats) /
                                              p->run_stats.mean);
    /* first latency on the point's own row, others on rows of their own */
    for (size_t i = 0; i == 0 || i < p->n_lat; i++) {
        if (i < p->n_lat && p->lat[i].lat->w.n) {
            const struct sts_hist *h = &p->lat[i].lat->h;
            sts_fmt_ns(p50, sizeof(p50), (double)sts_hist_percentile(h, 50));
            sts_fmt_ns(p99, sizeof(p99), (double)sts_hist_percentile(h, 99));
            sts_fmt_ns(mx, sizeof(mx), (double)h->max);
        }
        if (i == 0)
            fprintf(ts->out, "  %-16s %10s  %12s %8s  %4zu  %10s %10s %10s\n", p->name, chunk,
                    rate, sd, p->n_runs, p50, p99, mx);
        else
            fprintf(ts->out, "  %-16s %10s  %12s %8s  %4s  %10s %10s %10s\n", p->lat[i].name, "",
                    "", "", "", p50, p99, mx);
    }
    return 0;
}

static int term_test_end(void *ctx, const struct sts_test_end *te)
{
    struct sts_term_sink *ts = ctx;
    fputs(ts->held_row, ts->out);
    ts->held_row[0] = 0;
    print_skips(ts);
    for (size_t i = 0; i < te->n_summary; i++) {
        const struct sts_kv *kv = &te->summary[i];
        if (!strcmp(kv->key, "iops"))
            fprintf(ts->out, "  IOPS: %.0f", kv->v.d);
        else if (!strcmp(kv->key, "bytes_per_second")) {
            char r[24];
            sts_fmt_rate(r, sizeof(r), kv->v.d);
            fprintf(ts->out, "   throughput: %s", r);
        } else if (!strcmp(kv->key, "mean_latency_ns")) {
            char r[24];
            sts_fmt_ns(r, sizeof(r), kv->v.d);
            fprintf(ts->out, "   mean latency: %s", r);
        }
    }
    if (te->n_summary)
        fputc('\n', ts->out);
    for (size_t i = 0; i < te->n_summary; i++) { /* growth exponents: N^b +- ci */
        const struct sts_kv *kv = &te->summary[i];
        const char *e = strstr(kv->key, "_exponent_");
        if (!e || strstr(kv->key, "_ci95"))
            continue;
        char ci_key[64];
        snprintf(ci_key, sizeof(ci_key), "%s_ci95", kv->key);
        const struct sts_kv *ci = sts_kv_find(te->summary, te->n_summary, ci_key);
        fprintf(ts->out, "  per-file %.*s grows as N^%.2f (+-%.2f, 95 %%) %s\n",
                (int)(e - kv->key), kv->key, kv->v.d, ci ? ci->v.d : 0.0,
                strstr(e, "flat") ? "in one directory" : "spread over sqrt(N) subdirectories");
    }
    for (size_t i = 0; i < te->n_summary; i++) { /* aging fits */
        const struct sts_kv *kv = &te->summary[i];
        const char *e = strstr(kv->key, "_exp_b_per_day");
        if (!e)
            continue;
        char key[64], a[16];
        int op = (int)(e - kv->key);
        snprintf(key, sizeof(key), "%.*s_exp_a_ns", op, kv->key);
        const struct sts_kv *ka = sts_kv_find(te->summary, te->n_summary, key);
        snprintf(key, sizeof(key), "%.*s_exp_r2", op, kv->key);
        const struct sts_kv *kr = sts_kv_find(te->summary, te->n_summary, key);
        sts_fmt_ns(a, sizeof(a), ka ? ka->v.d : 0.0);
        fprintf(ts->out, "  %.*s latency ~ A exp(B t): A = %s, B = %.3f /day, R^2 = %.3f\n", op,
                kv->key, a, kv->v.d, kr ? kr->v.d : 0.0);
        snprintf(key, sizeof(key), "%.*s_threshold_free_bytes", op, kv->key);
        const struct sts_kv *kt = sts_kv_find(te->summary, te->n_summary, key);
        if (kt) {
            sts_fmt_bytes(a, sizeof(a), kt->v.u);
            fprintf(ts->out, "  %.*s latency first exceeded the threshold with %s free\n", op,
                    kv->key, a);
        }
    }
    if (te->status != 0)
        fprintf(ts->out, "  %s%s%s\n", sts_test_status_name(te->status), te->error ? ": " : "",
                te->error ? te->error : "");
    fflush(ts->out);
    return 0;
}

static int term_run_end(void *ctx, const struct sts_run_end *re)
{
    struct sts_term_sink *ts = ctx;
    sts_print_totals(ts->out, re, ts->virtual_clock);
    fflush(ts->out);
    return 0;
}

static const struct sts_sink_ops term_ops = {
    .run_begin = term_run_begin,
    .test_begin = term_test_begin,
    .point = term_point,
    .test_end = term_test_end,
    .run_end = term_run_end,
};

void sts_term_sink_init(struct sts_term_sink *ts, struct sts_sink *sink, FILE *out)
{
    ts->out = out;
    ts->first_point = 1;
    ts->virtual_clock = 0;
    ts->held_row[0] = 0;
    ts->n_skips = 0;
    sink->ops = &term_ops;
    sink->ctx = ts;
}
