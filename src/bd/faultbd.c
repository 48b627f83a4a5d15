/* faultbd.h: a device command fails when its number comes up. */
#include "storscope/faultbd.h"
#include "storscope/error.h"

#include <string.h>

static int hit(struct sts_faultbd *f, uint32_t kind)
{
    return sts_fault_hit(&f->cfg, &f->counted, &f->failed, kind);
}

#define ERR(f) ((f)->cfg.err ? (f)->cfg.err : STS_EIO)

static int fb_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    struct sts_faultbd *f = ctx;
    return hit(f, STS_BOP_READ) ? ERR(f) : f->lower.ops->read(f->lower.ctx, addr, buf, len);
}
static int fb_program(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    struct sts_faultbd *f = ctx;
    return hit(f, STS_BOP_PROGRAM) ? ERR(f)
                                   : f->lower.ops->program(f->lower.ctx, addr, buf, len);
}
static int fb_erase(void *ctx, uint64_t addr, uint64_t len)
{
    struct sts_faultbd *f = ctx;
    return hit(f, STS_BOP_ERASE) ? ERR(f) : f->lower.ops->erase(f->lower.ctx, addr, len);
}
static int fb_flush(void *ctx)
{
    struct sts_faultbd *f = ctx;
    return hit(f, STS_BOP_FLUSH) ? ERR(f) : f->lower.ops->flush(f->lower.ctx);
}
static void fb_geometry(void *ctx, struct sts_bd_geometry *g)
{
    struct sts_faultbd *f = ctx;
    f->lower.ops->geometry(f->lower.ctx, g);
}
/* A failed submission is a device that refused the command: the caller
 * sees the error at once, as from a driver whose controller reported it. */
static int fb_submit(void *ctx, struct sts_bd_req *req)
{
    struct sts_faultbd *f = ctx;
    uint32_t kind = req->op == STS_BD_READ ? STS_BOP_READ : STS_BOP_PROGRAM;
    return hit(f, kind) ? ERR(f) : f->lower.ops->submit(f->lower.ctx, req);
}
static int fb_poll(void *ctx, struct sts_bd_req **done)
{
    struct sts_faultbd *f = ctx;
    return f->lower.ops->poll(f->lower.ctx, done);
}

static const struct sts_bd_ops blocking_ops = {
    .version = STS_BD_OPS_VERSION, fb_read, fb_program, fb_erase, fb_flush, fb_geometry, NULL, NULL,
    NULL
};
static const struct sts_bd_ops nonblocking_ops = {
    .version = STS_BD_OPS_VERSION, fb_read, fb_program, fb_erase, fb_flush, fb_geometry, fb_submit,
    fb_poll, NULL
};

void sts_faultbd_init(struct sts_faultbd *f, const struct sts_bd *lower,
                      const struct sts_fault_config *cfg, struct sts_bd *out)
{
    memset(f, 0, sizeof(*f));
    f->lower = *lower;
    f->cfg = *cfg;
    /* the lower device's non-blocking path stays visible only if it has one */
    out->ops = lower->ops->submit && lower->ops->poll ? &nonblocking_ops : &blocking_ops;
    out->ctx = f;
}

static const struct sts_fault_name bd_op_names[] = {
    {"read", STS_BOP_READ}, {"program", STS_BOP_PROGRAM}, {"erase", STS_BOP_ERASE},
    {"flush", STS_BOP_FLUSH},
};
static const struct sts_fault_syntax bd_syntax = {
    "dev_fail_", bd_op_names, sizeof(bd_op_names) / sizeof(bd_op_names[0]),
    "dev_fail_at= needs a device command number (0: count only)",
    "dev_fail_from= takes 0 or 1",
    "dev_fail_op= takes read, program, erase or flush (several joined by |)",
    "dev_fail_err= takes eio, enospc, eacces or ecorrupt",
    "unknown device fault option (dev_fail_at=, dev_fail_from=, dev_fail_op=, dev_fail_err=)",
    "dev_fail_from=, dev_fail_op= and dev_fail_err= need dev_fail_at=K",
};

int sts_faultbd_take_opts(struct sts_spec_opt *opts, uint32_t *n_opts,
                          struct sts_fault_config *cfg, const char **why)
{
    memset(cfg, 0, sizeof(*cfg));
    int at_given = 0;
    int any = sts_fault_take(&bd_syntax, opts, n_opts, cfg, &at_given, why);
    if (any > 0 && !at_given) {
        *why = bd_syntax.why_need_at;
        return STS_EINVAL;
    }
    return any;
}
