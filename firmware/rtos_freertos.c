/* FreeRTOS on the AN505: the first task runs the image's own main
 * (compiled as sts_app_main) and ends the run with its result; the idle
 * task's memory is static (no heap); a failed configASSERT says where and
 * exits non-zero. The kernel's port (ARM_CM33_NTZ) brings SVC, PendSV and
 * SysTick handlers of its own. */
#include "board.h"

#include "FreeRTOS.h"
#include "task.h"

#include <stdint.h>

#define MAIN_STACK_WORDS (32u * 1024u / sizeof(StackType_t))

int sts_app_main(void);

void sts_freertos_assert(const char *file, int line)
{
    static const char digits[] = "0123456789";
    char n[12];
    int i = (int)sizeof(n) - 1;
    n[i] = '\0';
    do {
        n[--i] = digits[line % 10];
        line /= 10;
    } while (line && i > 0);
    board_puts("\nFAULT: FreeRTOS assertion failed at ");
    board_puts(file);
    board_puts(":");
    board_puts(&n[i]);
    board_puts("\n");
    board_exit(97);
}

void vApplicationGetIdleTaskMemory(StaticTask_t **tcb, StackType_t **stack, uint32_t *words);
void vApplicationGetIdleTaskMemory(StaticTask_t **tcb, StackType_t **stack, uint32_t *words)
{
    static StaticTask_t idle_tcb;
    static StackType_t idle_stack[configMINIMAL_STACK_SIZE];
    *tcb = &idle_tcb;
    *stack = idle_stack;
    *words = configMINIMAL_STACK_SIZE;
}

static void main_task(void *arg)
{
    (void)arg;
    board_exit(sts_app_main());
}

int main(void)
{
    static StaticTask_t tcb;
    static StackType_t stack[MAIN_STACK_WORDS];
    /* storscope's normal level (src/port/freertos.c) */
    xTaskCreateStatic(main_task, "main", MAIN_STACK_WORDS, NULL, 1, stack, &tcb);
    vTaskStartScheduler();
    return 99; /* never: the scheduler runs the tasks */
}
