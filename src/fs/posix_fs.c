#define _GNU_SOURCE /* O_DIRECT */
#include "storscope/posix.h"
#include "storscope/error.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

int sts_posix_err(int e)
{
    switch (e) {
    case 0: return STS_OK;
    case ENOENT: return STS_ENOENT;
    case EEXIST: return STS_EEXIST;
    case ENOSPC:
    case EDQUOT: return STS_ENOSPC;
    case EACCES:
    case EPERM:
    case EROFS: return STS_EACCES;
    case ENOTDIR: return STS_ENOTDIR;
    case EISDIR: return STS_EISDIR;
    case EINVAL: return STS_EINVAL;
    case ENOMEM: return STS_ENOMEM;
    case EBUSY: return STS_EBUSY;
    case ENOTEMPTY: return STS_EEXIST;
    case EOPNOTSUPP: return STS_ENOTSUP;
    default: return STS_EIO;
    }
}

static int px_open(void *ctx, const char *path, int flags, sts_fh *out)
{
    struct sts_posix_fs *p = ctx;
    int of = O_CLOEXEC | p->cfg.open_sync;
    switch (flags & STS_O_RDWR) {
    case STS_O_RDONLY: of |= O_RDONLY; break;
    case STS_O_WRONLY: of |= O_WRONLY; break;
    default: of |= O_RDWR; break;
    }
    if (flags & STS_O_CREAT)
        of |= O_CREAT;
    if (flags & STS_O_TRUNC)
        of |= O_TRUNC;
    if (p->cfg.direct)
        of |= O_DIRECT;
    int fd = openat(p->dirfd, path, of, 0644);
    if (fd < 0)
        return sts_posix_err(errno);
    *out = fd;
    return STS_OK;
}

static int px_close(void *ctx, sts_fh fh)
{
    (void)ctx;
    return close((int)fh) ? sts_posix_err(errno) : STS_OK;
}

static int px_read(void *ctx, sts_fh fh, void *buf, size_t len, size_t *done)
{
    (void)ctx;
    ssize_t n;
    do {
        n = read((int)fh, buf, len);
    } while (n < 0 && errno == EINTR);
    *done = n > 0 ? (size_t)n : 0;
    return n < 0 ? sts_posix_err(errno) : STS_OK;
}

static int px_write(void *ctx, sts_fh fh, const void *buf, size_t len, size_t *done)
{
    (void)ctx;
    ssize_t n;
    do {
        n = write((int)fh, buf, len);
    } while (n < 0 && errno == EINTR);
    *done = n > 0 ? (size_t)n : 0;
    return n < 0 ? sts_posix_err(errno) : STS_OK;
}

static int px_seek(void *ctx, sts_fh fh, uint64_t off)
{
    (void)ctx;
    return lseek((int)fh, (off_t)off, SEEK_SET) < 0 ? sts_posix_err(errno) : STS_OK;
}

static int px_sync(void *ctx, sts_fh fh, enum sts_sync_kind kind)
{
    struct sts_posix_fs *p = ctx;
    int r = (kind == STS_SYNC_DATA || p->cfg.full_is_data) ? fdatasync((int)fh) : fsync((int)fh);
    return r ? sts_posix_err(errno) : STS_OK;
}

static int px_unlink(void *ctx, const char *path)
{
    struct sts_posix_fs *p = ctx;
    return unlinkat(p->dirfd, path, 0) ? sts_posix_err(errno) : STS_OK;
}

static int px_mkdir(void *ctx, const char *path)
{
    struct sts_posix_fs *p = ctx;
    return mkdirat(p->dirfd, path, 0755) ? sts_posix_err(errno) : STS_OK;
}

static int px_rmdir(void *ctx, const char *path)
{
    struct sts_posix_fs *p = ctx;
    return unlinkat(p->dirfd, path, AT_REMOVEDIR) ? sts_posix_err(errno) : STS_OK;
}

static int px_stat(void *ctx, const char *path, struct sts_stat *st)
{
    struct sts_posix_fs *p = ctx;
    struct stat s;
    if (fstatat(p->dirfd, path, &s, 0))
        return sts_posix_err(errno);
    st->size = (uint64_t)s.st_size;
    st->is_dir = S_ISDIR(s.st_mode);
    return STS_OK;
}

static int px_statvfs(void *ctx, struct sts_statvfs *st)
{
    struct sts_posix_fs *p = ctx;
    struct statvfs v;
    if (fstatvfs(p->dirfd, &v))
        return sts_posix_err(errno);
    st->total_bytes = (uint64_t)v.f_blocks * v.f_frsize;
    st->free_bytes = (uint64_t)v.f_bavail * v.f_frsize;
    st->block_size = (uint32_t)v.f_bsize;
    return STS_OK;
}

static int px_advise(void *ctx, sts_fh fh, enum sts_advice adv)
{
    struct sts_posix_fs *p = ctx;
    if (adv == STS_ADV_WILL_NEED)
        return sts_posix_err(posix_fadvise((int)fh, 0, 0, POSIX_FADV_WILLNEED));
    if (!p->cfg.drop_cache || p->cfg.direct)
        return STS_OK;
    /* dirty pages cannot be dropped: write them back first */
    if (fdatasync((int)fh))
        return sts_posix_err(errno);
    return sts_posix_err(posix_fadvise((int)fh, 0, 0, POSIX_FADV_DONTNEED));
}

static int px_allocate(void *ctx, sts_fh fh, uint64_t size)
{
    (void)ctx;
    if (fallocate((int)fh, 0, 0, (off_t)size) == 0)
        return STS_OK;
    return errno == EOPNOTSUPP ? STS_ENOTSUP : sts_posix_err(errno);
}

static const struct sts_fs_ops posix_fs_ops = {
    .version = STS_FS_OPS_VERSION,
    .open = px_open,
    .close = px_close,
    .read = px_read,
    .write = px_write,
    .seek = px_seek,
    .sync = px_sync,
    .unlink = px_unlink,
    .mkdir = px_mkdir,
    .rmdir = px_rmdir,
    .stat = px_stat,
    .statvfs = px_statvfs,
    .advise = px_advise,
    .allocate = px_allocate,
};

void sts_posix_fs_init(struct sts_posix_fs *pfs, int dirfd,
                       const struct sts_posix_fs_config *cfg, struct sts_fs *fs)
{
    pfs->dirfd = dirfd;
    pfs->cfg = *cfg;
    fs->ops = &posix_fs_ops;
    fs->ctx = pfs;
}
