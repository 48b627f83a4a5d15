#include "sts_test.h"
#include "storscope/error.h"
#include "storscope/target.h"

#include <string.h>

static struct sts_target_spec spec;

static void simple_kinds(void)
{
    const char *why = NULL;
    CHECK_EQ(sts_target_spec_parse("posix:/var/tmp", &spec, &why), 0);
    CHECK_STR(spec.kind, "posix");
    CHECK_STR(spec.arg, "/var/tmp");
    CHECK_EQ(spec.n_opts, 0);
    CHECK_STR(spec.fs, "");
    CHECK_EQ(sts_target_spec_parse("null:", &spec, &why), 0);
    CHECK_STR(spec.kind, "null");
    CHECK_STR(spec.arg, "");
}

static void options_and_fs(void)
{
    const char *why = NULL;
    CHECK_EQ(sts_target_spec_parse("posix:/mnt/sd,direct=1,sync=fdatasync", &spec, &why), 0);
    CHECK_STR(spec.arg, "/mnt/sd");
    CHECK_EQ(spec.n_opts, 2);
    CHECK_STR(spec.opts[0].key, "direct");
    CHECK_STR(spec.opts[0].value, "1");
    CHECK_STR(spec.opts[1].key, "sync");
    CHECK_STR(spec.opts[1].value, "fdatasync");
    CHECK_EQ(sts_target_spec_parse("sim:sd-consumer,seed=7+sensorlog", &spec, &why), 0);
    CHECK_STR(spec.kind, "sim");
    CHECK_STR(spec.arg, "sd-consumer");
    CHECK_EQ(spec.n_opts, 1);
    CHECK_STR(spec.opts[0].value, "7");
    CHECK_STR(spec.fs, "sensorlog");
    CHECK_EQ(sts_target_spec_parse("sim:nor-spi+littlefs,block_cycles=500,cache=256", &spec, &why), 0);
    CHECK_STR(spec.fs, "littlefs");
    CHECK_EQ(spec.n_fs_opts, 2);
    CHECK_STR(spec.fs_opts[1].key, "cache");
    CHECK_STR(spec.fs_opts[1].value, "256");
}

static void paths_with_odd_characters(void)
{
    const char *why = NULL;
    /* '+' not followed by an identifier, and ',' without '=', stay in ARG */
    CHECK_EQ(sts_target_spec_parse("posix:/mnt/c++/a,b", &spec, &why), 0);
    CHECK_STR(spec.arg, "/mnt/c++/a,b");
    CHECK_EQ(spec.n_opts, 0);
    CHECK_STR(spec.fs, "");
}

static void malformed(void)
{
    const char *why = NULL;
    CHECK(sts_target_spec_parse("", &spec, &why) == STS_EINVAL);
    CHECK(sts_target_spec_parse("/tmp", &spec, &why) == STS_EINVAL);
    CHECK(why && strstr(why, "KIND:ARG"));
    CHECK(sts_target_spec_parse(":x", &spec, &why) == STS_EINVAL);
    CHECK(sts_target_spec_parse("Po$ix:/tmp", &spec, &why) == STS_EINVAL);
    CHECK(sts_target_spec_parse("posix:/tmp,direct=1,=3", &spec, &why) == STS_EINVAL);
}

static void bools(void)
{
    int b = -1;
    CHECK(sts_parse_bool("yes", &b) == 0 && b == 1);
    CHECK(sts_parse_bool("0", &b) == 0 && b == 0);
    CHECK(sts_parse_bool("maybe", &b) == STS_EINVAL);
}

const struct sts_test_case test_target_spec_cases[] = {
    {"simple_kinds", simple_kinds},
    {"options_and_fs", options_and_fs},
    {"paths_with_odd_characters", paths_with_odd_characters},
    {"malformed", malformed},
    {"bools", bools},
    {NULL, NULL},
};
