/* storscope fit: what it fits from and what it leaves - the measured
 * points of a results file and its base profile, a probe's answers, and
 * the profile file it saves (fit.c fits). */
#define _POSIX_C_SOURCE 200809L
#include "fit.h"
#include "cli.h"
#include "json_in.h"
#include "storscope/analysis.h"
#include "storscope/sim.h"
#include "storscope/units.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- the measurements --------------------------------------------------- */
static void add_points(struct fit_data *d, const cJSON *doc, const char *test)
{
    const cJSON *t = cli_test(doc, test), *p;
    if (!t)
        return;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(t, "points"))
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(p, "name");
        const cJSON *runs = cJSON_GetObjectItemCaseSensitive(p, "runs");
        double chunk = cli_num(cJSON_GetObjectItemCaseSensitive(p, "params"), "chunk_bytes");
        double bps = cli_num(runs, "mean");
        if (!cJSON_IsString(name) || !runs || !(chunk >= 1) || !(bps > 0) || !isfinite(bps) ||
            d->n == FIT_MAX_POINTS)
            continue;
        struct fit_point *x = &d->pt[d->n++];
        sts_strlcpy(x->test, test, sizeof(x->test));
        sts_strlcpy(x->op, name->valuestring, sizeof(x->op));
        x->chunk = chunk;
        x->bps = bps;
    }
}

static size_t count(const struct fit_data *d, const char *test, const char *op)
{
    size_t n = 0;
    for (size_t i = 0; i < d->n; i++)
        n += !strcmp(d->pt[i].test, test) && (!op || !strcmp(d->pt[i].op, op));
    return n;
}

/* The base the results imply: a sim: target's profile, else by the card
 * the environment names (SD or MMC), else the study's eMMC. */
static void implied_base(const cJSON *doc, struct fit_data *d)
{
    const cJSON *run = cJSON_GetObjectItemCaseSensitive(doc, "run");
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(doc, "environment");
    const cJSON *target = cJSON_GetObjectItemCaseSensitive(run, "target");
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(env, "device_type");
    sts_strlcpy(d->base, "emmc-stm32u5", sizeof(d->base));
    if (cJSON_IsString(target) && !strncmp(target->valuestring, "sim:", 4)) {
        char name[32];
        sts_strlcpy(name, target->valuestring + 4, sizeof(name));
        name[strcspn(name, ",+")] = '\0';
        if (sts_sim_profile_find(name))
            sts_strlcpy(d->base, name, sizeof(d->base));
    } else if (cJSON_IsString(type)) {
        if (!strcmp(type->valuestring, "SD"))
            sts_strlcpy(d->base, "sd-consumer", sizeof(d->base));
        else if (!strcmp(type->valuestring, "MMC"))
            sts_strlcpy(d->base, "emmc-industrial", sizeof(d->base));
    }
}

/* a sim: target's capacity= (the model must be as large as the volume the
 * results' files needed), else "" */
static void sim_capacity(const char *target, char *out, size_t n)
{
    out[0] = '\0';
    const char *c = strncmp(target, "sim:", 4) ? NULL : strstr(target, ",capacity=");
    if (c) {
        c += 10;
        size_t len = strcspn(c, ",+");
        if (len + 1 <= n) {
            memcpy(out, c, len);
            out[len] = '\0';
        }
    }
}

int fit_load(const char *results, const char *base, struct fit_data *d, char *err, size_t n)
{
    memset(d, 0, sizeof(*d));
    err[0] = '\0';
    cJSON *doc = cli_load_results(results); /* (it says what is wrong) */
    if (!doc)
        return -1;
    const cJSON *run = cJSON_GetObjectItemCaseSensitive(doc, "run");
    const cJSON *target = cJSON_GetObjectItemCaseSensitive(run, "target");
    const cJSON *scale = cJSON_GetObjectItemCaseSensitive(run, "scale");
    sts_strlcpy(d->target, cJSON_IsString(target) ? target->valuestring : "?", sizeof(d->target));
    sts_strlcpy(d->scale, cJSON_IsString(scale) && !strcmp(scale->valuestring, "full") ? "full"
                                                                                          : "quick",
                sizeof(d->scale));
    add_points(d, doc, "B2");
    add_points(d, doc, "B0");
    add_points(d, doc, "M1");
    implied_base(doc, d);
    cJSON_Delete(doc);
    if (base)
        sts_strlcpy(d->base, base, sizeof(d->base));
    const struct sts_sim_params *b = sts_sim_profile_find(d->base);
    if (!b) {
        snprintf(err, n, "no profile '%s' to start from (storscope list devices)", d->base);
        return -1;
    }
    if (!b->managed) {
        snprintf(err, n, "%s is raw flash: fit models managed media (cards, eMMC, SSDs), whose "
                         "reads and writes go through a controller; give --base one of those",
                 d->base);
        return -1;
    }
    if (count(d, "B2", "read") < 4 || count(d, "B2", "write") < 4) {
        snprintf(err, n, "%s has no B2 reads and writes (at least 4 sizes each) to fit: "
                         "measure with `storscope run --suite paper` or --tests B2",
                 results);
        return -1;
    }
    snprintf(d->tests, sizeof(d->tests), "B2%s%s", count(d, "B0", NULL) ? ",B0" : "",
             count(d, "M1", NULL) ? ",M1" : "");
    sim_capacity(d->target, d->capacity, sizeof(d->capacity));
    return 0;
}

int fit_load_probe(const char *probe, struct fit_data *d, char *err, size_t n)
{
    static struct sts_an_input in; /* (large: the analysis's whole input) */
    char target[256];
    memset(&in, 0, sizeof(in));
    err[0] = '\0';
    if (cli_load_probe(probe, &in, target, sizeof(target))) /* (it says why) */
        return -1;
    char o[96] = "", v[48];
    if (in.probe_page_bytes >= 512 && in.probe_page_bytes <= 1u << 20) {
        snprintf(v, sizeof(v), ",page_bytes=%llu", (unsigned long long)in.probe_page_bytes);
        sts_strlcat(o, v, sizeof(o));
    }
    if (in.probe_au_bytes >= 512) {
        snprintf(v, sizeof(v), ",au=%llu", (unsigned long long)in.probe_au_bytes);
        sts_strlcat(o, v, sizeof(o));
    }
    if (in.probe_open_aus) {
        snprintf(v, sizeof(v), ",open_aus=%u", (unsigned)in.probe_open_aus);
        sts_strlcat(o, v, sizeof(o));
    }
    if (!o[0]) {
        snprintf(err, n, "%s measured no page, allocation unit or open-AU limit to use", probe);
        return -1;
    }
    sts_strlcpy(d->probe_opts, o, sizeof(d->probe_opts));
    return 0;
}

int fit_write_profile(const char *path, const struct fit_data *d, const struct fit_out *o,
                      char *err, size_t n)
{
    FILE *f = fopen(path, "we");
    if (!f) {
        snprintf(err, n, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    fprintf(f, "# storscope fit of %s (scale %s): a model of that device, within %.1f %% (rms)\n"
               "# of its %zu points; use it as sim:@%s\n",
            d->target, d->scale, o->rms_pct, d->n, path);
    fprintf(f, "base=%s\n", d->base);
    if (d->capacity[0])
        fprintf(f, "capacity=%s\n", d->capacity);
    for (const char *s = d->probe_opts; *s == ',';) { /* the probe's, a line each */
        size_t len = strcspn(s + 1, ",");
        fprintf(f, "%.*s\n", (int)len, s + 1);
        s += 1 + len;
    }
    for (size_t i = 0; i < o->n; i++)
        if (o->p[i].fitted)
            fprintf(f, "%s=%.0f%s\n", o->p[i].key, o->p[i].value < 0 ? 0 : o->p[i].value,
                    o->p[i].is_time ? "ns" : "");
    if (fclose(f)) {
        snprintf(err, n, "cannot write %s: %s", path, strerror(errno));
        remove(path);
        return -1;
    }
    return 0;
}
