/* Port clock and alarm for an RTOS image on the AN505, where the kernel
 * keeps SysTick for its tick: CMSDK timer0 runs free as the clock (a
 * 32-bit down-counter extended by counting its wraps, as cortexm_systick.c
 * does SysTick), timer1 is the one-shot alarm behind sts_board_alarm().
 *
 * Time is the study's MCU time: QEMU runs one instruction per ns of guest
 * time (-icount shift=0) and its timers count at 20 MHz, 50 instructions a
 * count; at STS_CPU_HZ (160 MHz) 50 instructions are 312.5 ns, so the clock
 * counts at STS_CPU_HZ / 50. A device command of d ns then takes as many
 * instructions of the load tasks as it would on a 160 MHz part. */
#include "storscope/error.h"
#include "storscope/port.h"

#ifndef STS_CPU_HZ
#define STS_CPU_HZ 160000000u
#endif
#define INSTR_PER_COUNT 50u                     /* 1 GHz of instructions / 20 MHz */
#define COUNT_HZ (STS_CPU_HZ / INSTR_PER_COUNT) /* 3.2 MHz of MCU time */

struct cmsdk_timer {
    volatile uint32_t ctrl, value, reload, intstatus;
};
#define TIMER0 ((struct cmsdk_timer *)0x50000000u) /* secure aliases: the core runs secure */
#define TIMER1 ((struct cmsdk_timer *)0x50001000u)
#define CTRL_ENABLE 0x1u
#define CTRL_IRQ 0x8u
#define TIMER0_IRQ 3u
#define TIMER1_IRQ 4u
#define NVIC_ISER0 (*(volatile uint32_t *)0xE000E100u)
#define NVIC_ISPR0 (*(volatile uint32_t *)0xE000E200u) /* reads pending, writes 1 to pend */
#define NVIC_IPR ((volatile uint8_t *)0xE000E400u)
#define RELOAD 0xFFFFFFFFu

static volatile uint32_t wraps;

void TIMER0_Handler(void);
void TIMER0_Handler(void)
{
    TIMER0->intstatus = 1; /* clear */
    wraps++;
}

static uint64_t counts(void)
{
    uint32_t w, v1, v2;
    int pending;
    do {
        w = wraps;
        v1 = TIMER0->value;
        pending = (NVIC_ISPR0 >> TIMER0_IRQ) & 1u;
        v2 = TIMER0->value;
    } while (w != wraps);
    return sts_tick_combine(w, v1, pending, v2, RELOAD);
}

static uint64_t timers_now_ns(void *ctx)
{
    (void)ctx;
    return sts_ticks_to_ns(counts(), COUNT_HZ);
}

static const struct sts_clock_ops timers_ops = {timers_now_ns};
static const struct sts_clock timers_clock = {&timers_ops, 0};

const struct sts_clock *sts_port_clock(void)
{
    return &timers_clock;
}

void sts_port_clock_start(void);
void sts_port_clock_start(void)
{
    TIMER0->reload = RELOAD;
    TIMER0->value = RELOAD;
    TIMER0->ctrl = CTRL_ENABLE | CTRL_IRQ;
    TIMER1->ctrl = 0;
    /* below every kernel-aware priority a FreeRTOS or ThreadX may mask
     * (both let handlers at 0x80 and below call their ISR-safe API) */
    NVIC_IPR[TIMER0_IRQ] = 0xC0;
    NVIC_IPR[TIMER1_IRQ] = 0xC0;
    NVIC_ISER0 = (1u << TIMER0_IRQ) | (1u << TIMER1_IRQ);
}

/* ---- alarms: a list sorted by time, timer1 armed for the first ---------- */
#define MAX_ALARMS 16
static struct {
    uint64_t at;
    struct sts_sem *sem;
} alarms[MAX_ALARMS];
static volatile uint32_t n_alarms;

static uint32_t irq_save(void)
{
    uint32_t primask;
    __asm volatile("mrs %0, primask\n cpsid i" : "=r"(primask)::"memory");
    return primask;
}
static void irq_restore(uint32_t primask)
{
    __asm volatile("msr primask, %0" ::"r"(primask) : "memory");
}

/* With interrupts masked: posts what is due, arms timer1 for the next. */
static void alarms_service(void)
{
    uint64_t now = counts();
    uint32_t due = 0;
    while (due < n_alarms && alarms[due].at <= now)
        sts_port()->sem_post_from_isr(alarms[due++].sem);
    for (uint32_t i = due; i < n_alarms; i++)
        alarms[i - due] = alarms[i];
    n_alarms -= due;
    TIMER1->ctrl = 0;
    TIMER1->intstatus = 1;
    if (n_alarms) {
        uint64_t wait = alarms[0].at - now;
        uint32_t v = wait > 0x7FFFFFFFu ? 0x7FFFFFFFu : (uint32_t)wait;
        TIMER1->value = v;
        TIMER1->reload = v;
        TIMER1->ctrl = CTRL_ENABLE | CTRL_IRQ;
    }
}

void TIMER1_Handler(void);
void TIMER1_Handler(void)
{
    uint32_t m = irq_save();
    alarms_service();
    irq_restore(m);
}

int sts_board_alarm(uint64_t at_ns, struct sts_sem *sem)
{
    /* the first count at or after at_ns */
    uint64_t at = at_ns / 1000000000ull * COUNT_HZ +
                  ((at_ns % 1000000000ull) * COUNT_HZ + 999999999ull) / 1000000000ull;
    uint32_t m = irq_save();
    if (n_alarms == MAX_ALARMS) {
        irq_restore(m);
        return STS_ENOMEM;
    }
    uint32_t i = n_alarms;
    while (i > 0 && alarms[i - 1].at > at) {
        alarms[i] = alarms[i - 1];
        i--;
    }
    alarms[i].at = at;
    alarms[i].sem = sem;
    n_alarms++;
    /* A new first alarm: timer1's handler re-arms for it (and posts it if
     * it is already due) as soon as interrupts are unmasked. Never post from
     * here: a task-context post on ThreadX unmasks interrupts to switch
     * tasks at once (tx_thread_system_return), so another task's
     * sts_board_alarm ran inside this critical section and lost an alarm
     * from the list (a producer of L1 --tasks at 10 kHz slept forever). */
    if (i == 0)
        NVIC_ISPR0 = 1u << TIMER1_IRQ;
    irq_restore(m);
    return STS_OK;
}
