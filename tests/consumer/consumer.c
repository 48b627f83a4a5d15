/* A program outside the tree that uses the installed library: parses a
 * target, runs fsync on null: for 10 ms and checks that points arrived. */
#include <stdio.h>
#include <storscope/error.h>
#include <storscope/suite.h>
#include <storscope/target.h>

static int points;
static int on_point(void *ctx, const struct sts_test_info *ti, const struct sts_point *p)
{
    (void)ctx;
    (void)ti;
    points += p->skipped == NULL;
    return 0;
}

int main(void)
{
    static uint8_t buf[1 << 20];
    static uint64_t hist[STS_CTX_LATS * STS_HIST_BUCKETS];
    struct sts_target_spec spec;
    struct sts_target t = {0};
    char err[128];
    if (sts_target_spec_parse("null:", &spec, NULL) || sts_target_null.open(&t, &spec, err, sizeof(err)))
        return 1;
    const struct sts_test_def *tests[] = {sts_test_find("fsync")};
    struct sts_plan plan = {.tests = tests, .n_tests = 1, .duration_ns = 10000000, .seed = 1};
    struct sts_workspace ws = {buf, sizeof(buf), hist, STS_HIST_BUCKETS, STS_HIST_SUB_BITS,
                               STS_HIST_MAX_EXP, NULL, 0};
    static const struct sts_sink_ops ops = {.point = on_point};
    struct sts_sink sink = {&ops, NULL};
    struct sts_run_info ri = {.tool_version = STORSCOPE_VERSION, .target = "null:"};
    int rc = sts_engine_run(&plan, &t, &ws, &sink, 1, &ri);
    sts_target_null.close(&t);
    printf("consumer: %s, %d point(s)\n", sts_strerror(rc), points);
    return rc == STS_OK && points == 1 ? 0 : 1;
}
