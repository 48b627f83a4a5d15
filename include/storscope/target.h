/* Targets: a device plus optionally a filesystem, written
 *     KIND:ARG[,key=value...][+FS[,key=value...]]
 * e.g. "posix:/var/tmp", "posix:/mnt/sd,direct=1", "null:".
 * The spec parser is portable; each kind is one file that fills
 * struct sts_target_kind. */
#ifndef STORSCOPE_TARGET_H
#define STORSCOPE_TARGET_H

#include <stddef.h>
#include <stdint.h>

#include "storscope/clock.h"
#include "storscope/fs.h"
#include "storscope/result.h"
#include "storscope/units.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STS_SPEC_MAX_OPTS 16
#define STS_SPEC_NAME_MAX 32
#define STS_SPEC_ARG_MAX 512

struct sts_spec_opt {
    char key[STS_SPEC_NAME_MAX];
    char value[STS_SPEC_ARG_MAX];
};

struct sts_target_spec {
    char kind[STS_SPEC_NAME_MAX];
    char arg[STS_SPEC_ARG_MAX];
    struct sts_spec_opt opts[STS_SPEC_MAX_OPTS];
    uint32_t n_opts;
    char fs[STS_SPEC_NAME_MAX];             /* "" when no +FS */
    struct sts_spec_opt fs_opts[STS_SPEC_MAX_OPTS];
    uint32_t n_fs_opts;
};

/* Parses a target string. On failure returns STS_EINVAL and points *why at a
 * static description of the problem. */
int sts_target_spec_parse(const char *s, struct sts_target_spec *spec, const char **why);

enum sts_target_flags {
    STS_T_KEEPS_DATA = 0x1,   /* reads return written data (--verify possible) */
    STS_T_HAS_CACHE = 0x2,    /* a cache sits in front of the medium (page cache) */
    STS_T_VIRTUAL_TIME = 0x4, /* the clock is the device model's virtual clock */
    STS_T_USER_FS = 0x8,      /* a user's filesystem: never fill it (keep a reserve free) */
    STS_T_READ_ONLY = 0x10,   /* writes are refused: tests read what is on the medium */
    STS_T_NO_FS_METADATA = 0x20, /* files are bare extents (extentfs): no directory to measure */
    STS_T_APPEND_ONLY = 0x40, /* files only grow (sensorlog): no rewriting in place */
    STS_T_HOST_BACKED = 0x80, /* an image file or a loop device: its timings are the host's
                                 filesystem and cache, which have no allocation units or
                                 erase blocks to find (the probe does not look for them) */
    STS_T_NOISY = 0x100,      /* a virtual-time model made noisy (noise=, stalls=, bimodal=):
                                 its figures vary from run to run, as a real device's do */
};

#define STS_TARGET_MAX_ENV 32
#define STS_TARGET_MAX_WARN 8

struct sts_faultbd;

/* What a store kept through a power cut (sts_target.after_cut). */
struct sts_cut_check {
    int lost;              /* data synced before the cut is missing (or the store is gone) */
    uint32_t files;        /* files checked */
    uint64_t synced_bytes; /* bytes their last syncs covered: every one read back */
    char msg[320];         /* what was found, a sentence */
};

struct sts_target {
    const char *kind;
    struct sts_fs fs;
    struct sts_clock clock;
    uint32_t flags;          /* enum sts_target_flags */
    uint32_t io_align;       /* buffers, offsets and sizes must be multiples (O_DIRECT); 0 = any */
    uint8_t io_align_from_device; /* 1: io_align is the device's logical block; 0: a default */
    struct sts_kv env[STS_TARGET_MAX_ENV]; /* recorded environment, into the results */
    size_t n_env;
    const char *warnings[STS_TARGET_MAX_WARN];
    size_t n_warnings;
    void *impl;              /* the kind's private state */
    struct sts_bd *bd;       /* the block device under fs, when there is one (NULL: posix) */
    uint64_t seed;           /* in: the run's seed, for kinds that have randomness */
    int allow_destructive;   /* in: the user allowed writing a raw device or image */
    /* Optional: device counters since the previous call (operations, bytes,
     * write amplification...), attached to every point. Returns how many
     * entries it wrote into out. Key strings must stay valid. */
    size_t (*counters)(struct sts_target *t, struct sts_kv *out, size_t max);
    /* Set when device commands are failed on purpose (dev_fail_at=, faultbd.h):
     * its counts end the run's report. */
    const struct sts_faultbd *faultbd;
    /* Optional: called after the run. When the device lost power during it
     * (a simulated cut), powers it on, mounts the store again and checks
     * what the store promised to keep; returns 1 with *out filled when there
     * was a cut, 0 when there was none. */
    int (*after_cut)(struct sts_target *t, struct sts_cut_check *out);
};

/* Adds an environment entry / a warning when room is left (drops silently
 * otherwise: the environment is informative, never essential). */
void sts_target_env(struct sts_target *t, struct sts_kv kv);
void sts_target_warn(struct sts_target *t, const char *msg);

struct sts_target_kind {
    const char *name;     /* "posix" */
    const char *usage;    /* "posix:DIR[,direct=1][,sync=fdatasync]..." */
    const char *summary;  /* one line for `storscope list targets` */
    /* Opens the target. On failure returns an error and writes a message for
     * the user into err (NUL-terminated, at most errlen bytes). Errors the
     * user caused (bad spec, missing dir) are STS_EINVAL/ENOENT/ENOTDIR/EACCES. */
    int (*open)(struct sts_target *t, const struct sts_target_spec *spec, char *err,
                size_t errlen);
    /* Removes everything the target created and releases it. */
    void (*close)(struct sts_target *t);
};

/* The portable kinds. */
extern const struct sts_target_kind sts_target_null;

/* (sts_parse_bool, sts_strlcpy and the other parsers: storscope/units.h) */

#ifdef __cplusplus
}
#endif
#endif
