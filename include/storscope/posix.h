/* POSIX targets (host only): files under a scratch directory of any mounted
 * filesystem. */
#ifndef STORSCOPE_POSIX_H
#define STORSCOPE_POSIX_H

#include "storscope/fs.h"
#include "storscope/target.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sts_posix_fs_config {
    int direct;        /* O_DIRECT: bypass the page cache; I/O must be aligned */
    int open_sync;     /* 0, or O_DSYNC / O_SYNC added to every open */
    int full_is_data;  /* full syncs use fdatasync instead of fsync */
    int drop_cache;    /* honour STS_ADV_DROP_CACHE with posix_fadvise */
};

struct sts_posix_fs {
    int dirfd; /* the root all paths are relative to */
    struct sts_posix_fs_config cfg;
};

/* Maps errno to an sts error code. */
int sts_posix_err(int e);
void sts_posix_fs_init(struct sts_posix_fs *pfs, int dirfd,
                       const struct sts_posix_fs_config *cfg, struct sts_fs *fs);

/* The first line of a (sysfs, proc) file into buf, without its newline and
 * trailing spaces: 0 when the file cannot be read or the line is empty. */
int sts_posix_read_line(const char *path, char *buf, size_t n);

extern const struct sts_target_kind sts_target_posix;
extern const struct sts_target_kind sts_target_raw;
/* "mtd:/dev/mtdN[+FS]": a Linux MTD partition (raw NOR or NAND through the
 * kernel's MTD driver), erased and programmed for real (mtd_target.c). */
extern const struct sts_target_kind sts_target_mtd;

/* Collects the environment of a directory (filesystem type, mount options,
 * backing device model/firmware/write cache, kernel) into the target.
 * Strings are kept in `store` (size n). Adds warnings for tmpfs, overlay and
 * network filesystems. */
void sts_posix_probe_env(struct sts_target *t, const char *dir, char *store, size_t n);

#ifdef __cplusplus
}
#endif
#endif
