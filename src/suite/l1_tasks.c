/* L1 with real tasks (plan->tasks): each stream's producer is a task of
 * its own that sleeps to its schedule and puts its records in the RAM
 * FIFO, as a sensor's driver task would; the writers are tasks too:
 *   direct - one storage task, woken by every record;
 *   mutex  - one writer task per stream, each taking the filesystem lock;
 *   iotask - one I/O task, woken when a 4 KiB chunk is ready.
 * The bookkeeping is the event loop's (l1.c), under one short lock that the
 * producers and the writers take; no lock is held across a storage call
 * but the filesystem lock of mutex mode, which is that mode's point. The
 * producers run above the writers (plan->rt_priority + 1), as interrupt-
 * driven drivers do on an MCU: a record is on time unless its FIFO is full.
 * Needs a preemptive port and real time (on an RTOS image: the device paced
 * on the MCU's clock, firmware/s1_main.c). */
#include "storscope/port.h"
#include "l1_internal.h"

#include <string.h>

/* A producer only waits, locks and counts; a writer goes down through the
 * filesystem and the device (S1's storage task measured the deepest). The
 * stacks used are in the test's summary. */
#define L1_PRODUCER_STACK 1024u
#define L1_WRITER_STACK 8192u
/* how long a writer that found nothing to do waits for the producers'
 * last records before it looks again, at the end of a run */
#define L1_END_POLL_NS 1000000u

struct l1_tasks;

struct l1_task {
    struct sts_task task;
    struct l1_tasks *k;
    struct l1_stream *s;  /* producer: its stream; mutex writer: the stream it writes */
    struct sts_sem *wake; /* producer: the writer it wakes */
    struct sts_sem sem;   /* writer: posted when there is work */
    uint64_t next_sync;
    int rc;
};

struct l1_tasks {
    struct l1 *l;
    const struct sts_port_ops *port;
    struct sts_mutex lock;    /* the FIFO and its bookkeeping */
    struct sts_mutex fs_lock; /* mutex mode: the filesystem */
    int abort;                /* a writer failed or was stopped: producers end */
    uint32_t n_writers;
    size_t producer_stack_used, writer_stack_used;
    struct l1_task prod[L1_MAX_STREAMS], writer[L1_MAX_STREAMS];
    uint64_t prod_stack[L1_MAX_STREAMS][L1_PRODUCER_STACK / 8];
    uint64_t writer_stack[L1_MAX_STREAMS][L1_WRITER_STACK / 8];
};

size_t l1_tasks_bytes(void)
{
    return sizeof(struct l1_tasks);
}

void l1_tasks_stacks(const struct l1_tasks *k, size_t *producer, size_t *writer)
{
    *producer = k->producer_stack_used;
    *writer = k->writer_stack_used;
}

struct l1_tasks *l1_tasks_init(struct l1 *l, void *mem, size_t bytes, const char **why)
{
    const struct sts_port_ops *port = sts_port();
    if (sts_port_ops_check(port, NULL, 0)) {
        *why = "L1 --tasks: this build's OS port states a method-table version this library "
               "does not know (STS_PORT_OPS_VERSION, port.h)";
        return NULL;
    }
    if (!(port->caps & STS_PORT_PREEMPTIVE)) {
        *why = "L1 --tasks needs a port with preemptive tasks (this build's is cooperative)";
        return NULL;
    }
    if (l->virtual_time) {
        *why = "L1 --tasks runs in real time: give the simulator clock=real";
        return NULL;
    }
    if (!mem || bytes < sizeof(struct l1_tasks)) {
        *why = "L1 --tasks: the workspace buffer is too small for the tasks' stacks";
        return NULL;
    }
    struct l1_tasks *k = mem;
    memset(k, 0, sizeof(*k));
    k->l = l;
    k->port = port;
    return k;
}

static void lock(struct l1_tasks *k)
{
    k->port->mutex_lock(&k->lock);
}
static void unlock(struct l1_tasks *k)
{
    k->port->mutex_unlock(&k->lock);
}
static int aborted(struct l1_tasks *k)
{
    return __atomic_load_n(&k->abort, __ATOMIC_ACQUIRE);
}

/* ---- producers -------------------------------------------------------- */
static int producer_step(void *arg)
{
    struct l1_task *p = arg;
    struct l1_tasks *k = p->k;
    struct l1 *l = k->l;
    /* next_t is written by this task only (under the lock, for the writers) */
    uint64_t due = l1_arrival(p->s); /* (a burst the run ends before never arrives) */
    if (due >= l->duration_ns || aborted(k) || sts_should_stop(l->c))
        return STS_STEP_DONE;
    uint64_t t = l1_now(l);
    if (due > t)
        sts_port_wait_until(sts_clock_now(sts_port_clock()) + (due - t));
    lock(k);
    l1_produce_stream(l, p->s, l1_now(l));
    /* the I/O task has work only once a chunk is full */
    int work = l->mode != MODE_IOTASK || l->pending_total >= L1_CHUNK;
    unlock(k);
    if (work)
        k->port->sem_post(p->wake);
    return STS_STEP_AGAIN;
}

/* ---- writers ---------------------------------------------------------- */
static void fs_lock(struct l1_tasks *k)
{
    if (k->l->mode == MODE_MUTEX)
        k->port->mutex_lock(&k->fs_lock);
}
static void fs_unlock(struct l1_tasks *k)
{
    if (k->l->mode == MODE_MUTEX)
        k->port->mutex_unlock(&k->fs_lock);
}

/* One piece of work: a record (direct, mutex) or a full chunk (iotask);
 * *none when there was nothing to write. */
static int write_some(struct l1_task *w, int *none)
{
    struct l1_tasks *k = w->k;
    struct l1 *l = k->l;
    *none = 0;
    if (l->mode == MODE_IOTASK) {
        lock(k);
        int full = l->pending_total >= L1_CHUNK;
        if (full) /* the chunk's records leave RAM; they become durable at the sync */
            l->pending_total -= L1_CHUNK;
        unlock(k);
        if (!full) {
            *none = 1;
            return STS_OK;
        }
        return l1_write_bytes(l, l->log_fh, &l->iot_off, L1_CHUNK, l->c->plan->seed);
    }
    lock(k);
    struct l1_stream *s = l1_take_record(l, w->s);
    unlock(k);
    if (!s) {
        *none = 1;
        return STS_OK;
    }
    fs_lock(k);
    int rc = l1_write_bytes(l, s->fh, &s->file_off, s->rec, l->c->plan->seed + 1);
    fs_unlock(k);
    return rc;
}

/* Makes what this writer wrote durable: the records written before the
 * sync began are popped when it ends (a record produced meanwhile waits). */
static int sync_some(struct l1_task *w)
{
    struct l1_tasks *k = w->k;
    struct l1 *l = k->l;
    uint64_t written[L1_MAX_STREAMS], pend[L1_MAX_STREAMS], pend_bytes[L1_MAX_STREAMS];
    uint64_t total = 0;
    lock(k);
    for (uint32_t i = 0; i < l->n; i++) {
        struct l1_stream *s = &l->s[i];
        int mine = !w->s || w->s == s;
        /* iotask: everything in RAM goes out with the sync, padded */
        written[i] = !mine ? 0 : l->mode == MODE_IOTASK ? s->count : s->count - s->pending;
        pend[i] = l->mode == MODE_IOTASK && mine ? s->pending : 0;
        pend_bytes[i] = l->mode == MODE_IOTASK && mine ? s->pending_bytes : 0;
    }
    if (l->mode == MODE_IOTASK) {
        total = l->pending_total;
        l->pending_total = 0;
    }
    unlock(k);
    int rc = STS_OK;
    if (l->mode == MODE_IOTASK) {
        for (uint64_t n = (total + L1_CHUNK - 1) / L1_CHUNK; n && !rc; n--)
            rc = l1_write_bytes(l, l->log_fh, &l->iot_off, L1_CHUNK, l->c->plan->seed);
        if (!rc)
            rc = l1_sync_file(l, l->log_fh);
    } else {
        for (uint32_t i = 0; i < l->n && !rc; i++) {
            if (!written[i]) /* 0 for another writer's streams */
                continue;
            fs_lock(k);
            rc = l1_sync_file(l, l->s[i].fh);
            fs_unlock(k);
        }
    }
    if (rc)
        return rc;
    lock(k);
    uint64_t t = l1_now(l);
    l1_note_at_risk(l, t);
    for (uint32_t i = 0; i < l->n; i++) {
        struct l1_stream *s = &l->s[i];
        l1_pop(l, s, written[i], t);
        s->pending -= pend[i];
        s->pending_bytes -= pend_bytes[i];
    }
    unlock(k);
    return STS_OK;
}

static int producers_done(struct l1_tasks *k)
{
    for (uint32_t i = 0; i < k->l->n; i++)
        if (!sts_task_done(&k->prod[i].task))
            return 0;
    return 1;
}

static int writer_end(struct l1_task *w, int rc)
{
    w->rc = rc;
    if (rc)
        __atomic_store_n(&w->k->abort, 1, __ATOMIC_RELEASE);
    return STS_STEP_DONE;
}

static int writer_step(void *arg)
{
    struct l1_task *w = arg;
    struct l1_tasks *k = w->k;
    struct l1 *l = k->l;
    if (sts_should_stop(l->c))
        return writer_end(w, STS_EINTR);
    if (aborted(k))
        return writer_end(w, STS_OK); /* another writer failed: its error is the run's */
    uint64_t t = l1_now(l);
    if (t >= l->duration_ns && producers_done(k)) {
        int none = 0, rc = STS_OK; /* production is over: drain, then make it durable */
        while (!rc && !none)
            rc = write_some(w, &none);
        return writer_end(w, rc ? rc : sync_some(w));
    }
    if (t >= w->next_sync) {
        while (w->next_sync <= t)
            w->next_sync += l->sync_ns;
        int rc = sync_some(w);
        return rc ? writer_end(w, rc) : STS_STEP_AGAIN;
    }
    int none = 0;
    int rc = write_some(w, &none);
    if (rc)
        return writer_end(w, rc);
    if (none) { /* until a producer has work for it, the next sync or the end */
        uint64_t until = w->next_sync < l->duration_ns ? w->next_sync : l->duration_ns;
        uint64_t wait = until > t ? until - t : L1_END_POLL_NS;
        (void)k->port->sem_wait(&w->sem, wait);
    }
    return STS_STEP_AGAIN;
}

/* ---- a run ------------------------------------------------------------ */
static struct sts_task_attr attr(int priority, void *stack, size_t bytes, const char *name)
{
    return (struct sts_task_attr){.priority = priority, .cpu = -1, .stack = stack,
                                  .stack_bytes = bytes, .name = name};
}

static void join_all(struct l1_tasks *k, uint32_t n_prod, uint32_t n_writers)
{
    for (uint32_t i = 0; i < n_writers; i++) {
        k->port->task_join(&k->writer[i].task);
        if (k->writer[i].task.stack_used > k->writer_stack_used)
            k->writer_stack_used = k->writer[i].task.stack_used;
    }
    for (uint32_t i = 0; i < n_prod; i++) {
        k->port->task_join(&k->prod[i].task);
        if (k->prod[i].task.stack_used > k->producer_stack_used)
            k->producer_stack_used = k->prod[i].task.stack_used;
    }
}

int l1_tasks_run(struct l1 *l)
{
    struct l1_tasks *k = l->tasks;
    const struct sts_port_ops *port = k->port;
    int wprio = (int)l->c->plan->rt_priority;
    int pprio = wprio ? wprio + 1 : STS_PRIO_NORMAL;
    uint32_t n_writers = l->mode == MODE_MUTEX ? l->n : 1;
    k->abort = 0;
    if (port->mutex_init(&k->lock))
        return sts_fail(l->c, STS_ENOMEM, "L1 --tasks: the port could not make a mutex");
    if (port->mutex_init(&k->fs_lock)) {
        port->mutex_destroy(&k->lock);
        return sts_fail(l->c, STS_ENOMEM, "L1 --tasks: the port could not make a mutex");
    }
    for (uint32_t i = 0; i < n_writers; i++) {
        struct l1_task *w = &k->writer[i];
        memset(w, 0, sizeof(*w));
        w->k = k;
        w->s = l->mode == MODE_MUTEX ? &l->s[i] : NULL;
        w->next_sync = l->sync_ns;
        if (port->sem_init(&w->sem, 0)) {
            while (i--)
                port->sem_destroy(&k->writer[i].sem);
            port->mutex_destroy(&k->fs_lock);
            port->mutex_destroy(&k->lock);
            return sts_fail(l->c, STS_ENOMEM, "L1 --tasks: the port could not make a semaphore");
        }
    }
    int rc = STS_OK;
    uint32_t started_w = 0, started_p = 0;
    for (; started_w < n_writers && !rc; started_w++) {
        struct sts_task_attr a = attr(wprio, k->writer_stack[started_w],
                                      sizeof(k->writer_stack[started_w]), "l1 writer");
        rc = port->task_start(&k->writer[started_w].task, writer_step, &k->writer[started_w], &a);
        if (rc)
            break;
    }
    for (; started_p < l->n && !rc; started_p++) {
        struct l1_task *p = &k->prod[started_p];
        memset(p, 0, sizeof(*p));
        p->k = k;
        p->s = &l->s[started_p];
        p->wake = &k->writer[l->mode == MODE_MUTEX ? started_p : 0].sem;
        struct sts_task_attr a = attr(pprio, k->prod_stack[started_p],
                                      sizeof(k->prod_stack[started_p]), p->s->name);
        rc = port->task_start(&p->task, producer_step, p, &a);
        if (rc)
            break;
    }
    if (rc) { /* what started ends at once, and says nothing */
        __atomic_store_n(&k->abort, 1, __ATOMIC_RELEASE);
        for (uint32_t i = 0; i < started_w; i++)
            port->sem_post(&k->writer[i].sem);
        rc = sts_fail(l->c, rc, "L1 --tasks: the port could not start a task");
    }
    join_all(k, started_p, started_w);
    for (uint32_t i = 0; i < n_writers; i++) {
        if (!rc && k->writer[i].rc)
            rc = k->writer[i].rc;
        port->sem_destroy(&k->writer[i].sem);
    }
    port->mutex_destroy(&k->fs_lock);
    port->mutex_destroy(&k->lock);
    return rc;
}
