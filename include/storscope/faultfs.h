/* faultfs: a filesystem decorator that fails chosen operations, to see how
 * a stack (and storscope itself) behaves when storage fails - SQLite's
 * habit of failing the k-th I/O, for every k. It sits on any struct sts_fs
 * (posix, extentfs, sensorlog, the third-party adapters) and passes every
 * call through, except the ones it is told to fail, which return `err`
 * without reaching the filesystem underneath.
 *
 * From the command line, on any target:
 *     KIND:ARG,fail_at=K[,fail_from=1][,fail_op=write|sync][,fail_err=eio]
 * (fail_at=0 fails nothing and counts: the run ends by printing how many
 * operations there were, the range of K for a sweep). 
 * Portable: no heap, no OS calls; the counter is atomic so storage tasks
 * on several threads (S1, L1) share one numbering. */
#ifndef STORSCOPE_FAULTFS_H
#define STORSCOPE_FAULTFS_H

#include "storscope/fs.h"
#include "storscope/target.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Operation kinds, for fail_op (a mask; 0 = every kind). */
enum sts_fault_op {
    STS_FOP_OPEN = 0x1, STS_FOP_CLOSE = 0x2, STS_FOP_READ = 0x4, STS_FOP_WRITE = 0x8,
    STS_FOP_SEEK = 0x10, STS_FOP_SYNC = 0x20, STS_FOP_UNLINK = 0x40, STS_FOP_MKDIR = 0x80,
    STS_FOP_RMDIR = 0x100, STS_FOP_STAT = 0x200, STS_FOP_STATVFS = 0x400,
    STS_FOP_ADVISE = 0x800, STS_FOP_ALLOCATE = 0x1000,
};

struct sts_fault_config {
    /* The operation to fail, counting from 1 among the operations of the
     * kinds in `ops`; 0 = fail nothing (count only, to size a sweep). */
    uint64_t fail_at;
    /* 0: only operation fail_at fails (a transient error: a retry would
     * succeed); 1: every operation from fail_at on fails (a card that died). */
    int from;
    /* Kinds counted and failed (enum sts_fault_op); 0 = all. */
    uint32_t ops;
    /* The error returned (an STS_E* code); 0 = STS_EIO. */
    int err;
};

struct sts_faultfs {
    struct sts_fs lower;
    struct sts_fault_config cfg;
    /* native width, so that counting is one atomic instruction everywhere
     * (32 bits on an MCU, which has no 64-bit atomics without libatomic) */
    size_t counted;    /* operations of the chosen kinds seen so far */
    size_t failed;     /* operations failed */
};

/* The option grammar, shared with the device decorator (faultbd.h): keys
 * PREFIX + at, from, op, err. */
struct sts_fault_name {
    const char *name;
    uint32_t bit;
};
struct sts_fault_syntax {
    const char *prefix;                /* "fail_", "dev_fail_" */
    const struct sts_fault_name *ops;  /* names fail_op= takes */
    size_t n_ops;
    const char *why_at, *why_from, *why_op, *why_err, *why_unknown, *why_need_at;
};
/* Takes the prefix's keys out of one option list into *cfg: 1 when any was
 * given, 0 none, STS_EINVAL with *why. *at_given says whether ...at= was. */
int sts_fault_take(const struct sts_fault_syntax *sx, struct sts_spec_opt *opts,
                   uint32_t *n_opts, struct sts_fault_config *cfg, int *at_given,
                   const char **why);

/* 1 when this operation of `kind` is to fail under cfg; counts it (and
 * the failure) atomically. */
int sts_fault_hit(const struct sts_fault_config *cfg, size_t *counted, size_t *failed,
                  uint32_t kind);

/* Wraps `lower`; *out is the decorated filesystem. */
void sts_faultfs_init(struct sts_faultfs *f, const struct sts_fs *lower,
                      const struct sts_fault_config *cfg, struct sts_fs *out);

/* Takes the fail_* keys out of a target spec (so the kind never sees them)
 * into *cfg. Returns 1 when any was given, 0 when none, STS_EINVAL with
 * *why set when one is malformed. */
int sts_faultfs_take_opts(struct sts_target_spec *spec, struct sts_fault_config *cfg,
                          const char **why);

#ifdef __cplusplus
}
#endif
#endif
