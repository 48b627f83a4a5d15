/* The user's own Eclipse ThreadX FileX (standalone mode) behind storscope's
 * filesystem interface: the study's own filesystem. Built only when CMake
 * is given -DSTORSCOPE_FILEX_DIR=<FileX source root> (common/, ports/):
 * none of FileX's code is in this repository. docs/third-party-filesystems.md. */
#ifndef STORSCOPE_FILEX_FS_H
#define STORSCOPE_FILEX_FS_H

#include "fx_api.h"
#include "storscope/device.h"
#include "storscope/fs.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STS_FILEX_FILES 16
#define STS_FILEX_TRIM_RUNS 4 /* runs of freed sectors gathered before a flush */

struct sts_filex_trim {
    uint64_t lba, sectors;
};

struct sts_filex_config {
    struct sts_bd bd;             /* 512-byte sectors; managed media */
    uint32_t sectors_per_cluster; /* 0 = 8 (4 KiB clusters, the study's) */
    uint32_t cache_bytes;         /* FileX's media memory: sector cache; 0 = 512 (one
                                     sector, the study's) */
    uint32_t root_entries;        /* FAT12/16 root directory entries; 0 = 512 */
    uint8_t upper_names;          /* 1: paths are folded to upper case before FileX sees
                                     them, as a firmware naming its files in capitals
                                     would: an 8.3-sized name then takes one directory
                                     entry instead of a long-name entry and its short
                                     one (FileX gives any lower-case name a long-name
                                     entry). FAT compares names without case, so what
                                     the workloads find is the same; 0 = as given */
    uint8_t trim;                 /* 1: the clusters FileX frees are trimmed on the
                                     device (its release-sectors request, runs of
                                     them gathered into one command each, after the
                                     flush that makes the freeing durable): the FTL then
                                     holds only the files, as on a medium far larger
                                     than the data, and a small model does not reach
                                     garbage collection. The study's driver ignores
                                     the request; 0 = as it did (issue 46) */
};

struct sts_filex {
    FX_MEDIA media;
    struct sts_filex_config cfg;
    FX_FILE files[STS_FILEX_FILES];
    int used[STS_FILEX_FILES];
    UCHAR cache[32768];
    uint32_t cluster_bytes;
    struct sts_filex_trim trims[STS_FILEX_TRIM_RUNS]; /* freed, to trim after a flush */
    uint32_t n_trims;
    CHAR name[256]; /* the path as FileX is given it (upper_names) */
};

/* Sets one option as +filex takes it (cluster=BYTES, cache=BYTES,
 * root=N, names=upper|asis, trim=on|off): 0 set, -1 a value it cannot take, 1 not an
 * option of FileX's. The host's target parser and the MCU image share it. */
int sts_filex_option(struct sts_filex_config *c, const char *key, const char *value);

/* Formats the device with FileX and opens it. */
int sts_filex_init(struct sts_filex *f, const struct sts_filex_config *cfg, struct sts_fs *out);
void sts_filex_deinit(struct sts_filex *f);

#ifdef __cplusplus
}
#endif
#endif
