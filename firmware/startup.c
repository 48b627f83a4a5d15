/* Reset, vector table and fault handlers for a Cortex-M33 (AN505 on QEMU).
 * A fault prints its registers through semihosting and exits non-zero, so a
 * crash can never look like a pass. */
#include <stdint.h>
#include <string.h>

#include "board.h"

extern uint32_t __data_start, __data_end, __data_load, __bss_start, __bss_end;
extern uint32_t __psram_start, __psram_end, __stack_top;
int main(void);

void reset_handler(void);
void fault_handler(void);
void default_handler(void);
/* What an RTOS kernel or a clock file provides; unexpected elsewhere. */
void SVC_Handler(void) __attribute__((weak, alias("default_handler")));
void PendSV_Handler(void) __attribute__((weak, alias("default_handler")));
void SysTick_Handler(void) __attribute__((weak, alias("default_handler")));
void TIMER0_Handler(void) __attribute__((weak, alias("default_handler"))); /* IRQ 3 */
void TIMER1_Handler(void) __attribute__((weak, alias("default_handler"))); /* IRQ 4 */

/* Copies done word by word in plain loops the compiler may not turn into
 * memcpy/memset calls before .data exists (-fno-tree-loop-distribute-patterns
 * on this file). */
void reset_handler(void)
{
    /* the linker symbols bound regions, so comparing them is the point */
    uint32_t *src = &__data_load, *dst = &__data_start;
    // cppcheck-suppress comparePointers
    while (dst < &__data_end)
        *dst++ = *src++;
    // cppcheck-suppress comparePointers
    for (dst = &__bss_start; dst < &__bss_end; dst++)
        *dst = 0;
    // cppcheck-suppress comparePointers
    for (dst = &__psram_start; dst < &__psram_end; dst++)
        *dst = 0;
    board_init();
    int rc = main();
    board_exit(rc);
}

static void put_hex(const char *name, uint32_t v)
{
    static const char hex[] = "0123456789abcdef";
    char buf[24];
    size_t n = 0;
    while (*name)
        buf[n++] = *name++;
    buf[n++] = '=';
    for (int i = 7; i >= 0; i--)
        buf[n++] = hex[(v >> (4 * i)) & 15];
    buf[n++] = ' ';
    buf[n] = '\0';
    board_puts(buf);
}

/* Called with the exception frame the fault pushed. */
void fault_report(uint32_t *frame, uint32_t exc_return);
void fault_report(uint32_t *frame, uint32_t exc_return)
{
    volatile uint32_t *scb = (volatile uint32_t *)0xE000ED00;
    board_puts("\nFAULT: ");
    put_hex("pc", frame[6]);
    put_hex("lr", frame[5]);
    put_hex("xpsr", frame[7]);
    put_hex("cfsr", scb[0x28 / 4]);
    put_hex("hfsr", scb[0x2C / 4]);
    put_hex("bfar", scb[0x38 / 4]);
    put_hex("exc_return", exc_return);
    board_puts("\n");
    board_exit(99);
}

__attribute__((naked)) void fault_handler(void)
{
    __asm volatile("tst lr, #4\n"
                   "ite eq\n"
                   "mrseq r0, msp\n"
                   "mrsne r0, psp\n"
                   "mov r1, lr\n"
                   "b fault_report\n");
}

void default_handler(void)
{
    board_puts("\nFAULT: unexpected interrupt\n");
    board_exit(98);
}

#define H(f) ((uintptr_t)(f))
#define D8 H(default_handler), H(default_handler), H(default_handler), H(default_handler), \
           H(default_handler), H(default_handler), H(default_handler), H(default_handler)
/* Addresses as integers: ISO C has no object/function pointer mix. */
/* Not static: an RTOS kernel reads the initial stack pointer from it. */
__attribute__((section(".vectors"), used)) const uintptr_t vectors[16 + 48] = {
    (uintptr_t)&__stack_top,
    H(reset_handler),
    H(default_handler), /* NMI */
    H(fault_handler),   /* HardFault */
    H(fault_handler),   /* MemManage */
    H(fault_handler),   /* BusFault */
    H(fault_handler),   /* UsageFault */
    H(fault_handler),   /* SecureFault */
    0, 0, 0,
    H(SVC_Handler),
    H(default_handler), /* DebugMonitor */
    0,
    H(PendSV_Handler),
    H(SysTick_Handler),
    /* external interrupts 0..47: the AN505's CMSDK timers are 3 and 4 */
    H(default_handler), H(default_handler), H(default_handler), H(TIMER0_Handler),
    H(TIMER1_Handler), H(default_handler), H(default_handler), H(default_handler),
    D8, D8, D8, D8, D8,
};
