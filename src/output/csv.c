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

static int csv_point(void *ctx, const struct sts_test_info *ti, const struct sts_point *p)
{
    struct sts_csv_sink *cs = ctx;
    FILE *f = cs->f;
    (void)ti;
    if (!f)
        return 0;
    if (!cs->header_done) {
        fputs("point", f);
        for (size_t i = 0; i < p->n_params; i++)
            fprintf(f, ",%s", p->params[i].key);
        fputs(",runs,mean_bytes_per_second,sd_bytes_per_second,min_bytes_per_second,"
              "max_bytes_per_second,lat_count,lat_mean_ns,lat_p50_ns,lat_p99_ns,"
              "lat_p99_99_ns,lat_max_ns,skipped\n", f);
        cs->header_done = 1;
    }
    fputs(p->name, f);
    for (size_t i = 0; i < p->n_params; i++) {
        fputc(',', f);
        field_kv(f, &p->params[i]);
    }
    char a[32], b[32], c[32], d[32];
    sts_fmt_double(a, p->run_stats.mean);
    sts_fmt_double(b, sts_welford_sd(&p->run_stats));
    sts_fmt_double(c, p->run_stats.min);
    sts_fmt_double(d, p->run_stats.max);
    fprintf(f, ",%zu,%s,%s,%s,%s", p->n_runs, a, b, c, d);
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
