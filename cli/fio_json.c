/* --fio-json FILE: the fsync result in the shape of fio's JSON output, so
 * tools that read fio (fio_jsonplus_clat2csv, plotting scripts, dashboards)
 * read storscope too. Limits (docs/json-schema.md): write latency includes
 * the flush (storscope times write+flush as one operation, fio times them
 * apart); one job; no disk_util. */
#include "fio_json.h"

#include <stdio.h>
#include <string.h>

#include "storscope/suite.h"

static void lat_block(FILE *f, const char *key, const struct sts_lat *l)
{
    uint64_t pv[STS_PCT_COUNT];
    sts_hist_percentiles(&l->h, sts_default_percentiles, STS_PCT_COUNT, pv);
    fprintf(f, "\"%s\": {\"min\": %llu, \"max\": %llu, \"mean\": %.6f, \"stddev\": %.6f, "
               "\"N\": %llu, \"percentile\": {",
            key, (unsigned long long)(l->w.n ? l->h.min : 0), (unsigned long long)l->h.max,
            l->w.mean, l->w.n > 1 ? sts_welford_sd(&l->w) : 0.0, /* fio's 0 for one */
            (unsigned long long)l->w.n);
    for (size_t i = 0; i < STS_PCT_COUNT; i++)
        fprintf(f, "%s\"%.6f\": %llu", i ? ", " : "", sts_default_percentiles[i],
                (unsigned long long)pv[i]);
    fprintf(f, "}}");
}

static int fj_point(void *ctx, const struct sts_test_info *ti, const struct sts_point *p)
{
    struct cli_fio_json *fj = ctx;
    if (strcmp(ti->id, "fsync") || p->skipped || p->n_lat < 2 || !fj->f)
        return 0;
    double iops = sts_kv_number(sts_kv_find(p->metrics, p->n_metrics, "iops"));
    double bytes = sts_kv_number(sts_kv_find(p->metrics, p->n_metrics, "bytes"));
    double elapsed = sts_kv_number(sts_kv_find(p->metrics, p->n_metrics, "elapsed_ns"));
    double ops = sts_kv_number(sts_kv_find(p->metrics, p->n_metrics, "ops"));
    FILE *f = fj->f;
    fprintf(f, "{\"fio version\": \"storscope-%s\", \"storscope_note\": \"write latencies "
               "include the flush\", \"jobs\": [{\"jobname\": \"fsync\", \"groupid\": 0, "
               "\"error\": 0, \"write\": {",
            STORSCOPE_VERSION);
    fprintf(f, "\"io_bytes\": %.0f, \"io_kbytes\": %.0f, \"bw_bytes\": %.0f, \"bw\": %.0f, "
               "\"iops\": %.6f, \"runtime\": %.0f, \"total_ios\": %.0f, ",
            bytes, bytes / 1024, iops * 4096, iops * 4096 / 1024, iops, elapsed / 1e6, ops);
    lat_block(f, "clat_ns", p->lat[0].lat);
    fputs(", ", f);
    lat_block(f, "lat_ns", p->lat[0].lat);
    fputs("}, \"sync\": {", f);
    fprintf(f, "\"total_ios\": %.0f, ", ops);
    lat_block(f, "lat_ns", p->lat[1].lat);
    fputs("}}]}\n", f);
    fj->written = 1;
    return ferror(f) ? -1 : 0;
}

static const struct sts_sink_ops fio_json_ops = {.point = fj_point};

void cli_fio_json_init(struct cli_fio_json *fj, struct sts_sink *sink, FILE *f)
{
    fj->f = f;
    fj->written = 0;
    sink->ops = &fio_json_ops;
    sink->ctx = fj;
}
