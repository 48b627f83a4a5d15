#define _POSIX_C_SOURCE 200809L
#include "storscope/port.h"

#include <time.h>

static uint64_t posix_now_ns(void *ctx)
{
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static const struct sts_clock_ops posix_clock_ops = {posix_now_ns};
static const struct sts_clock posix_clock = {&posix_clock_ops, NULL};

const struct sts_clock *sts_port_clock(void)
{
    return &posix_clock;
}
