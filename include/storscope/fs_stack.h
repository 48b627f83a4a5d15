/* The one seam where filesystems meet block devices. A target kind (sim:,
 * raw:, ...) opens a device and a clock and hands the device here with the
 * spec's `+FS[,key=value...]`; src/fs/stack.c is the only file that knows
 * which filesystems exist (extentfs, sensorlog, and littlefs, FatFs and
 * FileX where built), so any of them stacks on any block device, and adding
 * one is its adapter file plus one row of stack.c's table. Host side: the
 * stack allocates what each filesystem needs, as a firmware would give it
 * statically. */
#ifndef STORSCOPE_FS_STACK_H
#define STORSCOPE_FS_STACK_H

#include <stdint.h>

#include "storscope/device.h"
#include "storscope/target.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The device a filesystem is stacked on, as its target kind opened it. */
struct sts_fs_medium {
    struct sts_bd bd;
    /* First device byte the filesystem may use (bytes; what lies below is
     * left alone: sim:'s fill=, raw:'s offset=). */
    uint64_t base;
    /* One past the last byte it may use; 0 = the device's end (raw:'s
     * size=; only extentfs and the FAT filesystems are bounded by it). */
    uint64_t end;
    /* The device may not be written (raw: without --allow-destructive):
     * extentfs's files then read what the device holds, and every
     * filesystem that formats is refused. */
    int read_only;
    /* The device keeps no data: reads return zeros (sim:'s data=0, to
     * measure what the data would cost in memory). A filesystem that
     * formats reads its own layout back and is refused; extentfs keeps
     * its metadata in RAM and runs. */
    int data_dropped;
    /* How messages name the target ("sim:nor-spi", "raw:card.img"). */
    const char *shown;
};

struct sts_fs_stack;

/* Opens spec->fs ("" = extentfs) on the medium, fills t->fs and records the
 * filesystem's own settings in t's environment. On failure, err names the
 * problem and nothing stays allocated. */
int sts_fs_stack_open(struct sts_fs_stack **stack, const struct sts_target_spec *spec,
                      const struct sts_fs_medium *m, struct sts_target *t, char *err,
                      size_t errlen);
/* The STS_T_* flags the filesystem gives its target (append-only, bare
 * extents without metadata, or none). */
unsigned sts_fs_stack_flags(const struct sts_fs_stack *stack);
/* "extentfs", "sensorlog", ... */
const char *sts_fs_stack_name(const struct sts_fs_stack *stack);
/* Records "filesystem" and the sensorlog layout in t's environment (after
 * the kind's own entries, so a run's environment reads device first). */
void sts_fs_stack_record(const struct sts_fs_stack *stack, struct sts_target *t);
/* sensorlog's filesystem when the stack is +sensorlog, else NULL (a power
 * cut's check reads it). */
struct sts_slfs *sts_fs_stack_sensorlog(struct sts_fs_stack *stack);
void sts_fs_stack_close(struct sts_fs_stack *stack);
/* The filesystems this build stacks: "+extentfs +sensorlog ...". */
const char *sts_fs_stack_built(void);

#ifdef __cplusplus
}
#endif
#endif
