/* extentfs: the thinnest filesystem that lets the workloads run on a bare
 * block device. Each file is one contiguous extent of the device and file
 * I/O maps byte for byte onto device I/O, so what is measured is the device,
 * not a filesystem. A new file starts in the largest free gap (at its middle
 * when a file precedes the gap, so that file can still grow) and may grow
 * until the next file starts. Nothing is stored on the medium; the file
 * table lives in caller-provided RAM and is lost when the target closes.
 *
 * On raw flash (STS_BD_NEEDS_ERASE) a file erases each erase block of its
 * extent just before its first program into it, and again after O_TRUNC,
 * so the erase time lands in the write that needs it: what a raw-flash user
 * pays. Rewriting bytes already programmed would need the block erased with
 * its neighbours' data saved, which no workload here models: such a write
 * fails with STS_ENOTSUP, as does a partial-page write on a device that
 * programs a page once (NAND). */
#ifndef STORSCOPE_EXTENTFS_H
#define STORSCOPE_EXTENTFS_H

#include "storscope/device.h"
#include "storscope/fs.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STS_EXTENTFS_NAME_MAX 48

struct sts_extentfs_file {
    char name[STS_EXTENTFS_NAME_MAX]; /* "" = free entry */
    uint64_t start; /* device address of byte 0 */
    uint64_t size;  /* bytes written so far (high-water mark) */
    uint64_t pos;   /* file position, bytes */
    uint64_t erased; /* raw flash: bytes from start erased since creation/truncation */
    int open;
    int is_dir;
};

struct sts_extentfs_config {
    /* Device under the files. */
    struct sts_bd bd;
    /* Caller-provided file table; its length bounds the number of files and
     * directories. */
    struct sts_extentfs_file *files;
    uint32_t n_files;
    /* First device byte the files may use; what lies below is left alone
     * (e.g. a simulated medium pre-filled with cold data). */
    uint64_t base;
    /* Files adopt what the device already holds: a new file's size is its
     * whole extent (read-only targets read existing data this way). */
    int existing_data;
};

struct sts_extentfs {
    struct sts_extentfs_config cfg;
    uint64_t capacity;   /* device bytes */
    uint32_t align;      /* file starts are aligned to the erase block */
    uint32_t prog_once;  /* raw NAND: writes must be whole multiples of this page; 0 = any */
    int needs_erase;     /* raw flash: erase each block before its first program */
};

int sts_extentfs_init(struct sts_extentfs *efs, const struct sts_extentfs_config *cfg,
                      struct sts_fs *fs);

#ifdef __cplusplus
}
#endif
#endif
