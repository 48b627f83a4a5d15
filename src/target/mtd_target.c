/* Target kind "mtd:/dev/mtdN[+FS]": a Linux MTD device - the raw SPI NOR or
 * NAND of a Raspberry Pi, a BeagleBone or a router, as the kernel's MTD
 * layer presents it (mtd-utils' flash_erase, nandwrite and mtd_debug are
 * the anchor) - as a block device with real erase, under bare extents or
 * any filesystem of the seam (fs_stack.h): `mtd:/dev/mtd0+sensorlog`,
 * `mtd:/dev/mtd0+littlefs`. Reads and programs are pread/pwrite on the
 * character device, erases MEMERASE64; the kernel checks the alignment a
 * NAND needs and reports bad blocks as I/O errors. Read-only unless the
 * user passed --allow-destructive; a partition that is mounted (JFFS2,
 * or a filesystem on its mtdblock) or attached to UBI is refused. */
#define _GNU_SOURCE
#include "storscope/error.h"
#include "storscope/fs_stack.h"
#include "storscope/port.h"
#include "storscope/posix.h"
#include "storscope/units.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mtd/mtd-abi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define MTD_CHAR_MAJOR 90  /* /dev/mtdN (even minors; odd are the read-only nodes) */
#define MTD_BLOCK_MAJOR 31 /* /dev/mtdblockN */

struct mtd_target {
    int fd, writable;
    unsigned index; /* N of /dev/mtdN */
    struct mtd_info_user info;
    uint64_t capacity; /* bytes (sysfs holds 64 bits, MEMGETINFO 32) */
    uint64_t reads, programs, erases, bytes_read, bytes_written;
    uint64_t last[5];
    struct sts_bd bd;
    struct sts_fs_stack *fs;
    char name[64]; /* the partition's name (sysfs) */
    char path[STS_SPEC_ARG_MAX];
};

static int rw_at(struct mtd_target *m, int is_write, uint64_t off, void *buf, size_t len)
{
    while (len) {
        ssize_t n = is_write ? pwrite(m->fd, buf, len, (off_t)off) : pread(m->fd, buf, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EUCLEAN) /* ECC corrected bitflips: the data is good */
            n = (ssize_t)len;
        if (n <= 0)
            return n < 0 ? (errno == EBADMSG ? STS_EIO : sts_posix_err(errno)) : STS_EIO;
        buf = (uint8_t *)buf + n;
        off += (uint64_t)n;
        len -= (size_t)n;
    }
    return STS_OK;
}

static int mtd_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    struct mtd_target *m = ctx;
    if (addr > m->capacity || len > m->capacity - addr)
        return STS_ERANGE;
    m->reads++;
    m->bytes_read += len;
    return rw_at(m, 0, addr, buf, len);
}

static int mtd_program(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    struct mtd_target *m = ctx;
    if (!m->writable)
        return STS_EACCES;
    if (addr > m->capacity || len > m->capacity - addr)
        return STS_ERANGE;
    if (addr % m->info.writesize || len % m->info.writesize)
        return STS_EINVAL; /* a NAND programs whole pages: the kernel would refuse it too */
    m->programs++;
    m->bytes_written += len;
    return rw_at(m, 1, addr, (void *)(uintptr_t)buf, len);
}

static int mtd_erase(void *ctx, uint64_t addr, uint64_t len)
{
    struct mtd_target *m = ctx;
    if (!m->writable)
        return STS_EACCES;
    if (addr > m->capacity || len > m->capacity - addr || addr % m->info.erasesize ||
        len % m->info.erasesize)
        return STS_EINVAL;
    m->erases++;
    struct erase_info_user64 e = {.start = addr, .length = len};
    if (ioctl(m->fd, MEMERASE64, &e))
        return errno == EIO ? STS_EIO : sts_posix_err(errno); /* EIO: a bad block */
    return STS_OK;
}

/* A chip's MTD driver programs before a write returns, but not every MTD
 * does: block2mtd writes through the page cache, and a power cut took a
 * whole log that had "synced" 64 times (tests/vm/kernel_vm.py, case
 * b2m_after_cut). The MTD character device has no fsync; the kernel syncs
 * the device (mtd_sync: block2mtd's sync_blockdev) when a writer closes
 * it. So a flush opens it again and closes the old descriptor: the cost of
 * two system calls where the driver has nothing to sync. */
static int mtd_flush(void *ctx)
{
    struct mtd_target *m = ctx;
    if (!m->writable)
        return STS_OK;
    int fd = open(m->path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return sts_posix_err(errno);
    int rc = close(m->fd) ? sts_posix_err(errno) : STS_OK;
    m->fd = fd;
    return rc;
}

static void mtd_geometry(void *ctx, struct sts_bd_geometry *g)
{
    struct mtd_target *m = ctx;
    int nand = m->info.type == MTD_NANDFLASH || m->info.type == MTD_MLCNANDFLASH;
    g->capacity = m->capacity;
    g->read_size = 1;
    g->prog_size = m->info.writesize;
    g->erase_size = m->info.erasesize;
    /* a NAND page takes one program between erases; a NOR (or RAM) page
     * may be programmed again, each bit only from 1 to 0 */
    g->flags = STS_BD_KEEPS_DATA | STS_BD_NEEDS_ERASE |
               (nand ? STS_BD_PROGRAM_ONCE : STS_BD_PROGRAM_BYTES);
}

static const struct sts_bd_ops mtd_bd_ops = {
    .version = STS_BD_OPS_VERSION, mtd_read, mtd_program, mtd_erase, mtd_flush, mtd_geometry, NULL,
    NULL, NULL
};

/* Mounted (JFFS2 names its source "mtdN" or "mtd:NAME"; a filesystem on
 * the mtdblock has its device number) or attached to UBI: the kernel and
 * another filesystem own the flash. Writes why into err. */
static int mtd_in_use(const struct mtd_target *m, const char *shown, char *err, size_t errlen)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    char line[4096], byname[80], bynum[32];
    snprintf(byname, sizeof(byname), "mtd:%s", m->name);
    snprintf(bynum, sizeof(bynum), "mtd%u", m->index);
    int hit = 0;
    while (f && !hit && fgets(line, sizeof(line), f)) {
        unsigned ma = 0, mi = 0;
        char src[512] = "";
        const char *dash = strstr(line, " - ");
        if (dash)
            (void)sscanf(dash + 3, "%*s %511s", src);
        hit = (sscanf(line, "%*u %*u %u:%u", &ma, &mi) == 2 && ma == MTD_BLOCK_MAJOR &&
               mi == m->index) ||
              !strcmp(src, bynum) || (m->name[0] && !strcmp(src, byname));
    }
    if (f)
        fclose(f);
    if (hit) {
        snprintf(err, errlen, "mtd: %s is mounted; storscope never touches a device in use",
                 shown);
        return 1;
    }
    DIR *d = opendir("/sys/class/ubi");
    struct dirent *e;
    while (d && !hit && (e = readdir(d))) {
        char p[PATH_MAX], v[32];
        snprintf(p, sizeof(p), "/sys/class/ubi/%.200s/mtd_num", e->d_name);
        hit = sts_posix_read_line(p, v, sizeof(v)) && strtoul(v, NULL, 10) == m->index;
    }
    if (d)
        closedir(d);
    if (hit)
        snprintf(err, errlen, "mtd: %s is attached to UBI (ubidetach it first); storscope "
                              "never touches a device in use", shown);
    return hit;
}

static size_t mtd_counters(struct sts_target *t, struct sts_kv *out, size_t max)
{
    struct mtd_target *m = t->impl;
    const uint64_t now[5] = {m->reads, m->programs, m->erases, m->bytes_read, m->bytes_written};
    static const char *const names[5] = {"reads", "programs", "erases", "bytes_read",
                                         "bytes_written"};
    size_t k = 0;
    for (size_t i = 0; i < 5 && k < max; i++) {
        out[k++] = STS_KV_U(names[i], now[i] - m->last[i]);
        m->last[i] = now[i];
    }
    return k;
}

static int fail(struct mtd_target *m, int rc)
{
    sts_fs_stack_close(m->fs);
    if (m->fd >= 0)
        close(m->fd);
    free(m);
    return rc;
}

static const char *type_name(uint8_t type)
{
    switch (type) {
    case MTD_NORFLASH: return "NOR flash";
    case MTD_NANDFLASH: return "NAND flash";
    case MTD_MLCNANDFLASH: return "MLC NAND flash";
    case MTD_RAM: return "RAM";
    case MTD_ROM: return "ROM";
    case MTD_DATAFLASH: return "DataFlash";
    case MTD_UBIVOLUME: return "UBI volume";
    default: return "unknown";
    }
}

static int mtd_open(struct sts_target *t, const struct sts_target_spec *spec, char *err,
                    size_t errlen)
{
    if (spec->n_opts) {
        snprintf(err, errlen, "mtd: unknown option '%s' (it takes none: a partition is the "
                              "region; the kernel's mtdparts= or the device tree cuts them)",
                 spec->opts[0].key);
        return STS_EINVAL;
    }
    struct mtd_target *m = calloc(1, sizeof(*m));
    if (!m)
        return STS_ENOMEM;
    m->fd = -1;
    struct stat st;
    if (!spec->arg[0] || stat(spec->arg, &st)) {
        snprintf(err, errlen, "mtd: %s: %s", spec->arg[0] ? spec->arg : "(no path)",
                 spec->arg[0] ? strerror(errno) : "give an MTD character device, /dev/mtdN");
        return fail(m, spec->arg[0] ? sts_posix_err(errno) : STS_EINVAL);
    }
    if (!S_ISCHR(st.st_mode) || major(st.st_rdev) != MTD_CHAR_MAJOR || minor(st.st_rdev) % 2) {
        snprintf(err, errlen, "mtd: %s is not an MTD character device (/dev/mtdN: character "
                              "major %d, even minor; /dev/mtdNro and /dev/mtdblockN are not "
                              "it)", spec->arg, MTD_CHAR_MAJOR);
        return fail(m, STS_EINVAL);
    }
    m->index = minor(st.st_rdev) / 2;
    char p[96], v[64];
    snprintf(p, sizeof(p), "/sys/class/mtd/mtd%u/name", m->index);
    if (sts_posix_read_line(p, v, sizeof(v)))
        snprintf(m->name, sizeof(m->name), "%s", v);
    if (mtd_in_use(m, spec->arg, err, errlen))
        return fail(m, STS_EBUSY);
    m->writable = t->allow_destructive;
    snprintf(m->path, sizeof(m->path), "%s", spec->arg); /* (a flush opens it again) */
    m->fd = open(spec->arg, (m->writable ? O_RDWR : O_RDONLY) | O_CLOEXEC);
    if (m->fd < 0) {
        int e = errno;
        snprintf(err, errlen, "mtd: cannot open %s: %s", spec->arg, strerror(e));
        return fail(m, sts_posix_err(e));
    }
    if (ioctl(m->fd, MEMGETINFO, &m->info)) {
        snprintf(err, errlen, "mtd: %s: MEMGETINFO failed: %s", spec->arg, strerror(errno));
        return fail(m, STS_EIO);
    }
    m->capacity = m->info.size;
    snprintf(p, sizeof(p), "/sys/class/mtd/mtd%u/size", m->index);
    if (sts_posix_read_line(p, v, sizeof(v)))
        m->capacity = strtoull(v, NULL, 10);
    if (!m->capacity || !m->info.erasesize || !m->info.writesize ||
        m->info.type == MTD_ROM || m->info.type == MTD_ABSENT ||
        m->info.type == MTD_UBIVOLUME) {
        snprintf(err, errlen, "mtd: %s is %s (%llu bytes, erase unit %u B, write unit %u B): "
                              "not a flash storscope can erase and program",
                 spec->arg, type_name(m->info.type), (unsigned long long)m->capacity,
                 (unsigned)m->info.erasesize, (unsigned)m->info.writesize);
        return fail(m, STS_ENOTSUP);
    }
    if (m->writable && !(m->info.flags & MTD_WRITEABLE)) {
        snprintf(err, errlen, "mtd: %s is a read-only partition (the kernel's MTD_WRITEABLE "
                              "flag is off)", spec->arg);
        return fail(m, STS_EACCES);
    }
    m->bd.ops = &mtd_bd_ops;
    m->bd.ctx = m;
    char shown[STS_SPEC_ARG_MAX + 8];
    snprintf(shown, sizeof(shown), "mtd:%.*s", STS_SPEC_ARG_MAX - 1, spec->arg);
    struct sts_fs_medium medium = {.bd = m->bd, .read_only = !m->writable, .shown = shown};
    int rc = sts_fs_stack_open(&m->fs, spec, &medium, t, err, errlen);
    if (rc)
        return fail(m, rc);
    t->kind = "mtd";
    t->bd = &m->bd;
    t->clock = *sts_port_clock();
    t->flags = (m->writable ? STS_T_KEEPS_DATA : STS_T_READ_ONLY) | sts_fs_stack_flags(m->fs);
    t->io_align = 0;
    t->impl = m;
    t->counters = mtd_counters;
    sts_target_env(t, STS_KV_S("mtd_path", m->path));
    sts_target_env(t, STS_KV_S("mtd_name", m->name));
    sts_target_env(t, STS_KV_S("mtd_type", type_name(m->info.type)));
    sts_target_env(t, STS_KV_U("mtd_capacity_bytes", m->capacity));
    sts_target_env(t, STS_KV_U("mtd_erase_bytes", m->info.erasesize));
    sts_target_env(t, STS_KV_U("mtd_write_bytes", m->info.writesize));
    sts_target_env(t, STS_KV_U("mtd_oob_bytes", m->info.oobsize));
    sts_target_env(t, STS_KV_S("mtd_access", m->writable ? "read-write (--allow-destructive)"
                                                         : "read-only"));
    sts_fs_stack_record(m->fs, t);
    return STS_OK;
}

static void mtd_close(struct sts_target *t)
{
    struct mtd_target *m = t->impl;
    if (m)
        (void)fail(m, 0);
    t->impl = NULL;
}

const struct sts_target_kind sts_target_mtd = {
    "mtd",
    "mtd:/dev/mtdN[+FS[,key=value...]]  (writes need --allow-destructive)",
    "a Linux MTD partition (raw NOR or NAND flash through the kernel's MTD driver), erased "
    "and programmed for real (read-only unless --allow-destructive)",
    mtd_open,
    mtd_close,
};
