/* What is this card, really? Measurements that find what a device does not
 * say: whether it holds the capacity it claims (f3probe's method), and how
 * many allocation units its controller keeps open for writing and how
 * large they are (flashbench's --open-au method). Both write; the caller
 * decides whether that is allowed and may keep an undo log that puts every
 * byte back afterwards.
 *
 * Portable: no heap, no stdio; the caller lends the buffers. Time is the
 * target's clock (virtual on simulated media). */
#ifndef STORSCOPE_PROBE_H
#define STORSCOPE_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include "storscope/clock.h"
#include "storscope/device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every block the probe overwrites, saved first, so it can be put back
 * (--preserve). Entries are appended; sts_probe_undo() replays them newest
 * first, which restores the medium even where writes aliased each other. */
struct sts_probe_undo {
    uint8_t *mem;  /* caller's memory; NULL = keep nothing (the probe may destroy data) */
    size_t cap;    /* bytes of mem */
    size_t used;
};

struct sts_probe_env {
    struct sts_bd bd;
    struct sts_clock clock;
    uint8_t *buf;      /* scratch: at least 2 x STS_PROBE_MAX_BLOCK bytes, 8-aligned */
    size_t buf_bytes;
    struct sts_probe_undo *undo; /* NULL: nothing is saved */
    uint64_t seed;     /* makes each run's stamps its own */
    uint64_t usable_bytes; /* where writes may land: 0 = the device's capacity; set it
                              to what sts_probe_fake found on a counterfeit card */
    volatile int *stop;    /* optional: non-zero stops a probe at its next command
                              (STS_EINTR); the undo log stays complete */
};
#define STS_PROBE_MAX_BLOCK (256u * 1024u)

/* ---- geometry by read timing (read-only) ------------------------------ */
#define STS_PROBE_MAX_ALIGNS 48

struct sts_probe_geometry {
    int visible;            /* a boundary showed in the read times */
    int unresolved;         /* steps showed but came and went between aligns, or stood
                               under a tenth of a read: noise hides the answer (none
                               is claimed) */
    int64_t top_step_ns, read_ns; /* the largest step; the fastest plain read */
    uint64_t page_bytes;    /* the smallest boundary that costs (0: only one level seen) */
    uint64_t unit_bytes;    /* the one that costs most: erase block / allocation unit */
    uint32_t read_bytes;    /* each timed read (two sectors) */
    uint32_t n;             /* aligns tried: n_pow2 powers of two from read_bytes, then
                               3 x them from 3 x read_bytes */
    uint32_t n_pow2;
    uint64_t align[STS_PROBE_MAX_ALIGNS];
    int64_t diff_ns[STS_PROBE_MAX_ALIGNS]; /* read across a boundary of align, minus the
                                              mean of the reads just before and after */
    uint64_t device_ns;
};

/* flashbench's -a method: at odd multiples of each power-of-two align
 * (and of 3 x each, for SD's 12 and 24 MiB allocation units),
 * a read of two sectors across the boundary is timed against the two
 * beside it; the smallest align where it costs more is the page, the one
 * where it costs most the erase block or AU. Reads only. Managed media
 * (raw flash states its geometry: STS_ENOTSUP). */
int sts_probe_geometry(const struct sts_probe_env *env, struct sts_probe_geometry *out);

/* ---- fake capacity ---------------------------------------------------- */
enum sts_probe_fake_kind {
    STS_FAKE_GENUINE = 0, /* every block written read back as itself */
    STS_FAKE_ALIAS = 1,   /* addresses wrap round: writing beyond the real size
                             overwrites the card's start */
    STS_FAKE_LOST = 2,    /* writes beyond the real size vanish */
};

struct sts_probe_fake {
    enum sts_probe_fake_kind kind;
    uint64_t claimed_bytes; /* what the device says */
    uint64_t usable_bytes;  /* what it holds: claimed when genuine; otherwise the
                               real size, to within one block */
    uint64_t block_bytes;   /* the unit written and checked */
    uint64_t grid_bytes;    /* the sparse sample spacing */
    uint64_t prefix_bytes;  /* the dense prefix, written after the grid (at least
                               grid_bytes: it catches any wrap-around at block
                               granularity; on a managed medium at least
                               STS_PROBE_CACHE_MAX, up to a quarter of the device: it
                               pushes a controller cache's copies of the grid out
                               before they are read) */
    uint64_t cache_bytes;   /* a counterfeit's controller cache found answering reads of
                               blocks it cannot hold: about the bytes that push it out;
                               0 none; UINT64_MAX larger than STS_PROBE_CACHE_MAX */
    uint64_t evict_bytes_written; /* of blocks_written, bytes rewritten to push it out */
    uint32_t blocks_written, blocks_read, bad_blocks; /* bad: I/O errors, not evidence */
    uint64_t device_ns;     /* time the probe took on the target's clock */
};

/* A controller cache of up to this many bytes is outlasted: the capacity
 * check writes its samples, then this much more, before it reads any back
 * (f3's "write all, then read all"). */
#define STS_PROBE_CACHE_MAX (16ull << 20)

/* Writes stamped blocks - one block every grid_bytes, then a dense prefix
 * of prefix_bytes - reads them back, and narrows the real size down by
 * single-block tests; where a cache answers for blocks the card cannot
 * hold, each test first rewrites enough elsewhere to push it out. Needs
 * write access. */
int sts_probe_fake(const struct sts_probe_env *env, struct sts_probe_fake *out);

/* ---- open allocation units ------------------------------------------- */
#define STS_PROBE_MAX_STREAMS 24

struct sts_probe_au {
    uint32_t streams_tried;   /* 1 .. this many streams were written in turn */
    uint32_t open_aus;        /* the most written in turn without collapse */
    int limited;              /* 1: one more stream collapsed; 0: none did up to streams_tried */
    uint64_t au_bytes;        /* the allocation unit: the smallest stream spacing at which
                                 open_aus + 1 streams still collapse (0: not found) */
    uint64_t write_bytes;     /* each write */
    uint64_t spacing_bytes;   /* between streams while counting */
    uint64_t median_ns[STS_PROBE_MAX_STREAMS + 1]; /* [n]: median write with n streams */
    uint64_t single_ns[STS_PROBE_MAX_STREAMS + 1]; /* [n]: median write of one stream writing
                                                      as much in a row (the reference) */
    uint32_t writes;
    uint64_t device_ns;
};

/* flashbench's --open-au method: n streams each write sequentially in its
 * own far-apart region, in turn; n is raised until their median write is
 * COLLAPSE_FACTOR times that of one stream writing as much in a row (every
 * write then pays a merge; a filling cache slows both alike). Then the
 * spacing is halved until open_aus + 1 streams stop collapsing: they share
 * AUs. Managed media only (STS_ENOTSUP on raw). */
#define STS_PROBE_COLLAPSE_FACTOR 4
int sts_probe_open_aus(const struct sts_probe_env *env, struct sts_probe_au *out);

/* Puts back every block the undo log holds, newest first; empties it. */
int sts_probe_undo(const struct sts_probe_env *env);

#ifdef __cplusplus
}
#endif
#endif
