#include "storscope/units.h"
#include "storscope/error.h"

#include <string.h>

static int lower(int c)
{
    return (c >= 'A' && c <= 'Z') ? c + 32 : c;
}

static int suffix_is(const char *s, const char *word)
{
    while (*s && *word) {
        if (lower((unsigned char)*s) != *word)
            return 0;
        s++;
        word++;
    }
    return *s == '\0' && *word == '\0';
}

/* Parses a decimal number with an optional fraction; *end gets the rest. */
static int parse_decimal(const char *s, uint64_t *whole, uint64_t *frac_num,
                         uint64_t *frac_den, const char **end)
{
    uint64_t w = 0, fn = 0, fd = 1;
    int digits = 0;
    while (*s >= '0' && *s <= '9') {
        uint64_t d = (uint64_t)(*s - '0');
        if (w > (UINT64_MAX - d) / 10)
            return STS_ERANGE;
        w = w * 10 + d;
        s++;
        digits++;
    }
    if (*s == '.') {
        s++;
        while (*s >= '0' && *s <= '9') {
            if (fd < 1000000000000ull) {
                fn = fn * 10 + (uint64_t)(*s - '0');
                fd *= 10;
            }
            s++;
            digits++;
        }
    }
    if (!digits)
        return STS_EINVAL;
    *whole = w;
    *frac_num = fn;
    *frac_den = fd;
    *end = s;
    return STS_OK;
}

static int scale(uint64_t w, uint64_t fn, uint64_t fd, uint64_t mult, uint64_t *out)
{
    if (mult && w > UINT64_MAX / mult)
        return STS_ERANGE;
    uint64_t v = w * mult;
    /* fraction: fn/fd * mult, computed without overflow for our ranges */
    uint64_t f = (mult / fd) * fn + ((mult % fd) * fn) / fd;
    if (v > UINT64_MAX - f)
        return STS_ERANGE;
    *out = v + f;
    return STS_OK;
}

int sts_parse_u64(const char *s, uint64_t *out)
{
    uint64_t w, fn, fd;
    const char *end;
    if (!s || parse_decimal(s, &w, &fn, &fd, &end) != STS_OK || *end || fn)
        return STS_EINVAL;
    *out = w;
    return STS_OK;
}

int sts_parse_size(const char *s, uint64_t *bytes)
{
    uint64_t w, fn, fd;
    const char *end;
    if (!s)
        return STS_EINVAL;
    int rc = parse_decimal(s, &w, &fn, &fd, &end);
    if (rc)
        return rc;
    static const struct {
        const char *sfx[4];
        unsigned shift;
    } units[] = {
        {{"", "b", NULL, NULL}, 0},
        {{"k", "kb", "kib", NULL}, 10},
        {{"m", "mb", "mib", NULL}, 20},
        {{"g", "gb", "gib", NULL}, 30},
        {{"t", "tb", "tib", NULL}, 40},
    };
    for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++)
        for (size_t k = 0; k < 4 && units[u].sfx[k]; k++)
            if (suffix_is(end, units[u].sfx[k])) {
                if (units[u].shift == 0 && fn)
                    return STS_EINVAL; /* fractional bytes */
                return scale(w, fn, fd, 1ull << units[u].shift, bytes);
            }
    return STS_EINVAL;
}

int sts_parse_duration(const char *s, uint64_t *ns)
{
    uint64_t w, fn, fd;
    const char *end;
    if (!s)
        return STS_EINVAL;
    int rc = parse_decimal(s, &w, &fn, &fd, &end);
    if (rc)
        return rc;
    static const struct {
        const char *sfx;
        uint64_t mult;
    } units[] = {
        {"", 1000000000ull},  {"s", 1000000000ull}, {"ns", 1ull},
        {"us", 1000ull},      {"ms", 1000000ull},   {"m", 60000000000ull},
        {"min", 60000000000ull}, {"h", 3600000000000ull},
    };
    for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++)
        if (suffix_is(end, units[u].sfx))
            return scale(w, fn, fd, units[u].mult, ns);
    return STS_EINVAL;
}

size_t sts_fmt_u64(char *buf, uint64_t v)
{
    char tmp[21];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    buf[n] = '\0';
    return n;
}

size_t sts_fmt_bytes(char *buf, size_t n, uint64_t bytes)
{
    static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    char tmp[40];
    unsigned u = 0;
    uint64_t div = 1;
    while (u < 4 && bytes >= div * 1024)
        div *= 1024, u++;
    size_t len = sts_fmt_u64(tmp, bytes / div);
    uint64_t rem = bytes % div;
    if (rem) {
        /* one decimal, truncated: enough to tell 1.5 MiB from 1 MiB */
        uint64_t tenth = rem * 10 / div;
        tmp[len++] = '.';
        tmp[len++] = (char)('0' + tenth);
    }
    tmp[len++] = ' ';
    const char *name = names[u];
    while (*name)
        tmp[len++] = *name++;
    tmp[len] = '\0';
    if (n == 0)
        return len;
    size_t copy = len < n - 1 ? len : n - 1;
    memcpy(buf, tmp, copy);
    buf[copy] = '\0';
    return copy;
}

uint64_t sts_d2u64(double v)
{
    if (!(v > 0)) /* NaN fails every comparison */
        return 0;
    if (v >= 18446744073709551616.0) /* 2^64, exact as a double */
        return UINT64_MAX;
    return (uint64_t)v;
}

void sts_strlcpy(char *dst, const char *src, size_t n)
{
    if (!n)
        return;
    size_t len = strlen(src);
    if (len >= n)
        len = n - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

void sts_strlcat(char *dst, const char *src, size_t n)
{
    size_t used = strlen(dst);
    if (used < n)
        sts_strlcpy(dst + used, src, n - used);
}

int sts_parse_bool(const char *s, int *out)
{
    static const char *const yes[] = {"1", "yes", "true", "on"};
    static const char *const no[] = {"0", "no", "false", "off"};
    for (size_t i = 0; i < 4; i++) {
        if (strcmp(s, yes[i]) == 0) {
            *out = 1;
            return STS_OK;
        }
        if (strcmp(s, no[i]) == 0) {
            *out = 0;
            return STS_OK;
        }
    }
    return STS_EINVAL;
}
