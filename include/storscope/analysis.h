/* From numbers to decisions: detectors over the results and guidelines that
 * name the test and the points they rest on. Portable: no heap, no stdio;
 * the caller fills struct sts_an_input (from a live run through the
 * collecting sink, or from a saved JSON file) and gets text back. */
#ifndef STORSCOPE_ANALYSIS_H
#define STORSCOPE_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "storscope/fit.h"
#include "storscope/result.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STS_AN_MAX_POINTS 24

/* Throughput (bytes/s, mean over runs) against chunk size (bytes), ascending. */
struct sts_series {
    char test[8];       /* "B0", "B2", "M1" */
    uint32_t n;
    uint64_t chunk[STS_AN_MAX_POINTS];
    double bps[STS_AN_MAX_POINTS];
    /* half-width of each point's 95 % interval, bytes/s: from its runs
     * (Student t), or for a single run from its operations' spread; 0 when
     * exact (virtual time), NaN when the results hold no spread. Detectors
     * fire only on differences beyond these; a guideline needs them known. */
    double ci[STS_AN_MAX_POINTS];
    /* runs each figure is the mean of (0: not known): a guideline's
     * evidence says how many, and a single run is named as one */
    uint32_t runs[STS_AN_MAX_POINTS];
    /* the share of the pages the device programmed during each point that
     * its garbage collection copied (a model's gc_pages_copied over
     * pages_programmed, "device" in the results; NaN when the results hold
     * none): a dip where that share grew is the medium's state, not the
     * chunk size's (issue 46) */
    double gc_share[STS_AN_MAX_POINTS];
};

/* Lifecycles whose slowest open must pass the threshold before M2 advises
 * pre-opening. */
#define STS_AN_MIN_SLOW 3

struct sts_an_input {
    char target_kind[16];                    /* "posix", "sim", "null"...: "" unknown */
    /* the filesystem a sim: target stacks on its medium ("sensorlog" for
     * sim:emmc-stm32u5+sensorlog): the chunk guidelines then describe that
     * layer's files, not the medium, and say so; "" for none */
    char fs_layer[24];
    int exact;                               /* virtual time: figures repeat exactly */
    int host_clock;                          /* timed by the host's clock: a real device */
    int no_medium;                           /* null:, sim:ram: the figures are storscope's
                                                and the host's own cost; no guideline is
                                                about a device */
    uint64_t model_dip_bytes;                /* sim: the size its profile makes slow
                                                (dip_bytes); a dip found there is the
                                                calibration's, not a finding; 0 none */
    struct sts_series seq_write, seq_read;   /* B0 (or B1 when B0 is absent) */
    struct sts_series fixed_write, fixed_read; /* B2 */
    struct sts_series rand_read;             /* M1 */
    int has_fsync;
    double fsync_iops, fsync_mean_ns, fsync_p50_ns, fsync_p9999_ns, fsync_max_ns;
    /* Whether the worst stall repeated: operations (of fsync_count) within
     * a factor of two of the max (from the histogram's coarse bins: those
     * that reach above max / 2; 0 = not known), the largest figure at least
     * two operations reached (the top of that bin, so a stall seen once is
     * not sized into the guideline, and the buffer errs large), and which
     * operation took the max (1-based; 0 = not known) */
    double fsync_count, fsync_near_max, fsync_repeated_ns, fsync_max_at;
    int has_seq;
    double seq_write_bps, seq_read_bps;      /* seq: best of N */
    int has_s2;                              /* S2: open+close per file vs N */
    double s2_exp_flat, s2_ci_flat, s2_exp_sub, s2_ci_sub;
    double s2_n_lo, s2_n_hi;                 /* smallest and largest N */
    double s2_open_lo_ns, s2_open_hi_ns;     /* flat, at those N */
    double s2_open_hi_sub_ns;                /* subdirectories, at the largest N */
    /* S1: write degradation (0..1), mean over chunk sizes, per mode
     * (direct, mutex, iotask) and load level 0..4 */
    int has_s1;
    double s1_deg_sum[3][5];
    uint32_t s1_deg_n[3][5];
    uint32_t s1_priority;                    /* storage tasks' real-time priority, 0 = none */
    /* M2 */
    int has_m2;
    uint32_t m2_lifecycles;
    double m2_threshold_ns, m2_total_bytes;
    double m2_first_create_ns, m2_first_free, m2_last_create_ns, m2_last_free;
    double m2_open_max_ns, m2_open_max_free;
    /* the slowest open of each lifecycle, three largest: one slow open is a
     * spike, not a trend, so the pre-open guideline needs STS_AN_MIN_SLOW */
    double m2_open_top[3];
    /* create latency of the first and of the last STS_AN_MIN_SLOW lifecycles
     * (the last as a ring): growth is told by their medians, so that one
     * slow lifecycle - a stall - at either end is not taken for a trend */
    double m2_create_head[STS_AN_MIN_SLOW], m2_create_tail[STS_AN_MIN_SLOW];
    double m2_span_days;                     /* time of the last lifecycle */
    int m2_has_exp;
    double m2_create_a_ns, m2_create_b, m2_create_r2;
    double m2_cross_free;                    /* create crossed the threshold here; < 0: never */
    double m2_cross_files;                   /* files in M2's directory then */
    double m2_cross_before;                  /* free space of the lifecycle before, still
                                              * under the threshold; < 0: none */
    double m2_first_files, m2_last_files;    /* files present at the first / last lifecycle */
    /* why create latency grew (M2's probe: a create in an empty directory):
     * "directory", "free space", "none", "unknown" or "" (not recorded) */
    char m2_cause[16];
    double m2_probe_first_ns, m2_probe_last_ns; /* the probe, first / last quarter; < 0: none */
    /* L1, per mode at the nominal rates; scale < 0 when not bisected */
    int has_l1;
    char l1_streams[64];
    int l1_seen[3];
    double l1_need[3], l1_stall[3], l1_lost[3], l1_late[3], l1_scale[3];
    /* the stream that lost the most records per mode (records_lost_<stream>) */
    char l1_worst_stream[3][16];
    double l1_worst_lost[3];
    /* What `storscope probe` found on this device (run/report --probe
     * FILE); 0 where it was not measured. The page and the allocation unit
     * come from the probe's read timing or open-AU test, never from what
     * the device reports of itself. */
    uint64_t probe_page_bytes, probe_au_bytes;
    uint32_t probe_open_aus; /* allocation units the card keeps open (0: no limit found) */
};

/* The least half-width of a point's 95 % interval, as a share of its
 * figure, where figures are not exact (a real device, a noisy model). */
#define STS_AN_CI_FLOOR 0.01
/* The same for a real device's sweep that ran in rounds (test param
 * `rounds`): its rounds see what changes while it runs, not what changes
 * from one execution to the next - the page cache's and the filesystem's
 * state. On this machine's ext4 and XFS a point's mean moved between
 * executions with a standard deviation of 11-15 % of it, where its rounds
 * gave +-11-14 % at 95 % and sometimes much less: one run in ten whose
 * rounds agreed within 5 % read a 19.6 % dip against the detector's 20 %
 * and said nothing where the nine others said "unresolved" (bench/README,
 * "Session 34" and "Session 35"). 10 %: such a run reads up to 2.41 x 10 %
 * further, as the others do. */
#define STS_AN_CI_FLOOR_ROUNDS 0.10
/* How much wider than its 95 % interval a point is read hopefully: the
 * hopeful reading asks whether another execution of the same run could
 * find what this one did not. That execution's figure lies within sqrt 2
 * of this one's interval (the difference of two means of as many runs),
 * and its own hopeful reading reaches one interval further: 1 + sqrt 2.
 * Read on the interval alone, a curve near a detector's threshold came out
 * "unresolved" in one execution and confidently without the feature in
 * the next: 6 guideline sets in 30 identical B2 runs on this machine's
 * ext4, 1 with this (bench/README, "Session 34"). */
#define STS_AN_ANOTHER_EXECUTION 2.414213562373095

/* Thresholds; every default is the and is documented in docs. */
struct sts_an_config {
    double knee_gain;     /* a doubling gaining less than this is past the knee (0.25) */
    double plateau_band;  /* the plateau starts at the smallest chunk no larger chunk beats
                             by more than this (0.05: the study's 64 KiB, where a device's
                             fixed cost per command leaves 3 %; 0.10 said 32 KiB, 6 %) */
    double dip_drop;      /* at least this far below both neighbours is a dip (0.20) */
    double stall_rate_bps;/* data rate used to size buffers for the worst stall (100 KiB/s) */
    double concurrency_loss; /* S1: a loss at 4 load tasks from which it matters (0.30) */
    double preopen_ns;    /* an open at least this slow belongs off time-critical paths (1 ms) */
};
void sts_an_config_default(struct sts_an_config *cfg);

#define STS_AN_TEXT 384
struct sts_an_item {
    char kind[20];             /* "knee", "plateau", "dip", "asymmetry", "tier"... */
    char test[8];              /* the test it rests on */
    char text[STS_AN_TEXT];
};

#define STS_AN_MAX_ITEMS 16
struct sts_analysis {
    struct sts_an_item finding[STS_AN_MAX_ITEMS];
    size_t n_findings;
    struct sts_an_item guideline[STS_AN_MAX_ITEMS];
    size_t n_guidelines;
    /* machine-readable results of the detectors (-1 / 0 when not found) */
    int64_t write_knee_bytes, read_plateau_bytes, write_dip_bytes;
    char tier[160];
};

/* Detectors on one series; return the index found or -1. */
int sts_an_knee(const struct sts_series *s, double gain);
int sts_an_plateau(const struct sts_series *s, double band);
int sts_an_dip(const struct sts_series *s, int from, double drop);

/* "O(1)", "O(n)", "O(n^2)", or "between O(1) and O(n)"... from a slope and
 * its confidence: a class is named only when the interval allows no other. */
void sts_an_growth_class(double slope, double ci95, char *out, size_t n);

/* Places an fsync profile (and sequential bandwidth, which tells consumer
 * SSDs from cards) beside the published tier table: "in the X row's range
 * (...)", "between the X and Y rows" when it falls between rows. It compares
 * figures, and says so; it never calls the target a medium (the study's
 * eMMC can land in the A2 microSD row), and the null: target, which has no
 * medium, gets no row. Writes the text into out. */
void sts_an_tier(const struct sts_an_input *in, char *out, size_t n);

void sts_analyze(const struct sts_an_input *in, const struct sts_an_config *cfg,
                 struct sts_analysis *out);

/* Adds one S2 open+close point (per-file mean, ns) to the input; flat layout
 * points first, as S2 emits them. Used by the collector and by `report`. */
/* Fills the fsync repeat fields above from a histogram's coarse bins
 * (lo[i] their lower bounds ascending, count[i] their samples, 4 a power
 * of two) and its max. */
void sts_an_fsync_bins(struct sts_an_input *in, const uint64_t *lo, const uint64_t *count,
                       size_t n, double max_ns);
void sts_an_s2_point(struct sts_an_input *in, int flat, double files, double per_file_ns);

/* A sink that fills an sts_an_input as a run goes. */
void sts_an_collector_init(struct sts_an_input *in, struct sts_sink *sink);

#ifdef __cplusplus
}
#endif
#endif
