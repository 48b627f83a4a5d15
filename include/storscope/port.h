/* OS port layer: a clock, tasks, mutexes, semaphores and bounded queues.
 * Each platform provides one file under src/port/ that fills struct
 * sts_port_ops: posix.c (pthreads) on Linux, baremetal.c (a cooperative
 * super loop) on an MCU without an RTOS, threadx.c and freertos.c on those
 * kernels (docs/porting.md: what each call must guarantee, how to add one).
 *
 * Tasks are step functions, protothread style: each call does a bounded
 * piece of work and returns STS_STEP_AGAIN or STS_STEP_DONE. A preemptive
 * port runs every task on its own thread, calling its step until it is
 * done; the bare-metal port calls the steps round-robin from one loop. The
 * same task code runs on both; what needs real preemption (S1's CPU-load
 * tasks) checks STS_PORT_PREEMPTIVE and reports itself not applicable.
 *
 * Nothing here allocates: the caller provides every object (and, on an
 * RTOS, every task's stack); the storage in each struct is sized for the
 * largest port's kernel object, which each port checks at compile time. */
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
 * long part (an RTOS task blocks: others run), spins for the last stretch
 * so short waits stay accurate. */
void sts_port_wait_until(uint64_t deadline_ns);

enum { STS_STEP_AGAIN = 0, STS_STEP_DONE = 1 };
typedef int (*sts_step_fn)(void *arg);

/* Portable priorities: 0 is the normal level (the main task, S1's load
 * tasks); 1 .. STS_PRIO_HIGHEST are above it, a larger number never below a
 * smaller one on any port. POSIX: 0 = SCHED_OTHER, k = SCHED_FIFO k (when
 * permitted); an RTOS: its level for "normal" plus k, clamped at the highest
 * level the kernel was configured with (FreeRTOS: configMAX_PRIORITIES - 1;
 * ThreadX: 31 levels above its lowest). */
#define STS_PRIO_NORMAL 0
#define STS_PRIO_HIGHEST 99

/* Round robin among ready tasks of equal priority at each tick. */
enum sts_time_slice {
    STS_SLICE_DEFAULT = 0, /* what the port does unless told (all preemptive ports: on) */
    STS_SLICE_ON = 1,
    STS_SLICE_OFF = 2,     /* the task runs until it blocks, yields or is preempted */
};

struct sts_task_attr {
    int priority;       /* STS_PRIO_NORMAL .. STS_PRIO_HIGHEST; POSIX applies k > 0 only when
                           asked for and permitted, and only in time-bounded runs */
    int cpu;            /* pin to this CPU; -1: any */
    /* The task's stack, 8-byte aligned: an RTOS port needs one (STS_EINVAL
     * without); POSIX threads take the system's and ignore it. Measure what
     * a task uses with stack_used below. */
    void *stack;
    size_t stack_bytes;
    int time_slice;     /* enum sts_time_slice */
    const char *name;   /* shown by the RTOS's debugger views; may be NULL */
};

/* Storage the caller provides; `impl` belongs to the port (a kernel's task
 * control block and the semaphore join waits on). */
#define STS_PORT_TASK_WORDS 48  /* 384 B: ThreadX's TX_THREAD with a semaphore */
#define STS_PORT_MUTEX_WORDS 12 /* 96 B: FreeRTOS's StaticSemaphore_t, a pthread mutex */
#define STS_PORT_SEM_WORDS 16   /* 128 B: a pthread mutex and condition variable */
struct sts_task {
    sts_step_fn step;
    void *arg;
    struct sts_task_attr attr;
    int priority_applied;   /* out: whether the port could set attr.priority */
    int pinned;             /* out: whether the port could pin to attr.cpu */
    int time_slice_applied; /* out: whether attr.time_slice holds (DEFAULT always does) */
    size_t stack_used;      /* out, after join: the deepest the task reached in attr.stack
                               (the port paints it at start); 0 = not measured */
    int done;               /* set by the port with release order: read sts_task_done() */
    uint64_t impl[STS_PORT_TASK_WORDS];
};
struct sts_mutex {
    uint64_t impl[STS_PORT_MUTEX_WORDS];
};
struct sts_sem {
    uint64_t impl[STS_PORT_SEM_WORDS];
};
/* A bounded FIFO of fixed-size items in caller-provided storage. */
struct sts_queue {
    uint8_t *items;
    uint32_t item_bytes, capacity, head, count;
    struct sts_sem slots, filled; /* free slots / queued items */
    struct sts_mutex lock;
};

/* Whether a task's step returned STS_STEP_DONE, with what it wrote before
 * visible (acquire order: a 32-bit load, atomic on every target). */
static inline int sts_task_done(const struct sts_task *t)
{
    return __atomic_load_n(&t->done, __ATOMIC_ACQUIRE);
}
static inline void sts_task_set_done(struct sts_task *t)
{
    __atomic_store_n(&t->done, 1, __ATOMIC_RELEASE);
}

/* For ports that take the caller's stack: fill it with `fill` before the
 * task starts, and after it ends count how deep it reached (stacks grow
 * down: the untouched words are at the bottom), for t->stack_used. Use the
 * kernel's own fill value where it fills stacks again at creation. */
static inline void sts_stack_paint(void *stack, size_t bytes, uint32_t fill)
{
    uint32_t *w = stack;
    for (size_t i = 0; i < bytes / 4; i++)
        w[i] = fill;
}
static inline size_t sts_stack_used(const void *stack, size_t bytes, uint32_t fill)
{
    const uint32_t *w = stack;
    size_t n = bytes / 4, untouched = 0;
    while (untouched < n && w[untouched] == fill)
        untouched++;
    return (n - untouched) * 4;
}

/* sem_wait's timeout that never expires. */
#define STS_WAIT_FOREVER UINT64_MAX

enum sts_port_caps {
    STS_PORT_PREEMPTIVE = 0x1,  /* tasks run concurrently (threads) */
    STS_PORT_PRIORITIES = 0x2,  /* task priorities can be set */
    STS_PORT_PINNING = 0x4,     /* tasks can be pinned to a CPU */
    STS_PORT_TIME_SLICING = 0x8,/* round robin can be switched per task (attr.time_slice) */
};

/* The method table's layout, first field of every port: see
 * STS_BD_OPS_VERSION (device.h) for the rule; checked by
 * sts_port_ops_check before the engine starts a task. */
#define STS_PORT_OPS_VERSION 1u

struct sts_port_ops {
    uint32_t version;      /* STS_PORT_OPS_VERSION this port was written for */
    const char *name;      /* "posix", "baremetal", "threadx", "freertos" */
    uint32_t caps;         /* enum sts_port_caps */
    /* Starts a task (it runs on its own thread, or at the next run()). Not
     * from an interrupt. */
    int (*task_start)(struct sts_task *t, sts_step_fn step, void *arg,
                      const struct sts_task_attr *attr);
    /* Waits until the task is done and releases what the kernel held for it
     * (the bare-metal port runs the loop); the task's storage and stack are
     * the caller's again. */
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
    /* From an interrupt handler (a DMA or timer completion): never blocks;
     * a task it wakes above the interrupted one runs when the handler
     * returns. POSIX has no interrupts: the same as sem_post. */
    void (*sem_post_from_isr)(struct sts_sem *s);
    /* Takes one count, waiting at most timeout_ns (0: do not wait;
     * STS_WAIT_FOREVER); STS_EBUSY when none came in time. The bare-metal
     * port runs its loop while it waits, and only outside a step. */
    int (*sem_wait)(struct sts_sem *s, uint64_t timeout_ns);
    void (*sem_destroy)(struct sts_sem *s);
};

/* For RTOS ports, from the board (firmware/board_*.c): post `sem` from an
 * interrupt once the port clock reads at_ns, so a task waiting for a
 * device (sts_port_wait_until) blocks and leaves the CPU to others, as it
 * would behind a DMA completion interrupt. STS_ENOTSUP when the board has
 * no such timer: the port then waits in ticks. */
int sts_board_alarm(uint64_t at_ns, struct sts_sem *sem);

/* The port this build was made with. */
const struct sts_port_ops *sts_port(void);

/* STS_OK, or STS_EINVAL for a port this library cannot call (no table, a
 * version of 0 or newer than STS_PORT_OPS_VERSION), with why in err. */
int sts_port_ops_check(const struct sts_port_ops *ops, char *err, size_t errlen);

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
