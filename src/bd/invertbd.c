/* invertbd.h: bytes inverted on their way to and from the chip. */
#include "storscope/invertbd.h"

#include <string.h>

static void invert(uint8_t *dst, const uint8_t *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = (uint8_t)~src[i];
}

static int ib_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    struct sts_invertbd *v = ctx;
    int rc = v->lower.ops->read(v->lower.ctx, addr, buf, len);
    if (!rc)
        invert(buf, buf, len);
    return rc;
}
static int ib_program(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    struct sts_invertbd *v = ctx;
    const uint8_t *src = buf;
    int rc = 0;
    for (size_t off = 0; off < len && !rc;) {
        size_t n = len - off < v->buf_bytes ? len - off : v->buf_bytes;
        invert(v->buf, src + off, n);
        rc = v->lower.ops->program(v->lower.ctx, addr + off, v->buf, n);
        off += n;
    }
    return rc;
}
static int ib_erase(void *ctx, uint64_t addr, uint64_t len)
{
    struct sts_invertbd *v = ctx;
    return v->lower.ops->erase(v->lower.ctx, addr, len);
}
static int ib_flush(void *ctx)
{
    struct sts_invertbd *v = ctx;
    return v->lower.ops->flush(v->lower.ctx);
}
static void ib_geometry(void *ctx, struct sts_bd_geometry *g)
{
    struct sts_invertbd *v = ctx;
    v->lower.ops->geometry(v->lower.ctx, g);
    g->flags &= ~(uint32_t)STS_BD_ERASES_TO_ZERO;
}
static int ib_erase_for(void *ctx, uint64_t addr, uint64_t len, uint64_t budget_ns, int *done)
{
    struct sts_invertbd *v = ctx;
    return v->lower.ops->erase_for(v->lower.ctx, addr, len, budget_ns, done);
}

void sts_invertbd_init(struct sts_invertbd *v, const struct sts_bd *lower, void *buf,
                       size_t buf_bytes, struct sts_bd *out)
{
    memset(v, 0, sizeof(*v));
    v->lower = *lower;
    v->buf = buf;
    v->buf_bytes = buf_bytes ? buf_bytes : 1;
    v->ops = (struct sts_bd_ops){STS_BD_OPS_VERSION, ib_read, ib_program, ib_erase, ib_flush,
                                 ib_geometry, NULL, NULL,
                                 lower->ops->erase_for ? ib_erase_for : NULL, NULL};
    out->ops = &v->ops;
    out->ctx = v;
}
