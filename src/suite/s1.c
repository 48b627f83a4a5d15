/* S1: storage throughput with 0..4 CPU-load tasks (the study's section 5.4).
 * A load task does what the study's workers do: increment every element of
 * its own vector, then sum it, again and again. Three access modes:
 *   direct  - one storage task calls the filesystem itself;
 *   mutex   - two storage tasks share the filesystem through a mutex;
 *   iotask  - two producers hand requests to one I/O task through a bounded
 *             queue; the I/O task batches writes into aligned 4 KiB chunks
 *             (the study's guideline: an active object with a request queue).
 * Every task is pinned to CPU 0 where the port can (a single-core MCU).
 * Needs a preemptive port and real time: elsewhere it is not applicable. */
#include "storscope/port.h"
#include "workload.h"

#include <string.h>

#define S1_FILE_BYTES (1u << 20)
#define S1_MAX_CHUNK 8192u
#define S1_ALIGN 4096u
#define S1_QUEUE 8
#define S1_VECTOR 256
#define S1_STEP_OPS 16 /* operations per step of a storage task */
/* Stacks for an RTOS port (POSIX threads use their own): a load task only
 * loops over its vector; a storage task goes down through the filesystem
 * and the device (FileX's deepest call chain included). The measured use
 * is in each point (stack_used_*). */
#define S1_LOAD_STACK 1024u
#define S1_STORAGE_STACK 8192u
#define S1_LAUNCH_STACK 2048u

enum { MODE_DIRECT, MODE_MUTEX, MODE_IOTASK, N_MODES };
static const char *const mode_name[N_MODES] = {"direct", "mutex", "iotask"};

struct s1_run;

struct load_task {
    struct sts_task task;
    uint64_t stack[S1_LOAD_STACK / 8];
    const volatile int *stop;
    uint32_t v[S1_VECTOR];
    uint64_t iterations;
    uint64_t sum;
};

/* a queued request: 4 bytes of length, then the record (chunk bytes) */
struct storage_task {
    struct sts_task task;
    struct s1_run *run;
    sts_fh fh;
    uint64_t ops_left, pos;
    uint64_t t_first, t_last; /* its own first step and its end, on the target clock */
    int rc;
    const char *failed_op; /* what failed, for the test's error: "write", "seek"... */
    const char *path;
    uint8_t buf[4 + S1_MAX_CHUNK];
    uint64_t stack[S1_STORAGE_STACK / 8];
};

struct s1_run {
    struct sts_ctx *c;
    const struct sts_port_ops *port;
    int is_write, mode;
    uint32_t chunk;
    struct sts_mutex fs_lock;
    struct sts_queue q;
    uint8_t q_storage[S1_QUEUE * (4 + S1_MAX_CHUNK)];
    int markers;        /* iotask: producers that said they are done */
    uint8_t staging[S1_ALIGN * 2];
    uint32_t staged;
    uint64_t io_writes, io_aligned;
    int priority_applied, time_slice_applied;
    struct storage_task a, b, io;
    /* starts the storage side's tasks at their own priority (below) */
    struct sts_task launcher;
    uint64_t launcher_stack[S1_LAUNCH_STACK / 8];
    int sprio, pin, start_rc[3]; /* a, b, io */
};

static int load_step(void *arg)
{
    struct load_task *t = arg;
    for (int i = 0; i < S1_VECTOR; i++)
        t->v[i]++;
    uint64_t s = 0;
    for (int i = 0; i < S1_VECTOR; i++)
        s += t->v[i];
    t->sum += s;
    t->iterations++;
    return __atomic_load_n(t->stop, __ATOMIC_ACQUIRE) ? STS_STEP_DONE : STS_STEP_AGAIN;
}

/* One file operation of a storage task (direct or mutex mode). */
static int file_op(struct s1_run *r, struct storage_task *st, uint8_t *buf)
{
    const struct sts_fs_ops *ops = r->c->target->fs.ops;
    void *fs = r->c->target->fs.ctx;
    size_t done = 0;
    if (st->pos + r->chunk > S1_FILE_BYTES) {
        st->failed_op = "seek";
        int rc = ops->seek(fs, st->fh, 0);
        if (rc)
            return rc;
        st->pos = 0;
    }
    st->failed_op = r->is_write ? "write" : "read";
    int rc = r->is_write ? ops->write(fs, st->fh, buf, r->chunk, &done)
                         : ops->read(fs, st->fh, buf, r->chunk, &done);
    if (!rc && done != r->chunk)
        rc = STS_EIO;
    st->pos += r->chunk;
    return rc;
}

/* The point's time is taken inside the storage tasks: starting and joining
 * a thread of the main task, which competes with the load for the CPU,
 * would otherwise add its wake-up latency to a point that lasts a few ms. */
static void began(struct storage_task *st)
{
    if (!st->t_first)
        st->t_first = wl_now(st->run->c);
}

static int ended(struct storage_task *st, int step_result)
{
    if (step_result == STS_STEP_DONE)
        st->t_last = wl_now(st->run->c);
    return step_result;
}

static int storage_step(void *arg)
{
    struct storage_task *st = arg;
    struct s1_run *r = st->run;
    uint8_t *buf = st->buf;
    began(st);
    for (int i = 0; i < S1_STEP_OPS && st->ops_left && !st->rc; i++, st->ops_left--) {
        if (r->mode == MODE_MUTEX)
            r->port->mutex_lock(&r->fs_lock);
        st->rc = file_op(r, st, buf);
        if (r->mode == MODE_MUTEX)
            r->port->mutex_unlock(&r->fs_lock);
    }
    return ended(st, st->ops_left && !st->rc ? STS_STEP_AGAIN : STS_STEP_DONE);
}

/* iotask producers: hand requests to the I/O task, never touch the fs */
static int producer_step(void *arg)
{
    struct storage_task *st = arg;
    struct s1_run *r = st->run;
    uint32_t len = r->chunk;
    began(st);
    for (int i = 0; i < S1_STEP_OPS && st->ops_left; i++) {
        memcpy(st->buf, &len, 4); /* the record itself follows: copied in */
        if (sts_queue_send(&r->q, r->port, st->buf, 1))
            return STS_STEP_DONE;
        st->ops_left--;
    }
    if (st->ops_left)
        return STS_STEP_AGAIN;
    len = 0; /* FIFO: this marker comes after every request of this producer */
    memcpy(st->buf, &len, 4);
    (void)sts_queue_send(&r->q, r->port, st->buf, 1);
    return ended(st, STS_STEP_DONE);
}

static int io_flush_staged(struct s1_run *r, struct storage_task *st, int final)
{
    const struct sts_fs_ops *ops = r->c->target->fs.ops;
    void *fs = r->c->target->fs.ctx;
    while (r->staged >= S1_ALIGN || (final && r->staged)) {
        uint32_t n = r->staged >= S1_ALIGN ? S1_ALIGN : r->staged;
        if (st->pos + n > S1_FILE_BYTES) {
            st->failed_op = "seek";
            int rc = ops->seek(fs, st->fh, 0);
            if (rc)
                return rc;
            st->pos = 0;
        }
        size_t done = 0;
        st->failed_op = "write";
        int rc = ops->write(fs, st->fh, r->staging, n, &done);
        if (rc || done != n)
            return rc ? rc : STS_EIO;
        r->io_writes++;
        r->io_aligned += n == S1_ALIGN && st->pos % S1_ALIGN == 0;
        st->pos += n;
        memmove(r->staging, r->staging + n, r->staged - n);
        r->staged -= n;
    }
    return STS_OK;
}

static int io_step(void *arg)
{
    struct storage_task *st = arg;
    struct s1_run *r = st->run;
    began(st);
    for (int i = 0; i < S1_STEP_OPS; i++) {
        if (sts_queue_recv(&r->q, r->port, st->buf, 1))
            return ended(st, STS_STEP_DONE);
        uint32_t len;
        memcpy(&len, st->buf, 4);
        if (len == 0) {
            if (++r->markers < 2)
                continue;
            if (r->is_write && !st->rc)
                st->rc = io_flush_staged(r, st, 1);
            return ended(st, STS_STEP_DONE);
        }
        /* after a failure the queue is still drained to both markers: the
         * producers block on a full queue otherwise, and the run with them */
        if (st->rc)
            continue;
        if (r->is_write) {
            /* batch: small records become whole aligned chunks */
            uint32_t off = 0;
            while (off < len && !st->rc) {
                uint32_t n = len - off;
                if (n > sizeof(r->staging) - r->staged)
                    n = (uint32_t)sizeof(r->staging) - r->staged;
                memcpy(r->staging + r->staged, st->buf + 4 + off, n);
                r->staged += n;
                off += n;
                st->rc = io_flush_staged(r, st, 0);
            }
        } else {
            st->rc = file_op(r, st, st->buf + 4);
        }
    }
    return STS_STEP_AGAIN;
}

/* Every S1 task: round robin among equal priorities, as the study's
 * ThreadX tasks (where the port can switch it: STS_PORT_TIME_SLICING). */
static struct sts_task_attr task_attr(int priority, int pin, void *stack, size_t stack_bytes)
{
    return (struct sts_task_attr){.priority = priority, .cpu = pin ? 0 : -1, .stack = stack,
                                  .stack_bytes = stack_bytes, .time_slice = STS_SLICE_ON,
                                  .name = "s1"};
}

/* The launcher's one step: the storage side's tasks, started back to back. */
static int launch_step(void *arg)
{
    struct s1_run *r = arg;
    const struct sts_port_ops *port = r->port;
    struct storage_task *sa = &r->a, *sb = &r->b, *io = &r->io;
    struct sts_task_attr aa = task_attr(r->sprio, r->pin, sa->stack, sizeof(sa->stack));
    struct sts_task_attr ab = task_attr(r->sprio, r->pin, sb->stack, sizeof(sb->stack));
    if (r->mode == MODE_MUTEX) {
        r->start_rc[0] = port->task_start(&sa->task, storage_step, sa, &aa);
        r->start_rc[1] = port->task_start(&sb->task, storage_step, sb, &ab);
        return STS_STEP_DONE;
    }
    struct sts_task_attr aio = task_attr(r->sprio, r->pin, io->stack, sizeof(io->stack));
    r->start_rc[2] = port->task_start(&io->task, io_step, io, &aio);
    if (!r->start_rc[2]) {
        r->start_rc[0] = port->task_start(&sa->task, producer_step, sa, &aa);
        r->start_rc[1] = port->task_start(&sb->task, producer_step, sb, &ab);
    }
    return STS_STEP_DONE;
}

/* lent by the workspace: ~100 KB that an MCU image must not carry in .bss */
struct s1_mem {
    struct s1_run run; /* cleared for each point */
    struct load_task loads[4];
    size_t load_stack_used, storage_stack_used; /* deepest seen in the whole test, bytes */
};
static int stop_loads;

static int open_file(struct sts_ctx *c, const char *path, int is_write, sts_fh *fh)
{
    return wl_open(c, path, is_write ? STS_O_WRONLY : STS_O_RDONLY, fh);
}

/* One point: returns bytes/s of the storage work and the load iterations. */
/* The point's lock, queue (the I/O task's) and files: 0, or the first
 * failure with everything made undone, in reverse. */
static int s1_setup(struct sts_ctx *c, struct s1_run *r, int mode, int is_write, uint32_t chunk)
{
    const struct sts_port_ops *port = r->port;
    int rc = port->mutex_init(&r->fs_lock);
    int lock_made = !rc, q_made = 0;
    if (!rc && mode == MODE_IOTASK) {
        rc = sts_queue_init(&r->q, port, r->q_storage, 4 + chunk, S1_QUEUE);
        q_made = !rc;
    }
    struct storage_task *sa = &r->a, *sb = &r->b, *io = &r->io;
    sa->run = sb->run = io->run = r;
    sa->path = io->path = "s1_a.dat";
    sb->path = "s1_b.dat";
    if (!rc)
        rc = open_file(c, "s1_a.dat", is_write, mode == MODE_IOTASK ? &io->fh : &sa->fh);
    if (!rc && mode == MODE_MUTEX) {
        rc = open_file(c, "s1_b.dat", is_write, &sb->fh);
        if (rc) /* the first file is open: close it, or it stays claimed */
            (void)c->target->fs.ops->close(c->target->fs.ctx, sa->fh);
    }
    if (rc) { /* undo what was made, in reverse */
        if (q_made)
            sts_queue_destroy(&r->q, port);
        if (lock_made)
            port->mutex_destroy(&r->fs_lock);
        return rc;
    }
    return STS_OK;
}

/* Starts the storage side as `mode` runs it, above the load at priority
 * sprio, and waits for it to end: the first start failure (a task that did
 * not start is never joined). */
static int s1_storage(struct s1_run *r, int mode, uint64_t ops, int sprio, int pin)
{
    const struct sts_port_ops *port = r->port;
    struct storage_task *sa = &r->a, *sb = &r->b, *io = &r->io;
    int start_rc = STS_OK;
    if (mode == MODE_DIRECT) {
        sa->ops_left = ops;
        struct sts_task_attr sattr = task_attr(sprio, pin, sa->stack, sizeof(sa->stack));
        start_rc = port->task_start(&sa->task, storage_step, sa, &sattr);
        if (!start_rc)
            port->task_join(&sa->task);
    } else {
        /* Two or three storage tasks start together, from a task at their
         * own priority: started from here, at the load's, the second one
         * waited until this task had the CPU again - on FreeRTOS, which
         * moves a preempted task to the back of its round robin, a whole
         * round of load slices (the I/O task above the load then seemed to
         * lose 51 % with 1-byte records; ThreadX resumes the preempted
         * task first and lost nothing). */
        sa->ops_left = ops / 2;
        sb->ops_left = ops - ops / 2;
        r->sprio = sprio;
        r->pin = pin;
        r->start_rc[0] = r->start_rc[1] = r->start_rc[2] = STS_EINVAL;
        struct sts_task_attr al =
            task_attr(sprio, pin, r->launcher_stack, sizeof(r->launcher_stack));
        start_rc = port->task_start(&r->launcher, launch_step, r, &al);
        if (!start_rc)
            port->task_join(&r->launcher);
        int *rs = r->start_rc;
        if (!start_rc && mode == MODE_MUTEX) {
            if (!rs[0])
                port->task_join(&sa->task);
            if (!rs[1])
                port->task_join(&sb->task);
            start_rc = rs[0] ? rs[0] : rs[1];
        } else if (!start_rc) {
            start_rc = rs[2];
            struct storage_task *prod[2] = {sa, sb};
            for (int i = 0; i < 2 && !rs[2]; i++) {
                if (!rs[i]) {
                    port->task_join(&prod[i]->task);
                    continue;
                }
                /* the producer that never ran sends its end marker from here,
                 * or the I/O task would wait for it for ever */
                uint32_t zero = 0;
                memcpy(prod[i]->buf, &zero, 4);
                (void)sts_queue_send(&r->q, port, prod[i]->buf, 1);
            }
            if (!rs[2]) {
                port->task_join(&io->task);
                start_rc = rs[0] ? rs[0] : rs[1];
            }
        }
    }
    return start_rc;
}

/* Stops and joins the n_started load tasks: their iterations, and their
 * stacks' high mark into mem. */
static uint64_t s1_stop_loads(struct s1_mem *mem, int n_started)
{
    const struct sts_port_ops *port = sts_port();
    uint64_t iters = 0;
    __atomic_store_n(&stop_loads, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < n_started; i++) {
        port->task_join(&mem->loads[i].task);
        iters += mem->loads[i].iterations;
        if (mem->loads[i].task.stack_used > mem->load_stack_used)
            mem->load_stack_used = mem->loads[i].task.stack_used;
    }
    return iters;
}

static int s1_point(struct sts_ctx *c, struct s1_mem *mem, int mode, int is_write,
                    uint32_t chunk, int n_loads, uint64_t ops, int pin, double *bps,
                    uint64_t *load_iters)
{
    const struct sts_port_ops *port = sts_port();
    struct s1_run *r = &mem->run;
    struct load_task *loads = mem->loads;
    memset(r, 0, sizeof(*r));
    r->c = c;
    r->port = port;
    r->is_write = is_write;
    r->mode = mode;
    r->chunk = chunk;
    /* the storage side may run above the load (the guideline's I/O task) */
    int sprio = (int)c->plan->rt_priority;
    int rc = s1_setup(c, r, mode, is_write, chunk);
    if (rc)
        return rc;
    struct storage_task *sa = &r->a, *sb = &r->b, *io = &r->io;
    sts_pattern_fill(sa->buf + 4, 0, chunk, c->plan->seed);
    memcpy(sb->buf + 4, sa->buf + 4, chunk);
    __atomic_store_n(&stop_loads, 0, __ATOMIC_RELEASE);
    int n_started = 0, start_rc = STS_OK; /* a task that did not start is never joined */
    for (int i = 0; i < n_loads && !start_rc; i++) {
        memset(&loads[i], 0, sizeof(loads[i]));
        loads[i].stop = &stop_loads;
        struct sts_task_attr attr = task_attr(0, pin, loads[i].stack, sizeof(loads[i].stack));
        start_rc = port->task_start(&loads[i].task, load_step, &loads[i], &attr);
        n_started += !start_rc;
    }
    if (!start_rc)
        start_rc = s1_storage(r, mode, ops, sprio, pin);
    /* from the first storage step to the last one's end */
    uint64_t t0 = UINT64_MAX, t1 = 0;
    const struct storage_task *used[] = {sa, mode == MODE_DIRECT ? sa : sb,
                                         mode == MODE_IOTASK ? io : sa};
    for (size_t i = 0; i < WL_COUNT(used); i++) {
        t0 = used[i]->t_first < t0 ? used[i]->t_first : t0;
        t1 = used[i]->t_last > t1 ? used[i]->t_last : t1;
    }
    r->priority_applied = sa->task.priority_applied;
    r->time_slice_applied = sa->task.time_slice_applied;
    for (size_t i = 0; i < WL_COUNT(used); i++)
        if (used[i]->task.stack_used > mem->storage_stack_used)
            mem->storage_stack_used = used[i]->task.stack_used;
    *load_iters = s1_stop_loads(mem, n_started);
    rc = sa->rc ? sa->rc : sb->rc ? sb->rc : io->rc;
    if (!rc && !start_rc && mode == MODE_IOTASK && is_write &&
        r->io_writes * S1_ALIGN < ops * chunk)
        rc = STS_EIO; /* the batches must carry every byte */
    int rc2 = wl_close(c, mode == MODE_IOTASK ? io->fh : sa->fh);
    if (mode == MODE_MUTEX) { /* both handles, whatever the first close said */
        int rc3 = wl_close(c, sb->fh);
        rc2 = rc2 ? rc2 : rc3;
    }
    if (mode == MODE_IOTASK)
        sts_queue_destroy(&r->q, port);
    port->mutex_destroy(&r->fs_lock);
    *bps = wl_rate(ops * chunk, t1 - t0);
    if (start_rc)
        return sts_fail(c, start_rc, "S1: a task could not be started (out of threads?)");
    if (rc) { /* the storage task's own operation and file: "write s1_a.dat: I/O error" */
        const struct storage_task *bad = sa->rc ? sa : sb->rc ? sb : io;
        return wl_fail_on(c, rc, bad->failed_op ? bad->failed_op : "batch", bad->path);
    }
    return rc2;
}

/* One chunk size of one mode and direction: the unrecorded first pass,
 * then 0 to 4 load tasks, each a point; *step counts them for progress. */
static int s1_chunk(struct sts_ctx *c, struct s1_mem *mem, int mode, int w, uint32_t chunk,
                    uint64_t ops, int pin, uint64_t *step, uint64_t steps)
{
    static const int load_levels[] = {0, 1, 2, 3, 4};
    double base = 0;
    int rc = STS_OK;
    for (size_t l = 0; l < WL_COUNT(load_levels) && !rc; l++) {
        char what[48];
        sts_strlcpy(what, mode_name[mode], sizeof(what));
        sts_strlcat(what, w ? " write" : " read", sizeof(what));
        sts_report_progress(c, what, (*step)++, steps);
        double bps;
        uint64_t iters;
        /* The first pass at a chunk size leaves the device as the loaded
         * passes find it (an FTL maps a region rewritten in 1 KiB pieces
         * otherwise than one laid out whole): run it unrecorded, or the
         * baseline is a different device and the loss is skewed (on the
         * simulated eMMC, 1 KiB writes: 8.3 MB/s first, 5.6 after, a third
         * of "loss" with no load at all). */
        if (l == 0)
            rc = s1_point(c, mem, mode, w, chunk, 0, ops, pin, &bps, &iters);
        if (!rc)
            rc = s1_point(c, mem, mode, w, chunk, load_levels[l], ops, pin, &bps, &iters);
        if (rc)
            break;
        if (l == 0)
            base = bps;
        struct sts_kv params[] = {
            STS_KV_S("op", w ? "write" : "read"),
            STS_KV_S("mode", mode_name[mode]),
            STS_KV_U("chunk_bytes", chunk),
            STS_KV_U("load_tasks", load_levels[l]),
            STS_KV_U("iterations", ops),
        };
        struct sts_kv metrics[] = {
            STS_KV_U("bytes_per_run", ops * chunk),
            STS_KV_D("degradation", base > 0 ? 1.0 - bps / base : 0.0),
            STS_KV_U("load_iterations", iters),
            STS_KV_U("aligned_writes", mem->run.io_aligned),
            STS_KV_U("device_writes", mem->run.io_writes),
        };
        size_t nm = mode == MODE_IOTASK && w ? 5 : 3;
        double runs[1] = {bps};
        rc = wl_emit_runs(c, w ? "write" : "read", params, WL_COUNT(params), runs, 1, metrics,
                          nm, NULL, 0);
    }
    return rc;
}

/* What the port could apply and the tasks' stacks, in the summary. */
static void s1_summary(struct sts_ctx *c, const struct s1_mem *mem)
{
    if (c->plan->rt_priority) /* asked for: say whether the port could set it */
        sts_set_summary(c, STS_KV_B("priority_applied", mem->run.priority_applied != 0));
    /* round robin at each tick among equal priorities: what the study's
     * ThreadX did; POSIX's fair scheduler shares otherwise */
    sts_set_summary(c, STS_KV_B("time_slicing", mem->run.time_slice_applied != 0));
    if (mem->storage_stack_used) /* measured by an RTOS port: docs/porting.md */
        sts_set_summary(c, STS_KV_U("storage_task_stack_used_bytes", mem->storage_stack_used));
    if (mem->load_stack_used)
        sts_set_summary(c, STS_KV_U("load_task_stack_used_bytes", mem->load_stack_used));
}

static int s1_run(struct sts_ctx *c)
{
    int full = c->plan->scale == STS_SCALE_FULL;
    static const uint32_t chunks_full[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048,
                                           4096, 8192};
    static const uint32_t chunks_quick[] = {1, 64, 1024, 8192};
    const uint32_t *chunks = full ? chunks_full : chunks_quick;
    size_t n_chunks = full ? WL_COUNT(chunks_full) : WL_COUNT(chunks_quick);
    uint64_t ops = full ? 10000 : 1000;
    const struct sts_port_ops *port = sts_port();
    char why[128];
    if (sts_port_ops_check(port, why, sizeof(why)))
        return sts_fail(c, STS_EINVAL, why);
    int pin = (port->caps & STS_PORT_PINNING) != 0;
    struct sts_kv tp[] = {
        STS_KV_U("iterations", ops),
        STS_KV_U("max_load_tasks", 4),
        STS_KV_B("pinned_to_one_cpu", pin),
        STS_KV_S("port", port->name),
        STS_KV_U("storage_priority", c->plan->rt_priority),
    };
    int rc = sts_test_begin(c, tp, WL_COUNT(tp));
    if (rc)
        return rc;
    if (!(port->caps & STS_PORT_PREEMPTIVE))
        return sts_fail(c, STS_ENOTSUP, "S1 needs preemptive tasks; this port is cooperative");
    if (c->target->flags & STS_T_VIRTUAL_TIME)
        return sts_fail(c, STS_ENOTSUP, "S1 needs real time: use clock=real on sim: targets");
    if (wl_read_only(c))
        return sts_fail(c, STS_ENOTSUP, "S1 writes: " WL_READ_ONLY_WHY);
    const char *no_rewrite = wl_no_rewrite(c); /* its tasks write round a 1 MiB file */
    if (no_rewrite)
        return sts_fail(c, STS_ENOTSUP, no_rewrite);
    /* the prefill below uses the buffer too: every point clears its state first */
    struct s1_mem *mem = wl_borrow(c, 0, sizeof(struct s1_mem));
    if (!mem)
        return sts_fail(c, STS_ENOMEM, "S1: the workspace buffer is too small for its queue");
    rc = wl_prefill(c, "s1_b.dat", S1_FILE_BYTES);
    if (!rc)
        rc = wl_prefill(c, "s1_a.dat", S1_FILE_BYTES);
    mem->load_stack_used = mem->storage_stack_used = 0; /* after the prefill's use */
    uint64_t step = 0, steps = N_MODES * 2 * n_chunks * 5;
    for (int mode = 0; mode < N_MODES && !rc; mode++)
        for (int w = 1; w >= 0 && !rc; w--)
            for (size_t k = 0; k < n_chunks && !rc; k++)
                rc = s1_chunk(c, mem, mode, w, chunks[k], ops, pin, &step, steps);
    s1_summary(c, mem);
    int r1 = wl_remove(c, "s1_a.dat"), r2 = wl_remove(c, "s1_b.dat");
    return rc ? rc : r1 ? r1 : r2;
}

static uint64_t s1_scratch(const struct sts_plan *p)
{
    (void)p;
    return 2ull * S1_FILE_BYTES;
}

const struct sts_test_def sts_test_s1 = {
    "S1", "Throughput with 0..4 CPU-load tasks: direct, mutex and I/O-task access",
    "study S1", s1_scratch, s1_run, 0, 1, 0,
};
