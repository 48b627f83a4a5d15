/* The fixture the simulator tests share (test_sim.c, test_sim_noise.c,
 * test_sim_faults.c, test_sim_raw.c, test_sim_store.c): a sim target as
 * `sim:NAME,capacity=...,fill=...,seed=...` builds it (the simulator and
 * extentfs on it, in virtual time), and a run of one workload through the
 * real engine whose figures a sink keeps. One test at a time uses it. */
#ifndef STS_TEST_SIM_FIXTURE_H
#define STS_TEST_SIM_FIXTURE_H

#include "storscope/extentfs.h"
#include "storscope/sim.h"
#include "storscope/suite.h"

#include <stdint.h>

#include "test_mem.h"

#define ARENA_BYTES (4u * 1024u * 1024u)
#define MIB (1024ull * 1024ull)
#define S(x) ((uint64_t)(x) * 1000000000ull)
#define MS(x) ((double)(x) * 1e6)

extern uint64_t arena64[ARENA_BYTES / 8];

struct simt {
    struct sts_sim sim;
    struct sts_bd bd;
    struct sts_extentfs efs;
    struct sts_extentfs_file files[4];
    struct sts_target t;
};
extern struct simt st;

/* A sim target as `sim:NAME,capacity=...,fill=...,seed=...` would build
 * (fill_percent < 0: the profile's own; keep_bytes: data kept to read back) */
int sim_target(const char *name, uint64_t capacity, int fill_percent, uint64_t seed,
               uint64_t keep_bytes);

/* What the runs produced. */
struct seen {
    double iops, mean_ns;
    uint64_t p9999_ns, max_ns;
    double tput[2][24]; /* [is_write][log2 chunk] mean bytes/s */
};
extern struct seen seen;
extern const struct sts_sink_ops seen_ops; /* fills `seen` */

extern int m1_byte_offsets; /* the plan's --m1-offsets byte */
/* Test `id` on st's target, its figures into `seen` (and `extra`, if any) */
int run(const char *id, uint64_t seed, uint64_t duration_ns, uint64_t size, enum sts_scale scale,
        const struct sts_sink *extra);

/* pages for writing and reading back (raw flash, cuts, the store) */
extern uint8_t pg_a[16384], pg_b[16384], rd[16384];

#endif
