/* Reading results files (cJSON): shared by report and compare. */
#include "json_in.h"
#include "storscope/units.h"
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        char *more = realloc(buf, cap * 2 + 1);
        if (!more) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = more;
        cap *= 2;
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    *len = n;
    return buf;
}

static int shape_violation(const cJSON *doc, char *msg, size_t n);

/* How deep [ and { nest at byte off of text (strings skipped): cJSON stops
 * at CJSON_NESTING_LIMIT, which is no syntax error. */
static long nesting_at(const char *text, long off)
{
    long depth = 0;
    int in_string = 0;
    for (long i = 0; i < off; i++) {
        char c = text[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = 0;
        } else if (c == '"') {
            in_string = 1;
        } else if (c == '[' || c == '{') {
            depth++;
        } else if (c == ']' || c == '}') {
            depth--;
        }
    }
    return depth;
}

cJSON *cli_load_json(const char *path)
{
    size_t len = 0;
    struct stat st;
    if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
        cli_error("%s is a directory, not a results file", path);
        return NULL;
    }
    errno = 0;
    char *text = slurp(path, &len);
    if (!text) {
        cli_error("cannot read %s: %s", path, errno ? strerror(errno) : "out of memory");
        return NULL;
    }
    const char *nul = memchr(text, '\0', len);
    if (nul) { /* cJSON would stop there and take the rest for the end */
        cli_error("%s is not valid JSON (a NUL byte at byte %ld)", path, (long)(nul - text));
        free(text);
        return NULL;
    }
    cJSON *doc = cJSON_ParseWithLength(text, len);
    if (!doc) {
        const char *at = cJSON_GetErrorPtr();
        long off = at && at >= text && at <= text + len ? (long)(at - text) : -1;
        if (off > 0 && nesting_at(text, off) >= CJSON_NESTING_LIMIT)
            cli_error("%s nests arrays or objects deeper than %d levels (at byte %ld): "
                      "not a results file, which is a few levels deep", path,
                      CJSON_NESTING_LIMIT, off);
        else
            cli_error("%s is not valid JSON (%s at byte %ld)", path,
                      off >= (long)len - 1 ? "truncated" : "syntax error", off);
        free(text);
        return NULL;
    }
    free(text);
    return doc;
}

cJSON *cli_load_results(const char *path)
{
    cJSON *doc = cli_load_json(path);
    if (!doc)
        return NULL;
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, "storscope-result/1")) {
        cli_error("%s is not a storscope-result/1 document", path);
        cJSON_Delete(doc);
        return NULL;
    }
    char why[320];
    if (shape_violation(doc, why, sizeof(why))) {
        cli_error("%s: %s (docs/storscope-result.schema.json)", path, why);
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}

/* ---- the shape replay relies on ------------------------------------------ */
static const char *type_name(const cJSON *v)
{
    return cJSON_IsArray(v) ? "an array" : cJSON_IsObject(v) ? "an object"
           : cJSON_IsString(v) ? "a string" : cJSON_IsNumber(v) ? "a number"
           : cJSON_IsBool(v) ? "a boolean" : "null";
}

/* Where the first violation is (into at) and what it is (returned), or
 * NULL when v, at path `at`, is absent or an object (want_object) / array. */
static const char *kind_at(const cJSON *v, int want_object, char *at, size_t n, const char *path)
{
    if (!v || (want_object ? cJSON_IsObject(v) : cJSON_IsArray(v)))
        return NULL;
    snprintf(at, n, "%s", path);
    return want_object ? "an object" : "an array";
}

/* Every number in an object of numbers (params, metrics, runs, a test's
 * summary) finite, chunk_bytes at least 1; 1 and the violation said in msg
 * when one is not. */
static int numbers_at(const cJSON *obj, char *msg, size_t n, const char *path)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, obj)
    {
        if (!cJSON_IsNumber(it))
            continue;
        if (!isfinite(it->valuedouble))
            return snprintf(msg, n, "%s.%s is not a finite number", path, it->string), 1;
        if (!strcmp(it->string, "chunk_bytes") && it->valuedouble < 1)
            return snprintf(msg, n, "%s.%s is 0: a chunk holds a byte at least", path,
                            it->string),
                   1;
    }
    return 0;
}

/* The first place doc departs from the shape the readers rely on (the
 * parts of docs/storscope-result.schema.json they read), said in words
 * into msg; 0 when none does. A crash (metrics an array), an infinite
 * loop (1e400) or a guideline for chunks of 0 B came from such files. */
static int shape_violation(const cJSON *doc, char *msg, size_t n)
{
    char at[256], p[160];
    const char *want = NULL;
    const cJSON *tests = cJSON_GetObjectItemCaseSensitive(doc, "tests"), *bad = tests;
    /* (the first four hold numbers only; "device": a model's counters) */
    static const char *const objects[] = {"params", "metrics", "runs", "device", "latency"};
    if ((want = kind_at(tests, 0, at, sizeof(at), "tests")))
        goto shape;
    int ti = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, tests)
    {
        snprintf(p, sizeof(p), "tests[%d]", ti);
        bad = t;
        if ((want = kind_at(t, 1, at, sizeof(at), p)))
            goto shape;
        if (numbers_at(t, msg, n, p)) /* its summary figures */
            return 1;
        snprintf(p, sizeof(p), "tests[%d].points", ti);
        const cJSON *points = cJSON_GetObjectItemCaseSensitive(t, "points");
        bad = points;
        if ((want = kind_at(points, 0, at, sizeof(at), p)))
            goto shape;
        int pi = 0;
        const cJSON *pt;
        cJSON_ArrayForEach(pt, points)
        {
            snprintf(p, sizeof(p), "tests[%d].points[%d]", ti, pi);
            bad = pt;
            if ((want = kind_at(pt, 1, at, sizeof(at), p)))
                goto shape;
            for (size_t k = 0; k < sizeof(objects) / sizeof(objects[0]); k++) {
                char q[200];
                snprintf(q, sizeof(q), "%s.%s", p, objects[k]);
                bad = cJSON_GetObjectItemCaseSensitive(pt, objects[k]);
                if ((want = kind_at(bad, 1, at, sizeof(at), q)))
                    goto shape;
                if (k < 4 && numbers_at(bad, msg, n, q))
                    return 1;
            }
            pi++;
        }
        ti++;
    }
    return 0;
shape:
    snprintf(msg, n, "%s is %s, not %s", at, type_name(bad), want);
    return 1;
}

int cli_load_probe(const char *path, struct sts_an_input *in, char *target, size_t target_len)
{
    cJSON *doc = cli_load_results(path);
    if (!doc)
        return -1;
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "run"),
                                                      "target");
    snprintf(target, target_len, "%s", cJSON_IsString(t) ? t->valuestring : "");
    const cJSON *probe = cJSON_GetObjectItemCaseSensitive(doc, "probe");
    if (!cJSON_IsObject(probe)) {
        cli_error("%s has no probe section (make one with: storscope probe TARGET -o FILE)", path);
        cJSON_Delete(doc);
        return -1;
    }
    /* only what the probe measured, as its own guidelines take it */
    const cJSON *timing = cJSON_GetObjectItemCaseSensitive(probe, "read_timing");
    const cJSON *aus = cJSON_GetObjectItemCaseSensitive(probe, "open_aus");
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(aus, "status");
    const cJSON *limited = cJSON_GetObjectItemCaseSensitive(aus, "limited");
    const cJSON *visible = cJSON_GetObjectItemCaseSensitive(timing, "visible");
    if (cJSON_IsString(st) && !strcmp(st->valuestring, "ok") && cJSON_IsTrue(limited)) {
        in->probe_open_aus = (uint32_t)cli_num(aus, "open_aus");
        in->probe_au_bytes = (uint64_t)cli_num(aus, "au_bytes");
    }
    if (cJSON_IsTrue(visible)) {
        in->probe_page_bytes = (uint64_t)cli_num(timing, "page_bytes");
        if (!in->probe_au_bytes)
            in->probe_au_bytes = (uint64_t)cli_num(timing, "unit_bytes");
    }
    cJSON_Delete(doc);
    return 0;
}

void cli_probe_apply(struct sts_an_input *to, const struct sts_an_input *probe)
{
    to->probe_page_bytes = probe->probe_page_bytes;
    to->probe_au_bytes = probe->probe_au_bytes;
    to->probe_open_aus = probe->probe_open_aus;
}

void cli_probe_target_check(const char *probed, const char *target)
{
    if (probed[0] && target && strcmp(probed, target))
        fprintf(stderr, "storscope: warning: the probe file describes %s, these results %s: "
                        "its answers are applied as given\n", probed, target);
}

double cli_num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0.0;
}

const cJSON *cli_test(const cJSON *doc, const char *id)
{
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(doc, "tests"))
    {
        const cJSON *tid = cJSON_GetObjectItemCaseSensitive(t, "id");
        if (cJSON_IsString(tid) && !strcmp(tid->valuestring, id))
            return t;
    }
    return NULL;
}

/* ---- replay: a saved run through a sink, as if it were running ---------- */
#define REPLAY_MAX_KV 64

/* Numbers, booleans and strings of an object as key/value pairs pointing
 * into the document (valid while it lives). */
static size_t kv_from(const cJSON *obj, struct sts_kv *kv, size_t max, const char *const *skip)
{
    size_t n = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, obj)
    {
        int skipped = 0;
        for (const char *const *s = skip; s && *s; s++)
            skipped |= !strcmp(*s, it->string);
        if (skipped || n == max)
            continue;
        if (cJSON_IsBool(it))
            kv[n++] = STS_KV_B(it->string, cJSON_IsTrue(it));
        else if (cJSON_IsNumber(it))
            kv[n++] = STS_KV_D(it->string, it->valuedouble);
        else if (cJSON_IsString(it))
            kv[n++] = STS_KV_S(it->string, it->valuestring);
    }
    return n;
}

static enum sts_test_status status_from(const cJSON *t)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(t, "status");
    static const char *const names[] = {"ok", "failed", "interrupted", "not_applicable"};
    for (int i = 0; cJSON_IsString(s) && i < 4; i++)
        if (!strcmp(s->valuestring, names[i]))
            return (enum sts_test_status)i;
    return STS_TEST_FAILED;
}

/* Points carry their runs' mean (not the values' statistics beyond it) and
 * no latency histograms: consumers that need percentiles read the JSON. */
void cli_replay(const cJSON *doc, const struct sts_sink *sink)
{
    static const char *const test_fields[] = {"id", "title", "params", "points", "status",
                                              "error", "elapsed_ns", "wall_elapsed_ns", NULL};
    static struct sts_kv test_params[REPLAY_MAX_KV], params[REPLAY_MAX_KV],
        metrics[REPLAY_MAX_KV], summary[REPLAY_MAX_KV], counters[REPLAY_MAX_KV];
    const cJSON *run = cJSON_GetObjectItemCaseSensitive(doc, "run");
    const cJSON *target = cJSON_GetObjectItemCaseSensitive(run, "target");
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(run, "target_kind");
    const cJSON *envj = cJSON_GetObjectItemCaseSensitive(doc, "environment");
    const cJSON *clock = cJSON_GetObjectItemCaseSensitive(envj, "clock");
    const cJSON *device = cJSON_GetObjectItemCaseSensitive(envj, "device");
    const cJSON *noisy = cJSON_GetObjectItemCaseSensitive(envj, "sim_noisy");
    const cJSON *dip = cJSON_GetObjectItemCaseSensitive(envj, "sim_dip_bytes");
    /* what the analysis reads of the environment: the clock (virtual time
     * is exact, unless the model was made noisy), the device (a RAM disk
     * has no medium to advise about) and the size a model was made to dip at */
    struct sts_kv env[] = {STS_KV_S("clock", cJSON_IsString(clock) ? clock->valuestring : ""),
                           STS_KV_S("device", cJSON_IsString(device) ? device->valuestring : ""),
                           STS_KV_B("sim_noisy", cJSON_IsTrue(noisy)),
                           STS_KV_U("sim_dip_bytes",
                                    cJSON_IsNumber(dip) ? sts_d2u64(dip->valuedouble) : 0)};
    struct sts_run_info ri = {.target = cJSON_IsString(target) ? target->valuestring : "",
                              .target_kind = cJSON_IsString(kind) ? kind->valuestring : "",
                              .env = env,
                              .n_env = sizeof(env) / sizeof(env[0])};
    if (sink->ops->run_begin)
        sink->ops->run_begin(sink->ctx, &ri);
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(doc, "tests"))
    {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(t, "id");
        const cJSON *title = cJSON_GetObjectItemCaseSensitive(t, "title");
        if (!cJSON_IsString(id))
            continue;
        struct sts_test_info ti = {id->valuestring,
                                   cJSON_IsString(title) ? title->valuestring : "", test_params,
                                   kv_from(cJSON_GetObjectItemCaseSensitive(t, "params"),
                                           test_params, REPLAY_MAX_KV, NULL)};
        if (sink->ops->test_begin)
            sink->ops->test_begin(sink->ctx, &ti);
        const cJSON *p;
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(t, "points"))
        {
            const cJSON *name = cJSON_GetObjectItemCaseSensitive(p, "name");
            const cJSON *skipped = cJSON_GetObjectItemCaseSensitive(p, "skipped");
            const cJSON *runs = cJSON_GetObjectItemCaseSensitive(p, "runs");
            struct sts_point pt = {
                .name = cJSON_IsString(name) ? name->valuestring : "",
                .params = params,
                .n_params = kv_from(cJSON_GetObjectItemCaseSensitive(p, "params"), params,
                                    REPLAY_MAX_KV, NULL),
                .metrics = metrics,
                .n_metrics = kv_from(cJSON_GetObjectItemCaseSensitive(p, "metrics"), metrics,
                                     REPLAY_MAX_KV, NULL),
                .skipped = cJSON_IsString(skipped) ? skipped->valuestring : NULL,
                /* what the medium did meanwhile: a dip during its garbage
                 * collection is not a size to avoid */
                .device = counters,
                .n_device = kv_from(cJSON_GetObjectItemCaseSensitive(p, "device"), counters,
                                    REPLAY_MAX_KV, NULL),
            };
            const cJSON *metric = cJSON_GetObjectItemCaseSensitive(runs, "metric");
            pt.run_metric = cJSON_IsString(metric) ? metric->valuestring : NULL;
            sts_welford_init(&pt.run_stats);
            pt.run_stats.n = sts_d2u64(cli_num(runs, "n"));
            pt.run_stats.mean = cli_num(runs, "mean");
            double sd = cli_num(runs, "sd");
            if (pt.run_stats.n >= 2 && isfinite(sd))
                pt.run_stats.m2 = sd * sd * (double)(pt.run_stats.n - 1);
            /* the first latency's moments (its histogram is not replayed:
             * h.total stays 0, and readers of percentiles must look at it) */
            static struct sts_lat lat;
            static struct sts_lat_report lat_report = {.name = "", .lat = &lat};
            const cJSON *lats = cJSON_GetObjectItemCaseSensitive(p, "latency");
            const cJSON *l0 = lats ? lats->child : NULL;
            memset(&lat, 0, sizeof(lat));
            if (cJSON_IsObject(l0)) {
                lat.w.n = sts_d2u64(cli_num(l0, "count"));
                lat.w.mean = cli_num(l0, "mean_ns");
                double lsd = cli_num(l0, "sd_ns");
                if (lat.w.n >= 2 && isfinite(lsd))
                    lat.w.m2 = lsd * lsd * (double)(lat.w.n - 1);
                lat_report.name = l0->string;
                const cJSON *pct = cJSON_GetObjectItemCaseSensitive(l0, "percentiles_ns");
                lat_report.p50_ns = cli_num(pct, "50");
                lat_report.p99_ns = cli_num(pct, "99");
                pt.lat = &lat_report;
                pt.n_lat = 1;
            }
            if (sink->ops->point)
                sink->ops->point(sink->ctx, &ti, &pt);
        }
        const cJSON *err = cJSON_GetObjectItemCaseSensitive(t, "error");
        struct sts_test_end te = {
            .id = id->valuestring,
            .status = status_from(t),
            .error = cJSON_IsString(err) ? err->valuestring : NULL,
            .summary = summary,
            .n_summary = kv_from(t, summary, REPLAY_MAX_KV, test_fields),
            .elapsed_ns = sts_d2u64(cli_num(t, "elapsed_ns")),
        };
        if (sink->ops->test_end)
            sink->ops->test_end(sink->ctx, &te);
    }
}
