#include "sts_test.h"
#include "storscope/device.h"
#include "storscope/error.h"
#include "storscope/fs.h"
#include "storscope/port.h"
#include "storscope/units.h"

#include <string.h>

static void sizes(void)
{
    uint64_t b;
    CHECK(sts_parse_size("4096", &b) == 0 && b == 4096);
    CHECK(sts_parse_size("64K", &b) == 0 && b == 65536);
    CHECK(sts_parse_size("64k", &b) == 0 && b == 65536);
    CHECK(sts_parse_size("1.5M", &b) == 0 && b == 1572864);
    CHECK(sts_parse_size("500MiB", &b) == 0 && b == 500ull << 20);
    CHECK(sts_parse_size("2G", &b) == 0 && b == 2ull << 30);
    CHECK(sts_parse_size("1T", &b) == 0 && b == 1ull << 40);
    CHECK(sts_parse_size("", &b) == STS_EINVAL);
    CHECK(sts_parse_size("K", &b) == STS_EINVAL);
    CHECK(sts_parse_size("12Q", &b) == STS_EINVAL);
    CHECK(sts_parse_size("-1", &b) == STS_EINVAL);
    CHECK(sts_parse_size("1.5", &b) == STS_EINVAL); /* fractional bytes */
    CHECK(sts_parse_size("10 M", &b) == STS_EINVAL);
    CHECK(sts_parse_size("99999999999999999999", &b) == STS_ERANGE);
    CHECK(sts_parse_size("99999999999T", &b) == STS_ERANGE);
}

static void durations(void)
{
    uint64_t ns;
    CHECK(sts_parse_duration("30s", &ns) == 0 && ns == 30000000000ull);
    CHECK(sts_parse_duration("10", &ns) == 0 && ns == 10000000000ull);
    CHECK(sts_parse_duration("2m", &ns) == 0 && ns == 120000000000ull);
    CHECK(sts_parse_duration("1h", &ns) == 0 && ns == 3600000000000ull);
    CHECK(sts_parse_duration("500ms", &ns) == 0 && ns == 500000000ull);
    CHECK(sts_parse_duration("1.5s", &ns) == 0 && ns == 1500000000ull);
    CHECK(sts_parse_duration("250us", &ns) == 0 && ns == 250000ull);
    CHECK(sts_parse_duration("3x", &ns) == STS_EINVAL);
    CHECK(sts_parse_duration("s", &ns) == STS_EINVAL);
    CHECK(sts_parse_duration("", &ns) == STS_EINVAL);
}

static void formatting(void)
{
    char b[32];
    sts_fmt_u64(b, 0);
    CHECK_STR(b, "0");
    sts_fmt_u64(b, 18446744073709551615ull);
    CHECK_STR(b, "18446744073709551615");
    sts_fmt_bytes(b, sizeof(b), 512);
    CHECK_STR(b, "512 B");
    sts_fmt_bytes(b, sizeof(b), 4096);
    CHECK_STR(b, "4 KiB");
    sts_fmt_bytes(b, sizeof(b), 1572864);
    CHECK_STR(b, "1.5 MiB");
    sts_fmt_bytes(b, 4, 1572864);
    CHECK_STR(b, "1.5");
    /* the unit steps at exactly 1024 of the one below (IEC 80000-13) */
    sts_fmt_bytes(b, sizeof(b), 1023);
    CHECK_STR(b, "1023 B");
    sts_fmt_bytes(b, sizeof(b), 1024);
    CHECK_STR(b, "1 KiB");
    sts_fmt_bytes(b, sizeof(b), 1048576);
    CHECK_STR(b, "1 MiB");
}


/* Every double has a defined count (a plain cast of NaN, inf or -1 to
 * uint64_t is undefined behaviour: numbers from results files). */
static void doubles_to_counts_are_defined(void)
{
    CHECK_EQ(sts_d2u64(0.0 / 0.0), 0);
    CHECK_EQ(sts_d2u64(-1.0), 0);
    CHECK_EQ(sts_d2u64(-1e308 * 10.0), 0); /* -inf */
    CHECK_EQ(sts_d2u64(1e308 * 10.0), UINT64_MAX);
    CHECK_EQ(sts_d2u64(1e300), UINT64_MAX);
    CHECK_EQ(sts_d2u64(18446744073709551616.0), UINT64_MAX);
    CHECK_EQ(sts_d2u64(9223372036854775808.0), 9223372036854775808ull);
    CHECK_EQ(sts_d2u64(12.7), 12);
    CHECK_EQ(sts_d2u64(4096.0), 4096);
}

/* The three method tables take one rule: version 1 .. the library's own
 * is called, 0 (a table written before versions) and a newer one are
 * refused, each with a message saying which and what to set. */
static void method_tables_state_their_version(void)
{
    static const struct sts_bd_ops bd_v0 = {0}, bd_v1 = {.version = 1}, bd_v2 = {.version = 2},
                                   bd_v3 = {.version = 3};
    static const struct sts_fs_ops fs_v0 = {0}, fs_v1 = {.version = 1};
    static const struct sts_port_ops port_v7 = {.version = 7};
    char err[160];
    CHECK_EQ(sts_bd_ops_check(&bd_v1, err, sizeof(err)), STS_OK);
    CHECK_EQ(sts_bd_ops_check(&bd_v0, err, sizeof(err)), STS_EINVAL);
    CHECK(strcmp(err, "device method table of version 0 (written before tables had one: set "
                      ".version = STS_BD_OPS_VERSION)") == 0);
    CHECK_EQ(sts_bd_ops_check(&bd_v2, err, sizeof(err)), STS_OK); /* idle */
    CHECK_EQ(sts_bd_ops_check(&bd_v3, err, sizeof(err)), STS_EINVAL);
    CHECK(strcmp(err, "device method table of version 3: newer than this library, which "
                      "knows up to 2") == 0);
    CHECK_EQ(sts_bd_ops_check(NULL, err, sizeof(err)), STS_EINVAL);
    CHECK(strcmp(err, "device method table: none given") == 0);
    CHECK_EQ(sts_fs_ops_check(&fs_v1, err, sizeof(err)), STS_OK);
    CHECK_EQ(sts_fs_ops_check(&fs_v0, err, 12), STS_EINVAL); /* cut to fit, terminated */
    CHECK(strcmp(err, "filesystem ") == 0);
    CHECK_EQ(sts_port_ops_check(&port_v7, NULL, 0), STS_EINVAL);
    CHECK_EQ(sts_port_ops_check(sts_port(), err, sizeof(err)), STS_OK); /* this build's */
}

const struct sts_test_case test_units_cases[] = {
    {"method_tables_state_their_version", method_tables_state_their_version},
    {"doubles_to_counts_are_defined", doubles_to_counts_are_defined},
    {"sizes", sizes},
    {"durations", durations},
    {"formatting", formatting},
    {NULL, NULL},
};
