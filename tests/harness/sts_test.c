#include "sts_test.h"
#include "storscope/port.h"
#include "storscope/units.h"

#define STS_TEST_STACK_BYTES 8192

const struct sts_task_attr *sts_test_task_attr(int slot)
{
    static uint64_t stacks[STS_TEST_TASKS][STS_TEST_STACK_BYTES / 8];
    static struct sts_task_attr attrs[STS_TEST_TASKS];
    struct sts_task_attr *a = &attrs[slot];
    *a = (struct sts_task_attr){.cpu = -1, .stack = stacks[slot], .stack_bytes = sizeof(stacks[slot])};
    return a;
}

static void (*out)(const char *);
static const char *current;
static int failed_now;

static void say_u64(uint64_t v)
{
    char b[24];
    sts_fmt_u64(b, v);
    out(b);
}

void sts_test_fail(const char *file, int line, const char *what)
{
    failed_now = 1;
    out("FAIL ");
    out(current);
    out(" (");
    out(file);
    out(":");
    say_u64((uint64_t)line);
    out("): ");
    out(what);
    out("\n");
}

void sts_test_fail_u64(const char *file, int line, const char *what, uint64_t a, uint64_t b)
{
    sts_test_fail(file, line, what);
    out("     got ");
    say_u64(a);
    out(", expected ");
    say_u64(b);
    out("\n");
}

int sts_test_failed_now(void)
{
    return failed_now;
}

int sts_test_run(const struct sts_test_case *const *groups, size_t n_groups,
                 void (*print)(const char *s))
{
    out = print;
    unsigned passed = 0, failed = 0;
    for (size_t g = 0; g < n_groups; g++)
        for (const struct sts_test_case *c = groups[g]; c->name; c++) {
            current = c->name;
            failed_now = 0;
            c->fn();
            if (failed_now)
                failed++;
            else
                passed++;
        }
    say_u64(passed);
    out(" passed, ");
    say_u64(failed);
    out(" failed\n");
    return (int)failed;
}
