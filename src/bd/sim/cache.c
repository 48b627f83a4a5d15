/* Part of the device model (src/bd/sim.c includes it): the volatile write cache of managed media.
 * The model's parts are one translation unit, so their static functions
 * inline across them as they did in one file; the Cortex-M33 engine
 * budget (scripts/footprint.sh) counts on it. Not compiled on its own. */
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
