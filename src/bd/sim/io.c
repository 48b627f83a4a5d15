/* Part of the device model (src/bd/sim.c includes it): the commands: read, program, erase (raw flash: bad blocks, erase suspend), flush.
 * The model's parts are one translation unit, so their static functions
 * inline across them as they did in one file; the Cortex-M33 engine
 * budget (scripts/footprint.sh) counts on it. Not compiled on its own. */
static int in_range(const struct sts_sim *s, uint64_t addr, uint64_t len)
{
    return addr <= s->p.capacity && len <= s->p.capacity - addr;
}

/* 1 when the command touches a bad block; a program into one that fails
 * silently is let through, lying */
static int bad_in(struct sts_sim *s, int kind, uint64_t addr, uint64_t len)
{
    if (s->p.managed || !len)
        return 0;
    for (uint64_t b = addr / s->p.erase_bytes; b <= (addr + len - 1) / s->p.erase_bytes; b++) {
        uint8_t st = s->blocks[b].state;
        if (st == BLK_BAD || (kind != 'r' && st == BLK_GROWN_BAD))
            return 1;
        s->lying |= STS_SIM_DIRTY && kind != 'r' && st == BLK_LIAR;
    }
    return 0;
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
    if (bad_in(s, kind, addr, len))
        return STS_EIO;
    return error_gate(s, kind, addr, len);
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
        if (!store_read(s, page, in, n, out + off))
            memset(out + off, blank, n);
        if (!s->p.managed)
            t += s->p.page_read_ns; /* raw NAND: tR per page */
        off += n;
    }
    if (erased_mask(s)) /* kept as if erased to 0xFF: read as the chip holds it */
        for (size_t i = 0; i < len; i++)
            out[i] ^= 0xFF;
    s->last_read_end = addr + len;
    s->n.reads++;
    s->n.bytes_read += len;
    DRAWS(s, STS_SIM_E_READ);
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
        /* a block that lies, or an erase that does: its time, and the data kept */
        if ((STS_SIM_DIRTY && blk->state == BLK_LIAR) || LYING(s)) {
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
    DRAWS(s, STS_SIM_E_ERASE);
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
    if (LYING(s))
        return STS_OK; /* a program that fails silently */
    uint8_t *dst = store_get(s, page, 1, &fresh);
    if (!s->store_map)
        return STS_OK; /* data not kept */
    if (!dst)
        return STS_ENOMEM;
    if (fresh)
        memset(dst, s->p.managed ? 0x00 : 0xff, s->p.page_bytes);
    uint8_t mask = erased_mask(s);
    if (and_bits || mask)
        for (size_t i = 0; i < n; i++)
            dst[in + i] = (uint8_t)((and_bits ? dst[in + i] : 0xFF) & (src[i] ^ mask));
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
    if (frc)
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
        if (s->p.managed) {
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
            bit_set(s->programmed, page, again || !LYING(s)); /* a lie leaves it as it was */
            s->n.pages_programmed++;
            t += part_prog_ns(s, n);
        }
        off += n;
    }
    s->n.programs++;
    s->n.bytes_written += len;
    DRAWS(s, STS_SIM_E_PROGRAM);
    charge(s, t, len, stalled);
    return rc;
}

static int sim_erase(void *ctx, uint64_t addr, uint64_t len)
{
    struct sts_sim *s = ctx;
    if (!in_range(s, addr, len))
        return STS_ERANGE;
    int frc = fault_gate(s, 'e', addr, len);
    if (frc)
        return frc;
    uint64_t t = s->p.cmd_write_ns;
    if (s->p.managed) { /* trim: whole pages stop holding data */
        uint32_t pb = s->p.page_bytes;
        for (uint64_t pg = (addr + pb - 1) / pb; !LYING(s) && (pg + 1) * pb <= addr + len; pg++) {
            unmap(s, (uint32_t)pg);
            if (s->dirty)
                bit_set(s->dirty, (uint32_t)pg, 0);
            bit_set(s->torn, (uint32_t)pg, 0);
            store_drop(s, (uint32_t)pg);
        }
        s->n.trims++;
        DRAWS(s, STS_SIM_E_PROGRAM);
        charge(s, t, 0, 0);
        return STS_OK;
    }
    uint32_t eb = s->p.erase_bytes;
    if (addr % eb || len % eb)
        return STS_EINVAL;
    finish_suspended(s);
    int rc = erase_blocks(s, addr, len, &t);
    s->n.erases++;
    DRAWS(s, STS_SIM_E_ERASE);
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
    if (frc)
        return frc;
    DRAWS(s, STS_SIM_E_ERASE);
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
    DRAWS(s, STS_SIM_E_PROGRAM);
    charge(s, t, 0, stalled);
    return STS_OK;
}
