/* sensorlog: chunks. Their headers sealed and checked, parts' CRCs, reads
 * that retry and step around a torn page, and the pieces a sync leaves in
 * a chunk (full ones, and short ones on a NOR without ECC). */
#include "sl_internal.h"

/* The chunk CRC: over bytes [0, 48) and the `len` after the CRCs (the
 * payload, or with parts the table). */
static int chunk_sum_ok(const struct sl_log *log, const uint8_t *buf, uint32_t len)
{
    return SL_CRC_MATCH(sl_get32(buf + 48), sl_crc(log, sl_crc(log, 0, buf, 48), buf + SL_CHUNK_HDR, len));
}

#if SL_PARTS
uint32_t sl_data_off(const struct sl_log *log, uint32_t part)
{
    return SL_CHUNK_HDR + (part ? (log->chunk - SL_CHUNK_HDR + part - 1) / part * SL_PART_ENTRY : 0);
}
#endif

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
    return log->chunk - SL_DATA_OFF(log) - SL_REC_HDR_MAX;
}

uint32_t sl_oldest(struct sl_log *log)
{
    /* live segments form one run ending at the newest; the oldest has the
     * smallest sequence number. Only new segments come after it, so while
     * the one found last still holds its number it is still the oldest: a
     * search does not pass over every segment again (a million on a 1 TiB
     * medium, for every read that starts) */
    uint32_t m = log->oldest_memo;
    if (log->oldest_memo_seq && m < log->n_segs && log->segs[m].seq == log->oldest_memo_seq)
        return m;
    uint32_t best = SL_NO_SEG;
    for (uint32_t i = 0; i < log->n_segs; i++) {
        const struct sl_seg_info *s = &log->segs[i];
        if (s->seq && (best == SL_NO_SEG || s->seq < log->segs[best].seq))
            best = i;
    }
    log->oldest_memo = best;
    log->oldest_memo_seq = best == SL_NO_SEG ? 0 : log->segs[best].seq;
    return best;
}
