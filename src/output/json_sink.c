/* The results document. Layout (docs/json-schema.md has every field):
 * { "schema", "tool", "run", "environment", "warnings",
 *   "tests": [ { "id", "title", "params", "points": [...], "status", ... } ],
 *   "status", "interrupted", "elapsed_ns", counts } */
#include "storscope/error.h"
#include "storscope/json.h"
#include "storscope/suite.h"

static int js_sync(struct sts_json_sink *js)
{
    int rc = sts_jw_flush(&js->jw);
    if (!rc && js->flush && js->flush(js->flush_ctx) < 0)
        rc = STS_EIO;
    return rc;
}

static void kv_object(struct sts_jw *w, const char *key, const struct sts_kv *kv, size_t n)
{
    sts_jw_object(w, key);
    for (size_t i = 0; i < n; i++)
        sts_jw_kv(w, &kv[i]);
    sts_jw_end(w);
}

static int js_run_begin(void *ctx, const struct sts_run_info *ri)
{
    struct sts_json_sink *js = ctx;
    struct sts_jw *w = &js->jw;
    sts_jw_object(w, NULL);
    sts_jw_str(w, "schema", STS_RESULT_SCHEMA);
    sts_jw_object(w, "tool");
    sts_jw_str(w, "name", "storscope");
    sts_jw_str(w, "version", ri->tool_version);
    sts_jw_end(w);
    sts_jw_object(w, "run");
    sts_jw_str(w, "target", ri->target);
    sts_jw_str(w, "target_kind", ri->target_kind);
    sts_jw_str(w, "suite", ri->suite);
    sts_jw_str(w, "scale", ri->scale);
    sts_jw_u64(w, "seed", ri->seed);
    sts_jw_bool(w, "verify", ri->verify);
    sts_jw_str(w, "started_at", ri->started_at);
    sts_jw_end(w);
    kv_object(w, "environment", ri->env, ri->n_env);
    sts_jw_array(w, "warnings", 0);
    for (size_t i = 0; i < ri->n_warnings; i++)
        sts_jw_str(w, NULL, ri->warnings[i]);
    sts_jw_end(w);
    sts_jw_array(w, "tests", 0);
    return js_sync(js);
}

static int js_test_begin(void *ctx, const struct sts_test_info *ti)
{
    struct sts_json_sink *js = ctx;
    struct sts_jw *w = &js->jw;
    sts_jw_object(w, NULL);
    sts_jw_str(w, "id", ti->id);
    sts_jw_str(w, "title", ti->title);
    kv_object(w, "params", ti->params, ti->n_params);
    sts_jw_array(w, "points", 0);
    js->in_points = 1;
    return js_sync(js);
}

#define STS_JSON_HIST_BINS 168 /* 4 per octave over 2^42 */

static void latency(struct sts_jw *w, const struct sts_lat_report *lr)
{
    const struct sts_lat *l = lr->lat;
    uint64_t pv[STS_PCT_COUNT];
    sts_hist_percentiles(&l->h, sts_default_percentiles, STS_PCT_COUNT, pv);
    sts_jw_object(w, lr->name);
    sts_jw_u64(w, "count", l->w.n);
    sts_jw_double(w, "mean_ns", l->w.mean);
    sts_jw_double(w, "sd_ns", sts_welford_sd(&l->w));
    sts_jw_u64(w, "min_ns", l->w.n ? l->h.min : 0);
    sts_jw_u64(w, "max_ns", l->h.max);
    sts_jw_u64(w, "max_at_op", l->max_at); /* which operation (1-based) took max_ns */
    sts_jw_double(w, "histogram_relative_error", sts_hist_relative_error(&l->h));
    sts_jw_object(w, "percentiles_ns");
    for (size_t i = 0; i < STS_PCT_COUNT; i++) {
        char key[32];
        sts_fmt_double(key, sts_default_percentiles[i]);
        sts_jw_u64(w, key, pv[i]);
    }
    sts_jw_end(w);
    /* 4 bins per power of two: enough for a figure, ~80 bins for 1 us .. 1 s */
    uint64_t lo[STS_JSON_HIST_BINS], count[STS_JSON_HIST_BINS];
    size_t n = sts_hist_bins(&l->h, 2, lo, count, STS_JSON_HIST_BINS);
    sts_jw_object(w, "histogram");
    sts_jw_u64(w, "bins_per_octave", 4);
    sts_jw_array(w, "lo_ns", 1);
    for (size_t i = 0; i < n; i++)
        sts_jw_u64(w, NULL, lo[i]);
    sts_jw_end(w);
    sts_jw_array(w, "count", 1);
    for (size_t i = 0; i < n; i++)
        sts_jw_u64(w, NULL, count[i]);
    sts_jw_end(w);
    sts_jw_end(w);
    sts_jw_end(w);
}

static int js_point(void *ctx, const struct sts_test_info *ti, const struct sts_point *p)
{
    struct sts_json_sink *js = ctx;
    struct sts_jw *w = &js->jw;
    (void)ti;
    sts_jw_object(w, NULL);
    sts_jw_str(w, "name", p->name);
    kv_object(w, "params", p->params, p->n_params);
    if (p->skipped) {
        sts_jw_str(w, "skipped", p->skipped);
    } else {
        sts_jw_object(w, "runs");
        sts_jw_str(w, "metric", p->run_metric);
        sts_jw_array(w, "values", 1);
        for (size_t i = 0; i < p->n_runs; i++)
            sts_jw_double(w, NULL, p->runs[i]);
        sts_jw_end(w);
        sts_jw_u64(w, "n", p->run_stats.n);
        sts_jw_double(w, "mean", p->run_stats.mean);
        sts_jw_double(w, "sd", sts_welford_sd(&p->run_stats));
        sts_jw_double(w, "min", p->run_stats.min);
        sts_jw_double(w, "max", p->run_stats.max);
        sts_jw_end(w);
        kv_object(w, "metrics", p->metrics, p->n_metrics);
        sts_jw_object(w, "latency");
        for (size_t i = 0; i < p->n_lat; i++)
            latency(w, &p->lat[i]);
        sts_jw_end(w);
        if (p->n_device)
            kv_object(w, "device", p->device, p->n_device);
    }
    sts_jw_end(w);
    return js_sync(js);
}

static int js_test_end(void *ctx, const struct sts_test_end *te)
{
    struct sts_json_sink *js = ctx;
    struct sts_jw *w = &js->jw;
    if (js->in_points) {
        sts_jw_end(w); /* points */
        js->in_points = 0;
    }
    sts_jw_str(w, "status", sts_test_status_name(te->status));
    sts_jw_str(w, "error", te->error);
    sts_jw_u64(w, "elapsed_ns", te->elapsed_ns);
    sts_jw_u64(w, "wall_elapsed_ns", te->wall_ns);
    /* test-level figures sit on the test itself: tests[i].iops */
    for (size_t i = 0; i < te->n_summary; i++)
        sts_jw_kv(w, &te->summary[i]);
    sts_jw_end(w);
    return js_sync(js);
}

static int js_run_end(void *ctx, const struct sts_run_end *re)
{
    struct sts_json_sink *js = ctx;
    struct sts_jw *w = &js->jw;
    sts_jw_end(w); /* tests */
    const char *status = re->interrupted ? "interrupted" : (re->status ? "failed" : "ok");
    sts_jw_str(w, "status", status);
    sts_jw_bool(w, "interrupted", re->interrupted);
    sts_jw_u64(w, "elapsed_ns", re->elapsed_ns);
    sts_jw_u64(w, "tests_ok", re->tests_ok);
    sts_jw_u64(w, "tests_failed", re->tests_failed);
    sts_jw_u64(w, "tests_not_applicable", re->tests_skipped);
#if STS_JSON_AT_END
    if (js->at_end)
        js->at_end(js->at_end_ctx, w);
#endif
    sts_jw_end(w);
    if (w->pretty)
        sts_jw_raw_newline(w);
    return js_sync(js);
}

static const struct sts_sink_ops json_sink_ops = {
    .run_begin = js_run_begin,
    .test_begin = js_test_begin,
    .point = js_point,
    .test_end = js_test_end,
    .run_end = js_run_end,
    .progress = NULL,
};

void sts_json_sink_init(struct sts_json_sink *js, struct sts_sink *sink,
                        int (*write)(void *, const char *, size_t), void *ctx,
                        int (*flush)(void *), int pretty)
{
    sts_jw_init(&js->jw, write, ctx, pretty);
    js->flush = flush;
    js->flush_ctx = ctx;
    js->in_points = 0;
#if STS_JSON_AT_END
    js->at_end = NULL;
    js->at_end_ctx = NULL;
#endif
    sink->ops = &json_sink_ops;
    sink->ctx = js;
}
