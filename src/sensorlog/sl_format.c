/* sensorlog: geometry, the encoding of headers and chunks, format and
 * mount. Mount reads every segment header (one read each) and then finds
 * the end of the newest segment by bisection: O(log n) chunk reads; it
 * never replays the log. */
#include "sl_internal.h"

/* ---- CRC-32C, four bits at a time: 64 bytes of table, fast enough for
 * chunks, small enough for any MCU -------------------------------------- */
uint32_t sl_crc32c(uint32_t crc, const void *data, size_t len)
{
    static const uint32_t t[16] = {
        0x00000000u, 0x105EC76Fu, 0x20BD8EDEu, 0x30E349B1u, 0x417B1DBCu, 0x5125DAD3u,
        0x61C69362u, 0x7198540Du, 0x82F63B78u, 0x92A8FC17u, 0xA24BB5A6u, 0xB21572C9u,
        0xC38D26C4u, 0xD3D3E1ABu, 0xE330A81Au, 0xF36E6F75u,
    };
    const uint8_t *p = data;
    crc = ~crc;
    while (len--) {
        crc ^= *p++;
        crc = (crc >> 4) ^ t[crc & 15];
        crc = (crc >> 4) ^ t[crc & 15];
    }
    return ~crc;
}

/* The configured CRC, or the library's own. */
uint32_t sl_crc(const struct sl_log *log, uint32_t prev, const void *data, size_t len)
{
    return log->cfg.crc32c ? log->cfg.crc32c(log->cfg.crc_ctx, prev, data, len)
                           : sl_crc32c(prev, data, len);
}

/* memmove's work for the writer's few bytes. newlib's memmove is 256 B of
 * Cortex-M33 code, and GCC turns a plain copy loop back into a call to it:
 * the attribute keeps the loop a loop. */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-loop-distribute-patterns")))
#endif
void sl_move(uint8_t *dst, const uint8_t *src, uint32_t n)
{
    if (dst > src)
        while (n--)
            dst[n] = src[n];
    else
        for (uint32_t i = 0; i < n; i++)
            dst[i] = src[i];
}

/* ---- geometry --------------------------------------------------------- */
/* n / d, and n % d in *rem (d != 0). Bit by bit: only format, mount and a
 * reader's first probe divide 64-bit numbers, and libgcc's division is
 * 828 B of Cortex-M33 code a logger would link for these few calls. */
uint64_t sl_div64(uint64_t n, uint64_t d, uint64_t *rem)
{
    uint64_t q = 0, r = 0;
    for (int i = 0; i < 64; i++) {
        /* (r is at most n's top i bits: below 2^63, so no bit shifts out) */
        r = r << 1 | n >> 63;
        n <<= 1;
        q <<= 1;
        if (r >= d) {
            r -= d;
            q |= 1;
        }
    }
    if (rem)
        *rem = r;
    return q;
}

/* sl_layout, what the device said (*gp) and where the log starts within a
 * segment (*off: a segment is whole erase blocks and chunks, so the log's
 * offset is aligned to one of those, or to an erase unit that divides a
 * segment, when this is) */
static int layout(const struct sl_config *cfg, struct sl_layout *out, struct sts_bd_geometry *gp,
                  uint32_t *off)
{
    if (!cfg->bd.ops)
        return SL_EINVAL;
    memset(gp, 0, sizeof(*gp));
    cfg->bd.ops->geometry(cfg->bd.ctx, gp);
    /* NOR without ECC programs any bytes, and a cut destroys only what it
     * was programming: chunks and a sync's pieces go on at the next byte */
    if (SL_PIECES && (gp->flags & STS_BD_PROGRAM_BYTES)) /* (no pieces: no gain) */
        gp->prog_size = gp->page_size = 1;
    const struct sts_bd_geometry *g = gp;
    uint32_t prog = g->prog_size ? g->prog_size : 1;
    int raw = (g->flags & STS_BD_NEEDS_ERASE) != 0;
    /* the unit a cut may destroy: a chunk never shares one with another */
    uint32_t page = cfg->page_bytes         ? cfg->page_bytes
                    : g->page_size          ? g->page_size
                    : raw                  ? prog
                    : prog > SL_MANAGED_PAGE ? prog : SL_MANAGED_PAGE;
    /* managed media trim at any chunk boundary; raw flash erases whole blocks */
    uint32_t erase = raw && g->erase_size ? g->erase_size : page;
    uint32_t chunk = cfg->chunk_bytes ? cfg->chunk_bytes : (page > 4096 ? page : 4096);
    uint32_t seg = cfg->segment_bytes;
    uint64_t size = cfg->size ? cfg->size : g->capacity - cfg->offset;
    if (!seg) {
        /* mount reads one header per segment: at most 64 segments, each
         * doubled from the smallest (max(erase block, 16 chunks)), which
         * stays a multiple of both. A segment's header and catalog page are
         * erased every lap like its data (on NOR, two sectors of a 64-sector
         * segment: 3 % more wear than the records need), so a segment under
         * 128 chunks doubles on while the log keeps 16 of them or more (the
         * step the oldest data goes in and the reserve erased ahead stay
         * 1/16 of the log or less) */
        seg = erase > 16 * chunk ? erase : 16 * chunk;
        while (size >= (seg < 128 * chunk ? 32ull : 65ull) * seg && seg <= UINT32_MAX / 4)
            seg *= 2; /* size / seg > 64, or >= 32 while under 128 chunks */
    }
    *out = (struct sl_layout){page, chunk, seg, erase, sl_div64(size, seg, NULL), raw};
    uint64_t rem;
    (void)sl_div64(cfg->offset, seg, &rem);
    *off = (uint32_t)rem;
    if (page % prog || chunk < SL_MIN_CHUNK || chunk % page ||
        chunk > 65535u + SL_CHUNK_HDR || seg % erase || seg % chunk || seg / chunk < 2 ||
        *off % erase || *off % chunk || cfg->offset > g->capacity ||
        size > g->capacity - cfg->offset)
        return SL_EINVAL;
    return SL_OK;
}

int sl_layout(const struct sl_config *cfg, struct sl_layout *out)
{
    struct sts_bd_geometry g;
    uint32_t off;
    return layout(cfg, out, &g, &off);
}

size_t sl_ram_bytes(const struct sl_config *cfg)
{
    struct sl_layout l;
    if (sl_layout(cfg, &l))
        return 0;
    return sizeof(struct sl_log) + 2 * (size_t)l.chunk_bytes +
           (size_t)l.segments * sizeof(struct sl_seg_info) +
           (size_t)cfg->max_streams * sizeof(struct sl_stream_info) + cfg->buffer_bytes;
}

int sl_geometry(struct sl_log *log, const struct sl_config *cfg)
{
    struct sl_layout l;
    struct sts_bd_geometry g;
    uint32_t off;
    if (!cfg->buffer || !cfg->chunk_buf || !cfg->read_buf || !cfg->segs || !cfg->streams ||
        !cfg->max_streams || layout(cfg, &l, &g, &off))
        return SL_EINVAL;
    memset(log, 0, sizeof(*log));
    log->cfg = *cfg;
    uint32_t chunk = l.chunk_bytes, seg = l.segment_bytes;
    uint64_t n = l.segments;
    int raw = l.raw;
    uint32_t floor = cfg->free_segments ? cfg->free_segments : 1;
    if (n < floor + 2 || n > cfg->n_segs || cfg->buffer_bytes < SL_MIN_BUFFER)
        return n > cfg->n_segs ? SL_ENOMEM : SL_EINVAL;
    log->base = cfg->offset;
    log->chunk = chunk; /* before sl_data_off */
    /* a search reads headers only: as many bytes as the device reads at once */
    /* (layout() holds prog | page | chunk) */
    log->prog_unit = g.prog_size ? g.prog_size : chunk;
    /* parts: a power of two from 256 (flags hold its log2 - 7); one as
     * large as the chunk is none */
    uint32_t part = cfg->part_bytes ? cfg->part_bytes : chunk >= 8192 ? 2048 : chunk;
    if (SL_PARTS && (part < 256 || (part < chunk && (part & (part - 1)))))
        return SL_EINVAL;
    log->part = SL_PARTS && part < chunk ? part : 0;
    log->data_off = sl_data_off(log, log->part);
    /* a sync's piece costs the pages it fills; parts' tables are the
     * chunk's, and a chunk of one page has no room for a second piece */
    if (SL_PIECES)
        log->piece_unit = !log->part ? l.page_bytes : chunk;
    /* a search reads headers and part tables only: as many bytes as the
     * device reads at once */
    uint32_t unit = g.read_size ? g.read_size : 1;
    log->read_unit = unit;
    log->hdr_read = (log->data_off + unit - 1) / unit * unit;
    log->hdr_read = log->hdr_read < chunk ? log->hdr_read : chunk;
    log->seg_bytes = seg;
    log->chunks_per_seg = seg / chunk;
    log->n_segs = (uint32_t)n;
    log->cfg.free_segments = floor;
    log->needs_erase = raw;
    /* the catalog in pages of one chunk; each segment opens with all of them */
    log->page_entries = (chunk - SL_CHUNK_HDR - SL_CAT_PAGE_HDR) / SL_CAT_ENTRY;
    uint32_t most = log->page_entries * SL_MAX_PAGES;
    most = most < SL_MAX_STREAMS ? most : SL_MAX_STREAMS;
    log->streams = cfg->streams;
    log->segs = cfg->segs;
    log->max_streams = cfg->max_streams < most ? cfg->max_streams : most;
    log->n_pages = (log->max_streams + log->page_entries - 1) / log->page_entries;
    log->hdr_chunks = 1 + log->n_pages;
    if (log->hdr_chunks + 2 > log->chunks_per_seg)
        return SL_EINVAL; /* segments too small for the catalog */
    memset(log->streams, 0, sizeof(*log->streams) * log->max_streams);
    log->erase_block = raw ? l.erase_bytes : seg;
    uint32_t large = raw ? g.erase_large_size : 0;
    if (large && large % l.erase_bytes == 0 && seg % large == 0 && off % large == 0)
        log->erase_large = large;
    if (raw && cfg->erase_unit_bytes) {
        uint32_t u = cfg->erase_unit_bytes;
        if (u % l.erase_bytes || seg % u || off % u)
            return SL_EINVAL;
        log->erase_block = u;
    }
    log->version = sl_written_version(log); /* a log mount finds keeps its own */
    log->erasing = SL_NO_SEG;
    log->cur_seg = SL_NO_SEG;
    log->cat_chunk = SL_NO_CAT;
    log->mirror_page = SL_NO_PAGE;
    return SL_OK;
}

uint64_t sl_seg_addr(const struct sl_log *log, uint32_t seg)
{
    return log->base + (uint64_t)seg * log->seg_bytes;
}

uint64_t sl_chunk_addr(const struct sl_log *log, uint32_t seg, uint32_t chunk)
{
    return sl_seg_addr(log, seg) + (uint64_t)chunk * log->chunk;
}

/* ---- catalog pages -------------------------------------------------------- */
size_t sl_catalog_page_encode(const struct sl_log *log, uint32_t k, uint8_t *p)
{
    /* every slot of the page, used or not: a create costs the same whatever
     * the number of streams (written up to the last slot in use, it cost
     * more with every stream, up to the whole page) */
    uint32_t first = k * log->page_entries, n = log->max_streams - first;
    n = n < log->page_entries ? n : log->page_entries;
    sl_put16(p, (uint16_t)k);
    sl_put16(p + 2, (uint16_t)n); /* the spare word after them is the caller's */
    uint8_t *e = p + SL_CAT_PAGE_HDR;
    const struct sl_stream_info *s = log->streams + first;
    for (uint32_t i = 0; i < n; i++, e += SL_CAT_ENTRY, s++) {
        memset(e, 0, SL_CAT_ENTRY);
        sl_put16(e, s->id);
        if (s->id) /* (<= 14 bytes, NUL-padded in RAM as here) */
            memcpy(e + 2, s->name, SL_CAT_NAME);
        sl_put64(e + 16, s->created_gseq);
    }
    return SL_CAT_PAGE_HDR + (size_t)n * SL_CAT_ENTRY;
}

int sl_catalog_page_decode(struct sl_log *log, const uint8_t *p, size_t len)
{
    uint32_t k = sl_get16(p), n = sl_get16(p + 2), first = k * log->page_entries;
    if (k >= log->n_pages || n > log->page_entries || first + n > log->max_streams ||
        len < SL_CAT_PAGE_HDR + (size_t)n * SL_CAT_ENTRY)
        return SL_ECORRUPT;
    const uint8_t *e = p + SL_CAT_PAGE_HDR;
    for (uint32_t i = 0; i < n; i++, e += SL_CAT_ENTRY) {
        struct sl_stream_info *s = &log->streams[first + i];
        s->id = sl_get16(e);
        if (s->id && s->id != first + i + 1)
            return SL_ECORRUPT; /* an id is its slot + 1 */
        memcpy(s->name, e + 2, SL_CAT_NAME);
        s->name[SL_CAT_NAME] = '\0';
        s->created_gseq = sl_get64(e + 16);
    }
    return SL_OK;
}

/* ---- segment header ----------------------------------------------------- */
void sl_seg_hdr_encode(const struct sl_log *log, uint8_t *buf, const struct sl_seg_hdr *h)
{
    memset(buf, 0xFF, log->chunk); /* the unused rest stays as erased flash */
    sl_put32(buf, SL_SEG_MAGIC);
    sl_put16(buf + 4, log->version);
    sl_put16(buf + 6, SL_SEG_HDR + 4);
    sl_put32(buf + 8, h->seq);
    sl_put32(buf + 12, h->erase_count);
    sl_put64(buf + 16, h->first_gseq);
    sl_put64(buf + 24, h->ts_start);
    sl_put32(buf + 32, log->chunk);
    sl_put32(buf + 36, log->seg_bytes);
    sl_put32(buf + 40, log->n_segs);
    sl_put32(buf + 44, log->catalog_version);
    sl_put32(buf + 48, log->max_streams);
    sl_put16(buf + 52, (uint16_t)log->page_entries);
    sl_put16(buf + 54, (uint16_t)log->n_pages);
    sl_put32(buf + SL_SEG_HDR, sl_crc(log, 0, buf, SL_SEG_HDR));
}

int sl_seg_hdr_decode(const struct sl_log *log, const uint8_t *buf, struct sl_seg_hdr *h)
{
    if (sl_get32(buf) != SL_SEG_MAGIC || sl_get16(buf + 6) != SL_SEG_HDR + 4 ||
        !SL_CRC_MATCH(sl_get32(buf + SL_SEG_HDR), sl_crc(log, 0, buf, SL_SEG_HDR)))
        return SL_ENOENT; /* torn or foreign: not a header */
    h->version = sl_get16(buf + 4);
    if (h->version < 2 ||
        h->version > (SL_SHORT ? SL_VERSION_CARRY : SL_PIECES ? SL_VERSION_PIECES : SL_VERSION_PARTS))
        return SL_ECORRUPT; /* a newer format, or version 1 (never shipped): refuse rather than misread */
    h->seq = sl_get32(buf + 8);
    h->erase_count = sl_get32(buf + 12);
    h->first_gseq = sl_get64(buf + 16);
    h->ts_start = sl_get64(buf + 24);
    if (sl_get32(buf + 32) != log->chunk || sl_get32(buf + 36) != log->seg_bytes ||
        sl_get32(buf + 40) != log->n_segs || h->seq == 0 ||
        sl_get32(buf + 48) != log->max_streams || sl_get16(buf + 54) != log->n_pages)
        return SL_FOREIGN; /* formatted with another geometry or catalog size */
    return SL_OK;
}

/* ---- chunks --------------------------------------------------------------- */
/* The chunk CRC: over bytes [0, 48) and the `len` after the CRCs (the
 * payload, or with parts the table). */
static int chunk_sum_ok(const struct sl_log *log, const uint8_t *buf, uint32_t len)
{
    return SL_CRC_MATCH(sl_get32(buf + 48), sl_crc(log, sl_crc(log, 0, buf, 48), buf + SL_CHUNK_HDR, len));
}

uint32_t sl_data_off(const struct sl_log *log, uint32_t part)
{
    return SL_CHUNK_HDR + (part ? (log->chunk - SL_CHUNK_HDR + part - 1) / part * SL_PART_ENTRY : 0);
}

void sl_chunk_seal(const struct sl_log *log, uint8_t *buf, const struct sl_chunk_hdr *h)
{
#if SL_CPU_ORDER_IS_FORMAT
    memcpy(buf, h, SL_CHUNK_FIELDS); /* h->magic is SL_CHUNK_MAGIC */
#else
    sl_put16(buf, SL_CHUNK_MAGIC);
    buf[2] = h->type;
    buf[3] = h->flags;
    sl_put16(buf + 4, h->used);
    sl_put16(buf + 6, h->n_records);
    sl_put32(buf + 8, h->seg_seq);
    sl_put16(buf + 12, h->cat_chunk);
    sl_put16(buf + 14, h->index);
    sl_put64(buf + 16, h->first_gseq);
    sl_put64(buf + 24, h->ts_base);
    sl_put64(buf + 32, h->ts_hi);
    sl_put32(buf + 40, h->catalog_version);
#endif
    uint32_t part = sl_flags_part(h->flags), off = sl_data_off(log, part);
    if (part)
        sl_part_sums(log, buf, part, h->used, 0, h->used, 1); /* each part's CRC in the table */
    uint32_t fields = sl_crc(log, 0, buf, SL_CHUNK_FIELDS);
    sl_put32(buf + SL_CHUNK_FIELDS, fields);
    /* the chunk CRC goes on from the header CRC's state (bytes [0, 48)) over
     * the payload, or with parts over the table holding their CRCs */
    sl_put32(buf + 48, sl_crc(log, sl_crc(log, fields, buf + SL_CHUNK_FIELDS, 4), buf + SL_CHUNK_HDR,
                           part ? off - SL_CHUNK_HDR : h->used));
}

/* Decodes and checks the header alone: magic, its CRC, and its place;
 * with parts the table too, which the chunk CRC covers. */
int sl_chunk_hdr_check(const struct sl_log *log, const uint8_t *buf, uint32_t seg_seq,
                       uint32_t index, struct sl_chunk_hdr *h)
{
    if (sl_get16(buf) != SL_CHUNK_MAGIC || !SL_CRC_MATCH(sl_get32(buf + 44), sl_crc(log, 0, buf, 44)))
        return SL_ENOENT; /* torn, or never written */
#if SL_CPU_ORDER_IS_FORMAT
    memcpy(h, buf, SL_CHUNK_FIELDS);
#else
    h->magic = SL_CHUNK_MAGIC;
    h->type = buf[2];
    h->flags = buf[3];
    h->used = sl_get16(buf + 4);
    h->n_records = sl_get16(buf + 6);
    h->seg_seq = sl_get32(buf + 8);
    h->cat_chunk = sl_get16(buf + 12);
    h->index = sl_get16(buf + 14);
    h->first_gseq = sl_get64(buf + 16);
    h->ts_base = sl_get64(buf + 24);
    h->ts_hi = sl_get64(buf + 32);
    h->catalog_version = sl_get32(buf + 40);
#endif
    uint32_t part = sl_flags_part(h->flags), off = sl_data_off(log, part);
    if (h->used > log->chunk - off || (!SL_PARTS && h->flags >> SL_FLAG_PART_SHIFT) ||
        (part && (h->type != SL_CHUNK_DATA || !chunk_sum_ok(log, buf, off - SL_CHUNK_HDR))))
        return SL_ENOENT;
    /* intact but from an earlier lap of the circle, or misplaced */
    return h->seg_seq == seg_seq && h->index == index ? SL_OK : SL_ENOENT;
}

uint32_t sl_part_sums(const struct sl_log *log, uint8_t *buf, uint32_t part, uint32_t used,
                      uint32_t from, uint32_t to, int put)
{
    uint32_t off = sl_data_off(log, part);
    for (uint32_t at = from; at < to; at += part) {
        uint32_t n = used - at < part ? used - at : part, sum = sl_crc(log, 0, buf + off + at, n);
        uint8_t *e = buf + SL_CHUNK_HDR + at / part * SL_PART_ENTRY;
        if (put)
            sl_put32(e, sum);
        else if (!SL_CRC_MATCH(sl_get32(e), sum))
            return at;
    }
    return to;
}

int sl_chunk_check(const struct sl_log *log, const uint8_t *buf, uint32_t seg_seq,
                   uint32_t index, struct sl_chunk_hdr *h)
{
    int rc = sl_chunk_hdr_check(log, buf, seg_seq, index, h);
    uint32_t part = sl_flags_part(h->flags);
    if (!rc && !(part ? sl_part_sums(log, (uint8_t *)buf, part, h->used, 0, h->used, 0) == h->used
                      : chunk_sum_ok(log, buf, h->used)))
        rc = SL_ENOENT; /* a torn payload */
    return rc;
}

int sl_read_at(struct sl_log *log, uint32_t seg, uint32_t chunk, uint8_t *buf, uint32_t from,
               uint32_t len)
{
    int rc = SL_EIO;
    if (buf == log->cfg.read_buf)
        log->read_gen++;
    for (int i = 0; i < SL_READ_TRIES && rc == SL_EIO; i++)
        rc = log->cfg.bd.ops->read(log->cfg.bd.ctx, sl_chunk_addr(log, seg, chunk) + from,
                                   buf + from, len);
    if (rc == SL_EIO)
        sl_count(&log->st.read_errors, 1);
    return rc;
}

int sl_read_into(struct sl_log *log, uint32_t seg, uint32_t chunk, uint8_t *buf)
{
    int rc = sl_read_at(log, seg, chunk, buf, 0, log->chunk);
    uint32_t u = log->piece_unit;
    /* a page a cut tore as a piece was written fails the whole read (ECC):
     * the pieces before it are read page by page, that page and any other
     * that fails as never written (pieces a byte apart are on a medium
     * without ECC, where a cut tears no read: an error is the device's) */
    if (!SL_PIECES || rc != SL_EIO || u == log->chunk || u == 1)
        return rc;
    for (uint32_t at = 0; at < log->chunk; at += u)
        if (sl_read_at(log, seg, chunk, buf, at, u)) {
            if (!at)
                return SL_EIO;
            memset(buf + at, 0xFF, u);
        }
    return SL_OK;
}

int sl_read_chunk_hdr(struct sl_log *log, uint32_t seg, uint32_t chunk, struct sl_chunk_hdr *h)
{
    int rc = sl_read_at(log, seg, chunk, log->cfg.read_buf, 0, log->hdr_read);
    if (rc)
        return rc == SL_EIO ? SL_ENOENT : rc;
    return sl_chunk_hdr_check(log, log->cfg.read_buf, log->segs[seg].seq, chunk, h);
}

int sl_read_raw(struct sl_log *log, uint32_t seg, uint32_t chunk)
{
    return sl_read_into(log, seg, chunk, log->cfg.read_buf);
}

int sl_read_chunk_into(struct sl_log *log, uint32_t seg, uint32_t chunk, uint8_t *buf,
                       struct sl_chunk_hdr *h)
{
    int rc = sl_read_into(log, seg, chunk, buf);
    if (rc)
        return rc == SL_EIO ? SL_ENOENT : rc; /* a torn page reads as an error */
    return sl_chunk_check(log, buf, log->segs[seg].seq, chunk, h);
}

int sl_read_chunk(struct sl_log *log, uint32_t seg, uint32_t chunk, struct sl_chunk_hdr *h)
{
    return sl_read_chunk_into(log, seg, chunk, log->cfg.read_buf, h);
}

/* The short piece at p in buf, if one is there after the piece h (version
 * 6): the offset of its records (0: none there), with n its header, whose
 * place, first record number and time base follow from h's. Its CRC goes on from the 4 bytes before it: the
 * end of the piece before (its CRC, or a chunk header's last payload
 * bytes), so it holds only where it was written. */
static uint32_t short_piece(const struct sl_log *log, const uint8_t *buf, uint32_t p,
                            const struct sl_chunk_hdr *h, struct sl_chunk_hdr *n)
{
    const uint8_t *q = buf + p + 1, *end = buf + log->chunk;
    uint64_t v[3] = {0, 1, 0}; /* payload bytes, records, rise of the running maximum */
    uint8_t bits = sl_carries(log) ? buf[p] & (SL_SHORT_ONE | SL_SHORT_LIKE) : 0, /* (v7) */
        one = bits & SL_SHORT_ONE;
    if (!sl_short_pieces(log) || (buf[p] & ~(SL_FLAG_PADDED | bits)) != SL_SHORT_MAGIC)
        return 0;
    for (int i = 0; i < 3; i++)
        if ((i != 1 || !one) && sl_get_varint(&q, end, &v[i]))
            return 0;
    if (v[0] + 4 > (uint64_t)(end - q))
        return 0;
    uint32_t len = (uint32_t)(q - buf - p + v[0]);
    if (!SL_CRC_MATCH(sl_get32(buf + p + len), sl_crc(log, sl_get32(buf + p - 4), buf + p, len)))
        return 0;
    *n = *h;
    n->flags = (uint8_t)((buf[p] & SL_FLAG_PADDED) | SL_FLAG_SHORT |
                         (bits & SL_SHORT_LIKE ? SL_FLAG_LIKE : 0));
    n->used = (uint16_t)v[0];
    n->n_records = (uint16_t)v[1];
    n->first_gseq = h->first_gseq + h->n_records;
    n->ts_base = h->ts_hi; /* the writer's running maximum when it began the piece */
    n->ts_hi = h->ts_hi + v[2];
    return (uint32_t)(q - buf);
}

int sl_piece_next(const struct sl_log *log, const uint8_t *buf, uint32_t *off,
                  struct sl_chunk_hdr *h)
{
    if (!SL_PIECES || !(h->flags & SL_FLAG_PADDED) || sl_flags_part(h->flags))
        return SL_ENOENT; /* the chunk was full: nothing goes on after it */
    uint64_t want = h->first_gseq + h->n_records;
    uint32_t seq = h->seg_seq, index = h->index;
    uint32_t next = *off + SL_CHUNK_HDR + h->used + (SL_SHORT && h->flags & SL_FLAG_SHORT ? 4u : 0u);
    /* (the writer aligns pieces to its page, which the log does not record:
     * every offset is tried, a CRC only where a magic is; a short piece's
     * CRC follows its records) */
    for (uint32_t p = next; p < log->chunk; p++) {
        struct sl_chunk_hdr n;
        uint32_t records = short_piece(log, buf, p, h, &n);
        if (records) {
            /* short pieces follow one another byte for byte: one further
             * on was written after one that no longer checks (damage, not
             * a cut, which leaves nothing after the piece it tears), and
             * its number and time base, which came from that one, are lost */
            if (p != next)
                return SL_ECORRUPT;
            *off = records - SL_CHUNK_HDR; /* (the reader's offset: a header's length
                                              before its records) */
            *h = n;
            return SL_OK;
        }
        /* (a piece has no parts: a header there that says it has would
         * have its table checked past the chunk's end - fuzz_sensorlog) */
        if (p + SL_CHUNK_HDR <= log->chunk && !sl_flags_part(buf[p + 3]) &&
            sl_chunk_hdr_check(log, buf + p, seq, index, &n) == SL_OK &&
            n.used <= log->chunk - p - SL_CHUNK_HDR && chunk_sum_ok(log, buf + p, n.used) &&
            n.first_gseq >= want) {
            *off = p;
            *h = n;
            return SL_OK;
        }
    }
    /* no piece follows: padding is 0xFF and unwritten flash 0xFF (or 0x00
     * where it erases to zero), so any other byte is a torn or damaged
     * piece; mount reports it (sl_stats.torn_pieces) */
    for (uint32_t p = next; p < log->chunk; p++)
        if ((uint8_t)(buf[p] + 1u) > 1u)
            return SL_TORN;
    return SL_ENOENT;
}

int sl_piece_at(const struct sl_log *log, const uint8_t *buf, uint32_t seg_seq, uint32_t index,
                uint32_t at, struct sl_chunk_hdr *h)
{
    uint32_t off = 0;
    if (sl_chunk_check(log, buf, seg_seq, index, h))
        return SL_ENOENT;
    while (off < at && sl_piece_next(log, buf, &off, h) == SL_OK)
        ;
    return off == at ? SL_OK : SL_ENOENT;
}

int sl_chunk_written(const uint8_t *buf, uint32_t seg_seq, uint32_t index, uint64_t first_gseq)
{
    /* a flip, or 8 bytes in a row, spoils at most two of these four
     * fields; an earlier lap's chunk matches magic and index but neither
     * number, a blank one none */
    int seq = sl_get32(buf + 8) == seg_seq, gseq = sl_get64(buf + 16) == first_gseq;
    int votes = seq + gseq + (sl_get16(buf) == SL_CHUNK_MAGIC) + (sl_get16(buf + 14) == index);
    return votes >= 2 && (seq || gseq);
}

/* A run's records take no header byte and may hold no data: the writer
 * closes a chunk at this many, so mount's count of a damaged chunk holds. */
uint32_t sl_chunk_max_records(const struct sl_log *log)
{
    return (log->chunk - SL_CHUNK_HDR) / SL_REC_HDR_MIN;
}

uint32_t sl_record_max(const struct sl_log *log)
{
    return log->chunk - log->data_off - SL_REC_HDR_MAX;
}

void sl_live_range(const struct sl_log *log, uint32_t *oldest, uint32_t *count)
{
    /* live segments form one run ending at the newest; the oldest has the
     * smallest sequence number */
    uint32_t best = SL_NO_SEG, n = 0;
    for (uint32_t i = 0; i < log->n_segs; i++) {
        const struct sl_seg_info *s = &log->segs[i];
        if (!s->seq)
            continue;
        n++;
        if (best == SL_NO_SEG || s->seq < log->segs[best].seq)
            best = i;
    }
    *oldest = best;
    *count = n;
}

/* ---- format and mount ------------------------------------------------------ */
static int erase_unit(struct sl_log *log, uint32_t seg, uint32_t unit);

int sl_erase_seg(struct sl_log *log, uint32_t seg)
{
    int rc;
    do /* nobody waits on a step here: the largest erase the device has */
        rc = erase_unit(log, seg, log->erase_large ? log->erase_large : log->erase_block);
    while (rc == SL_BUSY);
    return rc;
}

int sl_erase_step(struct sl_log *log, uint32_t seg)
{
    return erase_unit(log, seg, log->erase_block);
}

static int erase_unit(struct sl_log *log, uint32_t seg, uint32_t unit)
{
    struct sl_seg_info *s = &log->segs[seg];
    if (log->erasing != seg) {
        log->erasing = seg;
        log->erase_off = 0;
        s->seq = 0; /* (erased is 0 or SL_SEG_BLANK: a known erased one is not erased) */
    }
    /* last block first: the header's block goes last, so a cut between the
     * steps leaves either the old header (the segment still reads as the
     * oldest, its later blocks blank) or a segment erased through; never a
     * blank header in front of blocks that still hold data */
    uint64_t end = sl_seg_addr(log, seg) + log->seg_bytes - log->erase_off;
    int rc, done = 1, verify = s->erased;
    if (verify) {
        /* a segment that reads blank at its start is read through instead,
         * a chunk a step (reading costs far less than erasing - 4 KiB of
         * NOR in 0.1 ms against a sector's 45 ms - and wears nothing), and
         * erased from its end if a byte is not blank: the writer never
         * programs over another filesystem's data */
        unit = log->chunk;
        if (sl_read_raw(log, seg, (log->seg_bytes - log->erase_off) / unit - 1) ||
            !sl_all_bytes(log->cfg.read_buf, unit, 0xFF)) {
            s->erased = 0;
            log->erase_off = 0;
            return SL_BUSY;
        }
    } else {
        /* a step the size asked for where it fits aligned, else the smaller
         * unit (a segment part erased by smaller steps before) */
        /* (the log's base and segments are whole large units: the part of
         * the segment left says where the end is against one) */
        uint32_t left = log->seg_bytes - log->erase_off;
        if (unit > log->erase_block && (left % unit || left < unit))
            unit = log->erase_block;
        uint64_t at = end - unit;
        if (log->cfg.erase_slice_ns && log->cfg.bd.ops->erase_for)
            rc = log->cfg.bd.ops->erase_for(log->cfg.bd.ctx, at, unit, log->cfg.erase_slice_ns,
                                            &done);
        else
            rc = log->cfg.bd.ops->erase(log->cfg.bd.ctx, at, unit);
        if (rc) {
            log->erasing = SL_NO_SEG;
            if (rc == SL_EIO) /* a bad block: never used again */
                sl_retire(log, s);
            return rc;
        }
        if (!done) /* suspended: the same call resumes it */
            return SL_BUSY;
    }
    log->erase_off += unit;
    if (log->erase_off < log->seg_bytes)
        return SL_BUSY;
    log->erasing = SL_NO_SEG;
    s->erased = 1;
    if (!verify) {
        s->erase_count++;
        sl_count(&log->st.erases, 1);
    }
    return SL_OK;
}

void sl_retire(struct sl_log *log, struct sl_seg_info *s)
{
    if (!s->bad) {
        s->bad = 1;
        sl_count(&log->st.bad_segments, 1);
    }
}

uint32_t sl_next_usable(const struct sl_log *log, uint32_t seg)
{
    for (uint32_t k = 1; k <= log->n_segs; k++) {
        uint32_t i = (seg + k) % log->n_segs;
        if (!log->segs[i].bad)
            return i;
    }
    return SL_NO_SEG;
}

int sl_format(struct sl_log *log, const struct sl_config *cfg)
{
    int rc = sl_geometry(log, cfg);
    if (rc)
        return rc;
    /* O(1) device work beyond one segment: the headers are read (for the
     * erase counts, and the highest sequence number of whatever log was
     * here), the first usable segment is erased and opened, and the rest
     * are left as they are - free, to be erased when the pump gets to them.
     * The new log numbers its segments past the old log's by n_segs, so
     * mount tells an old header from a live one (drop_older_logs). A header
     * of another format, geometry or catalog size leaves its segment free
     * too (scanned as zero, to be erased before use). */
    uint32_t top = 0;
    for (uint32_t i = 0; i < log->n_segs; i++) {
        rc = sl_scan_segment(log, i);
        struct sl_seg_info *s = &log->segs[i];
        if (rc && rc != SL_FOREIGN && rc != SL_ECORRUPT)
            return rc;
        top = s->seq > top ? s->seq : top;
        s->seq = 0;
        s->rebuilt = 0;
        s->first_gseq = s->ts_start = 0;
    }
    rc = SL_EIO;
    for (uint32_t i = 0; i < log->n_segs && rc == SL_EIO; i++) /* a bad block: the next */
        rc = sl_erase_seg(log, i); /* (a scan never finds a segment known erased) */
    if (rc)
        return rc;
    /* the first segment opened gets top + n_segs + 1 */
    log->seq = top ? top + log->n_segs : 0;
    log->next_gseq = 0;
    log->ts_max = 0;
    log->mounted = 1;
    return sl_open_first(log);
}


/* One 64-bit counter of sl_stats goes up: a call where the add was a dozen
 * bytes of code at each of twenty places (the 8 KiB writer goal). */
void sl_count(uint64_t *counter, uint32_t n)
{
    *counter += n;
}

/* 1 << k in 64 bits (k < 64): a 64-bit shift is some twenty bytes of code
 * at each place on a 32-bit MCU (the catalog's page masks). */
uint64_t sl_bit(uint32_t k)
{
    return (uint64_t)1 << k;
}
