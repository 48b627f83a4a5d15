/* What the analysis takes as evidence (issue 41): a real device's rounds,
 * a noisy device's runs that agree, a model's runs that differ, and what
 * a guideline shows of its figures, intervals and runs. */
#include "sts_test.h"
#include "storscope/analysis.h"
#include "storscope/target.h"
#include "known_answers.h"

#include <math.h>
#include <string.h>

#include "an_fixture.h"

/* Five runs of a B2 point into the collecting sink: `op` at `chunk`, run r
 * at v x (1 + spread x (r - 2)). */
static void five_runs(struct sts_sink *sink, const struct sts_test_info *ti, const char *op,
                      uint64_t chunk, double v, double spread)
{
    double runs[5];
    struct sts_welford w = {0};
    for (int r = 0; r < 5; r++) {
        runs[r] = v * (1 + spread * (r - 2));
        sts_welford_add(&w, runs[r]);
    }
    struct sts_kv params[] = {STS_KV_S("op", op), STS_KV_U("chunk_bytes", chunk)};
    struct sts_point p = {.name = op, .params = params, .n_params = 2,
                          .run_metric = "bytes_per_second", .runs = runs, .n_runs = 5,
                          .run_stats = w};
    sink->ops->point(sink->ctx, ti, &p);
}

/* A collector begun on a real device's run (host) or a noisy model's. */
static void collect_from(struct sts_an_input *in, struct sts_sink *sink, int host)
{
    sts_an_collector_init(in, sink);
    struct sts_kv model[] = {STS_KV_S("clock", "virtual"), STS_KV_B("sim_noisy", 1)};
    struct sts_run_info ri = {.target = host ? "posix:/var/tmp" : "sim:emmc-stm32u5",
                              .target_kind = host ? "posix" : "sim",
                              .env = host ? NULL : model, .n_env = host ? 0 : 2};
    sink->ops->run_begin(sink->ctx, &ri);
}

/* A real device drifts between executions by more than its rounds show
 * within one: B2's points moved 11-15 % (sd) from one run of storscope to
 * the next on this machine's ext4 and XFS. A knee 1.32x up, resting on
 * five rounds that agree within 0.2 %, stands on a noisy model (its 1 %
 * floor: 1.32 > 1.25 x 1.01 / 0.99) and on published figures without
 * rounds (the study's own knee is a 1.29x rise), and is unresolved in a
 * real device's sweep that ran in rounds (10 %: the rise could be
 * 1.32 x 0.90 / 1.10 = 1.08). Before, it was printed there and flipped
 * between executions (bench/verdicts_disks.py). */
static void a_real_devices_rounds_allow_for_drift_between_executions(void)
{
    static const double curve[] = {100, 200, 400, 800, 1056, 1070, 1075, 1080}; /* KB/s */
    for (int kind = 0; kind < 3; kind++) { /* noisy model, host without rounds, host in rounds */
        int host = kind > 0, rounds = kind == 2;
        struct sts_an_input in;
        struct sts_sink sink;
        collect_from(&in, &sink, host);
        struct sts_kv tp[] = {STS_KV_B("rounds", rounds)};
        struct sts_test_info ti = {"B2", "", tp, 1};
        for (uint32_t i = 0; i < 8; i++)
            five_runs(&sink, &ti, "write", 1u << i, curve[i] * 1e3, 0.001);
        CHECK_EQ(in.host_clock, host);
        CHECK_EQ(in.exact, 0);
        /* each interval: the floor's share of its figure */
        CHECK_REL(in.fixed_write.ci[4], (rounds ? 0.10 : 0.01) * 1056e3, 1e-9);
        struct sts_an_config cfg;
        struct sts_analysis an;
        sts_an_config_default(&cfg);
        sts_analyze(&in, &cfg, &an);
        if (!rounds) {
            CHECK_EQ(an.write_knee_bytes, 16);
            CHECK(has(&an, 0, "chunks of at least 16 B"));
        } else {
            CHECK_EQ(an.write_knee_bytes, -1);
            CHECK(!has(&an, 0, "chunks of at least"));
            CHECK(has(&an, 1, "Unresolved within the noise (chunk size)"));
        }
    }
}

/* Session 34's exception on XFS: a write curve rising 2.5 % a doubling,
 * its rounds agreeing within 0.2 %. Nine executions in ten called a dip
 * there unresolved; the tenth, its intervals at a 5 % floor, reached a
 * 19.6 % dip against the detector's 20 % and said nothing. With the 10 %
 * floor that run reads as far as the others (1.025 x (1 - 2.41 x 0.10) /
 * (1 + 2.41 x 0.10) = 0.63: a dip the noise could hide), while a noisy
 * model's 1 % floor still finds none to hide. */
static void a_level_curve_in_rounds_is_not_declared_free_of_dips(void)
{
    for (int host = 0; host < 2; host++) {
        struct sts_an_input in;
        struct sts_sink sink;
        collect_from(&in, &sink, host);
        struct sts_kv tp[] = {STS_KV_B("rounds", 1)};
        struct sts_test_info ti = {"B2", "", tp, 1};
        double v = 100e6;
        for (uint32_t i = 14; i <= 18; i++, v *= 1.025) /* 16 KiB .. 256 KiB */
            five_runs(&sink, &ti, "write", 1u << i, v, 0.001);
        struct sts_an_config cfg;
        struct sts_analysis an;
        sts_an_config_default(&cfg);
        sts_analyze(&in, &cfg, &an);
        CHECK_EQ(an.write_dip_bytes, -1);
        CHECK(!has(&an, 0, "avoid writes of"));
        CHECK_EQ(has(&an, 1, "Unresolved within the noise (sizes to avoid)"), host);
    }
}

/* Background stalls (a noisy model's stalls=, a real device's housekeeping)
 * slow the long runs of large chunks and leave short ones untouched, whose
 * runs then agree exactly: a zero interval beside biased ones. The
 * noiseless curve (the eMMC model's B2 reads) plateaus at 64 KiB; the
 * stalled one, taken at its word, at 32 KiB - a guideline the noise made
 * up (bench/verdicts_noise.py: 1 seed in 20 on emmc-stm32u5, 2 on
 * emmc-industrial). From a device that is not exact, a point's interval is
 * at least +-1 %: the plateau is then unresolved, not moved. */
static void runs_that_agree_on_a_noisy_device_are_not_exact(void)
{
    static const double noiseless[] = {8.19, 11.07, 12.36, 13.13, 13.55, 13.77, 13.89, 13.94,
                                       13.97, 13.99};                /* MB/s, 4 KiB .. 2 MiB */
    static const double stall_cost[] = {0, 0, 0, 0, 0, 0.033, 0.038, 0.036, 0.04, 0.027};
    for (int noisy = 0; noisy <= 1; noisy++) {
        struct sts_an_input in;
        struct sts_sink sink;
        sts_an_collector_init(&in, &sink);
        struct sts_kv env[] = {STS_KV_S("clock", "virtual"), STS_KV_B("sim_noisy", noisy)};
        struct sts_run_info ri = {.target = "sim:emmc-stm32u5", .target_kind = "sim",
                                  .env = env, .n_env = 2};
        sink.ops->run_begin(sink.ctx, &ri);
        struct sts_test_info ti = {"B2", "", NULL, 0};
        for (uint32_t i = 0; i < 10; i++) /* the stalled points: +-0.3 % about their bias */
            five_runs(&sink, &ti, "read", 4096u << i,
                      noiseless[i] * (1 - (noisy ? stall_cost[i] : 0)) * 1e6,
                      noisy && stall_cost[i] > 0 ? 0.003 : 0);
        struct sts_an_config cfg;
        struct sts_analysis an;
        sts_an_config_default(&cfg);
        sts_analyze(&in, &cfg, &an);
        if (!noisy) {
            CHECK_EQ(an.read_plateau_bytes, 64 * 1024);
        } else {
            CHECK(an.read_plateau_bytes != 32 * 1024); /* not made up */
            CHECK(has(&an, 1, "Unresolved within the noise (read buffer)"));
        }
    }
}

/* A point's runs on the model into the collecting sink. */
static void model_runs(struct sts_sink *sink, const struct sts_test_info *ti, const char *op,
                       uint64_t chunk, const double *runs, uint32_t n)
{
    struct sts_welford w = {0};
    for (uint32_t r = 0; r < n; r++)
        sts_welford_add(&w, runs[r]);
    struct sts_kv params[] = {STS_KV_S("op", op), STS_KV_U("chunk_bytes", chunk)};
    struct sts_point p = {.name = op, .params = params, .n_params = 2,
                          .run_metric = "bytes_per_second", .runs = (double *)runs, .n_runs = n,
                          .run_stats = w};
    sink->ops->point(sink->ctx, ti, &p);
}

/* The noiseless model repeats a run exactly, but a store on it does not:
 * sensorlog's log fills and wraps, so a run that meets an erase is 3x
 * slower than one that does not, and which runs meet one depends on where
 * the point fell (sim:nor-spi+sensorlog, B0: 1 B 187 KB/s over 64 runs,
 * 2 B 107 KB/s over 64, 4 B 179 KB/s over 3, each a mix of 179 and ~55).
 * Taken as exact, those means printed "avoid writes of 2 B: 41 % slower"
 * - a verdict on when the runs came, not on the size. Runs of the model
 * that differ carry their spread: the dip is then unresolved; runs that
 * agree (or a dip the intervals confirm) keep the guideline. */
static void a_models_runs_that_differ_are_not_exact(void)
{
    static const double one[] = {300e3, 300e3, 300e3, 300e3, 100e3, 100e3, 100e3, 100e3},
                        two[] = {180e3, 60e3, 180e3, 60e3, 60e3, 60e3, 60e3, 60e3},
                        four[] = {300e3, 300e3, 60e3};
    for (int agree = 0; agree <= 1; agree++) {
        struct sts_an_input in;
        struct sts_sink sink;
        sts_an_collector_init(&in, &sink);
        struct sts_kv env[] = {STS_KV_S("clock", "virtual"), STS_KV_B("sim_noisy", 0)};
        struct sts_run_info ri = {.target = "sim:nor-spi+sensorlog", .target_kind = "sim",
                                  .env = env, .n_env = 2};
        sink.ops->run_begin(sink.ctx, &ri);
        struct sts_test_info ti = {"B0", "", NULL, 0};
        const double *pts[] = {one, two, four};
        const uint32_t ns[] = {8, 8, 3};
        for (uint32_t i = 0; i < 8; i++) {
            double same[8];
            const double *r = i < 3 ? pts[i] : one;
            uint32_t n = i < 3 ? ns[i] : 8;
            double mean = 0;
            for (uint32_t k = 0; k < n; k++)
                mean += r[k] / n;
            for (uint32_t k = 0; k < n; k++) /* the same mean, every run alike */
                same[k] = i < 3 ? mean : mean * (1 + 0.1 * (i - 2));
            model_runs(&sink, &ti, "write", 1u << i, agree || i >= 3 ? same : r, n);
        }
        CHECK_EQ(in.exact, 1);
        struct sts_an_config cfg;
        struct sts_analysis an;
        sts_an_config_default(&cfg);
        sts_analyze(&in, &cfg, &an);
        if (agree) { /* 90 against 200 and 220: a dip, each figure exact */
            CHECK_EQ(an.write_dip_bytes, 2);
            CHECK(has(&an, 0, "writes of 2 B: 55 % slower than 1 B or 4 B"));
        } else {
            CHECK_EQ(an.write_dip_bytes, -1);
            CHECK(!has(&an, 0, "writes of 2 B"));
            CHECK(has(&an, 1, "Unresolved within the noise (sizes to avoid)"));
        }
    }
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
    CHECK_STR(an.tier, "in the consumer SD card row's range (100-250 fsync/s, mean 4-10 ms)");
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

/* Issue 41: a guideline's evidence carries its figures' intervals and
 * how many runs they are the means of ("5.05 MiB/s +-1.7 % at 512 B ...;
 * 8 runs each"), names a single run as a single sample, and says nothing
 * of either where the figures are exact (virtual time: 0-wide intervals). */
static void set_spread(struct sts_series *s, double share, uint32_t runs)
{
    for (uint32_t i = 0; i < s->n; i++) {
        s->ci[i] = share * s->bps[i];
        s->runs[i] = runs;
    }
}

static void evidence_of(double share, uint32_t runs, struct sts_analysis *an)
{
    static struct sts_an_input in;
    memset(&in, 0, sizeof(in));
    static const double b0_write[] = {100, 137, 188, 257, 352, 483, 661, 906, 1241, 1600, 1650};
    fill(&in.seq_write, "B0", b0_write, 11, 1);
    fill(&in.fixed_read, "B2", b2_read, 12, 1024);
    fill(&in.fixed_write, "B2", b2_write, 12, 1024);
    set_spread(&in.seq_write, share, runs);
    set_spread(&in.fixed_read, share, runs);
    set_spread(&in.fixed_write, share, runs);
    struct sts_an_config cfg;
    sts_an_config_default(&cfg);
    sts_analyze(&in, &cfg, an);
}

static void a_guidelines_evidence_carries_its_intervals_and_runs(void)
{
    static struct sts_analysis an;
    evidence_of(0.004, 8, &an); /* +-0.4 %, 8 runs a point */
    CHECK(has(&an, 0, "(B0: 1.53 MiB/s +-0.4 % at 512 B vs 97.7 KiB/s +-0.4 % at 1 B; 8 runs "
                      "each)."));
    CHECK(has(&an, 0, "(B2: 13.2 MiB/s +-0.4 % at 64 KiB, 13.4 MiB/s +-0.4 % at 2 MiB; 8 runs "
                      "each)."));
    CHECK(has(&an, 0, "(B2: 4.48 MiB/s +-0.4 % against 6.48 MiB/s +-0.4 % and 6.58 MiB/s "
                      "+-0.4 %; 8 runs each)."));
    /* a figure of one run: its interval is its operations' spread */
    evidence_of(0.004, 1, &an);
    CHECK(has(&an, 0, "+-0.4 % at 1 B; one run each: a single sample, its interval from its "
                      "operations' spread)."));
    CHECK(!has(&an, 0, "runs each"));
    /* under a tenth of a percent: said as such, not rounded up to 0.1 */
    evidence_of(0.0004, 5, &an);
    CHECK(has(&an, 0, "vs 97.7 KiB/s +-<0.1 % at 1 B; 5 runs each)."));
    /* exact figures: the figures alone, as before */
    evidence_of(0, 3, &an);
    CHECK(has(&an, 0, "(B0: 1.53 MiB/s at 512 B vs 97.7 KiB/s at 1 B)."));
    CHECK(has(&an, 0, "(B2: 13.2 MiB/s at 64 KiB)."));
    CHECK(has(&an, 0, "Avoid writes of 128 KiB: 31 % slower than 64 KiB or 256 KiB (B2)."));
    CHECK(!has(&an, 0, "+-") && !has(&an, 0, "runs"));
}

const struct sts_test_case test_an_evidence_cases[] = {
    {"runs_that_agree_on_a_noisy_device_are_not_exact",
     runs_that_agree_on_a_noisy_device_are_not_exact},
    {"a_models_runs_that_differ_are_not_exact", a_models_runs_that_differ_are_not_exact},
    {"a_real_devices_rounds_allow_for_drift_between_executions",
     a_real_devices_rounds_allow_for_drift_between_executions},
    {"a_level_curve_in_rounds_is_not_declared_free_of_dips",
     a_level_curve_in_rounds_is_not_declared_free_of_dips},
    {"guidelines_carry_the_numbers_and_name_the_test",
     guidelines_carry_the_numbers_and_name_the_test},
    {"a_guidelines_evidence_carries_its_intervals_and_runs",
     a_guidelines_evidence_carries_its_intervals_and_runs},
    {NULL, NULL},
};
