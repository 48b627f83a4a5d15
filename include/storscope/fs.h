/* Filesystem interface: what every workload talks to. A target supplies one
 * method table plus a context pointer (SQLite-VFS style); adding a filesystem
 * is adding one file that fills this table. Paths are relative to the root
 * the target was given (for posix: a private scratch directory). */
#ifndef STORSCOPE_FS_H
#define STORSCOPE_FS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Handle of an open file; its meaning belongs to the filesystem. */
typedef intptr_t sts_fh;

enum sts_open_flags {
    STS_O_RDONLY = 0x1,
    STS_O_WRONLY = 0x2,
    STS_O_RDWR = 0x3,
    STS_O_CREAT = 0x4,
    STS_O_TRUNC = 0x8,
};

enum sts_sync_kind {
    STS_SYNC_DATA = 1, /* data and what is needed to read it back (fdatasync) */
    STS_SYNC_FULL = 2, /* data and all metadata (fsync) */
};

enum sts_advice {
    STS_ADV_DROP_CACHE = 1, /* forget cached pages so the next read hits the medium */
    STS_ADV_WILL_NEED = 2,  /* read ahead into the cache */
};

struct sts_stat {
    uint64_t size;   /* bytes */
    int is_dir;
};

struct sts_statvfs {
    uint64_t total_bytes;
    uint64_t free_bytes;   /* available to an unprivileged writer */
    uint32_t block_size;   /* preferred I/O size, bytes */
};

/* The method table's layout, first field of every table: see
 * STS_BD_OPS_VERSION (device.h) for the rule; checked by sts_fs_ops_check
 * where a filesystem is handed to the engine. */
#define STS_FS_OPS_VERSION 2u /* 2: the optional idle */

struct sts_fs_ops {
    uint32_t version; /* STS_FS_OPS_VERSION this table was written for */
    /* The file position starts at 0 (no append), as POSIX open()'s: a
     * workload that opens an existing file for writing overwrites it. */
    int (*open)(void *ctx, const char *path, int flags, sts_fh *out);
    int (*close)(void *ctx, sts_fh fh);
    /* Transfer up to len bytes at the file position; *done gets the count.
     * A short read means end of file. */
    int (*read)(void *ctx, sts_fh fh, void *buf, size_t len, size_t *done);
    int (*write)(void *ctx, sts_fh fh, const void *buf, size_t len, size_t *done);
    int (*seek)(void *ctx, sts_fh fh, uint64_t offset); /* absolute, bytes */
    int (*sync)(void *ctx, sts_fh fh, enum sts_sync_kind kind);
    int (*unlink)(void *ctx, const char *path);
    int (*mkdir)(void *ctx, const char *path);
    int (*rmdir)(void *ctx, const char *path);
    int (*stat)(void *ctx, const char *path, struct sts_stat *st);
    int (*statvfs)(void *ctx, struct sts_statvfs *st);
    /* Optional (NULL: the filesystem keeps no cache worth dropping). */
    int (*advise)(void *ctx, sts_fh fh, enum sts_advice advice);
    /* Optional: make the file `size` bytes long without writing it, as
     * fallocate(2) does (unwritten extents: the first write to each block
     * also converts it, which is what fio's default layout measures).
     * NULL, or STS_ENOTSUP: the caller writes the file instead. */
    int (*allocate)(void *ctx, sts_fh fh, uint64_t size);
    /* Optional (version 2; NULL: no work of its own): the caller has
     * nothing to do for a while, as a logger's idle loop or I/O task
     * between records. One step of the filesystem's background work (a
     * log erasing ahead of its writer), its device time on the clock: 1
     * when it did one, 0 when there is none, < 0 an error. A step may
     * take longer than the caller had (an erase the device cannot
     * suspend): the caller then waited for it. */
    int (*idle)(void *ctx);
};

struct sts_fs {
    const struct sts_fs_ops *ops;
    void *ctx;
};

/* STS_OK, or STS_EINVAL for a table this library cannot call, with why. */
int sts_fs_ops_check(const struct sts_fs_ops *ops, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
