/* The suite images' clock: the simulated device's virtual time plus the
 * CPU time the MCU spent, counted in instructions (QEMU -icount shift=0:
 * one instruction per ns of guest time) and converted at STS_CPU_HZ (the
 * study's 160 MHz). The CPU time since the last reading is folded into the
 * model's clock: while the MCU computes, a command in flight progresses,
 * which is what lets the non-blocking path complete - and a filesystem's
 * own work per call (FileX's, at 1 B) counts as it did on the study's
 * board. */
#include "mcu_clock.h"

#include "storscope/port.h"

#define INSTR_PER_NS_OF_GUEST 1ull /* -icount shift=0 */

static struct sts_sim *bound;
static uint64_t last_cpu_ns;

uint64_t mcu_cpu_ns(void)
{
#ifdef STS_PORT_CLOCK_IS_MCU_TIME
    /* an RTOS board's port clock (clock_an505_timers.c) already counts MCU
     * time at STS_CPU_HZ: the kernel keeps SysTick for its tick */
    return sts_clock_now(sts_port_clock());
#else
    uint64_t instructions = sts_clock_now(sts_port_clock()) * INSTR_PER_NS_OF_GUEST;
    return sts_ticks_to_ns(instructions, STS_CPU_HZ); /* x 1e9 overflowed at 18 s */
#endif
}

static uint64_t mcu_now_ns(void *ctx)
{
    (void)ctx;
    uint64_t cpu_ns = mcu_cpu_ns();
    bound->now_ns += cpu_ns - last_cpu_ns;
    last_cpu_ns = cpu_ns;
    return bound->now_ns;
}
static const struct sts_clock_ops mcu_clock_ops = {mcu_now_ns};

struct sts_clock mcu_clock(struct sts_sim *sim)
{
    bound = sim;
    last_cpu_ns = mcu_cpu_ns();
    return (struct sts_clock){&mcu_clock_ops, 0};
}
