/* The user's own FatFs (elm-chan, R0.14 or later) behind storscope's
 * filesystem interface. Built only when CMake is given
 * -DSTORSCOPE_FATFS_DIR=<the directory holding ff.c>: none of FatFs's code
 * is in this repository. FatFs has one global disk layer, so one FatFs
 * target is open at a time. docs/third-party-filesystems.md. */
#ifndef STORSCOPE_FATFS_FS_H
#define STORSCOPE_FATFS_FS_H

#include "ff.h"
#include "storscope/device.h"
#include "storscope/fs.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STS_FATFS_FILES 16

struct sts_fatfs_config {
    struct sts_bd bd;        /* 512-byte sectors; managed media (FAT rewrites in place) */
    uint32_t cluster_bytes;  /* allocation unit; 0 = FatFs's choice for the volume size */
    uint8_t n_fats;          /* 1 or 2 copies of the FAT; 0 = 1 */
};

struct sts_fatfs {
    FATFS fatfs;
    struct sts_fatfs_config cfg;
    FIL files[STS_FATFS_FILES];
    int used[STS_FATFS_FILES];
    uint32_t cluster_bytes;  /* as formatted */
    uint8_t fat_type;        /* FS_FAT12 / FS_FAT16 / FS_FAT32 */
};

/* Formats the device with FatFs and mounts it. */
int sts_fatfs_init(struct sts_fatfs *f, const struct sts_fatfs_config *cfg, struct sts_fs *out);
void sts_fatfs_deinit(struct sts_fatfs *f);

#ifdef __cplusplus
}
#endif
#endif
