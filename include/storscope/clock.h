/* Clock interface. On POSIX it is CLOCK_MONOTONIC; a simulated device brings a
 * virtual clock so that runs are deterministic. Workloads only ever see this. */
#ifndef STORSCOPE_CLOCK_H
#define STORSCOPE_CLOCK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sts_clock_ops {
    /* Nanoseconds since an arbitrary origin; never goes backwards. */
    uint64_t (*now_ns)(void *ctx);
};

struct sts_clock {
    const struct sts_clock_ops *ops;
    void *ctx;
};

static inline uint64_t sts_clock_now(const struct sts_clock *c)
{
    return c->ops->now_ns(c->ctx);
}

#ifdef __cplusplus
}
#endif
#endif
