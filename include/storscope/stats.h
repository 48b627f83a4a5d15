/* Streaming statistics: Welford moments and a log-linear latency histogram.
 * Neither allocates: the histogram's bucket storage comes from the caller, so
 * an MCU build can pick a coarser resolution and place the buckets itself. */
#ifndef STORSCOPE_STATS_H
#define STORSCOPE_STATS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Welford: count, mean, sample standard deviation, min, max ---------- */
struct sts_welford {
    uint64_t n;
    double mean;
    double m2;   /* sum of squared deviations from the running mean */
    double min;
    double max;
};

void sts_welford_init(struct sts_welford *w);
void sts_welford_add(struct sts_welford *w, double x);
/* Sample standard deviation (divides by n - 1); 0 when n < 2. */
double sts_welford_sd(const struct sts_welford *w);

/* ---- Log-linear histogram ------------------------------------------------
 * Values below 2^(sub_bits+1) each get their own bucket (exact). Above that,
 * every power of two [2^e, 2^(e+1)) is split into 2^sub_bits equal buckets,
 * so a bucket is at most 1/2^sub_bits of its lower bound wide, and reporting
 * its midpoint is off by at most 1/2^(sub_bits+1) of the true value.
 *
 * Default (STS_HIST_SUB_BITS 6, STS_HIST_MAX_EXP 40): 2240 buckets (17.5 KiB
 * of uint64_t), relative error <= 0.79 % for every value from 0 to 2^40 ns
 * (about 18 minutes) - well beyond the required 100 ns .. 60 s. Values at or
 * above 2^max_exp land in the last bucket and are reported as the exact max.
 * An MCU build may choose e.g. sub_bits 4 (<= 3.2 % error, 544 buckets for
 * max_exp 36). */
#ifndef STS_HIST_SUB_BITS
#define STS_HIST_SUB_BITS 6
#endif
#ifndef STS_HIST_MAX_EXP
#define STS_HIST_MAX_EXP 40
#endif
#define STS_HIST_BUCKETS_FOR(sub_bits, max_exp) \
    ((2u << (sub_bits)) + ((max_exp) - (sub_bits) - 1u) * (1u << (sub_bits)))
#define STS_HIST_BUCKETS STS_HIST_BUCKETS_FOR(STS_HIST_SUB_BITS, STS_HIST_MAX_EXP)

struct sts_hist {
    uint64_t *counts;     /* caller-provided, n_buckets entries */
    uint32_t n_buckets;
    uint8_t sub_bits;     /* resolution: 2^sub_bits buckets per power of two */
    uint8_t max_exp;      /* range: values up to 2^max_exp are resolved */
    uint64_t total;       /* samples recorded */
    uint64_t min;         /* exact smallest sample */
    uint64_t max;         /* exact largest sample */
};

/* Returns STS_EINVAL for an impossible geometry, STS_ENOMEM when n_storage
 * is smaller than STS_HIST_BUCKETS_FOR(sub_bits, max_exp). */
int sts_hist_init(struct sts_hist *h, uint64_t *storage, size_t n_storage,
                  unsigned sub_bits, unsigned max_exp);
void sts_hist_reset(struct sts_hist *h);
void sts_hist_record(struct sts_hist *h, uint64_t v);
/* Nearest-rank percentiles: pct[] ascending in [0, 100], out[] gets the
 * bucket midpoint clamped to [min, max]. 0 when the histogram is empty. */
void sts_hist_percentiles(const struct sts_hist *h, const double *pct,
                          size_t n, uint64_t *out);
/* The nearest rank (1-based) of percentile pct among n samples, computed
 * exactly for percentiles given to 1e-4 %. */
uint64_t sts_pct_rank(double pct, uint64_t n);
uint64_t sts_hist_percentile(const struct sts_hist *h, double pct);
/* The distribution in coarse bins of 2^bin_bits per power of two (the bars
 * of a figure): lo[] gets each non-empty bin's lower bound, ascending,
 * count[] its samples. Returns the number of bins (at most max; when more
 * are needed the last one takes the rest). */
size_t sts_hist_bins(const struct sts_hist *h, unsigned bin_bits, uint64_t *lo, uint64_t *count,
                     size_t max);
/* Upper bound of the relative error of a reported percentile. */
double sts_hist_relative_error(const struct sts_hist *h);

/* ---- Latency recorder: moments and distribution of one kind of operation */
struct sts_lat {
    struct sts_welford w;
    struct sts_hist h;
    uint64_t max_at; /* which sample (1-based) was the largest: when the worst came */
};

static inline void sts_lat_record(struct sts_lat *l, uint64_t ns)
{
    if (!l->w.n || ns > l->h.max)
        l->max_at = l->w.n + 1;
    sts_welford_add(&l->w, (double)ns);
    sts_hist_record(&l->h, ns);
}

/* fio's default percentile list, used by every latency report. */
#define STS_PCT_COUNT 17
extern const double sts_default_percentiles[STS_PCT_COUNT];

#ifdef __cplusplus
}
#endif
#endif
