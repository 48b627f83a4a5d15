/* sensorlog beside the stores its users would otherwise pick (issue 16):
 * each store is a method table over one simulated device, so the harness
 * (peers.c) runs the same record streams through each, in virtual time.
 * littlefs and FlashDB are built from sources the user gives
 * (-DSTORSCOPE_LITTLEFS_DIR, -DSTORSCOPE_FLASHDB_DIR); nothing of theirs is
 * in this repository. */
#ifndef STORSCOPE_BENCH_PEERS_H
#define STORSCOPE_BENCH_PEERS_H

#include "storscope/device.h"

#include <stddef.h>
#include <stdint.h>

/* What a run gives a store: the device (already counting), its size, and the
 * virtual clock (ns) for stores that stamp records themselves. */
struct peer_env {
    struct sts_bd bd;
    struct sts_bd_geometry geo;
    uint64_t (*now_ns)(void);
    uint32_t max_record; /* bytes: the largest record the run appends */
    uint32_t streams;    /* streams the run interleaves (1, or the study's 3) */
};

/* Called by each() for every record a store returns, oldest first. */
typedef void (*peer_record_fn)(void *arg, uint8_t stream, const uint8_t *rec, size_t len);

struct peer_store {
    const char *name;
    /* Formats the device and opens the store, empty. */
    int (*open)(void *ctx, const struct peer_env *env);
    /* Opens the store on what the device holds, as a logger does when it
     * boots (after a power cut: the power-cut sweep). */
    int (*mount)(void *ctx, const struct peer_env *env);
    /* One record of len bytes of stream (0 .. env->streams - 1) stamped ts
     * (strictly increasing: ms with one stream, us with three); does
     * whatever device work the store does then (or later, in sync). A store
     * without streams keeps the stream in the record, as its users would. */
    int (*append)(void *ctx, uint8_t stream, uint64_t ts, const void *data, size_t len);
    /* Everything appended so far is on the device when this returns. */
    int (*sync)(void *ctx);
    /* Reads n records from the first with ts >= from_ms; *got = how many
     * came back, each checked against the ts it should carry. */
    int (*range)(void *ctx, uint64_t from_ms, uint32_t n, uint32_t *got);
    /* Reads the newest n records, newest first or oldest first. */
    int (*latest)(void *ctx, uint32_t n, uint32_t *got);
    /* Every record the store returns, oldest first, as a reader that was
     * not the writer finds them (after mount); *evicted = records the store
     * says it passed over because they were being evicted when the power
     * went (sensorlog's sl_iter.evicted: the oldest segment's tail erased
     * before its header), 0 for a store that evicts atomically. */
    int (*each)(void *ctx, peer_record_fn fn, void *arg, uint64_t *evicted);
    /* RAM the store holds as configured here, bytes: state, caches, buffers. */
    size_t (*ram_bytes)(void *ctx);
    void (*close)(void *ctx);
    void *ctx;
    const char *config; /* how it is configured, one line, for the table's notes */
    int nor_only;       /* a configuration for raw NOR: the managed-media rows are not run */
};

/* Each file defines its store; NULL when its sources were not given. */
extern const struct peer_store *const peer_sensorlog;
extern const struct peer_store *const peer_sensorlog_small;
extern const struct peer_store *const peer_littlefs;
extern const struct peer_store *const peer_littlefs_best;
extern const struct peer_store *const peer_flashdb;
extern const struct peer_store *const peer_flashdb_best;

/* Records carry their timestamp in their first 4 bytes (ms), so a store
 * that keeps no timestamp of its own (a file) can be searched, and every
 * store's reads are checked the same way. */
static inline void peer_stamp(uint8_t *rec, uint64_t ts_ms)
{
    for (int i = 0; i < 4; i++)
        rec[i] = (uint8_t)(ts_ms >> (8 * i));
}
static inline uint32_t peer_stamp_of(const uint8_t *rec)
{
    return (uint32_t)rec[0] | (uint32_t)rec[1] << 8 | (uint32_t)rec[2] << 16 |
           (uint32_t)rec[3] << 24;
}

#endif
