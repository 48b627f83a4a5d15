/* FreeRTOS for storscope's AN505 images (QEMU, Cortex-M33, secure only,
 * no TrustZone, no MPU, no FPU): static allocation only (storscope gives
 * every task its stack and every object its storage), preemption with
 * round robin at each tick, as the S1 measurement needs. */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

/* SysTick counts at 20 MHz under QEMU (50 instructions a count). 6,250
 * ticks a guest second = 3,200 counts = 160,000 instructions: one ms of
 * MCU time at the study's 160 MHz, which is what the port clock counts
 * (firmware/clock_an505_timers.c) and what STS_FREERTOS_TICK_NS states. */
#define configCPU_CLOCK_HZ 20000000u
#define configTICK_RATE_HZ 6250u
#define configUSE_PREEMPTION 1
#define configUSE_TIME_SLICING 1
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 0
#define configMAX_PRIORITIES 8 /* 0 idle, 1 storscope's normal level, 2..7 above */
#define configMINIMAL_STACK_SIZE 256
#define configMAX_TASK_NAME_LEN 12
#define configTICK_TYPE_WIDTH_IN_BITS TICK_TYPE_WIDTH_32_BITS
#define configIDLE_SHOULD_YIELD 1
#define configUSE_MUTEXES 1
#define configUSE_RECURSIVE_MUTEXES 0
#define configUSE_COUNTING_SEMAPHORES 1
#define configUSE_TASK_NOTIFICATIONS 1
#define configQUEUE_REGISTRY_SIZE 0
#define configSUPPORT_STATIC_ALLOCATION 1
#define configSUPPORT_DYNAMIC_ALLOCATION 0
#define configUSE_TIMERS 0
#define configUSE_IDLE_HOOK 0
#define configUSE_TICK_HOOK 0
#define configUSE_MALLOC_FAILED_HOOK 0
#define configCHECK_FOR_STACK_OVERFLOW 0
#define configUSE_TRACE_FACILITY 0
#define configGENERATE_RUN_TIME_STATS 0

#define configENABLE_TRUSTZONE 0
#define configRUN_FREERTOS_SECURE_ONLY 1 /* QEMU's AN505 boots secure, SAU off */
#define configENABLE_MPU 0
#define configENABLE_FPU 0
#define configENABLE_MVE 0

/* BASEPRI masks interrupts at 0x80 and below in urgency; the board's
 * timers run at 0xC0 and may use the FromISR API */
#define configKERNEL_INTERRUPT_PRIORITY 255
#define configMAX_SYSCALL_INTERRUPT_PRIORITY 0x80

#define INCLUDE_vTaskDelete 1
#define INCLUDE_vTaskSuspend 1
#define INCLUDE_vTaskDelay 1
#define INCLUDE_xTaskGetCurrentTaskHandle 1
#define INCLUDE_xTaskGetSchedulerState 1

void sts_freertos_assert(const char *file, int line);
#define configASSERT(x)                               \
    do {                                              \
        if (!(x))                                     \
            sts_freertos_assert(__FILE__, __LINE__);  \
    } while (0)

#endif
