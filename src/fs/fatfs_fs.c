/* FatFs behind the filesystem interface, and FatFs's disk layer
 * (disk_status, disk_initialize, disk_read, disk_write, disk_ioctl) over a
 * storscope block device. */
#include "storscope/fatfs_fs.h"
#include "diskio.h"
#include "fh_pool.h"
#include "storscope/error.h"

#include <string.h>

#define SECTOR 512u

/* FatFs calls its disk layer by drive number: drive 0 is this device. */
static const struct sts_bd *disk;

DSTATUS disk_status(BYTE pdrv)
{
    return pdrv == 0 && disk ? 0 : STA_NOINIT;
}

DSTATUS disk_initialize(BYTE pdrv)
{
    return disk_status(pdrv);
}

DRESULT disk_read(BYTE pdrv, BYTE *buff, LBA_t sector, UINT count)
{
    if (disk_status(pdrv))
        return RES_NOTRDY;
    int rc = disk->ops->read(disk->ctx, (uint64_t)sector * SECTOR, buff, (size_t)count * SECTOR);
    return rc ? RES_ERROR : RES_OK;
}

DRESULT disk_write(BYTE pdrv, const BYTE *buff, LBA_t sector, UINT count)
{
    if (disk_status(pdrv))
        return RES_NOTRDY;
    int rc = disk->ops->program(disk->ctx, (uint64_t)sector * SECTOR, buff,
                                (size_t)count * SECTOR);
    return rc ? RES_ERROR : RES_OK;
}

DRESULT disk_ioctl(BYTE pdrv, BYTE cmd, void *buff)
{
    if (disk_status(pdrv))
        return RES_NOTRDY;
    struct sts_bd_geometry g;
    disk->ops->geometry(disk->ctx, &g);
    switch (cmd) {
    case CTRL_SYNC: return disk->ops->flush(disk->ctx) ? RES_ERROR : RES_OK;
    case GET_SECTOR_COUNT: *(LBA_t *)buff = (LBA_t)(g.capacity / SECTOR); return RES_OK;
    case GET_SECTOR_SIZE: *(WORD *)buff = SECTOR; return RES_OK;
    case GET_BLOCK_SIZE: /* erase block in sectors: where FatFs aligns the data area */
        *(DWORD *)buff = g.erase_size >= SECTOR ? g.erase_size / SECTOR : 1;
        return RES_OK;
    default: return RES_PARERR;
    }
}

static int from_ff(FRESULT r)
{
    switch (r) {
    case FR_OK: return STS_OK;
    case FR_NO_FILE:
    case FR_NO_PATH: return STS_ENOENT;
    case FR_EXIST: return STS_EEXIST;
    case FR_DENIED: return STS_ENOSPC; /* a full volume, or a directory not empty */
    case FR_INVALID_NAME:
    case FR_INVALID_PARAMETER:
    case FR_INVALID_OBJECT: return STS_EINVAL;
    case FR_TOO_MANY_OPEN_FILES:
    case FR_LOCKED: return STS_EBUSY;
    case FR_NOT_ENOUGH_CORE: return STS_ENOMEM;
    case FR_INT_ERR:
    case FR_NO_FILESYSTEM: return STS_ECORRUPT;
    default: return STS_EIO; /* disk errors, not ready, timeouts */
    }
}

static FIL *file_of(struct sts_fatfs *f, sts_fh fh)
{
    return fh_pool_valid(f->used, STS_FATFS_FILES, fh) ? &f->files[fh] : NULL;
}

static int fs_open(void *ctx, const char *path, int flags, sts_fh *out)
{
    struct sts_fatfs *f = ctx;
    BYTE mode = 0;
    if (flags & STS_O_RDONLY)
        mode |= FA_READ;
    if (flags & STS_O_WRONLY)
        mode |= FA_WRITE;
    mode |= (flags & STS_O_TRUNC)   ? FA_CREATE_ALWAYS
            : (flags & STS_O_CREAT) ? FA_OPEN_ALWAYS
                                    : FA_OPEN_EXISTING;
    int i = fh_pool_free(f->used, STS_FATFS_FILES);
    if (i < 0)
        return STS_EBUSY; /* too many open files */
    FRESULT r = f_open(&f->files[i], path, mode);
    if (r != FR_OK)
        return from_ff(r);
    f->used[i] = 1;
    *out = i;
    return STS_OK;
}

static int fs_close(void *ctx, sts_fh fh)
{
    struct sts_fatfs *f = ctx;
    FIL *fp = file_of(f, fh);
    if (!fp)
        return STS_EINVAL;
    f->used[fh] = 0;
    return from_ff(f_close(fp));
}

static int fs_read(void *ctx, sts_fh fh, void *buf, size_t len, size_t *done)
{
    FIL *fp = file_of(ctx, fh);
    UINT n = 0;
    if (!fp)
        return STS_EINVAL;
    FRESULT r = f_read(fp, buf, (UINT)len, &n);
    *done = n;
    return from_ff(r);
}

static int fs_write(void *ctx, sts_fh fh, const void *buf, size_t len, size_t *done)
{
    FIL *fp = file_of(ctx, fh);
    UINT n = 0;
    if (!fp)
        return STS_EINVAL;
    FRESULT r = f_write(fp, buf, (UINT)len, &n);
    *done = n;
    if (r == FR_OK && n < len)
        return STS_ENOSPC; /* FatFs reports a full volume as a short write */
    return from_ff(r);
}

static int fs_seek(void *ctx, sts_fh fh, uint64_t off)
{
    FIL *fp = file_of(ctx, fh);
    return fp ? from_ff(f_lseek(fp, (FSIZE_t)off)) : STS_EINVAL;
}

static int fs_sync(void *ctx, sts_fh fh, enum sts_sync_kind kind)
{
    (void)kind; /* f_sync writes the data, the FAT and the directory entry */
    FIL *fp = file_of(ctx, fh);
    return fp ? from_ff(f_sync(fp)) : STS_EINVAL;
}

static int fs_unlink(void *ctx, const char *path)
{
    (void)ctx;
    return from_ff(f_unlink(path));
}

static int fs_mkdir(void *ctx, const char *path)
{
    (void)ctx;
    return from_ff(f_mkdir(path));
}

static int fs_rmdir(void *ctx, const char *path)
{
    (void)ctx;
    FRESULT r = f_unlink(path);
    return r == FR_DENIED ? STS_EBUSY : from_ff(r); /* not empty */
}

static int fs_stat(void *ctx, const char *path, struct sts_stat *st)
{
    (void)ctx;
    FILINFO info;
    FRESULT r = f_stat(path, &info);
    if (r != FR_OK)
        return from_ff(r);
    st->size = info.fsize;
    st->is_dir = (info.fattrib & AM_DIR) != 0;
    return STS_OK;
}

static int fs_statvfs(void *ctx, struct sts_statvfs *st)
{
    struct sts_fatfs *f = ctx;
    DWORD clusters = 0;
    FATFS *fs = NULL;
    FRESULT r = f_getfree("", &clusters, &fs);
    if (r != FR_OK)
        return from_ff(r);
    uint64_t csize = (uint64_t)fs->csize * SECTOR;
    st->total_bytes = (uint64_t)(fs->n_fatent - 2) * csize;
    st->free_bytes = (uint64_t)clusters * csize;
    st->block_size = (uint32_t)csize;
    (void)f;
    return STS_OK;
}

static const struct sts_fs_ops fatfs_ops = {
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

int sts_fatfs_init(struct sts_fatfs *f, const struct sts_fatfs_config *cfg, struct sts_fs *out)
{
    if (disk)
        return STS_EBUSY; /* FatFs's disk layer serves one device */
    memset(f, 0, sizeof(*f));
    f->cfg = *cfg;
    disk = &f->cfg.bd;
    static BYTE work[FF_MAX_SS * 8]; /* f_mkfs's scratch: static, no heap */
    MKFS_PARM opt = {FM_ANY | FM_SFD, cfg->n_fats ? cfg->n_fats : 1, 0, 0, cfg->cluster_bytes};
    FRESULT r = f_mkfs("", &opt, work, sizeof(work));
    if (r == FR_OK)
        r = f_mount(&f->fatfs, "", 1);
    if (r != FR_OK) {
        disk = NULL;
        return from_ff(r);
    }
    f->cluster_bytes = (uint32_t)f->fatfs.csize * SECTOR;
    f->fat_type = f->fatfs.fs_type;
    out->ops = &fatfs_ops;
    out->ctx = f;
    return STS_OK;
}

void sts_fatfs_deinit(struct sts_fatfs *f)
{
    for (int i = 0; i < STS_FATFS_FILES; i++)
        if (f->used[i])
            (void)f_close(&f->files[i]);
    (void)f_mount(NULL, "", 0);
    disk = NULL;
}
