#include "storscope/error.h"
#include "storscope/stats.h"

#include <string.h>

const double sts_default_percentiles[STS_PCT_COUNT] = {
    1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99,
};

int sts_hist_init(struct sts_hist *h, uint64_t *storage, size_t n_storage,
                  unsigned sub_bits, unsigned max_exp)
{
    if (sub_bits < 1 || sub_bits > 12 || max_exp <= sub_bits + 1 || max_exp > 63)
        return STS_EINVAL;
    size_t need = STS_HIST_BUCKETS_FOR(sub_bits, max_exp);
    if (!storage || n_storage < need)
        return STS_ENOMEM;
    h->counts = storage;
    h->n_buckets = (uint32_t)need;
    h->sub_bits = (uint8_t)sub_bits;
    h->max_exp = (uint8_t)max_exp;
    sts_hist_reset(h);
    return STS_OK;
}

void sts_hist_reset(struct sts_hist *h)
{
    memset(h->counts, 0, h->n_buckets * sizeof(h->counts[0]));
    h->total = 0;
    h->min = UINT64_MAX;
    h->max = 0;
}

static inline unsigned floor_log2(uint64_t v)
{
    return 63u - (unsigned)__builtin_clzll(v);
}

static uint32_t bucket_of(const struct sts_hist *h, uint64_t v)
{
    unsigned sb = h->sub_bits;
    if (v < (2ull << sb))
        return (uint32_t)v;
    if (v >> h->max_exp)
        return h->n_buckets - 1;
    unsigned e = floor_log2(v);
    unsigned shift = e - sb;
    uint64_t mantissa = v >> shift; /* in [2^sb, 2^(sb+1)) */
    return (uint32_t)((2ull << sb) + (uint64_t)(e - sb - 1) * (1ull << sb) +
                      (mantissa - (1ull << sb)));
}

/* Midpoint of a bucket, rounded down (exact for the width-1 buckets). */
static uint64_t bucket_mid(const struct sts_hist *h, uint32_t idx)
{
    unsigned sb = h->sub_bits;
    if (idx < (2u << sb))
        return idx;
    uint32_t k = idx - (2u << sb);
    unsigned group = k >> sb;           /* power of two above 2^(sb+1) */
    uint64_t mantissa = (1ull << sb) + (k & ((1u << sb) - 1));
    unsigned shift = group + 1;
    uint64_t lo = mantissa << shift;
    return lo + ((1ull << shift) >> 1);
}

static uint64_t bucket_lo(const struct sts_hist *h, uint32_t idx)
{
    unsigned sb = h->sub_bits;
    if (idx < (2u << sb))
        return idx;
    uint32_t k = idx - (2u << sb);
    uint64_t mantissa = (1ull << sb) + (k & ((1u << sb) - 1));
    return mantissa << ((k >> sb) + 1);
}

/* Lower bound of the coarse bin holding v: the top bin_bits bits below the
 * leading one are kept. */
static uint64_t bin_lo(uint64_t v, unsigned bin_bits)
{
    if (v < (2ull << bin_bits))
        return v;
    unsigned shift = floor_log2(v) - bin_bits;
    return (v >> shift) << shift;
}

size_t sts_hist_bins(const struct sts_hist *h, unsigned bin_bits, uint64_t *lo, uint64_t *count,
                     size_t max)
{
    size_t n = 0;
    if (bin_bits > h->sub_bits)
        bin_bits = h->sub_bits;
    for (uint32_t i = 0; i < h->n_buckets; i++) {
        if (!h->counts[i])
            continue;
        uint64_t b = bin_lo(bucket_lo(h, i), bin_bits);
        if (n && lo[n - 1] == b) {
            count[n - 1] += h->counts[i];
        } else if (n < max) {
            lo[n] = b;
            count[n++] = h->counts[i];
        } else {
            count[n - 1] += h->counts[i]; /* out of room: the last bin takes the rest */
        }
    }
    return n;
}

void sts_hist_record(struct sts_hist *h, uint64_t v)
{
    h->counts[bucket_of(h, v)]++;
    h->total++;
    if (v < h->min)
        h->min = v;
    if (v > h->max)
        h->max = v;
}

/* Nearest rank, the smallest k with k >= p/100 * n, in integers: p is
 * taken in units of 1e-4 % (fio's list has at most two decimals), so
 * p = 99.9 at n = 1000 is rank 999 exactly, not 999.0000000000001 -> 1000
 * as in floating point. n is split so that nothing overflows. */
uint64_t sts_pct_rank(double pct, uint64_t n)
{
    double p = pct < 0 ? 0 : (pct > 100 ? 100 : pct);
    uint64_t pu = (uint64_t)(p * 10000.0 + 0.5); /* 0 .. 1,000,000 */
    const uint64_t scale = 1000000;
    uint64_t q = n / scale, r = n % scale;
    uint64_t rank = pu * q + (pu * r + scale - 1) / scale;
    return rank ? rank : 1;
}

void sts_hist_percentiles(const struct sts_hist *h, const double *pct,
                          size_t n, uint64_t *out)
{
    size_t i = 0;
    if (h->total == 0) {
        for (; i < n; i++)
            out[i] = 0;
        return;
    }
    uint64_t cum = 0;
    uint32_t b = 0;
    for (; i < n; i++) {
        uint64_t rank = sts_pct_rank(pct[i], h->total);
        while (b < h->n_buckets && cum + h->counts[b] < rank) {
            cum += h->counts[b];
            b++;
        }
        uint64_t v;
        if (b >= h->n_buckets - 1 && (h->max >> h->max_exp))
            v = h->max; /* overflow bucket: only the max is known */
        else
            v = bucket_mid(h, b < h->n_buckets ? b : h->n_buckets - 1);
        if (v < h->min)
            v = h->min;
        if (v > h->max)
            v = h->max;
        out[i] = v;
    }
}

uint64_t sts_hist_percentile(const struct sts_hist *h, double pct)
{
    uint64_t v;
    sts_hist_percentiles(h, &pct, 1, &v);
    return v;
}

double sts_hist_relative_error(const struct sts_hist *h)
{
    return 1.0 / (double)(2u << h->sub_bits);
}
