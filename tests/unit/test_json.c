#include "sts_test.h"
#include "storscope/error.h"
#include "storscope/json.h"

#include <math.h>
#include <string.h>

static char out[4096];
static size_t out_len;
static int fail_writes;

static int mem_write(void *ctx, const char *s, size_t n)
{
    (void)ctx;
    if (fail_writes || out_len + n >= sizeof(out))
        return -1;
    memcpy(out + out_len, s, n);
    out_len += n;
    out[out_len] = '\0';
    return 0;
}

static void writer_compact_document(void)
{
    struct sts_jw w;
    out_len = 0;
    fail_writes = 0;
    sts_jw_init(&w, mem_write, NULL, 0);
    sts_jw_object(&w, NULL);
    sts_jw_str(&w, "s", "a\"b\\c\n\x01");
    sts_jw_u64(&w, "u", 18446744073709551615ull);
    sts_jw_i64(&w, "i", -42);
    sts_jw_double(&w, "d", 2.5);
    sts_jw_double(&w, "nan", NAN);
    sts_jw_bool(&w, "t", 1);
    sts_jw_null(&w, "n");
    sts_jw_array(&w, "a", 1);
    sts_jw_u64(&w, NULL, 1);
    sts_jw_u64(&w, NULL, 2);
    sts_jw_end(&w);
    sts_jw_object(&w, "empty");
    sts_jw_end(&w);
    sts_jw_end(&w);
    CHECK_EQ(sts_jw_flush(&w), 0);
    CHECK_STR(out, "{\"s\":\"a\\\"b\\\\c\\n\\u0001\",\"u\":18446744073709551615,\"i\":-42,"
                   "\"d\":2.5,\"nan\":null,\"t\":true,\"n\":null,\"a\":[1, 2],\"empty\":{}}");
}

static void writer_pretty_and_errors(void)
{
    struct sts_jw w;
    out_len = 0;
    fail_writes = 0;
    sts_jw_init(&w, mem_write, NULL, 1);
    sts_jw_object(&w, NULL);
    sts_jw_u64(&w, "x", 1);
    sts_jw_end(&w);
    sts_jw_flush(&w);
    CHECK_STR(out, "{\n  \"x\": 1\n}");
    sts_jw_end(&w); /* one end too many */
    CHECK(sts_jw_error(&w) == STS_EINVAL);

    /* a failing medium is reported, not ignored */
    fail_writes = 1;
    sts_jw_init(&w, mem_write, NULL, 0);
    sts_jw_str(&w, NULL, "x");
    CHECK(sts_jw_flush(&w) == STS_EIO);
    fail_writes = 0;
}

static void writer_streams_long_output(void)
{
    /* more than the staging buffer: bytes must arrive complete and in order */
    struct sts_jw w;
    out_len = 0;
    sts_jw_init(&w, mem_write, NULL, 0);
    sts_jw_array(&w, NULL, 0);
    for (int i = 0; i < 300; i++)
        sts_jw_u64(&w, NULL, (uint64_t)i);
    sts_jw_end(&w);
    CHECK_EQ(sts_jw_flush(&w), 0);
    CHECK(strncmp(out, "[0,1,2,3,", 9) == 0);
    CHECK(strcmp(out + out_len - 9, ",298,299]") == 0);
}

static void doubles(void)
{
    static const struct {
        double v;
        const char *s;
    } cases[] = {
        {0.0, "0"},
        {1.0, "1"},
        {-2.5, "-2.5"},
        {0.1, "0.1"},
        {99.99, "99.99"},
        {99.5, "99.5"},
        {1e-7, "1e-7"},
        {123456789.125, "123456789.1"},
        {1e20, "1e20"},
        {4.85e-3, "0.00485"},
        {1048576.0, "1048576"},
        {3.14159265358979, "3.141592654"},
        {804.0 * 1024.0 / 3.0, "274432"},
        {1.0 / 3.0, "0.3333333333"},
    };
    char b[32];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        sts_fmt_double(b, cases[i].v);
        CHECK_STR(b, cases[i].s);
    }
    sts_fmt_double(b, INFINITY);
    CHECK_STR(b, "null");
}

/* Issue 13: a directory named in Latin-1 made results files that were not
 * UTF-8 (and so not JSON). Well-formed sequences pass through; every byte
 * that is not part of one becomes U+FFFD. Expected bytes written out by
 * hand from RFC 3629's table. */
static void writer_keeps_json_text_utf8(void)
{
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"d\xff\xfe", "\"d\\ufffd\\ufffd\""},                 /* Latin-1 bytes */
        {"\xc3\xa9t\xc3\xa9", "\"\xc3\xa9t\xc3\xa9\""},           /* "été": kept */
        {"\xe2\x82\xac \xf0\x9f\x92\xbe", "\"\xe2\x82\xac \xf0\x9f\x92\xbe\""}, /* 3 and 4 bytes */
        {"\xc0\xaf", "\"\\ufffd\\ufffd\""},                     /* overlong '/' */
        {"\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\""},         /* a surrogate */
        {"\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""}, /* past U+10FFFF */
        {"a\xe2\x82", "\"a\\ufffd\\ufffd\""},                   /* cut short at the end */
        {"\x80x", "\"\\ufffdx\""},                               /* a lone continuation */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct sts_jw w;
        out_len = 0;
        fail_writes = 0;
        sts_jw_init(&w, mem_write, NULL, 0);
        sts_jw_str(&w, NULL, cases[i].in);
        CHECK_EQ(sts_jw_flush(&w), 0);
        CHECK_STR(out, cases[i].want);
    }
}

const struct sts_test_case test_json_cases[] = {
    {"writer_keeps_json_text_utf8", writer_keeps_json_text_utf8},
    {"writer_compact_document", writer_compact_document},
    {"writer_pretty_and_errors", writer_pretty_and_errors},
    {"writer_streams_long_output", writer_streams_long_output},
    {"doubles", doubles},
    {NULL, NULL},
};
