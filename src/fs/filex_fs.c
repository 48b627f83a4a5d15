/* FileX behind the filesystem interface, and a FileX media driver over a
 * storscope block device. */
#include "storscope/filex_fs.h"
#include "fh_pool.h"
#include "storscope/error.h"
#include "storscope/units.h"

#include <string.h>

#define SECTOR 512u

/* FileX tells the driver of each cluster it frees, one at a time; the model
 * (an eMMC too) trims whole pages only, so runs of freed sectors are
 * gathered (up to STS_FILEX_TRIM_RUNS; a run past them is left untrimmed,
 * which costs only space the FTL keeps). They are trimmed only after the
 * device flush that makes the freeing durable - FileX's directory and FAT
 * sectors first, then the flush, then the trims - or a power cut between
 * could leave a file whose delete never reached the medium with its data
 * gone, as a journalling filesystem discards only after its commit. The
 * calls that free clusters (a delete, a truncation, a directory's removal)
 * flush FileX's media when they freed any. */
static int trim_gathered(struct sts_filex *f)
{
    const struct sts_bd *bd = &f->cfg.bd;
    int rc = 0;
    for (uint32_t i = 0; i < f->n_trims && bd->ops->erase; i++) {
        int r = bd->ops->erase(bd->ctx, f->trims[i].lba * SECTOR, f->trims[i].sectors * SECTOR);
        rc = rc ? rc : r;
    }
    f->n_trims = 0;
    return rc;
}

static void release(struct sts_filex *f, uint64_t lba, uint64_t n)
{
    struct sts_filex_trim *last = f->n_trims ? &f->trims[f->n_trims - 1] : NULL;
    if (last && lba == last->lba + last->sectors)
        last->sectors += n;
    else if (f->n_trims < STS_FILEX_TRIM_RUNS)
        f->trims[f->n_trims++] = (struct sts_filex_trim){lba, n};
}

static int from_fx(UINT r);

/* After a call that may have freed clusters: FileX's media flushed (its
 * driver's flush then trims what it freed), or rc when the call failed. */
static int freed(struct sts_filex *f, int rc)
{
    if (!f->n_trims)
        return rc;
    int frc = from_fx(fx_media_flush(&f->media));
    return rc ? rc : frc;
}

static VOID driver(FX_MEDIA *m)
{
    struct sts_filex *f = m->fx_media_driver_info;
    const struct sts_bd *bd = &f->cfg.bd;
    uint64_t lba = (uint64_t)m->fx_media_driver_logical_sector + m->fx_media_hidden_sectors;
    size_t len = (size_t)m->fx_media_driver_sectors * SECTOR;
    int rc = 0;
    switch (m->fx_media_driver_request) {
    case FX_DRIVER_READ:
        rc = bd->ops->read(bd->ctx, lba * SECTOR, m->fx_media_driver_buffer, len);
        break;
    case FX_DRIVER_WRITE:
        rc = bd->ops->program(bd->ctx, lba * SECTOR, m->fx_media_driver_buffer, len);
        break;
    case FX_DRIVER_BOOT_READ:
        rc = bd->ops->read(bd->ctx, 0, m->fx_media_driver_buffer, SECTOR);
        break;
    case FX_DRIVER_BOOT_WRITE:
        rc = bd->ops->program(bd->ctx, 0, m->fx_media_driver_buffer, SECTOR);
        break;
    case FX_DRIVER_FLUSH: /* FileX has written its caches: durable, then trimmed */
        rc = bd->ops->flush(bd->ctx);
        if (!rc)
            rc = trim_gathered(f);
        break;
    case FX_DRIVER_RELEASE_SECTORS: /* asked for only with trim=on */
        release(f, lba, m->fx_media_driver_sectors);
        break;
    default: /* init, uninit, abort: nothing to do */
        break;
    }
    m->fx_media_driver_status = rc ? FX_IO_ERROR : FX_SUCCESS;
}

static int from_fx(UINT r)
{
    switch (r) {
    case FX_SUCCESS: return STS_OK;
    case FX_NOT_FOUND:
    case FX_INVALID_PATH: return STS_ENOENT;
    case FX_ALREADY_CREATED: return STS_EEXIST;
    case FX_NO_MORE_SPACE:
    case FX_NO_MORE_ENTRIES: return STS_ENOSPC;
    case FX_DIR_NOT_EMPTY:
    case FX_ACCESS_ERROR:
    case FX_WRITE_PROTECT: return STS_EBUSY;
    case FX_INVALID_NAME:
    case FX_PTR_ERROR:
    case FX_CALLER_ERROR:
    case FX_NOT_OPEN: return STS_EINVAL;
    case FX_NOT_A_FILE: return STS_EISDIR;
    case FX_NOT_DIRECTORY: return STS_ENOTDIR;
    case FX_FILE_CORRUPT:
    case FX_FAT_READ_ERROR:
    case FX_BOOT_ERROR:
    case FX_MEDIA_INVALID: return STS_ECORRUPT;
    default: return STS_EIO; /* I/O errors, sectors out of range */
    }
}

/* The path FileX is given: as it is, or folded to upper case into
 * f->name (upper_names); NULL when it does not fit there. FileX never
 * writes through it. */
static CHAR *fx_path(struct sts_filex *f, const char *path)
{
    if (!f->cfg.upper_names)
        return (CHAR *)(uintptr_t)path;
    size_t i = 0;
    for (; path[i]; i++) {
        if (i + 1 >= sizeof(f->name))
            return NULL;
        char c = path[i];
        f->name[i] = (CHAR)(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
    }
    f->name[i] = '\0';
    return f->name;
}

static FX_FILE *file_of(struct sts_filex *f, sts_fh fh)
{
    return fh_pool_valid(f->used, STS_FILEX_FILES, fh) ? &f->files[fh] : NULL;
}

static int fs_open(void *ctx, const char *path, int flags, sts_fh *out)
{
    struct sts_filex *f = ctx;
    CHAR *name = fx_path(f, path);
    if (!name)
        return STS_EINVAL;
    if (flags & STS_O_CREAT) {
        UINT r = fx_file_create(&f->media, name);
        if (r != FX_SUCCESS && r != FX_ALREADY_CREATED)
            return from_fx(r);
    }
    int i = fh_pool_free(f->used, STS_FILEX_FILES);
    if (i < 0)
        return STS_EBUSY; /* too many open files */
    UINT r = fx_file_open(&f->media, &f->files[i], name,
                          (flags & STS_O_WRONLY) ? FX_OPEN_FOR_WRITE : FX_OPEN_FOR_READ);
    if (r != FX_SUCCESS)
        return from_fx(r);
    if ((flags & STS_O_TRUNC) && (flags & STS_O_WRONLY)) {
        r = fx_file_truncate_release(&f->files[i], 0);
        if (r == FX_SUCCESS && freed(f, STS_OK))
            r = FX_IO_ERROR;
    }
    else if (flags & STS_O_WRONLY)
        r = fx_file_extended_seek(&f->files[i], 0); /* FileX opens for writing at the end */
    if (r != FX_SUCCESS) { /* open in FileX: closed again, or the slot leaks */
        (void)fx_file_close(&f->files[i]);
        return from_fx(r);
    }
    f->used[i] = 1;
    *out = i;
    return STS_OK;
}

static int fs_close(void *ctx, sts_fh fh)
{
    struct sts_filex *f = ctx;
    FX_FILE *fp = file_of(f, fh);
    if (!fp)
        return STS_EINVAL;
    f->used[fh] = 0;
    return from_fx(fx_file_close(fp));
}

static int fs_read(void *ctx, sts_fh fh, void *buf, size_t len, size_t *done)
{
    FX_FILE *fp = file_of(ctx, fh);
    ULONG n = 0;
    *done = 0;
    if (!fp)
        return STS_EINVAL;
    UINT r = fx_file_read(fp, buf, (ULONG)len, &n);
    *done = n;
    return r == FX_END_OF_FILE ? STS_OK : from_fx(r);
}

static int fs_write(void *ctx, sts_fh fh, const void *buf, size_t len, size_t *done)
{
    FX_FILE *fp = file_of(ctx, fh);
    *done = 0;
    if (!fp)
        return STS_EINVAL;
    UINT r = fx_file_write(fp, (VOID *)(uintptr_t)buf, (ULONG)len);
    if (r == FX_SUCCESS)
        *done = len;
    return from_fx(r);
}

static int fs_seek(void *ctx, sts_fh fh, uint64_t off)
{
    FX_FILE *fp = file_of(ctx, fh);
    return fp ? from_fx(fx_file_extended_seek(fp, off)) : STS_EINVAL;
}

static int fs_sync(void *ctx, sts_fh fh, enum sts_sync_kind kind)
{
    struct sts_filex *f = ctx;
    (void)kind; /* FileX flushes the whole media: data, FAT and directory */
    return file_of(f, fh) ? from_fx(fx_media_flush(&f->media)) : STS_EINVAL;
}

static int fs_unlink(void *ctx, const char *path)
{
    struct sts_filex *f = ctx;
    CHAR *name = fx_path(f, path);
    if (!name)
        return STS_EINVAL;
    return freed(f, from_fx(fx_file_delete(&f->media, name)));
}

static int fs_mkdir(void *ctx, const char *path)
{
    struct sts_filex *f = ctx;
    CHAR *name = fx_path(f, path);
    return name ? from_fx(fx_directory_create(&f->media, name)) : STS_EINVAL;
}

static int fs_rmdir(void *ctx, const char *path)
{
    struct sts_filex *f = ctx;
    CHAR *name = fx_path(f, path);
    if (!name)
        return STS_EINVAL;
    return freed(f, from_fx(fx_directory_delete(&f->media, name)));
}

static int fs_stat(void *ctx, const char *path, struct sts_stat *st)
{
    struct sts_filex *f = ctx;
    CHAR *name = fx_path(f, path);
    if (!name)
        return STS_EINVAL;
    UINT r = fx_directory_name_test(&f->media, name);
    if (r == FX_SUCCESS) {
        st->size = 0;
        st->is_dir = 1;
        return STS_OK;
    }
    if (r != FX_NOT_DIRECTORY)
        return from_fx(r);
    FX_FILE file;
    r = fx_file_open(&f->media, &file, name, FX_OPEN_FOR_READ);
    if (r != FX_SUCCESS)
        return from_fx(r);
    st->size = file.fx_file_current_file_size;
    st->is_dir = 0;
    return from_fx(fx_file_close(&file));
}

static int fs_statvfs(void *ctx, struct sts_statvfs *st)
{
    struct sts_filex *f = ctx;
    ULONG64 avail = 0;
    UINT r = fx_media_extended_space_available(&f->media, &avail);
    if (r != FX_SUCCESS)
        return from_fx(r);
    st->total_bytes = (uint64_t)f->media.fx_media_total_clusters * f->cluster_bytes;
    st->free_bytes = avail;
    st->block_size = f->cluster_bytes;
    return STS_OK;
}

static const struct sts_fs_ops filex_ops = {
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

int sts_filex_option(struct sts_filex_config *c, const char *key, const char *value)
{
    uint64_t x = 0;
    int sized = !sts_parse_size(value, &x);
    if (!strcmp(key, "names")) {
        if (strcmp(value, "upper") && strcmp(value, "asis"))
            return -1;
        c->upper_names = !strcmp(value, "upper");
    } else if (!strcmp(key, "cluster")) {
        /* FAT's sectors per cluster: a power of two, 1 .. 128 */
        if (!sized || x < SECTOR || x > 128 * SECTOR || (x & (x - 1)))
            return -1;
        c->sectors_per_cluster = (uint32_t)(x / SECTOR);
    } else if (!strcmp(key, "cache")) {
        if (!sized || !x || x % SECTOR || x > sizeof(((struct sts_filex *)0)->cache))
            return -1;
        c->cache_bytes = (uint32_t)x;
    } else if (!strcmp(key, "trim")) {
        if (strcmp(value, "on") && strcmp(value, "off"))
            return -1;
        c->trim = !strcmp(value, "on");
    } else if (!strcmp(key, "root")) {
        if (!sized)
            return -1;
        c->root_entries = (uint32_t)x;
    } else {
        return 1;
    }
    return 0;
}

int sts_filex_init(struct sts_filex *f, const struct sts_filex_config *cfg, struct sts_fs *out)
{
    memset(f, 0, sizeof(*f));
    f->cfg = *cfg;
    uint32_t spc = cfg->sectors_per_cluster ? cfg->sectors_per_cluster : 8;
    uint32_t cache = cfg->cache_bytes ? cfg->cache_bytes : SECTOR;
    uint32_t root = cfg->root_entries ? cfg->root_entries : 512;
    if (cache > sizeof(f->cache) || cache % SECTOR)
        return STS_EINVAL;
    f->cfg.sectors_per_cluster = spc;
    f->cfg.cache_bytes = cache;
    f->cfg.root_entries = root;
    struct sts_bd_geometry g;
    cfg->bd.ops->geometry(cfg->bd.ctx, &g);
    fx_system_initialize();
    UINT r = fx_media_format(&f->media, driver, f, f->cache, cache, (CHAR *)"STORSCOPE", 1, root,
                             0, (ULONG)(g.capacity / SECTOR), SECTOR, spc, 1, 1);
    if (r == FX_SUCCESS)
        r = fx_media_open(&f->media, (CHAR *)"STORSCOPE", driver, f, f->cache, cache);
    if (r != FX_SUCCESS)
        return from_fx(r);
    f->media.fx_media_driver_free_sector_update = cfg->trim ? FX_TRUE : FX_FALSE;
    f->cluster_bytes = spc * SECTOR;
    out->ops = &filex_ops;
    out->ctx = f;
    return STS_OK;
}

void sts_filex_deinit(struct sts_filex *f)
{
    for (int i = 0; i < STS_FILEX_FILES; i++)
        if (f->used[i])
            (void)fx_file_close(&f->files[i]);
    (void)fx_media_close(&f->media);
}
