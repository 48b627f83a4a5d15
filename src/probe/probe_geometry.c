/* probe.h: geometry by read timing - the page, and the allocation unit
 * where a read across its boundary costs more. */
#include "storscope/probe.h"
#include "storscope/error.h"
#include "probe_internal.h"

#include <string.h>

/* ---- geometry by read timing ------------------------------------------- */
#define GEO_POSITIONS 8 /* odd multiples of each align */
#define GEO_REPEATS 3   /* the fastest of these: a real device's noise is one-sided */

static int timed_read(const struct sts_probe_env *e, uint64_t at, uint32_t len, uint64_t *best)
{
    *best = UINT64_MAX;
    if (probe_stopped(e))
        return STS_EINTR;
    for (int r = 0; r < GEO_REPEATS; r++) {
        uint64_t t0 = sts_clock_now(&e->clock);
        int rc = e->bd.ops->read(e->bd.ctx, at, e->buf, len);
        if (rc)
            return rc;
        uint64_t dt = sts_clock_now(&e->clock) - t0;
        *best = dt < *best ? dt : *best;
    }
    return STS_OK;
}

static int cmp_i64(int64_t a, int64_t b)
{
    return (a > b) - (a < b);
}

static int64_t median_i64(int64_t *v, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++)
        for (uint32_t j = i; j > 0 && cmp_i64(v[j - 1], v[j]) > 0; j--) {
            int64_t t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return v[n / 2];
}

/* Times reads across boundaries of start, 2 start, 4 start ... as far as
 * odd multiples of each spread over the device fit, appending to out. In
 * the powers of two the multiples are not multiples of 3 either, so no
 * position lands on a boundary of a 3 x 2^k unit, and in that series such
 * a unit shows no step at all instead of a median of a third that cross. */
static int scan_series(const struct sts_probe_env *e, uint64_t capacity, uint32_t sector,
                       uint64_t start, int not_threes, struct sts_probe_geometry *out,
                       int64_t *beside)
{
    uint32_t len = out->read_bytes;
    for (uint64_t a = start; a * (2 * GEO_POSITIONS + 1) <= capacity &&
                             out->n < STS_PROBE_MAX_ALIGNS; a *= 2) {
        int64_t d[GEO_POSITIONS];
        for (uint32_t k = 0; k < GEO_POSITIONS; k++) {
            /* odd multiples spread over the device: aligned to a, not to 2a */
            uint64_t m = (capacity / a - 1) / (2 * GEO_POSITIONS) * (2 * k + 1);
            m |= 1;
            if (not_threes && m % 3 == 0)
                m -= 2; /* still odd, below the last that fits */
            uint64_t p = a * m, pre, on, post;
            int rc = timed_read(e, p - len, len, &pre);
            if (!rc)
                rc = timed_read(e, p - sector, len, &on);
            if (!rc)
                rc = timed_read(e, p, len, &post);
            if (rc)
                return rc;
            d[k] = (int64_t)on - (int64_t)(pre + post) / 2;
            *beside = (int64_t)pre < *beside ? (int64_t)pre : *beside;
        }
        out->align[out->n] = a;
        out->diff_ns[out->n] = median_i64(d, GEO_POSITIONS);
        out->n++;
    }
    return STS_OK;
}

/* One series of aligns: a boundary shows as a step up that stays (a larger
 * align of the series is a boundary of every smaller one). first: the
 * first align at a quarter of the largest step, unit: the first at three
 * quarters (n: none). 1: a level that stays; 0: no step; -1: a step that
 * does not stay - noise. */
static int series_levels(const int64_t *d, uint32_t n, int64_t dmax, uint32_t *first,
                         uint32_t *unit)
{
    *first = 0;
    *unit = n;
    while (*first < n && d[*first] * 4 < dmax)
        (*first)++;
    if (*first == n)
        return 0;
    for (uint32_t i = *first; i < n; i++) {
        if (d[i] * 4 < dmax)
            return -1;
        if (*unit == n && d[i] * 4 >= dmax * 3)
            *unit = i;
    }
    /* the unit's level is the median of the steps from it on, not their
     * largest: one align read slow by noise raised the bar above the
     * unit's own step and said twice the unit (au=4M under noise=0.1 gave
     * 8 MiB in 1 of 20 seeds) */
    int64_t top[STS_PROBE_MAX_ALIGNS];
    while (*unit < n && *unit > *first) {
        uint32_t k = 0;
        for (uint32_t i = *unit; i < n; i++)
            top[k++] = d[i];
        if (d[*unit - 1] * 4 < median_i64(top, k) * 3)
            break;
        (*unit)--;
    }
    return 1;
}

int sts_probe_geometry(const struct sts_probe_env *e, struct sts_probe_geometry *out)
{
    struct sts_bd_geometry g;
    probe_device_geometry(e, &g);
    memset(out, 0, sizeof(*out));
    if (g.flags & STS_BD_NEEDS_ERASE)
        return STS_ENOTSUP;
    if (e->usable_bytes && e->usable_bytes < g.capacity)
        g.capacity = e->usable_bytes; /* a counterfeit's reads beyond it mean nothing */
    uint32_t sector = g.read_size > 512 ? g.read_size : 512;
    uint32_t len = 2 * sector;
    if (e->buf_bytes < len)
        return STS_EINVAL;
    out->read_bytes = len;
    uint64_t t0 = sts_clock_now(&e->clock);
    int64_t dmax = 0, beside = INT64_MAX;
    /* the powers of two, then 3 x them: SD's AUs include 12 and 24 MiB */
    int rc = scan_series(e, g.capacity, sector, len, 1, out, &beside);
    out->n_pow2 = out->n;
    if (!rc)
        rc = scan_series(e, g.capacity, sector, 3ull * len, 0, out, &beside);
    if (rc)
        return rc;
    for (uint32_t i = 0; i < out->n; i++)
        dmax = out->diff_ns[i] > dmax ? out->diff_ns[i] : dmax;
    out->device_ns = sts_clock_now(&e->clock) - t0;
    /* the page is the first align at a quarter of the largest step, the
     * unit the first at three quarters, in either series (the smaller);
     * one level only means only the unit shows. Too small a step, or one
     * that does not stay in its series, is noise: nothing is claimed. */
    out->top_step_ns = dmax;
    out->read_ns = beside;
    if (dmax < 5000)
        return STS_OK;
    uint32_t n2 = out->n_pow2, n3 = out->n - n2, f2, u2, f3, u3;
    int r2 = series_levels(out->diff_ns, n2, dmax, &f2, &u2);
    int r3 = series_levels(out->diff_ns + n2, n3, dmax, &f3, &u3);
    if (r2 < 0 || r3 < 0 || dmax * 10 < beside) {
        out->unresolved = 1;
        return STS_OK;
    }
    uint64_t unit = u2 < n2 ? out->align[u2] : 0, page = 0;
    if (u3 < n3 && (!unit || out->align[n2 + u3] < unit))
        unit = out->align[n2 + u3];
    /* a series' first level below its own unit level is the page */
    if (r2 > 0 && f2 != u2 && out->align[f2] < unit)
        page = out->align[f2];
    if (r3 > 0 && f3 != u3 && out->align[n2 + f3] < unit && (!page || out->align[n2 + f3] < page))
        page = out->align[n2 + f3];
    out->visible = 1;
    out->unit_bytes = unit;
    out->page_bytes = page;
    /* one level, a power of two below the erase unit the device reports:
     * a unit smaller than what the device erases is not its unit, so that
     * level is the page and the unit is not seen - beyond the scan (a 16
     * MiB fake gave "erase unit 16 KiB", its page, and the advice to align
     * to it), or within it but costing a read nothing (a card whose reads
     * cost more only across pages: sd-a2 with read_page_cross=100us gave
     * the same). A page is never 3 x 2^k: such a step is an AU (au=3M on a
     * card that reports 4 MiB erase blocks). */
    if (!out->page_bytes && g.erase_size > out->unit_bytes && !(unit & (unit - 1))) {
        out->page_bytes = out->unit_bytes;
        out->unit_bytes = 0;
    }
    return STS_OK;
}
