/* The FreeRTOS port: a task is a static FreeRTOS task on the caller's
 * stack calling its step until done, then giving a semaphore that join
 * waits on; mutexes are FreeRTOS mutexes (priority inheritance, not
 * recursive), semaphores counting semaphores, all created static in the
 * storage port.h provides. Built only from the user's FreeRTOS-Kernel
 * (-DSTORSCOPE_FREERTOS_DIR=...) with configSUPPORT_STATIC_ALLOCATION; the
 * board provides the clock and the alarm (firmware/clock_an505_timers.c)
 * and starts the scheduler (firmware/rtos_freertos.c).
 *
 * Priorities: 0 is FreeRTOS's idle task; storscope's normal level is 1 and
 * portable level k runs at 1 + k, clamped at configMAX_PRIORITIES - 1.
 * Round robin among equal priorities is configUSE_TIME_SLICING, one
 * setting for the whole kernel: a task that asks otherwise is told it
 * does not hold (time_slice_applied = 0). */
#include "storscope/error.h"
#include "storscope/port.h"

#include "FreeRTOS.h"
#include "semphr.h"
#include "task.h"

#include <string.h>

/* One tick in the port clock's ns (its time base may not be the guest's:
 * see FreeRTOSConfig.h). */
#ifndef STS_FREERTOS_TICK_NS
#define STS_FREERTOS_TICK_NS (1000000000ull / configTICK_RATE_HZ)
#endif
#define NORMAL_PRIORITY 1
#define SPIN_NS 20000u /* a wait shorter than this spins: blocking and waking cost more */
#define STACK_PAINT 0xA5A5A5A5u /* FreeRTOS's own fill byte, tskSTACK_FILL_BYTE */

struct rtos_task {
    StaticTask_t tcb;
    TaskHandle_t handle;
    StaticSemaphore_t done_buf;
    SemaphoreHandle_t done;
};
struct rtos_sem {
    StaticSemaphore_t buf;
    SemaphoreHandle_t handle;
};
_Static_assert(sizeof(struct rtos_task) <= sizeof(((struct sts_task *)0)->impl), "task storage");
_Static_assert(sizeof(struct rtos_sem) <= sizeof(struct sts_mutex), "mutex storage");
_Static_assert(sizeof(struct rtos_sem) <= sizeof(struct sts_sem), "semaphore storage");

static struct rtos_task *impl_of(struct sts_task *t)
{
    return (struct rtos_task *)(void *)t->impl;
}
static SemaphoreHandle_t mutex_of(struct sts_mutex *m)
{
    const struct rtos_sem *x = (const struct rtos_sem *)(void *)m->impl;
    return x->handle;
}
static SemaphoreHandle_t sem_of(struct sts_sem *s)
{
    const struct rtos_sem *x = (const struct rtos_sem *)(void *)s->impl;
    return x->handle;
}

static TickType_t ticks_for(uint64_t ns) /* at least ns: the first tick may come at once */
{
    uint64_t t = (ns + STS_FREERTOS_TICK_NS - 1) / STS_FREERTOS_TICK_NS + 1;
    return t >= portMAX_DELAY ? portMAX_DELAY - 1 : (TickType_t)t;
}

static int in_isr(void)
{
    uint32_t ipsr;
    __asm volatile("mrs %0, ipsr" : "=r"(ipsr));
    return ipsr != 0;
}

/* ---- tasks ------------------------------------------------------------------ */
static void task_entry(void *arg)
{
    struct sts_task *t = arg;
    while (t->step(t->arg) == STS_STEP_AGAIN)
        ;
    sts_task_set_done(t);
    xSemaphoreGive(impl_of(t)->done);
    vTaskSuspend(NULL); /* join deletes it */
}

static int rt_task_start(struct sts_task *t, sts_step_fn step, void *arg,
                         const struct sts_task_attr *attr)
{
    memset(t, 0, sizeof(*t));
    t->step = step;
    t->arg = arg;
    t->attr = attr ? *attr : (struct sts_task_attr){.cpu = -1};
    size_t words = t->attr.stack_bytes / sizeof(StackType_t);
    if (!t->attr.stack || words < configMINIMAL_STACK_SIZE)
        return STS_EINVAL;
    int k = t->attr.priority > 0 ? t->attr.priority : 0;
    int prio = NORMAL_PRIORITY + k;
    t->priority_applied = k > 0 && prio <= configMAX_PRIORITIES - 1;
    if (prio > configMAX_PRIORITIES - 1)
        prio = configMAX_PRIORITIES - 1;
    t->pinned = 0; /* one core */
    t->time_slice_applied = t->attr.time_slice == STS_SLICE_DEFAULT ||
                            (t->attr.time_slice == STS_SLICE_ON) == (configUSE_TIME_SLICING == 1);
    sts_stack_paint(t->attr.stack, t->attr.stack_bytes, STACK_PAINT);
    struct rtos_task *x = impl_of(t);
    x->done = xSemaphoreCreateBinaryStatic(&x->done_buf);
    x->handle = xTaskCreateStatic(task_entry, t->attr.name ? t->attr.name : "sts",
                                  (uint32_t)words, t, (UBaseType_t)prio,
                                  (StackType_t *)t->attr.stack, &x->tcb);
    if (!x->done || !x->handle) {
        if (x->done)
            vSemaphoreDelete(x->done);
        return STS_ENOMEM;
    }
    return STS_OK;
}

static int rt_task_join(struct sts_task *t)
{
    struct rtos_task *x = impl_of(t);
    if (xSemaphoreTake(x->done, portMAX_DELAY) != pdTRUE)
        return STS_EINVAL;
    /* all that is left of its entry is suspending itself: ending it here
     * is safe, and a task deleted by another is gone at once */
    vTaskDelete(x->handle);
    vSemaphoreDelete(x->done);
    t->stack_used = sts_stack_used(t->attr.stack, t->attr.stack_bytes, STACK_PAINT);
    return STS_OK;
}

static void rt_yield(void)
{
    taskYIELD();
}

/* ---- mutex and semaphores ------------------------------------------------- */
static int rt_mutex_init(struct sts_mutex *m)
{
    struct rtos_sem *x = (struct rtos_sem *)(void *)m->impl;
    x->handle = xSemaphoreCreateMutexStatic(&x->buf);
    return x->handle ? STS_OK : STS_ENOMEM;
}
static void rt_mutex_lock(struct sts_mutex *m)
{
    xSemaphoreTake(mutex_of(m), portMAX_DELAY);
}
static int rt_mutex_trylock(struct sts_mutex *m)
{
    return xSemaphoreTake(mutex_of(m), 0) == pdTRUE ? STS_OK : STS_EBUSY;
}
static void rt_mutex_unlock(struct sts_mutex *m)
{
    xSemaphoreGive(mutex_of(m));
}
static void rt_mutex_destroy(struct sts_mutex *m)
{
    vSemaphoreDelete(mutex_of(m));
}

static int rt_sem_init(struct sts_sem *s, uint32_t initial)
{
    struct rtos_sem *x = (struct rtos_sem *)(void *)s->impl;
    x->handle = xSemaphoreCreateCountingStatic(0x7FFFFFFFu, initial, &x->buf);
    return x->handle ? STS_OK : STS_ENOMEM;
}
static void rt_sem_post(struct sts_sem *s)
{
    xSemaphoreGive(sem_of(s));
}
static void rt_sem_post_from_isr(struct sts_sem *s)
{
    BaseType_t woken = pdFALSE;
    xSemaphoreGiveFromISR(sem_of(s), &woken);
    portYIELD_FROM_ISR(woken); /* a task above the interrupted one runs on return */
}
static int rt_sem_wait(struct sts_sem *s, uint64_t timeout_ns)
{
    TickType_t wait = timeout_ns == STS_WAIT_FOREVER ? portMAX_DELAY
                      : timeout_ns == 0              ? 0
                                                     : ticks_for(timeout_ns);
    return xSemaphoreTake(sem_of(s), wait) == pdTRUE ? STS_OK : STS_EBUSY;
}
static void rt_sem_destroy(struct sts_sem *s)
{
    vSemaphoreDelete(sem_of(s));
}

/* ---- clock waits ------------------------------------------------------------ */
void sts_port_wait_until(uint64_t deadline_ns)
{
    const struct sts_clock *clock = sts_port_clock();
    uint64_t now = sts_clock_now(clock);
    if (deadline_ns > now + SPIN_NS && !in_isr() &&
        xTaskGetSchedulerState() == taskSCHEDULER_RUNNING) {
        /* block until the board's timer interrupt: the CPU is the others'
         * meanwhile, as behind a DMA completion */
        struct sts_sem s = {{0}}; /* the kernel object is made in it */
        if (rt_sem_init(&s, 0) == STS_OK) {
            if (sts_board_alarm(deadline_ns, &s) == STS_OK)
                xSemaphoreTake(sem_of(&s), portMAX_DELAY);
            else if (deadline_ns - now > 2 * STS_FREERTOS_TICK_NS)
                vTaskDelay((TickType_t)((deadline_ns - now) / STS_FREERTOS_TICK_NS - 1));
            rt_sem_destroy(&s);
        }
    }
    while (sts_clock_now(clock) < deadline_ns)
        ;
}

static void rt_sleep_ns(uint64_t ns)
{
    sts_port_wait_until(sts_clock_now(sts_port_clock()) + ns);
}

static const struct sts_port_ops freertos_port = {
    .version = STS_PORT_OPS_VERSION,
    .name = "freertos",
    .caps = STS_PORT_PREEMPTIVE | STS_PORT_PRIORITIES,
    .task_start = rt_task_start,
    .task_join = rt_task_join,
    .yield = rt_yield,
    .sleep_ns = rt_sleep_ns,
    .mutex_init = rt_mutex_init,
    .mutex_lock = rt_mutex_lock,
    .mutex_trylock = rt_mutex_trylock,
    .mutex_unlock = rt_mutex_unlock,
    .mutex_destroy = rt_mutex_destroy,
    .sem_init = rt_sem_init,
    .sem_post = rt_sem_post,
    .sem_post_from_isr = rt_sem_post_from_isr,
    .sem_wait = rt_sem_wait,
    .sem_destroy = rt_sem_destroy,
};

const struct sts_port_ops *sts_port(void)
{
    return &freertos_port;
}
