/* OS port layer: a clock, tasks, mutexes, semaphores and bounded queues.
 * Each platform provides one file under src/port/ that fills struct
 * sts_port_ops: posix.c (pthreads) on Linux, baremetal.c (a cooperative
 * super loop) on an MCU without an RTOS.
 *
 * Tasks are step functions, protothread style: each call does a bounded
 * piece of work and returns STS_STEP_AGAIN or STS_STEP_DONE. A preemptive
 * port runs every task on its own thread, calling its step until it is
 * done; the bare-metal port calls the steps round-robin from one loop. The
 * same task code runs on both; what needs real preemption (S1's CPU-load
 * tasks) checks STS_PORT_PREEMPTIVE and reports itself not applicable. */
#ifndef STORSCOPE_PORT_H
#define STORSCOPE_PORT_H

#include <stddef.h>
#include <stdint.h>

#include "storscope/clock.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The platform's monotonic clock (CLOCK_MONOTONIC on POSIX). */
const struct sts_clock *sts_port_clock(void);

/* Ticks of a hz clock as nanoseconds, without the overflow of ticks * 1e9
 * (which wraps after 2^64 / 1e9 ticks: 18.4 s at 1 GHz): exact for any
 * tick count whose result fits 64 bits (584 years of ns). */
static inline uint64_t sts_ticks_to_ns(uint64_t ticks, uint32_t hz)
{
    return ticks / hz * 1000000000ull + ticks % hz * 1000000000ull / hz;
}

/* A down-counter extended by a wrap count kept in its interrupt, read as
 * one 64-bit tick count: w = wraps counted, v1 = counter, then pending =
 * the wrap interrupt is pending (not yet counted: interrupts masked), then
 * v2 = counter again. A pending wrap happened before v2 was read, so v2
 * belongs to wrap w + 1; without one, v1 belongs to w. Ignoring a pending
 * wrap sent the clock back a whole period (0.84 s at 20 MHz). */
static inline uint64_t sts_tick_combine(uint32_t w, uint32_t v1, int pending, uint32_t v2,
                                        uint32_t reload)
{
    if (pending)
        return ((uint64_t)w + 1u) * ((uint64_t)reload + 1u) + (reload - v2);
    return (uint64_t)w * ((uint64_t)reload + 1u) + (reload - v1);
}
/* Returns once the port clock reads at least `deadline_ns`: sleeps for the
 * long part, spins for the last stretch so short waits stay accurate. */
void sts_port_wait_until(uint64_t deadline_ns);

enum { STS_STEP_AGAIN = 0, STS_STEP_DONE = 1 };
typedef int (*sts_step_fn)(void *arg);

struct sts_task_attr {
    int priority;  /* 0: the default; > 0: real-time (SCHED_FIFO) priority, only when asked
                      for and only in time-bounded runs */
    int cpu;       /* pin to this CPU; -1: any */
};

/* Storage the caller provides; `impl` belongs to the port. */
struct sts_task {
    sts_step_fn step;
    void *arg;
    struct sts_task_attr attr;
    int priority_applied; /* out: whether the port could set attr.priority */
    int pinned;           /* out: whether the port could pin to attr.cpu */
    volatile int done;
    uint64_t impl[4];
};
struct sts_mutex {
    uint64_t impl[8];
};
struct sts_sem {
    uint64_t impl[16];
};
/* A bounded FIFO of fixed-size items in caller-provided storage. */
struct sts_queue {
    uint8_t *items;
    uint32_t item_bytes, capacity, head, count;
    struct sts_sem slots, filled; /* free slots / queued items */
    struct sts_mutex lock;
};

enum sts_port_caps {
    STS_PORT_PREEMPTIVE = 0x1, /* tasks run concurrently (threads) */
    STS_PORT_PRIORITIES = 0x2, /* task priorities can be set */
    STS_PORT_PINNING = 0x4,    /* tasks can be pinned to a CPU */
};

struct sts_port_ops {
    const char *name;      /* "posix", "baremetal" */
    uint32_t caps;         /* enum sts_port_caps */
    /* Starts a task (it runs on its own thread, or at the next run()). */
    int (*task_start)(struct sts_task *t, sts_step_fn step, void *arg,
                      const struct sts_task_attr *attr);
    /* Waits until the task is done (the bare-metal port runs the loop). */
    int (*task_join)(struct sts_task *t);
    void (*yield)(void);
    void (*sleep_ns)(uint64_t ns);
    int (*mutex_init)(struct sts_mutex *m);
    void (*mutex_lock)(struct sts_mutex *m);
    int (*mutex_trylock)(struct sts_mutex *m); /* 0 when taken, STS_EBUSY otherwise */
    void (*mutex_unlock)(struct sts_mutex *m);
    void (*mutex_destroy)(struct sts_mutex *m);
    int (*sem_init)(struct sts_sem *s, uint32_t initial);
    void (*sem_post)(struct sts_sem *s);
    int (*sem_trywait)(struct sts_sem *s);     /* 0 when taken, STS_EBUSY otherwise */
    int (*sem_wait)(struct sts_sem *s);        /* blocks; STS_ENOTSUP without preemption */
    void (*sem_destroy)(struct sts_sem *s);
};

/* The port this build was made with. */
const struct sts_port_ops *sts_port(void);

/* Queues are portable code over the port's mutex and semaphores. */
int sts_queue_init(struct sts_queue *q, const struct sts_port_ops *port, void *storage,
                   uint32_t item_bytes, uint32_t capacity);
/* block = 0: STS_EBUSY when full (send) or empty (recv) instead of waiting. */
int sts_queue_send(struct sts_queue *q, const struct sts_port_ops *port, const void *item,
                   int block);
int sts_queue_recv(struct sts_queue *q, const struct sts_port_ops *port, void *item, int block);
void sts_queue_destroy(struct sts_queue *q, const struct sts_port_ops *port);

#ifdef __cplusplus
}
#endif
#endif
