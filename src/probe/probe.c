/* probe.h: fake capacity and open allocation units, found by writing, and
 * the undo log that puts back what they overwrote (geometry by read timing:
 * probe_geometry.c). */
#include "storscope/probe.h"
#include "storscope/error.h"
#include "storscope/rng.h"
#include "probe_internal.h"

#include <string.h>


/* The unit written: a whole erase block on raw flash (it must be erased
 * first), else 4 KiB or the program unit if larger. */
static uint64_t block_of(const struct sts_bd_geometry *g)
{
    if (g->flags & STS_BD_NEEDS_ERASE)
        return g->erase_size;
    return g->prog_size > 4096 ? g->prog_size : 4096;
}

/* ---- undo log: [data][addr u64][len u32] per entry, walked from the end - */
#define UNDO_TAIL 12u

static int save(const struct sts_probe_env *e, uint64_t addr, uint64_t len)
{
    struct sts_probe_undo *u = e->undo;
    if (!u || !u->mem)
        return STS_OK;
    if (u->cap - u->used < len + UNDO_TAIL)
        return STS_ENOMEM;
    uint8_t *at = u->mem + u->used;
    int rc = e->bd.ops->read(e->bd.ctx, addr, at, (size_t)len);
    if (rc == STS_EIO) /* unreadable already: nothing to put back but the place */
        memset(at, 0xFF, (size_t)len);
    else if (rc)
        return rc;
    uint32_t l32 = (uint32_t)len;
    memcpy(at + len, &addr, 8);
    memcpy(at + len + 8, &l32, 4);
    u->used += len + UNDO_TAIL;
    return STS_OK;
}


/* Writes one block: erased first where the medium needs it. */
static int put(const struct sts_probe_env *e, uint64_t addr, const uint8_t *data, uint64_t len)
{
    struct sts_bd_geometry g;
    probe_device_geometry(e, &g);
    if (g.flags & STS_BD_NEEDS_ERASE) {
        int rc = e->bd.ops->erase(e->bd.ctx, addr, len);
        if (rc)
            return rc;
    }
    return e->bd.ops->program(e->bd.ctx, addr, data, (size_t)len);
}

int sts_probe_undo(const struct sts_probe_env *e)
{
    struct sts_probe_undo *u = e->undo;
    int first_rc = STS_OK;
    while (u && u->mem && u->used >= UNDO_TAIL) {
        uint64_t addr;
        uint32_t len;
        memcpy(&addr, u->mem + u->used - UNDO_TAIL, 8);
        memcpy(&len, u->mem + u->used - 4, 4);
        u->used -= UNDO_TAIL + len;
        int rc = put(e, addr, u->mem + u->used, len);
        if (rc && !first_rc)
            first_rc = rc; /* go on: put back as much as can be */
    }
    if (!first_rc)
        first_rc = e->bd.ops->flush(e->bd.ctx);
    return first_rc;
}

/* ---- stamps ------------------------------------------------------------ */
/* A block's bytes follow from (address, run nonce, generation): its own
 * address at its start, so a block found elsewhere names where it was
 * written. */
static void stamp(uint8_t *b, uint64_t len, uint64_t addr, uint64_t nonce, uint64_t gen)
{
    memcpy(b, &addr, 8);
    memcpy(b + 8, &nonce, 8);
    memcpy(b + 16, &gen, 8);
    uint64_t x = sts_mix64(addr ^ nonce ^ (gen << 48));
    for (uint64_t i = 24; i + 8 <= len; i += 8) {
        x = sts_mix64(x + i);
        memcpy(b + i, &x, 8);
    }
}

/* What a block read back holds: 1 = its own stamp, 0 = something else;
 * *from = the address a stamp of this run names (UINT64_MAX: none). */
static int check(const uint8_t *got, uint8_t *scratch, uint64_t len, uint64_t addr,
                 uint64_t nonce, uint64_t *from)
{
    uint64_t a, n, gen;
    memcpy(&a, got, 8);
    memcpy(&n, got + 8, 8);
    memcpy(&gen, got + 16, 8);
    *from = UINT64_MAX;
    if (n != nonce)
        return 0;
    stamp(scratch, len, a, nonce, gen);
    if (memcmp(scratch, got, (size_t)len))
        return 0;
    *from = a;
    return a == addr;
}

/* ---- fake capacity ----------------------------------------------------- */
struct fake_run {
    const struct sts_probe_env *e;
    struct sts_probe_fake *out;
    uint64_t blk, nonce, gen;
    uint8_t *w, *r;
    /* a controller cache that answers reads of recent writes: the place
     * whose rewriting pushes it out, and how much of it to rewrite (0: no
     * cache seen, a block read back at once is the medium's) */
    uint64_t evict_at, evict_bytes, evict_saved;
};

/* Writes [addr, addr + len), every block stamped with its own address. */
static int write_span(struct fake_run *f, uint64_t addr, uint64_t len)
{
    if (probe_stopped(f->e))
        return STS_EINTR;
    int rc = save(f->e, addr, len);
    if (rc)
        return rc;
    for (uint64_t o = 0; o < len; o += f->blk)
        stamp(f->w + o, f->blk, addr + o, f->nonce, ++f->gen);
    f->out->blocks_written += (uint32_t)(len / f->blk);
    rc = put(f->e, addr, f->w, len);
    if (rc == STS_EIO)
        f->out->bad_blocks++;
    return rc;
}

static int write_stamp(struct fake_run *f, uint64_t addr)
{
    return write_span(f, addr, f->blk);
}

/* Pushes what the last writes left in a cache out of it: `bytes` written
 * at evict_at, in spans, saved for --preserve once (the same place each
 * time). */
static int evict(struct fake_run *f, uint64_t bytes)
{
    uint64_t span = STS_PROBE_MAX_BLOCK / f->blk * f->blk;
    for (uint64_t o = 0; o < bytes; o += span) {
        uint64_t n = bytes - o < span ? bytes - o : span, a = f->evict_at + o;
        if (probe_stopped(f->e))
            return STS_EINTR;
        if (o + n > f->evict_saved) {
            int rc = save(f->e, a, n);
            if (rc)
                return rc;
            f->evict_saved = o + n;
        }
        for (uint64_t k = 0; k < n; k += f->blk)
            stamp(f->w + k, f->blk, a + k, f->nonce, ++f->gen);
        f->out->blocks_written += (uint32_t)(n / f->blk);
        f->out->evict_bytes_written += n;
        int rc = put(f->e, a, f->w, n);
        if (rc && rc != STS_EIO)
            return rc;
    }
    return STS_OK;
}

/* Reads a span; the verdict on its block k: 1 own stamp, 0 not, <0 error;
 * *from as check() */
static int read_span(struct fake_run *f, uint64_t addr, uint64_t len)
{
    f->out->blocks_read += (uint32_t)(len / f->blk);
    int rc = f->e->bd.ops->read(f->e->bd.ctx, addr, f->r, (size_t)len);
    if (rc == STS_EIO)
        f->out->bad_blocks++;
    return rc;
}

static int verdict(struct fake_run *f, uint64_t addr, uint64_t k, uint64_t *from)
{
    return check(f->r + k * f->blk, f->w, f->blk, addr + k * f->blk, f->nonce, from);
}

/* Reads one block back, first pushing a cache's copy of it out. */
static int read_stamp(struct fake_run *f, uint64_t addr, uint64_t *from)
{
    int rc = f->evict_bytes ? evict(f, f->evict_bytes) : STS_OK;
    if (!rc)
        rc = read_span(f, addr, f->blk);
    if (rc) {
        *from = UINT64_MAX;
        return rc;
    }
    return verdict(f, addr, 0, from);
}

/* Whether the block at `first`, written before `probe`, reads back as
 * itself although the medium cannot hold it (lost writes: first = probe,
 * beyond the real size; aliasing: probe lands on first): a cache answers.
 * Then the rewrite that pushes it out is sized by doubling, from a block
 * up to STS_PROBE_CACHE_MAX (f3probe's find_cache_size does the same, from
 * the other end). */
static int find_cache(struct fake_run *f, uint64_t first, uint64_t probe, uint64_t room)
{
    uint64_t from;
    int rc = STS_OK, own = 1;
    uint64_t x = 0, top = room < STS_PROBE_CACHE_MAX ? room : STS_PROBE_CACHE_MAX;
    top = top / f->blk * f->blk;
    while (own == 1) {
        if (x > top) { /* larger than the probe will push: it can only say so */
            f->out->cache_bytes = UINT64_MAX;
            f->evict_bytes = top;
            return STS_OK;
        }
        rc = first != probe ? write_stamp(f, first) : STS_OK;
        if (!rc)
            rc = write_stamp(f, probe);
        if (!rc && x)
            rc = evict(f, x);
        if (!rc)
            rc = read_span(f, first, f->blk);
        if (rc)
            return rc;
        own = verdict(f, first, 0, &from);
        if (own == 1)
            x = x ? 2 * x : f->blk;
    }
    /* x pushed it out (0: nothing held it); twice that for the margin */
    f->out->cache_bytes = x;
    f->evict_bytes = x ? (2 * x < top ? 2 * x : top) : 0;
    return STS_OK;
}

/* Lost writes: a block at or beyond the real size does not read back.
 * Between the last good sample and the first bad one, by bisection. */
static int narrow_lost(struct fake_run *f, uint64_t good, uint64_t bad, uint64_t *real)
{
    /* a cache is pushed out by rewriting what lies beyond `bad`: lost
     * writes, never read again */
    uint64_t room = f->out->claimed_bytes - bad - f->blk;
    f->evict_at = bad + f->blk;
    int rc = find_cache(f, bad, bad, room);
    if (rc)
        return rc;
    while (bad - good > f->blk) {
        uint64_t mid = good + (bad - good) / 2 / f->blk * f->blk;
        uint64_t from;
        rc = write_stamp(f, mid);
        if (rc && rc != STS_EIO)
            return rc;
        rc = rc ? 0 : read_stamp(f, mid, &from);
        if (rc < 0 && rc != STS_EIO)
            return rc;
        if (rc == 1)
            good = mid;
        else
            bad = mid;
    }
    *real = bad;
    return STS_OK;
}

/* Wrap-around: D = (where a stamp was written) - (where it was found) is a
 * multiple of the real size R. R is the smallest divisor R' of D (in
 * blocks) for which a write at R' lands on address 0. */
static int narrow_alias(struct fake_run *f, uint64_t d, uint64_t *real)
{
    /* a cache is pushed out by rewriting from the second block on: below
     * the real size unless the card is smaller than the rewrite */
    f->evict_at = f->blk;
    int rc = find_cache(f, 0, d, d - f->blk);
    if (rc)
        return rc;
    uint64_t units = d / f->blk;
    for (uint64_t j = units; j >= 1; j--) { /* largest j first: smallest R' */
        if (units % j)
            continue;
        uint64_t cand = d / j, from;
        if (cand >= f->out->claimed_bytes)
            continue;
        rc = write_stamp(f, 0);
        if (!rc)
            rc = write_stamp(f, cand);
        if (rc)
            return rc;
        rc = read_stamp(f, 0, &from);
        if (rc < 0)
            return rc;
        if (rc == 0 && from == cand) {
            *real = cand;
            return STS_OK;
        }
    }
    *real = d;
    return STS_OK;
}

/* The samples, ascending: [0, prefix) in spans of `span` bytes, then one
 * block every grid, then the last block. *len = the span's bytes;
 * UINT64_MAX after the last. */
static uint64_t next_sample(uint64_t a, uint64_t *len, const struct fake_run *f, uint64_t prefix,
                            uint64_t grid, uint64_t span, uint64_t last)
{
    if (a == last)
        return UINT64_MAX;
    uint64_t n = a < prefix ? a + *len : a + grid;
    n = n > last ? last : n;
    *len = n < prefix ? (prefix - n < span ? prefix - n : span) : f->blk;
    return n;
}

int sts_probe_fake(const struct sts_probe_env *e, struct sts_probe_fake *out)
{
    struct sts_bd_geometry g;
    probe_device_geometry(e, &g);
    memset(out, 0, sizeof(*out));
    struct fake_run f = {e, out, block_of(&g), sts_mix64(e->seed ^ 0xF3F3F3F3ull), 0, e->buf,
                         NULL, 0, 0, 0};
    if (!g.capacity || f.blk > STS_PROBE_MAX_BLOCK || e->buf_bytes < 2 * STS_PROBE_MAX_BLOCK ||
        g.capacity < 4 * f.blk)
        return STS_EINVAL;
    f.r = e->buf + STS_PROBE_MAX_BLOCK;
    out->claimed_bytes = g.capacity;
    out->block_bytes = f.blk;
    /* The prefix is written in large commands, the grid a block at a time
     * in far-apart places - on a card that keeps few AUs open each of
     * those pays a merge - so the grid has at most ~256 points. */
    uint64_t grid = f.blk;
    while ((g.capacity / grid > 256 || grid < 4 * f.blk) && grid * 2 <= g.capacity / 4)
        grid *= 2;
    /* The prefix is written last and, on a managed medium, at least
     * STS_PROBE_CACHE_MAX long (up to a quarter of the device), so a controller cache that answers
     * reads of recent writes holds none of the grid's when they are read
     * back: f3's "write all, then read all, the cache exceeded". Written
     * first, a 1 MiB cache made a lost-writes fake look genuine. */
    uint64_t prefix = grid, quarter = g.capacity / 4 / grid * grid;
    while (!(g.flags & STS_BD_NEEDS_ERASE) && prefix < STS_PROBE_CACHE_MAX &&
           prefix + grid <= quarter) /* (raw flash has no controller to cache) */
        prefix += grid;
    uint64_t span = STS_PROBE_MAX_BLOCK / f.blk * f.blk;
    span = span < grid ? span : grid;
    out->grid_bytes = grid;
    out->prefix_bytes = prefix;
    uint64_t t0 = sts_clock_now(&e->clock);
    int rc = STS_OK;
    uint64_t last = (g.capacity - f.blk) / f.blk * f.blk, len;
    for (int pass = 0; pass < 2 && !rc; pass++) { /* the grid, then the prefix */
        len = span;
        for (uint64_t a = 0; a != UINT64_MAX && !rc;
             a = next_sample(a, &len, &f, prefix, grid, span, last)) {
            if ((a < prefix) != (pass == 1))
                continue;
            rc = write_span(&f, a, len);
            rc = rc == STS_EIO ? STS_OK : rc; /* a bad block: skipped, counted */
        }
    }
    if (!rc)
        rc = e->bd.ops->flush(e->bd.ctx);
    /* read back: the first sample that is not itself, and the shortest
     * distance between where a stamp was written and where it was found */
    uint64_t good = 0, bad = 0, moved = 0;
    int seen_bad = 0;
    len = span;
    for (uint64_t a = 0; a != UINT64_MAX && !rc;
         a = next_sample(a, &len, &f, prefix, grid, span, last)) {
        int r = read_span(&f, a, len);
        if (r == STS_EIO)
            continue;
        rc = r;
        for (uint64_t k = 0; !rc && k < len / f.blk; k++) {
            uint64_t from, at = a + k * f.blk;
            int own = verdict(&f, a, k, &from);
            if (own == 1) {
                good = seen_bad ? good : at;
            } else if (from != UINT64_MAX && from != at) {
                /* another block's stamp: the two share a place, whichever
                 * was written last (the prefix, written after the grid,
                 * can be the one a wrapped sample shows) */
                uint64_t d = from > at ? from - at : at - from;
                moved = !moved || d < moved ? d : moved;
            } else if (!seen_bad) {
                seen_bad = 1;
                bad = at;
            }
        }
    }
    uint64_t real = g.capacity;
    if (!rc && moved) {
        out->kind = STS_FAKE_ALIAS;
        rc = narrow_alias(&f, moved, &real);
    } else if (!rc && seen_bad) {
        out->kind = STS_FAKE_LOST;
        rc = narrow_lost(&f, good, bad, &real);
    }
    out->usable_bytes = real;
    out->device_ns = sts_clock_now(&e->clock) - t0;
    return rc;
}

/* ---- open allocation units -------------------------------------------- */
static void sort_u64(uint64_t *v, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++)
        for (uint32_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            uint64_t t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
}

#define ROUNDS 8 /* measured rounds, after one that opens the AUs */

struct au_run {
    const struct sts_probe_env *e;
    struct sts_probe_au *out;
    uint64_t base, next; /* each trial starts in fresh space: base + next */
    uint64_t capacity;
    uint64_t align;      /* a trial starts on a multiple of this (0: anywhere) */
};

/* n streams spaced `spacing` apart write w bytes each in turn, `rounds`
 * rounds after one that opens their AUs; the median of the measured
 * writes. */
static int streams(struct au_run *r, uint32_t n, uint64_t spacing, uint32_t rounds,
                   uint64_t *median)
{
    uint64_t w = r->out->write_bytes, t[ROUNDS * (STS_PROBE_MAX_STREAMS + 1)];
    uint64_t run = (uint64_t)(rounds + 1) * w; /* what each stream writes */
    if (n > 1 && run > spacing)
        return STS_ENOSPC;        /* the streams would run into each other */
    uint64_t span = n > 1 ? (uint64_t)n * spacing : (run > spacing ? run : spacing);
    uint64_t start = r->base + r->next;
    if (r->align)
        start = (start + r->align - 1) / r->align * r->align;
    if (start + span > r->capacity) {
        r->next = 0; /* wrap to the start of the probed span */
        start = r->base;
    }
    if (start + span > r->capacity)
        return STS_ENOSPC;
    uint32_t k = 0;
    memset(r->e->buf, 0xA5, (size_t)w);
    for (uint32_t round = 0; round <= rounds; round++)
        for (uint32_t s = 0; s < n; s++) {
            uint64_t at = start + s * spacing + round * w;
            if (probe_stopped(r->e))
                return STS_EINTR;
            int rc = save(r->e, at, w);
            if (rc)
                return rc;
            uint64_t t0 = sts_clock_now(&r->e->clock);
            rc = r->e->bd.ops->program(r->e->bd.ctx, at, r->e->buf, (size_t)w);
            if (rc)
                return rc;
            r->out->writes++;
            if (round && k < sizeof(t) / sizeof(t[0]))
                t[k++] = sts_clock_now(&r->e->clock) - t0;
        }
    sort_u64(t, k);
    *median = t[k / 2];
    /* the next trial writes past these regions, starting on a boundary */
    r->next = start - r->base + (span + spacing - 1) / spacing * spacing;
    return STS_OK;
}

/* n streams against one stream writing as much in a row: a write cache
 * that fills, or anything else that depends on how much was written,
 * slows both alike; only switching between AUs slows the n streams.
 * 1 when they collapsed. */
static int collapsed(struct au_run *r, uint32_t n, uint64_t spacing, int *out_rc)
{
    uint64_t m, base;
    /* as many rounds as fit the spacing (a stream must not run into the
     * next), so spacings down to a few writes can be tried: AUs of 128 KiB
     * were reported as 512 KiB when 8 rounds of 16 KiB bounded the search */
    uint64_t fit = spacing / r->out->write_bytes;
    uint32_t rounds = fit > ROUNDS ? ROUNDS : fit > 1 ? (uint32_t)fit - 1 : 0;
    if (rounds < 2) {
        *out_rc = STS_ENOSPC;
        return 0;
    }
    int rc = streams(r, n, spacing, rounds, &m);
    if (!rc)
        rc = streams(r, 1, spacing, n * (rounds + 1) - 1, &base);
    *out_rc = rc;
    if (rc)
        return 0;
    r->out->median_ns[n] = r->out->median_ns[n] ? r->out->median_ns[n] : m;
    r->out->single_ns[n] = r->out->single_ns[n] ? r->out->single_ns[n] : base;
    return m > STS_PROBE_COLLAPSE_FACTOR * (base ? base : 1);
}

int sts_probe_open_aus(const struct sts_probe_env *e, struct sts_probe_au *out)
{
    struct sts_bd_geometry g;
    probe_device_geometry(e, &g);
    memset(out, 0, sizeof(*out));
    if (g.flags & STS_BD_NEEDS_ERASE)
        return STS_ENOTSUP; /* raw flash: no controller keeps anything open */
    uint64_t w = g.page_size > 16384 ? g.page_size : 16384;
    if (w > e->buf_bytes || w > STS_PROBE_MAX_BLOCK)
        return STS_EINVAL;
    if (e->usable_bytes && e->usable_bytes < g.capacity)
        g.capacity = e->usable_bytes; /* beyond it, a counterfeit's writes are not real */
    out->write_bytes = w;
    /* far apart: the largest power of two that fits every stream twice */
    uint64_t spacing = 1ull << 30;
    while (spacing > w * 64 && spacing * (STS_PROBE_MAX_STREAMS + 1) * 2 > g.capacity)
        spacing /= 2;
    if (spacing * (STS_PROBE_MAX_STREAMS + 1) > g.capacity)
        return STS_EINVAL; /* too small to tell */
    out->spacing_bytes = spacing;
    struct au_run r = {e, out, 0, 0, g.capacity, 0};
    uint64_t t0 = sts_clock_now(&e->clock);
    int rc = STS_OK;
    for (uint32_t n = 1; n <= STS_PROBE_MAX_STREAMS && !rc; n++) {
        int c = collapsed(&r, n, spacing, &rc);
        if (rc)
            break;
        out->streams_tried = n;
        if (c) {
            out->limited = 1;
            out->open_aus = n - 1;
            break;
        }
        out->open_aus = n;
    }
    /* the AU: halve the spacing until open_aus + 1 streams stop collapsing
     * (they share AUs then); down to a few writes apart (AUs under 512 KiB
     * were reported as 512 KiB when the search stopped at 16 writes) */
    if (!rc && out->limited && out->open_aus) {
        uint32_t n = out->open_aus + 1;
        for (uint64_t d = spacing / 2; d >= w * 3 && !rc; d /= 2) {
            out->au_bytes = d * 2;
            if (!collapsed(&r, n, d, &rc))
                break;
        }
        if (rc == STS_ENOSPC) /* too close to tell apart: smaller than that, not found */
            out->au_bytes = 0, rc = STS_OK;
        /* SD's AUs above 4 MiB include 12 and 24 MiB (3 x 2^k): the halving
         * brackets them between powers of two and said the one above (au=3M
         * gave 4 MiB). Three quarters of it, from a start aligned to both
         * (12 x the quarter): each stream in its own AU only if that is the
         * AU; a power-of-two AU puts the first two streams in one. */
        uint64_t q = out->au_bytes / 4;
        if (!rc && out->au_bytes && q % w == 0 && 3 * q >= w * 3) {
            r.align = 12 * q;
            if (collapsed(&r, n, 3 * q, &rc))
                out->au_bytes = 3 * q;
            rc = rc == STS_ENOSPC ? STS_OK : rc; /* no room to tell: the power of two */
            r.align = 0;
        }
        if (rc)
            out->au_bytes = 0;
    }
    out->device_ns = sts_clock_now(&e->clock) - t0;
    return rc;
}
