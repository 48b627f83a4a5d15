/* Detectors that gave wrong advice (issue 12.4), the probe's answers in the
 * guidelines (issue 19), and Student's t against the published table. */
#include "sts_test.h"
#include "storscope/analysis.h"
#include "storscope/target.h"
#include "known_answers.h"

#include <math.h>
#include <string.h>

#include "an_fixture.h"

/* ---- issue 12.4: detectors that gave wrong advice ----------------------- */
/* Known answers computed by hand from the definitions in docs/analysis.md. */
static void an_all_zero_series_has_no_fit(void)
{
    struct sts_an_aging g;
    struct sts_an_aging_fit f;
    memset(&g, 0, sizeof(g));
    for (int i = 0; i < 10; i++)
        sts_an_aging_add(&g, i, 0.0); /* open on a cached filesystem: 0 ns */
    sts_an_aging_result(&g, &f);
    CHECK(!f.has_line); /* the old fit said R^2 = 1 */
    CHECK(!f.has_exp);
}

static void one_slow_open_is_not_a_guideline(void)
{
    for (int slow = 1; slow <= 3; slow++) {
        struct sts_an_input in;
        struct sts_sink sink;
        sts_an_collector_init(&in, &sink);
        for (int k = 0; k < 10; k++) /* `slow` lifecycles with a 40 ms open */
            feed_lifecycle(&sink, k, 1e6, k < slow ? 40e6 : 0.2e6, (uint64_t)(1000 - 10 * k),
                           k * 1000000000ull);
        struct sts_test_end te = {.id = "M2"};
        sink.ops->test_end(sink.ctx, &te);
        struct sts_an_config cfg;
        struct sts_analysis an;
        sts_an_config_default(&cfg);
        sts_analyze(&in, &cfg, &an);
        int preopen = 0;
        for (size_t i = 0; i < an.n_guidelines; i++)
            preopen |= strstr(an.guideline[i].text, "Open files before") != NULL;
        CHECK_EQ(preopen, slow >= 3);
    }
}

static void small_write_ratio_names_the_sizes_compared(void)
{
    /* a B1-like sweep that starts at 4 KiB must not speak of byte-sized writes */
    struct sts_an_input in;
    memset(&in, 0, sizeof(in));
    static const double w[] = {100, 200, 400, 800, 1600, 1650, 1660};
    fill(&in.seq_write, "B1", w, 7, 4096);
    struct sts_an_config cfg;
    struct sts_analysis an;
    sts_an_config_default(&cfg);
    sts_analyze(&in, &cfg, &an);
    int found = 0;
    for (size_t i = 0; i < an.n_guidelines; i++)
        if (strstr(an.guideline[i].text, "Buffer small records")) {
            found = 1;
            CHECK(!strstr(an.guideline[i].text, "byte-sized"));
            CHECK(strstr(an.guideline[i].text, "writes of 4 KiB") &&
                  strstr(an.guideline[i].text, "than writes of 64 KiB"));
        }
    CHECK(found);
}


static void growth_class_of_a_damaged_slope_is_unknown(void)
{
    char out[64];
    sts_an_growth_class(0.0 / 0.0, 0.1, out, sizeof(out));
    CHECK_STR(out, "of unknown order");
    sts_an_growth_class(1e308 * 10.0, 0.1, out, sizeof(out));
    CHECK_STR(out, "of unknown order");
    sts_an_growth_class(1e300, 1e300, out, sizeof(out)); /* finite, past int: clamped */
    CHECK(strstr(out, "O(") != NULL);
    sts_an_growth_class(1.0, 0.05, out, sizeof(out));
    CHECK_STR(out, "O(n)");
}

/* ---- issue 19: the probe's answers in the guidelines ------------------- */
static const char *guideline_of(const struct sts_analysis *an, const char *kind)
{
    for (size_t i = 0; i < an->n_guidelines; i++)
        if (!strcmp(an->guideline[i].kind, kind))
            return an->guideline[i].text;
    return NULL;
}

/* L1 with three streams (three files in direct and mutex modes), B0's knee
 * at 512 B; the probe found 16 KiB pages, 4 MiB allocation units and 2
 * open AUs: three files is one too many, and 512 B chunks are below the
 * page. With 4 open AUs the files fit; without a probe nothing is said. */
static void probe_answers_join_the_guidelines(void)
{
    struct sts_an_input in;
    struct sts_sink sink;
    sts_an_collector_init(&in, &sink);
    fill(&in.seq_write, "B0", b0_read, 11, 1); /* knee at 512 B (known_answers.h) */
    struct sts_kv tp[] = {STS_KV_S("streams", "imu:1000x12,ppg:100x24,env:1x64")};
    struct sts_test_info ti = {"L1", "", tp, 1};
    struct sts_kv params[] = {STS_KV_S("mode", "direct"), STS_KV_D("rate_scale", 1.0)};
    struct sts_kv metrics[] = {STS_KV_U("required_buffer_bytes", 316),
                               STS_KV_U("worst_stall_ns", 7800000),
                               STS_KV_U("records_lost", 0), STS_KV_U("records_late", 0)};
    feed(&sink, &ti, "sustained", params, 2, metrics, 4);
    struct sts_an_config cfg;
    static struct sts_analysis an;
    sts_an_config_default(&cfg);
    sts_analyze(&in, &cfg, &an);
    CHECK_EQ(an.write_knee_bytes, 512);
    CHECK(guideline_of(&an, "probe: page") == NULL); /* no probe, no probe guideline */
    CHECK(guideline_of(&an, "probe: alignment") == NULL);
    CHECK(guideline_of(&an, "probe: open files") == NULL);
    in.probe_page_bytes = 16384;
    in.probe_au_bytes = 4u << 20;
    in.probe_open_aus = 2;
    sts_analyze(&in, &cfg, &an);
    const char *page = guideline_of(&an, "probe: page");
    CHECK(page && strstr(page, "at least 16 KiB, not 512 B"));
    const char *align = guideline_of(&an, "probe: alignment");
    CHECK(align && strstr(align, "to 4 MiB"));
    const char *files = guideline_of(&an, "probe: open files");
    CHECK(files && strstr(files, "at most 2 files") && strstr(files, "kept 3 open"));
    in.probe_open_aus = 4;
    in.probe_page_bytes = 512; /* not above the knee: the knee's guideline says it */
    sts_analyze(&in, &cfg, &an);
    files = guideline_of(&an, "probe: open files");
    CHECK(files && strstr(files, "at most 4 files") && !strstr(files, "kept"));
    CHECK(guideline_of(&an, "probe: page") == NULL);
}

/* Student's t, 97.5 % quantile, against a published table (NIST/SEMATECH
 * e-Handbook 1.3.6.7.2, and the normal quantile 1.960 in the limit): the
 * values the analysis's 95 % intervals rest on, past 30 degrees of
 * freedom too (replacing them by 1.96 passed every test before). */
static void t_quantile_matches_the_table(void)
{
    static const struct {
        unsigned df;
        double t;
    } table[] = {{1, 12.706}, {2, 4.303}, {5, 2.571}, {10, 2.228}, {20, 2.086},
                 {30, 2.042}, {31, 2.040}, {35, 2.030}, {40, 2.021}, {50, 2.009},
                 {60, 2.000}, {80, 1.990}, {100, 1.984}, {120, 1.980}, {1000, 1.962},
                 {100000, 1.960}};
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        double got = sts_t975(table[i].df);
        if (fabs(got - table[i].t) > 0.0011) {
            sts_test_fail_u64(__FILE__, __LINE__, "t975(df) * 1000 off the table's", table[i].df,
                              (uint64_t)(got * 1000 + 0.5));
            return;
        }
    }
    for (unsigned df = 2; df < 5000; df++) /* it only falls as df grows */
        CHECK(sts_t975(df) <= sts_t975(df - 1));
    CHECK(isinf(sts_t975(0)));
}

/* Issue 46, defect 5: the MCU image's 8 MiB model spent B0 in garbage
 * collection and the report said "avoid writes of 256 B". A dip where the
 * share of the device's programs that its collection copied grew (to a
 * tenth or more) is the medium's; the same dip with no copies, with as
 * large a share at every size, with collections that copy little (they
 * erase what the host emptied: B2 on a large model), or with counters
 * unknown before it, is still the size's. */
static void a_dip_during_garbage_collection_is_not_a_size_to_avoid(void)
{
    static const double w[] = {100, 137, 188, 257, 352, 483, 661, 906, 600, 1600, 1650};
    enum { NONE, BEGAN, STEADY, LITTLE, UNKNOWN_BEFORE, CASES };
    for (int c = NONE; c < CASES; c++) {
        struct sts_an_input in;
        memset(&in, 0, sizeof(in));
        in.exact = 1;
        fill(&in.seq_write, "B0", w, 11, 1);
        fill(&in.seq_read, "B0", b0_read, 11, 1);
        for (uint32_t i = 0; i < 11; i++)
            in.seq_write.gc_share[i] = c == BEGAN ? (i >= 8 ? 0.5 : 0) : c == STEADY ? 0.5 : 0;
        if (c == LITTLE)
            in.seq_write.gc_share[8] = 0.05;
        if (c == UNKNOWN_BEFORE) /* results without counters there */
            in.seq_write.gc_share[7] = NAN, in.seq_write.gc_share[8] = 0.5;
        struct sts_an_config cfg;
        struct sts_analysis an;
        sts_an_config_default(&cfg);
        sts_analyze(&in, &cfg, &an);
        if (c == BEGAN) {
            CHECK_EQ(an.write_dip_bytes, -1);
            CHECK(!has(&an, 0, "Avoid writes of 256 B"));
            CHECK(has(&an, 1, "dips at 256 B (586 KiB/s, B0) where the device's garbage "
                              "collection grew: it copied 50 % of the pages programmed during "
                              "it, against 0 % during 128 B"));
        } else {
            CHECK_EQ(an.write_dip_bytes, 256);
            CHECK(has(&an, 0, "Avoid writes of 256 B"));
            CHECK(!has(&an, 1, "garbage collection grew"));
        }
    }
}

/* Issue 46, defects 1 and 2: the study's eMMC refitted on the MCU image
 * without garbage collection has a 430 us write command, and its B0
 * writes (the bare model's, kB/s) still rise 1.7x from 512 B to 1 KiB,
 * B0's largest chunk: no knee there. The knee is then B2's, whose writes
 * stop rising by 25 % a doubling after 8 KiB (4.70 MB/s; 16 KiB gains
 * 17 %), and the finding says B0 still rose. A B0 that flattens keeps its
 * own knee whatever B2 holds. */
static void a_b0_still_rising_at_its_end_reads_the_knee_on_b2(void)
{
    static const double rising[] = {1.6, 3.1, 6.2, 12.4, 24.8, 49.5, 98.5, 194.5, 379.9, 999.8,
                                    1723.2};
    static const double flat[] = {4.4, 8.8, 17.6, 35.1, 69.9, 138.5, 272.4, 526.9, 989.1, 5271.8,
                                  5713.0};
    /* B2 from 1 KiB: 1.62 .. 6.40 MB/s, the 128 KiB dip */
    static const double b2[] = {1620, 2590, 3700, 4700, 5480, 5910, 6150, 4410, 6340, 6380,
                                6390, 6400};
    for (int still = 0; still <= 1; still++) {
        struct sts_an_input in;
        memset(&in, 0, sizeof(in));
        in.exact = 1;
        fill(&in.seq_write, "B0", still ? rising : flat, 11, 1);
        fill(&in.seq_read, "B0", b0_read, 11, 1);
        fill(&in.fixed_write, "B2", b2, 12, 1024);
        struct sts_an_config cfg;
        struct sts_analysis an;
        sts_an_config_default(&cfg);
        sts_analyze(&in, &cfg, &an);
        if (still) {
            CHECK_EQ(an.write_knee_bytes, 8 * 1024);
            CHECK(has(&an, 1, "B0's writes still rise at its largest chunk, 1 KiB (1.7x over "
                              "512 B): the write knee is read on B2's larger chunks"));
            CHECK(has(&an, 0, "Write in chunks of at least 8 KiB, aligned to 8 KiB"));
            CHECK(has(&an, 0, "(B2: 4.48 MiB/s at 8 KiB vs 1.54 MiB/s at 1 KiB)"));
            /* B0's own reads and writes are still compared at 1 KiB */
            CHECK(has(&an, 1, "reads are 2.4x as fast as writes at 1 KiB"));
        } else {
            CHECK_EQ(an.write_knee_bytes, 512);
            CHECK(!has(&an, 1, "still rise"));
        }
    }
}

const struct sts_test_case test_an_defects_cases[] = {
    {"a_b0_still_rising_at_its_end_reads_the_knee_on_b2",
     a_b0_still_rising_at_its_end_reads_the_knee_on_b2},
    {"a_dip_during_garbage_collection_is_not_a_size_to_avoid",
     a_dip_during_garbage_collection_is_not_a_size_to_avoid},
    {"t_quantile_matches_the_table", t_quantile_matches_the_table},
    {"probe_answers_join_the_guidelines", probe_answers_join_the_guidelines},
    {"an_all_zero_series_has_no_fit", an_all_zero_series_has_no_fit},
    {"one_slow_open_is_not_a_guideline", one_slow_open_is_not_a_guideline},
    {"small_write_ratio_names_the_sizes_compared", small_write_ratio_names_the_sizes_compared},
    {"growth_class_of_a_damaged_slope_is_unknown", growth_class_of_a_damaged_slope_is_unknown},
    {NULL, NULL},
};
