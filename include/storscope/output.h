/* Host-side sinks (stdio): terminal tables, CSV files, a progress line. */
#ifndef STORSCOPE_OUTPUT_H
#define STORSCOPE_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

#include "storscope/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Compact table per test, rows printed as points arrive. */
#define STS_TERM_SKIPS 8
struct sts_term_skip { /* points skipped for one reason, one row at test end */
    char name[24], first[24], last[24], why[192];
    unsigned count;
};
struct sts_term_sink {
    FILE *out;
    int first_point;
    int virtual_clock; /* the run's times are a simulator's (sts_run_is_virtual) */
    char held_row[192]; /* M2's last thinned-out row, printed at test end */
    struct sts_term_skip skip[STS_TERM_SKIPS];
    size_t n_skips;
};
void sts_term_sink_init(struct sts_term_sink *ts, struct sts_sink *sink, FILE *out);

/* One CSV file per test: DIR/<id>.csv. */
#define STS_CSV_MAX_METRICS 32
struct sts_csv_sink {
    char dir[4096];
    FILE *f;
    int header_done;
    /* the first point's run metric and metric keys name the file's columns */
    char run_metric[40];
    char metric[STS_CSV_MAX_METRICS][48];
    size_t n_metrics;
    char param[16][32]; /* param columns; rows are written by these names */
    size_t n_params;
    /* skipped points that came before the first measured one (which names
     * the columns): their rows are written once the columns are known */
    struct {
        char name[32];
        char key[8][32], val[8][64]; /* params, as CSV fields */
        size_t n;
        char why[192];
    } held[64];
    size_t n_held;
};
void sts_csv_sink_init(struct sts_csv_sink *cs, struct sts_sink *sink, const char *dir);

/* A single self-overwriting status line on a terminal, at most 5 per second. */
struct sts_progress_sink {
    FILE *out;
    unsigned long long last_ns, test_start_ns;
    int shown;
    unsigned test_index, n_tests; /* "[B1 2/6]" */
    /* 1 when another sink prints a line per point on the same terminal
     * (run --tables): the line is cleared before each. 0 (the default): it
     * stays up, redrawn at most every 200 ms - cleared at every point, it
     * was redrawn at every point, thousands a second on a simulator */
    int clear_on_point;
    /* the run's pace: tests finished and the wall time they took, for the
     * whole run's ETA; the last point's throughput (0: none yet), shown as
     * the live rate */
    unsigned tests_done;
    unsigned long long tests_done_ns;
    double last_bps;
};
void sts_progress_sink_init(struct sts_progress_sink *ps, struct sts_sink *sink, FILE *out);

/* The first screen: one line per test with its headline figures (see
 * src/output/summary.c), kept until sts_summary_print. */
#define STS_SUMMARY_TESTS 16
#define STS_SUMMARY_OPS 8
#define STS_SUMMARY_MODES 3
struct sts_summary_line {
    char id[8];
    char text[480];
};
struct sts_summary_op { /* one series of the test in progress, e.g. B0's writes */
    char name[24];
    int done, per_file, is_time;
    unsigned measured, skipped;
    double first_x, first_v, last_x, last_v; /* chunk bytes (or files) and value */
    double mean_lat, p50, p99;               /* the last point's first latency, ns; < 0: none */
    double at4k_v, at4k_p50, at4k_p99;       /* rand: the 4 KiB point (fio's usual size); 0: none */
    double blocked_ns, polls;                /* nb: caller blocked per call, polls a block */
    char skip_why[160];
};
struct sts_summary_mode { /* S1 and L1, per access mode */
    double deg_sum, lost, need;
    unsigned deg_n;
    int seen;
};
struct sts_summary_sink {
    struct sts_summary_line line[STS_SUMMARY_TESTS];
    size_t n;
    struct sts_summary_op ops[STS_SUMMARY_OPS];
    size_t n_ops;
    struct sts_summary_mode mode[STS_SUMMARY_MODES];
    double m2_free, m2_files, m2_total, m2_floor_permille, m2_file_bytes, m2_threshold_ns,
        m2_t_ns;
    unsigned tests_ok, tests_failed, tests_skipped, interrupted;
    uint64_t elapsed_ns; /* sum over the tests, on the target's clock */
    int virtual_clock;   /* that clock is a simulator's (sts_run_is_virtual) */
    int exact;           /* ... and not made noisy: a rerun repeats each figure */
    unsigned runs_lo, runs_hi; /* the test's points: fewest and most runs a figure is
                                  the mean of, said where figures are not exact */
};
void sts_summary_sink_init(struct sts_summary_sink *ss, struct sts_sink *sink);
/* Appends the detectors' positions (write knee, read plateau, write dip)
 * to the lines of the tests they rest on. */
struct sts_analysis;
void sts_summary_add_analysis(struct sts_summary_sink *ss, const struct sts_analysis *an);
void sts_summary_print(const struct sts_summary_sink *ss, FILE *out);
/* What a virtual clock's times are, said wherever they are shown. */
#define STS_VIRTUAL_TIME "simulated device time (virtual time: work done in RAM takes 0 ns)"
/* 1 when the run's environment says its clock is virtual (sim: targets):
 * its times are the simulated device's, and work done in RAM takes none. */
int sts_run_is_virtual(const struct sts_run_info *ri);
/* The line of totals after a run: tests ok, failed, not applicable, and
 * the time they took, said to be virtual where it is. */
void sts_print_totals(FILE *out, const struct sts_run_end *re, int virtual_clock);

/* "12.3 MiB/s" style: bytes per second with a binary unit. */
void sts_fmt_rate(char *buf, size_t n, double bytes_per_second);
/* "812 ns", "4.85 ms", "0.65 s" */
void sts_fmt_ns(char *buf, size_t n, double ns);

#ifdef __cplusplus
}
#endif
#endif
