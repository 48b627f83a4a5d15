/* The port layer, on whichever port this build has: threads on POSIX (and
 * ThreadSanitizer watches them in CI), the cooperative loop on the MCU. */
#include "sts_test.h"
#include "storscope/error.h"
#include "storscope/port.h"

#include <string.h>

#define N_ITEMS 200

struct producer {
    struct sts_queue *q;
    uint32_t next, last;
};

static int produce(void *arg)
{
    struct producer *p = arg;
    const struct sts_port_ops *port = sts_port();
    while (p->next < p->last) {
        uint32_t v = p->next;
        if (sts_queue_send(p->q, port, &v, 0) == STS_EBUSY)
            return STS_STEP_AGAIN; /* full: let the consumer run */
        p->next++;
    }
    return STS_STEP_DONE;
}

struct consumer {
    struct sts_queue *q;
    uint32_t got, expect, out_of_order;
    uint32_t last;
};

static int consume(void *arg)
{
    struct consumer *c = arg;
    const struct sts_port_ops *port = sts_port();
    uint32_t v;
    while (c->got < c->expect) {
        if (sts_queue_recv(c->q, port, &v, 0) == STS_EBUSY)
            return STS_STEP_AGAIN;
        if (c->got && v != c->last + 1)
            c->out_of_order++;
        c->last = v;
        c->got++;
    }
    return STS_STEP_DONE;
}

static void queue_keeps_order_and_bounds(void)
{
    const struct sts_port_ops *port = sts_port();
    static uint32_t storage[8];
    struct sts_queue q;
    CHECK_EQ(sts_queue_init(&q, port, storage, sizeof(uint32_t), 8), 0);
    uint32_t v = 7;
    for (uint32_t i = 0; i < 8; i++)
        CHECK_EQ(sts_queue_send(&q, port, &i, 0), 0);
    CHECK(sts_queue_send(&q, port, &v, 0) == STS_EBUSY); /* bounded */
    for (uint32_t i = 0; i < 8; i++) {
        CHECK_EQ(sts_queue_recv(&q, port, &v, 0), 0);
        CHECK_EQ(v, i);
    }
    CHECK(sts_queue_recv(&q, port, &v, 0) == STS_EBUSY);
    /* a producer and a consumer task through an 8-slot queue */
    struct producer p = {&q, 0, N_ITEMS};
    struct consumer c = {&q, 0, N_ITEMS, 0, 0};
    struct sts_task tp, tc;
    CHECK_EQ(port->task_start(&tc, consume, &c, sts_test_task_attr(0)), 0);
    CHECK_EQ(port->task_start(&tp, produce, &p, sts_test_task_attr(1)), 0);
    CHECK_EQ(port->task_join(&tp), 0);
    CHECK_EQ(port->task_join(&tc), 0);
    CHECK(sts_task_done(&tp) && sts_task_done(&tc));
    CHECK_EQ(c.got, N_ITEMS);
    CHECK_EQ(c.out_of_order, 0);
    CHECK_EQ(c.last, N_ITEMS - 1);
    sts_queue_destroy(&q, port);
}

struct counter {
    struct sts_mutex m;
    volatile uint32_t value;
};

struct counter_task {
    struct counter *k;
    uint32_t rounds;
};

static int count_task(void *arg)
{
    struct counter_task *ct = arg;
    const struct sts_port_ops *port = sts_port();
    for (int i = 0; i < 50; i++) {
        port->mutex_lock(&ct->k->m);
        uint32_t v = ct->k->value;
        port->yield();
        ct->k->value = v + 1;
        port->mutex_unlock(&ct->k->m);
    }
    return --ct->rounds ? STS_STEP_AGAIN : STS_STEP_DONE;
}

static void mutex_excludes_under_contention(void)
{
    const struct sts_port_ops *port = sts_port();
    static struct counter k;
    memset(&k, 0, sizeof(k));
    CHECK_EQ(port->mutex_init(&k.m), 0);
    struct sts_task t[4];
    struct counter_task ct[4];
    for (int i = 0; i < 4; i++) {
        ct[i] = (struct counter_task){&k, 20};
        CHECK_EQ(port->task_start(&t[i], count_task, &ct[i], sts_test_task_attr(i)), 0);
    }
    for (int i = 0; i < 4; i++)
        CHECK_EQ(port->task_join(&t[i]), 0);
    CHECK_EQ(k.value, 4 * 20 * 50);
    CHECK_EQ(port->mutex_trylock(&k.m), 0);
    CHECK(port->mutex_trylock(&k.m) == STS_EBUSY);
    port->mutex_unlock(&k.m);
    port->mutex_destroy(&k.m);
}

static void semaphore_counts(void)
{
    const struct sts_port_ops *port = sts_port();
    struct sts_sem s;
    CHECK_EQ(port->sem_init(&s, 2), 0);
    port->sem_post(&s);
    port->sem_post_from_isr(&s); /* from a task it must count the same */
    for (int i = 0; i < 4; i++)
        CHECK_EQ(port->sem_wait(&s, 0), 0);
    CHECK(port->sem_wait(&s, 0) == STS_EBUSY);
    port->sem_post(&s);
    CHECK_EQ(port->sem_wait(&s, STS_WAIT_FOREVER), 0);
    port->sem_destroy(&s);
}

/* A wait that nobody answers gives up, and not before its time (read on
 * the port's own clock: a lower bound, never a timing claim). */
static void semaphore_wait_times_out(void)
{
    const struct sts_port_ops *port = sts_port();
    const struct sts_clock *clock = sts_port_clock();
    struct sts_sem s;
    CHECK_EQ(port->sem_init(&s, 0), 0);
    uint64_t t0 = sts_clock_now(clock);
    CHECK(port->sem_wait(&s, 2000000) == STS_EBUSY);
    CHECK(sts_clock_now(clock) - t0 >= 2000000);
    port->sem_post(&s);
    CHECK_EQ(port->sem_wait(&s, 2000000), 0); /* a count there is taken at once */
    port->sem_destroy(&s);
}

/* A semaphore posted by another task wakes a timed wait before its end. */
struct poster {
    struct sts_sem *s;
    int posted;
};
static int post_step(void *arg)
{
    struct poster *p = arg;
    sts_port()->sleep_ns(1000000);
    sts_port()->sem_post(p->s);
    p->posted = 1;
    return STS_STEP_DONE;
}
static void semaphore_wait_is_woken_by_a_post(void)
{
    const struct sts_port_ops *port = sts_port();
    struct sts_sem s;
    struct poster p = {&s, 0};
    struct sts_task t;
    CHECK_EQ(port->sem_init(&s, 0), 0);
    CHECK_EQ(port->task_start(&t, post_step, &p, sts_test_task_attr(0)), 0);
    /* a minute: only a lost post ends it (the bare-metal loop runs the
     * poster while it waits) */
    CHECK_EQ(port->sem_wait(&s, 60000000000ull), 0);
    CHECK_EQ(port->task_join(&t), 0);
    CHECK_EQ(p.posted, 1);
    port->sem_destroy(&s);
}

static int quick_step(void *arg)
{
    (*(int *)arg)++;
    return STS_STEP_DONE;
}

static void priority_and_pinning_are_reported(void)
{
    const struct sts_port_ops *port = sts_port();
    int ran = 0;
    struct sts_task t;
    /* not CPU-bound: one step and done, so a real-time request is harmless */
    struct sts_task_attr attr = *sts_test_task_attr(0);
    attr.priority = 10;
    attr.cpu = 0;
    CHECK_EQ(port->task_start(&t, quick_step, &ran, &attr), 0);
    CHECK_EQ(port->task_join(&t), 0);
    CHECK_EQ(ran, 1);
    if (!(port->caps & STS_PORT_PRIORITIES))
        CHECK_EQ(t.priority_applied, 0); /* the cooperative loop has none: says so */
    if (!(port->caps & STS_PORT_PINNING))
        CHECK_EQ(t.pinned, 0);
    if (port->caps & STS_PORT_PINNING)
        CHECK_EQ(t.pinned, 1); /* CPU 0 always exists */
}


/* The MCU clock (issue 12.10): ticks to ns without overflow for 100 days
 * and beyond, and a wrap whose interrupt is still masked counted, so the
 * clock never steps back a period. References are exact by construction. */
static void tick_clock_is_exact_and_monotonic(void)
{
    /* 100 days at SysTick's 20 MHz, 1000 s at the study's 160 MHz (the old
     * ticks * 1e9 / hz wrapped past 2^64 / 1e9 = 1.8e10 ticks) */
    CHECK_EQ(sts_ticks_to_ns(100ull * 86400 * 20000000, 20000000), 100ull * 86400 * 1000000000);
    CHECK_EQ(sts_ticks_to_ns(160000000ull * 1000, 160000000), 1000ull * 1000000000);
    CHECK_EQ(sts_ticks_to_ns(3, 20000000), 150);
    CHECK_EQ(sts_ticks_to_ns(1, 3), 333333333);
    CHECK_EQ(sts_ticks_to_ns(UINT64_MAX / 1000, 1000000000), UINT64_MAX / 1000);
    /* a 24-bit SysTick: every tick T around three wraps, read with the wrap
     * counted, and read with it pending (interrupts masked across it) */
    const uint32_t reload = 0x00FFFFFFu;
    const uint64_t period = (uint64_t)reload + 1;
    for (uint64_t T = period - 50; T < 3 * period + 50;) {
        uint32_t v = (uint32_t)(reload - T % period), w = (uint32_t)(T / period);
        CHECK_EQ(sts_tick_combine(w, v, 0, v, reload), T);
        if (w > 0 && T % period < 60) /* just wrapped, interrupt not yet taken */
            CHECK_EQ(sts_tick_combine(w - 1, reload - 2, 1, v, reload), T);
        int near_wrap = T % period < 60 || T % period > period - 60;
        T += near_wrap ? 1 : 9973; /* every tick near a wrap, a sample between */
    }
}

const struct sts_test_case test_port_cases[] = {
    {"tick_clock_is_exact_and_monotonic", tick_clock_is_exact_and_monotonic},
    {"queue_keeps_order_and_bounds", queue_keeps_order_and_bounds},
    {"mutex_excludes_under_contention", mutex_excludes_under_contention},
    {"semaphore_counts", semaphore_counts},
    {"semaphore_wait_times_out", semaphore_wait_times_out},
    {"semaphore_wait_is_woken_by_a_post", semaphore_wait_is_woken_by_a_post},
    {"priority_and_pinning_are_reported", priority_and_pinning_are_reported},
    {NULL, NULL},
};
