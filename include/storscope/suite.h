/* Plans, the engine and the workload registry.
 * Data flows one way: plan -> engine -> workload -> target; the workload
 * measures, and the engine hands points to the sinks. */
#ifndef STORSCOPE_SUITE_H
#define STORSCOPE_SUITE_H

#include <stddef.h>
#include <stdint.h>

#include "storscope/result.h"
#include "storscope/stats.h"
#include "storscope/target.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STORSCOPE_VERSION "0.1.0"

enum sts_scale {
    STS_SCALE_QUICK, /* shrunk sizes and runs: CI, smoke tests, a first look */
    STS_SCALE_FULL,  /* the reference study's values exactly */
};
const char *sts_scale_name(enum sts_scale s);
int sts_scale_parse(const char *s, enum sts_scale *out);

struct sts_test_def;

struct sts_plan {
    const struct sts_test_def *const *tests;
    size_t n_tests;
    const char *suite_name;  /* informative; NULL when tests were listed */
    enum sts_scale scale;
    uint32_t runs;           /* repetitions per point; 0 = the test's default */
    uint64_t duration_ns;    /* time-based tests; 0 = the test's default */
    uint64_t size_bytes;     /* file size of tests that take one; 0 = default */
    uint64_t seed;           /* offsets and data patterns derive from it */
    int verify;              /* check every read against the written pattern */
    int overwrite;           /* fsync: write the file before timing (fio --overwrite=1);
                                0: allocate it unwritten, fio's default layout */
    int m1_byte_offsets;     /* M1: offsets at any byte; 0: multiples of the chunk size,
                                as the study's figures imply (flat to 64 B, one command
                                at 1 KiB: README, M1) */
    /* M2 (aging). Filling a filesystem is only allowed on one the user set
     * aside: on a user's filesystem M2 needs capacity_bytes and refuses a
     * filesystem larger than it. */
    uint64_t capacity_bytes; /* size of the filesystem M2 may fill; 0 = not given */
    uint64_t interval_ns;    /* between lifecycles; 0 = 30 min in virtual time,
                                back to back in real time */
    uint32_t floor_permille; /* stop when free space would fall below this share of
                                the total; 0 = 50 (5 %) */
    uint64_t threshold_ns;   /* latency a guideline keeps create/open under; 0 = 200 ms */
    /* L1 (sustained logging). */
    const char *streams;     /* "imu:1000x12,ppg:100x24,env:1x64" (name:HZxBYTES[:burst=N]);
                                NULL = that default */
    uint64_t deadline_ns;    /* a record durable later than this after it was produced
                                is late; 0 = 2 s */
    uint64_t buffer_bytes;   /* RAM the logger has for records not yet written; a record
                                that does not fit is lost; 0 = 64 KiB */
    uint64_t sync_interval_ns; /* how often everything is made durable; 0 = 1 s */
    int bisect;              /* also search the highest lossless rate per mode */
    int tasks;               /* producers and writers as real tasks of the port (a
                                preemptive port, real time); 0 = one event loop */
    int l1_writer;           /* only this writer: 1 direct, 2 mutex, 3 iotask (a plan
                                running one configuration longer); 0 = all three */
    /* S1: real-time priority (SCHED_FIFO on POSIX) of the storage-side tasks,
     * never of the CPU-load tasks; S1's runs are bounded by their iteration
     * count. 0 = the default policy. */
    uint32_t rt_priority;
    const volatile int *stop; /* non-zero asks the run to stop (Ctrl-C); set it from a
                                 signal handler, or from another thread with an atomic store */
};

/* Memory the caller lends the engine; nothing is allocated while running. */
struct sts_workspace {
    uint8_t *buf;            /* I/O buffer, aligned to the target's io_align */
    size_t buf_size;         /* bytes; chunks larger than this are skipped */
    uint64_t *hist;          /* STS_CTX_LATS * hist_buckets counters */
    size_t hist_buckets;     /* per recorder; >= STS_HIST_BUCKETS_FOR(sub, exp) */
    unsigned hist_sub_bits;  /* histogram resolution, see stats.h */
    unsigned hist_max_exp;
    /* A sweep's runs, point by point, for sweeps that run in rounds on a
     * device whose figures do not repeat (a real one, a noisy model): every
     * point once a round, so a slow spell of the device or its host falls
     * on one run of many points, not on every run of one. Up to
     * rounds_len / (points of the sweep) rounds, WL_MAX_RUNS at most; NULL:
     * each point's runs one after another (what a firmware without the
     * memory does; docs/analysis.md, "Rounds"). */
    double *rounds;
    size_t rounds_len;       /* doubles */
};

#define STS_CTX_LATS 2
#define STS_CTX_MAX_SUMMARY 32
#define STS_CTX_MAX_PARAMS 12

/* What a running workload sees. */
struct sts_ctx {
    const struct sts_plan *plan;
    struct sts_target *target;
    const struct sts_test_def *def;
    uint8_t *buf;
    size_t buf_size;
    double *rounds;          /* the workspace's, see there */
    size_t rounds_len;
    struct sts_lat lat[STS_CTX_LATS];
    const struct sts_sink *sinks;
    size_t n_sinks;
    struct sts_test_info info;
    struct sts_kv params[STS_CTX_MAX_PARAMS];
    int begun;
    struct sts_kv summary[STS_CTX_MAX_SUMMARY];
    size_t n_summary;
    char errmsg[160];
    char scratch_path[64];   /* file the workload is using, removed on exit */
};

struct sts_test_def {
    const char *id;       /* "B0" */
    const char *title;    /* "Sequential read/write, 1 MiB file, chunks 1 B .. 1 KiB" */
    const char *origin;   /* where it comes from: "study B0", "seed 001 (fio)" */
    /* Largest scratch space the test needs at once under this plan, bytes. */
    uint64_t (*scratch_bytes)(const struct sts_plan *plan);
    int (*run)(struct sts_ctx *c);
    /* The least --size (plan->size_bytes) it can run with: its largest
     * single write (0: any). Checked before anything runs. */
    uint64_t min_size_bytes;
    /* 1: every measurement rewrites a file in place, so the whole test is
     * not applicable where files cannot be rewritten (sts_target_no_rewrite):
     * a run there does not reserve its scratch space. */
    int rewrites_only;
    /* 1: it only appends, and reads back nothing: on a store whose log
     * wraps (sensorlog's, STS_T_APPEND_ONLY), where the oldest records
     * make room for the newest as on a logger, it needs no room for what
     * it writes (L1 for an hour on a 16 MiB NOR). */
    int appends_only;
};

/* NULL when the target's files can be rewritten in place; else why not
 * (sensorlog's append-only files, bare extents on raw flash). */
const char *sts_target_no_rewrite(const struct sts_target *t);

/* ---- registry ------------------------------------------------------- */
extern const struct sts_test_def *const sts_tests[];
extern const size_t sts_n_tests;
const struct sts_test_def *sts_test_find(const char *id); /* case-insensitive */
/* NULL when an L1 --streams value is well formed; else what is wrong
 * (checked before a run, not after the tests before L1 took an hour). */
const char *sts_l1_streams_check(const char *spec);

struct sts_suite_def {
    const char *name;
    const char *summary;
    const char *const *test_ids;
    size_t n;
};
extern const struct sts_suite_def sts_suites[];
extern const size_t sts_n_suites;
const struct sts_suite_def *sts_suite_find(const char *name);

/* ---- engine ----------------------------------------------------------- */
/* Runs every test of the plan in order, streaming to the sinks. Returns 0 when
 * every test passed or was not applicable, STS_EINTR when stopped, or the
 * first test's error otherwise (remaining tests still run). */
int sts_engine_run(const struct sts_plan *plan, struct sts_target *target,
                   const struct sts_workspace *ws, const struct sts_sink *sinks,
                   size_t n_sinks, const struct sts_run_info *info);

/* Largest scratch_bytes over the plan's tests. */
uint64_t sts_plan_scratch_bytes(const struct sts_plan *plan);

/* ---- for workloads ---------------------------------------------------- */
/* Announces the test with its configuration; must come before any point. */
int sts_test_begin(struct sts_ctx *c, const struct sts_kv *params, size_t n);
int sts_emit_point(struct sts_ctx *c, const struct sts_point *p);
void sts_set_summary(struct sts_ctx *c, struct sts_kv kv);
void sts_report_progress(struct sts_ctx *c, const char *what, uint64_t done, uint64_t total);
/* The stop flag may be set by a signal handler or by another thread (a
 * UI, a test): read atomically, so tasks of a run see it race-free. */
static inline int sts_should_stop(const struct sts_ctx *c)
{
    return c->plan->stop && __atomic_load_n(c->plan->stop, __ATOMIC_RELAXED);
}
/* Records a failure message (first one wins) and returns err. */
int sts_fail(struct sts_ctx *c, int err, const char *msg);

#ifdef __cplusplus
}
#endif
#endif
