/* The user's own littlefs (v2.x) behind storscope's filesystem interface.
 * Built only when CMake is given -DSTORSCOPE_LITTLEFS_DIR=<littlefs source>:
 * none of littlefs's code is in this repository. The configuration chosen
 * is written into the results (docs/third-party-filesystems.md). */
#ifndef STORSCOPE_LITTLEFS_FS_H
#define STORSCOPE_LITTLEFS_FS_H

#include "lfs.h"
#include "storscope/device.h"
#include "storscope/fs.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STS_LFS_FILES 16 /* files open at once */

struct sts_littlefs_config {
    struct sts_bd bd;
    uint64_t base;          /* first device byte littlefs may use (erase-block aligned) */
    uint64_t size;          /* bytes; 0 = to the end of the device */
    uint32_t block_bytes;   /* littlefs block; 0 = the erase block on raw flash (at least
                               4 KiB), 4 KiB on managed media */
    uint32_t cache_bytes;   /* read/prog cache; 0 = the device's program unit, at least 256 B */
    uint32_t lookahead_bytes; /* allocator bitmap, 8 blocks per byte; 0 = 256 */
    int32_t block_cycles;   /* wear levelling: erases before a block's data moves; 0 = 500 */
};

struct sts_littlefs {
    lfs_t lfs;
    struct lfs_config lc;
    struct sts_littlefs_config cfg;
    lfs_file_t files[STS_LFS_FILES];
    int used[STS_LFS_FILES];
};

/* Formats the region with littlefs and mounts it. */
int sts_littlefs_init(struct sts_littlefs *l, const struct sts_littlefs_config *cfg,
                      struct sts_fs *out);
void sts_littlefs_deinit(struct sts_littlefs *l);

#ifdef __cplusplus
}
#endif
#endif
