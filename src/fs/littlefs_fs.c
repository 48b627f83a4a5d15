/* littlefs behind the filesystem interface: a thin mapping, so what is
 * measured is littlefs itself on the given device. */
#include "storscope/littlefs_fs.h"
#include "fh_pool.h"
#include "storscope/error.h"

#include <string.h>

static int from_lfs(int err)
{
    switch (err) {
    case LFS_ERR_OK: return STS_OK;
    case LFS_ERR_NOENT: return STS_ENOENT;
    case LFS_ERR_EXIST: return STS_EEXIST;
    case LFS_ERR_NOSPC: return STS_ENOSPC;
    case LFS_ERR_NOMEM: return STS_ENOMEM;
    case LFS_ERR_CORRUPT: return STS_ECORRUPT;
    case LFS_ERR_NOTDIR: return STS_ENOTDIR;
    case LFS_ERR_ISDIR: return STS_EISDIR;
    case LFS_ERR_INVAL: return STS_EINVAL;
    case LFS_ERR_NAMETOOLONG: return STS_EINVAL;
    case LFS_ERR_NOTEMPTY: return STS_EBUSY;
    case LFS_ERR_FBIG: return STS_ENOSPC;
    default: return err < 0 ? STS_EIO : STS_OK;
    }
}

/* ---- the device under littlefs ------------------------------------------- */
static uint64_t addr_of(const struct lfs_config *c, lfs_block_t block, lfs_off_t off)
{
    const struct sts_littlefs *l = c->context;
    return l->cfg.base + (uint64_t)block * c->block_size + off;
}

static int bd_read(const struct lfs_config *c, lfs_block_t block, lfs_off_t off, void *buf,
                   lfs_size_t size)
{
    const struct sts_littlefs *l = c->context;
    int rc = l->cfg.bd.ops->read(l->cfg.bd.ctx, addr_of(c, block, off), buf, size);
    return rc ? LFS_ERR_IO : 0;
}

static int bd_prog(const struct lfs_config *c, lfs_block_t block, lfs_off_t off,
                   const void *buf, lfs_size_t size)
{
    const struct sts_littlefs *l = c->context;
    int rc = l->cfg.bd.ops->program(l->cfg.bd.ctx, addr_of(c, block, off), buf, size);
    return rc ? LFS_ERR_IO : 0;
}

static int bd_erase(const struct lfs_config *c, lfs_block_t block)
{
    const struct sts_littlefs *l = c->context;
    int rc = l->cfg.bd.ops->erase(l->cfg.bd.ctx, addr_of(c, block, 0), c->block_size);
    return rc ? LFS_ERR_IO : 0;
}

static int bd_sync(const struct lfs_config *c)
{
    const struct sts_littlefs *l = c->context;
    return l->cfg.bd.ops->flush(l->cfg.bd.ctx) ? LFS_ERR_IO : 0;
}

/* ---- filesystem operations ------------------------------------------------- */
static lfs_file_t *file_of(struct sts_littlefs *l, sts_fh fh)
{
    return fh_pool_valid(l->used, STS_LFS_FILES, fh) ? &l->files[fh] : NULL;
}

static int fs_open(void *ctx, const char *path, int flags, sts_fh *out)
{
    struct sts_littlefs *l = ctx;
    int lflags = (flags & STS_O_RDWR) == STS_O_RDWR ? LFS_O_RDWR
                 : (flags & STS_O_WRONLY)           ? LFS_O_WRONLY
                                                    : LFS_O_RDONLY;
    if (flags & STS_O_CREAT)
        lflags |= LFS_O_CREAT;
    if (flags & STS_O_TRUNC)
        lflags |= LFS_O_TRUNC;
    int i = fh_pool_free(l->used, STS_LFS_FILES);
    if (i < 0)
        return STS_EBUSY; /* too many open files */
    int rc = lfs_file_open(&l->lfs, &l->files[i], path, lflags);
    if (rc)
        return from_lfs(rc);
    l->used[i] = 1;
    *out = i;
    return STS_OK;
}

static int fs_close(void *ctx, sts_fh fh)
{
    struct sts_littlefs *l = ctx;
    lfs_file_t *f = file_of(l, fh);
    if (!f)
        return STS_EINVAL;
    l->used[fh] = 0;
    return from_lfs(lfs_file_close(&l->lfs, f));
}

static int fs_read(void *ctx, sts_fh fh, void *buf, size_t len, size_t *done)
{
    struct sts_littlefs *l = ctx;
    lfs_file_t *f = file_of(l, fh);
    if (!f)
        return STS_EINVAL;
    lfs_ssize_t n = lfs_file_read(&l->lfs, f, buf, (lfs_size_t)len);
    *done = n > 0 ? (size_t)n : 0;
    return n < 0 ? from_lfs((int)n) : STS_OK;
}

static int fs_write(void *ctx, sts_fh fh, const void *buf, size_t len, size_t *done)
{
    struct sts_littlefs *l = ctx;
    lfs_file_t *f = file_of(l, fh);
    if (!f)
        return STS_EINVAL;
    lfs_ssize_t n = lfs_file_write(&l->lfs, f, buf, (lfs_size_t)len);
    *done = n > 0 ? (size_t)n : 0;
    return n < 0 ? from_lfs((int)n) : STS_OK;
}

static int fs_seek(void *ctx, sts_fh fh, uint64_t off)
{
    struct sts_littlefs *l = ctx;
    lfs_file_t *f = file_of(l, fh);
    if (!f)
        return STS_EINVAL;
    lfs_soff_t rc = lfs_file_seek(&l->lfs, f, (lfs_soff_t)off, LFS_SEEK_SET);
    return rc < 0 ? from_lfs((int)rc) : STS_OK;
}

static int fs_sync(void *ctx, sts_fh fh, enum sts_sync_kind kind)
{
    struct sts_littlefs *l = ctx;
    (void)kind; /* littlefs commits data and metadata together */
    lfs_file_t *f = file_of(l, fh);
    return f ? from_lfs(lfs_file_sync(&l->lfs, f)) : STS_EINVAL;
}

static int fs_unlink(void *ctx, const char *path)
{
    return from_lfs(lfs_remove(&((struct sts_littlefs *)ctx)->lfs, path));
}

static int fs_mkdir(void *ctx, const char *path)
{
    return from_lfs(lfs_mkdir(&((struct sts_littlefs *)ctx)->lfs, path));
}

static int fs_rmdir(void *ctx, const char *path)
{
    return from_lfs(lfs_remove(&((struct sts_littlefs *)ctx)->lfs, path));
}

static int fs_stat(void *ctx, const char *path, struct sts_stat *st)
{
    struct lfs_info info;
    int rc = lfs_stat(&((struct sts_littlefs *)ctx)->lfs, path, &info);
    if (rc)
        return from_lfs(rc);
    st->size = info.size;
    st->is_dir = info.type == LFS_TYPE_DIR;
    return STS_OK;
}

static int fs_statvfs(void *ctx, struct sts_statvfs *st)
{
    struct sts_littlefs *l = ctx;
    lfs_ssize_t used = lfs_fs_size(&l->lfs);
    if (used < 0)
        return from_lfs((int)used);
    st->total_bytes = (uint64_t)l->lc.block_count * l->lc.block_size;
    st->free_bytes = (uint64_t)(l->lc.block_count - (lfs_size_t)used) * l->lc.block_size;
    st->block_size = l->lc.block_size;
    return STS_OK;
}

static const struct sts_fs_ops littlefs_ops = {
    .version = STS_FS_OPS_VERSION,
    .open = fs_open,
    .close = fs_close,
    .read = fs_read,
    .write = fs_write,
    .seek = fs_seek,
    .sync = fs_sync,
    .unlink = fs_unlink,
    .mkdir = fs_mkdir,
    .rmdir = fs_rmdir,
    .stat = fs_stat,
    .statvfs = fs_statvfs,
    .advise = NULL,
};

int sts_littlefs_init(struct sts_littlefs *l, const struct sts_littlefs_config *cfg,
                      struct sts_fs *out)
{
    memset(l, 0, sizeof(*l));
    l->cfg = *cfg;
    struct sts_bd_geometry g;
    cfg->bd.ops->geometry(cfg->bd.ctx, &g);
    /* raw flash: littlefs's block is the erase block; managed media erase
     * nothing, and a 4 MiB eMMC erase group as block would leave a few
     * dozen blocks for every file and directory: 4 KiB, as SD/eMMC ports use */
    int raw = (g.flags & STS_BD_NEEDS_ERASE) != 0;
    uint32_t block = cfg->block_bytes ? cfg->block_bytes
                     : raw && g.erase_size > 4096 ? g.erase_size : 4096;
    uint32_t prog = g.prog_size ? g.prog_size : 1;
    uint32_t cache = cfg->cache_bytes ? cfg->cache_bytes : (prog > 256 ? prog : 256);
    uint64_t size = cfg->size ? cfg->size : g.capacity - cfg->base;
    if (block % prog || cache % prog || block % cache || size / block < 8)
        return STS_EINVAL;
    l->lc.context = l;
    l->lc.read = bd_read;
    l->lc.prog = bd_prog;
    l->lc.erase = bd_erase;
    l->lc.sync = bd_sync;
    l->lc.read_size = prog;
    l->lc.prog_size = prog;
    l->lc.block_size = block;
    l->lc.block_count = (lfs_size_t)(size / block);
    l->lc.block_cycles = cfg->block_cycles ? cfg->block_cycles : 500;
    l->lc.cache_size = cache;
    l->lc.lookahead_size = cfg->lookahead_bytes ? cfg->lookahead_bytes : 256;
    l->cfg.block_bytes = block;
    l->cfg.cache_bytes = cache;
    l->cfg.lookahead_bytes = l->lc.lookahead_size;
    l->cfg.block_cycles = l->lc.block_cycles;
    int rc = lfs_format(&l->lfs, &l->lc);
    if (!rc)
        rc = lfs_mount(&l->lfs, &l->lc);
    if (rc)
        return from_lfs(rc);
    out->ops = &littlefs_ops;
    out->ctx = l;
    return STS_OK;
}

void sts_littlefs_deinit(struct sts_littlefs *l)
{
    for (int i = 0; i < STS_LFS_FILES; i++)
        if (l->used[i])
            (void)lfs_file_close(&l->lfs, &l->files[i]);
    (void)lfs_unmount(&l->lfs);
}
