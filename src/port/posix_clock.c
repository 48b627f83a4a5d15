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

void sts_port_wait_until(uint64_t deadline_ns)
{
    /* nanosleep overshoots by tens of microseconds: sleep short of the
     * deadline, then spin */
    const uint64_t spin_ns = 200000;
    uint64_t now = posix_now_ns(NULL);
    if (deadline_ns > now + spin_ns) {
        uint64_t wake = deadline_ns - spin_ns;
        struct timespec ts = {(time_t)(wake / 1000000000ull), (long)(wake % 1000000000ull)};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
            ;
    }
    while (posix_now_ns(NULL) < deadline_ns)
        ;
}
