/* The simulator's noise (issue 41), known in law and drawn from the seed,
 * and its determinism: the same seed gives the same bytes, another seed
 * other stalls. */
#include "sts_test.h"
#include "storscope/error.h"
#include "storscope/extentfs.h"
#include "storscope/json.h"
#include "storscope/sim.h"
#include "storscope/suite.h"

#include "test_mem.h"

#include <math.h>
#include <string.h>

#include "sim_fixture.h"

/* ---- noise (issue 41): known in law, drawn from the seed ------------------ */
/* n reads of 4 KiB at one place on a small eMMC model with the given noise
 * (none: NULL): each read's time into noise_t[]. */
#define NOISE_READS 20000
static uint64_t noise_t[NOISE_READS], noise_at[NOISE_READS];
static int noisy_reads(const struct sts_sim_noise *noise, uint64_t seed)
{
    struct sts_sim_params q = *sts_sim_profile_find("emmc-stm32u5");
    q.capacity = 64 * MIB;
    if (sts_sim_init(&st.sim, &q, seed, arena64, sizeof(arena64), 0, &st.bd))
        return -1;
    if (noise)
        sts_sim_set_noise(&st.sim, noise);
    static uint8_t buf[4096];
    for (unsigned i = 0; i < NOISE_READS; i++) {
        uint64_t t0 = st.sim.now_ns;
        if (st.bd.ops->read(st.bd.ctx, MIB, buf, sizeof(buf)))
            return -1;
        noise_t[i] = st.sim.now_ns - t0;
        noise_at[i] = t0;
    }
    return 0;
}

/* A build without the model's noise (STS_SIM_NOISE 0: a firmware) takes
 * the numbers and stays noiseless: 1 when every read took the noiseless
 * time. Each noise test checks that there instead of the law. */
static int noise_left_out(const struct sts_sim_noise *noise)
{
    if (noisy_reads(NULL, 1))
        return 0;
    uint64_t base = noise_t[0];
    if (noisy_reads(noise, 1))
        return 0;
    for (unsigned i = 0; i < NOISE_READS; i++)
        if (noise_t[i] != base)
            return 0;
    return 1;
}

static void noise_has_the_mean_and_spread_it_was_given(void)
{
    const struct sts_sim_noise cv10 = {.cv_permille = 100};
    if (!STS_SIM_NOISE) {
        CHECK(noise_left_out(&cv10));
        return;
    }
    CHECK_EQ(noisy_reads(NULL, 1), 0);
    uint64_t base = noise_t[0];
    for (unsigned i = 1; i < NOISE_READS; i++)
        CHECK_EQ(noise_t[i], base); /* noiseless: every read the same */
    CHECK_EQ(noisy_reads(&cv10, 1), 0);
    double sum = 0, sq = 0;
    for (unsigned i = 0; i < NOISE_READS; i++) {
        sum += (double)noise_t[i];
        sq += (double)noise_t[i] * (double)noise_t[i];
    }
    double mean = sum / NOISE_READS, sd = sqrt(sq / NOISE_READS - mean * mean);
    /* a lognormal of mean 1 and CV 0.1: over 20,000 draws the sample mean
     * is within 0.3 % of base (5 standard errors), the CV within 5 % of 0.1 */
    CHECK_REL(mean, (double)base, 0.003);
    CHECK_REL(sd / mean, 0.1, 0.05);
    uint64_t first = noise_t[0], second = noise_t[1];
    CHECK(first != second);
    CHECK_EQ(noisy_reads(&cv10, 1), 0); /* the same seed, the same draws */
    CHECK_EQ(noise_t[0], first);
    CHECK_EQ(noise_t[1], second);
    CHECK_EQ(noisy_reads(&cv10, 2), 0); /* another seed, other draws */
    CHECK(noise_t[0] != first || noise_t[1] != second);
}

static void bimodal_slows_the_share_it_was_given(void)
{
    const struct sts_sim_noise bimodal = {.bimodal_permille = 50, .bimodal_x100 = 1000};
    if (!STS_SIM_NOISE) {
        CHECK(noise_left_out(&bimodal));
        return;
    }
    CHECK_EQ(noisy_reads(NULL, 1), 0);
    uint64_t base = noise_t[0];
    CHECK_EQ(noisy_reads(&bimodal, 1), 0);
    unsigned slow = 0;
    for (unsigned i = 0; i < NOISE_READS; i++) {
        CHECK(noise_t[i] == base || noise_t[i] == base * 10);
        slow += noise_t[i] != base;
    }
    /* binomial(20000, 0.05): 1000 expected, sd 31 */
    CHECK(slow > 1000 - 5 * 31 && slow < 1000 + 5 * 31);
}

static void stalls_come_at_the_rate_they_were_given(void)
{
    /* 2 stalls a second of 50 ms, over 20,000 reads (about 3.3 s of device
     * time plus the stalls): Poisson, counted from what the reads took */
    const struct sts_sim_noise two_a_second = {.stall_rate_millihz = 2000, .stall_ns = 50000000ull};
    if (!STS_SIM_NOISE) {
        CHECK(noise_left_out(&two_a_second));
        return;
    }
    CHECK_EQ(noisy_reads(NULL, 1), 0);
    uint64_t base = noise_t[0];
    CHECK_EQ(noisy_reads(&two_a_second, 1), 0);
    unsigned stalls = 0;
    uint64_t busy = 0;
    for (unsigned i = 0; i < NOISE_READS; i++) {
        CHECK(noise_t[i] == base || noise_t[i] == base + 50000000ull);
        stalls += noise_t[i] != base;
        busy += base;
    }
    double expect = 2.0 * ((double)busy / 1e9 + stalls * 0.05);
    CHECK(stalls >= 2 && fabs(stalls - expect) <= 4 * sqrt(expect) + 1);
    CHECK_EQ(st.sim.n.stalls, stalls);
}

/* drift=CV:PERIOD: one speed for a spell (a PERIOD-long stretch of device
 * time), drawn again for the next; over the spells the factor has mean 1
 * and the CV given. A command inside one spell takes its noiseless time
 * times the spell's factor; one across a boundary goes at each spell's
 * speed in turn, so it takes between the two. */
static void drift_holds_a_speed_for_a_spell(void)
{
    const uint64_t period = 10000000ull; /* 10 ms: ~60 reads a spell */
    const struct sts_sim_noise spells = {.drift_cv_permille = 300, .drift_period_ns = period};
    if (!STS_SIM_NOISE) {
        CHECK(noise_left_out(&spells));
        return;
    }
    CHECK_EQ(noisy_reads(NULL, 1), 0);
    double base = (double)noise_t[0];
    CHECK_EQ(noisy_reads(&spells, 1), 0);
    unsigned n = 0, changed_inside = 0, across = 0, outside = 0;
    double sum = 0, sq = 0, ratio = 0, before = 0;
    uint64_t spell = UINT64_MAX;
    for (unsigned i = 0; i < NOISE_READS; i++) {
        double r = (double)noise_t[i] / base;
        uint64_t first = noise_at[i] / period, last = (noise_at[i] + noise_t[i] - 1) / period;
        if (first != last) { /* across a boundary: between the spells' factors */
            across++;
            before = ratio;
            spell = UINT64_MAX;
            continue;
        }
        if (first == spell) {
            /* the same spell: the same time, to the nanosecond's rounding */
            changed_inside += fabs(r - ratio) * base > 1.5;
            continue;
        }
        if (spell == UINT64_MAX && across && i && before > 0) {
            double prev = (double)noise_t[i - 1] / base, lo = before < r ? before : r,
                   hi = before < r ? r : before;
            outside += prev < lo - 1e-6 || prev > hi + 1e-6;
        }
        spell = first;
        ratio = r, n++, sum += r, sq += r * r;
    }
    CHECK_EQ(changed_inside, 0);
    CHECK(across > 100);
    CHECK_EQ(outside, 0);
    double mean = sum / n, cv = sqrt(sq / n - mean * mean) / mean;
    /* ~300 spells of a lognormal of mean 1, CV 0.3: the mean's standard
     * error is 1.7 %, the CV's about 5 % of itself */
    CHECK(n > 250);
    CHECK_REL(mean, 1.0, 0.08);
    CHECK_REL(cv, 0.3, 0.25);
    const struct sts_sim_noise off = {.drift_cv_permille = 300, .drift_period_ns = 0};
    CHECK_EQ(noisy_reads(&off, 1), 0); /* no period, no spells */
    CHECK_EQ(noise_t[NOISE_READS - 1], (uint64_t)base);

    /* a command over many spells goes at each one's speed: 512 KiB reads
     * 25 spells long spread as the mean of 25 factors (CV 0.3 / 5 = 0.06,
     * and never the 0.3 of one spell's factor taken for the whole) */
    struct sts_sim_params q = *sts_sim_profile_find("emmc-stm32u5");
    q.capacity = 64 * MIB;
    static uint8_t big[512 * 1024];
    double t[200];
    for (int noisy = 0; noisy < 2; noisy++) {
        CHECK_EQ(sts_sim_init(&st.sim, &q, 1, arena64, sizeof(arena64), 0, &st.bd), 0);
        if (noisy) {
            const struct sts_sim_noise many = {.drift_cv_permille = 300,
                                               .drift_period_ns = (uint64_t)(t[0] / 25)};
            sts_sim_set_noise(&st.sim, &many);
        }
        for (int i = 0; i < 200; i++) {
            uint64_t t0 = st.sim.now_ns;
            CHECK_EQ(st.bd.ops->read(st.bd.ctx, MIB, big, sizeof(big)), 0);
            t[i] = (double)(st.sim.now_ns - t0);
        }
    }
    double m = 0, v = 0;
    for (int i = 0; i < 200; i++)
        m += t[i] / 200;
    for (int i = 0; i < 200; i++)
        v += (t[i] - m) * (t[i] - m) / 199;
    CHECK(sqrt(v) / m > 0.03 && sqrt(v) / m < 0.10);
}

/* ---- determinism ---------------------------------------------------------- */
static char doc[2][65536];
static size_t doc_len[2];
static int doc_i;
static int doc_write(void *ctx, const char *s, size_t n)
{
    (void)ctx;
    if (doc_len[doc_i] + n >= sizeof(doc[0]))
        return -1;
    memcpy(doc[doc_i] + doc_len[doc_i], s, n);
    doc_len[doc_i] += n;
    return 0;
}

/* Equal apart from the digits of wall-clock fields. */
static int same_but_wall_clock(const char *a, size_t na, const char *b, size_t nb)
{
    static const char key[] = "\"wall_elapsed_ns\":";
    size_t i = 0, j = 0;
    while (i < na && j < nb) {
        if (na - i >= sizeof(key) - 1 && memcmp(a + i, key, sizeof(key) - 1) == 0) {
            if (nb - j < sizeof(key) - 1 || memcmp(b + j, key, sizeof(key) - 1))
                return 0;
            i += sizeof(key) - 1;
            j += sizeof(key) - 1;
            while (i < na && a[i] >= '0' && a[i] <= '9')
                i++;
            while (j < nb && b[j] >= '0' && b[j] <= '9')
                j++;
            continue;
        }
        if (a[i++] != b[j++])
            return 0;
    }
    return i == na && j == nb;
}

static void same_seed_same_bytes_other_seed_other_stalls(void)
{
    struct sts_json_sink js;
    struct sts_sink sink;
    uint64_t max[3];
    for (doc_i = 0; doc_i < 2; doc_i++) {
        doc_len[doc_i] = 0;
        CHECK_EQ(sim_target("sd-consumer", 64 * MIB, -1, 3, 0), 0);
        sts_json_sink_init(&js, &sink, doc_write, NULL, NULL, 0);
        CHECK_EQ(run("fsync", 3, S(10), 16 * MIB, STS_SCALE_QUICK, &sink), 0);
        max[doc_i] = seen.max_ns;
    }
    CHECK(doc_len[0] > 1000);
    CHECK(same_but_wall_clock(doc[0], doc_len[0], doc[1], doc_len[1]));
    CHECK_EQ(sim_target("sd-consumer", 64 * MIB, -1, 4, 0), 0);
    CHECK_EQ(run("fsync", 4, S(10), 16 * MIB, STS_SCALE_QUICK, NULL), 0);
    max[2] = seen.max_ns;
    CHECK(max[0] == max[1] && max[2] != max[0]);
}

static void accounting_and_checks(void)
{
    CHECK_EQ(sim_target("emmc-industrial", 64 * MIB, 0, 1, 0), 0);
    uint8_t b[4096] = {0};
    for (int i = 0; i < 100; i++)
        CHECK_EQ(st.bd.ops->program(st.bd.ctx, (uint64_t)i * 4096, b, 4096), 0);
    CHECK_EQ(st.bd.ops->flush(st.bd.ctx), 0);
    CHECK_EQ(st.sim.n.programs, 100);
    CHECK_EQ(st.sim.n.bytes_written, 409600);
    CHECK_EQ(st.sim.n.pages_programmed, 100); /* 4 KiB pages, all aligned */
    CHECK_EQ(st.sim.n.flushes, 1);
    CHECK(st.bd.ops->program(st.bd.ctx, 64 * MIB - 100, b, 200) == STS_ERANGE);

    struct sts_sim_params p = *sts_sim_profile_find("sd-consumer");
    const char *why = NULL;
    p.erase_bytes = 3000;
    CHECK(sts_sim_check(&p, &why) == STS_EINVAL && why && strstr(why, "multiple"));
    /* a sector that does not divide the page (sector_bytes=3 ran, and its
     * transfers were priced in 3-byte sectors) */
    p = *sts_sim_profile_find("sd-consumer");
    p.sector_bytes = 3;
    why = NULL;
    CHECK(sts_sim_check(&p, &why) == STS_EINVAL && why && strstr(why, "sector_bytes"));
    /* a capacity below one erase block is named as the capacity's fault, not
     * as the 64 KiB block erase's (which the user never set) */
    p = *sts_sim_profile_find("nor-spi");
    p.capacity = 1024;
    why = NULL;
    CHECK(sts_sim_check(&p, &why) == STS_EINVAL && why &&
          strstr(why, "capacity must be a multiple of erase_bytes"));
    p = *sts_sim_profile_find("sd-consumer");
    CHECK_EQ(sts_sim_param_set(&p, "capacity", "64M"), 0);
    CHECK_EQ(p.capacity, 64 * MIB);
    CHECK_EQ(sts_sim_param_set(&p, "page_prog", "1.5ms"), 0);
    CHECK_EQ(p.page_prog_ns, 1500000);
    CHECK(sts_sim_param_set(&p, "warp", "9") == STS_ENOENT);
    CHECK(sts_sim_param_set(&p, "managed", "300") == STS_ERANGE);
    CHECK(sts_sim_profile_find("nope") == NULL);
    CHECK_EQ(sts_n_sim_profiles, 11);
}

const struct sts_test_case test_sim_noise_cases[] = {
    {"noise_has_the_mean_and_spread_it_was_given", noise_has_the_mean_and_spread_it_was_given},
    {"bimodal_slows_the_share_it_was_given", bimodal_slows_the_share_it_was_given},
    {"stalls_come_at_the_rate_they_were_given", stalls_come_at_the_rate_they_were_given},
    {"drift_holds_a_speed_for_a_spell", drift_holds_a_speed_for_a_spell},
    {"same_seed_same_bytes_other_seed_other_stalls", same_seed_same_bytes_other_seed_other_stalls},
    {"accounting_and_checks", accounting_and_checks},
    {NULL, NULL},
};
