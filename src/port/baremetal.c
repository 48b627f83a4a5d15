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
            t->done = 1;
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
    t->attr = attr ? *attr : (struct sts_task_attr){0, -1};
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
    while (!t->done)
        if (run_round() == 0 && !t->done)
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

static int bm_sem_init(struct sts_sem *s, uint32_t initial)
{
    s->impl[0] = initial;
    return STS_OK;
}
static void bm_sem_post(struct sts_sem *s)
{
    s->impl[0]++;
}
static int bm_sem_trywait(struct sts_sem *s)
{
    if (!s->impl[0])
        return STS_EBUSY;
    s->impl[0]--;
    return STS_OK;
}
static int bm_sem_wait(struct sts_sem *s)
{
    while (!s->impl[0]) {
        if (in_step)
            return STS_ENOTSUP; /* a step must not block: use trywait */
        if (run_round() == 0 && !s->impl[0])
            return STS_EBUSY; /* nobody left to post it */
    }
    s->impl[0]--;
    return STS_OK;
}
static void bm_sem_destroy(struct sts_sem *s)
{
    (void)s;
}

static const struct sts_port_ops baremetal_port = {
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
    .sem_trywait = bm_sem_trywait,
    .sem_wait = bm_sem_wait,
    .sem_destroy = bm_sem_destroy,
};

const struct sts_port_ops *sts_port(void)
{
    return &baremetal_port;
}
