/* The ThreadX port (the study's RTOS): a task is a TX_THREAD on the
 * caller's stack calling its step until done, then putting a semaphore
 * that join waits on; mutexes are TX_MUTEX with priority inheritance,
 * semaphores TX_SEMAPHORE (tx_semaphore_put is safe from an interrupt).
 * Built only from the user's ThreadX (-DSTORSCOPE_THREADX_DIR=...); the
 * board provides the clock and the alarm (firmware/clock_an505_timers.c)
 * and the kernel's low-level start (firmware/rtos_threadx.c).
 *
 * Priorities: ThreadX's 0 is the highest. storscope's normal level is
 * STS_THREADX_NORMAL (16, the main thread's); portable level k runs at
 * 16 - k, clamped at 1 (0 is left to the kernel's own timer work).
 * Time is counted in ticks of STS_THREADX_TICK_HZ. */
#include "storscope/error.h"
#include "storscope/port.h"

#include "tx_api.h"

#include <string.h>

#ifndef STS_THREADX_NORMAL
#define STS_THREADX_NORMAL 16u
#endif
#ifndef STS_THREADX_TICK_HZ
#define STS_THREADX_TICK_HZ 1000u
#endif
#define TICK_NS (1000000000ull / STS_THREADX_TICK_HZ)
/* a wait shorter than this spins: blocking and waking cost more */
#define SPIN_NS 20000u
#define STACK_PAINT 0xEFEFEFEFu /* ThreadX's own fill (TX_STACK_FILL) */

struct tx_task {
    TX_THREAD thread;
    TX_SEMAPHORE done;
};
_Static_assert(sizeof(struct tx_task) <= sizeof(((struct sts_task *)0)->impl), "task storage");
_Static_assert(sizeof(TX_MUTEX) <= sizeof(struct sts_mutex), "mutex storage");
_Static_assert(sizeof(TX_SEMAPHORE) <= sizeof(struct sts_sem), "semaphore storage");

static struct tx_task *impl_of(struct sts_task *t)
{
    return (struct tx_task *)(void *)t->impl;
}
static TX_MUTEX *mutex_of(struct sts_mutex *m)
{
    return (TX_MUTEX *)(void *)m->impl;
}
static TX_SEMAPHORE *sem_of(struct sts_sem *s)
{
    return (TX_SEMAPHORE *)(void *)s->impl;
}

static ULONG ticks_for(uint64_t ns) /* at least ns: the first tick may come at once */
{
    uint64_t t = (ns + TICK_NS - 1) / TICK_NS + 1;
    return t >= TX_WAIT_FOREVER ? TX_WAIT_FOREVER - 1 : (ULONG)t;
}

/* ---- tasks ------------------------------------------------------------------ */
static VOID task_entry(ULONG arg)
{
    struct sts_task *t = (struct sts_task *)(uintptr_t)arg;
    while (t->step(t->arg) == STS_STEP_AGAIN)
        ;
    sts_task_set_done(t);
    tx_semaphore_put(&impl_of(t)->done);
}

static UINT priority_for(int k, int *exact)
{
    int p = (int)STS_THREADX_NORMAL - (k > 0 ? k : 0);
    *exact = p >= 1;
    return p >= 1 ? (UINT)p : 1u;
}

static int tx_task_start(struct sts_task *t, sts_step_fn step, void *arg,
                         const struct sts_task_attr *attr)
{
    memset(t, 0, sizeof(*t));
    t->step = step;
    t->arg = arg;
    t->attr = attr ? *attr : (struct sts_task_attr){.cpu = -1};
    if (!t->attr.stack || t->attr.stack_bytes < TX_MINIMUM_STACK)
        return STS_EINVAL;
    int exact;
    UINT prio = priority_for(t->attr.priority, &exact);
    t->priority_applied = t->attr.priority > 0 && exact;
    t->pinned = 0; /* one core */
    t->time_slice_applied = 1;
    ULONG slice = t->attr.time_slice == STS_SLICE_OFF ? TX_NO_TIME_SLICE : 1;
    sts_stack_paint(t->attr.stack, t->attr.stack_bytes, STACK_PAINT);
    struct tx_task *x = impl_of(t);
    if (tx_semaphore_create(&x->done, (CHAR *)"sts join", 0) != TX_SUCCESS)
        return STS_ENOMEM;
    UINT rc = tx_thread_create(&x->thread, (CHAR *)(t->attr.name ? t->attr.name : "sts"),
                               task_entry, (ULONG)(uintptr_t)t, t->attr.stack,
                               (ULONG)t->attr.stack_bytes, prio, prio, slice, TX_AUTO_START);
    if (rc != TX_SUCCESS) {
        tx_semaphore_delete(&x->done);
        return STS_ENOMEM;
    }
    return STS_OK;
}

static int tx_task_join(struct sts_task *t)
{
    struct tx_task *x = impl_of(t);
    if (tx_semaphore_get(&x->done, TX_WAIT_FOREVER) != TX_SUCCESS)
        return STS_EINVAL;
    /* all that is left of its entry is the return: ending it here is safe */
    tx_thread_terminate(&x->thread);
    tx_thread_delete(&x->thread);
    tx_semaphore_delete(&x->done);
    t->stack_used = sts_stack_used(t->attr.stack, t->attr.stack_bytes, STACK_PAINT);
    return STS_OK;
}

static void tx_yield(void)
{
    tx_thread_relinquish();
}

/* ---- mutex and semaphores ------------------------------------------------- */
static int tx_mutex_init_(struct sts_mutex *m)
{
    return tx_mutex_create(mutex_of(m), (CHAR *)"sts", TX_INHERIT) == TX_SUCCESS ? STS_OK
                                                                               : STS_ENOMEM;
}
static void tx_mutex_lock(struct sts_mutex *m)
{
    tx_mutex_get(mutex_of(m), TX_WAIT_FOREVER);
}
static int tx_mutex_trylock(struct sts_mutex *m)
{
    TX_MUTEX *x = mutex_of(m);
    if (x->tx_mutex_owner == tx_thread_identify() && x->tx_mutex_ownership_count)
        return STS_EBUSY; /* ThreadX's mutexes nest; storscope's do not */
    return tx_mutex_get(x, TX_NO_WAIT) == TX_SUCCESS ? STS_OK : STS_EBUSY;
}
static void tx_mutex_unlock(struct sts_mutex *m)
{
    tx_mutex_put(mutex_of(m));
}
static void tx_mutex_destroy(struct sts_mutex *m)
{
    tx_mutex_delete(mutex_of(m));
}

static int tx_sem_init(struct sts_sem *s, uint32_t initial)
{
    return tx_semaphore_create(sem_of(s), (CHAR *)"sts", initial) == TX_SUCCESS ? STS_OK
                                                                              : STS_ENOMEM;
}
static void tx_sem_post(struct sts_sem *s)
{
    tx_semaphore_put(sem_of(s)); /* from a thread or an interrupt alike */
}
static int tx_sem_wait(struct sts_sem *s, uint64_t timeout_ns)
{
    ULONG wait = timeout_ns == STS_WAIT_FOREVER ? TX_WAIT_FOREVER
                 : timeout_ns == 0              ? TX_NO_WAIT
                                                : ticks_for(timeout_ns);
    return tx_semaphore_get(sem_of(s), wait) == TX_SUCCESS ? STS_OK : STS_EBUSY;
}
static void tx_sem_destroy(struct sts_sem *s)
{
    tx_semaphore_delete(sem_of(s));
}

/* ---- clock waits ------------------------------------------------------------ */
void sts_port_wait_until(uint64_t deadline_ns)
{
    const struct sts_clock *clock = sts_port_clock();
    uint64_t now = sts_clock_now(clock);
    if (deadline_ns > now + SPIN_NS && tx_thread_identify()) {
        /* block until the board's timer interrupt: the CPU is the others'
         * meanwhile, as behind a DMA completion */
        struct sts_sem s = {{0}}; /* the kernel object is made in it */
        if (tx_sem_init(&s, 0) == STS_OK) {
            if (sts_board_alarm(deadline_ns, &s) == STS_OK)
                tx_semaphore_get(sem_of(&s), TX_WAIT_FOREVER);
            else if (deadline_ns - now > 2 * TICK_NS)
                tx_thread_sleep((ULONG)((deadline_ns - now) / TICK_NS - 1));
            tx_sem_destroy(&s);
        }
    }
    while (sts_clock_now(clock) < deadline_ns)
        ;
}

static void tx_sleep_ns(uint64_t ns)
{
    sts_port_wait_until(sts_clock_now(sts_port_clock()) + ns);
}

static const struct sts_port_ops threadx_port = {
    .version = STS_PORT_OPS_VERSION,
    .name = "threadx",
    .caps = STS_PORT_PREEMPTIVE | STS_PORT_PRIORITIES | STS_PORT_TIME_SLICING,
    .task_start = tx_task_start,
    .task_join = tx_task_join,
    .yield = tx_yield,
    .sleep_ns = tx_sleep_ns,
    .mutex_init = tx_mutex_init_,
    .mutex_lock = tx_mutex_lock,
    .mutex_trylock = tx_mutex_trylock,
    .mutex_unlock = tx_mutex_unlock,
    .mutex_destroy = tx_mutex_destroy,
    .sem_init = tx_sem_init,
    .sem_post = tx_sem_post,
    .sem_post_from_isr = tx_sem_post,
    .sem_wait = tx_sem_wait,
    .sem_destroy = tx_sem_destroy,
};

const struct sts_port_ops *sts_port(void)
{
    return &threadx_port;
}
