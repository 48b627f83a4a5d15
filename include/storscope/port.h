/* OS port layer. For now: the platform's monotonic clock and a precise wait.
 * Each platform provides this in one file under src/port/ (posix_clock.c on
 * Linux). */
#ifndef STORSCOPE_PORT_H
#define STORSCOPE_PORT_H

#include "storscope/clock.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The platform's monotonic clock (CLOCK_MONOTONIC on POSIX). */
const struct sts_clock *sts_port_clock(void);
/* Returns once the port clock reads at least `deadline_ns`: sleeps for the
 * long part, spins for the last stretch so short waits stay accurate. */
void sts_port_wait_until(uint64_t deadline_ns);

#ifdef __cplusplus
}
#endif
#endif
