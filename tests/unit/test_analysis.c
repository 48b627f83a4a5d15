/* Detectors on synthetic series where the answer is known, and on series
 * where nothing should be found; the tier table; verdicts the noise could
 * move (issue 41). Rounds and a guideline's evidence, the system findings
 * and detectors' past defects have files of their own (test_an_*.c). */
#include "sts_test.h"
#include "storscope/analysis.h"
#include "storscope/target.h"
#include "known_answers.h"

#include <math.h>
#include <string.h>

#include "an_fixture.h"

/* Every detector against its known answers (known_answers.h). */
static void detectors_give_the_known_answers(void)
{
    struct sts_series s;
    for (size_t i = 0; i < sizeof(ka_knee) / sizeof(ka_knee[0]); i++) {
        fill(&s, "B0", ka_knee[i].v, ka_knee[i].n, 1);
        CHECK_EQ(sts_an_knee(&s, 0.25), ka_knee[i].want);
    }
    for (size_t i = 0; i < sizeof(ka_plateau) / sizeof(ka_plateau[0]); i++) {
        fill(&s, "B2", ka_plateau[i].v, ka_plateau[i].n, 1024);
        CHECK_EQ(sts_an_plateau(&s, 0.10), ka_plateau[i].want);
    }
    for (size_t i = 0; i < sizeof(ka_dip) / sizeof(ka_dip[0]); i++) {
        fill(&s, "B2", ka_dip[i].v, ka_dip[i].n, 1024);
        CHECK_EQ(sts_an_dip(&s, 1, 0.20), ka_dip[i].want);
    }
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
    CHECK_STR(t, "in the consumer SD card row's range (100-250 fsync/s, mean 4-10 ms)");
    in.fsync_iops = 600;
    in.fsync_mean_ns = 1.6e6;
    sts_an_tier(&in, t, sizeof(t));
    CHECK_STR(t, "in the A2 microSD row's range (400-800 fsync/s, mean 1.2-2.5 ms)");
    in.fsync_iops = 2500;
    in.fsync_mean_ns = 0.4e6;
    sts_an_tier(&in, t, sizeof(t));
    CHECK_STR(t, "in the industrial eMMC row's range (1500-4000 fsync/s, mean 0.2-0.6 ms)");
    in.fsync_iops = 1000; /* between A2 and eMMC: never forced into a row */
    in.fsync_mean_ns = 1.0e6;
    sts_an_tier(&in, t, sizeof(t));
    CHECK_STR(t, "between the A2 microSD and industrial eMMC rows");
    in.fsync_iops = 15000;
    in.fsync_mean_ns = 0.066e6;
    sts_an_tier(&in, t, sizeof(t));
    CHECK_STR(t, "in the SATA SSD with power-loss protection row's range (10000-25000 fsync/s, "
                 "mean 0.05-0.1 ms)");
    /* null: has no medium: its millions of fsync/s are storscope's own cost,
     * not an NVMe SSD's */
    in.fsync_iops = 12e6;
    in.fsync_mean_ns = 80;
    strcpy(in.target_kind, "null");
    sts_an_tier(&in, t, sizeof(t));
    CHECK(strstr(t, "none: null: has no medium") == t);
    CHECK(strstr(t, "NVMe") == NULL);
    in.target_kind[0] = '\0';
    sts_an_tier(&in, t, sizeof(t));
    CHECK_STR(t, "in the NVMe SSD with power-loss protection row's range (over 50000 fsync/s, "
                 "mean under 0.03 ms)");
    in.fsync_iops = 15000;
    in.fsync_mean_ns = 0.066e6;
    /* a card's fsync rate with an SSD's bandwidth: a consumer SSD */
    in.fsync_iops = 390;
    in.fsync_mean_ns = 2.5e6;
    in.has_seq = 1;
    in.seq_write_bps = 450e6;
    sts_an_tier(&in, t, sizeof(t));
    CHECK(strstr(t, "without power-loss protection") != NULL);
}

/* Issue 12.14: findings rest on differences beyond each point's 95 %
 * interval. The same curves as the known answers, with spreads that swallow
 * the step, the dip and the rise after the plateau, find nothing; a spread
 * the results do not hold (a foreign file's single figures) marks the
 * finding and its guideline unconfirmed; a knee whose next doubling falls
 * says "loses", not "gains only -72 %". */
static void findings_survive_the_spread_or_are_not_made(void)
{
    static const double step[] = {100, 100, 100, 100, 200, 400, 410, 400, 405};
    static const double dip[] = {400, 410, 405, 250, 400, 410};
    struct sts_series s;
    fill(&s, "B2", step, 9, 1);
    CHECK_EQ(sts_an_knee(&s, 0.25), 5); /* exact: the step to 400 at 32 B */
    for (uint32_t i = 0; i < 9; i++)
        s.ci[i] = s.bps[i] * 0.35; /* +-35 %: 260..540 vs 130..270: the rise is inside */
    CHECK_EQ(sts_an_knee(&s, 0.25), -1);
    for (uint32_t i = 0; i < 9; i++)
        s.ci[i] = s.bps[i] * 0.05; /* +-5 %: it stands */
    CHECK_EQ(sts_an_knee(&s, 0.25), 5);
    fill(&s, "B2", dip, 6, 1024);
    CHECK_EQ(sts_an_dip(&s, 1, 0.20), 3);
    s.ci[3] = 80e3; /* 250 +- 80 reaches 330 > 0.8 x 405 */
    CHECK_EQ(sts_an_dip(&s, 1, 0.20), -1);
    s.ci[3] = 20e3;
    CHECK_EQ(sts_an_dip(&s, 1, 0.20), 3);
    /* a plateau at 3 (405 vs 405..410) holds only if the larger chunks'
     * tops stay within 10 % of its bottom */
    static const double flat[] = {100, 200, 380, 400, 405, 410, 408};
    fill(&s, "B2", flat, 7, 1024);
    CHECK_EQ(sts_an_plateau(&s, 0.10), 2);
    for (uint32_t i = 0; i < 7; i++)
        s.ci[i] = 5e3; /* from 2: 415 > 1.1 x 375; from 3: 415 <= 1.1 x 395 */
    CHECK_EQ(sts_an_plateau(&s, 0.10), 3);
    for (uint32_t i = 0; i < 7; i++)
        s.ci[i] = 30e3; /* +-7 %: no 10 % band can be shown anywhere (438 > 1.1 x 380) */
    CHECK_EQ(sts_an_plateau(&s, 0.10), -1);
    /* unknown spread: the finding, no guideline */
    struct sts_an_input in;
    memset(&in, 0, sizeof(in));
    static const double knee_then_fall[] = {100, 110, 120, 400, 112, 115};
    fill(&in.seq_write, "B0", knee_then_fall, 6, 1);
    struct sts_an_config cfg;
    sts_an_config_default(&cfg);
    struct sts_analysis an;
    sts_analyze(&in, &cfg, &an);
    CHECK_EQ(an.write_knee_bytes, 8);
    CHECK(strstr(an.finding[0].text, "then the next doubling loses 72 %") != NULL);
    CHECK(strstr(an.finding[0].text, "-72") == NULL);
    int chunk_guideline = 0;
    for (size_t i = 0; i < an.n_guidelines; i++)
        chunk_guideline |= strstr(an.guideline[i].text, "chunks of at least") != NULL;
    CHECK(chunk_guideline); /* exact (ci 0): it stands */
    for (uint32_t i = 0; i < 6; i++)
        in.seq_write.ci[i] = NAN;
    sts_analyze(&in, &cfg, &an);
    CHECK(strstr(an.finding[0].text, "[no spread recorded: one figure per size, unconfirmed]"));
    for (size_t i = 0; i < an.n_guidelines; i++)
        if (strstr(an.guideline[i].text, "chunks of at least"))
            CHECK(strstr(an.guideline[i].text, "unconfirmed]") != NULL);
}

/* Issue 41: a detector whose answer the noise could move - its intervals
 * read strictly give one answer, read hopefully another - gives no
 * guideline but an "unresolved" finding naming both answers; with exact
 * figures (intervals 0) the same curves give their guidelines. Before, the
 * intervals' answer was printed as a guideline (a plateau at 2 KiB where
 * the figures allow 1 KiB), or nothing was said. */
static void a_verdict_the_noise_could_move_is_unresolved(void)
{
    static const double step[] = {100, 100, 100, 100, 200, 400, 410, 400, 405};
    static const double flat[] = {100, 200, 395, 400, 405, 410, 408};
    static const double dip[] = {400, 410, 405, 250, 400, 410};
    struct sts_an_input in;
    struct sts_an_config cfg;
    struct sts_analysis an;
    sts_an_config_default(&cfg);
    memset(&in, 0, sizeof(in));
    fill(&in.seq_write, "B0", step, 9, 1);
    fill(&in.fixed_read, "B2", flat, 7, 1024);
    fill(&in.fixed_write, "B2", dip, 6, 1024);
    sts_analyze(&in, &cfg, &an);
    CHECK(has(&an, 0, "chunks of at least 32 B"));
    CHECK(has(&an, 0, "A read buffer of 4 KiB is enough"));
    CHECK(has(&an, 0, "Avoid writes of 8 KiB"));
    CHECK(!has(&an, 1, "Unresolved"));
    for (uint32_t i = 0; i < 9; i++)
        in.seq_write.ci[i] = in.seq_write.bps[i] * 0.35; /* swallows the step */
    for (uint32_t i = 0; i < 7; i++)
        in.fixed_read.ci[i] = 2.5e3; /* strictly from 8 KiB, hopefully from 4 KiB */
    in.fixed_write.ci[3] = 80e3;   /* 250 +- 80 reaches 330 > 0.8 x 405 */
    sts_analyze(&in, &cfg, &an);
    CHECK(!has(&an, 0, "chunks of at least"));
    CHECK(!has(&an, 0, "Buffer small records"));
    CHECK(!has(&an, 0, "A read buffer"));
    CHECK(!has(&an, 0, "Avoid writes"));
    CHECK_EQ(an.write_knee_bytes, -1);
    CHECK_EQ(an.read_plateau_bytes, -1);
    CHECK(has(&an, 1, "Unresolved within the noise (chunk size): the write knee at 32 B by the "
                      "figures; at none by their 95 % intervals read strictly, at none read "
                      "hopefully (intervals up to +-35 %, each stretched 2.41x: what another "
                      "execution could see)"));
    CHECK(has(&an, 1, "Unresolved within the noise (read buffer): the read plateau at 4 KiB by the "
                      "figures; at 8 KiB by their 95 % intervals read strictly, at 4 KiB read "
                      "hopefully"));
    CHECK(has(&an, 1, "Unresolved within the noise (sizes to avoid): a write dip at 8 KiB by the "
                      "figures; at none by their 95 % intervals read strictly, at 8 KiB read "
                      "hopefully"));
    /* intervals that leave every answer where the figures put it: resolved */
    for (uint32_t i = 0; i < 9; i++)
        in.seq_write.ci[i] = in.seq_write.bps[i] * 0.02;
    for (uint32_t i = 0; i < 7; i++)
        in.fixed_read.ci[i] = 1e3;
    in.fixed_write.ci[3] = 20e3;
    sts_analyze(&in, &cfg, &an);
    CHECK(has(&an, 0, "chunks of at least 32 B"));
    CHECK(has(&an, 0, "A read buffer of 4 KiB is enough"));
    CHECK(has(&an, 0, "Avoid writes of 8 KiB"));
    CHECK(!has(&an, 1, "Unresolved"));
}

/* The kinds a run's analysis leaves unresolved, and the guidelines it
 * gives, as one bit each (unresolved: chunk size 1, read buffer 2, sizes
 * to avoid 4; claimed: 8, 16, 32). */
static unsigned verdict_bits(const struct sts_an_input *in)
{
    struct sts_an_config cfg;
    struct sts_analysis an;
    sts_an_config_default(&cfg);
    sts_analyze(in, &cfg, &an);
    static const char *const kinds[3][2] = {{"(chunk size)", "Write in chunks"},
                                            {"(read buffer)", "A read buffer"},
                                            {"(sizes to avoid)", "Avoid writes"}};
    unsigned bits = 0;
    for (unsigned k = 0; k < 3; k++)
        bits |= (has(&an, 1, kinds[k][0]) ? 1u << k : 0) | (has(&an, 0, kinds[k][1]) ? 8u << k : 0);
    return bits;
}

/* Issue 41: identical runs on a real disk must give the same verdicts. A
 * curve near a detector's threshold, read on this execution's intervals
 * alone, was "unresolved" in one execution and confidently without the
 * feature in the next (6 guideline sets in 30 B2 runs on this machine's
 * ext4). Here execution A's figures, and B's: each of B's figures lies
 * within 1.4 (sqrt 2) of A's intervals of A's - where the mean of another
 * execution of as many runs falls, at 95 % - with intervals as wide. Both
 * must reach the same verdicts: before, A said nothing of a read plateau
 * or a dip and B said both were unresolved. */
static void another_execution_reaches_the_same_verdicts(void)
{
    /* reads still rising 20 % at the last doubling, a write curve with a
     * shallow 7.5 % sag at 16 KiB, each point +-5 % */
    static const double reads[] = {100, 200, 400, 800, 1000, 1200};
    static const double writes[] = {100, 200, 400, 800, 740, 800, 810};
    struct sts_an_input a, b;
    memset(&a, 0, sizeof(a));
    fill(&a.seq_write, "B0", writes, 7, 1024);
    fill(&a.fixed_read, "B2", reads, 6, 1024);
    fill(&a.fixed_write, "B2", writes, 7, 1024);
    struct sts_series *const all[3] = {&a.seq_write, &a.fixed_read, &a.fixed_write};
    for (int k = 0; k < 3; k++)
        for (uint32_t i = 0; i < all[k]->n; i++)
            all[k]->ci[i] = 0.05 * all[k]->bps[i];
    b = a;
    /* B: the last read point low and the one before high; the sag deeper */
    b.fixed_read.bps[5] -= 1.4 * a.fixed_read.ci[5];
    b.fixed_read.bps[4] += 1.4 * a.fixed_read.ci[4];
    b.fixed_write.bps[4] -= 1.4 * a.fixed_write.ci[4];
    b.fixed_write.bps[3] += 1.4 * a.fixed_write.ci[3];
    b.fixed_write.bps[5] += 1.4 * a.fixed_write.ci[5];
    unsigned va = verdict_bits(&a), vb = verdict_bits(&b);
    CHECK(vb & 2); /* B cannot tell the read plateau */
    CHECK(vb & 4); /* nor the dip */
    CHECK_EQ(va, vb);
    /* the same curves with exact figures keep their answers: no plateau
     * and no dip, nothing unresolved */
    for (int k = 0; k < 3; k++)
        for (uint32_t i = 0; i < all[k]->n; i++)
            all[k]->ci[i] = 0;
    CHECK_EQ(verdict_bits(&a) & (2 | 4 | 16 | 32), 0);
}

/* The study's read curve as a device gives it: each command costs a fixed
 * time and then its bytes at the peak rate, so throughput rises toward the
 * peak and never quite reaches it. With the eMMC model's figures (about
 * 150 us a command, 14 MB/s) 32 KiB reads run at 94 % of 2 MiB's, 64 KiB
 * at 97 %: the study says reads beyond 64 KiB gain nothing. A 10 % band
 * put the plateau at 32 KiB; the default band must put it at 64 KiB, and
 * the guideline must say which rule it used. */
static void the_study_read_curve_plateaus_at_64_kib(void)
{
    const double command_s = 150e-6, peak_bps = 14e6;
    struct sts_an_input in;
    memset(&in, 0, sizeof(in));
    strcpy(in.fixed_read.test, "B2");
    for (uint32_t i = 0; i < 12; i++) {
        double bytes = (double)(1024u << i);
        in.fixed_read.chunk[i] = 1024u << i;
        in.fixed_read.bps[i] = bytes / (command_s + bytes / peak_bps);
    }
    in.fixed_read.n = 12;
    /* the reference: 32 KiB's share of the top, from the same law by hand */
    double at32 = 32768.0 / (command_s + 32768.0 / peak_bps),
           top = 2097152.0 / (command_s + 2097152.0 / peak_bps);
    CHECK(at32 / top > 0.90 && at32 / top < 0.95); /* what fooled a 10 % band */
    struct sts_an_config cfg;
    sts_an_config_default(&cfg);
    struct sts_analysis an;
    sts_analyze(&in, &cfg, &an);
    CHECK_EQ(an.read_plateau_bytes, 64 * 1024);
    CHECK(has(&an, 0, "A read buffer of 64 KiB is enough: larger reads gain less than 5 %"));
}

const struct sts_test_case test_analysis_cases[] = {
    {"detectors_give_the_known_answers", detectors_give_the_known_answers},
    {"a_verdict_the_noise_could_move_is_unresolved", a_verdict_the_noise_could_move_is_unresolved},
    {"another_execution_reaches_the_same_verdicts", another_execution_reaches_the_same_verdicts},
    {"findings_survive_the_spread_or_are_not_made", findings_survive_the_spread_or_are_not_made},
    {"tiers_by_row_between_rows_and_consumer_ssd", tiers_by_row_between_rows_and_consumer_ssd},
    {"the_study_read_curve_plateaus_at_64_kib", the_study_read_curve_plateaus_at_64_kib},
    {NULL, NULL},
};
