#include "storscope/faultfs.h"
#include "storscope/error.h"
#include "storscope/units.h"

#include <string.h>

/* Whether this call fails. The count is shared by every thread using the
 * filesystem or device: "the k-th operation" is the k-th to arrive. */
int sts_fault_hit(const struct sts_fault_config *cfg, size_t *counted, size_t *failed,
                  uint32_t kind)
{
    if (cfg->ops && !(cfg->ops & kind))
        return 0;
    size_t n = __atomic_add_fetch(counted, 1, __ATOMIC_RELAXED);
    if (!cfg->fail_at || n < cfg->fail_at || (!cfg->from && (uint64_t)n != cfg->fail_at))
        return 0;
    __atomic_add_fetch(failed, 1, __ATOMIC_RELAXED);
    return 1;
}

static int hit(struct sts_faultfs *f, uint32_t kind)
{
    return sts_fault_hit(&f->cfg, &f->counted, &f->failed, kind);
}

#define ERR(f) ((f)->cfg.err ? (f)->cfg.err : STS_EIO)
#define LOWER(f) (f)->lower.ops, (f)->lower.ctx

static int ff_open(void *ctx, const char *path, int flags, sts_fh *out)
{
    struct sts_faultfs *f = ctx;
    return hit(f, STS_FOP_OPEN) ? ERR(f) : f->lower.ops->open(f->lower.ctx, path, flags, out);
}
static int ff_close(void *ctx, sts_fh fh)
{
    struct sts_faultfs *f = ctx;
    /* a failed close still releases the handle, as close(2) does: the
     * caller may not retry it, so the lower one is closed regardless */
    int rc = f->lower.ops->close(f->lower.ctx, fh);
    return hit(f, STS_FOP_CLOSE) ? ERR(f) : rc;
}
static int ff_read(void *ctx, sts_fh fh, void *buf, size_t len, size_t *done)
{
    struct sts_faultfs *f = ctx;
    *done = 0;
    return hit(f, STS_FOP_READ) ? ERR(f) : f->lower.ops->read(f->lower.ctx, fh, buf, len, done);
}
static int ff_write(void *ctx, sts_fh fh, const void *buf, size_t len, size_t *done)
{
    struct sts_faultfs *f = ctx;
    *done = 0;
    return hit(f, STS_FOP_WRITE) ? ERR(f)
                                 : f->lower.ops->write(f->lower.ctx, fh, buf, len, done);
}
static int ff_seek(void *ctx, sts_fh fh, uint64_t off)
{
    struct sts_faultfs *f = ctx;
    return hit(f, STS_FOP_SEEK) ? ERR(f) : f->lower.ops->seek(f->lower.ctx, fh, off);
}
static int ff_sync(void *ctx, sts_fh fh, enum sts_sync_kind kind)
{
    struct sts_faultfs *f = ctx;
    return hit(f, STS_FOP_SYNC) ? ERR(f) : f->lower.ops->sync(f->lower.ctx, fh, kind);
}
static int ff_unlink(void *ctx, const char *path)
{
    struct sts_faultfs *f = ctx;
    return hit(f, STS_FOP_UNLINK) ? ERR(f) : f->lower.ops->unlink(f->lower.ctx, path);
}
static int ff_mkdir(void *ctx, const char *path)
{
    struct sts_faultfs *f = ctx;
    return hit(f, STS_FOP_MKDIR) ? ERR(f) : f->lower.ops->mkdir(f->lower.ctx, path);
}
static int ff_rmdir(void *ctx, const char *path)
{
    struct sts_faultfs *f = ctx;
    return hit(f, STS_FOP_RMDIR) ? ERR(f) : f->lower.ops->rmdir(f->lower.ctx, path);
}
static int ff_stat(void *ctx, const char *path, struct sts_stat *st)
{
    struct sts_faultfs *f = ctx;
    return hit(f, STS_FOP_STAT) ? ERR(f) : f->lower.ops->stat(f->lower.ctx, path, st);
}
static int ff_statvfs(void *ctx, struct sts_statvfs *st)
{
    struct sts_faultfs *f = ctx;
    return hit(f, STS_FOP_STATVFS) ? ERR(f) : f->lower.ops->statvfs(f->lower.ctx, st);
}
static int ff_advise(void *ctx, sts_fh fh, enum sts_advice advice)
{
    struct sts_faultfs *f = ctx;
    return hit(f, STS_FOP_ADVISE) ? ERR(f) : f->lower.ops->advise(f->lower.ctx, fh, advice);
}

static int ff_allocate(void *ctx, sts_fh fh, uint64_t size)
{
    struct sts_faultfs *f = ctx;
    if (!f->lower.ops->allocate)
        return STS_ENOTSUP; /* as if the method were absent: the caller writes */
    return hit(f, STS_FOP_ALLOCATE) ? ERR(f) : f->lower.ops->allocate(f->lower.ctx, fh, size);
}

static const struct sts_fs_ops faultfs_ops = {
    .version = STS_FS_OPS_VERSION,
    .open = ff_open, .close = ff_close, .read = ff_read, .write = ff_write,
    .seek = ff_seek, .sync = ff_sync, .unlink = ff_unlink, .mkdir = ff_mkdir,
    .rmdir = ff_rmdir, .stat = ff_stat, .statvfs = ff_statvfs, .advise = ff_advise,
    .allocate = ff_allocate,
};
/* the same without advise, for filesystems that have none (NULL = no cache) */
static const struct sts_fs_ops faultfs_ops_no_advise = {
    .version = STS_FS_OPS_VERSION,
    .open = ff_open, .close = ff_close, .read = ff_read, .write = ff_write,
    .seek = ff_seek, .sync = ff_sync, .unlink = ff_unlink, .mkdir = ff_mkdir,
    .rmdir = ff_rmdir, .stat = ff_stat, .statvfs = ff_statvfs, .advise = NULL,
    .allocate = ff_allocate,
};

void sts_faultfs_init(struct sts_faultfs *f, const struct sts_fs *lower,
                      const struct sts_fault_config *cfg, struct sts_fs *out)
{
    memset(f, 0, sizeof(*f));
    f->lower = *lower;
    f->cfg = *cfg;
    out->ops = lower->ops->advise ? &faultfs_ops : &faultfs_ops_no_advise;
    out->ctx = f;
}

static const struct sts_fault_name fs_op_names[] = {
    {"open", STS_FOP_OPEN},     {"close", STS_FOP_CLOSE},     {"read", STS_FOP_READ},
    {"write", STS_FOP_WRITE},   {"seek", STS_FOP_SEEK},       {"sync", STS_FOP_SYNC},
    {"unlink", STS_FOP_UNLINK}, {"mkdir", STS_FOP_MKDIR},     {"rmdir", STS_FOP_RMDIR},
    {"stat", STS_FOP_STAT},     {"statvfs", STS_FOP_STATVFS}, {"advise", STS_FOP_ADVISE},
    {"allocate", STS_FOP_ALLOCATE},
};
static const struct {
    const char *name;
    int err;
} err_names[] = {
    {"eio", STS_EIO}, {"enospc", STS_ENOSPC}, {"eacces", STS_EACCES}, {"ecorrupt", STS_ECORRUPT},
};

/* "write" or "write|sync" -> mask; 0 when a name is unknown */
static uint32_t parse_ops(const struct sts_fault_syntax *sx, const char *v)
{
    uint32_t mask = 0;
    while (*v) {
        size_t n = strcspn(v, "|");
        uint32_t bit = 0;
        for (size_t i = 0; i < sx->n_ops; i++)
            if (strlen(sx->ops[i].name) == n && !strncmp(v, sx->ops[i].name, n))
                bit = sx->ops[i].bit;
        if (!bit)
            return 0;
        mask |= bit;
        v += n + (v[n] == '|');
    }
    return mask;
}

int sts_fault_take(const struct sts_fault_syntax *sx, struct sts_spec_opt *opts,
                   uint32_t *n_opts, struct sts_fault_config *cfg, int *at_given,
                   const char **why)
{
    int any = 0;
    size_t pl = strlen(sx->prefix);
    for (uint32_t i = 0; i < *n_opts;) {
        const char *k = opts[i].key, *v = opts[i].value;
        if (strncmp(k, sx->prefix, pl)) {
            i++;
            continue;
        }
        k += pl;
        uint64_t n = 0;
        if (!strcmp(k, "at")) {
            if (sts_parse_u64(v, &n)) {
                *why = sx->why_at;
                return STS_EINVAL;
            }
            cfg->fail_at = n;
            *at_given = 1;
        } else if (!strcmp(k, "from")) {
            int b = 0;
            if (sts_parse_bool(v, &b)) {
                *why = sx->why_from;
                return STS_EINVAL;
            }
            cfg->from = b;
        } else if (!strcmp(k, "op")) {
            cfg->ops = parse_ops(sx, v);
            if (!cfg->ops) {
                *why = sx->why_op;
                return STS_EINVAL;
            }
        } else if (!strcmp(k, "err")) {
            cfg->err = 0;
            for (size_t e = 0; e < sizeof(err_names) / sizeof(err_names[0]); e++)
                if (!strcmp(v, err_names[e].name))
                    cfg->err = err_names[e].err;
            if (!cfg->err) {
                *why = sx->why_err;
                return STS_EINVAL;
            }
        } else {
            *why = sx->why_unknown;
            return STS_EINVAL;
        }
        any = 1;
        memmove(&opts[i], &opts[i + 1], (*n_opts - i - 1) * sizeof(opts[0]));
        (*n_opts)--;
    }
    return any;
}

static const struct sts_fault_syntax fs_syntax = {
    "fail_", fs_op_names, sizeof(fs_op_names) / sizeof(fs_op_names[0]),
    "fail_at= needs an operation number (0: count only)",
    "fail_from= takes 0 or 1",
    "fail_op= takes open, close, read, write, seek, sync, unlink, mkdir, rmdir, stat, "
    "statvfs, advise or allocate (several joined by |)",
    "fail_err= takes eio, enospc, eacces or ecorrupt",
    "unknown fault option (fail_at=, fail_from=, fail_op=, fail_err=)",
    "fail_from=, fail_op= and fail_err= need fail_at=K",
};

int sts_faultfs_take_opts(struct sts_target_spec *spec, struct sts_fault_config *cfg,
                          const char **why)
{
    memset(cfg, 0, sizeof(*cfg));
    int at_given = 0;
    /* after +FS too: sim:emmc-stm32u5+sensorlog,fail_at=9 reads naturally */
    int a = sts_fault_take(&fs_syntax, spec->opts, &spec->n_opts, cfg, &at_given, why);
    if (a < 0)
        return a;
    int b = sts_fault_take(&fs_syntax, spec->fs_opts, &spec->n_fs_opts, cfg, &at_given, why);
    if (b < 0)
        return b;
    int any = a || b;
    if (any && !at_given) {
        *why = fs_syntax.why_need_at;
        return STS_EINVAL;
    }
    return any;
}
