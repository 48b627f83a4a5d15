#define _POSIX_C_SOURCE 200809L /* fmemopen */
#include "storscope/output.h"
#include "storscope/json.h"

#include <string.h>

static void csv_close(struct sts_csv_sink *cs)
{
    if (cs->f)
        fclose(cs->f);
    cs->f = NULL;
}

static int csv_test_begin(void *ctx, const struct sts_test_info *ti)
{
    struct sts_csv_sink *cs = ctx;
    char path[4200];
    csv_close(cs);
    snprintf(path, sizeof(path), "%s/%s.csv", cs->dir, ti->id);
    cs->f = fopen(path, "we");
    cs->header_done = 0;
    cs->n_held = 0;
    return cs->f ? 0 : -1;
}

static void field_kv(FILE *f, const struct sts_kv *kv)
{
    char num[32];
    switch (kv->type) {
    case STS_KV_STR: fprintf(f, "%s", kv->v.s ? kv->v.s : ""); break;
    case STS_KV_BOOL: fprintf(f, "%d", kv->v.b); break;
    default:
        sts_fmt_double(num, sts_kv_number(kv));
        fputs(num, f);
        break;
    }
}

/* One param as a CSV field, into buf. */
static void kv_text(char *buf, size_t n, const struct sts_kv *kv)
{
    FILE *m = fmemopen(buf, n, "w");
    buf[0] = '\0';
    if (m) {
        field_kv(m, kv);
        fclose(m);
    }
}

/* The held skipped rows, under the header's param columns, empty in every
 * measured column. */
static void flush_held(struct sts_csv_sink *cs)
{
    for (size_t i = 0; i < cs->n_held; i++) {
        fputs(cs->held[i].name, cs->f);
        for (size_t c = 0; c < cs->n_params; c++) {
            fputc(',', cs->f);
            for (size_t k = 0; k < cs->held[i].n; k++)
                if (!strcmp(cs->held[i].key[k], cs->param[c]))
                    fputs(cs->held[i].val[k], cs->f);
        }
        for (size_t k = 0; k < 5 + cs->n_metrics + 6; k++) /* runs .. lat_max_ns */
            fputc(',', cs->f);
        fprintf(cs->f, ",%s\n", cs->held[i].why);
    }
    cs->n_held = 0;
}

/* Columns when no measured point named them: the first held row's params. */
static void bare_header(struct sts_csv_sink *cs)
{
    fputs("point", cs->f);
    cs->n_params = 0;
    for (size_t k = 0; k < cs->held[0].n; k++) {
        snprintf(cs->param[cs->n_params++], sizeof(cs->param[0]), "%s", cs->held[0].key[k]);
        fprintf(cs->f, ",%s", cs->held[0].key[k]);
    }
    fputs(",runs,mean,sd,min,max,lat_count,lat_mean_ns,lat_p50_ns,lat_p99_ns,lat_p99_99_ns,"
          "lat_max_ns,skipped\n", cs->f);
    cs->n_metrics = 0;
    cs->header_done = 1;
    flush_held(cs);
}

static int csv_point(void *ctx, const struct sts_test_info *ti, const struct sts_point *p)
{
    struct sts_csv_sink *cs = ctx;
    FILE *f = cs->f;
    (void)ti;
    if (!f)
        return 0;
    if (!cs->header_done && p->skipped && cs->n_held < sizeof(cs->held) / sizeof(cs->held[0])) {
        /* a skipped point names no metrics: hold its row for a measured one */
        struct sts_csv_sink *h = cs;
        size_t n = 0;
        snprintf(h->held[h->n_held].name, sizeof(h->held[0].name), "%s", p->name);
        for (size_t i = 0; i < p->n_params && n < 8; i++, n++) {
            snprintf(h->held[h->n_held].key[n], sizeof(h->held[0].key[0]), "%s",
                     p->params[i].key);
            kv_text(h->held[h->n_held].val[n], sizeof(h->held[0].val[0]), &p->params[i]);
        }
        h->held[h->n_held].n = n;
        snprintf(cs->held[cs->n_held++].why, sizeof(cs->held[0].why), "%s", p->skipped);
        return 0;
    }

    if (!cs->header_done) {
        /* columns say what they hold: S2's runs are nanoseconds, not bytes/s */
        const char *rm = p->run_metric ? p->run_metric : "bytes_per_second";
        snprintf(cs->run_metric, sizeof(cs->run_metric), "%s", rm);
        fputs("point", f);
        cs->n_params = 0;
        for (size_t i = 0; i < p->n_params && cs->n_params < 16; i++) {
            snprintf(cs->param[cs->n_params++], sizeof(cs->param[0]), "%s", p->params[i].key);
            fprintf(f, ",%s", p->params[i].key);
        }
        fprintf(f, ",runs,mean_%s,sd_%s,min_%s,max_%s", rm, rm, rm, rm);
        cs->n_metrics = 0;
        for (size_t i = 0; i < p->n_metrics && cs->n_metrics < STS_CSV_MAX_METRICS; i++) {
            snprintf(cs->metric[cs->n_metrics++], sizeof(cs->metric[0]), "%s",
                     p->metrics[i].key);
            fprintf(f, ",%s", p->metrics[i].key);
        }
        fputs(",lat_count,lat_mean_ns,lat_p50_ns,lat_p99_ns,lat_p99_99_ns,lat_max_ns,skipped\n",
              f);
        cs->header_done = 1;
        flush_held(cs);
    }
    fputs(p->name, f);
    for (size_t c = 0; c < cs->n_params; c++) { /* by the header's names */
        const struct sts_kv *kv = sts_kv_find(p->params, p->n_params, cs->param[c]);
        fputc(',', f);
        if (kv)
            field_kv(f, kv);
    }
    char a[32], b[32], c[32], d[32];
    sts_fmt_double(a, p->run_stats.mean);
    sts_fmt_double(b, sts_welford_sd(&p->run_stats));
    if (p->run_stats.n < 2) /* one run: no spread, an empty cell (JSON's null) */
        b[0] = '\0';
    sts_fmt_double(c, p->run_stats.min);
    sts_fmt_double(d, p->run_stats.max);
    fprintf(f, ",%zu,%s,%s,%s,%s", p->n_runs, a, b, c, d);
    for (size_t i = 0; i < cs->n_metrics; i++) { /* by name: points may differ in order */
        const struct sts_kv *kv = sts_kv_find(p->metrics, p->n_metrics, cs->metric[i]);
        fputc(',', f);
        if (kv)
            field_kv(f, kv);
    }
    if (p->n_lat && p->lat[0].lat->w.n) {
        const struct sts_lat *l = p->lat[0].lat;
        sts_fmt_double(a, l->w.mean);
        fprintf(f, ",%llu,%s,%llu,%llu,%llu,%llu", (unsigned long long)l->w.n, a,
                (unsigned long long)sts_hist_percentile(&l->h, 50),
                (unsigned long long)sts_hist_percentile(&l->h, 99),
                (unsigned long long)sts_hist_percentile(&l->h, 99.99),
                (unsigned long long)l->h.max);
    } else {
        fputs(",,,,,,", f);
    }
    fprintf(f, ",%s\n", p->skipped ? p->skipped : "");
    return ferror(f) ? -1 : 0;
}

static int csv_test_end(void *ctx, const struct sts_test_end *te)
{
    (void)te;
    struct sts_csv_sink *cs = ctx;
    if (cs->f && !cs->header_done && cs->n_held)
        bare_header(cs); /* nothing measured */
    int err = cs->f && ferror(cs->f);
    csv_close(cs);
    return err ? -1 : 0;
}

static int csv_run_end(void *ctx, const struct sts_run_end *re)
{
    (void)re;
    csv_close(ctx);
    return 0;
}

static const struct sts_sink_ops csv_ops = {
    .test_begin = csv_test_begin,
    .point = csv_point,
    .test_end = csv_test_end,
    .run_end = csv_run_end,
};

void sts_csv_sink_init(struct sts_csv_sink *cs, struct sts_sink *sink, const char *dir)
{
    memset(cs, 0, sizeof(*cs));
    snprintf(cs->dir, sizeof(cs->dir), "%s", dir);
    sink->ops = &csv_ops;
    sink->ctx = cs;
}
