/* report --format openmetrics (issue 48): runs as OpenMetrics text, so a
 * fleet of loggers' storage health can be scraped by Prometheus: compare's
 * headline figures, the filesystem's size and free space, the card's own
 * wear estimate. Families are written whole, one after another, samples
 * of every run inside each (the format asks for a family's samples
 * together); base units as OpenMetrics names them: seconds and bytes. */
#include "cli.h"
#include "json_in.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* a label value: backslash, quote and line feed escaped */
static void label_value(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\' || *s == '"')
            fputc('\\', f);
        if (*s == '\n') {
            fputs("\\n", f);
            continue;
        }
        fputc(*s, f);
    }
}

static const char *str_at(const cJSON *o, const char *a, const char *b)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, a);
    if (b)
        v = cJSON_GetObjectItemCaseSensitive(v, b);
    return cJSON_IsString(v) && v->valuestring ? v->valuestring : "";
}

static const cJSON *identity(const cJSON *doc)
{
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "probe"),
                                            "identity");
}

/* {run="..",target=".."[,extra="value"]} */
static void labels(FILE *f, const char *run, const cJSON *doc, const char *extra,
                   const char *value)
{
    fputs("{run=\"", f);
    label_value(f, run);
    fputs("\",target=\"", f);
    label_value(f, str_at(doc, "run", "target"));
    fputc('"', f);
    if (extra && value) {
        fprintf(f, ",%s=\"", extra);
        label_value(f, value);
        fputc('"', f);
    }
    fputc('}', f);
}

static void family(FILE *f, const char *name, const char *type, const char *unit,
                   const char *help)
{
    fprintf(f, "# TYPE %s %s\n", name, type);
    if (unit)
        fprintf(f, "# UNIT %s %s\n", name, unit);
    fprintf(f, "# HELP %s %s\n", name, help);
}

static void sample(FILE *f, const char *name, const char *run, const cJSON *doc,
                   const char *extra, const char *value, double v)
{
    fputs(name, f);
    labels(f, run, doc, extra, value);
    fprintf(f, " %.15g\n", v);
}

static void runs_info(FILE *f, cJSON *const *docs, const char *const *runs, size_t n)
{
    family(f, "storscope_run", "info", NULL, "The run the samples come from.");
    for (size_t i = 0; i < n; i++) {
        fputs("storscope_run_info", f);
        labels(f, runs[i], docs[i], "card", str_at(identity(docs[i]), "name", NULL));
        fputs(" 1\n", f);
    }
}

/* one family per unit of compare's figures, a sample per figure a run has */
static void figures(FILE *f, cJSON *const *docs, const char *const *runs, size_t n)
{
    static const struct {
        int unit;
        const char *name, *om_unit, *help;
        double scale;
    } fam[] = {
        {FIGURE_BYTES_PER_SECOND, "storscope_throughput_bytes_per_second", "bytes_per_second",
         "A headline throughput, as storscope compare labels it.", 1},
        {FIGURE_NS, "storscope_latency_seconds", "seconds",
         "A headline latency, as storscope compare labels it.", 1e-9},
        {FIGURE_PER_SECOND, "storscope_operations_per_second", NULL,
         "A headline rate of operations (fsync IOPS).", 1},
        {FIGURE_RATIO, "storscope_growth_exponent", NULL,
         "How a cost grows with size: time proportional to n to this power.", 1},
        {FIGURE_BYTES, "storscope_size_bytes", "bytes",
         "A headline size (RAM needed, free space at a threshold).", 1},
    };
    for (size_t u = 0; u < sizeof(fam) / sizeof(fam[0]); u++) {
        int header = 0;
        for (size_t k = 0; k < cli_figure_count(); k++) {
            if (cli_figure_unit(k) != fam[u].unit)
                continue;
            for (size_t i = 0; i < n; i++) {
                double v;
                char text[48];
                if (!cli_figure_get(k, docs[i], &v, text, sizeof(text)) || !isfinite(v))
                    continue;
                if (!header++)
                    family(f, fam[u].name, "gauge", fam[u].om_unit, fam[u].help);
                sample(f, fam[u].name, runs[i], docs[i], "figure", cli_figure_label(k),
                       v * fam[u].scale);
            }
        }
    }
}

/* a number in the environment or the card's identity, by key */
static int env_num(const cJSON *doc, const char *key, double *v)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(doc, "environment"), key);
    if (!cJSON_IsNumber(x))
        return 0;
    *v = x->valuedouble;
    return 1;
}

static int id_num(const cJSON *doc, const char *key, double *v)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(identity(doc), key);
    if (!cJSON_IsNumber(x))
        return 0;
    *v = x->valuedouble;
    return 1;
}

static void health(FILE *f, cJSON *const *docs, const char *const *runs, size_t n)
{
    static const struct {
        int from_identity;
        const char *key, *name, *type, *unit, *help;
    } g[] = {
        {0, "fs_total_bytes", "storscope_filesystem_size_bytes", "gauge", "bytes",
         "The target filesystem's size when the run began."},
        {0, "fs_free_bytes", "storscope_filesystem_free_bytes", "gauge", "bytes",
         "The space free on the target filesystem when the run began."},
        {1, "life_time_est_a", "storscope_card_life_time_estimate_a", "gauge", NULL,
         "The eMMC's own wear estimate of its SLC area: 1 is 0-10 % of its life used, "
         "11 beyond it."},
        {1, "life_time_est_b", "storscope_card_life_time_estimate_b", "gauge", NULL,
         "The eMMC's own wear estimate of its MLC area, as the _a one."},
        {1, "pre_eol_info", "storscope_card_pre_eol_info", "gauge", NULL,
         "The eMMC's reserved blocks: 1 normal, 2 warning, 3 urgent."},
    };
    for (size_t k = 0; k < sizeof(g) / sizeof(g[0]); k++) {
        int header = 0;
        for (size_t i = 0; i < n; i++) {
            double v;
            if (!(g[k].from_identity ? id_num(docs[i], g[k].key, &v)
                                     : env_num(docs[i], g[k].key, &v)))
                continue;
            if (!header++)
                family(f, g[k].name, g[k].type, g[k].unit, g[k].help);
            sample(f, g[k].name, runs[i], docs[i], NULL, NULL, v);
        }
    }
    family(f, "storscope_tests", "gauge", NULL, "The run's tests by how they ended.");
    for (size_t i = 0; i < n; i++) {
        static const char *const ends[][2] = {{"tests_ok", "ok"}, {"tests_failed", "failed"},
                                              {"tests_not_applicable", "not applicable"}};
        for (size_t e = 0; e < 3; e++)
            sample(f, "storscope_tests", runs[i], docs[i], "result", ends[e][1],
                   cli_num(docs[i], ends[e][0]));
    }
}

void cli_openmetrics(FILE *f, cJSON *const *docs, const char *const *runs, size_t n)
{
    runs_info(f, docs, runs, n);
    figures(f, docs, runs, n);
    health(f, docs, runs, n);
    fputs("# EOF\n", f);
}
