/* The device model shared by every profile: timing, write cache, page-mapped
 * FTL with greedy garbage collection and static wear levelling (managed
 * media), erase-before-program (raw flash), a sparse data store. This file
 * holds what every part shares (geometry, the arena, helpers), the method
 * table and init; the parts, by concern, are in sim/: store.c (the data
 * store, and on the host its packed pages), ftl.c, cache.c, fault.c (power
 * cuts, injected and silent errors), clock.c (noise and device time), io.c
 * (the commands), nb.c (submit and poll). They are one translation unit: see any part's first lines. */
#include "storscope/sim.h"
#include "storscope/error.h"

#include <math.h>
#include <string.h>

/* Invariants the FTL and the data store rely on, checked in Debug builds
 * (the tests, ASan, TSan and the fuzzers define STS_DEBUG), as littlefs's
 * LFS_ASSERT; compiled out in release and on the MCU. */
#ifdef STS_DEBUG
#include <assert.h>
#define STS_ASSERT(c) assert(c)
#else
#define STS_ASSERT(c) ((void)0)
#endif

/* BLK_GROWN_BAD: raw flash, a block whose program failed for good: it
 * takes no more programs or erases, and the pages programmed before the
 * failure still read (as on NAND, where a grown bad block's data is copied
 * out before it is marked); the failed page reads as torn. BLK_BAD: a
 * factory bad block, or one whose erase failed: nothing of it reads.
 * BLK_LIAR: raw flash, a block gone bad that says nothing of it (faults'
 * `silent`): its programs and erases report success and change nothing,
 * and it reads what it held (littlefs's emulated PROGNOOP/ERASENOOP). */
enum { BLK_FREE, BLK_OPEN, BLK_FULL, BLK_BAD, BLK_GROWN_BAD, BLK_LIAR };
#define NONE UINT32_MAX
/* the command admitted now fails silently: it takes its time and changes
 * no data (never, in a build without the model's lies) */
#define LYING(s) (STS_SIM_DIRTY && (s)->lying)

/* ---- geometry --------------------------------------------------------- */
struct geo {
    uint32_t ppb, n_blocks, n_lpages, n_ppages, cache_cap, store_pages;
};

static void geometry(const struct sts_sim_params *p, struct geo *g)
{
    g->ppb = p->erase_bytes / p->page_bytes;
    g->n_lpages = (uint32_t)(p->capacity / p->page_bytes);
    uint32_t data_blocks = (g->n_lpages + g->ppb - 1) / g->ppb;
    if (p->managed) {
        uint32_t spare = (uint32_t)((uint64_t)data_blocks * p->op_permille / 1000);
        if (spare < p->gc_low_blocks + 2)
            spare = p->gc_low_blocks + 2; /* GC always finds room to copy into */
        g->n_blocks = data_blocks + spare;
    } else {
        g->n_blocks = data_blocks;
    }
    g->n_ppages = g->n_blocks * g->ppb;
    uint64_t cap = p->cache_bytes / p->page_bytes;
    g->cache_cap = p->managed ? (uint32_t)(cap > g->n_lpages ? g->n_lpages : cap) : 0;
    g->store_pages = p->managed ? g->n_lpages : g->n_ppages;
}

#define ALIGN8(x) (((x) + 7u) & ~(size_t)7u)
#define ALIGN8_64(x) (((x) + 7u) & ~(uint64_t)7u)

static uint32_t slots_for(const struct sts_sim_params *p, uint64_t keep_bytes, uint32_t pages)
{
    uint64_t slots = (keep_bytes + p->page_bytes - 1) / p->page_bytes;
    return (uint32_t)(slots > pages ? pages : slots);
}

#if STS_SIM_PACK
/* a store_map entry: slot + 1 of a raw page, or PACKED_BIT, class, index */
#define PACKED_BIT 0x80000000u
#define PACK_CLASS_SHIFT 26
#define PACK_INDEX_MASK ((1u << PACK_CLASS_SHIFT) - 1)
/* a page packed is put together here: a head and at most half a page */
#define PACK_BUF_BYTES(pb) (2u + (pb) / 2u)
#ifndef STS_SIM_ZSTD
#define STS_SIM_ZSTD 0 /* 1: the build links Debian's libzstd (CMakeLists.txt) */
#endif
#if STS_SIM_ZSTD
/* contexts placed in the arena (ZSTD_initStatic*: exported by Debian's
 * libzstd), so the model allocates nothing and has nothing to free */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>
#define PACK_ZSTD_LEVEL 1 /* (-1, its fast mode, took as long here and packed 14 % larger) */
static size_t zstd_cctx_bytes(uint32_t pb)
{
    return ZSTD_estimateCCtxSize_usingCParams(ZSTD_getCParams(PACK_ZSTD_LEVEL, pb, 0));
}
#endif

/* Packed pages (sim/store.c) on a 64-bit host, in pages large enough for
 * runs to pay: classes of slots from 32 B up to half a page, each 1.5 or
 * 4/3 times the one before, so a page wastes at most a third of its slot. */
static int pack_fits(const struct sts_sim_params *p, const struct geo *g, uint64_t keep_bytes)
{
    return sizeof(size_t) >= 8 && keep_bytes && p->page_bytes >= 2048 &&
           g->store_pages <= PACK_INDEX_MASK + 1u; /* indices 0 .. 2^26 - 1 */
}

static uint32_t pack_class_bytes(const struct sts_sim_params *p, uint32_t c)
{
    uint32_t b = (c & 1 ? 48u : 32u) << (c / 2);
    return b <= p->page_bytes / 2 ? b : 0; /* 0: no such class for this page */
}
#endif

static uint64_t arena_size(const struct sts_sim_params *p, uint64_t keep_bytes, int packed)
{
    struct geo g;
    geometry(p, &g);
    /* in 64 bits: a 4 GiB model that keeps its data needs more than a
     * 32-bit size_t holds (it wrapped, and the model overran its arena) */
    uint64_t n = ALIGN8_64((uint64_t)g.n_blocks * sizeof(struct sts_sim_block));
    n += ALIGN8_64(((uint64_t)g.store_pages + 7u) / 8u); /* torn pages */
    if (p->managed) {
        n += ALIGN8_64((uint64_t)g.n_lpages * 4) + ALIGN8_64((uint64_t)g.n_ppages * 4);
        n += ALIGN8_64(((uint64_t)g.ppb + 1) * 4);
        n += ALIGN8_64(((uint64_t)g.n_lpages + 7u) / 8u) + ALIGN8_64((uint64_t)g.cache_cap * 4);
    } else {
        n += ALIGN8_64(((uint64_t)g.n_ppages + 7u) / 8u);
    }
    if (keep_bytes) {
        uint32_t slots = slots_for(p, keep_bytes, g.store_pages);
        n += ALIGN8_64((uint64_t)g.store_pages * 4) + ALIGN8_64((uint64_t)slots * 4);
        n += (uint64_t)slots * p->page_bytes;
    }
#if STS_SIM_PACK
    if (packed && pack_fits(p, &g, keep_bytes)) {
        for (uint32_t c = 0; c < STS_SIM_PACK_CLASSES && pack_class_bytes(p, c); c++)
            n += ALIGN8_64((uint64_t)g.store_pages * 4) +
                 (uint64_t)g.store_pages * pack_class_bytes(p, c);
        n += STS_SIM_HOT_PAGES * 4 + 2 * ALIGN8_64(((uint64_t)g.store_pages + 7u) / 8u);
        n += p->page_bytes + ALIGN8_64(PACK_BUF_BYTES(p->page_bytes));
#if STS_SIM_ZSTD
        n += ALIGN8_64(zstd_cctx_bytes(p->page_bytes)) + ALIGN8_64(ZSTD_estimateDCtxSize());
#endif
    }
#else
    (void)packed;
#endif
    return n;
}

size_t sts_sim_arena_bytes(const struct sts_sim_params *p, uint64_t keep_bytes)
{
    uint64_t n = arena_size(p, keep_bytes, 0);
    return n > (uint64_t)SIZE_MAX ? SIZE_MAX : (size_t)n; /* SIZE_MAX: cannot be had */
}

#if STS_SIM_PACK
size_t sts_sim_arena_bytes_packed(const struct sts_sim_params *p, uint64_t keep_bytes)
{
    uint64_t n = arena_size(p, keep_bytes, 1);
    return n > (uint64_t)SIZE_MAX ? SIZE_MAX : (size_t)n;
}
#endif

int sts_sim_check(const struct sts_sim_params *p, const char **why)
{
    static const char *dummy;
    if (!why)
        why = &dummy;
    if (!p->sector_bytes || !p->page_bytes || !p->erase_bytes || !p->capacity)
        *why = "capacity, sector_bytes, page_bytes and erase_bytes must be non-zero";
    else if (p->page_bytes % p->sector_bytes)
        *why = "page_bytes must be a multiple of sector_bytes";
    else if (p->erase_bytes % p->page_bytes)
        *why = "erase_bytes must be a multiple of page_bytes";
    else if (p->capacity % p->erase_bytes)
        *why = "capacity must be a multiple of erase_bytes";
    else if (p->erase_large_bytes && (p->erase_large_bytes % p->erase_bytes ||
                                      p->capacity % p->erase_large_bytes || !p->erase_large_ns))
        *why = "erase_large must be a multiple of erase_bytes dividing the capacity, "
               "with erase_large_time set (or erase_large=0)";
    else if (p->capacity / p->page_bytes >= UINT32_MAX / 2)
        *why = "capacity / page_bytes is too large";
    else if (!p->read_bw || !p->write_bw)
        *why = "read_bw and write_bw must be non-zero";
    else if ((p->au_bytes || p->open_aus) &&
             (!p->managed || !p->au_bytes || p->au_bytes % p->page_bytes ||
              p->open_aus > STS_SIM_MAX_OPEN_AUS))
        *why = "open_aus needs au (allocation units exist on managed media only; a "
               "multiple of page_bytes), and open_aus at most 16";
    else if (p->managed && p->capacity / p->erase_bytes < 4)
        *why = "a managed device needs at least 4 erase blocks";
    else
        return STS_OK;
    return STS_EINVAL;
}

/* ---- small helpers ----------------------------------------------------- */
/* Raw flash that erases to 0x00 is kept as if it erased to 0xFF, every byte
 * inverted on its way in and out: a program ANDs and a cut's bits go half
 * way in one form, and the host sees the chip's. */
static inline uint8_t erased_mask(const struct sts_sim *s)
{
    return STS_SIM_DIRTY && !s->p.managed && s->p.erases_to_zero ? 0xFF : 0x00;
}

static inline uint64_t xfer_ns(uint64_t bytes, uint64_t bw)
{
    return bytes * 1000000000ull / bw;
}

static inline int bit_get(const uint8_t *m, uint32_t i)
{
    return (m[i >> 3] >> (i & 7)) & 1;
}

static inline void bit_set(uint8_t *m, uint32_t i, int v)
{
    if (v)
        m[i >> 3] |= (uint8_t)(1u << (i & 7));
    else
        m[i >> 3] &= (uint8_t)~(1u << (i & 7));
}

/* Heavy-tailed erase time: Pareto with shape alpha, scale erase_ns, capped. */
static uint64_t erase_time(struct sts_sim *s, uint64_t typical)
{
    if (!s->p.erase_tail_x100)
        return typical;
    double u = ((double)(sts_rng_next(&s->rng) >> 11) + 1.0) / 9007199254740993.0;
    double x = pow(u, -100.0 / (double)s->p.erase_tail_x100);
    double cap = s->p.erase_tail_cap ? (double)s->p.erase_tail_cap : 100.0;
    if (x > cap)
        x = cap;
    return (uint64_t)((double)typical * x);
}

/* the model by concern, one translation unit (see each part) */
#include "sim/store.c"
#include "sim/ftl.c"
#include "sim/cache.c"
#include "sim/fault.c"
#include "sim/clock.c"
#include "sim/io.c"
#include "sim/nb.c"

static void sim_geometry(void *ctx, struct sts_bd_geometry *g)
{
    struct sts_sim *s = ctx;
    g->capacity = s->p.capacity;
    g->read_size = s->p.sector_bytes;
    g->prog_size = s->p.managed ? s->p.sector_bytes : s->p.page_bytes;
    g->page_size = s->p.page_bytes;
    g->erase_size = s->p.erase_bytes;
    g->erase_large_size = s->p.managed ? 0 : s->p.erase_large_bytes;
    g->flags = (s->store_map ? STS_BD_KEEPS_DATA : 0) | (s->p.managed ? 0 : STS_BD_NEEDS_ERASE) |
               (!s->p.managed && !s->p.prog_ands ? STS_BD_PROGRAM_ONCE : 0) |
               (!s->p.managed && s->p.prog_ands && s->p.no_ecc ? STS_BD_PROGRAM_BYTES : 0) |
               (erased_mask(s) ? STS_BD_ERASES_TO_ZERO : 0);
}

static const struct sts_bd_ops sim_bd_ops = {
    .version = STS_BD_OPS_VERSION,
    .read = sim_read,
    .program = sim_program,
    .erase = sim_erase,
    .flush = sim_flush,
    .geometry = sim_geometry,
    .submit = sim_submit,
    .poll = sim_poll,
    .erase_for = sim_erase_for,
    .idle = sim_idle,
};

static uint64_t sim_now(void *ctx)
{
    return ((struct sts_sim *)ctx)->now_ns;
}
static const struct sts_clock_ops sim_clock_ops = {sim_now};

void sts_sim_clock(struct sts_sim *s, struct sts_clock *clock)
{
    clock->ops = &sim_clock_ops;
    clock->ctx = s;
}

static void *take(uint8_t **cur, size_t *left, size_t bytes, int zeroed)
{
    bytes = ALIGN8(bytes);
    if (bytes > *left)
        return NULL;
    void *p = *cur;
    if (!zeroed)
        memset(p, 0, bytes);
    *cur += bytes;
    *left -= bytes;
    return p;
}

static int sim_init(struct sts_sim *s, const struct sts_sim_params *p, uint64_t seed, void *arena,
                    size_t arena_bytes, uint64_t keep_bytes, struct sts_bd *bd, int zeroed)
{
    if (sts_sim_check(p, NULL))
        return STS_EINVAL;
    if (arena_bytes < sts_sim_arena_bytes(p, keep_bytes))
        return STS_ENOMEM;
    struct geo g;
    geometry(p, &g);
    memset(s, 0, sizeof(*s));
    s->p = *p;
    sts_rng_seed(&s->rng, seed);
    sts_rng_seed(&s->noise_rng, sts_mix64(seed ^ 0x6e6f697365ull)); /* "noise" */
    s->pages_per_block = g.ppb;
    s->n_blocks = g.n_blocks;
    s->n_lpages = g.n_lpages;
    s->n_ppages = g.n_ppages;
    s->open_block = NONE;
    s->last_read_end = UINT64_MAX;
    uint8_t *cur = (uint8_t *)(((uintptr_t)arena + 7u) & ~(uintptr_t)7u);
    size_t left = arena_bytes - (size_t)(cur - (uint8_t *)arena);
    s->blocks = take(&cur, &left, (size_t)g.n_blocks * sizeof(struct sts_sim_block), zeroed);
    s->torn = take(&cur, &left, (g.store_pages + 7u) / 8u, zeroed);
    if (p->managed) {
        s->l2p = take(&cur, &left, (size_t)g.n_lpages * 4, zeroed);
        s->p2l = take(&cur, &left, (size_t)g.n_ppages * 4, zeroed);
        s->dirty = take(&cur, &left, (g.n_lpages + 7u) / 8u, zeroed);
        s->cache_cap = g.cache_cap;
        s->cache_fifo = take(&cur, &left, (size_t)g.cache_cap * 4, zeroed);
        s->by_valid = take(&cur, &left, (size_t)(g.ppb + 1) * 4, zeroed);
        for (uint32_t v = 0; v <= g.ppb; v++)
            s->by_valid[v] = NONE;
        s->free_head = s->free_tail = NONE;
        for (uint32_t b = 0; b < g.n_blocks; b++)
            free_push(s, b);
    } else {
        s->programmed = take(&cur, &left, (g.n_ppages + 7u) / 8u, zeroed);
        /* factory bad blocks, at positions the seed decides */
        for (uint32_t b = 0; b < g.n_blocks; b++)
            if (p->bad_permille && sts_rng_below(&s->rng, 1000) < p->bad_permille)
                s->blocks[b].state = BLK_BAD;
    }
    if (keep_bytes) {
        s->store_map = take(&cur, &left, (size_t)g.store_pages * 4, zeroed);
        s->store_slots = slots_for(p, keep_bytes, g.store_pages);
        s->store_owner = take(&cur, &left, (size_t)s->store_slots * 4, zeroed);
        s->store = cur; /* not cleared: slots are initialised when taken */
    }
#if STS_SIM_PACK
    if (pack_fits(p, &g, keep_bytes) && arena_bytes >= arena_size(p, keep_bytes, 1)) {
        /* the arena has room for packed pages, after the raw slots */
        cur += (size_t)s->store_slots * p->page_bytes;
        left -= (size_t)s->store_slots * p->page_bytes;
        for (uint32_t c = 0; c < STS_SIM_PACK_CLASSES && pack_class_bytes(p, c); c++) {
            s->pack_bytes[c] = pack_class_bytes(p, c);
            s->pack_owner[c] = take(&cur, &left, (size_t)g.store_pages * 4, zeroed);
            s->pack_slots[c] = take(&cur, &left, (size_t)g.store_pages * s->pack_bytes[c], 1);
            s->pack_classes = c + 1;
        }
        s->hot = take(&cur, &left, STS_SIM_HOT_PAGES * 4, zeroed);
        s->hot_bits = take(&cur, &left, (g.store_pages + 7u) / 8u, zeroed);
        s->pack_tried = take(&cur, &left, (g.store_pages + 7u) / 8u, zeroed);
        s->pack_ops = take(&cur, &left, p->page_bytes, zeroed);
        s->pack_buf = take(&cur, &left, PACK_BUF_BYTES(p->page_bytes), zeroed);
#if STS_SIM_ZSTD
        size_t zc = zstd_cctx_bytes(p->page_bytes), zd = ZSTD_estimateDCtxSize();
        s->pack_zc = ZSTD_initStaticCCtx(take(&cur, &left, zc, zeroed), zc);
        s->pack_zd = ZSTD_initStaticDCtx(take(&cur, &left, zd, zeroed), zd);
#endif
    }
#endif
    s->ops = sim_bd_ops;
    if (p->managed || !p->erase_suspend_ns)
        s->ops.erase_for = NULL; /* the chip cannot suspend an erase */
    bd->ops = &s->ops;
    bd->ctx = s;
    return STS_OK;
}

int sts_sim_init(struct sts_sim *s, const struct sts_sim_params *p, uint64_t seed, void *arena,
                 size_t arena_bytes, uint64_t keep_bytes, struct sts_bd *bd)
{
    return sim_init(s, p, seed, arena, arena_bytes, keep_bytes, bd, 0);
}

int sts_sim_init_zeroed(struct sts_sim *s, const struct sts_sim_params *p, uint64_t seed,
                        void *arena, size_t arena_bytes, uint64_t keep_bytes, struct sts_bd *bd)
{
    return sim_init(s, p, seed, arena, arena_bytes, keep_bytes, bd, 1);
}

int sts_sim_prefill(struct sts_sim *s, uint32_t permille)
{
    if (!s->p.managed)
        return STS_ENOTSUP;
    uint32_t n = (uint32_t)((uint64_t)s->n_lpages * permille / 1000);
    int stalled = 0;
    for (uint32_t lp = 0; lp < n; lp++)
        (void)program_lpage(s, lp, &stalled); /* set-up: takes no virtual time */
    memset(&s->n, 0, sizeof(s->n));
    return STS_OK;
}

#if STS_SIM_PACK
void sts_sim_set_pack(struct sts_sim *s, int on, uint64_t seed)
{
    s->pack_on = on && s->pack_buf;
    s->pack_seed = seed;
    s->pack_from = STS_SIM_PACK_FROM;
}

uint64_t sts_sim_store_bytes(const struct sts_sim *s)
{
    uint64_t n = (uint64_t)s->store_used * s->p.page_bytes;
    for (uint32_t c = 0; c < s->pack_classes; c++)
        n += (uint64_t)s->pack_used[c] * s->pack_bytes[c];
    return n;
}
#endif
