/* Board: QEMU mps2-an505. Console and exit through Arm semihosting
 * (SYS_WRITE0, SYS_WRITE to ":tt", SYS_EXIT_EXTENDED so the exit code
 * reaches the shell); the tick clock is SysTick (see src/port/cortexm_systick.c). */
#include "board.h"

#include <string.h>

/* the clock file's: SysTick (cortexm_systick.c) or, where an RTOS has
 * SysTick for its tick, the CMSDK timers (clock_an505_timers.c) */
void sts_port_clock_start(void);

static int semihost(int op, const void *arg)
{
    register int r0 __asm("r0") = op;
    register const void *r1 __asm("r1") = arg;
    __asm volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

static int console = -1;

void board_init(void)
{
    static const char tt[] = ":tt";
    const void *args[3] = {tt, (const void *)4 /* "w" */, (const void *)3};
    console = semihost(0x01 /* SYS_OPEN */, args);
    sts_port_clock_start();
}

void board_write(const char *s, uint32_t n)
{
    if (console < 0) {
        semihost(0x04 /* SYS_WRITE0 */, s);
        return;
    }
    const void *args[3] = {(const void *)(intptr_t)console, s, (const void *)(uintptr_t)n};
    semihost(0x05 /* SYS_WRITE */, args);
}

int board_sink_write(void *ctx, const char *s, size_t n)
{
    (void)ctx;
    board_write(s, (uint32_t)n);
    return 0;
}

void board_puts(const char *s)
{
    board_write(s, (uint32_t)strlen(s));
}

int board_cmdline(char *buf, uint32_t n)
{
    /* SYS_GET_CMDLINE: QEMU answers with -semihosting-config's arg= words
     * joined by spaces (the first is the program's name) */
    uintptr_t args[2] = {(uintptr_t)buf, n};
    if (!n || semihost(0x15 /* SYS_GET_CMDLINE */, args) != 0) {
        if (n)
            buf[0] = '\0';
        return -1;
    }
    return 0;
}

void board_exit(int code)
{
    /* ADP_Stopped_ApplicationExit with an exit code */
    const uint32_t args[2] = {0x20026, (uint32_t)code};
    for (;;)
        semihost(0x20 /* SYS_EXIT_EXTENDED */, args);
}
