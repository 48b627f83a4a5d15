/* What the analysis tests share (test_analysis.c, test_an_*.c): series made
 * from figures in kB/s, the study's curves, and a look into an analysis's
 * guidelines or findings. */
#ifndef STS_TEST_AN_FIXTURE_H
#define STS_TEST_AN_FIXTURE_H

#include "storscope/analysis.h"
#include "storscope/suite.h"

#include <stdint.h>
#include <string.h>

/* s: n points of `test` from kbps (kB/s), chunks first_chunk doubling */
static inline void fill(struct sts_series *s, const char *test, const double *kbps, uint32_t n,
                        uint64_t first_chunk)
{
    memset(s, 0, sizeof(*s));
    strcpy(s->test, test);
    for (uint32_t i = 0; i < n; i++) {
        s->chunk[i] = first_chunk << i;
        s->bps[i] = kbps[i] * 1000.0;
    }
    s->n = n;
}

/* B0-like: steep until 512 B, flat after (the study's read curve: 150 -> 4050 kB/s) */
static const double b0_read[] = {150, 216, 311, 448, 645, 929, 1338, 1927, 2775, 4000, 4050};
/* B2-like reads: rising to a plateau from 64 KiB (chunks 1 KiB .. 2 MiB) */
static const double b2_read[] = {1500, 2800, 5000, 7600, 10000, 12000, 13800, 14000, 14100,
                                 13900, 14000, 14050};
/* B2-like writes with a dip at 128 KiB */
static const double b2_write[] = {800, 1500, 2600, 4000, 5200, 6200, 6800, 4700, 6900, 7000,
                                  7000, 7050};

/* 1 when an has a guideline whose text holds `what`, or (finding) a finding */
static inline int has(const struct sts_analysis *an, int finding, const char *what)
{
    size_t n = finding ? an->n_findings : an->n_guidelines;
    for (size_t i = 0; i < n; i++)
        if (strstr((finding ? an->finding : an->guideline)[i].text, what))
            return 1;
    return 0;
}

/* Feeds a point to the collector as a run would. */
static inline void feed(struct sts_sink *sink, const struct sts_test_info *ti, const char *name,
                        const struct sts_kv *params, size_t np, const struct sts_kv *metrics,
                        size_t nm)
{
    struct sts_point p = {.name = name, .params = params, .n_params = np, .metrics = metrics,
                          .n_metrics = nm};
    sink->ops->point(sink->ctx, ti, &p);
}

/* One M2 lifecycle point, as M2 emits it, into a collector. */
static inline void feed_lifecycle(struct sts_sink *sink, int k, double create_ns,
                                  double open_max_ns, uint64_t free_mib, uint64_t t_ns)
{
    struct sts_kv tp[] = {STS_KV_U("threshold_ns", 200000000)};
    struct sts_test_info ti = {"M2", "", tp, 1};
    struct sts_kv params[] = {STS_KV_U("lifecycle", k)};
    struct sts_kv metrics[] = {STS_KV_D("create_ns", create_ns),
                               STS_KV_D("open_max_ns", open_max_ns),
                               STS_KV_U("free_bytes", free_mib << 20),
                               STS_KV_U("total_bytes", 1000ull << 20), STS_KV_U("t_ns", t_ns),
                               STS_KV_U("files", 3 * (uint64_t)k)};
    feed(sink, &ti, "lifecycle", params, 1, metrics, 6);
}

#endif
