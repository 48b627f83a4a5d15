/* The portable unit tests on the MCU: the same groups as the host runner,
 * the same closing "N passed, N failed" line, the exit code says it. */
#include "board.h"
#include "groups.h"

static void print(const char *s)
{
    board_puts(s);
}

#ifdef STS_DELIBERATELY_FAILING
/* A test that must fail: proves a failure reaches the exit code. */
static void must_fail(void)
{
    CHECK(1 + 1 == 3);
}
static const struct sts_test_case failing_cases[] = {{"must_fail", must_fail}, {0, 0}};
#endif

int main(void)
{
#ifdef STS_DELIBERATELY_FAILING
    static const struct sts_test_case *const groups[] = {failing_cases};
    return sts_test_run(groups, 1, print) ? 1 : 0;
#else
    return sts_test_run(sts_test_groups, sts_n_test_groups, print) ? 1 : 0;
#endif
}
