/* fakebd.h: a card that claims more than it holds. */
#include "storscope/fakebd.h"
#include "storscope/error.h"
#include "storscope/rng.h"

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

/* ---- the controller's cache: a ring of the last blocks written, found
 * by address through an open hash (linear probing) ---- */
#define CB STS_FAKEBD_CACHE_BLOCK
#define NO_SLOT UINT32_MAX

static uint32_t home(const struct sts_fakebd *f, uint64_t a)
{
    return (uint32_t)(sts_mix64(a) & (f->cache_slots - 1));
}

static uint32_t slot_of(const struct sts_fakebd *f, uint64_t a)
{
    for (uint32_t i = home(f, a);; i = (i + 1) & (f->cache_slots - 1)) {
        uint32_t b = f->cache_index[i];
        if (!b)
            return NO_SLOT;
        if (f->cache_addr[b - 1] == a)
            return i;
    }
}

/* Empties slot i, moving up the entries after it that probed past it. */
static void unindex(struct sts_fakebd *f, uint32_t i)
{
    uint32_t mask = f->cache_slots - 1;
    f->cache_index[i] = 0;
    for (uint32_t j = (i + 1) & mask; f->cache_index[j]; j = (j + 1) & mask) {
        uint32_t h = home(f, f->cache_addr[f->cache_index[j] - 1]);
        /* it may fill i unless its home lies cyclically in (i, j] */
        if (i <= j ? h <= i || h > j : h <= i && h > j) {
            f->cache_index[i] = f->cache_index[j];
            f->cache_index[j] = 0;
            i = j;
        }
    }
}

static void cache_drop(struct sts_fakebd *f, uint64_t a)
{
    uint32_t i = slot_of(f, a);
    if (i != NO_SLOT) {
        f->cache_addr[f->cache_index[i] - 1] = UINT64_MAX;
        unindex(f, i);
    }
}

static void cache_put(struct sts_fakebd *f, uint64_t a, const uint8_t *data)
{
    /* rewritten while cached: it becomes the newest (its old place in the
     * ring is left empty), as a controller keeps what was written last */
    cache_drop(f, a);
    uint32_t i, b = f->cache_next;
    f->cache_next = (b + 1) % f->cache_n;
    if (f->cache_addr[b] != UINT64_MAX) /* the oldest block leaves */
        cache_drop(f, f->cache_addr[b]);
    f->cache_addr[b] = a;
    memcpy(f->cache + (size_t)b * CB, data, CB);
    for (i = home(f, a); f->cache_index[i]; i = (i + 1) & (f->cache_slots - 1))
        ;
    f->cache_index[i] = b + 1;
}

static int fk_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    struct sts_fakebd *f = ctx;
    int rc = split(f, addr, (struct io){buf, NULL}, len, read_piece);
    /* the newest copy of a cached block comes from the controller's RAM */
    for (uint64_t a = addr / CB * CB; !rc && f->cache_n && a < addr + len; a += CB) {
        uint32_t i = slot_of(f, a);
        if (i == NO_SLOT)
            continue;
        uint64_t lo = a > addr ? a : addr, hi = a + CB < addr + len ? a + CB : addr + len;
        memcpy((uint8_t *)buf + (lo - addr),
               f->cache + (size_t)(f->cache_index[i] - 1) * CB + (lo - a), (size_t)(hi - lo));
    }
    return rc;
}
static int fk_program(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    struct sts_fakebd *f = ctx;
    int rc = split(f, addr, (struct io){NULL, buf}, len, program_piece);
    for (uint64_t a = addr / CB * CB; !rc && f->cache_n && a < addr + len; a += CB) {
        if (a >= addr && a + CB <= addr + len)
            cache_put(f, a, (const uint8_t *)buf + (a - addr));
        else
            cache_drop(f, a); /* part of it: the controller keeps no stale copy */
    }
    return rc;
}
static int fk_erase(void *ctx, uint64_t addr, uint64_t len)
{
    struct sts_fakebd *f = ctx;
    int rc = split(f, addr, (struct io){NULL, NULL}, len, erase_piece);
    for (uint32_t b = 0; !rc && b < f->cache_n; b++)
        if (f->cache_addr[b] != UINT64_MAX && f->cache_addr[b] + CB > addr &&
            f->cache_addr[b] < addr + len)
            cache_drop(f, f->cache_addr[b]);
    return rc;
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
    .version = STS_BD_OPS_VERSION,
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
    memset(f, 0, sizeof(*f));
    f->lower = *lower;
    f->claimed = claimed;
    f->real = g.capacity;
    f->lost = lost;
    out->ops = &fake_ops;
    out->ctx = f;
    return STS_OK;
}

static uint32_t slots_for(uint64_t blocks)
{
    uint32_t s = 1;
    while (s < 2 * blocks)
        s <<= 1;
    return s;
}

size_t sts_fakebd_cache_bytes(uint64_t bytes)
{
    uint64_t n = bytes / CB;
    if (!n || n > UINT32_MAX / 4)
        return 0;
    return (size_t)(n * (8 + CB) + (uint64_t)slots_for(n) * 4);
}

int sts_fakebd_set_cache(struct sts_fakebd *f, void *mem, uint64_t bytes)
{
    if (!mem || bytes % CB || !sts_fakebd_cache_bytes(bytes))
        return STS_EINVAL;
    f->cache_n = (uint32_t)(bytes / CB);
    f->cache_slots = slots_for(f->cache_n);
    f->cache_next = 0;
    f->cache_addr = mem;
    f->cache = (uint8_t *)mem + (size_t)f->cache_n * 8;
    f->cache_index = (uint32_t *)(void *)(f->cache + (size_t)f->cache_n * CB);
    memset(f->cache_addr, 0xFF, (size_t)f->cache_n * 8);
    memset(f->cache_index, 0, (size_t)f->cache_slots * 4);
    return STS_OK;
}
