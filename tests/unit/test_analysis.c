/* Detectors on synthetic series where the answer is known, and on series
 * where nothing should be found. */
#include "sts_test.h"
#include "storscope/analysis.h"

#include <string.h>

static void fill(struct sts_series *s, const char *test, const double *kbps, uint32_t n,
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

static void knee_found_where_it_is(void)
{
    struct sts_series s;
    fill(&s, "B0", b0_read, 11, 1);
    CHECK_EQ(sts_an_knee(&s, 0.25), 9); /* 2^9 = 512 B */
    /* flat: no knee */
    static const double flat[] = {100, 101, 99, 100, 102, 100};
    fill(&s, "B0", flat, 6, 1);
    CHECK(sts_an_knee(&s, 0.25) == -1);
    /* still rising at the end: no knee either */
    static const double rising[] = {1, 2, 4, 8, 16, 32};
    fill(&s, "B0", rising, 6, 1);
    CHECK(sts_an_knee(&s, 0.25) == -1);
}

static void plateau_found_from_64k(void)
{
    struct sts_series s;
    fill(&s, "B2", b2_read, 12, 1024);
    int p = sts_an_plateau(&s, 0.10);
    CHECK(p >= 0);
    CHECK_EQ(s.chunk[p], 64 * 1024);
    static const double rising[] = {1, 2, 4, 8, 16, 32};
    fill(&s, "B2", rising, 6, 1024);
    CHECK(sts_an_plateau(&s, 0.10) == -1);
}

static void dip_found_at_128k_and_not_elsewhere(void)
{
    struct sts_series s;
    fill(&s, "B2", b2_write, 12, 1024);
    int d = sts_an_dip(&s, 1, 0.20);
    CHECK(d >= 0);
    CHECK_EQ(s.chunk[d], 128 * 1024);
    fill(&s, "B2", b2_read, 12, 1024); /* small wiggles are not dips */
    CHECK(sts_an_dip(&s, 1, 0.20) == -1);
}

static void tiers_by_row_between_rows_and_consumer_ssd(void)
{
    struct sts_an_input in;
    char t[96];
    memset(&in, 0, sizeof(in));
    in.has_fsync = 1;
    in.fsync_iops = 200;
    in.fsync_mean_ns = 4.85e6;
    sts_an_tier(&in, t, sizeof(t));
    CHECK_STR(t, "consumer SD card");
    in.fsync_iops = 600;
    in.fsync_mean_ns = 1.6e6;
    sts_an_tier(&in, t, sizeof(t));
    CHECK_STR(t, "A2 microSD");
    in.fsync_iops = 2500;
    in.fsync_mean_ns = 0.4e6;
    sts_an_tier(&in, t, sizeof(t));
    CHECK_STR(t, "industrial eMMC");
    in.fsync_iops = 1000; /* between A2 and eMMC: never forced into a row */
    in.fsync_mean_ns = 1.0e6;
    sts_an_tier(&in, t, sizeof(t));
    CHECK_STR(t, "between A2 microSD and industrial eMMC");
    in.fsync_iops = 15000;
    in.fsync_mean_ns = 0.066e6;
    sts_an_tier(&in, t, sizeof(t));
    CHECK_STR(t, "SATA SSD with power-loss protection");
    /* a card's fsync rate with an SSD's bandwidth: a consumer SSD */
    in.fsync_iops = 390;
    in.fsync_mean_ns = 2.5e6;
    in.has_seq = 1;
    in.seq_write_bps = 450e6;
    sts_an_tier(&in, t, sizeof(t));
    CHECK(strstr(t, "without power-loss protection") != NULL);
}

static void guidelines_carry_the_numbers_and_name_the_test(void)
{
    struct sts_an_input in;
    memset(&in, 0, sizeof(in));
    static const double b0_write[] = {100, 137, 188, 257, 352, 483, 661, 906, 1241, 1600, 1650};
    fill(&in.seq_write, "B0", b0_write, 11, 1);
    fill(&in.seq_read, "B0", b0_read, 11, 1);
    fill(&in.fixed_read, "B2", b2_read, 12, 1024);
    fill(&in.fixed_write, "B2", b2_write, 12, 1024);
    in.has_fsync = 1;
    in.fsync_iops = 200;
    in.fsync_mean_ns = 4.85e6;
    in.fsync_p9999_ns = 648.76e6;
    in.fsync_max_ns = 648.76e6;
    struct sts_an_config cfg;
    sts_an_config_default(&cfg);
    struct sts_analysis an;
    sts_analyze(&in, &cfg, &an);
    CHECK_EQ(an.write_knee_bytes, 512);
    CHECK_EQ(an.read_plateau_bytes, 64 * 1024);
    CHECK_EQ(an.write_dip_bytes, 128 * 1024);
    CHECK_STR(an.tier, "consumer SD card");
    int chunk = 0, buffer = 0, readbuf = 0, dip = 0, stall = 0;
    for (size_t i = 0; i < an.n_guidelines; i++) {
        const char *g = an.guideline[i].text;
        chunk |= strstr(g, "chunks of at least 512 B") && strstr(g, "16x") && strstr(g, "(B0");
        buffer |= strstr(g, "Buffer small records") != NULL;
        readbuf |= strstr(g, "read buffer of 64 KiB") && strstr(g, "(B2");
        dip |= strstr(g, "Avoid writes of 128 KiB") && strstr(g, "(B2)");
        stall |= strstr(g, "649 ms stall") && strstr(g, "64.8 KiB");
    }
    CHECK(chunk && buffer && readbuf && dip && stall);
}

static void no_evidence_no_guideline(void)
{
    struct sts_an_input in;
    memset(&in, 0, sizeof(in));
    struct sts_an_config cfg;
    sts_an_config_default(&cfg);
    struct sts_analysis an;
    sts_analyze(&in, &cfg, &an);
    CHECK_EQ(an.n_findings, 0);
    CHECK_EQ(an.n_guidelines, 0);
    /* flat curves: nothing to say about chunk sizes */
    static const double flat[] = {5000, 5010, 4990, 5000, 5005, 5000};
    fill(&in.seq_write, "B0", flat, 6, 1);
    fill(&in.fixed_write, "B2", flat, 6, 1024);
    fill(&in.fixed_read, "B2", flat, 6, 1024);
    sts_analyze(&in, &cfg, &an);
    for (size_t i = 0; i < an.n_guidelines; i++)
        CHECK(strcmp(an.guideline[i].kind, "chunk size") && strcmp(an.guideline[i].kind, "sizes to avoid"));
}

static void slope_tells_o1_on_on2_apart(void)
{
    static const double n[] = {200, 400, 600, 800, 1000};
    /* the study's Table 3 open+close per file (us): linear in N */
    static const double table3[] = {3615.00, 6801.25, 9986.00, 13172.75, 16360.70};
    /* Table 4 create totals / N: linear per file, so totals are quadratic */
    static const double create_total[] = {2029.40, 7531.20, 16498.20, 28929.90, 44841.00};
    double flat[5], quad[5], per_file_create[5], slope, ci;
    char cls[48];
    for (int i = 0; i < 5; i++) {
        flat[i] = 1000.0 * (1.0 + 0.03 * ((i * 7) % 3 - 1)); /* +-3 % noise */
        quad[i] = n[i] * n[i] * (1.0 + 0.02 * ((i * 5) % 3 - 1));
        per_file_create[i] = create_total[i] / n[i];
    }
    CHECK_EQ(sts_an_loglog_slope(n, flat, 5, &slope, &ci), 0);
    sts_an_growth_class(slope, ci, cls, sizeof(cls));
    CHECK_STR(cls, "O(1)");
    CHECK_EQ(sts_an_loglog_slope(n, table3, 5, &slope, &ci), 0);
    sts_an_growth_class(slope, ci, cls, sizeof(cls));
    CHECK_STR(cls, "O(n)");
    CHECK(slope > 0.9 && slope < 1.1);
    CHECK_EQ(sts_an_loglog_slope(n, per_file_create, 5, &slope, &ci), 0);
    sts_an_growth_class(slope, ci, cls, sizeof(cls));
    CHECK_STR(cls, "O(n)");
    CHECK_EQ(sts_an_loglog_slope(n, create_total, 5, &slope, &ci), 0);
    sts_an_growth_class(slope, ci, cls, sizeof(cls));
    CHECK_STR(cls, "O(n^2)");
    CHECK_EQ(sts_an_loglog_slope(n, quad, 5, &slope, &ci), 0);
    sts_an_growth_class(slope, ci, cls, sizeof(cls));
    CHECK_STR(cls, "O(n^2)");
    /* too noisy to tell: said so */
    sts_an_growth_class(0.6, 0.5, cls, sizeof(cls));
    CHECK_STR(cls, "between O(1) and O(n)");
    CHECK(sts_an_loglog_slope(n, flat, 2, &slope, &ci) != 0);
}

static void metadata_guideline_only_when_cost_grows(void)
{
    struct sts_an_input in;
    struct sts_an_config cfg;
    struct sts_analysis an;
    sts_an_config_default(&cfg);
    memset(&in, 0, sizeof(in));
    in.has_s2 = 1;
    in.s2_exp_flat = 1.0;
    in.s2_ci_flat = 0.05;
    in.s2_exp_sub = 0.05;
    in.s2_ci_sub = 0.1;
    in.s2_n_lo = 200;
    in.s2_n_hi = 1000;
    in.s2_open_lo_ns = 3615000;
    in.s2_open_hi_ns = 16360700;
    in.s2_open_hi_sub_ns = 2100000;
    sts_analyze(&in, &cfg, &an);
    CHECK_EQ(an.n_guidelines, 1);
    CHECK(strstr(an.guideline[0].text, "O(n)") && strstr(an.guideline[0].text, "16.36 ms") &&
          strstr(an.guideline[0].text, "(S2:"));
    in.s2_exp_flat = 0.05; /* flat: a finding, no guideline */
    sts_analyze(&in, &cfg, &an);
    CHECK_EQ(an.n_findings, 1);
    CHECK_EQ(an.n_guidelines, 0);
}

const struct sts_test_case test_analysis_cases[] = {
    {"slope_tells_o1_on_on2_apart", slope_tells_o1_on_on2_apart},
    {"metadata_guideline_only_when_cost_grows", metadata_guideline_only_when_cost_grows},
    {"knee_found_where_it_is", knee_found_where_it_is},
    {"plateau_found_from_64k", plateau_found_from_64k},
    {"dip_found_at_128k_and_not_elsewhere", dip_found_at_128k_and_not_elsewhere},
    {"tiers_by_row_between_rows_and_consumer_ssd", tiers_by_row_between_rows_and_consumer_ssd},
    {"guidelines_carry_the_numbers_and_name_the_test", guidelines_carry_the_numbers_and_name_the_test},
    {"no_evidence_no_guideline", no_evidence_no_guideline},
    {NULL, NULL},
};
