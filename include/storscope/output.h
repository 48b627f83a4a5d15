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
struct sts_csv_sink {
    char dir[4096];
    FILE *f;
    int header_done;
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
