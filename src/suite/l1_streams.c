/* L1's streams as --streams gives them: "name:HZxBYTES[:burst=N],...". */
#include "l1_internal.h"

#include <string.h>

/* ---- streams ---------------------------------------------------------- */
#define L1_STREAMS_BAD                                                                        \
    "L1: bad --streams (expected NAME:HZxBYTES[:burst=N][,...], e.g. imu:1000x12 or "        \
    "imu:1000x12:burst=32)"
static int parse_num(const char **p, uint64_t *v)
{
    const char *s = *p;
    uint64_t x = 0;
    if (*s < '0' || *s > '9')
        return -1;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (x > 100000000ull)
            return -1;
        x = x * 10 + (uint64_t)(*s - '0');
    }
    *p = s;
    *v = x;
    return 0;
}

/* One "name:HZxBYTES[:burst=N]" at *p, moved past it and its comma; NULL on
 * success, else what is wrong. */
static const char *parse_stream(const char **pp, char *name, size_t name_len, uint64_t *period_ns,
                                uint32_t *rec, uint32_t *burst)
{
    const char *p = *pp;
    size_t k = 0;
    while (*p && *p != ':' && k + 1 < name_len)
        name[k++] = *p++;
    name[k] = '\0';
    uint64_t hz, bytes;
    if (k == 0 || *p++ != ':' || parse_num(&p, &hz) || (*p != 'x' && *p != 'X'))
        return L1_STREAMS_BAD;
    p++;
    uint64_t n = 1;
    if (parse_num(&p, &bytes))
        return L1_STREAMS_BAD;
    if (!strncmp(p, ":burst=", 7)) {
        p += 7;
        if (parse_num(&p, &n))
            return L1_STREAMS_BAD;
    }
    if (*p && *p != ',')
        return L1_STREAMS_BAD;
    if (hz == 0 || hz > 1000000 || bytes == 0 || bytes > 255)
        return "L1: a stream needs 1 .. 1000000 Hz and 1 .. 255 bytes per record";
    if (n == 0 || n > 100000)
        return "L1: a stream's burst is 1 .. 100000 records";
    *period_ns = 1000000000ull / hz;
    *rec = (uint32_t)bytes;
    *burst = (uint32_t)n;
    if (*p == ',')
        p++;
    *pp = p;
    return NULL;
}

/* "name:HZxBYTES[:burst=N],..." -> streams; NULL on success, else what is wrong. */
const char *l1_parse_streams(struct l1 *l, const char *spec)
{
    const char *p = spec;
    l->n = 0;
    while (*p) {
        if (l->n == L1_MAX_STREAMS)
            return "L1: at most 8 streams";
        struct l1_stream *s = &l->s[l->n];
        const char *why = parse_stream(&p, s->name, sizeof(s->name), &s->period_ns, &s->rec,
                                        &s->burst);
        if (why)
            return why;
        l->n++;
    }
    return l->n ? NULL : "L1: --streams names no stream";
}

const char *sts_l1_streams_check(const char *spec)
{
    char name[L1_NAME_MAX];
    uint64_t period;
    uint32_t rec, burst, n = 0;
    for (const char *p = spec; *p; n++) {
        if (n == L1_MAX_STREAMS)
            return "L1: at most 8 streams";
        const char *why = parse_stream(&p, name, sizeof(name), &period, &rec, &burst);
        if (why)
            return why;
    }
    return n ? NULL : "L1: --streams names no stream";
}
