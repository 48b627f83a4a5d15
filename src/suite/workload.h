/* Helpers shared by the workload files (internal to src/suite). */
#ifndef STORSCOPE_WORKLOAD_H
#define STORSCOPE_WORKLOAD_H

#include "storscope/error.h"
#include "storscope/rng.h"
#include "storscope/suite.h"
#include "storscope/units.h"

#include <stdint.h>

#define KIB (1024ull)
#define MIB (1024ull * 1024ull)

/* Offset-stamped data: sts_pattern_fill (core/rng.c); the device model
 * recognises it to keep it packed (bd/sim/store.c). 0 when buf matches; otherwise STS_ECORRUPT and *bad = first bad offset. */
int wl_pattern_check(const uint8_t *buf, uint64_t off, size_t len, uint64_t seed,
                     uint64_t *bad);

/* Where the bytes for file offset `off` sit in a buffer filled once with
 * sts_pattern_fill(buf, 0, buf_size): every chunk gets different bytes (a
 * chunk-sized buffer written again and again is what a compressing
 * filesystem or controller flatters), repeating only every buf_size bytes
 * of the file. The chunk must divide buf_size; the result stays aligned
 * to the chunk. */
const uint8_t *wl_pattern_src(const struct sts_ctx *c, uint64_t off, uint64_t chunk);

/* Element i of a permutation of [0, n) chosen by seed (fio_rand.c): offsets
 * without replacement in O(1) memory. */
uint64_t wl_perm_at(uint64_t n, uint64_t seed, uint64_t i);

/* Repetitions for this plan: --runs, else the scale's default. */
uint32_t wl_runs(const struct sts_ctx *c, uint32_t quick, uint32_t full);
/* Whether a point with n runs (rates in runs[]) runs again: until `asked`; then, on a model in virtual time and
 * unless --runs fixed the count, while its runs disagree more than
 * WL_PRECISION allows, within WL_ADAPT_MAX_RUNS (issue 41: more runs until
 * the intervals separate or a budget is spent). */
int wl_run_again(const struct sts_ctx *c, const double *runs, uint32_t n, uint32_t asked);
/* Sweeps in rounds (docs/analysis.md, "Rounds"): whether a sweep of
 * `points` points with `runs` runs each goes in rounds here (the figures
 * do not repeat and the workspace lent a table), and the runs it needs
 * for that: at least WL_ROUNDS_MIN on a real device unless --runs says. */
int wl_in_rounds(const struct sts_ctx *c, uint32_t runs, uint64_t points);
uint32_t wl_rounds_runs(const struct sts_ctx *c, uint32_t runs);
#define WL_ROUNDS_MIN 5
/* Progress of run r of a point (step of steps, `asked` runs each): a run
 * past those asked for stays at the point's last. */
void wl_run_progress(struct sts_ctx *c, const char *label, uint64_t step, uint64_t steps,
                     uint32_t r, uint32_t asked);
uint64_t wl_size(const struct sts_plan *p, uint64_t quick, uint64_t full);
uint64_t wl_duration(const struct sts_plan *p, uint64_t quick, uint64_t full);

/* NULL when the chunk can be used; else why the point must be skipped. */
const char *wl_chunk_unusable(const struct sts_ctx *c, uint64_t chunk);

/* File operations that fail the test with a message naming what failed.
 * wl_open remembers the path so the engine removes it if the test dies. */
int wl_open(struct sts_ctx *c, const char *path, int flags, sts_fh *fh);
/* Fails the test for an operation done without the helpers above (whose
 * error a workload inspects first): "what path: error". Returns rc. */
int wl_fail_on(struct sts_ctx *c, int rc, const char *what, const char *path);
int wl_close(struct sts_ctx *c, sts_fh fh);
int wl_remove(struct sts_ctx *c, const char *path);
int wl_write(struct sts_ctx *c, sts_fh fh, const void *buf, size_t len);
int wl_read(struct sts_ctx *c, sts_fh fh, void *buf, size_t len);
int wl_seek(struct sts_ctx *c, sts_fh fh, uint64_t off);
int wl_sync(struct sts_ctx *c, sts_fh fh, enum sts_sync_kind kind);
/* Drops the cache of a file (no-op on targets without one). */
int wl_drop_cache(struct sts_ctx *c, sts_fh fh);
/* Checks a read buffer when --verify is on. */
int wl_verify(struct sts_ctx *c, const uint8_t *buf, uint64_t off, size_t len);

/* Writes `size` bytes of pattern sequentially and syncs: the file every
 * read test and the fsync test start from. On a read-only target the file
 * adopts what the medium holds instead. */
int wl_prefill(struct sts_ctx *c, const char *path, uint64_t size);

/* Lends a workload `bytes` of the workspace buffer, past the first `skip`
 * bytes it keeps for I/O, for run state that would otherwise sit in .bss
 * of every image that links the registry. 16-byte aligned; NULL when the
 * buffer is too small. */
void *wl_borrow(struct sts_ctx *c, size_t skip, size_t bytes);

#define WL_APPEND_ONLY_WHY "the target's files are append-only (sensorlog): this rewrites in place"
static inline int wl_append_only(const struct sts_ctx *c)
{
    return (c->target->flags & STS_T_APPEND_ONLY) != 0;
}

#define WL_RAW_FLASH_WHY                                                                     \
    "bare extents on raw flash cannot rewrite in place without a block erase (use "         \
    "+sensorlog or +littlefs)"
static inline const char *wl_no_rewrite(const struct sts_ctx *c)
{
    return sts_target_no_rewrite(c->target);
}

#define WL_READ_ONLY_WHY "the target is read-only (raw: writes need --allow-destructive)"
static inline int wl_read_only(const struct sts_ctx *c)
{
    return (c->target->flags & STS_T_READ_ONLY) != 0;
}

static inline uint64_t wl_now(const struct sts_ctx *c)
{
    return sts_clock_now(&c->target->clock);
}

/* bytes / seconds, guarding a zero interval. */
double wl_rate(uint64_t bytes, uint64_t ns);

/* Resets the two latency recorders. */
void wl_lat_reset(struct sts_ctx *c);

/* "write chunk 512 B" style label for progress lines. */
const char *wl_label(char *buf, size_t n, const char *op, uint64_t chunk);

/* Emits a point built from per-run values; runs_stats computed here. */
int wl_emit_runs(struct sts_ctx *c, const char *name, const struct sts_kv *params,
                 size_t n_params, const double *runs, size_t n_runs,
                 const struct sts_kv *metrics, size_t n_metrics,
                 const struct sts_lat_report *lat, size_t n_lat);
/* The same with another per-run metric than bytes per second. */
/* Device counters gathered over phases that are not contiguous (S2 runs
 * create, open+close and delete in turns and reports each as its own
 * point): the target's counters since its last call are added into acc
 * (NULL: discarded, e.g. after set-up). */
struct wl_counters {
    struct sts_kv kv[32];
    size_t n;
};
void wl_counters_take(struct sts_ctx *c, struct wl_counters *acc);
/* wl_emit_metric with the point's device counters given (NULL: the
 * target's counters since the previous point, as for every other test). */
int wl_emit_metric_dev(struct sts_ctx *c, const char *name, const char *run_metric,
                       const struct sts_kv *params, size_t n_params, const double *runs,
                       size_t n_runs, const struct sts_kv *metrics, size_t n_metrics,
                       const struct sts_lat_report *lat, size_t n_lat,
                       const struct wl_counters *dev);
int wl_emit_metric(struct sts_ctx *c, const char *name, const char *run_metric,
                   const struct sts_kv *params, size_t n_params, const double *runs, size_t n_runs,
                   const struct sts_kv *metrics, size_t n_metrics,
                   const struct sts_lat_report *lat, size_t n_lat);
int wl_emit_skipped(struct sts_ctx *c, const char *name, const struct sts_kv *params,
                    size_t n_params, const char *why);

#define WL_MAX_RUNS 64
#define WL_NOISY_RUNS 5 /* runs a point on a noisy model when none are asked for */
/* Adaptive repetition, on a noisy model: a point runs again while the
 * standard error of its mean is above 0.5 % of the mean (a 95 % interval
 * of about +-1 %: the plateau's 5 % band compares two points' intervals,
 * so each must be well inside it), up to WL_MAX_RUNS runs. A point whose
 * runs agree (any noiseless model) stops at the runs asked for; a real
 * device and null: never adapt. */
#define WL_PRECISION 0.005
#define WL_ADAPT_MAX_RUNS WL_MAX_RUNS
#define WL_COUNT(a) (sizeof(a) / sizeof((a)[0]))

#endif
