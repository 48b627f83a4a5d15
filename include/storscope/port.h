/* OS port layer. For now: the platform's monotonic clock. Each platform
 * provides this in one file under src/port/ (posix_clock.c on Linux). */
#ifndef STORSCOPE_PORT_H
#define STORSCOPE_PORT_H

#include "storscope/clock.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The platform's monotonic clock (CLOCK_MONOTONIC on POSIX). */
const struct sts_clock *sts_port_clock(void);

#ifdef __cplusplus
}
#endif
#endif
