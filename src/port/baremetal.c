/* The bare-metal port: a cooperative super loop. Tasks are step functions
 * called round-robin; nothing preempts anything, so a mutex is a flag that
 * is never contended and a semaphore a counter. Waiting (join, sem_wait)
 * runs the loop until the condition holds. No allocation: at most
 * STS_BAREMETAL_TASKS tasks at once. The clock comes from the board's tick
 * file (cortexm_systick.c on a Cortex-M). */
#include "storscope/error.h"
#include "storscope/port.h"

#include <string.h>

#ifndef STS_BAREMETAL_TASKS
#define STS_BAREMETAL_TASKS 16
#endif

static struct sts_task *tasks[STS_BAREMETAL_TASKS];
static int in_step; /* waiting from inside a step would re-enter the loop */

/* One pass over every live task; returns how many are still running. */
static int run_round(void)
{
    int live = 0;
    for (int i = 0; i < STS_BAREMETAL_TASKS; i++) {
        struct sts_task *t = tasks[i];
        if (!t)
            continue;
        in_step = 1;
        int r = t->step(t->arg);
        in_step = 0;
        if (r == STS_STEP_DONE) {
            sts_task_set_done(t);
            tasks[i] = NULL;
        } else {
            live++;
        }
    }
    return live;
}

static int bm_task_start(struct sts_task *t, sts_step_fn step, void *arg,
                         const struct sts_task_attr *attr)
{
    memset(t, 0, sizeof(*t));
    t->step = step;
    t->arg = arg;
    t->attr = attr ? *attr : (struct sts_task_attr){.cpu = -1};
    t->time_slice_applied = t->attr.time_slice != STS_SLICE_ON; /* a step runs to its end */
    /* one core, no priorities: both requests are reported as not applied */
    for (int i = 0; i < STS_BAREMETAL_TASKS; i++)
        if (!tasks[i]) {
            tasks[i] = t;
            return STS_OK;
        }
    return STS_ENOMEM;
}

static int bm_task_join(struct sts_task *t)
{
    if (in_step)
        return STS_ENOTSUP;
    while (!sts_task_done(t))
        if (run_round() == 0 && !sts_task_done(t))
            return STS_EINVAL; /* not started */
    return STS_OK;
}

static void bm_yield(void)
{
}

static void bm_sleep_ns(uint64_t ns)
{
    sts_port_wait_until(sts_clock_now(sts_port_clock()) + ns);
}

static int bm_mutex_init(struct sts_mutex *m)
{
    m->impl[0] = 0;
    return STS_OK;
}
static void bm_mutex_lock(struct sts_mutex *m)
{
    m->impl[0] = 1; /* no preemption: nobody else can hold it across a step */
}
static int bm_mutex_trylock(struct sts_mutex *m)
{
    if (m->impl[0])
        return STS_EBUSY;
    m->impl[0] = 1;
    return STS_OK;
}
static void bm_mutex_unlock(struct sts_mutex *m)
{
    m->impl[0] = 0;
}
static void bm_mutex_destroy(struct sts_mutex *m)
{
    (void)m;
}

struct bm_sem {
    uint32_t count; /* a word an interrupt may change: read-modify-writes are atomic */
};
static uint32_t *bm_count(struct sts_sem *s)
{
    struct bm_sem *b = (struct bm_sem *)(void *)s->impl;
    return &b->count;
}

static int bm_sem_init(struct sts_sem *s, uint32_t initial)
{
    *bm_count(s) = initial;
    return STS_OK;
}
static void bm_sem_post(struct sts_sem *s)
{
    __atomic_fetch_add(bm_count(s), 1u, __ATOMIC_RELEASE);
}
static int bm_sem_take(struct sts_sem *s)
{
    uint32_t *count = bm_count(s);
    uint32_t v = __atomic_load_n(count, __ATOMIC_ACQUIRE);
    while (v)
        if (__atomic_compare_exchange_n(count, &v, v - 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
            return 1;
    return 0;
}
static int bm_sem_wait(struct sts_sem *s, uint64_t timeout_ns)
{
    const struct sts_clock *clock = sts_port_clock();
    uint64_t t0 = timeout_ns && timeout_ns != STS_WAIT_FOREVER ? sts_clock_now(clock) : 0;
    while (!bm_sem_take(s)) {
        if (!timeout_ns)
            return STS_EBUSY;
        if (in_step)
            return STS_ENOTSUP; /* a step must not block: it waits with timeout 0 */
        if (timeout_ns != STS_WAIT_FOREVER && sts_clock_now(clock) - t0 >= timeout_ns)
            return STS_EBUSY;
        /* nobody left to post it, unless an interrupt will */
        if (run_round() == 0 && timeout_ns == STS_WAIT_FOREVER &&
            !__atomic_load_n(bm_count(s), __ATOMIC_ACQUIRE))
            return STS_EBUSY;
    }
    return STS_OK;
}
static void bm_sem_destroy(struct sts_sem *s)
{
    (void)s;
}

static const struct sts_port_ops baremetal_port = {
    .version = STS_PORT_OPS_VERSION,
    .name = "baremetal",
    .caps = 0,
    .task_start = bm_task_start,
    .task_join = bm_task_join,
    .yield = bm_yield,
    .sleep_ns = bm_sleep_ns,
    .mutex_init = bm_mutex_init,
    .mutex_lock = bm_mutex_lock,
    .mutex_trylock = bm_mutex_trylock,
    .mutex_unlock = bm_mutex_unlock,
    .mutex_destroy = bm_mutex_destroy,
    .sem_init = bm_sem_init,
    .sem_post = bm_sem_post,
    .sem_post_from_isr = bm_sem_post,
    .sem_wait = bm_sem_wait,
    .sem_destroy = bm_sem_destroy,
};

const struct sts_port_ops *sts_port(void)
{
    return &baremetal_port;
}
