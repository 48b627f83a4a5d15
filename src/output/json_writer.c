#include "storscope/error.h"
#include "storscope/json.h"
#include "storscope/units.h"

#include <math.h>
#include <string.h>

void sts_jw_init(struct sts_jw *w, int (*write)(void *, const char *, size_t), void *ctx,
                 int pretty)
{
    memset(w, 0, sizeof(*w));
    w->write = write;
    w->ctx = ctx;
    w->pretty = pretty;
}

int sts_jw_flush(struct sts_jw *w)
{
    if (w->len && !w->err) {
        if (w->write(w->ctx, w->buf, w->len) < 0)
            w->err = STS_EIO;
    }
    w->len = 0;
    return w->err;
}

int sts_jw_error(const struct sts_jw *w)
{
    return w->err;
}

static void put(struct sts_jw *w, const char *s, size_t n)
{
    while (n && !w->err) {
        if (w->len == STS_JW_BUF)
            sts_jw_flush(w);
        size_t room = STS_JW_BUF - w->len;
        size_t k = n < room ? n : room;
        memcpy(w->buf + w->len, s, k);
        w->len += k;
        s += k;
        n -= k;
    }
}

static void puts_(struct sts_jw *w, const char *s)
{
    put(w, s, strlen(s));
}

static void newline(struct sts_jw *w)
{
    if (!w->pretty || w->depth == 0 || w->compact[w->depth - 1])
        return;
    put(w, "\n", 1);
    for (int i = 0; i < w->depth; i++)
        put(w, "  ", 2);
}

void sts_jw_raw_newline(struct sts_jw *w)
{
    put(w, "\n", 1);
}

/* Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong
 * forms, no surrogates, nothing past U+10FFFF), or 0. */
static size_t utf8_seq(const unsigned char *p)
{
    unsigned char c = p[0], lo = 0x80, hi = 0xBF;
    size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (c == 0xE0)
        lo = 0xA0;
    else if (c == 0xED)
        hi = 0x9F;
    else if (c == 0xF0)
        lo = 0x90;
    else if (c == 0xF4)
        hi = 0x8F;
    if (n && (p[1] < lo || p[1] > hi))
        return 0;
    for (size_t i = 2; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    return n;
}

/* JSON text is UTF-8: a byte that is not part of a well-formed sequence (a
 * directory named in Latin-1, a device's raw model string) becomes U+FFFD,
 * so every results file parses. */
static void quoted(struct sts_jw *w, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    put(w, "\"", 1);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') {
            char e[2] = {'\\', (char)ch};
            put(w, e, 2);
        } else if (ch == '\n') {
            put(w, "\\n", 2);
        } else if (ch == '\t') {
            put(w, "\\t", 2);
        } else if (ch == '\r') {
            put(w, "\\r", 2);
        } else if (ch < 0x20) {
            char e[6] = {'\\', 'u', '0', '0', hex[ch >> 4], hex[ch & 15]};
            put(w, e, 6);
        } else if (ch < 0x80) {
            put(w, (const char *)&ch, 1);
        } else {
            size_t n = utf8_seq((const unsigned char *)s);
            if (n) {
                put(w, s, n);
                s += n - 1;
            } else {
                put(w, "\\ufffd", 6);
            }
        }
    }
    put(w, "\"", 1);
}

/* Separator, indentation and key before a value. */
static void member(struct sts_jw *w, const char *key)
{
    if (w->depth > 0) {
        int level = w->depth - 1;
        if (w->count[level])
            put(w, w->compact[level] ? ", " : ",", w->compact[level] ? 2 : 1);
        if (w->count[level] < 255)
            w->count[level]++;
    }
    newline(w);
    if (key) {
        quoted(w, key);
        put(w, w->pretty ? ": " : ":", w->pretty ? 2 : 1);
    }
}

static void open_(struct sts_jw *w, const char *key, char ch, int compact)
{
    member(w, key);
    put(w, &ch, 1);
    if (w->depth >= STS_JW_MAX_DEPTH) {
        w->err = STS_ERANGE;
        return;
    }
    w->count[w->depth] = 0;
    w->compact[w->depth] = (uint8_t)compact;
    w->is_array[w->depth] = ch == '[';
    w->depth++;
}

void sts_jw_object(struct sts_jw *w, const char *key)
{
    open_(w, key, '{', 0);
}

void sts_jw_array(struct sts_jw *w, const char *key, int compact)
{
    open_(w, key, '[', compact);
}

void sts_jw_end(struct sts_jw *w)
{
    if (w->depth <= 0) {
        w->err = STS_EINVAL;
        return;
    }
    int level = w->depth - 1;
    int had = w->count[level] != 0, compact = w->compact[level];
    w->depth--;
    /* the closing bracket goes on its own line unless the level was
     * compact or empty */
    if (had && !compact && w->pretty) { /* back out to the parent's indent */
        put(w, "\n", 1);
        for (int i = 0; i < w->depth; i++)
            put(w, "  ", 2);
    }
    put(w, w->is_array[level] ? "]" : "}", 1);
}

void sts_jw_str(struct sts_jw *w, const char *key, const char *s)
{
    member(w, key);
    if (s)
        quoted(w, s);
    else
        puts_(w, "null");
}

void sts_jw_u64(struct sts_jw *w, const char *key, uint64_t v)
{
    char num[24];
    member(w, key);
    put(w, num, sts_fmt_u64(num, v));
}

void sts_jw_i64(struct sts_jw *w, const char *key, int64_t v)
{
    member(w, key);
    char num[24];
    if (v < 0) {
        put(w, "-", 1);
        put(w, num, sts_fmt_u64(num, (uint64_t)0 - (uint64_t)v));
    } else {
        put(w, num, sts_fmt_u64(num, (uint64_t)v));
    }
}

void sts_jw_double(struct sts_jw *w, const char *key, double v)
{
    char num[32];
    member(w, key);
    put(w, num, sts_fmt_double(num, v));
}

void sts_jw_bool(struct sts_jw *w, const char *key, int v)
{
    member(w, key);
    puts_(w, v ? "true" : "false");
}

void sts_jw_null(struct sts_jw *w, const char *key)
{
    member(w, key);
    puts_(w, "null");
}

void sts_jw_kv(struct sts_jw *w, const struct sts_kv *kv)
{
    switch (kv->type) {
    case STS_KV_INT: sts_jw_i64(w, kv->key, kv->v.i); break;
    case STS_KV_UINT: sts_jw_u64(w, kv->key, kv->v.u); break;
    case STS_KV_DOUBLE: sts_jw_double(w, kv->key, kv->v.d); break;
    case STS_KV_STR: sts_jw_str(w, kv->key, kv->v.s); break;
    case STS_KV_BOOL: sts_jw_bool(w, kv->key, kv->v.b); break;
    }
}

size_t sts_fmt_double(char *buf, double v)
{
    if (!isfinite(v)) {
        memcpy(buf, "null", 5);
        return 4;
    }
    size_t n = 0;
    if (v < 0) {
        buf[n++] = '-';
        v = -v;
    }
    if (v == 0.0) {
        buf[n++] = '0';
        buf[n] = '\0';
        return n;
    }
    if (v < 1e15 && v == floor(v)) { /* integral: print exactly */
        return n + sts_fmt_u64(buf + n, (uint64_t)v);
    }
    /* 10 significant digits: digits = round(v / 10^(e-9)) */
    int e = (int)floor(log10(v));
    double scaled = v / pow(10.0, e - 9);
    uint64_t digits = (uint64_t)(scaled + 0.5);
    if (digits >= 10000000000ull) {
        e++;
        digits = (uint64_t)(v / pow(10.0, e - 9) + 0.5);
    } else if (digits < 1000000000ull) {
        e--;
        digits = (uint64_t)(v / pow(10.0, e - 9) + 0.5);
    }
    char d[12];
    sts_fmt_u64(d, digits); /* exactly 10 characters */
    int last = 9;           /* drop trailing zeros */
    while (last > 0 && d[last] == '0')
        last--;
    if (e >= -5 && e < 15) {
        if (e >= 0) {
            for (int i = 0; i <= e; i++)
                buf[n++] = i <= 9 ? d[i] : '0';
            if (last > e) {
                buf[n++] = '.';
                for (int i = e + 1; i <= last; i++)
                    buf[n++] = d[i];
            }
        } else {
            buf[n++] = '0';
            buf[n++] = '.';
            for (int i = 0; i < -e - 1; i++)
                buf[n++] = '0';
            for (int i = 0; i <= last; i++)
                buf[n++] = d[i];
        }
    } else {
        buf[n++] = d[0];
        if (last > 0) {
            buf[n++] = '.';
            for (int i = 1; i <= last; i++)
                buf[n++] = d[i];
        }
        buf[n++] = 'e';
        if (e < 0) {
            buf[n++] = '-';
            e = -e;
        }
        n += sts_fmt_u64(buf + n, (uint64_t)e);
    }
    buf[n] = '\0';
    return n;
}
