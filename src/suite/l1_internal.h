/* L1's state, shared by its event loop (l1.c) and its task runner
 * (l1_tasks.c). Not an interface: both files are L1. */
#ifndef STS_SUITE_L1_INTERNAL_H
#define STS_SUITE_L1_INTERNAL_H

#include "workload.h"

#define L1_MAX_STREAMS 8
#define L1_CHUNK 4096u
#define L1_HDR 4u              /* iotask record header: stream, length, time delta (us, 16 bit) */
#define L1_RUNS 64             /* gaps (lost records) a stream can have between two syncs */
#define L1_DEFAULT_STREAMS "imu:1000x12,ppg:100x24,env:1x64"

enum { MODE_DIRECT, MODE_MUTEX, MODE_IOTASK, N_MODES };
/* n records of one stream, produced one period apart from time t: records
 * not yet durable are kept as such runs, so a stream costs no RAM per
 * record; a lost record starts a new run. */
struct l1_span {
    uint64_t t, n;
};

#define L1_NAME_MAX 12

struct l1_stream {
    char name[L1_NAME_MAX];
    uint64_t period_ns;       /* at rate multiplier 1 */
    uint32_t rec;             /* bytes per record */
    uint32_t burst;           /* records that arrive at once (a sensor's FIFO read out
                                 every burst periods); 1: each as it is sampled */
    /* per run */
    uint64_t period, next_t, produced, lost, file_off;
    struct l1_span runs[L1_RUNS]; /* records not yet durable, oldest first */
    uint32_t head, n_runs;
    uint64_t count, pending;  /* records in runs; the last `pending` are not yet written */
    uint64_t pending_bytes, max_pending_bytes;
    sts_fh fh;
};

struct l1_result {
    uint64_t produced, lost, late, payload_bytes, bytes_written, writes, syncs;
    uint64_t worst_stall_ns, required_buffer, elapsed_ns;
    uint64_t durable, durable_bytes; /* records made durable, their payload bytes */
    uint64_t at_risk_peak;    /* the most payload bytes arrived and kept but not yet
                                 durable at any moment: what a power cut then takes */
    uint64_t lost_by_stream[L1_MAX_STREAMS]; /* which stream lost them */
    int capped; /* max_lossless: the search stopped at the space allowed */
    /* the run's worst hour (event loop only: the tasks' clock is shared):
     * the one with the most records lost or late, else the longest stall */
    struct l1_hour {
        uint64_t index, lost, stall_ns;
    } hour, worst_hour;
};

struct l1 {
    struct sts_ctx *c;
    struct l1_stream s[L1_MAX_STREAMS];
    uint32_t n;
    uint64_t duration_ns, deadline_ns, buffer_bytes, sync_ns;
    int virtual_time;
    struct l1_tasks *tasks;   /* real tasks (plan->tasks), else NULL: the event loop */
    /* per run */
    int mode;
    uint64_t idle_ns, start, pending_total, max_pending_total, iot_off;
    sts_fh log_fh;
    struct l1_result r;
};

/* --streams' "name:HZxBYTES[:burst=N],..." into l->s and l->n
 * (l1_streams.c): NULL, or what is wrong with it. */
const char *l1_parse_streams(struct l1 *l, const char *spec);
/* When the next record of s arrives: sampled at next_t, it arrives with
 * the last record of its burst (records are sampled one period apart, and
 * next_t is the produced-th one's time). */
static inline uint64_t l1_arrival(const struct l1_stream *s)
{
    return s->next_t + (s->burst - 1 - s->produced % s->burst) * s->period;
}
/* The run's clock: elapsed time since its start (virtual or real). */
uint64_t l1_now(struct l1 *l);
/* Every record of s due by t arrives: into its FIFO, or lost. */
void l1_produce_stream(struct l1 *l, struct l1_stream *s, uint64_t t);
/* Before records become durable at t: what a power cut just then would
 * take, the run's peak kept (l1.c). */
void l1_note_at_risk(struct l1 *l, uint64_t t);
/* The payload bytes arrived by t, kept, and not yet durable. */
uint64_t l1_at_risk(const struct l1 *l, uint64_t t);
/* Something that happened at time t (the event loop's events come in time
 * order): records lost or late, a stall of stall_ns; counted to its hour. */
void l1_hour_note(struct l1 *l, uint64_t t, uint64_t lost, uint64_t stall_ns);
/* The oldest n records of s became durable at time t. */
void l1_pop(struct l1 *l, struct l1_stream *s, uint64_t n, uint64_t t);
/* direct / mutex: takes the oldest pending record (of `only`, or of any
 * stream when NULL) out of the FIFO; NULL when there is none. */
struct l1_stream *l1_take_record(struct l1 *l, struct l1_stream *only);
/* Writes len pattern bytes at *off of fh, timed and counted. */
int l1_write_bytes(struct l1 *l, sts_fh fh, uint64_t *off, uint32_t len, uint64_t seed);
/* A timed data sync of fh, counted. */
int l1_sync_file(struct l1 *l, sts_fh fh);

/* Runs one rate with producer and writer tasks of the port (l1_tasks.c);
 * the run's files are open, its state reset. */
int l1_tasks_run(struct l1 *l);
/* The task runner's memory, lent by the workspace at `mem`; NULL (with
 * *why) when the port or the target cannot run real tasks. */
struct l1_tasks *l1_tasks_init(struct l1 *l, void *mem, size_t bytes, const char **why);
size_t l1_tasks_bytes(void);
/* The deepest stack a producer and a writer used (an RTOS port measures
 * them; 0 where it does not). */
void l1_tasks_stacks(const struct l1_tasks *k, size_t *producer, size_t *writer);

#endif
