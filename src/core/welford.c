#include "storscope/stats.h"

#include <math.h>

void sts_welford_init(struct sts_welford *w)
{
    w->n = 0;
    w->mean = 0.0;
    w->m2 = 0.0;
    w->min = 0.0;
    w->max = 0.0;
}

void sts_welford_add(struct sts_welford *w, double x)
{
    w->n++;
    if (w->n == 1) {
        w->min = w->max = x;
    } else {
        if (x < w->min)
            w->min = x;
        if (x > w->max)
            w->max = x;
    }
    /* Welford's update avoids the catastrophic cancellation of sum/sumsq. */
    double d = x - w->mean;
    w->mean += d / (double)w->n;
    w->m2 += d * (x - w->mean);
}

double sts_welford_sd(const struct sts_welford *w)
{
    if (w->n < 2) /* no spread from one sample: NaN (JSON null), never a 0 that reads as exact */
        return NAN;
    double var = w->m2 / (double)(w->n - 1);
    return var > 0.0 ? sqrt(var) : 0.0;
}
