#include "storscope/suite.h"

#include <string.h>

extern const struct sts_test_def sts_test_b0, sts_test_b1, sts_test_b2, sts_test_m1,
    sts_test_fsync, sts_test_seq, sts_test_nb, sts_test_s2, sts_test_s1, sts_test_m2, sts_test_l1,
    sts_test_rand;

const struct sts_test_def *const sts_tests[] = {
    &sts_test_b0, &sts_test_b1, &sts_test_b2, &sts_test_m1, &sts_test_fsync, &sts_test_seq,
    &sts_test_nb, &sts_test_s2, &sts_test_s1, &sts_test_m2, &sts_test_l1, &sts_test_rand,
};
const size_t sts_n_tests = sizeof(sts_tests) / sizeof(sts_tests[0]);

static int ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = (char)((*a >= 'A' && *a <= 'Z') ? *a + 32 : *a);
        char y = (char)((*b >= 'A' && *b <= 'Z') ? *b + 32 : *b);
        if (x != y)
            return 0;
    }
    return *a == *b;
}

const struct sts_test_def *sts_test_find(const char *id)
{
    for (size_t i = 0; i < sts_n_tests; i++)
        if (ieq(sts_tests[i]->id, id))
            return sts_tests[i];
    return NULL;
}

static const char *const paper_ids[] = {"B0", "B1", "B2", "M1", "S2", "M2"};
static const char *const linux_ids[] = {"fsync", "seq"};
static const char *const logger_ids[] = {"L1", "fsync"};
static const char *const all_ids[] = {"B0", "B1",  "B2",    "M1",  "S1", "S2",
                                     "M2", "L1",  "fsync", "seq", "nb", "rand"};

/* a suite's ids and their count, counted (a literal count left a test added
 * to a list out of the suite without a word) */
#define IDS(list) list, sizeof(list) / sizeof(list[0])

const struct sts_suite_def sts_suites[] = {
    {"paper", "the reference study's workloads (STM32U5 + eMMC, Table 2)", IDS(paper_ids)},
    {"linux", "fsync profile (seed 001) and dd/hdparm throughput (seed 003)", IDS(linux_ids)},
    {"logger", "can this medium keep up with my streams, and with how much buffer (L1, fsync)",
     IDS(logger_ids)},
    {"all", "every workload", IDS(all_ids)},
};
const size_t sts_n_suites = sizeof(sts_suites) / sizeof(sts_suites[0]);

const struct sts_suite_def *sts_suite_find(const char *name)
{
    for (size_t i = 0; i < sts_n_suites; i++)
        if (strcmp(sts_suites[i].name, name) == 0)
            return &sts_suites[i];
    return NULL;
}
