/* The fits workloads and the analysis share: Student's t, a log-log slope
 * with its 95 % interval, streaming least squares. Portable, no heap. */
#ifndef STORSCOPE_FIT_H
#define STORSCOPE_FIT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Student's t at 97.5 % (a two-sided 95 % interval) for df degrees of
 * freedom; infinite for 0. */
double sts_t975(unsigned df);

/* Least-squares slope of log(y) against log(x) with the half-width of its
 * 95 % confidence interval (Student t, n - 2 degrees of freedom). Returns 0,
 * or STS_EINVAL with fewer than 3 points or a non-positive value. */
int sts_an_loglog_slope(const double *x, const double *y, size_t n, double *slope,
                        double *ci95);
/* Streaming least squares of y = a + b x (co-moments updated as in
 * Welford's method, so a run of any length needs no arrays and stays
 * accurate with large y). */
struct sts_an_fit {
    double n, mx, my, cxx, cxy, cyy;
};
void sts_an_fit_add(struct sts_an_fit *f, double x, double y);
/* a, b and the coefficient of determination; STS_EINVAL with fewer than 3
 * points or all x equal. */
int sts_an_fit_line(const struct sts_an_fit *f, double *a, double *b, double *r2);

/* Aging: latency y against time x (days), fitted both as a line and as
 * y = A * exp(B * x) (least squares on ln y; R^2 is that fit's, in log
 * space). Values <= 0 cannot enter the exponential fit and are counted. */
struct sts_an_aging {
    struct sts_an_fit line, log;
    uint32_t non_positive;
};
void sts_an_aging_add(struct sts_an_aging *g, double x, double y);
struct sts_an_aging_fit {
    int has_line, has_exp;
    double line_a, line_b, line_r2;  /* y = a + b x */
    double exp_a, exp_b, exp_r2;     /* y = A exp(B x) */
};
void sts_an_aging_result(const struct sts_an_aging *g, struct sts_an_aging_fit *out);

#ifdef __cplusplus
}
#endif
#endif
