/* fit.h: Student's t, a log-log slope with its interval (S2's growth),
 * and streaming least squares (M2's aging: a line and an exponential). In
 * core: workloads fit their own summaries, and the analysis reads them. */
#include "storscope/fit.h"
#include "storscope/error.h"

#include <math.h>
#include <string.h>

void sts_an_fit_add(struct sts_an_fit *f, double x, double y)
{
    f->n += 1.0;
    double dx = x - f->mx, dy = y - f->my;
    f->mx += dx / f->n;
    f->my += dy / f->n;
    /* the second factor uses the updated mean: the exact update of the sums */
    f->cxx += dx * (x - f->mx);
    f->cyy += dy * (y - f->my);
    f->cxy += dx * (y - f->my);
}

int sts_an_fit_line(const struct sts_an_fit *f, double *a, double *b, double *r2)
{
    /* a constant y (all 0 ns, say) has no variation to explain: R^2 is
     * undefined there, and reporting 1 would call a non-measurement a fit */
    if (f->n < 3 || f->cxx <= 0 || f->cyy <= 0)
        return STS_EINVAL;
    *b = f->cxy / f->cxx;
    *a = f->my - *b * f->mx;
    *r2 = (f->cxy * f->cxy) / (f->cxx * f->cyy);
    return STS_OK;
}

void sts_an_aging_add(struct sts_an_aging *g, double x, double y)
{
    sts_an_fit_add(&g->line, x, y);
    if (y > 0)
        sts_an_fit_add(&g->log, x, log(y));
    else
        g->non_positive++;
}

void sts_an_aging_result(const struct sts_an_aging *g, struct sts_an_aging_fit *out)
{
    memset(out, 0, sizeof(*out));
    out->has_line = sts_an_fit_line(&g->line, &out->line_a, &out->line_b, &out->line_r2) == 0;
    double ln_a;
    out->has_exp = sts_an_fit_line(&g->log, &ln_a, &out->exp_b, &out->exp_r2) == 0;
    if (out->has_exp)
        out->exp_a = exp(ln_a);
}

double sts_t975(unsigned df)
{
    static const double t[] = {0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365,
                               2.306, 2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
                               2.120, 2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069,
                               2.064, 2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
    if (df < sizeof(t) / sizeof(t[0]))
        return df ? t[df] : INFINITY; /* no degrees of freedom: no interval */
    /* past the table, the Cornish-Fisher expansion of t in 1/df around the
     * normal quantile (Abramowitz & Stegun 26.7.5), within 1e-4 from 30 on;
     * a step table's 40-row value for df 31 made intervals 1 % too narrow */
    const double z = 1.959963984540054, z2 = z * z, n = (double)df;
    return z + z * (z2 + 1) / (4 * n) + z * ((5 * z2 + 16) * z2 + 3) / (96 * n * n) +
           z * (((3 * z2 + 19) * z2 + 17) * z2 - 15) / (384 * n * n * n);
}

int sts_an_loglog_slope(const double *x, const double *y, size_t n, double *slope,
                        double *ci95)
{
    if (n < 3)
        return STS_EINVAL;
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (size_t i = 0; i < n; i++) {
        if (x[i] <= 0 || y[i] <= 0)
            return STS_EINVAL;
        double lx = log(x[i]), ly = log(y[i]);
        sx += lx;
        sy += ly;
        sxx += lx * lx;
        sxy += lx * ly;
    }
    double dn = (double)n, den = dn * sxx - sx * sx;
    if (den <= 0)
        return STS_EINVAL;
    double b = (dn * sxy - sx * sy) / den, a = (sy - b * sx) / dn;
    double sse = 0;
    for (size_t i = 0; i < n; i++) {
        double r = log(y[i]) - (a + b * log(x[i]));
        sse += r * r;
    }
    double se = sqrt(sse / (dn - 2.0) / (sxx - sx * sx / dn));
    size_t df = n - 2;
    *slope = b;
    *ci95 = se * sts_t975((unsigned)df);
    return STS_OK;
}
