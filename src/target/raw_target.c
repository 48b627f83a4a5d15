/* Target kind "raw:PATH[,offset=BYTES][,size=BYTES][+FS]": a Linux block
 * device or an image file, under extentfs (the workloads' files being
 * extents of the region [offset, offset+size)) or whatever filesystem the
 * seam stacks on that region (fs_stack.h). Read-only unless the user passed
 * --allow-destructive; a device that is mounted, used as swap or held by
 * device-mapper/md (itself or any of its partitions) is refused, and block
 * devices are opened O_EXCL so the kernel refuses them too. Block devices use
 * O_DIRECT; transfers that are not sector-aligned go through an aligned
 * bounce buffer, and the results count them (bounced_ops). */
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
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define BOUNCE_BYTES (1u << 20)

struct raw_target {
    int fd;
    int is_blockdev, direct, writable;
    uint64_t capacity;   /* bytes of the device or image */
    uint32_t sector;     /* logical block size */
    uint8_t *bounce;     /* BOUNCE_BYTES, sector-aligned */
    uint64_t bounced, reads, writes, flushes, bytes_read, bytes_written;
    uint64_t last_bounced, last_reads, last_writes, last_flushes, last_br, last_bw;
    struct sts_bd bd;
    struct sts_fs_stack *fs; /* extentfs, or the +FS given */
    char path[PATH_MAX];
};

/* ---- block device over a file descriptor -------------------------------- */
static int io_at(struct raw_target *r, int is_write, uint64_t off, void *buf, size_t len)
{
    while (len) {
        ssize_t n = is_write ? pwrite(r->fd, buf, len, (off_t)off) : pread(r->fd, buf, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? sts_posix_err(errno) : STS_EIO;
        buf = (uint8_t *)buf + n;
        off += (uint64_t)n;
        len -= (size_t)n;
    }
    return STS_OK;
}

static int aligned(const struct raw_target *r, uint64_t addr, const void *buf, size_t len)
{
    return !r->direct || (addr % r->sector == 0 && len % r->sector == 0 &&
                          (uintptr_t)buf % r->sector == 0);
}

static int raw_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    struct raw_target *r = ctx;
    if (addr > r->capacity || len > r->capacity - addr)
        return STS_ERANGE;
    r->reads++;
    r->bytes_read += len;
    if (aligned(r, addr, buf, len))
        return io_at(r, 0, addr, buf, len);
    r->bounced++;
    uint8_t *out = buf;
    while (len) { /* whole sectors into the bounce buffer, the wanted part out */
        uint64_t lo = addr / r->sector * r->sector;
        size_t span = (size_t)((addr - lo) + len);
        span = (span + r->sector - 1) / r->sector * r->sector;
        if (span > BOUNCE_BYTES)
            span = BOUNCE_BYTES;
        int rc = io_at(r, 0, lo, r->bounce, span);
        if (rc)
            return rc;
        size_t n = span - (size_t)(addr - lo);
        n = n < len ? n : len;
        memcpy(out, r->bounce + (addr - lo), n);
        out += n;
        addr += n;
        len -= n;
    }
    return STS_OK;
}

static int raw_program(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    struct raw_target *r = ctx;
    if (!r->writable)
        return STS_EACCES;
    if (addr > r->capacity || len > r->capacity - addr)
        return STS_ERANGE;
    r->writes++;
    r->bytes_written += len;
    if (aligned(r, addr, buf, len))
        return io_at(r, 1, addr, (void *)(uintptr_t)buf, len);
    r->bounced++;
    const uint8_t *in = buf;
    while (len) { /* read-modify-write of the sectors the transfer touches */
        uint64_t lo = addr / r->sector * r->sector;
        size_t span = (size_t)((addr - lo) + len);
        span = (span + r->sector - 1) / r->sector * r->sector;
        if (span > BOUNCE_BYTES)
            span = BOUNCE_BYTES;
        size_t n = span - (size_t)(addr - lo);
        n = n < len ? n : len;
        int rc = STS_OK;
        if (addr != lo || n % r->sector)
            rc = io_at(r, 0, lo, r->bounce, span);
        if (!rc) {
            memcpy(r->bounce + (addr - lo), in, n);
            rc = io_at(r, 1, lo, r->bounce, span);
        }
        if (rc)
            return rc;
        in += n;
        addr += n;
        len -= n;
    }
    return STS_OK;
}

static int raw_erase(void *ctx, uint64_t addr, uint64_t len)
{
    struct raw_target *r = ctx;
    if (!r->writable)
        return STS_EACCES;
    if (r->is_blockdev) {
        uint64_t range[2] = {addr, len};
        /* a device that cannot discard keeps the old bytes, which nothing on
         * managed media needs erased: a trim is advice */
        if (ioctl(r->fd, BLKDISCARD, range) && errno != EOPNOTSUPP && errno != ENOTTY)
            return sts_posix_err(errno);
        return STS_OK;
    }
    if (fallocate(r->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)addr, (off_t)len) &&
        errno != EOPNOTSUPP) /* a filesystem that cannot punch keeps the bytes: no harm */
        return sts_posix_err(errno);
    return STS_OK;
}

static int raw_flush(void *ctx)
{
    struct raw_target *r = ctx;
    r->flushes++;
    return fsync(r->fd) ? sts_posix_err(errno) : STS_OK;
}

static void raw_geometry(void *ctx, struct sts_bd_geometry *g)
{
    struct raw_target *r = ctx;
    g->capacity = r->capacity;
    g->read_size = g->prog_size = r->sector;
    g->erase_size = 0;
    g->flags = STS_BD_KEEPS_DATA;
}

static const struct sts_bd_ops raw_bd_ops = {
    .version = STS_BD_OPS_VERSION, raw_read, raw_program, raw_erase, raw_flush, raw_geometry, NULL,
    NULL, NULL
};

/* ---- is the device in use? ---------------------------------------------- */
static int dev_is_mounted(dev_t dev)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return 0;
    char line[4096];
    int hit = 0;
    while (!hit && fgets(line, sizeof(line), f)) {
        unsigned ma, mi;
        if (sscanf(line, "%*u %*u %u:%u", &ma, &mi) == 2 && makedev(ma, mi) == dev)
            hit = 1;
    }
    fclose(f);
    return hit;
}

static int dev_is_swap(dev_t dev)
{
    FILE *f = fopen("/proc/swaps", "re");
    if (!f)
        return 0;
    char line[4096], path[4096];
    int hit = 0;
    if (!fgets(line, sizeof(line), f)) { /* header */
        fclose(f);
        return 0;
    }
    while (!hit && fgets(line, sizeof(line), f)) {
        struct stat st;
        if (sscanf(line, "%4095s", path) == 1 && stat(path, &st) == 0 && S_ISBLK(st.st_mode) &&
            st.st_rdev == dev)
            hit = 1;
    }
    fclose(f);
    return hit;
}

static int has_holders(const char *sysdir)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof(path), "%s/holders", sysdir);
    DIR *d = opendir(path);
    if (!d)
        return 0;
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n > 0;
}

/* Checks the device and every partition under it; writes why into err. */
static int device_in_use(dev_t dev, char *err, size_t errlen, const char *shown)
{
    char link[64], sys[PATH_MAX];
    snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(dev), minor(dev));
    if (!realpath(link, sys))
        sys[0] = '\0';
    struct {
        dev_t dev;
        char sys[PATH_MAX];
    } list[64];
    size_t n = 0;
    list[n].dev = dev;
    snprintf(list[n++].sys, PATH_MAX, "%s", sys);
    DIR *d = sys[0] ? opendir(sys) : NULL;
    if (d) { /* partitions are subdirectories with a "partition" file */
        struct dirent *e;
        while ((e = readdir(d)) && n < 64) {
            char p[PATH_MAX + 300], v[64];
            snprintf(p, sizeof(p), "%s/%s/partition", sys, e->d_name);
            if (e->d_name[0] == '.' || access(p, F_OK))
                continue;
            snprintf(p, sizeof(p), "%s/%s/dev", sys, e->d_name);
            unsigned ma, mi;
            if (sts_posix_read_line(p, v, sizeof(v)) && sscanf(v, "%u:%u", &ma, &mi) == 2) {
                list[n].dev = makedev(ma, mi);
                snprintf(list[n++].sys, PATH_MAX, "%.3800s/%.200s", sys, e->d_name);
            }
        }
        closedir(d);
    }
    for (size_t i = 0; i < n; i++) {
        const char *what = dev_is_mounted(list[i].dev) ? "is mounted"
                           : dev_is_swap(list[i].dev)  ? "is in use as swap"
                           : (list[i].sys[0] && has_holders(list[i].sys))
                               ? "is held by another device (device-mapper, md, LVM)"
                               : NULL;
        if (what) {
            snprintf(err, errlen, "raw: %s %s%s; storscope never touches a device in use",
                     shown, i ? "has a partition that " : "", what);
            return 1;
        }
    }
    return 0;
}

/* An image that is an active swap file: the kernel owns its blocks (it
 * refuses the writes, and a read-back would see whatever it swapped). */
static int file_is_swap(const struct stat *img)
{
    FILE *f = fopen("/proc/swaps", "re");
    if (!f)
        return 0;
    char line[4096], path[4096];
    int hit = 0;
    if (fgets(line, sizeof(line), f))
        while (!hit && fgets(line, sizeof(line), f)) {
            struct stat st;
            hit = sscanf(line, "%4095s", path) == 1 && stat(path, &st) == 0 &&
                  S_ISREG(st.st_mode) && st.st_dev == img->st_dev && st.st_ino == img->st_ino;
        }
    fclose(f);
    return hit;
}

/* A loop device backed by this image and mounted counts as a mounted image. */
static int image_in_use(const char *real, char *err, size_t errlen)
{
    DIR *d = opendir("/sys/block");
    if (!d)
        return 0;
    struct dirent *e;
    int hit = 0;
    while (!hit && (e = readdir(d))) {
        if (strncmp(e->d_name, "loop", 4))
            continue;
        char p[PATH_MAX], back[PATH_MAX], dv[64];
        snprintf(p, sizeof(p), "/sys/block/%.64s/loop/backing_file", e->d_name);
        if (!sts_posix_read_line(p, back, sizeof(back)) || strcmp(back, real))
            continue;
        snprintf(p, sizeof(p), "/sys/block/%.64s/dev", e->d_name);
        unsigned ma, mi;
        if (sts_posix_read_line(p, dv, sizeof(dv)) && sscanf(dv, "%u:%u", &ma, &mi) == 2)
            hit = device_in_use(makedev(ma, mi), err, errlen, e->d_name);
    }
    closedir(d);
    return hit;
}

static size_t raw_counters(struct sts_target *t, struct sts_kv *out, size_t max)
{
    struct raw_target *r = t->impl;
    size_t k = 0;
#define D(name, cur, last) \
    if (k < max) out[k++] = STS_KV_U(name, r->cur - r->last); \
    r->last = r->cur
    D("reads", reads, last_reads);
    D("programs", writes, last_writes);
    D("flushes", flushes, last_flushes);
    D("bytes_read", bytes_read, last_br);
    D("bytes_written", bytes_written, last_bw);
    D("bounced_ops", bounced, last_bounced);
#undef D
    return k;
}

static int fail(struct raw_target *r, int rc)
{
    sts_fs_stack_close(r->fs);
    if (r->fd >= 0)
        close(r->fd);
    free(r->bounce);
    free(r);
    return rc;
}

/* Where reads of the target are served from, when that is not a medium: an
 * image is the disk and filesystem holding it (or, without O_DIRECT, the
 * host's page cache); a loop device without direct I/O reads its backing
 * file through the page cache, so "uncached" reads run at RAM speed (1.92
 * GiB/s on this machine's loop device, with no word said). */
static void warn_not_a_medium(struct sts_target *t, const struct raw_target *r,
                              const struct stat *st)
{
    if (!r->is_blockdev) {
        t->flags |= STS_T_HOST_BACKED;
        sts_target_warn(t, r->direct
                               ? "an image file: results measure the disk and filesystem that "
                                 "hold it, not a card or a flash chip"
                               : "an image file on a filesystem without O_DIRECT: reads are "
                                 "served by the host's page cache (RAM speed), not by a medium");
        return;
    }
    char p[96], dio = '1';
    snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/loop/dio", major(st->st_rdev),
             minor(st->st_rdev));
    FILE *f = fopen(p, "r"); /* only loop devices have it */
    if (!f)
        return;
    t->flags |= STS_T_HOST_BACKED; /* direct I/O or not, a file's disk is behind it */
    if (fread(&dio, 1, 1, f) == 1 && dio == '0')
        sts_target_warn(t, "a loop device without direct I/O (losetup --direct-io=on): reads "
                           "are served by the host's page cache, so 'uncached' figures are "
                           "RAM speed, not the image's disk");
    fclose(f);
}

static int raw_open(struct sts_target *t, const struct sts_target_spec *spec, char *err,
                    size_t errlen)
{
    uint64_t offset = 0, size = 0;
    for (uint32_t i = 0; i < spec->n_opts; i++) {
        const char *k = spec->opts[i].key, *v = spec->opts[i].value;
        uint64_t *dst = !strcmp(k, "offset") ? &offset : !strcmp(k, "size") ? &size : NULL;
        if (!dst) {
            snprintf(err, errlen, "raw: unknown option '%s' (known: offset, size)", k);
            return STS_EINVAL;
        }
        if (sts_parse_size(v, dst)) {
            snprintf(err, errlen, "raw: bad value '%s' for '%s'", v, k);
            return STS_EINVAL;
        }
    }
    struct raw_target *r = calloc(1, sizeof(*r));
    if (!r)
        return STS_ENOMEM;
    r->fd = -1;
    if (!spec->arg[0] || !realpath(spec->arg, r->path)) {
        snprintf(err, errlen, "raw: %s: %s", spec->arg[0] ? spec->arg : "(no path)",
                 spec->arg[0] ? strerror(errno) : "give a block device or an image file");
        return fail(r, spec->arg[0] ? sts_posix_err(errno) : STS_EINVAL);
    }
    struct stat st;
    if (stat(r->path, &st)) {
        snprintf(err, errlen, "raw: %s: %s", spec->arg, strerror(errno));
        return fail(r, sts_posix_err(errno));
    }
    r->is_blockdev = S_ISBLK(st.st_mode);
    if (!r->is_blockdev && !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "raw: %s is neither a block device nor an image file", spec->arg);
        return fail(r, STS_EINVAL);
    }
    if (!r->is_blockdev && file_is_swap(&st)) {
        snprintf(err, errlen, "raw: %s is an active swap file; storscope never touches a file "
                              "in use (swapoff it first)", spec->arg);
        return fail(r, STS_EBUSY);
    }
    if (r->is_blockdev ? device_in_use(st.st_rdev, err, errlen, spec->arg)
                       : image_in_use(r->path, err, errlen))
        return fail(r, STS_EBUSY);
    r->writable = t->allow_destructive;
    int flags = (r->writable ? O_RDWR : O_RDONLY) | O_CLOEXEC | O_DIRECT;
    if (r->is_blockdev)
        flags |= O_EXCL; /* the kernel refuses a device in use */
    r->fd = open(r->path, flags);
    if (r->fd < 0 && errno == EINVAL && !r->is_blockdev) /* image on a fs without O_DIRECT */
        r->fd = open(r->path, flags & ~O_DIRECT);
    r->direct = r->fd >= 0 && (fcntl(r->fd, F_GETFL) & O_DIRECT) != 0;
    if (r->fd < 0) {
        int e = errno;
        snprintf(err, errlen, "raw: cannot open %s: %s%s", spec->arg, strerror(e),
                 e == EBUSY ? " (in use)" : "");
        return fail(r, sts_posix_err(e));
    }
    r->sector = 512;
    if (r->is_blockdev) {
        int ss = 0;
        unsigned long long bytes = 0;
        if (ioctl(r->fd, BLKSSZGET, &ss) == 0 && ss > 0)
            r->sector = (uint32_t)ss;
        if (ioctl(r->fd, BLKGETSIZE64, &bytes) == 0)
            r->capacity = bytes;
    } else {
        r->capacity = (uint64_t)st.st_size;
    }
    if (r->capacity == 0) {
        snprintf(err, errlen, "raw: %s is empty (0 bytes)", spec->arg);
        return fail(r, STS_EINVAL);
    }
    if (offset % r->sector || offset >= r->capacity ||
        (size && (size > r->capacity - offset))) {
        snprintf(err, errlen, "raw: offset/size do not fit %s (%llu bytes, %u-byte sectors)",
                 spec->arg, (unsigned long long)r->capacity, r->sector);
        return fail(r, STS_EINVAL);
    }
    if (posix_memalign((void **)&r->bounce, 4096, BOUNCE_BYTES)) {
        r->bounce = NULL;
        return fail(r, STS_ENOMEM);
    }
    r->bd.ops = &raw_bd_ops;
    r->bd.ctx = r;
    char shown[PATH_MAX + 8];
    snprintf(shown, sizeof(shown), "raw:%s", spec->arg);
    struct sts_fs_medium medium = {.bd = r->bd, .base = offset, .end = size ? offset + size : 0,
                                   .read_only = !r->writable, .shown = shown};
    int rc = sts_fs_stack_open(&r->fs, spec, &medium, t, err, errlen);
    if (rc)
        return fail(r, rc);
    t->kind = "raw";
    t->bd = &r->bd;
    t->clock = *sts_port_clock();
    t->flags = (r->writable ? STS_T_KEEPS_DATA : STS_T_READ_ONLY) |
               sts_fs_stack_flags(r->fs);
    t->io_align = 0;
    t->impl = r;
    t->counters = raw_counters;
    sts_target_env(t, STS_KV_S("raw_path", r->path));
    sts_target_env(t, STS_KV_S("raw_kind", r->is_blockdev ? "block device" : "image file"));
    sts_target_env(t, STS_KV_U("raw_capacity_bytes", r->capacity));
    sts_target_env(t, STS_KV_U("raw_sector_bytes", r->sector));
    sts_target_env(t, STS_KV_U("raw_offset_bytes", offset));
    sts_target_env(t, STS_KV_U("raw_region_bytes", (size ? size : r->capacity - offset)));
    sts_target_env(t, STS_KV_S("raw_access", r->writable ? "read-write (--allow-destructive)"
                                                         : "read-only"));
    sts_target_env(t, STS_KV_B("raw_direct_io", r->direct));
    sts_fs_stack_record(r->fs, t);
    warn_not_a_medium(t, r, &st);
    return STS_OK;
}

static void raw_close(struct sts_target *t)
{
    struct raw_target *r = t->impl;
    if (r)
        (void)fail(r, 0);
    t->impl = NULL;
}

const struct sts_target_kind sts_target_raw = {
    "raw",
    "raw:PATH[,offset=BYTES][,size=BYTES][+FS[,key=value...]]  (writes need "
    "--allow-destructive)",
    "a block device or image file at block level (read-only unless --allow-destructive)",
    raw_open,
    raw_close,
};
