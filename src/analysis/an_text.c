/* Text of findings and guidelines: numbers with units, without stdio. */
#include "an_text.h"
#include "storscope/target.h"
#include "storscope/units.h"

#include <math.h>
#include <string.h>

void an_fixed(char *buf, size_t n, double v, int decimals)
{
    char tmp[40];
    size_t k = 0;
    if (v < 0 && v == v) {
        tmp[k++] = '-';
        v = -v;
    }
    uint64_t scale = 1;
    for (int i = 0; i < decimals; i++)
        scale *= 10;
    uint64_t x = sts_d2u64(v * (double)scale + 0.5); /* NaN, inf: defined */
    k += sts_fmt_u64(tmp + k, x / scale);
    if (decimals) {
        tmp[k++] = '.';
        uint64_t frac = x % scale;
        for (int i = decimals - 1; i >= 0; i--) {
            uint64_t p = 1;
            for (int j = 0; j < i; j++)
                p *= 10;
            tmp[k++] = (char)('0' + (frac / p) % 10);
        }
    }
    tmp[k] = '\0';
    sts_strlcpy(buf, tmp, n);
}

void an_rate(char *buf, size_t n, double bps)
{
    static const char *const unit[] = {" B/s", " KiB/s", " MiB/s", " GiB/s"};
    int u = 0;
    while (u < 3 && bps >= 1024.0)
        bps /= 1024.0, u++;
    an_fixed(buf, n, bps, bps >= 100 ? 0 : bps >= 10 ? 1 : 2);
    sts_strlcat(buf, unit[u], n);
}

void an_ms(char *buf, size_t n, double ns)
{
    if (ns >= 1e6) {
        an_fixed(buf, n, ns / 1e6, ns >= 1e8 ? 0 : 2);
        sts_strlcat(buf, " ms", n);
    } else {
        an_fixed(buf, n, ns / 1e3, 1);
        sts_strlcat(buf, " us", n);
    }
}

void an_ratio(char *buf, size_t n, double r)
{
    an_fixed(buf, n, r, r >= 10 ? 0 : 1);
    sts_strlcat(buf, "x", n);
}

void an_bytes(char *buf, size_t n, uint64_t b)
{
    sts_fmt_bytes(buf, n, b);
}

/* Joins up to 8 strings into an item. */
struct sts_an_item *an_add(struct sts_an_item *items, size_t *count, const char *kind,
                               const char *test)
{
    if (*count >= STS_AN_MAX_ITEMS)
        return NULL;
    struct sts_an_item *it = &items[(*count)++];
    memset(it, 0, sizeof(*it));
    sts_strlcpy(it->kind, kind, sizeof(it->kind));
    sts_strlcpy(it->test, test, sizeof(it->test));
    return it;
}

void an_say(struct sts_an_item *it, const char *const *parts, size_t n)
{
    if (!it)
        return;
    it->text[0] = '\0';
    for (size_t i = 0; i < n; i++)
        sts_strlcat(it->text, parts[i], sizeof(it->text));
}

/* A figure with its interval, as a guideline's evidence gives it:
 * "5.05 MiB/s +-1.2 %"; the figure alone where it is exact (virtual time:
 * a rerun repeats it) or its spread is not known. */
void an_figure(char *buf, size_t n, const struct sts_series *s, uint32_t i)
{
    char pm[16];
    an_rate(buf, n, s->bps[i]);
    if (!(s->ci[i] > 0) || !isfinite(s->ci[i]) || !(s->bps[i] > 0))
        return;
    double pct = 100.0 * s->ci[i] / s->bps[i];
    an_fixed(pm, sizeof(pm), pct < 0.1 ? 0.1 : pct, pct < 10 ? 1 : 0);
    sts_strlcat(buf, pct < 0.1 ? " +-<" : " +-", n);
    sts_strlcat(buf, pm, n);
    sts_strlcat(buf, " %", n);
}

/* How many runs the figures of points lo..hi are the means of, as a
 * guideline's evidence ends: "; 8 runs each", "; 5 to 12 runs", and a
 * single run named as one (its interval is its operations' spread, not
 * runs'); "" where every figure is exact, or a spread or the counts are not
 * known. */
void an_runs(char *buf, size_t n, const struct sts_series *s, uint32_t lo, uint32_t hi)
{
    uint32_t least = UINT32_MAX, most = 0;
    int exact = 1;
    for (uint32_t i = lo; i <= hi && i < s->n; i++) {
        if (!isfinite(s->ci[i])) { /* no spread recorded: UNPROVEN says so */
            buf[0] = '\0';
            return;
        }
        exact &= s->ci[i] == 0;
        least = s->runs[i] < least ? s->runs[i] : least;
        most = s->runs[i] > most ? s->runs[i] : most;
    }
    buf[0] = '\0';
    if (exact || !least)
        return;
    if (most == 1) {
        sts_strlcpy(buf, "; one run each: a single sample, its interval from its operations' "
                         "spread", n);
        return;
    }
    char a[24], b[24];
    a[sts_fmt_u64(a, least)] = '\0';
    b[sts_fmt_u64(b, most)] = '\0';
    sts_strlcpy(buf, "; ", n);
    sts_strlcat(buf, a, n);
    if (least != most) {
        sts_strlcat(buf, " to ", n);
        sts_strlcat(buf, b, n);
    }
    sts_strlcat(buf, least == most ? " runs each" : " runs", n);
}
