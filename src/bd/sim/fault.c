/* Part of the device model (src/bd/sim.c includes it): faults: power cuts (torn pages, half-done bits on NOR), injected errors, silent failures.
 * The model's parts are one translation unit, so their static functions
 * inline across them as they did in one file; the Cortex-M33 engine
 * budget (scripts/footprint.sh) counts on it. Not compiled on its own. */
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
        uint8_t r = (uint8_t)(sts_rng_next(&s->rng) >> 32), d = data ? data[i] ^ erased_mask(s) : 0;
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
    if (STS_SIM_DIRTY)
        s->lying = 0;
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
    if (STS_SIM_DIRTY && s->f.silent && kind != 'r') { /* the data stays as it was: nothing is torn */
        if (s->f.permanent && !s->p.managed)
            s->blocks[addr / s->p.erase_bytes].state = BLK_LIAR;
        s->lying = 1;
        return STS_OK;
    }
    if (s->f.permanent) {
        /* the page it was programming: unreadable behind ECC; on NOR without
         * it the bytes programmed before read as they were, and the failed
         * program's are not there (a failed cell does not undo its
         * neighbours, and no read there fails) */
        if (s->p.managed || (kind == 'w' && !s->p.no_ecc))
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
