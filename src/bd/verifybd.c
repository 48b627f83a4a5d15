/* verifybd.h: a program is done when what it wrote reads back. */
#include "storscope/verifybd.h"
#include "storscope/error.h"

#include <string.h>

/* STS_OK when [addr, addr + len) reads back as `want`; STS_EIO when it
 * does not (the program did not stick), or the read's own error. */
static int read_back(struct sts_verifybd *v, uint64_t addr, const uint8_t *want, size_t len)
{
    v->verified++;
    for (size_t off = 0; off < len;) {
        size_t n = len - off < v->buf_bytes ? len - off : v->buf_bytes;
        int rc = v->lower.ops->read(v->lower.ctx, addr + off, v->buf, n);
        if (rc)
            return rc;
        if (memcmp(v->buf, want + off, n)) {
            v->mismatches++;
            return STS_EIO;
        }
        off += n;
    }
    return STS_OK;
}

static int vb_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    struct sts_verifybd *v = ctx;
    return v->lower.ops->read(v->lower.ctx, addr, buf, len);
}
static int vb_program(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    struct sts_verifybd *v = ctx;
    int rc = v->lower.ops->program(v->lower.ctx, addr, buf, len);
    return rc ? rc : read_back(v, addr, buf, len);
}
static int vb_erase(void *ctx, uint64_t addr, uint64_t len)
{
    struct sts_verifybd *v = ctx;
    return v->lower.ops->erase(v->lower.ctx, addr, len);
}
static int vb_flush(void *ctx)
{
    struct sts_verifybd *v = ctx;
    return v->lower.ops->flush(v->lower.ctx);
}
static void vb_geometry(void *ctx, struct sts_bd_geometry *g)
{
    struct sts_verifybd *v = ctx;
    v->lower.ops->geometry(v->lower.ctx, g);
}
static int vb_submit(void *ctx, struct sts_bd_req *req)
{
    struct sts_verifybd *v = ctx;
    return v->lower.ops->submit(v->lower.ctx, req);
}
/* the read-back of a program waits for the program's end: it is part of
 * that command for the caller, which sees the mismatch as its result */
static int vb_poll(void *ctx, struct sts_bd_req **done)
{
    struct sts_verifybd *v = ctx;
    int n = v->lower.ops->poll(v->lower.ctx, done);
    if (n > 0 && *done && (*done)->op == STS_BD_PROGRAM && (*done)->result == STS_OK)
        (*done)->result = read_back(v, (*done)->addr, (*done)->buf, (*done)->len);
    return n;
}
static int vb_erase_for(void *ctx, uint64_t addr, uint64_t len, uint64_t budget_ns, int *done)
{
    struct sts_verifybd *v = ctx;
    return v->lower.ops->erase_for(v->lower.ctx, addr, len, budget_ns, done);
}

void sts_verifybd_init(struct sts_verifybd *v, const struct sts_bd *lower, void *buf,
                       size_t buf_bytes, struct sts_bd *out)
{
    memset(v, 0, sizeof(*v));
    v->lower = *lower;
    v->buf = buf;
    v->buf_bytes = buf_bytes ? buf_bytes : 1;
    /* the lower device's optional paths stay visible only where it has them */
    int nb = lower->ops->submit && lower->ops->poll;
    v->ops = (struct sts_bd_ops){STS_BD_OPS_VERSION, vb_read, vb_program, vb_erase, vb_flush,
                                 vb_geometry, nb ? vb_submit : NULL, nb ? vb_poll : NULL,
                                 lower->ops->erase_for ? vb_erase_for : NULL, NULL};
    out->ops = &v->ops;
    out->ctx = v;
}
