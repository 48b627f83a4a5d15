/* sensorlog: reading records. From the position sl_iter.c found, records
 * come out in log order: chunk by chunk, piece by piece, each checked by
 * its CRC (or its part's), across segments and the gaps lost headers
 * leave. */
#include "sl_internal.h"

/* The live segment after seg: the next one in circular order that holds
 * data (retired and free ones are passed over), if it comes later in the
 * log. A sequence number missing between them (a segment whose header and
 * stand-in were both lost) is a gap the reader steps over and counts: the
 * records after it are not hidden. */
uint32_t sl_next_seg(const struct sl_log *log, uint32_t seg)
{
    const struct sl_seg_info *a = &log->segs[seg];
    /* (the writer's is the newest: not a walk over every free segment) */
    for (uint32_t k = 1; a->seq && seg != log->cur_seg && k < log->n_segs; k++) {
        uint32_t n = (seg + k) % log->n_segs;
        const struct sl_seg_info *b = &log->segs[n];
        if (b->seq)
            return b->seq > a->seq ? n : SL_NO_SEG;
    }
    return SL_NO_SEG;
}

/* Chunks of a segment that may hold data. */
uint32_t sl_seg_end(const struct sl_log *log, uint32_t seg)
{
    /* (the writer's chunk, once a sync wrote a piece of it) */
    return seg == log->cur_seg ? log->next_chunk + (SL_PIECE_OFF(log) != 0) : log->chunks_per_seg;
}

/* The live segment before seg, if it comes earlier in the log (over a
 * gap, as next_seg). */
uint32_t sl_prev_seg(const struct sl_log *log, uint32_t seg)
{
    const struct sl_seg_info *a = &log->segs[seg];
    for (uint32_t k = 1; a->seq > 1 && k < log->n_segs; k++) {
        uint32_t p = (seg + log->n_segs - k) % log->n_segs;
        const struct sl_seg_info *b = &log->segs[p];
        if (b->seq)
            return b->seq < a->seq ? p : SL_NO_SEG;
    }
    return SL_NO_SEG;
}

/* The iterator starts on the chunk (piece) now in it->buf, whose header is h. */
void sl_take_chunk(struct sl_iter *it, const struct sl_chunk_hdr *h)
{
    it->gen = it->log->read_gen;
    it->loaded = 1;
    it->used = h->used;
    it->n_left = h->type == SL_CHUNK_DATA ? h->n_records : 0;
    it->part = sl_flags_part(h->flags);
    it->data_off = it->pos = it->piece + sl_data_off(it->log, it->part);
    it->avail = h->used;
    it->part_end = it->part;
    it->gseq = h->first_gseq;
    it->ts_base = it->ts_last = h->ts_base; /* the first record's step is from it */
    if (!sl_carries(it->log) || !(h->flags & SL_FLAG_SHORT))
        it->rec = (struct sl_rec_state){0, 0, 0, 0};
    /* (a carried piece goes on from the last record decoded; a first
     * record like it has no head: a run of one, as the decoder reads it) */
    it->rec.run_left = h->flags & SL_FLAG_LIKE ? 1 : 0;
    it->seg_end_gseq = h->first_gseq + h->n_records;
    _Static_assert(sizeof(*h) <= sizeof(it->piece_hdr), "sl_iter.piece_hdr holds a header");
    memcpy(it->piece_hdr, h, sizeof(*h));
}

/* Bytes [from, to) of the iterator's chunk into its buffer, widened to the
 * device's read unit (an eMMC reads 512-byte sectors). */
int sl_read_aligned(struct sl_log *log, const struct sl_iter *it, uint32_t from, uint32_t to)
{
    uint32_t u = log->read_unit;
    from -= from % u;
    to = (to + u - 1) / u * u;
    to = to < log->chunk ? to : log->chunk;
    return sl_read_at(log, it->seg, it->chunk, it->buf, from, to - from);
}

/* The header (and part table) of the iterator's chunk into its buffer:
 * already there when the last read was of this chunk (a search's probe,
 * the end of a segment found), else `lead` bytes read from its start. */
int sl_hdr_to_buf(struct sl_log *log, struct sl_iter *it, int reuse, uint32_t lead,
                      struct sl_chunk_hdr *h)
{
    uint32_t seq = log->segs[it->seg].seq;
    if (reuse && sl_chunk_hdr_check(log, it->buf, seq, it->chunk, h) == SL_OK)
        return SL_OK;
    if (sl_read_aligned(log, it, 0, lead) || sl_chunk_hdr_check(log, it->buf, seq, it->chunk, h))
        return SL_ENOENT;
    return SL_OK;
}

/* Loads chunk it->chunk in part, when it has parts: its header and table
 * (in the buffer already when the search's last read was of this chunk),
 * then two parts, from the last part whose records before it are all
 * before the key (pick), or from the first (read with the header, in one
 * command). On managed media a chunk is 16 KiB, a part 2. 1 when loaded;
 * 0 when anything does not check, and the chunk is then read whole, as a
 * chunk without parts is, where damage is sorted out. */
int sl_load_parts(struct sl_iter *it, int pick, int by_ts, uint64_t key)
{
    struct sl_log *log = it->log;
    struct sl_chunk_hdr h;
    uint8_t *b = it->buf;
    uint32_t lead = pick ? log->hdr_read : log->data_off + 2 * log->part;
    if (!SL_PARTS || !log->part || it->chunk >= sl_seg_end(log, it->seg))
        return 0; /* nothing on this medium has parts (raw flash): no read spent */
    if (sl_hdr_to_buf(log, it, pick, lead, &h) != SL_OK)
        return 0;
    uint32_t part = sl_flags_part(h.flags), off = sl_data_off(log, part);
    if (!part || off > log->hdr_read)
        return 0;
    const uint8_t *e = b + SL_CHUNK_HDR, *t = e;
    uint32_t from = 0;
    for (uint32_t at = part; pick && at < h.used; at += part) {
        t += SL_PART_ENTRY;
        if (sl_get16(t + 4) == SL_NO_ENTRY)
            continue; /* a record longer than a part covers it */
        if (by_ts ? sl_get64(t + 8) >= key : h.first_gseq + sl_get16(t + 6) > key)
            break;
        e = t;
        from = at;
    }
    uint32_t to = h.used - from > 2 * part ? from + 2 * part : h.used;
    uint32_t first = sl_get16(e + 4), index = sl_get16(e + 6);
    if (first < from || index >= h.n_records ||
        ((pick || off + to > lead) && sl_read_aligned(log, it, off + from, off + to)))
        return 0;
    /* the parts that check: a damaged one ends what this chunk gives */
    to = sl_part_sums(log, b, part, h.used, from, to, 0);
    if (first >= to)
        return 0;
    sl_take_chunk(it, &h);
    it->pos = off + first;
    it->n_left -= index;
    it->gseq += index;
    it->avail = to;
    it->part_end = from + part;
    return 1;
}

/* The next record of a chunk at *p (before end), after the one *s
 * describes: *s then describes it and *p points at its data; -1 when it
 * runs past end or makes no sense (a chunk sensorlog did not write). */
int sl_next_record(const uint8_t **p, const uint8_t *end, struct sl_rec_state *s)
{
    if (s->run_left) {
        s->run_left--;
    } else {
        uint64_t head, len = s->len, dts = 0;
        if (sl_get_varint(p, end, &head))
            return -1;
        if (head == SL_REC_RUN) { /* a count of records like the last one, this the first */
            if (*p >= end || !**p || !s->stream)
                return -1;
            s->run_left = (uint16_t)(*(*p)++ - 1);
        } else {
            uint64_t stream = head >> SL_REC_HEAD_SHIFT;
            if (((head & SL_REC_LEN_FOLLOWS) && sl_get_varint(p, end, &len)) ||
                ((head & SL_REC_STEP_CHANGES) && sl_get_varint(p, end, &dts)) || !stream ||
                stream > UINT16_MAX || len > UINT16_MAX)
                return -1;
            s->stream = (uint16_t)stream;
            s->len = (uint32_t)len;
            s->step += sl_unzigzag(dts);
        }
    }
    return s->len > (uint64_t)(end - *p) ? -1 : 0;
}

/* Before the record at payload offset `at`: a part's first record repeats
 * nothing of the one before it (the writer started it afresh, so a reader
 * can start there), and neither does the decoder. 1 when it starts afresh,
 * 0 when not, -1 in the middle of a run (the writer never lets one cross
 * into a part: not sensorlog's writing). */
int sl_part_start(uint32_t at, uint32_t part, uint32_t *part_end, struct sl_rec_state *s)
{
    if (!part || at < *part_end)
        return 0;
    *part_end = at / part * part + part;
    int bad = s->run_left != 0;
    *s = (struct sl_rec_state){0, 0, 0, 0};
    return bad ? -1 : 1;
}

/* Where decoding goes on in a chunk with parts (in buf, whole) when the
 * record at payload offset `at` does not decode - a part that does not
 * check ends what is read, or the records do not parse: at the next part
 * that checks and in which a record starts. Its table entry (the chunk's
 * CRC covers the table) says where and which record, and a part's first
 * record repeats nothing of the one before, so the records of a chunk's
 * other parts are not lost with one part's. The payload from there checks
 * up to the returned offset; 0 when no such part follows. */
uint32_t sl_resume(const struct sl_log *log, const uint8_t *buf, uint32_t part,
                       uint32_t used, uint32_t at, uint32_t *first, uint32_t *index)
{
    if (!SL_PARTS || !part)
        return 0;
    for (at = at / part * part + part; at < used; at += part) {
        const uint8_t *e = buf + SL_CHUNK_HDR + at / part * SL_PART_ENTRY;
        uint32_t f = sl_get16(e + 4), i = sl_get16(e + 6);
        if (f < at || f - at >= part || f >= used || i >= sl_get16(buf + 6))
            continue; /* no record starts in it (SL_NO_ENTRY) */
        uint32_t to = sl_part_sums(log, (uint8_t *)buf, part, used, at, used, 0);
        if (to > f) { /* (else this part does not check either) */
            *first = f;
            *index = i;
            return to;
        }
    }
    return 0;
}

/* 1 when the chunk in buf is one whose header and part table check but
 * some part does not (damage): *checked is where its payload stops
 * checking, from the part holding payload offset `at` on. */
int sl_damaged_in_parts(struct sl_log *log, const uint8_t *buf, uint32_t seg,
                            uint32_t chunk, uint32_t at, struct sl_chunk_hdr *h,
                            uint32_t *checked)
{
    if (!SL_PARTS || sl_chunk_hdr_check(log, buf, log->segs[seg].seq, chunk, h) != SL_OK)
        return 0;
    uint32_t part = sl_flags_part(h->flags);
    if (!part)
        return 0;
    *checked = sl_part_sums(log, (uint8_t *)buf, part, h->used, at / part * part, h->used, 0);
    return 1;
}

/* Loads it->chunk (again, if the writer reused the buffer); 1 when there is
 * no chunk there, 0 loaded, < 0 an error. */
static int load(struct sl_iter *it)
{
    struct sl_log *log = it->log;
    if (log->segs[it->seg].seq != it->seg_seq)
        return SL_EOVERTAKEN; /* recycled under the reader: what is there is not its */
    if (it->chunk >= sl_seg_end(log, it->seg))
        return 1;
    if (!it->loaded && it->partial) {
        it->partial = 0;
        if (sl_load_parts(it, 0, 0, 0))
            return 0;
    }
    struct sl_chunk_hdr h;
    uint32_t checked = 0;
    int rc = sl_read_chunk_into(log, it->seg, it->chunk, it->buf, &h);
    if (rc == SL_OK)
        checked = h.used;
    if (rc == SL_ENOENT) {
        /* the end of the segment's data, or a chunk written and then
         * damaged: the chunk after it checks, or - when this one still
         * names its place - any later one in the segment was written (after
         * a cut the writer goes on in a fresh segment, so a torn chunk is
         * its segment's last). A damaged one is passed over and counted,
         * never returned; a blank one is the end */
        int written = sl_chunk_written(it->buf, it->seg_seq, it->chunk,
                                       it->seg_end_gseq ? it->seg_end_gseq
                                                        : log->segs[it->seg].first_gseq);
        int damaged = 0;
        for (uint32_t k = it->chunk + 1, end = sl_seg_end(log, it->seg); k < end && !damaged; k++) {
            if (k == it->chunk + 1)
                damaged = sl_read_chunk_into(log, it->seg, k, it->buf, &h) == SL_OK;
            if (!written)
                break;
            if (!damaged && sl_read_at(log, it->seg, k, it->buf, 0, log->hdr_read) == SL_OK)
                damaged = sl_chunk_hdr_check(log, it->buf, it->seg_seq, k, &h) == SL_OK ||
                          sl_chunk_written(it->buf, it->seg_seq, k, 0);
        }
        if (!damaged) {
            it->torn += written; /* the last chunk written there: torn, or damaged */
            it->end_counted = written;
            return 1;
        }
        /* damaged inside the log: with parts, those that check are read
         * (from where the reader is, on a reload) and the records of the
         * one that does not are counted and passed over (iter_next) */
        if (!SL_PARTS || sl_read_into(log, it->seg, it->chunk, it->buf) != SL_OK ||
            !sl_damaged_in_parts(log, it->buf, it->seg, it->chunk,
                              it->loaded ? it->pos - it->data_off : 0, &h, &checked)) {
            it->skipped++;
            log->st.corrupt_chunks++;
            it->passed_over = 1;
            it->chunk++;
            it->piece = 0;
            it->loaded = 0;
            return 2;
        }
        rc = SL_OK;
    }
    if (rc)
        return rc;
    it->live = it->seg == log->cur_seg && it->chunk == log->next_chunk;
    if (it->loaded) { /* a reload: the position stays, in the piece it was in */
        it->gen = log->read_gen;
        it->loaded = 1;
        if (SL_PIECES && it->piece) {
            if (sl_piece_at(log, it->buf, it->seg_seq, it->chunk, it->piece, &h))
                return SL_EIO; /* (written once: it checked when first read) */
            checked = h.used;
        }
    } else {
        if (it->seg_end_gseq && h.first_gseq > it->seg_end_gseq && !it->passed_over) {
            it->skipped++; /* numbers missing after the chunk before: a damaged piece */
            log->st.corrupt_chunks++;
        }
        sl_take_chunk(it, &h);
        it->passed_over = 0;
    }
    it->avail = checked;
    return 0;
}

static int iter_next(struct sl_iter *it, struct sl_record *rec)
{
    struct sl_log *log = it->log;
    /* a stream deleted and its slot given to another since the iterator
     * began: the new stream's records are not this one's */
    const struct sl_stream_info *now = it->stream ? sl_stream_find(log, it->stream) : NULL;
    uint64_t until = now && now->created_gseq != it->created_gseq ? now->created_gseq : UINT64_MAX;
    while (!it->done) {
        if (it->loaded != 1 || (it->buf == log->cfg.read_buf && it->gen != log->read_gen)) {
            int rc = load(it);
            if (rc < 0)
                return rc;
            if (rc == 2)
                continue; /* a damaged chunk passed over */
            if (rc) { /* past this segment's data: on to the next, if it is there */
                if (it->seg == log->cur_seg && it->chunk >= log->next_chunk)
                    return SL_ENOENT; /* the writer's position: more may come */
                uint32_t n = sl_next_seg(log, it->seg);
                if (n == SL_NO_SEG)
                    return SL_ENOENT;
                /* numbers missing between this segment's last chunk read and
                 * the next segment's first: chunks at the end of this one that
                 * no longer look written (a damaged header), or a torn tail
                 * that mount numbered past. Either way, records passed over */
                if (log->segs[n].seq > it->seg_seq + 1) { /* a whole segment lost */
                    it->lost_segments += log->segs[n].seq - it->seg_seq - 1;
                    it->lost_records += it->seg_end_gseq && log->segs[n].first_gseq >
                                                                it->seg_end_gseq
                                            ? log->segs[n].first_gseq - it->seg_end_gseq
                                            : 0;
                } else if (!it->end_counted && it->seg_end_gseq &&
                           log->segs[n].first_gseq > it->seg_end_gseq) {
                    /* the oldest segment's tail may be erased already: an
                     * eviction a cut stopped (its header's block goes last)
                     * took those records, the log's oldest, by design; a
                     * segment whose data reaches its end lost its last
                     * records to damage (a piece) */
                    if (sl_prev_seg(log, it->seg) == SL_NO_SEG && it->chunk < sl_seg_end(log, it->seg))
                        it->evicted += log->segs[n].first_gseq - it->seg_end_gseq;
                    else
                        it->torn++;
                }
                it->end_counted = 0;
                it->seg_end_gseq = 0;
                it->seg = n;
                it->seg_seq = log->segs[n].seq;
                it->chunk = log->hdr_chunks;
                it->piece = 0;
                it->loaded = 0;
                continue;
            }
        }
        if (!it->n_left) {
            struct sl_chunk_hdr h;
            uint32_t at = it->piece;
            memcpy(&h, it->piece_hdr, sizeof(h));
            if (SL_PIECES && !it->part && sl_piece_next(log, it->buf, &at, &h) == SL_OK) {
                if (h.first_gseq > it->seg_end_gseq) { /* a damaged piece passed over */
                    it->skipped++;
                    log->st.corrupt_chunks++;
                }
                it->piece = at;
                sl_take_chunk(it, &h);
                continue;
            }
            if (SL_PIECES && it->live) { /* the writer's chunk when read: a piece may follow */
                it->loaded = 2; /* (read again, from where the reader is) */
                if (it->seg == log->cur_seg && it->chunk == log->next_chunk && log->piece_off)
                    return SL_ENOENT; /* the writer is still in it */
                continue;
            }
            it->loaded = 0;
            it->piece = 0;
            it->chunk++;
            continue;
        }
        const uint8_t *r = it->buf + it->pos;
        const uint8_t *end = it->buf + it->data_off + it->avail;
        int fresh = sl_part_start(it->pos - it->data_off, it->part, &it->part_end, &it->rec);
        if (fresh > 0)
            it->ts_last = it->ts_base;
        struct sl_rec_state was = it->rec;
        if (fresh < 0 || sl_next_record(&r, end, &it->rec)) {
            if (fresh >= 0 && it->avail < it->used) {
                /* entered at a part: more of the chunk, now the records get there
                 * (up to twice the offset reached: a reader going on through the
                 * chunk reads it in a few commands, one that wanted 1 KiB in one) */
                it->rec = was;
                uint32_t from = it->avail, to = from < it->used / 2 ? 2 * from : it->used;
                if (sl_read_aligned(log, it, it->data_off + from, it->data_off + to) == SL_OK) {
                    it->gen = log->read_gen;
                    it->avail = sl_part_sums(log, it->buf, it->part, it->used, from, to, 0);
                    if (it->avail > from)
                        continue; /* (up to a part that does not check, if one does not) */
                }
            }
            /* a part that does not check (damage), or the CRC held and the
             * records do not parse (not sensorlog's writing): counted, and
             * reading goes on at the next part that checks, if one does */
            it->skipped++;
            log->st.corrupt_chunks++;
            it->n_left = 0;
            if (sl_carries(log)) { /* a carried piece after it has nothing to go on
                                      from: the chunk ends here (as if full) */
                struct sl_chunk_hdr h;
                memcpy(&h, it->piece_hdr, sizeof(h));
                h.flags &= (uint8_t)~SL_FLAG_PADDED;
                memcpy(it->piece_hdr, &h, sizeof(h));
            }
            uint32_t at = it->pos - it->data_off, first, index, to = 0;
            uint32_t next = it->part ? at / it->part * it->part + it->part : it->used;
            if (next < it->used &&
                sl_read_aligned(log, it, it->data_off + next, it->data_off + it->used) == SL_OK) {
                it->gen = log->read_gen;
                to = sl_resume(log, it->buf, it->part, it->used, at, &first, &index);
            }
            uint64_t gseq = to ? sl_get64(it->buf + 16) + index : 0; /* the header's first + */
            if (to && gseq >= it->gseq) { /* never back */
                it->n_left = sl_get16(it->buf + 6) - index;
                it->gseq = gseq;
                it->pos = it->data_off + first;
                it->avail = to;
                it->part_end = first / it->part * it->part; /* a part's start: afresh */
                it->rec = (struct sl_rec_state){0, 0, 0, 0};
            }
            continue;
        }
        it->ts_last += it->rec.step;
        rec->stream = it->rec.stream;
        rec->len = (uint16_t)it->rec.len;
        rec->ts = it->ts_last;
        rec->gseq = it->gseq++;
        rec->data = r;
        it->pos = (uint32_t)(r + it->rec.len - it->buf);
        it->n_left--;
        if (rec->gseq >= until)
            return SL_ENOENT;
        if ((!it->stream || rec->stream == it->stream) && rec->gseq >= it->from_gseq &&
            rec->ts >= it->from_ts && rec->gseq >= it->created_gseq) {
            it->from_ts = 0; /* from the first at or after the time, every record after
                                it: a clock that went back hides none */
            return SL_OK;
        }
    }
    return SL_ENOENT;
}

void sl_iter_set_buffer(struct sl_iter *it, uint8_t *buf)
{
    struct sl_log *log = it->log;
    sl_io_lock(log); /* the pump reuses read_buf: not while it is copied */
    buf = buf ? buf : log->cfg.read_buf;
    if (it->loaded && buf != it->buf) { /* mid-chunk: the position stays */
        if (it->buf == log->cfg.read_buf && it->gen != log->read_gen)
            it->loaded = 2; /* the pump reused read_buf since: read the chunk again */
        else
            memcpy(buf, it->buf, log->chunk);
    }
    if (buf == log->cfg.read_buf)
        log->read_gen++; /* what other iterators had there is gone */
    it->buf = buf;
    it->gen = log->read_gen;
    sl_io_unlock(log);
}

int sl_iter_next(struct sl_iter *it, struct sl_record *rec)
{
    sl_io_lock(it->log);
    int rc = sl_settle(it->log);
    if (!rc)
        rc = iter_next(it, rec);
    sl_io_unlock(it->log);
    return rc;
}
