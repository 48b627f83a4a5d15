/* What a result needs to be trusted later: which filesystem, mounted how, on
 * which device with which firmware and cache, under which kernel. */
#define _GNU_SOURCE
#include "storscope/posix.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>

struct store {
    char *p;
    size_t left;
};

/* Copies s into the store; returns the copy (or a constant when full). */
static const char *keep(struct store *st, const char *s)
{
    size_t n = strlen(s) + 1;
    if (n > st->left)
        return "(truncated)";
    char *d = st->p;
    memcpy(d, s, n);
    st->p += n;
    st->left -= n;
    return d;
}

int sts_posix_read_line(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    int ok = fgets(buf, (int)n, f) != NULL;
    fclose(f);
    if (!ok)
        return 0;
    size_t len = strlen(buf);
    while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
        buf[--len] = '\0';
    return len > 0;
}

static void env_file(struct sts_target *t, struct store *st, const char *key, const char *dir,
                     const char *file)
{
    char path[PATH_MAX], val[256];
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    if (sts_posix_read_line(path, val, sizeof(val)))
        sts_target_env(t, STS_KV_S(keep(st, key), keep(st, val)));
}

/* Finds the mount holding `dir`: longest mount point that prefixes it. */
static int find_mount(const char *dir, char *fstype, char *source, char *options,
                      char *mountpoint, unsigned *maj, unsigned *min)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return 0;
    char line[4096];
    size_t best = 0;
    while (fgets(line, sizeof(line), f)) {
        char mp[1024], opts[1024], fst[64], src[1024];
        unsigned a, b;
        /* id parent maj:min root mountpoint options [optional...] - fstype source super */
        if (sscanf(line, "%*u %*u %u:%u %*s %1023s %1023s", &a, &b, mp, opts) != 4)
            continue;
        char *dash = strstr(line, " - ");
        if (!dash || sscanf(dash + 3, "%63s %1023s", fst, src) != 2)
            continue;
        size_t len = strlen(mp);
        int prefix = strncmp(dir, mp, len) == 0 &&
                     (dir[len] == '/' || dir[len] == '\0' || (len == 1 && mp[0] == '/'));
        if (prefix && len >= best) {
            best = len;
            strcpy(fstype, fst);
            strcpy(source, src);
            strcpy(options, opts);
            strcpy(mountpoint, mp);
            *maj = a;
            *min = b;
        }
    }
    fclose(f);
    return best > 0;
}

/* The filesystem's type from statfs(2) when /proc/self/mountinfo does not
 * show the mount (a chroot or a container whose root lies inside another
 * filesystem): the kernel's magic numbers for the common ones. */
static const char *fstype_by_magic(const char *dir)
{
    static const struct {
        unsigned long magic;
        const char *name;
    } known[] = {
        {0xEF53, "ext4"},          {0x58465342, "xfs"},      {0x9123683E, "btrfs"},
        {0xF2F52010, "f2fs"},      {0x4d44, "vfat"},         {0x2011BAB0, "exfat"},
        {0x01021994, "tmpfs"},     {0x858458f6, "ramfs"},    {0x794c7630, "overlay"},
        {0x6969, "nfs"},           {0xFF534D42, "cifs"},     {0x01021997, "9p"},
        {0x5346544e, "ntfs"},      {0x65735546, "fuse"},     {0x2fc12fc1, "zfs"},
    };
    struct statfs f;
    if (statfs(dir, &f))
        return NULL;
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
        if ((unsigned long)f.f_type == known[i].magic)
            return known[i].name;
    return "unknown";
}

static void probe_block_device(struct sts_target *t, struct store *st, unsigned maj, unsigned min)
{
    char link[PATH_MAX], dev[PATH_MAX];
    snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", maj, min);
    if (!realpath(link, dev))
        return;
    struct stat s;
    char probe[PATH_MAX + 16];
    snprintf(probe, sizeof(probe), "%s/partition", dev);
    if (stat(probe, &s) == 0) { /* a partition: the disk is the parent */
        char *slash = strrchr(dev, '/');
        if (slash)
            *slash = '\0';
    }
    const char *name = strrchr(dev, '/');
    sts_target_env(t, STS_KV_S("block_device", keep(st, name ? name + 1 : dev)));
    env_file(t, st, "device_model", dev, "device/model");
    env_file(t, st, "device_name", dev, "device/name");      /* MMC/SD */
    env_file(t, st, "device_type", dev, "device/type");      /* MMC or SD */
    env_file(t, st, "device_vendor", dev, "device/vendor");
    env_file(t, st, "firmware_revision", dev, "device/rev");
    env_file(t, st, "firmware_revision_mmc", dev, "device/fwrev");
    env_file(t, st, "firmware_revision_nvme", dev, "device/firmware_rev");
    env_file(t, st, "write_cache", dev, "queue/write_cache");
    env_file(t, st, "rotational", dev, "queue/rotational");
    env_file(t, st, "logical_block_bytes", dev, "queue/logical_block_size");
    env_file(t, st, "physical_block_bytes", dev, "queue/physical_block_size");
    env_file(t, st, "scheduler", dev, "queue/scheduler");
}

void sts_posix_probe_env(struct sts_target *t, const char *dir, char *store, size_t n)
{
    struct store st = {store, n};
    struct utsname u;
    if (uname(&u) == 0) {
        char k[512];
        snprintf(k, sizeof(k), "%s %s %s", u.sysname, u.release, u.machine);
        sts_target_env(t, STS_KV_S("kernel", keep(&st, k)));
    }
    /* the space on the target's filesystem when the run began: a fleet's
     * archive and its OpenMetrics export follow it (issue 48) */
    struct statvfs vfs;
    if (statvfs(dir, &vfs) == 0) {
        sts_target_env(t, STS_KV_U("fs_total_bytes", (uint64_t)vfs.f_blocks * vfs.f_frsize));
        sts_target_env(t, STS_KV_U("fs_free_bytes", (uint64_t)vfs.f_bavail * vfs.f_frsize));
    }
    char real[PATH_MAX];
    if (!realpath(dir, real))
        return;
    char fstype[64] = "", source[1024] = "", options[1024] = "", mp[1024] = "";
    unsigned maj = 0, min = 0;
    if (find_mount(real, fstype, source, options, mp, &maj, &min)) {
        sts_target_env(t, STS_KV_S("filesystem", keep(&st, fstype)));
        sts_target_env(t, STS_KV_S("mount_point", keep(&st, mp)));
        sts_target_env(t, STS_KV_S("mount_source", keep(&st, source)));
        sts_target_env(t, STS_KV_S("mount_options", keep(&st, options)));
    } else { /* the mount is outside this root: what the kernel says of it */
        const char *by_magic = fstype_by_magic(real);
        struct stat sb;
        if (!by_magic || stat(real, &sb))
            return;
        sts_strlcpy(fstype, by_magic, sizeof(fstype));
        sts_target_env(t, STS_KV_S("filesystem", keep(&st, fstype)));
        sts_target_env(t, STS_KV_S("mount_point", "(not visible from this root: chroot or "
                                                  "container)"));
        maj = major(sb.st_dev);
        min = minor(sb.st_dev);
    }

    static const char *const ram[] = {"tmpfs", "ramfs", "devtmpfs"};
    static const char *const layered[] = {"overlay", "aufs", "unionfs"};
    static const char *const network[] = {"nfs", "nfs4", "cifs", "smb3", "smbfs", "9p",
                                          "ceph", "glusterfs", "fuse.sshfs", "virtiofs"};
    for (size_t i = 0; i < sizeof(ram) / sizeof(ram[0]); i++)
        if (!strcmp(fstype, ram[i]))
            sts_target_warn(t, "the target is a RAM filesystem (tmpfs): results measure "
                               "memory, not storage");
    for (size_t i = 0; i < sizeof(layered) / sizeof(layered[0]); i++)
        if (!strcmp(fstype, layered[i]))
            sts_target_warn(t, "the target is on an overlay filesystem: results include the "
                               "overlay layer, not only the storage under it");
    for (size_t i = 0; i < sizeof(network) / sizeof(network[0]); i++)
        if (!strcmp(fstype, network[i]))
            sts_target_warn(t, "the target is a network filesystem: results measure the "
                               "network and the server, not local storage");
    if (maj != 0)
        probe_block_device(t, &st, maj, min);
}
