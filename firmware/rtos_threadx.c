/* ThreadX on the AN505: the kernel's low-level start (what the port's
 * template tx_initialize_low_level.S does, for this board), its tick on
 * SysTick, and the first thread, which runs the image's own main
 * (compiled as sts_app_main) and ends the run with its result. */
#include "board.h"

#include "tx_api.h"

#include <stdint.h>

#ifndef STS_CPU_HZ
#define STS_CPU_HZ 160000000u
#endif
#ifndef STS_THREADX_TICK_HZ
#define STS_THREADX_TICK_HZ 1000u
#endif
/* SysTick counts at 20 MHz under QEMU, 50 instructions a count: one tick
 * of MCU time at STS_CPU_HZ (clock_an505_timers.c) */
#define SYSTICK_COUNTS_PER_TICK (STS_CPU_HZ / 50u / STS_THREADX_TICK_HZ)
#define MAIN_STACK_BYTES (32u * 1024u)

int sts_app_main(void);
extern const uintptr_t vectors[];
extern uint32_t __bss_end;
extern VOID *_tx_initialize_unused_memory;
extern VOID *_tx_thread_system_stack_ptr;
VOID _tx_timer_interrupt(VOID);
VOID _tx_initialize_low_level(VOID);

VOID _tx_initialize_low_level(VOID)
{
    __asm volatile("cpsid i" ::: "memory");
    _tx_initialize_unused_memory = (VOID *)&__bss_end;
    _tx_thread_system_stack_ptr = (VOID *)vectors[0]; /* handlers run on the reset stack */
    volatile uint32_t *scs = (volatile uint32_t *)0xE000E000u;
    scs[0x14 / 4] = SYSTICK_COUNTS_PER_TICK - 1u; /* SysTick reload */
    scs[0x18 / 4] = 0;
    scs[0x10 / 4] = 0x7u;          /* processor clock, interrupt, enable */
    scs[0xD1C / 4] = 0xFF000000u;  /* SVCall lowest */
    scs[0xD20 / 4] = 0x40FF0000u;  /* SysTick 0x40, PendSV lowest */
}

void SysTick_Handler(void);
void SysTick_Handler(void)
{
    _tx_timer_interrupt();
}

static TX_THREAD main_thread;
static uint64_t main_stack[MAIN_STACK_BYTES / 8];

static VOID main_entry(ULONG arg)
{
    (void)arg;
    board_exit(sts_app_main());
}

VOID tx_application_define(VOID *first_unused_memory)
{
    (void)first_unused_memory;
    /* storscope's normal level (src/port/threadx.c), round robin each tick */
    tx_thread_create(&main_thread, (CHAR *)"main", main_entry, 0, main_stack,
                     sizeof(main_stack), 16, 16, 1, TX_AUTO_START);
}

int main(void)
{
    tx_kernel_enter();
    return 99; /* never: the kernel runs the threads */
}
