/* L1's streams as --streams gives them: "name:HZxBYTES,...". */
#include "l1_internal.h"

#include <string.h>

/* ---- streams ---------------------------------------------------------- */
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

/* One "name:HZxBYTES" at *p, moved past it and its comma; NULL on
 * success, else what is wrong. */
static const char *parse_stream(const char **pp, char *name, size_t name_len, uint64_t *period_ns,
                                uint32_t *rec)
{
    const char *p = *pp;
    size_t k = 0;
    while (*p && *p != ':' && k + 1 < name_len)
        name[k++] = *p++;
    name[k] = '\0';
    uint64_t hz, bytes;
    if (k == 0 || *p++ != ':' || parse_num(&p, &hz) || (*p != 'x' && *p != 'X'))
        return "L1: bad --streams (expected NAME:HZxBYTES[,...], e.g. imu:1000x12)";
    p++;
    if (parse_num(&p, &bytes) || (*p && *p != ','))
        return "L1: bad --streams (expected NAME:HZxBYTES[,...], e.g. imu:1000x12)";
    if (hz == 0 || hz > 1000000 || bytes == 0 || bytes > 255)
        return "L1: a stream needs 1 .. 1000000 Hz and 1 .. 255 bytes per record";
    *period_ns = 1000000000ull / hz;
    *rec = (uint32_t)bytes;
    if (*p == ',')
        p++;
    *pp = p;
    return NULL;
}

/* "name:HZxBYTES,..." -> streams; NULL on success, else what is wrong. */
const char *l1_parse_streams(struct l1 *l, const char *spec)
{
    const char *p = spec;
    l->n = 0;
    while (*p) {
        if (l->n == L1_MAX_STREAMS)
            return "L1: at most 8 streams";
        struct l1_stream *s = &l->s[l->n];
        const char *why = parse_stream(&p, s->name, sizeof(s->name), &s->period_ns, &s->rec);
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
    uint32_t rec, n = 0;
    for (const char *p = spec; *p; n++) {
        if (n == L1_MAX_STREAMS)
            return "L1: at most 8 streams";
        const char *why = parse_stream(&p, name, sizeof(name), &period, &rec);
        if (why)
            return why;
    }
    return n ? NULL : "L1: --streams names no stream";
}
