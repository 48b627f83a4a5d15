/* Result model. Results leave the engine only through sink callbacks, as they
 * are produced, so a sink can stream them (JSON to a file, a terminal table,
 * a UART on an MCU) and an interrupted run keeps every finished point.
 *
 * Units: every numeric key carries its base unit in its name
 * (chunk_bytes, elapsed_ns, bytes_per_second); no scaled units anywhere. */
#ifndef STORSCOPE_RESULT_H
#define STORSCOPE_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "storscope/stats.h"

#ifdef __cplusplus
extern "C" {
#endif

enum sts_kv_type { STS_KV_INT, STS_KV_UINT, STS_KV_DOUBLE, STS_KV_STR, STS_KV_BOOL };

struct sts_kv {
    const char *key;
    enum sts_kv_type type;
    union {
        int64_t i;
        uint64_t u;
        double d;
        const char *s;
        int b;
    } v;
};

#define STS_KV_I(k, x) ((struct sts_kv){.key = (k), .type = STS_KV_INT, .v.i = (int64_t)(x)})
#define STS_KV_U(k, x) ((struct sts_kv){.key = (k), .type = STS_KV_UINT, .v.u = (uint64_t)(x)})
#define STS_KV_D(k, x) ((struct sts_kv){.key = (k), .type = STS_KV_DOUBLE, .v.d = (double)(x)})
#define STS_KV_S(k, x) ((struct sts_kv){.key = (k), .type = STS_KV_STR, .v.s = (x)})
#define STS_KV_B(k, x) ((struct sts_kv){.key = (k), .type = STS_KV_BOOL, .v.b = (x)})

/* Per-operation latency of one kind of operation within a point. */
struct sts_lat_report {
    const char *name; /* "read", "write", "write+flush", "flush" */
    const struct sts_lat *lat;
    /* a saved run replayed has no histogram (lat->h.total == 0) but the
     * percentiles it recorded: p50 and p99 here, ns; 0 in a live run */
    double p50_ns, p99_ns;
};

/* One measured configuration of a test (one chunk size, one direction...). */
struct sts_point {
    const char *name;               /* "read", "write", "randread", ... */
    const struct sts_kv *params;    /* what was asked: chunk_bytes, file_bytes... */
    size_t n_params;
    const char *run_metric;         /* what each run value is, e.g. "bytes_per_second" */
    const double *runs;             /* raw per-run values */
    size_t n_runs;
    struct sts_welford run_stats;   /* over runs[] */
    const struct sts_kv *metrics;   /* totals and derived values: bytes, ops, iops */
    size_t n_metrics;
    const struct sts_lat_report *lat;
    size_t n_lat;
    const char *skipped;            /* non-NULL: why this point was not measured */
    const struct sts_kv *device;    /* device counters during this point (sim targets) */
    size_t n_device;
};

enum sts_test_status {
    STS_TEST_OK,
    STS_TEST_FAILED,
    STS_TEST_INTERRUPTED,
    STS_TEST_NOT_APPLICABLE,
};
const char *sts_test_status_name(enum sts_test_status s);

struct sts_test_info {
    const char *id;      /* "B0", "fsync", ... */
    const char *title;
    const struct sts_kv *params; /* the test's configuration after scaling */
    size_t n_params;
};

struct sts_test_end {
    const char *id;
    enum sts_test_status status;
    const char *error;             /* message when failed / not applicable */
    const struct sts_kv *summary;  /* test-level figures, e.g. iops for fsync */
    size_t n_summary;
    uint64_t elapsed_ns;           /* on the target's clock (virtual on sim targets) */
    uint64_t wall_ns;              /* on the platform's clock */
};

struct sts_run_info {
    const char *tool_version;
    const char *target;       /* target string as given */
    const char *target_kind;
    const char *suite;        /* suite name, or NULL when --tests was given */
    const char *scale;
    uint64_t seed;
    int verify;
    const char *started_at;   /* ISO 8601 UTC, supplied by the host (may be NULL) */
    uint32_t n_tests;         /* tests planned (for progress; 0 = unknown) */
    const struct sts_kv *env; /* recorded environment of the target */
    size_t n_env;
    const char *const *warnings;
    size_t n_warnings;
};

struct sts_run_end {
    int status;            /* 0 ok, or the first error */
    int interrupted;
    uint64_t elapsed_ns;
    uint32_t tests_ok, tests_failed, tests_skipped;
};

struct sts_progress {
    const char *test_id;
    const char *what;      /* e.g. "write chunk 512 B" */
    uint64_t done, total;  /* units of the test's choosing; total 0 = unknown */
};

/* A sink receives the run as it happens. Callbacks may be NULL. A negative
 * return from any callback aborts the run with that error (e.g. disk full
 * while writing the JSON). */
struct sts_sink_ops {
    int (*run_begin)(void *ctx, const struct sts_run_info *ri);
    int (*test_begin)(void *ctx, const struct sts_test_info *ti);
    int (*point)(void *ctx, const struct sts_test_info *ti, const struct sts_point *p);
    int (*test_end)(void *ctx, const struct sts_test_end *te);
    int (*run_end)(void *ctx, const struct sts_run_end *re);
    void (*progress)(void *ctx, const struct sts_progress *pr);
};

struct sts_sink {
    const struct sts_sink_ops *ops;
    void *ctx;
};

/* Finds a key in a kv list; NULL when absent. */
const struct sts_kv *sts_kv_find(const struct sts_kv *kv, size_t n, const char *key);
double sts_kv_number(const struct sts_kv *kv);

#ifdef __cplusplus
}
#endif
#endif
