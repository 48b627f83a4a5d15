/* Port clock for any Cortex-M: SysTick as a 24-bit down-counter, extended to
 * 64 bits by counting its wraps in the interrupt. STS_SYSTICK_HZ is the
 * counter's frequency (20 MHz on the AN505 as QEMU models it). */
#include "storscope/port.h"

#ifndef STS_SYSTICK_HZ
#define STS_SYSTICK_HZ 20000000u
#endif

#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)
#define RELOAD 0x00FFFFFFu

static volatile uint32_t wraps;

void SysTick_Handler(void);
void SysTick_Handler(void)
{
    wraps++;
}

void sts_port_clock_start(void);
void sts_port_clock_start(void)
{
    SYST_RVR = RELOAD;
    SYST_CVR = 0;
    SYST_CSR = 0x7; /* processor clock, interrupt, enable */
}

#define ICSR (*(volatile uint32_t *)0xE000ED04u)
#define ICSR_PENDSTSET (1u << 26)

static uint64_t ticks(void)
{
    uint32_t w, v1, v2;
    int pending;
    do { /* a counted wrap between the reads would pair the wrong halves */
        w = wraps;
        v1 = SYST_CVR;
        pending = (ICSR & ICSR_PENDSTSET) != 0; /* wrapped, interrupt masked */
        v2 = SYST_CVR;
    } while (w != wraps);
    return sts_tick_combine(w, v1, pending, v2, RELOAD);
}

static uint64_t last_ns; /* never step back, whatever the reads above missed */

static uint64_t systick_now_ns(void *ctx)
{
    (void)ctx;
    uint64_t ns = sts_ticks_to_ns(ticks(), STS_SYSTICK_HZ);
    if (ns < last_ns)
        ns = last_ns;
    last_ns = ns;
    return ns;
}

static const struct sts_clock_ops systick_ops = {systick_now_ns};
static const struct sts_clock systick_clock = {&systick_ops, 0};

const struct sts_clock *sts_port_clock(void)
{
    return &systick_clock;
}

void sts_port_wait_until(uint64_t deadline_ns)
{
    while (systick_now_ns(0) < deadline_ns)
        ;
}
