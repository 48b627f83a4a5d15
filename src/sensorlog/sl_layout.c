/* sensorlog: the layout. Geometry from the device and the configuration,
 * addresses, and the encodings of the catalog pages and the segment
 * header (docs/sensorlog-format.md); the CRC-32C they all carry. */
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
    log->hdr_read = (SL_DATA_OFF(log) + unit - 1) / unit * unit;
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
