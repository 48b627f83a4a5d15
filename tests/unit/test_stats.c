#include "sts_test.h"
#include "storscope/error.h"
#include "storscope/rng.h"
#include "storscope/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N_SAMPLES 20000

static uint64_t samples[N_SAMPLES];
static uint64_t sorted[N_SAMPLES];
static uint64_t buckets[STS_HIST_BUCKETS];

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Exact nearest-rank percentile of sorted[0..n): the rank found by
 * search in integers, p given to 1e-4 % (every p these tests use is). */
static uint64_t rank_by_search(uint32_t p_e4, uint64_t n);
static uint64_t exact_pct(const uint64_t *s, size_t n, double p)
{
    return s[rank_by_search((uint32_t)(p * 10000.0 + 0.5), n) - 1];
}

/* Every reported percentile must be within the documented bound. */
static int percentiles_within_bound(const uint64_t *v, size_t n)
{
    struct sts_hist h;
    if (sts_hist_init(&h, buckets, STS_HIST_BUCKETS, STS_HIST_SUB_BITS, STS_HIST_MAX_EXP))
        return 0;
    for (size_t i = 0; i < n; i++)
        sts_hist_record(&h, v[i]);
    memcpy(sorted, v, n * sizeof(*v));
    qsort(sorted, n, sizeof(*sorted), cmp_u64);
    static const double extra[] = {0, 0.001, 25, 33.3, 75, 99.999, 100};
    double bound = sts_hist_relative_error(&h);
    for (size_t i = 0; i < STS_PCT_COUNT + 7; i++) {
        double p = i < STS_PCT_COUNT ? sts_default_percentiles[i] : extra[i - STS_PCT_COUNT];
        double want = (double)exact_pct(sorted, n, p);
        double got = (double)sts_hist_percentile(&h, p);
        if (fabs(got - want) > bound * want + 0.5)
            return 0;
    }
    return 1;
}

/* fio's percentiles and a few more, in units of 1e-4 %: the reference
 * below never goes through floating point. */
static const uint32_t pct_e4[] = {10000, 50000, 100000, 200000, 300000, 400000, 500000,
                                  600000, 700000, 800000, 900000, 950000, 990000, 995000,
                                  999000, 999500, 999900, 10, 333000, 999990, 1000000};

/* The nearest rank by search: the smallest k with k / n >= P / 1e6. */
static uint64_t rank_by_search(uint32_t p_e4, uint64_t n)
{
    uint64_t lo = 1, hi = n;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (mid * 1000000u >= (uint64_t)p_e4 * n)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* sorted[] ascending; every percentile must be the reference sample (the
 * histogram's values are exact below 2^(sub_bits+1), and otherwise within
 * its bound, which a 1 ms body and a 1 s outlier tell apart). */
static int ranks_exact(const uint64_t *sorted_v, uint64_t n)
{
    struct sts_hist h;
    if (sts_hist_init(&h, buckets, STS_HIST_BUCKETS, STS_HIST_SUB_BITS, STS_HIST_MAX_EXP))
        return 0;
    for (uint64_t i = 0; i < n; i++)
        sts_hist_record(&h, sorted_v[i]);
    double bound = sts_hist_relative_error(&h);
    for (size_t i = 0; i < sizeof(pct_e4) / sizeof(pct_e4[0]); i++) {
        uint64_t want_rank = rank_by_search(pct_e4[i], n);
        if (sts_pct_rank((double)pct_e4[i] / 10000.0, n) != want_rank)
            return 0;
        double want = (double)sorted_v[want_rank - 1];
        double got = (double)sts_hist_percentile(&h, (double)pct_e4[i] / 10000.0);
        if (fabs(got - want) > bound * want + 0.5)
            return 0;
    }
    return 1;
}

static void percentile_ranks_are_exact_at_round_counts(void)
{
    /* the reported defect: 999 x 1 ms and one 1 s; p99.9 is 1 ms */
    for (size_t i = 0; i < 1000; i++)
        samples[i] = i < 999 ? 1000000 : 1000000000;
    struct sts_hist h;
    CHECK_EQ(sts_hist_init(&h, buckets, STS_HIST_BUCKETS, STS_HIST_SUB_BITS, STS_HIST_MAX_EXP), 0);
    for (size_t i = 0; i < 1000; i++)
        sts_hist_record(&h, samples[i]);
    CHECK(sts_hist_percentile(&h, 99.9) < 2000000);
    CHECK_EQ(sts_pct_rank(99.9, 1000), 999);
    /* a rank counts samples from 1: the 0th percentile is the first, the
     * smallest (a caller reading sorted[rank - 1] must not read sorted[-1]) */
    CHECK_EQ(sts_pct_rank(0, 1), 1);
    CHECK_EQ(sts_pct_rank(0, 1000), 1);
    CHECK_EQ(sts_pct_rank(0.0001, 1000), 1);
    /* every n up to 2,000 and some round ones: ties, all equal, one outlier */
    static const uint64_t big[] = {5000, 10000, 20000};
    for (uint64_t n = 1; n <= 2000 + 3; n++) {
        uint64_t m = n <= 2000 ? n : big[n - 2001];
        for (uint64_t i = 0; i < m; i++)
            samples[i] = 1000 + (i / 3) * 17; /* ties of three, ascending */
        CHECK(ranks_exact(samples, m));
        for (uint64_t i = 0; i < m; i++)
            samples[i] = 777;
        CHECK(ranks_exact(samples, m));
        for (uint64_t i = 0; i < m; i++)
            samples[i] = i + 1 < m ? 1000000 : 1000000000;
        CHECK(ranks_exact(samples, m));
    }
    /* 100,000 samples: ranks only (the samples would not fit the firmware) */
    for (size_t i = 0; i < sizeof(pct_e4) / sizeof(pct_e4[0]); i++) {
        CHECK_EQ(sts_pct_rank((double)pct_e4[i] / 10000.0, 100000),
                 rank_by_search(pct_e4[i], 100000));
        CHECK_EQ(sts_pct_rank((double)pct_e4[i] / 10000.0, 1000000007),
                 rank_by_search(pct_e4[i], 1000000007));
    }
}

static void hist_random_log_uniform(void)
{
    struct sts_rng r;
    sts_rng_seed(&r, 42);
    for (size_t i = 0; i < N_SAMPLES; i++) {
        /* 100 ns .. 60 s, log-uniform: the documented range */
        double u = (double)(sts_rng_next(&r) >> 11) / 9007199254740992.0;
        samples[i] = (uint64_t)(100.0 * pow(6e8, u));
    }
    CHECK(percentiles_within_bound(samples, N_SAMPLES));
}

static void hist_adversarial(void)
{
    /* all equal */
    for (size_t i = 0; i < N_SAMPLES; i++)
        samples[i] = 12345;
    CHECK(percentiles_within_bound(samples, N_SAMPLES));
    /* two clusters far apart: the tail must not be smeared into the body */
    for (size_t i = 0; i < N_SAMPLES; i++)
        samples[i] = i % 100 == 0 ? 60000000000ull : 100;
    CHECK(percentiles_within_bound(samples, N_SAMPLES));
    /* values on and next to bucket edges, and zero */
    size_t n = 0;
    for (unsigned e = 0; e < 40 && n + 3 <= N_SAMPLES; e++) {
        uint64_t p = 1ull << e;
        samples[n++] = p - 1;
        samples[n++] = p;
        samples[n++] = p + 1;
    }
    CHECK(percentiles_within_bound(samples, n));
    /* ascending and descending runs */
    for (size_t i = 0; i < N_SAMPLES; i++)
        samples[i] = i < N_SAMPLES / 2 ? 1000 + i * 7919 : 1000000000ull - i * 31;
    CHECK(percentiles_within_bound(samples, N_SAMPLES));
}

static void hist_single_values_everywhere(void)
{
    /* One sample: the reported median must be the sample itself (clamped). */
    struct sts_hist h;
    CHECK_EQ(sts_hist_init(&h, buckets, STS_HIST_BUCKETS, STS_HIST_SUB_BITS, STS_HIST_MAX_EXP), 0);
    CHECK_EQ(sts_hist_percentile(&h, 50), 0); /* empty */
    /* Two samples in one bucket: the midpoint is reported, within the bound. */
    for (uint64_t v = 129; v < (1ull << 40); v = v * 3 / 2 + 7) {
        sts_hist_reset(&h);
        sts_hist_record(&h, v);
        sts_hist_record(&h, v + v / 200); /* same or next bucket */
        double got = (double)sts_hist_percentile(&h, 1);
        CHECK_REL(got, (double)v, 1.0 / 128.0);
    }
    /* above the range: only the exact max is known */
    sts_hist_reset(&h);
    sts_hist_record(&h, 5ull << 41);
    CHECK_EQ(sts_hist_percentile(&h, 99), 5ull << 41);
}

static void hist_geometry(void)
{
    struct sts_hist h;
    CHECK_EQ(STS_HIST_BUCKETS, 2240);
    CHECK(sts_hist_init(&h, buckets, 10, 6, 40) == STS_ENOMEM);
    CHECK(sts_hist_init(&h, buckets, STS_HIST_BUCKETS, 0, 40) == STS_EINVAL);
    CHECK(sts_hist_init(&h, buckets, STS_HIST_BUCKETS, 6, 7) == STS_EINVAL);
    /* a coarse MCU geometry works too and states its larger error */
    CHECK_EQ(sts_hist_init(&h, buckets, STS_HIST_BUCKETS_FOR(4, 36), 4, 36), 0);
    CHECK(sts_hist_relative_error(&h) > 0.03 && sts_hist_relative_error(&h) < 0.032);
    sts_hist_record(&h, 1000000);
    CHECK_EQ(h.total, 1);
    CHECK_EQ(sts_hist_percentile(&h, 50), 1000000);
}

static void welford_matches_two_pass(void)
{
    static double x[N_SAMPLES];
    struct sts_rng r;
    sts_rng_seed(&r, 7);
    struct sts_welford w;
    sts_welford_init(&w);
    for (size_t i = 0; i < N_SAMPLES; i++) {
        /* a large offset defeats the naive sum-of-squares formula */
        x[i] = 1e9 + (double)(sts_rng_next(&r) % 1000000) / 7.0;
        sts_welford_add(&w, x[i]);
    }
    double mean = 0;
    for (size_t i = 0; i < N_SAMPLES; i++)
        mean += x[i];
    mean /= N_SAMPLES;
    double ss = 0, mn = x[0], mx = x[0];
    for (size_t i = 0; i < N_SAMPLES; i++) {
        ss += (x[i] - mean) * (x[i] - mean);
        mn = x[i] < mn ? x[i] : mn;
        mx = x[i] > mx ? x[i] : mx;
    }
    double sd = sqrt(ss / (N_SAMPLES - 1));
    CHECK_EQ(w.n, N_SAMPLES);
    CHECK_REL(w.mean, mean, 1e-12);
    CHECK_REL(sts_welford_sd(&w), sd, 1e-7);
    CHECK(w.min == mn && w.max == mx);
}

static void welford_small(void)
{
    struct sts_welford w;
    sts_welford_init(&w);
    /* one sample has no spread: not 0, which would read as exact (issue 41) */
    CHECK(isnan(sts_welford_sd(&w)));
    sts_welford_add(&w, 5);
    CHECK(isnan(sts_welford_sd(&w)) && w.mean == 5.0);
    sts_welford_add(&w, 7);
    CHECK_REL(sts_welford_sd(&w), sqrt(2.0), 1e-12);
}

/* A latency record says which sample was the largest (the stall guideline
 * names the operation that took it): the first, one in the middle, a tie
 * (the first of equals) - found against a plain scan of the samples. */
static void a_latency_says_which_sample_was_the_worst(void)
{
    /* (the last: operations that cost nothing in virtual time - the first
     * is the worst, sample 1, not "sample 0") */
    static const uint64_t runs[4][6] = {{900, 10, 20, 30, 40, 50},
                                        {10, 20, 700, 30, 700, 40},
                                        {5, 5, 5, 5, 5, 6},
                                        {0, 0, 0, 0, 0, 0}};
    for (int r = 0; r < 4; r++) {
        struct sts_lat l;
        memset(&l, 0, sizeof(l));
        CHECK_EQ(sts_hist_init(&l.h, buckets, STS_HIST_BUCKETS, STS_HIST_SUB_BITS,
                               STS_HIST_MAX_EXP), 0);
        sts_welford_init(&l.w);
        uint64_t worst = 0, at = 0;
        for (int i = 0; i < 6; i++) {
            sts_lat_record(&l, runs[r][i]);
            if (!i || runs[r][i] > worst) { /* the first of the largest */
                worst = runs[r][i];
                at = (uint64_t)i + 1;
            }
        }
        CHECK_EQ(l.max_at, at);
        CHECK_EQ(l.h.max, worst);
    }
}

static void rng_is_seeded_and_uniform(void)
{
    struct sts_rng a, b;
    sts_rng_seed(&a, 99);
    sts_rng_seed(&b, 99);
    for (int i = 0; i < 100; i++)
        CHECK(sts_rng_next(&a) == sts_rng_next(&b));
    sts_rng_seed(&b, 100);
    CHECK(sts_rng_next(&a) != sts_rng_next(&b));
    unsigned bins[10] = {0};
    for (int i = 0; i < 100000; i++) {
        uint64_t v = sts_rng_below(&a, 10);
        CHECK(v < 10);
        bins[v]++;
    }
    for (int i = 0; i < 10; i++)
        CHECK(bins[i] > 9500 && bins[i] < 10500);
    CHECK_EQ(sts_rng_below(&a, 0), 0);
}

/* Coarse bins for figures: 4 per power of two, every sample in the bin
 * whose range holds it, nothing lost when room runs out. */
static void hist_bins_for_figures(void)
{
    struct sts_hist h;
    CHECK_EQ(sts_hist_init(&h, buckets, STS_HIST_BUCKETS, STS_HIST_SUB_BITS, STS_HIST_MAX_EXP), 0);
    /* 5 at 3 (exact), 7 in [1024, 1280), 2 in [1280, 1536), 1 at 10^6 */
    for (int i = 0; i < 5; i++)
        sts_hist_record(&h, 3);
    for (int i = 0; i < 7; i++)
        sts_hist_record(&h, 1024 + 36 * (uint64_t)i);
    sts_hist_record(&h, 1300);
    sts_hist_record(&h, 1535);
    sts_hist_record(&h, 1000000);
    uint64_t lo[8], count[8];
    size_t n = sts_hist_bins(&h, 2, lo, count, 8);
    CHECK_EQ(n, 4);
    CHECK_EQ(lo[0], 3);
    CHECK_EQ(count[0], 5);
    CHECK_EQ(lo[1], 1024);
    CHECK_EQ(count[1], 7);
    CHECK_EQ(lo[2], 1280);
    CHECK_EQ(count[2], 2);
    CHECK_EQ(lo[3], 917504); /* 10^6 lies in [7 * 2^17, 2^20) */
    CHECK_EQ(count[3], 1);
    n = sts_hist_bins(&h, 2, lo, count, 2); /* no room: the last bin takes the rest */
    CHECK_EQ(n, 2);
    CHECK_EQ(count[0] + count[1], 15);
}

const struct sts_test_case test_stats_cases[] = {
    {"percentile_ranks_are_exact_at_round_counts", percentile_ranks_are_exact_at_round_counts},
    {"a_latency_says_which_sample_was_the_worst", a_latency_says_which_sample_was_the_worst},
    {"hist_bins_for_figures", hist_bins_for_figures},
    {"hist_random_log_uniform", hist_random_log_uniform},
    {"hist_adversarial", hist_adversarial},
    {"hist_single_values_everywhere", hist_single_values_everywhere},
    {"hist_geometry", hist_geometry},
    {"welford_matches_two_pass", welford_matches_two_pass},
    {"welford_small", welford_small},
    {"rng_is_seeded_and_uniform", rng_is_seeded_and_uniform},
    {NULL, NULL},
};
