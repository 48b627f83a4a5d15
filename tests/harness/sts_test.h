/* A small test harness that runs on the host and on the firmware alike: no
 * stdio, no heap; output goes through one print callback. Each test file
 * exports a NULL-terminated array of cases. */
#ifndef STS_TEST_H
#define STS_TEST_H

#include <stddef.h>
#include <stdint.h>

struct sts_test_case {
    const char *name;
    void (*fn)(void);
};

void sts_test_fail(const char *file, int line, const char *what);
void sts_test_fail_u64(const char *file, int line, const char *what, uint64_t a, uint64_t b);
int sts_test_failed_now(void);

/* Runs every case of every group; prints "N passed, N failed"; returns the
 * number of failed cases. */
int sts_test_run(const struct sts_test_case *const *groups, size_t n_groups,
                 void (*print)(const char *s));

/* Attributes for the test's task number `slot` (0 .. STS_TEST_TASKS - 1):
 * normal priority, any CPU, and a stack of its own, which an RTOS port
 * needs; tasks running at once take different slots. */
struct sts_task_attr;
#define STS_TEST_TASKS 8
const struct sts_task_attr *sts_test_task_attr(int slot);

#define CHECK(cond)                                        \
    do {                                                   \
        if (!(cond)) {                                     \
            sts_test_fail(__FILE__, __LINE__, #cond);      \
            return;                                        \
        }                                                  \
    } while (0)

#define CHECK_EQ(a, b)                                                              \
    do {                                                                            \
        uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                            \
        if (a_ != b_) {                                                             \
            sts_test_fail_u64(__FILE__, __LINE__, #a " == " #b, a_, b_);            \
            return;                                                                 \
        }                                                                           \
    } while (0)

/* |a - b| <= tol * |b| */
#define CHECK_REL(a, b, tol)                                                        \
    do {                                                                            \
        double a_ = (double)(a), b_ = (double)(b);                                  \
        double d_ = a_ > b_ ? a_ - b_ : b_ - a_;                                    \
        double m_ = b_ < 0 ? -b_ : b_;                                              \
        if (d_ > (tol) * m_) {                                                      \
            sts_test_fail_u64(__FILE__, __LINE__, #a " ~= " #b, (uint64_t)a_,       \
                              (uint64_t)b_);                                        \
            return;                                                                 \
        }                                                                           \
    } while (0)

#define CHECK_STR(a, b) CHECK(strcmp((a), (b)) == 0)

#endif
