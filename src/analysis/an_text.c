/* Text of findings and guidelines: numbers with units, without stdio. */
#include "an_text.h"
#include "storscope/target.h"
#include "storscope/units.h"

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
