/* Part of the device model (src/bd/sim.c includes it): the sparse data
 * store. Only pages written hold memory; on a 64-bit host (STS_SIM_PACK)
 * a page that has gone cold is kept packed when it is mostly the
 * workloads' seeded pattern or runs of one byte, as a list of runs that
 * regenerate it exactly. A log store keeps every byte it wrote until it
 * wraps, so without packing the model's memory is what the run wrote
 * (2.8 GB for the paper suite through sensorlog, issue 43); the pattern is
 * a stateless hash of the file offset (sts_pattern_fill), whose inverse
 * finds where a page's bytes came from. What is left (a catalog's names,
 * a log's headers) goes through zstd where the build has Debian's libzstd
 * (STS_SIM_ZSTD), as zram packs a kernel's pages. Packing changes no byte
 * read back and no virtual time; only the host's memory.
 * Not compiled on its own: see sim.c. */

/* ---- memory handed back -------------------------------------------------- */
#if STS_SIM_PACK
#define RELEASE_ALIGN (64u << 10) /* a multiple of every host's page (4, 16, 64 KiB) */

/* Slots are dense, so what pages left is at the end: slots [used, *hw) of
 * a region, handed back once they span STS_SIM_RELEASE_MIN - a test's
 * deleted files (M2 fills a 32 GiB card) then no longer weigh on the next
 * one; the peak of a run is its largest test's, not their sum (issue 43).
 * Called as slots are taken too, to follow the high-water mark. */
static void store_release(struct sts_sim *s, uint8_t *base, uint32_t used, uint32_t *hw,
                          size_t slot_bytes)
{
    if (used >= *hw) {
        *hw = used;
        return;
    }
    if (!s->release || (uint64_t)(*hw - used) * slot_bytes < STS_SIM_RELEASE_MIN)
        return;
    uintptr_t a = (uintptr_t)(base + (size_t)used * slot_bytes);
    uintptr_t b = (uintptr_t)(base + (size_t)*hw * slot_bytes);
    a = (a + RELEASE_ALIGN - 1) & ~(uintptr_t)(RELEASE_ALIGN - 1);
    b &= ~(uintptr_t)(RELEASE_ALIGN - 1);
    if (b > a)
        s->release(s->release_ctx, (void *)a, b - a);
    *hw = used;
}
#define STORE_RAW_RELEASE(s) store_release(s, (s)->store, (s)->store_used, &(s)->store_hw, \
                                           (s)->p.page_bytes)
#else
#define STORE_RAW_RELEASE(s) ((void)0)
#endif

/* ---- raw slots: whole pages, dense 1..store_used ----------------------- */

static uint8_t *raw_slot(const struct sts_sim *s, uint32_t slot)
{
    return s->store + (size_t)(slot - 1) * s->p.page_bytes;
}

static uint8_t *raw_take(struct sts_sim *s, uint32_t page)
{
    if (s->store_used == s->store_slots)
        return NULL; /* caller reports ENOMEM */
    uint32_t slot = ++s->store_used;
    s->store_map[page] = slot;
    s->store_owner[slot - 1] = page;
    STORE_RAW_RELEASE(s);
    return raw_slot(s, slot);
}

static void raw_give_back(struct sts_sim *s, uint32_t page)
{
    uint32_t slot = s->store_map[page];
    STS_ASSERT(slot <= s->store_used && s->store_owner[slot - 1] == page);
    s->store_map[page] = 0;
    /* move the last used slot into the hole so used slots stay dense */
    uint32_t last = s->store_used--;
    if (slot != last) {
        uint32_t owner = s->store_owner[last - 1];
        memcpy(raw_slot(s, slot), raw_slot(s, last), s->p.page_bytes);
        s->store_map[owner] = slot;
        s->store_owner[slot - 1] = owner;
    }
    STORE_RAW_RELEASE(s);
}

#if STS_SIM_PACK
/* ---- packed pages ------------------------------------------------------ */
/* A packed page is a list of runs, each a kind (low 3 bits of its first
 * byte) and a length (the top 5 bits when 1..31, else a varint after):
 * PK_LITERAL bytes..., PK_FILL byte, PK_PATTERN offset (the bytes
 * sts_pattern_fill gives from that offset under the run's seed) and
 * PK_PATTERN_ON, the pattern going on where the last pattern run ended
 * (a file's records split by a store's headers). */
enum { PK_LITERAL, PK_FILL, PK_PATTERN, PK_PATTERN_ON };
#define PK_MIN_RUN 16u      /* shorter runs stay literal: a run costs ~8 B */
#define PK_GIVE_UP 2048u    /* no run in a page's first bytes: looked for no further */
#define PK_MAX_WORD (1ull << 40) /* pattern words beyond 8 TiB of file are not looked for */

/* splitmix64's finaliser undone: mix64(x) = y gives back x */
static uint64_t unmix64(uint64_t y)
{
    y ^= (y >> 31) ^ (y >> 62);
    y *= 0x319642b2d24d8ec3ull;
    y ^= (y >> 27) ^ (y >> 54);
    y *= 0x96de1b173f119089ull;
    y ^= (y >> 30) ^ (y >> 60);
    return y - 0x9e3779b97f4a7c15ull;
}

static uint64_t load64le(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    memcpy(&v, p, 8);
#else
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
#endif
    return v;
}

static size_t put_varint(uint8_t *o, uint64_t v)
{
    size_t n = 0;
    for (; v >= 0x80; v >>= 7)
        o[n++] = (uint8_t)(v | 0x80);
    o[n++] = (uint8_t)v;
    return n;
}

static size_t get_varint(const uint8_t *o, uint64_t *v)
{
    size_t n = 0;
    *v = 0;
    do
        *v |= (uint64_t)(o[n] & 0x7f) << (7 * n);
    while (o[n++] & 0x80);
    return n;
}

/* The pattern run through p[i..i+8) if those bytes are a pattern word:
 * its extent [*lo, *hi) (not below `floor`) and its offset at *lo. */
static int pattern_run(const uint8_t *p, size_t i, size_t floor, size_t len, uint64_t seed,
                       size_t *lo, size_t *hi, uint64_t *off)
{
    uint64_t word = unmix64(load64le(p + i)) ^ seed;
    if (word >= PK_MAX_WORD)
        return 0;
    size_t e = i + 8;
    uint64_t w = word + 1;
    for (; e + 8 <= len && load64le(p + e) == sts_mix64(seed ^ w); w++)
        e += 8;
    /* the word that did not match whole, byte by byte (one mix for its
     * bytes, not one each); a whole word before i would have been found
     * there first, so the run goes back into one word at most */
    uint64_t tail = sts_mix64(seed ^ w);
    for (unsigned k = 0; k < 8 && e < len && p[e] == (uint8_t)(tail >> 8 * k); k++)
        e++;
    size_t b = i;
    uint64_t head = word ? sts_mix64(seed ^ (word - 1)) : 0;
    for (unsigned k = 7; word && k < 8 && b > floor && p[b - 1] == (uint8_t)(head >> 8 * k); k--)
        b--;
    *lo = b;
    *hi = e;
    *off = word * 8 - (i - b);
    return 1;
}

static size_t same_run(const uint8_t *p, size_t i, size_t len)
{
    size_t e = i + 1;
    uint64_t all = 0x0101010101010101ull * p[i]; /* (erased pages: 0xFF, a word at a time) */
    while (e + 8 <= len && load64le(p + e) == all)
        e += 8;
    while (e < len && p[e] == p[i])
        e++;
    return e - i;
}

struct pk_out {
    uint8_t *o;
    size_t n, cap;
};

static int pk_emit(struct pk_out *w, int kind, uint64_t n, uint64_t arg, const uint8_t *lit)
{
    uint8_t head[1 + 2 * 10];
    size_t h = 1;
    head[0] = (uint8_t)(kind | (n < 32 ? n << 3 : 0));
    if (n >= 32)
        h += put_varint(head + h, n);
    if (kind == PK_FILL)
        head[h++] = (uint8_t)arg;
    else if (kind == PK_PATTERN)
        h += put_varint(head + h, arg);
    size_t body = kind == PK_LITERAL ? (size_t)n : 0;
    if (w->n + h + body > w->cap)
        return 0;
    memcpy(w->o + w->n, head, h);
    if (body)
        memcpy(w->o + w->n + h, lit, body);
    w->n += h + body;
    return 1;
}

/* p[0..len) as runs into out[0..cap): its length, or 0 when it does not fit. */
static size_t pack_page(const uint8_t *p, size_t len, uint64_t seed, uint8_t *out, size_t cap)
{
    struct pk_out w = {out, 0, cap};
    size_t lit = 0, i = 0;
    uint64_t next = UINT64_MAX; /* where the last pattern run ended */
    while (i < len) {
        size_t same = same_run(p, i, len), lo, hi;
        uint64_t off;
        int kind = -1;
        if (same >= PK_MIN_RUN) {
            kind = PK_FILL;
            lo = i;
            hi = i + same;
            off = p[i];
        } else if (i + 8 <= len && pattern_run(p, i, lit, len, seed, &lo, &hi, &off) &&
                   hi - lo >= PK_MIN_RUN) {
            kind = off == next ? PK_PATTERN_ON : PK_PATTERN;
            next = off + (hi - lo);
        }
        if (kind < 0) {
            i++;
            if (w.n + (i - lit) > cap || (!w.n && i - lit > PK_GIVE_UP))
                return 0; /* too long, or no run where there should be */
            continue;
        }
        if ((lo > lit && !pk_emit(&w, PK_LITERAL, lo - lit, 0, p + lit)) ||
            !pk_emit(&w, kind, hi - lo, off, NULL))
            return 0;
        i = lit = hi;
    }
    if (len > lit && !pk_emit(&w, PK_LITERAL, len - lit, 0, p + lit))
        return 0;
    return w.n;
}

/* Bytes [in, in + n) of a packed page into dst. */
static void unpack_range(const uint8_t *o, uint32_t in, size_t n, uint64_t seed, uint8_t *dst)
{
    uint64_t pos = 0, end = (uint64_t)in + n, next = 0;
    while (pos < end) {
        int kind = *o & 7;
        uint64_t len = *o++ >> 3, arg = next;
        if (!len)
            o += get_varint(o, &len);
        if (kind == PK_FILL)
            arg = *o++;
        else if (kind == PK_PATTERN)
            o += get_varint(o, &arg);
        if (kind >= PK_PATTERN)
            next = arg + len;
        uint64_t a = pos > in ? pos : in, b = pos + len < end ? pos + len : end;
        if (a < b) {
            uint8_t *d = dst + (a - in);
            if (kind == PK_LITERAL)
                memcpy(d, o + (a - pos), (size_t)(b - a));
            else if (kind == PK_FILL)
                memset(d, (int)arg, (size_t)(b - a));
            else
                sts_pattern_fill(d, arg + (a - pos), (size_t)(b - a), seed);
        }
        if (kind == PK_LITERAL)
            o += len;
        pos += len;
    }
}

static uint32_t packed_entry(uint32_t c, uint32_t i)
{
    return PACKED_BIT | c << PACK_CLASS_SHIFT | i;
}

static uint32_t packed_class(uint32_t entry)
{
    return (entry & ~PACKED_BIT) >> PACK_CLASS_SHIFT;
}

static uint8_t *packed_slot(const struct sts_sim *s, uint32_t entry)
{
    uint32_t c = packed_class(entry), i = entry & PACK_INDEX_MASK;
    return s->pack_slots[c] + (size_t)i * s->pack_bytes[c];
}

/* A slot holds a 2-byte head, the form (top 2 bits) and the length of
 * the body: the runs, the runs through zstd, or the page through zstd. */
enum { PK_RUNS, PK_Z_RUNS, PK_Z_PAGE };
#define PK_HEAD 2u
#define PK_Z_FROM 64u /* shorter bodies are kept as they are */

/* The packed page's runs, or (*image) its bytes whole, in pack_ops when
 * they had to be unpacked or `copy` asks; else in the slot. */
static const uint8_t *packed_body(struct sts_sim *s, uint32_t entry, int copy, int *image)
{
    const uint8_t *slot = packed_slot(s, entry);
    uint32_t head = (uint32_t)slot[0] | (uint32_t)slot[1] << 8, len = head & 0x3fffu;
    *image = head >> 14 == PK_Z_PAGE;
    if (head >> 14 == PK_RUNS) {
        if (!copy)
            return slot + PK_HEAD;
        memcpy(s->pack_ops, slot + PK_HEAD, len);
    }
#if STS_SIM_ZSTD
    else {
        size_t got = ZSTD_decompressDCtx(s->pack_zd, s->pack_ops, s->p.page_bytes,
                                         slot + PK_HEAD, len);
        STS_ASSERT(!ZSTD_isError(got));
        (void)got;
    }
#endif
    return s->pack_ops;
}

/* Bytes [in, in + n) of the packed page into dst. */
static void packed_read(struct sts_sim *s, uint32_t entry, uint32_t in, size_t n, uint8_t *dst)
{
    int image;
    const uint8_t *body = packed_body(s, entry, 0, &image);
    if (image)
        memcpy(dst, body + in, n);
    else
        unpack_range(body, in, n, s->pack_seed, dst);
}

static void packed_give_back(struct sts_sim *s, uint32_t page)
{
    uint32_t entry = s->store_map[page], c = packed_class(entry), i = entry & PACK_INDEX_MASK;
    uint32_t last = --s->pack_used[c];
    s->store_map[page] = 0;
    if (i != last) { /* the last packed page of the class fills the hole */
        uint32_t owner = s->pack_owner[c][last];
        memcpy(packed_slot(s, entry), s->pack_slots[c] + (size_t)last * s->pack_bytes[c],
               s->pack_bytes[c]);
        s->pack_owner[c][i] = owner;
        s->store_map[owner] = packed_entry(c, i);
    }
    store_release(s, s->pack_slots[c], s->pack_used[c], &s->pack_hw[c], s->pack_bytes[c]);
}

/* A raw page packed, if it then goes into a class: runs (pack_page),
 * through zstd when that is smaller, or the page itself through zstd. */
static void pack_cold(struct sts_sim *s, uint32_t page)
{
    uint32_t entry = s->store_map[page], pb = s->p.page_bytes;
    if (!entry || (entry & PACKED_BIT))
        return;
    const uint8_t *raw = raw_slot(s, entry);
    size_t len = pack_page(raw, pb, s->pack_seed, s->pack_ops, pb / 2);
    uint32_t form = PK_RUNS, cap = s->pack_bytes[s->pack_classes - 1] - PK_HEAD;
    const uint8_t *body = s->pack_ops;
    if (!len) {
        form = PK_Z_PAGE; /* runs would take more than half the page */
        body = raw;
        len = pb;
    }
#if STS_SIM_ZSTD
    /* a page taken whole is tried on its first quarter first: one that
     * does not pack to 80 % there (a log's part tables, CRCs) stays raw
     * for a quarter of the work */
    if (form == PK_Z_PAGE && s->pack_zc &&
        ZSTD_isError(ZSTD_compressCCtx(s->pack_zc, s->pack_buf, pb / 4 * 4 / 5, raw, pb / 4,
                                       PACK_ZSTD_LEVEL)))
        return;
    if (len > PK_Z_FROM && s->pack_zc && s->pack_zd) {
        size_t z = ZSTD_compressCCtx(s->pack_zc, s->pack_buf + PK_HEAD, cap, body, len,
                                     PACK_ZSTD_LEVEL);
        if (!ZSTD_isError(z) && z < len) {
            form = form == PK_RUNS ? PK_Z_RUNS : PK_Z_PAGE;
            len = z;
            body = NULL; /* already in place */
        }
    }
#endif
    if (len > cap || (form == PK_Z_PAGE && body))
        return; /* it stays raw */
    if (body)
        memcpy(s->pack_buf + PK_HEAD, body, len);
    s->pack_buf[0] = (uint8_t)len;
    s->pack_buf[1] = (uint8_t)(len >> 8 | form << 6);
    uint32_t c = 0;
    while (s->pack_bytes[c] < len + PK_HEAD)
        c++;
    uint32_t i = s->pack_used[c]++;
    store_release(s, s->pack_slots[c], s->pack_used[c], &s->pack_hw[c], s->pack_bytes[c]);
    memcpy(s->pack_slots[c] + (size_t)i * s->pack_bytes[c], s->pack_buf, len + PK_HEAD);
    s->pack_owner[c][i] = page;
    raw_give_back(s, page);
    s->store_map[page] = packed_entry(c, i);
}

/* Whether the model holds enough whole to pack: a short run (the bare
 * medium's files, deleted as it goes) keeps its pages whole and pays
 * nothing for packing. */
static int pack_due(const struct sts_sim *s)
{
    return (uint64_t)s->store_used * s->p.page_bytes > s->pack_from;
}

/* A raw page packed, or marked as one that does not pack (until it is
 * written again). */
static void pack_try(struct sts_sim *s, uint32_t page)
{
    pack_cold(s, page);
    if (!(s->store_map[page] & PACKED_BIT))
        bit_set(s->pack_tried, page, 1);
}

/* Past the threshold, pages held whole since before it are packed too:
 * the raw slots walked from the top, two at each write. */
static void pack_sweep(struct sts_sim *s)
{
    for (int k = 0; k < 2 && s->store_used; k++) {
        if (!s->pack_cursor || s->pack_cursor > s->store_used)
            s->pack_cursor = s->store_used;
        uint32_t page = s->store_owner[--s->pack_cursor];
        if (!bit_get(s->hot_bits, page) && !bit_get(s->pack_tried, page))
            pack_try(s, page);
    }
}

/* The page is being written: it stays raw while among the last
 * STS_SIM_HOT_PAGES written, and the one that leaves them is packed. */
static void pack_hot(struct sts_sim *s, uint32_t page)
{
    if (bit_get(s->hot_bits, page))
        return;
    bit_set(s->pack_tried, page, 0);
    if (s->hot_n == STS_SIM_HOT_PAGES) {
        uint32_t cold = s->hot[s->hot_head];
        bit_set(s->hot_bits, cold, 0);
        s->hot_n--;
        s->hot_head = (s->hot_head + 1) % STS_SIM_HOT_PAGES;
        if (pack_due(s) && s->store_map[cold] && !(s->store_map[cold] & PACKED_BIT))
            pack_try(s, cold);
    }
    if (pack_due(s))
        pack_sweep(s);
    s->hot[(s->hot_head + s->hot_n++) % STS_SIM_HOT_PAGES] = page;
    bit_set(s->hot_bits, page, 1);
}
#endif

/* ---- the store's three operations -------------------------------------- */
/* The page's bytes to write in (create: a page not held is taken, *fresh
 * says so); NULL when data is not kept, or for create, no room. */
static uint8_t *store_get(struct sts_sim *s, uint32_t page, int create, int *fresh)
{
    *fresh = 0;
    if (!s->store_map)
        return NULL;
#if STS_SIM_PACK
    if (s->pack_on)
        pack_hot(s, page); /* first: it may move raw slots */
    uint32_t entry = s->store_map[page];
    if (entry & PACKED_BIT) { /* unpacked to be written */
        int image;
        const uint8_t *body = packed_body(s, entry, 1, &image);
        packed_give_back(s, page);
        uint8_t *raw = raw_take(s, page);
        if (raw && image)
            memcpy(raw, body, s->p.page_bytes);
        else if (raw)
            unpack_range(body, 0, s->p.page_bytes, s->pack_seed, raw);
        return raw;
    }
#endif
    uint32_t slot = s->store_map[page];
    if (slot)
        return raw_slot(s, slot);
    if (!create)
        return NULL;
    *fresh = 1;
    return raw_take(s, page);
}

/* Bytes [in, in + n) of the page into dst: 0 when the page holds none. */
static int store_read(struct sts_sim *s, uint32_t page, uint32_t in, size_t n, uint8_t *dst)
{
    if (!s->store_map || !s->store_map[page])
        return 0;
#if STS_SIM_PACK
    uint32_t entry = s->store_map[page];
    if (entry & PACKED_BIT) {
        packed_read(s, entry, in, n, dst);
        return 1;
    }
#endif
    memcpy(dst, raw_slot(s, s->store_map[page]) + in, n);
    return 1;
}

static void store_drop(struct sts_sim *s, uint32_t page)
{
    if (!s->store_map || !s->store_map[page])
        return;
#if STS_SIM_PACK
    if (s->store_map[page] & PACKED_BIT) {
        packed_give_back(s, page);
        return;
    }
#endif
    raw_give_back(s, page);
}
