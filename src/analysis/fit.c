/* Least-squares fits for the aging analysis (M2): a line and an
 * exponential, both from streaming co-moments. */
#include "storscope/analysis.h"
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
