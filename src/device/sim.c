/* The device model shared by every profile: timing, write cache, page-mapped
 * FTL with greedy garbage collection and static wear levelling (managed
 * media), erase-before-program (raw flash), a sparse data store. */
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
/* admit()'s answer for a program or erase that reports success and does
 * nothing (a silent failure): not an error code, which are negative */
#define SIM_NOOP 1
#define NONE UINT32_MAX

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

size_t sts_sim_arena_bytes(const struct sts_sim_params *p, uint64_t keep_bytes)
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
    return n > (uint64_t)SIZE_MAX ? SIZE_MAX : (size_t)n; /* SIZE_MAX: cannot be had */
}

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

/* ---- sparse data store -------------------------------------------------- */
static uint8_t *store_get(struct sts_sim *s, uint32_t page, int create, int *fresh)
{
    *fresh = 0;
    if (!s->store_map)
        return NULL;
    uint32_t slot = s->store_map[page];
    if (slot)
        return s->store + (size_t)(slot - 1) * s->p.page_bytes;
    if (!create)
        return NULL;
    if (s->store_used == s->store_slots)
        return NULL; /* caller reports ENOMEM */
    slot = ++s->store_used; /* used slots are kept dense: 1..store_used */
    s->store_map[page] = slot;
    s->store_owner[slot - 1] = page;
    *fresh = 1;
    return s->store + (size_t)(slot - 1) * s->p.page_bytes;
}

static void store_drop(struct sts_sim *s, uint32_t page)
{
    if (!s->store_map || !s->store_map[page])
        return;
    uint32_t slot = s->store_map[page];
    STS_ASSERT(slot <= s->store_used && s->store_owner[slot - 1] == page);
    s->store_map[page] = 0;
    /* move the last used slot into the hole so used slots stay dense */
    uint32_t last = s->store_used--;
    if (slot != last) {
        uint32_t owner = s->store_owner[last - 1];
        memcpy(s->store + (size_t)(slot - 1) * s->p.page_bytes,
               s->store + (size_t)(last - 1) * s->p.page_bytes, s->p.page_bytes);
        s->store_map[owner] = slot;
        s->store_owner[slot - 1] = owner;
    }
}

/* ---- FTL --------------------------------------------------------------- */
static uint64_t erase_block(struct sts_sim *s, uint32_t b);

/* Full blocks sit in one list per valid count, so the greedy victim is found
 * in O(pages per block) and a page invalidation costs O(1). */
static void full_unlink(struct sts_sim *s, uint32_t b)
{
    struct sts_sim_block *blk = &s->blocks[b];
    if (blk->prev != NONE)
        s->blocks[blk->prev].next = blk->next;
    else
        s->by_valid[blk->valid] = blk->next;
    if (blk->next != NONE)
        s->blocks[blk->next].prev = blk->prev;
    blk->prev = blk->next = NONE;
}

static void full_link(struct sts_sim *s, uint32_t b)
{
    struct sts_sim_block *blk = &s->blocks[b];
    blk->prev = NONE;
    blk->next = s->by_valid[blk->valid];
    if (blk->next != NONE)
        s->blocks[blk->next].prev = b;
    s->by_valid[blk->valid] = b;
}

/* Free blocks are used in FIFO order: every block takes its turn, which
 * spreads erases (dynamic wear levelling) in O(1). */
static void free_push(struct sts_sim *s, uint32_t b)
{
    s->blocks[b].state = BLK_FREE;
    s->blocks[b].next = NONE;
    if (s->free_tail != NONE)
        s->blocks[s->free_tail].next = b;
    else
        s->free_head = b;
    s->free_tail = b;
    s->free_blocks++;
}

static uint32_t free_pop(struct sts_sim *s)
{
    uint32_t b = s->free_head;
    if (b == NONE)
        return NONE;
    s->free_head = s->blocks[b].next;
    if (s->free_head == NONE)
        s->free_tail = NONE;
    STS_ASSERT(s->blocks[b].state == BLK_FREE && !s->blocks[b].valid);
    s->blocks[b].next = NONE;
    s->free_blocks--;
    return b;
}

static uint32_t alloc_ppage(struct sts_sim *s)
{
    uint32_t b = s->open_block;
    if (b == NONE || s->blocks[b].next_page == s->pages_per_block) {
        if (b != NONE) {
            s->blocks[b].state = BLK_FULL;
            full_link(s, b);
        }
        b = free_pop(s);
        if (b == NONE)
            return NONE;
        s->blocks[b].state = BLK_OPEN;
        s->blocks[b].next_page = 0;
        s->open_block = b;
    }
    return b * s->pages_per_block + s->blocks[b].next_page++;
}

static void unmap(struct sts_sim *s, uint32_t lp)
{
    uint32_t pp = s->l2p[lp];
    if (!pp)
        return;
    pp--;
    STS_ASSERT(s->p2l[pp] == lp + 1); /* the two maps agree */
    s->p2l[pp] = 0;
    uint32_t b = pp / s->pages_per_block;
    STS_ASSERT(s->blocks[b].valid > 0);
    if (s->blocks[b].state == BLK_FULL) {
        full_unlink(s, b);
        s->blocks[b].valid--;
        full_link(s, b);
    } else {
        s->blocks[b].valid--;
    }
    s->l2p[lp] = 0;
}

/* Places a logical page on a fresh physical page; returns the time. */
static uint64_t place(struct sts_sim *s, uint32_t lp)
{
    uint32_t pp = alloc_ppage(s);
    if (pp == NONE)
        return 0; /* cannot happen: spare blocks exceed gc_low_blocks */
    unmap(s, lp);
    STS_ASSERT(!s->p2l[pp]); /* a fresh page holds nothing */
    s->l2p[lp] = pp + 1;
    s->p2l[pp] = lp + 1;
    s->blocks[pp / s->pages_per_block].valid++;
    STS_ASSERT(s->blocks[pp / s->pages_per_block].valid <=
               s->blocks[pp / s->pages_per_block].next_page);
    s->n.pages_programmed++;
    return s->p.page_prog_ns;
}

/* Moves every valid page out of block b, then erases it. */
static uint64_t evacuate(struct sts_sim *s, uint32_t b, uint64_t *copied)
{
    uint64_t t = 0;
    if (s->blocks[b].state == BLK_FULL) {
        full_unlink(s, b);
        s->blocks[b].state = BLK_OPEN; /* being emptied: not a victim any more */
    }
    uint32_t base = b * s->pages_per_block;
    for (uint32_t i = 0; i < s->pages_per_block && s->blocks[b].valid; i++) {
        uint32_t lp = s->p2l[base + i];
        if (lp) {
            t += s->p.page_read_ns + place(s, lp - 1);
            (*copied)++;
        }
    }
    STS_ASSERT(!s->blocks[b].valid); /* nothing valid is erased */
    return t + erase_block(s, b);
}

static uint64_t wear_level(struct sts_sim *s)
{
    uint32_t cold = NONE;
    for (uint32_t b = 0; b < s->n_blocks; b++)
        if (s->blocks[b].state == BLK_FULL && s->blocks[b].valid &&
            (cold == NONE || s->blocks[b].erases < s->blocks[cold].erases))
            cold = b;
    if (cold == NONE)
        return 0;
    uint64_t copied = 0;
    s->n.wl_moves++;
    return evacuate(s, cold, &copied);
}

static uint64_t erase_block(struct sts_sim *s, uint32_t b)
{
    struct sts_sim_block *blk = &s->blocks[b];
    STS_ASSERT(blk->state != BLK_FREE); /* twice in the free list would hand it out twice */
    blk->erases++;
    blk->valid = 0;
    blk->next_page = 0;
    s->n.blocks_erased++;
    if (s->p.endurance && blk->erases >= s->p.endurance)
        blk->state = BLK_BAD; /* retired: the spare pool shrinks */
    else
        free_push(s, b);
    uint64_t t = erase_time(s, s->p.erase_ns);
    if (s->p.wl_every && ++s->erases_since_wl >= s->p.wl_every) {
        s->erases_since_wl = 0;
        t += wear_level(s);
    }
    return t;
}

static uint64_t collect_garbage(struct sts_sim *s)
{
    uint64_t t = 0;
    s->in_gc = 1;
    while (s->free_blocks < s->p.gc_low_blocks + 1) {
        uint32_t victim = NONE;
        for (uint32_t v = 0; v < s->pages_per_block && victim == NONE; v++)
            victim = s->by_valid[v]; /* greedy: the fewest valid pages */
        if (victim == NONE)
            break; /* every full block is entirely valid: nothing to gain */
        s->n.gc_runs++;
        t += evacuate(s, victim, &s->n.gc_pages_copied);
    }
    s->in_gc = 0;
    return t;
}

/* Programs a logical page to flash, collecting garbage when the pool is low. */
static uint64_t program_lpage(struct sts_sim *s, uint32_t lp, int *stalled)
{
    uint64_t t = place(s, lp);
    if (!s->in_gc && s->free_blocks < s->p.gc_low_blocks) {
        t += collect_garbage(s);
        *stalled = 1;
    }
    return t;
}

/* ---- write cache (managed) ---------------------------------------------- */
/* Takes the oldest cache entry; 1 with *lp set when that page is still dirty
 * (a trim or an earlier flush may have cleaned it), 0 otherwise. */
static int cache_pop_dirty(struct sts_sim *s, uint32_t *lp)
{
    *lp = s->cache_fifo[s->cache_head];
    s->cache_head = (s->cache_head + 1) % s->cache_cap;
    s->cache_len--;
    if (!bit_get(s->dirty, *lp))
        return 0;
    bit_set(s->dirty, *lp, 0);
    return 1;
}

static uint64_t cache_put(struct sts_sim *s, uint32_t lp, int *stalled)
{
    if (!s->cache_cap)
        return program_lpage(s, lp, stalled);
    if (bit_get(s->dirty, lp))
        return 0; /* absorbed by the cache */
    uint64_t t = 0;
    uint32_t old;
    while (s->cache_len == s->cache_cap) /* full: program the oldest */
        if (cache_pop_dirty(s, &old))
            t += program_lpage(s, old, stalled);
    s->cache_fifo[(s->cache_head + s->cache_len) % s->cache_cap] = lp;
    s->cache_len++;
    bit_set(s->dirty, lp, 1);
    return t;
}

static uint64_t cache_flush(struct sts_sim *s, int *stalled)
{
    uint64_t t = 0;
    uint32_t lp;
    while (s->cache_len)
        if (cache_pop_dirty(s, &lp))
            t += program_lpage(s, lp, stalled);
    return t;
}

/* ---- faults -------------------------------------------------------------- */
void sts_sim_set_faults(struct sts_sim *s, const struct sts_sim_faults *f)
{
    s->f = *f;
}

static void span_torn(struct sts_sim *s, uint64_t addr, uint64_t len, int torn);

static void mark_torn(struct sts_sim *s, uint64_t addr, uint64_t len)
{
    uint32_t pb = s->p.page_bytes;
    for (uint64_t pg = addr / pb; len && pg <= (addr + len - 1) / pb; pg++) {
        bit_set(s->torn, (uint32_t)pg, 1);
        s->n.pages_lost++;
    }
}

/* A chip without ECC (NOR) that loses power during a program or an erase
 * leaves the bits it was changing half-way, and reads them back without an
 * error: a program's zeros reached or not at random (where the data has a
 * 1 the cell is not programmed: it keeps what it held), an erase's ones
 * likewise; a program that had already gone in whole in the model (the
 * non-blocking path moves data at submit) gets back some of its zeros.
 * Drawn from the sim's seeded stream, so a cut is the same at each run. */
enum { CUT_PROGRAM, CUT_ERASE, CUT_APPLIED };
static void garble(struct sts_sim *s, int how, uint64_t addr, uint64_t len, const uint8_t *data)
{
    uint32_t pb = s->p.page_bytes;
    for (uint64_t i = 0; i < len; i++) {
        int fresh;
        uint32_t page = (uint32_t)((addr + i) / pb);
        uint8_t *b = store_get(s, page, 1, &fresh);
        if (!b)
            return; /* data not kept (or no room: the page reads blank) */
        if (fresh)
            memset(b, 0xff, pb);
        b += (addr + i) % pb;
        uint8_t r = (uint8_t)(sts_rng_next(&s->rng) >> 32), d = data ? data[i] : 0;
        *b = how == CUT_PROGRAM ? (uint8_t)(*b & (d | r))
             : how == CUT_ERASE ? (uint8_t)(*b | r)
                                : (uint8_t)(*b | (r & ~d));
        bit_set(s->programmed, page, 1);
    }
}

/* What a cut during a program or an erase leaves of [addr, addr + len). */
static void cut_short(struct sts_sim *s, int kind, uint64_t addr, uint64_t len)
{
    if (s->p.managed || !s->p.no_ecc || (kind == 'w' && !s->programming))
        mark_torn(s, addr, len);
    else
        garble(s, kind == 'e' ? CUT_ERASE : CUT_PROGRAM, addr, len, s->programming);
}

void sts_sim_set_noise(struct sts_sim *s, const struct sts_sim_noise *n)
{
    s->noise = *n;
    s->next_stall_ns = 0; /* drawn at the next command */
    s->drift_until_ns = 0;
}

void sts_sim_power_cut(struct sts_sim *s)
{
    int stalled = 0;
    if (s->p.plp) /* capacitors hold the power long enough to program the cache */
        (void)cache_flush(s, &stalled);
    /* otherwise the volatile cache is gone: its pages were never programmed */
    uint32_t lp;
    while (s->cache_len)
        if (cache_pop_dirty(s, &lp)) {
            bit_set(s->torn, lp, 1);
            s->n.pages_lost++;
        }
    /* a request still running on the non-blocking path dies with the power:
     * what it was writing is torn and it completes with an error, so a
     * caller polling for it is not left waiting */
    struct sts_bd_req *q = s->inflight;
    if (q && s->now_ns < s->inflight_done_ns) {
        if (q->op == STS_BD_PROGRAM && !s->p.managed && s->p.no_ecc)
            garble(s, CUT_APPLIED, q->addr, q->len, q->buf);
        else if (q->op == STS_BD_PROGRAM)
            mark_torn(s, q->addr, q->len);
        q->result = STS_EIO;
        s->inflight_done_ns = s->now_ns;
    }
    /* the chip forgets a suspended erase: its span stays torn (ECC), or
     * half-erased and reading blank (NOR without ECC: cells too weakly
     * erased to trust, which no read can tell) */
    if (s->susp_len && !s->p.managed && s->p.no_ecc)
        span_torn(s, s->susp_addr, s->susp_len, 0);
    s->susp_len = s->susp_left_ns = 0;
    s->off = 1;
    s->n.power_cuts++;
}

void sts_sim_power_on(struct sts_sim *s)
{
    s->off = 0;
    s->inflight = NULL; /* a fresh boot: no host request survives it */
    s->f.cut_after_ops = 0; /* a cut happens once */
    s->f.cut_at_ns = 0;
    s->last_read_end = UINT64_MAX;
}

/* Counts a command the host issued and decides whether the power goes
 * during it: 0 to go on, or STS_EIO (the device is off, or the cut comes
 * now). A write cut short tears what it was writing. Every command counts,
 * one to a bad block too, as storscope's device fault injection counts
 * them above the device: a power-cut sweep's k-th command is the same. */
static int power_gate(struct sts_sim *s, int kind, uint64_t addr, uint64_t len)
{
    if (s->off)
        return STS_EIO;
    s->host_ops++;
    if ((s->f.cut_after_ops && s->host_ops > s->f.cut_after_ops) ||
        (s->f.cut_at_ns && s->now_ns >= s->f.cut_at_ns)) {
        if (kind != 'r') /* a program or erase in progress leaves garbage behind */
            cut_short(s, kind, addr, len);
        sts_sim_power_cut(s);
        return STS_EIO;
    }
    return STS_OK;
}

/* Whether an injected error hits the command: 0 to go on, or STS_EIO. */
static int error_gate(struct sts_sim *s, int kind, uint64_t addr, uint64_t len)
{
    uint32_t ppm = kind == 'r' ? s->f.read_error_ppm
                   : kind == 'w' ? s->f.prog_error_ppm
                   : kind == 'e' ? s->f.erase_error_ppm : 0;
    if (!ppm || (s->f.error_hi && (addr >= s->f.error_hi || addr + len <= s->f.error_lo)))
        return STS_OK;
    if (sts_rng_below(&s->rng, 1000000) >= ppm)
        return STS_OK;
    s->n.injected_errors++;
    if (s->f.silent && kind != 'r') { /* the data stays as it was: nothing is torn */
        if (s->f.permanent && !s->p.managed)
            s->blocks[addr / s->p.erase_bytes].state = BLK_LIAR;
        return SIM_NOOP;
    }
    if (s->f.permanent) {
        /* the page it was programming: unreadable behind ECC; on NOR without
         * it, the bits half-way and the bytes programmed before intact, as a
         * cut leaves them (a failed cell does not undo its neighbours) */
        if (kind == 'w')
            cut_short(s, kind, addr, len ? len : 1);
        else if (s->p.managed)
            mark_torn(s, addr, len ? len : 1);
        if (!s->p.managed)
            s->blocks[addr / s->p.erase_bytes].state = kind == 'w' ? BLK_GROWN_BAD : BLK_BAD;
    }
    return STS_EIO;
}

/* Decides, before a command runs, whether it fails: the power, then an
 * injected error. */
static int fault_gate(struct sts_sim *s, int kind, uint64_t addr, uint64_t len)
{
    int rc = power_gate(s, kind, addr, len);
    return rc ? rc : error_gate(s, kind, addr, len);
}

static int torn_in(const struct sts_sim *s, uint64_t addr, size_t len)
{
    uint32_t pb = s->p.page_bytes;
    for (uint64_t pg = addr / pb; len && pg <= (addr + len - 1) / pb; pg++)
        if (bit_get(s->torn, (uint32_t)pg))
            return 1;
    return 0;
}

/* ---- commands ------------------------------------------------------------ */
#if STS_SIM_NOISE
/* A uniform draw in (0, 1]. */
static double unit_draw(struct sts_rng *r)
{
    return ((double)(sts_rng_next(r) >> 11) + 1.0) / 9007199254740992.0;
}

/* When the background stall after `now` comes: exponential gaps, a Poisson
 * process of stall_rate_millihz per 1000 s. */
static uint64_t next_stall(struct sts_sim *s, uint64_t now)
{
    double gap_s = -log(unit_draw(&s->noise_rng)) * 1000.0 / (double)s->noise.stall_rate_millihz;
    return now + (uint64_t)(gap_s * 1e9) + 1;
}

/* A lognormal factor of mean 1 and coefficient of variation cv_permille / 1000. */
static double lognormal(struct sts_rng *r, uint32_t cv_permille)
{
    double cv = cv_permille / 1000.0, var = log(1.0 + cv * cv);
    double z = sqrt(-2.0 * log(unit_draw(r))) * cos(6.283185307179586 * unit_draw(r)); /* Box-Muller */
    return exp(sqrt(var) * z - var / 2.0);
}

/* A command's time t with the device's noise: a lognormal factor (mean 1,
 * the given CV), the spell's speed, the slow mode of a bimodal device, and
 * a background stall when one came due. Noiseless devices draw nothing. */
static uint64_t noisy(struct sts_sim *s, uint64_t t)
{
    const struct sts_sim_noise *p = &s->noise;
    if (p->cv_permille && t)
        t = (uint64_t)((double)t * lognormal(&s->noise_rng, p->cv_permille));
    if (p->drift_cv_permille && p->drift_period_ns && t) {
        /* the command's work goes at each spell's speed while that spell
         * lasts: a command taking its start's factor alone would let the
         * commands shorter than a spell see fast spells more often than
         * slow ones (more of them start there) and the longer not, and
         * bend the curve by chunk size */
        double work = (double)t, took = 0;
        for (;;) {
            uint64_t at = s->now_ns + (uint64_t)took;
            if (at >= s->drift_until_ns) { /* a new spell, on the period's grid */
                s->drift_factor = (float)lognormal(&s->noise_rng, p->drift_cv_permille);
                s->drift_until_ns = (at / p->drift_period_ns + 1) * p->drift_period_ns;
            }
            double left = (double)(s->drift_until_ns - at), f = s->drift_factor;
            if (work * f <= left) {
                took += work * f;
                break;
            }
            took += left;
            work -= left / f;
        }
        t = (uint64_t)took;
    }
    if (p->bimodal_permille && sts_rng_below(&s->noise_rng, 1000) < p->bimodal_permille)
        t = t * p->bimodal_x100 / 100;
    if (p->stall_rate_millihz && p->stall_ns) {
        if (!s->next_stall_ns)
            s->next_stall_ns = next_stall(s, s->now_ns);
        if (s->now_ns + t >= s->next_stall_ns) { /* it came while this command ran */
            t += p->stall_ns;
            s->n.stalls++;
            s->next_stall_ns = next_stall(s, s->now_ns + t);
        }
    }
    return t;
}

#else
/* a firmware's model is noiseless (STS_SIM_NOISE, sim.h) */
static uint64_t noisy(struct sts_sim *s, uint64_t t)
{
    (void)s;
    return t;
}
#endif

/* len: the size of a write (the anomaly is a write-path one), else 0 */
static void charge(struct sts_sim *s, uint64_t t, size_t len, int stalled)
{
    t = noisy(s, t);
    if (s->p.dip_bytes && len == s->p.dip_bytes)
        t += t * s->p.dip_percent / 100;
    s->n.busy_ns += t;
    s->now_ns += t + s->p.cpu_ns;
    if (stalled)
        s->n.stalls++;
}

static int in_range(const struct sts_sim *s, uint64_t addr, uint64_t len)
{
    return addr <= s->p.capacity && len <= s->p.capacity - addr;
}

/* STS_EIO when the command touches a bad block, SIM_NOOP when a program
 * touches one that fails silently, else 0 */
static int bad_in(const struct sts_sim *s, int kind, uint64_t addr, uint64_t len)
{
    if (s->p.managed || !len)
        return 0;
    int rc = 0;
    for (uint64_t b = addr / s->p.erase_bytes; b <= (addr + len - 1) / s->p.erase_bytes; b++) {
        uint8_t st = s->blocks[b].state;
        if (st == BLK_BAD || (kind != 'r' && st == BLK_GROWN_BAD))
            return STS_EIO;
        if (kind != 'r' && st == BLK_LIAR)
            rc = SIM_NOOP;
    }
    return rc;
}

/* Sector-rounded span of a transfer: what crosses the bus. */
static uint64_t bus_bytes(const struct sts_sim *s, uint64_t addr, size_t len)
{
    uint64_t sb = s->p.sector_bytes;
    uint64_t lo = addr / sb * sb, hi = (addr + len + sb - 1) / sb * sb;
    return hi - lo;
}

/* The checks every data command passes first: in range, not on a bad
 * block, and not hit by an injected fault or a power cut. */
static int admit(struct sts_sim *s, int kind, uint64_t addr, size_t len)
{
    if (!in_range(s, addr, len))
        return STS_ERANGE;
    int rc = power_gate(s, kind, addr, len);
    if (rc)
        return rc;
    rc = bad_in(s, kind, addr, len);
    return rc ? rc : error_gate(s, kind, addr, len);
}

static int sim_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    struct sts_sim *s = ctx;
    int frc = admit(s, 'r', addr, len);
    if (frc)
        return frc;
    if (torn_in(s, addr, len))
        return STS_EIO; /* ECC cannot correct a torn or lost page */
    uint8_t *out = buf;
    uint32_t pb = s->p.page_bytes;
    uint64_t t = s->p.cmd_read_ns + xfer_ns(bus_bytes(s, addr, len), s->p.read_bw);
    if (addr != s->last_read_end)
        t += s->p.read_access_ns;
    if (len && s->p.read_page_cross_ns && addr / pb != (addr + len - 1) / pb)
        t += s->p.read_page_cross_ns; /* the second page is read after the first */
    uint64_t unit = s->p.au_bytes ? s->p.au_bytes : s->p.erase_bytes;
    if (len && s->p.read_unit_cross_ns && addr / unit != (addr + len - 1) / unit)
        t += s->p.read_unit_cross_ns; /* and looked up in another unit's map */
    uint8_t blank = s->p.managed ? 0x00 : 0xff;
    for (uint64_t off = 0; off < len;) {
        uint32_t page = (uint32_t)((addr + off) / pb), in = (uint32_t)((addr + off) % pb);
        size_t n = pb - in < len - off ? pb - in : (size_t)(len - off);
        int fresh;
        const uint8_t *src = store_get(s, page, 0, &fresh);
        if (src)
            memcpy(out + off, src + in, n);
        else
            memset(out + off, blank, n);
        if (!s->p.managed)
            t += s->p.page_read_ns; /* raw NAND: tR per page */
        off += n;
    }
    s->last_read_end = addr + len;
    s->n.reads++;
    s->n.bytes_read += len;
    charge(s, t, 0, 0);
    return STS_OK;
}

/* Erases whole blocks of [addr, addr + len) in the model (the data goes
 * now) and adds the time the chip takes to *t; STS_EIO when a block is bad
 * or wears out in it. */
static int erase_blocks(struct sts_sim *s, uint64_t addr, uint64_t len, uint64_t *t)
{
    uint32_t eb = s->p.erase_bytes;
    int rc = STS_OK;
    for (uint64_t b = addr / eb; b < (addr + len) / eb; b++) {
        struct sts_sim_block *blk = &s->blocks[b];
        if (blk->state == BLK_BAD || blk->state == BLK_GROWN_BAD) {
            rc = STS_EIO;
            continue;
        }
        if (blk->state == BLK_LIAR) { /* it takes the time and keeps its data */
            *t += erase_time(s, s->p.erase_ns);
            continue;
        }
        for (uint32_t i = 0; i < s->pages_per_block; i++) {
            uint32_t pg = (uint32_t)b * s->pages_per_block + i;
            bit_set(s->programmed, pg, 0);
            bit_set(s->torn, pg, 0);
            store_drop(s, pg);
        }
        blk->erases++;
        s->n.blocks_erased++;
        /* a block of the large erase is one command when the span covers it
         * whole: charged at its first sector */
        uint64_t lb = s->p.erase_large_bytes, at = b * eb, l0 = lb ? at / lb * lb : 0;
        if (lb && l0 >= addr && l0 + lb <= addr + len) {
            if (at == l0)
                *t += erase_time(s, s->p.erase_large_ns);
        } else {
            *t += erase_time(s, s->p.erase_ns);
        }
        if (s->p.endurance && blk->erases >= s->p.endurance) {
            blk->state = BLK_BAD; /* worn out: this erase failed */
            rc = STS_EIO;
        }
    }
    return rc;
}

/* Whole pages of a span: torn (reads fail) or not. */
static void span_torn(struct sts_sim *s, uint64_t addr, uint64_t len, int torn)
{
    uint32_t pb = s->p.page_bytes;
    for (uint64_t pg = addr / pb; pg < (addr + len) / pb; pg++)
        bit_set(s->torn, (uint32_t)pg, torn);
}

/* Resumes a suspended erase and waits for its end: what a driver does
 * before a command the chip does not take while one is suspended. */
static void finish_suspended(struct sts_sim *s)
{
    if (!s->susp_len)
        return;
    span_torn(s, s->susp_addr, s->susp_len, 0);
    charge(s, s->susp_left_ns, 0, 0);
    s->susp_len = s->susp_left_ns = 0;
}

static int suspended_in(const struct sts_sim *s, uint64_t addr, uint64_t len)
{
    return s->susp_len && addr < s->susp_addr + s->susp_len && s->susp_addr < addr + len;
}

static int copy_in(struct sts_sim *s, uint32_t page, uint32_t in, const uint8_t *src, size_t n,
                   int and_bits)
{
    int fresh;
    uint8_t *dst = store_get(s, page, 1, &fresh);
    if (!s->store_map)
        return STS_OK; /* data not kept */
    if (!dst)
        return STS_ENOMEM;
    if (fresh)
        memset(dst, s->p.managed ? 0x00 : 0xff, s->p.page_bytes);
    if (and_bits)
        for (size_t i = 0; i < n; i++)
            dst[in + i] &= src[i];
    else
        memcpy(dst + in, src, n);
    return STS_OK;
}

/* The controller writes into a few open AUs; a write to another closes
 * the least recently written one, copying the pages of it that were not
 * written since it was opened (a merge), which is what collapses a card
 * written in more places at once than it keeps open. */
static uint64_t au_touch(struct sts_sim *s, uint64_t addr, size_t len, int *stalled)
{
    uint64_t au = s->p.au_bytes, t = 0;
    if (!au || !s->p.open_aus || !len)
        return 0;
    uint64_t au_pages = au / s->p.page_bytes;
    for (uint64_t u = addr / au; u <= (addr + len - 1) / au; u++) {
        uint64_t lo = u * au > addr ? u * au : addr;
        uint64_t hi = (u + 1) * au < addr + len ? (u + 1) * au : addr + len;
        uint64_t pages = (hi - lo + s->p.page_bytes - 1) / s->p.page_bytes;
        uint32_t i = 0;
        while (i < s->au_n && s->au_open[i] != u)
            i++;
        if (i == s->au_n) {
            if (s->au_n < s->p.open_aus) {
                s->au_n++;
            } else {
                i = 0; /* close the least recently written */
                for (uint32_t j = 1; j < s->au_n; j++)
                    if (s->au_last[j] < s->au_last[i])
                        i = j;
                uint64_t left = s->au_used[i] < au_pages ? au_pages - s->au_used[i] : 0;
                t += left * ((uint64_t)s->p.page_read_ns + s->p.page_prog_ns);
                s->n.au_merges++;
                *stalled = 1;
            }
            s->au_open[i] = u;
            s->au_used[i] = 0;
        }
        s->au_used[i] += pages;
        s->au_last[i] = ++s->au_tick;
    }
    return t;
}

/* Raw flash: programming n bytes of one page. */
static uint64_t part_prog_ns(const struct sts_sim *s, size_t n)
{
    const struct sts_sim_params *p = &s->p;
    if (!p->byte_prog_ns || n >= p->page_bytes)
        return p->page_prog_ns;
    uint64_t t = p->byte_prog_ns + (uint64_t)(n - 1) * p->byte_prog_next_ns; /* (n >= 1) */
    return t < p->page_prog_ns ? t : p->page_prog_ns;
}

static int sim_program(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    struct sts_sim *s = ctx;
    s->programming = buf; /* what a cut now leaves half-programmed */
    int frc = admit(s, 'w', addr, len);
    s->programming = NULL;
    int noop = frc == SIM_NOOP; /* it takes its time and stores nothing */
    if (frc && !noop)
        return frc;
    const uint8_t *src = buf;
    uint32_t pb = s->p.page_bytes, sb = s->p.sector_bytes;
    uint64_t t = s->p.cmd_write_ns + xfer_ns(bus_bytes(s, addr, len), s->p.write_bw);
    int stalled = 0, rc = STS_OK;
    if (s->p.managed && len && (addr % sb || (addr + len) % sb)) {
        /* the host can only send whole sectors: read the partial one first */
        t += s->p.cmd_read_ns + xfer_ns(sb, s->p.read_bw);
        if (!bit_get(s->dirty, (uint32_t)(addr / pb)))
            t += s->p.page_read_ns;
    }
    if (suspended_in(s, addr, len))
        finish_suspended(s);
    t += au_touch(s, addr, len, &stalled);
    if (!s->p.managed) {
        /* raw flash: a programmed page takes no new data unless bits AND */
        for (uint64_t pg = addr / pb; len && pg <= (addr + len - 1) / pb; pg++)
            if (bit_get(s->programmed, (uint32_t)pg) && !s->p.prog_ands)
                return STS_EIO;
    }
    for (uint64_t off = 0; off < len && !rc;) {
        uint32_t page = (uint32_t)((addr + off) / pb), in = (uint32_t)((addr + off) % pb);
        size_t n = pb - in < len - off ? pb - in : (size_t)(len - off);
        if (noop) {
            t += s->p.managed ? 0 : part_prog_ns(s, n);
        } else if (s->p.managed) {
            /* a page written in part must first be read, unless it is cached */
            if (n < pb && s->l2p[page] && !bit_get(s->dirty, page))
                t += s->p.page_read_ns;
            if (bit_get(s->torn, page)) {
                if (n < pb) { /* the rest of the page cannot be read back */
                    rc = STS_EIO;
                    break;
                }
                bit_set(s->torn, page, 0);
            }
            rc = copy_in(s, page, in, src + off, n, 0);
            t += cache_put(s, page, &stalled);
        } else {
            int again = bit_get(s->programmed, page);
            rc = copy_in(s, page, in, src + off, n, again);
            bit_set(s->programmed, page, 1);
            s->n.pages_programmed++;
            t += part_prog_ns(s, n);
        }
        off += n;
    }
    s->n.programs++;
    s->n.bytes_written += len;
    charge(s, t, len, stalled);
    return rc;
}

static int sim_erase(void *ctx, uint64_t addr, uint64_t len)
{
    struct sts_sim *s = ctx;
    if (!in_range(s, addr, len))
        return STS_ERANGE;
    int frc = fault_gate(s, 'e', addr, len);
    if (frc && frc != SIM_NOOP)
        return frc;
    uint64_t t = s->p.cmd_write_ns;
    if (frc) { /* a silent failure: the time of the erase, and nothing erased */
        uint64_t eb = s->p.managed ? len + 1 : s->p.erase_bytes;
        for (uint64_t b = 0; b < len / eb; b++)
            t += erase_time(s, s->p.erase_ns);
        s->n.erases += !s->p.managed;
        charge(s, t, 0, 0);
        return STS_OK;
    }
    if (s->p.managed) { /* trim: whole pages stop holding data */
        uint32_t pb = s->p.page_bytes;
        for (uint64_t pg = (addr + pb - 1) / pb; (pg + 1) * pb <= addr + len; pg++) {
            unmap(s, (uint32_t)pg);
            if (s->dirty)
                bit_set(s->dirty, (uint32_t)pg, 0);
            bit_set(s->torn, (uint32_t)pg, 0);
            store_drop(s, (uint32_t)pg);
        }
        s->n.trims++;
        charge(s, t, 0, 0);
        return STS_OK;
    }
    uint32_t eb = s->p.erase_bytes;
    if (addr % eb || len % eb)
        return STS_EINVAL;
    finish_suspended(s);
    int rc = erase_blocks(s, addr, len, &t);
    s->n.erases++;
    charge(s, t, 0, 0);
    return rc;
}

/* The erase is done in the model when it starts (its span torn until the
 * chip would have finished), and the chip's time is paid out in slices. */
static int sim_erase_for(void *ctx, uint64_t addr, uint64_t len, uint64_t budget_ns, int *done)
{
    struct sts_sim *s = ctx;
    *done = 0;
    if (!in_range(s, addr, len))
        return STS_ERANGE;
    int resume = s->susp_len && s->susp_addr == addr && s->susp_len == len;
    int frc = fault_gate(s, 'e', addr, len);
    if (frc == SIM_NOOP && !resume) { /* a silent failure: done at once, nothing erased */
        charge(s, s->p.cmd_write_ns, 0, 0);
        *done = 1;
        return STS_OK;
    }
    if (frc && frc != SIM_NOOP)
        return frc;
    if (!resume) {
        uint32_t eb = s->p.erase_bytes;
        if (addr % eb || len % eb || !len)
            return STS_EINVAL;
        finish_suspended(s);
        uint64_t t = s->p.cmd_write_ns;
        int rc = erase_blocks(s, addr, len, &t);
        s->n.erases++;
        if (rc) { /* a bad or worn-out block fails the erase at once */
            charge(s, t, 0, 0);
            return rc;
        }
        span_torn(s, addr, len, 1);
        s->susp_addr = addr;
        s->susp_len = len;
        s->susp_left_ns = t;
    }
    uint64_t step = budget_ns && budget_ns < s->susp_left_ns ? budget_ns : s->susp_left_ns;
    s->susp_left_ns -= step;
    if (s->susp_left_ns) {
        charge(s, step + s->p.erase_suspend_ns, 0, 0);
        return STS_OK;
    }
    span_torn(s, addr, len, 0);
    s->susp_len = 0;
    charge(s, step, 0, 0);
    *done = 1;
    return STS_OK;
}

static int sim_flush(void *ctx)
{
    struct sts_sim *s = ctx;
    int frc = fault_gate(s, 'f', 0, 0);
    if (frc)
        return frc;
    int stalled = 0;
    uint64_t t = s->p.flush_ns;
    if (s->p.managed && s->cache_cap && !s->p.plp)
        t += cache_flush(s, &stalled);
    s->n.flushes++;
    charge(s, t, 0, stalled);
    return STS_OK;
}

/* Non-blocking path. submit() runs the command in the model at once (data
 * moves now) but rewinds the clock: the caller is not kept waiting; the
 * command completes at the virtual time it would have taken. Each poll()
 * costs poll_ns of the caller's time. */
static int sim_submit(void *ctx, struct sts_bd_req *req)
{
    struct sts_sim *s = ctx;
    if (s->inflight)
        return STS_EBUSY;
    uint64_t start = s->now_ns;
    if (req->op == STS_BD_READ)
        req->result = sim_read(s, req->addr, req->buf, req->len);
    else if (req->op == STS_BD_PROGRAM)
        req->result = sim_program(s, req->addr, req->buf, req->len);
    else
        return STS_EINVAL;
    s->inflight_done_ns = s->now_ns;
    s->now_ns = start + s->p.cpu_ns; /* only the submission itself */
    s->inflight = req;
    return STS_OK;
}

static int sim_poll(void *ctx, struct sts_bd_req **done)
{
    struct sts_sim *s = ctx;
    *done = NULL;
    s->now_ns += s->p.poll_ns ? s->p.poll_ns : 1000;
    if (!s->inflight || s->now_ns < s->inflight_done_ns)
        return 0;
    *done = s->inflight;
    s->inflight = NULL;
    return 1;
}

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
               (!s->p.managed && s->p.prog_ands && s->p.no_ecc ? STS_BD_PROGRAM_BYTES : 0);
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
