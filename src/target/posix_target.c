/* Target kind "posix:DIR[,options]": files in a private scratch directory
 * (DIR/storscope.PID.XXXXXX) that is removed again when the target closes;
 * one that a killed run left (its PID gone) is removed by the next run. */
#define _GNU_SOURCE
#include "storscope/error.h"
#include "storscope/port.h"
#include "storscope/posix.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define ENV_STORE 4096

struct posix_target {
    struct sts_posix_fs pfs;
    char scratch[PATH_MAX];
    char reclaimed[PATH_MAX + 96]; /* what was removed of a killed run's, said as a warning */
    char env_store[ENV_STORE];
    char opt_text[128];
};

static int parse_options(const struct sts_target_spec *spec, struct sts_posix_fs_config *cfg,
                         char *err, size_t errlen)
{
    *cfg = (struct sts_posix_fs_config){.drop_cache = 1};
    for (uint32_t i = 0; i < spec->n_opts; i++) {
        const char *k = spec->opts[i].key, *v = spec->opts[i].value;
        int ok = 1, b = 0;
        if (strcmp(k, "direct") == 0) {
            ok = sts_parse_bool(v, &b) == STS_OK;
            cfg->direct = b;
        } else if (strcmp(k, "drop_cache") == 0) {
            ok = sts_parse_bool(v, &b) == STS_OK;
            cfg->drop_cache = b;
        } else if (strcmp(k, "sync") == 0) {
            ok = strcmp(v, "fsync") == 0 || strcmp(v, "fdatasync") == 0;
            cfg->full_is_data = strcmp(v, "fdatasync") == 0;
        } else if (strcmp(k, "osync") == 0) {
            ok = strcmp(v, "none") == 0 || strcmp(v, "dsync") == 0 || strcmp(v, "sync") == 0;
            cfg->open_sync = strcmp(v, "dsync") == 0 ? O_DSYNC
                             : strcmp(v, "sync") == 0 ? O_SYNC : 0;
        } else {
            snprintf(err, errlen,
                     "posix: unknown option '%s' (known: direct, sync, osync, drop_cache)", k);
            return STS_EINVAL;
        }
        if (!ok) {
            snprintf(err, errlen, "posix: bad value '%s' for option '%s'", v, k);
            return STS_EINVAL;
        }
    }
    return STS_OK;
}

/* Removes the scratch directory and everything storscope put in it. */
static void remove_tree(int parent, const char *name)
{
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        DIR *d = fdopendir(fd);
        if (d) {
            struct dirent *e;
            while ((e = readdir(d))) {
                if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                    continue;
                if (unlinkat(fd, e->d_name, 0) && (errno == EISDIR || errno == EPERM))
                    remove_tree(fd, e->d_name);
            }
            closedir(d);
        } else {
            close(fd);
        }
    }
    unlinkat(parent, name, AT_REMOVEDIR);
}

/* Logical block size of the block device holding `dir`, 0 when unknown
 * (tmpfs, overlay, network filesystems). A partition has no queue/ of its
 * own: its parent's is used. */
static uint32_t logical_block_of(const char *dir)
{
    struct stat st;
    if (stat(dir, &st))
        return 0;
    static const char *const tails[] = {"queue/logical_block_size", "../queue/logical_block_size"};
    for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
        char path[128];
        snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/%s", major(st.st_dev),
                 minor(st.st_dev), tails[i]);
        FILE *f = fopen(path, "re");
        unsigned v = 0;
        if (f) {
            int ok = fscanf(f, "%u", &v) == 1;
            fclose(f);
            if (ok && v >= 512 && v <= 65536 && !(v & (v - 1)))
                return v;
        }
    }
    return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* Scratch directories in dir that a run killed before it could remove them
 * left behind (storscope.PID.XXXXXX whose PID no longer runs): removed, and
 * said in msg (a SIGKILL left them, and every rerun added one). Nothing
 * else is touched: not a name of another form, not a live run's. */
static void reclaim_killed(const char *dir, char *msg, size_t n)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    unsigned removed = 0;
    char first[NAME_MAX + 1] = "";
    while (d && (e = readdir(d))) {
        long pid = 0;
        char tail[8], path[PATH_MAX];
        if (sscanf(e->d_name, "storscope.%ld.%7s", &pid, tail) != 2 || strlen(tail) != 6 ||
            pid <= 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH ||
            snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= (int)sizeof(path))
            continue;
        if (nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0 && !removed++)
            snprintf(first, sizeof(first), "%s", e->d_name);
    }
    if (d)
        closedir(d);
    if (removed)
        snprintf(msg, n, "removed %u scratch director%s in %s left by a run that was killed "
                 "(%s%s)", removed, removed == 1 ? "y" : "ies", dir, first,
                 removed > 1 ? ", ..." : "");
}

static int posix_open(struct sts_target *t, const struct sts_target_spec *spec, char *err,
                      size_t errlen)
{
    struct sts_posix_fs_config cfg;
    static struct sts_target_spec joined;
    if (spec->fs[0]) {
        /* no filesystem stacks on posix:, so a '+' that names an existing
         * directory is its name's (a+b was refused as a layer '+b') */
        joined = *spec;
        struct stat js;
        if (snprintf(joined.arg, sizeof(joined.arg), "%s+%s", spec->arg, spec->fs) >=
                (int)sizeof(joined.arg) ||
            stat(joined.arg, &js) || !S_ISDIR(js.st_mode)) {
            snprintf(err, errlen, "posix: targets use the host's filesystem; '+%s' is not allowed",
                     spec->fs);
            return STS_EINVAL;
        }
        joined.fs[0] = '\0';
        memcpy(joined.opts, spec->fs_opts, sizeof(joined.opts)); /* the options after it */
        joined.n_opts = spec->n_fs_opts;
        joined.n_fs_opts = 0;
        spec = &joined;
    }
    if (!spec->arg[0]) {
        snprintf(err, errlen, "posix: needs a directory, e.g. posix:/var/tmp");
        return STS_EINVAL;
    }
    int rc = parse_options(spec, &cfg, err, errlen);
    if (rc)
        return rc;
    struct stat st;
    if (stat(spec->arg, &st)) {
        int e = errno;
        snprintf(err, errlen, "target directory %s: %s", spec->arg,
                 e == ENOENT ? "does not exist" : strerror(e));
        return sts_posix_err(e);
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "target %s is not a directory (posix: takes a directory)",
                 spec->arg);
        return STS_ENOTDIR;
    }
    if (access(spec->arg, W_OK | X_OK)) {
        snprintf(err, errlen, "target directory %s is not writable: %s", spec->arg,
                 strerror(errno));
        return STS_EACCES;
    }
    struct posix_target *p = calloc(1, sizeof(*p));
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return STS_ENOMEM;
    }
    reclaim_killed(spec->arg, p->reclaimed, sizeof(p->reclaimed));
    snprintf(p->scratch, sizeof(p->scratch), "%s/storscope.%ld.XXXXXX", spec->arg,
             (long)getpid());
    if (!mkdtemp(p->scratch)) {
        snprintf(err, errlen, "cannot create a scratch directory in %s: %s", spec->arg,
                 strerror(errno));
        free(p);
        return STS_EACCES;
    }
    int dirfd = open(p->scratch, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0) {
        snprintf(err, errlen, "cannot open %s: %s", p->scratch, strerror(errno));
        rmdir(p->scratch);
        free(p);
        return STS_EACCES;
    }
    if (cfg.direct) { /* find out now, not in the middle of a run */
        int fd = openat(dirfd, "direct.probe", O_CREAT | O_WRONLY | O_DIRECT | O_CLOEXEC, 0600);
        int e = errno;
        if (fd >= 0)
            close(fd);
        unlinkat(dirfd, "direct.probe", 0);
        if (fd < 0) {
            snprintf(err, errlen, "the filesystem under %s does not support direct=1 (O_DIRECT): %s",
                     spec->arg, strerror(e));
            close(dirfd);
            rmdir(p->scratch);
            free(p);
            return STS_ENOTSUP;
        }
    }
    sts_posix_fs_init(&p->pfs, dirfd, &cfg, &t->fs);
    if (p->reclaimed[0])
        sts_target_warn(t, p->reclaimed);
    t->kind = "posix";
    t->clock = *sts_port_clock();
    t->flags = STS_T_KEEPS_DATA | STS_T_USER_FS | (cfg.direct ? 0 : STS_T_HAS_CACHE);
    if (cfg.direct) {
        /* the device's logical block, as fio uses it (1 KiB reads on a 512 B
         * device); 4 KiB, which satisfies every size Linux uses, only when
         * the filesystem sits on no block device we can see */
        uint32_t lbs = logical_block_of(p->scratch);
        t->io_align = lbs ? lbs : 4096;
        t->io_align_from_device = lbs != 0;
        sts_target_env(t, STS_KV_U("direct_align_bytes", t->io_align));
        sts_target_env(t, STS_KV_S("direct_align_source",
                                   lbs ? "the device's logical block size (sysfs)"
                                       : "4 KiB default: no block device found under the "
                                         "filesystem"));
    }
    t->impl = p;
    sts_target_env(t, STS_KV_S("scratch_dir", p->scratch));
    snprintf(p->opt_text, sizeof(p->opt_text), "direct=%d sync=%s osync=%s drop_cache=%d",
             cfg.direct, cfg.full_is_data ? "fdatasync" : "fsync",
             cfg.open_sync == O_SYNC ? "sync" : cfg.open_sync == O_DSYNC ? "dsync" : "none",
             cfg.drop_cache);
    sts_target_env(t, STS_KV_S("posix_options", p->opt_text));
    sts_posix_probe_env(t, p->scratch, p->env_store, sizeof(p->env_store));
    return STS_OK;
}

static void posix_close(struct sts_target *t)
{
    struct posix_target *p = t->impl;
    if (!p)
        return;
    close(p->pfs.dirfd);
    char *slash = strrchr(p->scratch, '/');
    if (slash) {
        *slash = '\0';
        int parent = open(p->scratch[0] ? p->scratch : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (parent >= 0) {
            remove_tree(parent, slash + 1);
            close(parent);
        }
    }
    free(p);
    t->impl = NULL;
}

const struct sts_target_kind sts_target_posix = {
    "posix",
    "posix:DIR[,direct=0|1][,sync=fsync|fdatasync][,osync=none|dsync|sync][,drop_cache=0|1]",
    "files in a scratch directory under DIR on any mounted filesystem",
    posix_open,
    posix_close,
};
