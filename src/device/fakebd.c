/* fakebd.h: a card that claims more than it holds. */
#include "storscope/fakebd.h"
#include "storscope/error.h"

#include <string.h>

/* Each command is cut where it crosses a multiple of the real size, and
 * each piece goes to its place in the real medium (or nowhere). */
struct io {
    uint8_t *in;        /* read: where the data goes */
    const uint8_t *out; /* program: where it comes from */
};
typedef int (*piece_fn)(struct sts_fakebd *f, uint64_t at, struct io *io, uint64_t n, int beyond);

static int split(struct sts_fakebd *f, uint64_t addr, struct io io, uint64_t len, piece_fn fn)
{
    if (addr > f->claimed || len > f->claimed - addr)
        return STS_ERANGE;
    while (len) {
        uint64_t in = addr % f->real, n = f->real - in < len ? f->real - in : len;
        int rc = fn(f, in, &io, n, addr >= f->real);
        if (rc)
            return rc;
        addr += n;
        len -= n;
        io.in = io.in ? io.in + n : NULL;
        io.out = io.out ? io.out + n : NULL;
    }
    return STS_OK;
}

static int read_piece(struct sts_fakebd *f, uint64_t at, struct io *io, uint64_t n, int beyond)
{
    if (beyond && f->lost) { /* nothing there: the card answers zeros */
        memset(io->in, 0, (size_t)n);
        return STS_OK;
    }
    return f->lower.ops->read(f->lower.ctx, at, io->in, (size_t)n);
}
static int program_piece(struct sts_fakebd *f, uint64_t at, struct io *io, uint64_t n, int beyond)
{
    if (beyond && f->lost)
        return STS_OK; /* accepted, and gone */
    return f->lower.ops->program(f->lower.ctx, at, io->out, (size_t)n);
}
static int erase_piece(struct sts_fakebd *f, uint64_t at, struct io *io, uint64_t n, int beyond)
{
    (void)io;
    if (beyond && f->lost)
        return STS_OK;
    return f->lower.ops->erase(f->lower.ctx, at, n);
}

static int fk_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    return split(ctx, addr, (struct io){buf, NULL}, len, read_piece);
}
static int fk_program(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    return split(ctx, addr, (struct io){NULL, buf}, len, program_piece);
}
static int fk_erase(void *ctx, uint64_t addr, uint64_t len)
{
    return split(ctx, addr, (struct io){NULL, NULL}, len, erase_piece);
}
static int fk_flush(void *ctx)
{
    struct sts_fakebd *f = ctx;
    return f->lower.ops->flush(f->lower.ctx);
}
static void fk_geometry(void *ctx, struct sts_bd_geometry *g)
{
    struct sts_fakebd *f = ctx;
    f->lower.ops->geometry(f->lower.ctx, g);
    g->capacity = f->claimed; /* what the card's registers say */
}

static const struct sts_bd_ops fake_ops = {
    .read = fk_read, .program = fk_program, .erase = fk_erase, .flush = fk_flush,
    .geometry = fk_geometry,
};

int sts_fakebd_init(struct sts_fakebd *f, const struct sts_bd *lower, uint64_t claimed,
                    int lost, struct sts_bd *out)
{
    struct sts_bd_geometry g;
    memset(&g, 0, sizeof(g));
    lower->ops->geometry(lower->ctx, &g);
    if (!g.capacity || g.capacity >= claimed || !g.erase_size || g.capacity % g.erase_size)
        return STS_EINVAL;
    f->lower = *lower;
    f->claimed = claimed;
    f->real = g.capacity;
    f->lost = lost;
    out->ops = &fake_ops;
    out->ctx = f;
    return STS_OK;
}
