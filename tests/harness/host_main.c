#include "sts_test.h"
#include "groups.h"

#include <stdio.h>

static void print(const char *s)
{
    fputs(s, stdout);
}

int main(void)
{
    int failed = sts_test_run(sts_test_groups, sts_n_test_groups, print);
    return failed ? 1 : 0;
}
