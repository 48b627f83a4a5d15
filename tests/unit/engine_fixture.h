/* The engine tests' fixture (test_engine.c): an
 * in-memory target with a virtual clock - extentfs on a RAM device behind a
 * layer that corrupts one byte where told and counts reads and programs -
 * a filesystem whose device reads per operation are known, and a sink that
 * remembers what it saw. Deterministic, the same on the host and the
 * firmware; one test at a time uses it. */
#ifndef STS_TEST_ENGINE_FIXTURE_H
#define STS_TEST_ENGINE_FIXTURE_H

#include "storscope/extentfs.h"
#include "storscope/suite.h"
#include "storscope/target.h"

#include <stddef.h>
#include <stdint.h>

#define RAM_BYTES (8u * 1024u * 1024u)
extern uint8_t ram[RAM_BYTES];

/* a virtual clock: every read advances time by `step` ns (and after
 * stop_after reads sets *stop) */
struct vclock {
    uint64_t t, step, calls, stop_after;
    volatile int *stop;
};
extern struct vclock vc;

/* a block device that corrupts one byte of every read covering it */
struct corrupt_bd {
    struct sts_bd inner;
    uint64_t bad_addr; /* UINT64_MAX: none */
};
/* reads (programs) of exactly count_len bytes, per aligned address:
 * rand's blocks (fsync's) */
extern size_t count_len;
extern uint8_t read_count[RAM_BYTES / 8192];
extern uint8_t prog_count[RAM_BYTES / 4096];

/* a sink that remembers what it saw */
struct capture {
    unsigned run_begins, run_ends, test_begins, test_ends, points, skipped;
    int interrupted, last_status;
    uint64_t last_runs;
    double last_mean;
    char last_point[32], last_error[160];
    uint64_t bytes_param_mismatch; /* points whose bytes_per_run != file_bytes */
    struct sts_kv summary[8];
    size_t n_summary;
    uint64_t lat_count, lat_p50, lat2_p50;
    uint64_t s2_points, s2_device_wrong; /* S2 points, and those whose reads were not their own */
};
extern struct capture cap;
extern const struct sts_sink_ops cap_ops;

/* a filesystem whose device reads per operation are known: create 5 reads,
 * any other open 1, close 1, unlink 3 */
#define CFS_FILES 1100
struct counted_fs {
    char names[CFS_FILES][48];
    uint64_t reads, reported;
};
extern struct counted_fs cfs;
extern const struct sts_fs_ops cfs_ops;
/* the reads since the last call, as a target's device counters */
size_t cfs_counters(struct sts_target *t, struct sts_kv *out, size_t max);

extern struct sts_extentfs_file files[4];
extern struct sts_target target;
extern volatile int stop_flag;
/* target: extentfs over the corrupting device (bad_addr: the byte it flips,
 * UINT64_MAX none), the virtual clock at 1 us a read; cap cleared */
void fixture(uint64_t bad_addr);
extern int engine_m1_byte_offsets; /* the plan's --m1-offsets byte */
/* The tests `ids` (comma-separated) at quick scale, seed 3, into cap */
int run_tests(const char *ids, int verify, uint64_t duration_ns, uint64_t size);
/* 1 when the target holds no file */
int no_files_left(void);

#endif
