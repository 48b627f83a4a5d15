/* Device time + MCU time for the suite images (mcu_clock.c). */
#ifndef STS_FIRMWARE_MCU_CLOCK_H
#define STS_FIRMWARE_MCU_CLOCK_H

#include "storscope/clock.h"
#include "storscope/sim.h"

#include <stdint.h>

#ifndef STS_CPU_HZ
#define STS_CPU_HZ 160000000ull /* the study's STM32U5 */
#endif

/* The clock of a target on `sim`: its virtual time with the MCU's CPU time
 * folded in (one simulator at a time). */
struct sts_clock mcu_clock(struct sts_sim *sim);
/* The MCU's CPU time alone, ns at STS_CPU_HZ. */
uint64_t mcu_cpu_ns(void);

#endif
