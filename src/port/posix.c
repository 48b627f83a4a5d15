/* The POSIX port: CLOCK_MONOTONIC, pthreads, SCHED_FIFO priorities when
 * asked for and permitted (the task says whether it got one), CPU pinning. */
#define _GNU_SOURCE
#include "storscope/error.h"
#include "storscope/port.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>

/* ---- clock ---------------------------------------------------------------- */
static uint64_t posix_now_ns(void *ctx)
{
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static const struct sts_clock_ops posix_clock_ops = {posix_now_ns};
static const struct sts_clock posix_clock = {&posix_clock_ops, NULL};

const struct sts_clock *sts_port_clock(void)
{
    return &posix_clock;
}

void sts_port_wait_until(uint64_t deadline_ns)
{
    /* nanosleep overshoots by tens of microseconds: sleep short of the
     * deadline, then spin */
    const uint64_t spin_ns = 200000;
    uint64_t now = posix_now_ns(NULL);
    if (deadline_ns > now + spin_ns) {
        uint64_t wake = deadline_ns - spin_ns;
        struct timespec ts = {(time_t)(wake / 1000000000ull), (long)(wake % 1000000000ull)};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
            ;
    }
    while (posix_now_ns(NULL) < deadline_ns)
        ;
}

/* ---- tasks ------------------------------------------------------------------ */
_Static_assert(sizeof(pthread_t) <= sizeof(((struct sts_task *)0)->impl), "task storage");
_Static_assert(sizeof(pthread_mutex_t) <= sizeof(struct sts_mutex), "mutex storage");

struct sem_impl {
    pthread_mutex_t m;
    pthread_cond_t c; /* on CLOCK_MONOTONIC, for timed waits */
    uint32_t count;
};
_Static_assert(sizeof(struct sem_impl) <= sizeof(struct sts_sem), "semaphore storage");

static void *task_main(void *arg)
{
    struct sts_task *t = arg;
    while (t->step(t->arg) == STS_STEP_AGAIN)
        ;
    sts_task_set_done(t);
    return NULL;
}

/* Thread attributes with the task's CPU, so a task that is quickly done is
 * still pinned (set after creation, it could already be gone). 1 when pinned. */
static int attr_for(pthread_attr_t *pa, int cpu)
{
    pthread_attr_init(pa);
    if (cpu < 0)
        return 0;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_attr_setaffinity_np(pa, sizeof(set), &set) == 0;
}

static int px_task_start(struct sts_task *t, sts_step_fn step, void *arg,
                         const struct sts_task_attr *attr)
{
    memset(t, 0, sizeof(*t));
    t->step = step;
    t->arg = arg;
    t->attr = attr ? *attr : (struct sts_task_attr){.cpu = -1};
    /* threads round-robin only under SCHED_RR: the default (SCHED_OTHER
     * shares by fairness, SCHED_FIFO runs to a block) is what holds */
    t->time_slice_applied = t->attr.time_slice == STS_SLICE_DEFAULT;
    pthread_attr_t pa;
    pthread_t th;
    int rc = EPERM, pin = 0;
    if (t->attr.priority > 0) {
        struct sched_param sp = {.sched_priority = t->attr.priority};
        pin = attr_for(&pa, t->attr.cpu);
        pthread_attr_setinheritsched(&pa, PTHREAD_EXPLICIT_SCHED);
        pthread_attr_setschedpolicy(&pa, SCHED_FIFO);
        pthread_attr_setschedparam(&pa, &sp);
        rc = pthread_create(&th, &pa, task_main, t);
        pthread_attr_destroy(&pa);
        t->priority_applied = rc == 0;
    }
    if (rc) { /* no priority asked for, or not permitted: the default policy */
        pin = attr_for(&pa, t->attr.cpu);
        rc = pthread_create(&th, &pa, task_main, t);
        pthread_attr_destroy(&pa);
    }
    if (rc && pin) { /* the CPU may not exist here: run unpinned */
        pin = 0;
        rc = pthread_create(&th, NULL, task_main, t);
    }
    if (rc)
        return STS_ENOMEM;
    t->pinned = pin;
    memcpy(t->impl, &th, sizeof(th));
    return STS_OK;
}

static int px_task_join(struct sts_task *t)
{
    pthread_t th;
    memcpy(&th, t->impl, sizeof(th));
    return pthread_join(th, NULL) ? STS_EINVAL : STS_OK;
}

static void px_yield(void)
{
    sched_yield();
}

static void px_sleep_ns(uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* ---- mutex and semaphores ------------------------------------------------- */
static int px_mutex_init(struct sts_mutex *m)
{
    return pthread_mutex_init((pthread_mutex_t *)m->impl, NULL) ? STS_ENOMEM : STS_OK;
}
static void px_mutex_lock(struct sts_mutex *m)
{
    pthread_mutex_lock((pthread_mutex_t *)m->impl);
}
static int px_mutex_trylock(struct sts_mutex *m)
{
    return pthread_mutex_trylock((pthread_mutex_t *)m->impl) ? STS_EBUSY : STS_OK;
}
static void px_mutex_unlock(struct sts_mutex *m)
{
    pthread_mutex_unlock((pthread_mutex_t *)m->impl);
}
static void px_mutex_destroy(struct sts_mutex *m)
{
    pthread_mutex_destroy((pthread_mutex_t *)m->impl);
}

static int px_sem_init(struct sts_sem *s, uint32_t initial)
{
    struct sem_impl *p = (struct sem_impl *)s->impl;
    p->count = initial;
    if (pthread_mutex_init(&p->m, NULL))
        return STS_ENOMEM;
    pthread_condattr_t ca;
    int rc = pthread_condattr_init(&ca);
    if (!rc)
        rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (!rc) {
        rc = pthread_cond_init(&p->c, &ca);
        pthread_condattr_destroy(&ca);
    }
    if (rc) {
        pthread_mutex_destroy(&p->m);
        return STS_ENOMEM;
    }
    return STS_OK;
}
static void px_sem_post(struct sts_sem *s)
{
    struct sem_impl *p = (struct sem_impl *)s->impl;
    pthread_mutex_lock(&p->m);
    p->count++;
    pthread_cond_signal(&p->c);
    pthread_mutex_unlock(&p->m);
}
static int px_sem_wait(struct sts_sem *s, uint64_t timeout_ns)
{
    struct sem_impl *p = (struct sem_impl *)s->impl;
    uint64_t deadline = timeout_ns == STS_WAIT_FOREVER ? 0 : posix_now_ns(NULL) + timeout_ns;
    struct timespec ts = {(time_t)(deadline / 1000000000ull), (long)(deadline % 1000000000ull)};
    int rc = STS_OK;
    pthread_mutex_lock(&p->m);
    while (!p->count && rc == STS_OK) {
        if (timeout_ns == STS_WAIT_FOREVER)
            pthread_cond_wait(&p->c, &p->m);
        else if (!timeout_ns || pthread_cond_timedwait(&p->c, &p->m, &ts) == ETIMEDOUT)
            rc = p->count ? STS_OK : STS_EBUSY;
    }
    if (rc == STS_OK)
        p->count--;
    pthread_mutex_unlock(&p->m);
    return rc;
}
static void px_sem_destroy(struct sts_sem *s)
{
    struct sem_impl *p = (struct sem_impl *)s->impl;
    pthread_cond_destroy(&p->c);
    pthread_mutex_destroy(&p->m);
}

static const struct sts_port_ops posix_port = {
    .version = STS_PORT_OPS_VERSION,
    .name = "posix",
    .caps = STS_PORT_PREEMPTIVE | STS_PORT_PRIORITIES | STS_PORT_PINNING,
    .task_start = px_task_start,
    .task_join = px_task_join,
    .yield = px_yield,
    .sleep_ns = px_sleep_ns,
    .mutex_init = px_mutex_init,
    .mutex_lock = px_mutex_lock,
    .mutex_trylock = px_mutex_trylock,
    .mutex_unlock = px_mutex_unlock,
    .mutex_destroy = px_mutex_destroy,
    .sem_init = px_sem_init,
    .sem_post = px_sem_post,
    .sem_post_from_isr = px_sem_post, /* no interrupts on POSIX */
    .sem_wait = px_sem_wait,
    .sem_destroy = px_sem_destroy,
};

const struct sts_port_ops *sts_port(void)
{
    return &posix_port;
}
