/* Host-side sinks (stdio): terminal tables, CSV files, a progress line. */
#ifndef STORSCOPE_OUTPUT_H
#define STORSCOPE_OUTPUT_H

#include <stdio.h>

#include "storscope/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Compact table per test, rows printed as points arrive. */
struct sts_term_sink {
    FILE *out;
    int first_point;
    char held_row[192]; /* M2's last thinned-out row, printed at test end */
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
    unsigned long long last_ns;
    int shown;
};
void sts_progress_sink_init(struct sts_progress_sink *ps, struct sts_sink *sink, FILE *out);

/* "12.3 MiB/s" style: bytes per second with a binary unit. */
void sts_fmt_rate(char *buf, size_t n, double bytes_per_second);
/* "812 ns", "4.85 ms", "0.65 s" */
void sts_fmt_ns(char *buf, size_t n, double ns);

#ifdef __cplusplus
}
#endif
#endif
