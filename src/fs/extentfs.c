#include "storscope/extentfs.h"
#include "storscope/error.h"

#include <string.h>

static struct sts_extentfs_file *find(struct sts_extentfs *e, const char *path)
{
    for (uint32_t i = 0; i < e->cfg.n_files; i++) {
        struct sts_extentfs_file *f = &e->cfg.files[i];
        if (f->name[0] && strcmp(f->name, path) == 0)
            return f;
    }
    return NULL;
}

/* Where the file that starts at `start` must stop: the next file's start. */
static uint64_t limit_of(const struct sts_extentfs *e, uint64_t start)
{
    uint64_t lim = e->capacity;
    for (uint32_t i = 0; i < e->cfg.n_files; i++) {
        const struct sts_extentfs_file *f = &e->cfg.files[i];
        if (f->name[0] && !f->is_dir && f->start > start && f->start < lim)
            lim = f->start;
    }
    return lim;
}

/* End of the data of the file before `addr` (or base when none). */
static uint64_t prev_end(const struct sts_extentfs *e, uint64_t addr, int *has_prev)
{
    uint64_t end = e->cfg.base;
    *has_prev = 0;
    for (uint32_t i = 0; i < e->cfg.n_files; i++) {
        const struct sts_extentfs_file *f = &e->cfg.files[i];
        if (f->name[0] && !f->is_dir && f->start < addr && f->start + f->size >= end) {
            end = f->start + f->size;
            *has_prev = 1;
        }
    }
    return end;
}

/* The largest free gap: [*gap_start, *gap_end). */
static void largest_gap(const struct sts_extentfs *e, uint64_t *gap_start, uint64_t *gap_end,
                        int *has_prev)
{
    uint64_t best_s = e->cfg.base;
    uint64_t best_e = best_s; /* empty until a gap is found */
    int best_prev = 0;
    /* candidate gaps end at every file start and at the device end */
    for (uint32_t i = 0; i <= e->cfg.n_files; i++) {
        uint64_t gend;
        if (i == e->cfg.n_files)
            gend = e->capacity;
        else if (e->cfg.files[i].name[0] && !e->cfg.files[i].is_dir)
            gend = e->cfg.files[i].start;
        else
            continue;
        int hp;
        uint64_t gs = prev_end(e, gend, &hp);
        if (gend > gs && gend - gs > best_e - best_s) {
            best_s = gs;
            best_e = gend;
            best_prev = hp;
        }
    }
    *gap_start = best_s;
    *gap_end = best_e;
    *has_prev = best_prev;
}

static struct sts_extentfs_file *claim(struct sts_extentfs *e, const char *path, int is_dir)
{
    if (strlen(path) >= STS_EXTENTFS_NAME_MAX)
        return NULL;
    for (uint32_t i = 0; i < e->cfg.n_files; i++) {
        struct sts_extentfs_file *f = &e->cfg.files[i];
        if (!f->name[0]) {
            uint64_t gs, ge;
            int has_prev;
            largest_gap(e, &gs, &ge, &has_prev);
            memset(f, 0, sizeof(*f));
            f->is_dir = is_dir;
            f->start = has_prev ? gs + (ge - gs) / 2 : gs;
            f->start = (f->start + e->align - 1) / e->align * e->align;
            if (f->start > ge)
                f->start = ge;
            strcpy(f->name, path);
            return f;
        }
    }
    return NULL;
}

static struct sts_extentfs_file *handle(struct sts_extentfs *e, sts_fh fh)
{
    if (fh < 0 || (uint64_t)fh >= e->cfg.n_files)
        return NULL;
    struct sts_extentfs_file *f = &e->cfg.files[fh];
    return f->open ? f : NULL;
}


static int efs_open(void *ctx, const char *path, int flags, sts_fh *out)
{
    struct sts_extentfs *e = ctx;
    struct sts_extentfs_file *f = find(e, path);
    if (f && f->is_dir)
        return STS_EISDIR;
    if (!f) {
        if (!(flags & STS_O_CREAT))
            return STS_ENOENT;
        f = claim(e, path, 0);
        if (!f)
            return STS_ENOSPC;
    }
    if (e->cfg.existing_data)
        f->size = limit_of(e, f->start) - f->start;
    else if (flags & STS_O_TRUNC)
        f->size = f->erased = 0;
    f->pos = 0;
    f->open = 1;
    *out = (sts_fh)(f - e->cfg.files);
    return STS_OK;
}

static int efs_close(void *ctx, sts_fh fh)
{
    struct sts_extentfs_file *f = handle(ctx, fh);
    if (!f)
        return STS_EINVAL;
    f->open = 0;
    return STS_OK;
}

static int efs_read(void *ctx, sts_fh fh, void *buf, size_t len, size_t *done)
{
    struct sts_extentfs *e = ctx;
    struct sts_extentfs_file *f = handle(e, fh);
    *done = 0;
    if (!f)
        return STS_EINVAL;
    if (f->pos >= f->size)
        return STS_OK;
    if (len > f->size - f->pos)
        len = (size_t)(f->size - f->pos);
    int rc = e->cfg.bd.ops->read(e->cfg.bd.ctx, f->start + f->pos, buf, len);
    if (rc < 0)
        return rc;
    f->pos += len;
    *done = len;
    return STS_OK;
}

/* Raw flash: erase the blocks this write reaches first (charged to it),
 * refuse what the medium cannot take without a read-modify-erase cycle. */
static int make_programmable(struct sts_extentfs *e, struct sts_extentfs_file *f, size_t len,
                             uint64_t lim)
{
    if (!e->needs_erase || !len)
        return STS_OK;
    if (f->pos < f->size)
        return STS_ENOTSUP; /* these bytes are programmed: rewriting needs an erase */
    if (e->prog_once && (f->pos % e->prog_once || len % e->prog_once))
        return STS_ENOTSUP; /* a NAND page is programmed once, whole */
    uint64_t need = f->pos + len;
    if (need <= f->erased)
        return STS_OK;
    uint64_t to = (need + e->align - 1) / e->align * e->align;
    if (to > lim)
        to = lim;
    int rc = e->cfg.bd.ops->erase(e->cfg.bd.ctx, f->start + f->erased, to - f->erased);
    if (rc < 0)
        return rc;
    f->erased = to;
    return STS_OK;
}

static int efs_write(void *ctx, sts_fh fh, const void *buf, size_t len, size_t *done)
{
    struct sts_extentfs *e = ctx;
    struct sts_extentfs_file *f = handle(e, fh);
    *done = 0;
    if (!f)
        return STS_EINVAL;
    uint64_t lim = limit_of(e, f->start) - f->start;
    if (f->pos + len > lim)
        return STS_ENOSPC;
    int rc = make_programmable(e, f, len, lim);
    if (rc < 0)
        return rc;
    rc = e->cfg.bd.ops->program(e->cfg.bd.ctx, f->start + f->pos, buf, len);
    if (rc < 0)
        return rc;
    f->pos += len;
    if (f->pos > f->size)
        f->size = f->pos;
    *done = len;
    return STS_OK;
}

static int efs_seek(void *ctx, sts_fh fh, uint64_t offset)
{
    struct sts_extentfs *e = ctx;
    struct sts_extentfs_file *f = handle(e, fh);
    if (!f)
        return STS_EINVAL;
    if (offset > limit_of(e, f->start) - f->start)
        return STS_ERANGE;
    f->pos = offset;
    return STS_OK;
}

static int efs_sync(void *ctx, sts_fh fh, enum sts_sync_kind kind)
{
    struct sts_extentfs *e = ctx;
    (void)kind; /* no metadata on the medium: both kinds flush the device */
    if (!handle(e, fh))
        return STS_EINVAL;
    return e->cfg.bd.ops->flush(e->cfg.bd.ctx);
}

static int efs_unlink(void *ctx, const char *path)
{
    struct sts_extentfs_file *f = find(ctx, path);
    if (!f)
        return STS_ENOENT;
    if (f->is_dir)
        return STS_EISDIR;
    if (f->open)
        return STS_EBUSY;
    f->name[0] = '\0';
    return STS_OK;
}

static int efs_mkdir(void *ctx, const char *path)
{
    if (find(ctx, path))
        return STS_EEXIST;
    return claim(ctx, path, 1) ? STS_OK : STS_ENOSPC;
}

static int efs_rmdir(void *ctx, const char *path)
{
    struct sts_extentfs_file *f = find(ctx, path);
    if (!f)
        return STS_ENOENT;
    if (!f->is_dir)
        return STS_ENOTDIR;
    f->name[0] = '\0';
    return STS_OK;
}

static int efs_stat(void *ctx, const char *path, struct sts_stat *st)
{
    struct sts_extentfs_file *f = find(ctx, path);
    if (!f)
        return STS_ENOENT;
    st->size = f->size;
    st->is_dir = f->is_dir;
    return STS_OK;
}

static int efs_statvfs(void *ctx, struct sts_statvfs *st)
{
    struct sts_extentfs *e = ctx;
    struct sts_bd_geometry g;
    e->cfg.bd.ops->geometry(e->cfg.bd.ctx, &g);
    uint64_t gs, ge;
    int has_prev;
    largest_gap(e, &gs, &ge, &has_prev);
    st->total_bytes = e->capacity - e->cfg.base;
    st->free_bytes = ge - gs; /* the largest file that can still be created */
    st->block_size = g.prog_size;
    return STS_OK;
}

static const struct sts_fs_ops extentfs_ops = {
    .version = STS_FS_OPS_VERSION,
    .open = efs_open,
    .close = efs_close,
    .read = efs_read,
    .write = efs_write,
    .seek = efs_seek,
    .sync = efs_sync,
    .unlink = efs_unlink,
    .mkdir = efs_mkdir,
    .rmdir = efs_rmdir,
    .stat = efs_stat,
    .statvfs = efs_statvfs,
    .advise = NULL,
};

int sts_extentfs_init(struct sts_extentfs *efs, const struct sts_extentfs_config *cfg,
                      struct sts_fs *fs)
{
    if (!cfg->files || cfg->n_files == 0 || !cfg->bd.ops)
        return STS_EINVAL;
    struct sts_bd_geometry g;
    cfg->bd.ops->geometry(cfg->bd.ctx, &g);
    efs->cfg = *cfg;
    if (cfg->base >= g.capacity)
        return STS_ENOSPC;
    efs->capacity = g.capacity;
    efs->align = g.erase_size ? g.erase_size : 1;
    efs->needs_erase = (g.flags & STS_BD_NEEDS_ERASE) != 0;
    efs->prog_once = (g.flags & STS_BD_PROGRAM_ONCE) ? g.prog_size : 0;
    memset(cfg->files, 0, sizeof(cfg->files[0]) * cfg->n_files);
    fs->ops = &extentfs_ops;
    fs->ctx = efs;
    return STS_OK;
}
