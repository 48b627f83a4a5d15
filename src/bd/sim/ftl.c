/* Part of the device model (src/bd/sim.c includes it): the page-mapped FTL of managed media: greedy garbage collection, static wear levelling, the spare pool.
 * The model's parts are one translation unit, so their static functions
 * inline across them as they did in one file; the Cortex-M33 engine
 * budget (scripts/footprint.sh) counts on it. Not compiled on its own. */
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
