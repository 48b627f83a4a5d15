/* sensorlog: the pump. It writes the chunk staging filled (sl_append.c),
 * catalog pages and segment headers, erases ahead and syncs, at most one
 * device operation per call, so a super loop or an I/O task stays in
 * control of its timing. */
#include "sl_internal.h"

/* FLIGHT_REFRESH: a page written again so that mount finds it among the
 * newest catalog chunks (SL_REFRESH_MAX_PAGES); one copy is enough, the
 * page's earlier copies say the same (a change not yet written stays dirty
 * and goes after, twice). */
enum { FLIGHT_NONE, FLIGHT_DATA, FLIGHT_CATALOG, FLIGHT_HEADER, FLIGHT_REFRESH };

/* ---- device operations ------------------------------------------------------ */
/* Starts writing buf at addr: on the device's non-blocking path when it has
 * one (SL_BUSY until a later pump sees it done), else at once. Only the
 * `used` bytes go, rounded up to the device's program unit: a chunk a sync
 * closed early, a segment header or a catalog page costs the pages it
 * fills, not the whole chunk (what a sync costs on NOR: 1 page, not 16).
 * The rest of the chunk's place stays as it is - erased, or trimmed - and
 * no chunk is ever written there: the CRCs cover only what was written. */
static int program(struct sl_log *log, uint64_t addr, uint8_t *buf, uint32_t used, int what)
{
    const struct sts_bd_ops *ops = log->cfg.bd.ops;
    /* (used <= chunk, and prog_unit divides chunk: n <= chunk) */
    uint32_t n = (used + log->prog_unit - 1) / log->prog_unit * log->prog_unit;
    SL_ASSERT(addr >= log->base && (addr - log->base) % log->chunk + n <= log->chunk &&
              addr + n <= log->base + (uint64_t)log->n_segs * log->seg_bytes);
    sl_count(&log->st.programmed_bytes, n);
    if (what == FLIGHT_DATA) { /* where the bytes of a data chunk go */
        uint32_t hdr = SL_SHORT && log->short_len ? log->short_len : SL_DATA_OFF(log);
        sl_count(&log->st.record_header_bytes, log->staged - log->staged_data);
        sl_count(&log->st.chunk_header_bytes, hdr);
        sl_count(&log->st.padding_bytes, n - hdr - log->staged);
    } else {
        sl_count(&log->st.meta_bytes, n);
    }
    log->in_flight = what; /* also when it fails at once: finish() sorts it out */
    if (ops->submit && ops->poll) {
        log->req = (struct sts_bd_req){STS_BD_PROGRAM, addr, buf, n, 0};
        int rc = ops->submit(log->cfg.bd.ctx, &log->req);
        return rc ? rc : SL_BUSY;
    }
    return ops->program(log->cfg.bd.ctx, addr, buf, n);
}

/* Seals chunk h in buf and starts writing it as the next chunk. */
static int program_chunk(struct sl_log *log, uint8_t *buf, const struct sl_chunk_hdr *h,
                         uint32_t used, int what)
{
    sl_chunk_seal(log, buf, h);
    return program(log, sl_chunk_addr(log, log->cur_seg, log->next_chunk) + SL_PIECE_OFF(log), buf,
                   used, what);
}

/* Catalog chunks after which the pages updated in the segment are written
 * again, so that mount, which walks back at most SL_CATALOG_UPDATES + 1
 * catalog chunks (the bound a version-3 reader keeps), finds each page's
 * newest copy among them or in the segment's header copy. A rewrite takes
 * at most P + 1 chunks (a pending mirror, then one copy a page; updates
 * wait), so from a rewrite cut part-way the walk reaches back through the
 * cycle before it and that cycle's rewrite: T + P <= 33 with T = 32 - P.
 * With more than 14 pages a cycle would leave too few chunks for updates:
 * a fresh segment after 32 catalog chunks, whose header's copy holds all. */
#define SL_REFRESH_MAX_PAGES 14u

/* The staged records went on from the piece before (a carried short piece,
 * version 7) but go out as a chunk's first piece: their first record is
 * written again to repeat nothing of the record before it: a head, its
 * length and step in full. Done as the writer leaves the piece's place,
 * before more records join them: they grow by at most 16 bytes, which the chunk's
 * first piece, ahead of where the short piece was going, leaves room for. */
static void uncarry(struct sl_log *log)
{
    uint8_t *carry = log->cfg.chunk_buf + SL_CARRY_AT;
    if (!log->staged_records) { /* nothing went on from it: the next record starts afresh */
        log->carried = 0;
        log->staged_part_end = 0;
        return;
    }
    if (!log->carried)
        return;
    uint8_t *out = log->cfg.chunk_buf + SL_DATA_OFF(log), h[SL_REC_HDR_MAX];
    const uint8_t *p = out, *end = out + log->staged;
    /* (a carried piece's first record never opens a run: it is headless
     * when like the one before, and a run takes over only a one-byte head) */
    uint64_t head = (uint64_t)sl_get16(carry) << SL_REC_HEAD_SHIFT, len = sl_get16(carry + 2),
             dts = 0;
    if (log->carried == 1) { /* (2: no head, like the record before) */
        (void)sl_get_varint(&p, end, &head); /* (the writer's own bytes: they parse) */
        if (head & SL_REC_LEN_FOLLOWS)
            (void)sl_get_varint(&p, end, &len);
        if (head & SL_REC_STEP_CHANGES)
            (void)sl_get_varint(&p, end, &dts);
    }
    uint64_t step = sl_get64(carry + 4) + sl_unzigzag(dts);
    uint32_t k = (uint32_t)sl_put_varint(h, (head >> SL_REC_HEAD_SHIFT << SL_REC_HEAD_SHIFT) |
                                                (len ? SL_REC_LEN_FOLLOWS : 0) |
                                                (step ? SL_REC_STEP_CHANGES : 0));
    if (len)
        k += (uint32_t)sl_put_varint(h + k, len);
    if (step)
        k += (uint32_t)sl_put_varint(h + k, sl_zigzag(step));
    uint32_t old = (uint32_t)(p - out);
    sl_move(out + k, p, (uint32_t)(end - p));
    memcpy(out, h, k);
    log->staged = log->staged + k - old;
    log->staged_plain_at = log->staged_run_at = SL_NO_SEG; /* (offsets moved) */
    log->carried = 0;
}

/* The writer leaves the place of the piece it was filling (the chunk is
 * done, or the staged records go elsewhere). */
static void leave_piece(struct sl_log *log)
{
    if (SL_PIECES)
        log->piece_off = 0;
    if (SL_SHORT)
        uncarry(log);
}

/* The writer leaves its chunk (and the pieces a sync left in it). */
static int next_slot(struct sl_log *log)
{
    leave_piece(log);
    log->next_chunk++;
    return SL_BUSY;
}

/* What a finished write means for the log. */
static void written(struct sl_log *log)
{
    int what = log->in_flight;
    log->in_flight = FLIGHT_NONE;
    log->fail_streak = 0;
    if (what == FLIGHT_HEADER) {
        struct sl_seg_info *s = &log->segs[log->open_target];
        s->seq = ++log->seq;
        s->first_gseq = sl_get64(log->cfg.read_buf + 16); /* the header's: still there */
        s->ts_start = log->ts_max;
        s->erased = 0;
        log->cur_seg = log->open_target;
        log->next_chunk = 1; /* the catalog pages come next */
        leave_piece(log);
        log->mount_end = 0;
        log->cat_chunk = SL_NO_CAT;
        log->cat_updates = 0;
        log->touched_pages = log->refresh_pages = 0;
        log->dirty_pages = 0; /* they carry every page */
        log->mirror_page = SL_NO_PAGE;
        return;
    }
    if (what != FLIGHT_DATA) { /* a catalog page */
        uint32_t bit = 1u << (log->flight_page & 31); /* kept only up to 14 pages */
        if (log->next_chunk >= log->hdr_chunks) {
            /* an update is written twice, in consecutive chunks: one damaged
             * copy does not lose a stream's name (mount reads the other) */
            if (what == FLIGHT_CATALOG)
                log->mirror_page = log->mirror_page == SL_NO_PAGE ? log->flight_page
                                                                  : SL_NO_PAGE;
            log->touched_pages |= bit;
            log->refresh_pages &= ~bit;
            if (++log->cat_updates >= SL_CATALOG_UPDATES - log->n_pages) {
                log->cat_updates = 0;
                if (log->n_pages > SL_REFRESH_MAX_PAGES)
                    log->next_chunk = log->chunks_per_seg; /* a fresh segment */
                else
                    log->refresh_pages = log->touched_pages;
            }
        }
        log->cat_chunk = (uint16_t)log->next_chunk;
    } else {
        uint32_t u = log->piece_unit,
                 at = log->piece_off + (SL_SHORT && log->short_len ? log->short_len : SL_DATA_OFF(log)) +
                      log->staged;
        log->staged = log->staged_records = log->staged_data = log->staged_part_end = 0;
        if (SL_SHORT)
            log->carried = 0;
        /* a chunk a sync closed goes on from its next page (its flags say
         * so), while a piece's header and a record fit after it (without
         * pieces the unit is the chunk: nothing fits) */
        if (SL_PIECES && (log->cfg.chunk_buf[3] & SL_FLAG_PADDED) &&
            (at = (at + u - 1) / u * u) + SL_CHUNK_HDR + SL_REC_HDR_MAX < log->chunk) {
            SL_ASSERT(at > log->piece_off); /* pieces only move on */
            log->piece_off = at;
            return;
        }
    }
    (void)next_slot(log);
}

/* Counts a failed device operation: a few in a row are the device's
 * problem (or a power cut) and are reported; one is a bad page or block,
 * worked around. */
static int failed(struct sl_log *log, int rc)
{
    sl_count(&log->st.write_errors, 1);
    return ++log->fail_streak > 3 ? rc : SL_BUSY;
}

/* A write that failed is redone elsewhere: a header in the next usable
 * segment (this one is retired), a chunk in a fresh segment (this one keeps
 * what it holds and is retired if its erase fails later). */
static int write_failed(struct sl_log *log, int rc)
{
    int what = log->in_flight;
    log->in_flight = FLIGHT_NONE;
    if (rc != SL_EIO)
        return rc;
    if (what == FLIGHT_HEADER) {
        struct sl_seg_info *s = &log->segs[log->open_target];
        s->erased = 0;
        sl_retire(log, s);
    } else {
        log->next_chunk = log->chunks_per_seg; /* the staged chunk stays for the next one */
        leave_piece(log);
    }
    return failed(log, rc);
}

static int finish(struct sl_log *log, int rc)
{
    if (rc == SL_OK && log->in_flight) {
        written(log);
        return SL_BUSY; /* more may follow */
    }
    if (rc < 0 && log->in_flight)
        return write_failed(log, rc);
    return rc;
}

static int erase_or_trim(struct sl_log *log, uint32_t seg)
{
    int rc = sl_erase_step(log, seg);
    if (rc == SL_EIO) /* retired by sl_erase_seg */
        return failed(log, rc);
    if (rc && rc != SL_BUSY)
        return rc;
    log->fail_streak = 0; /* a step done, or the whole segment */
    return SL_BUSY;
}

/* The oldest live segment leaves the log: the archive hook sees it first. */
static void evict(struct sl_log *log, uint32_t seg)
{
    struct sl_seg_info *s = &log->segs[seg];
    uint64_t end = log->next_gseq;
    for (uint32_t k = 1; k < log->n_segs; k++) { /* the next live one, past retired ones */
        const struct sl_seg_info *n = &log->segs[(seg + k) % log->n_segs];
        if (n->seq) {
            end = n->seq == s->seq + 1 ? n->first_gseq : end;
            break;
        }
    }
    if (log->cfg.evict)
        log->cfg.evict(log->cfg.evict_ctx, s->first_gseq, end);
    s->seq = 0;
    s->erased = 0;
    sl_count(&log->st.evictions, 1);
}

/* Opens the next segment in circular order: evict, erase, header. */
static int open_segment(struct sl_log *log)
{
    uint32_t target =
        sl_next_usable(log, log->cur_seg == SL_NO_SEG ? log->n_segs - 1 : log->cur_seg);
    if (target == SL_NO_SEG || target == log->cur_seg)
        return SL_EIO; /* every other segment is retired */
    SL_ASSERT(target < log->n_segs);
    struct sl_seg_info *s = &log->segs[target];
    if (s->seq)
        evict(log, target);
    if (s->erased != 1)
        return erase_or_trim(log, target);
    struct sl_seg_hdr h = {.seq = log->seq + 1, .erase_count = s->erase_count,
                           .first_gseq = log->next_gseq - log->staged_records,
                           .ts_start = log->ts_max};
    /* (a chunk still staged when a program failed is redone here: its
     * records are the segment's first; numbered from the next record to
     * stage, the segment put its header past them, and readers lost them) */
    log->read_gen++; /* the header is built in the read buffer */
    sl_seg_hdr_encode(log, log->cfg.read_buf, &h);
    log->open_target = target;
    return program(log, sl_seg_addr(log, target), log->cfg.read_buf, SL_SEG_HDR + 4,
                   FLIGHT_HEADER);
}

/* Writes catalog page k as the next chunk; it links to the catalog chunk
 * before it, so mount can walk the updates back. */
static int write_page(struct sl_log *log, uint32_t k, int what)
{
    if (SL_PIECES && log->piece_off)
        return next_slot(log); /* a catalog page takes a chunk of its own */
    uint8_t *buf = log->cfg.read_buf;
    log->read_gen++;
    memset(buf, 0xFF, log->chunk);
    size_t used = sl_catalog_page_encode(log, k, buf + SL_CHUNK_HDR);
    /* the spare word: this segment's erase count, so a damaged header can
     * be rebuilt from catalog page 0 */
    sl_put32(buf + SL_CHUNK_HDR + 4, log->segs[log->cur_seg].erase_count);
    log->flight_page = k;
    /* its first record number is the next one written: records still
     * staged are not (a cut may take them, and mount numbers on from here,
     * so no number goes to a record the log never held) */
    struct sl_chunk_hdr h = {SL_CHUNK_MAGIC, SL_CHUNK_CATALOG, 0, (uint16_t)used, 0, log->seq,
                             log->cat_chunk, (uint16_t)log->next_chunk,
                             log->next_gseq - log->staged_records, log->ts_max, log->ts_max,
                             log->catalog_version};
    log->dirty_pages &= ~sl_bit(k); /* a change from here on dirties it again */
    return program_chunk(log, buf, &h, SL_CHUNK_HDR + (uint32_t)used, what);
}

/* v != 0. In 32-bit halves: a 64-bit shift is a dozen instructions on a
 * 32-bit MCU, and GCC's 64-bit count (__ctzdi2) is a libgcc call. GCC and
 * Clang count a half's trailing zeros in two instructions; other compilers
 * (and the unit-bytewise test build) take the loop. */
static uint32_t lowest_bit(uint64_t v)
{
    uint32_t w = (uint32_t)v, k = 0;
    if (!w) {
        w = (uint32_t)(v >> 32);
        k = 32;
    }
#if defined(__GNUC__) && !defined(SL_NO_BUILTINS)
    return k + (uint32_t)__builtin_ctz(w);
#else
    while (!(w & 1)) {
        w >>= 1;
        k++;
    }
    return k;
#endif
}

static int write_staged(struct sl_log *log, int closed_by_sync)
{
    uint8_t *buf = log->cfg.chunk_buf;
    uint32_t cap = log->chunk - SL_DATA_OFF(log), v = 0;
    memset(buf + SL_DATA_OFF(log) + log->staged, 0xFF, cap - log->staged); /* padding */
    while (SL_PARTS && log->part >> (v + 8)) /* flags hold log2(part) - 7 */
        v++;
    uint8_t flags = (uint8_t)(v << SL_FLAG_PART_SHIFT | (closed_by_sync ? SL_FLAG_PADDED : 0));
    if (sl_short_pieces(log) && log->piece_off) {
        /* a short piece: magic and flags, its payload bytes, its records
         * and how far it raised the running maximum, before its records;
         * its CRC after them, going on from the piece before's */
        uint8_t hd[SL_SHORT_MAX], *p;
        uint64_t f[3] = {log->staged, log->staged_records, log->ts_max - log->staged_ts_base};
        uint32_t k = 1;
        /* (version 7: a piece of one record says so in its magic byte) */
        int one = sl_carries(log) && log->staged_records == 1;
        hd[0] = (uint8_t)(SL_SHORT_MAGIC | flags | (one ? SL_SHORT_ONE : 0) |
                          (log->carried == 2 ? SL_SHORT_LIKE : 0));
        for (int i = 0; i < 3; i++)
            if (i != 1 || !one)
                k += (uint32_t)sl_put_varint(hd + k, f[i]);
        p = memcpy(buf + SL_DATA_OFF(log) - k, hd, k);
        k += log->staged;
        log->piece_sum = sl_crc(log, log->piece_sum, p, k);
        sl_put32(p + k, log->piece_sum);
        buf[3] = flags; /* (what written() looks at) */
        log->short_len = (uint8_t)(k + 4 - log->staged);
        return program(log, sl_chunk_addr(log, log->cur_seg, log->next_chunk) + log->piece_off,
                       p, k + 4, FLIGHT_DATA);
    }
    struct sl_chunk_hdr h = {SL_CHUNK_MAGIC, SL_CHUNK_DATA, flags,
                             (uint16_t)log->staged, (uint16_t)log->staged_records, log->seq,
                             log->cat_chunk, (uint16_t)log->next_chunk,
                             log->next_gseq - log->staged_records,
                             log->staged_ts_base, log->ts_max, log->catalog_version};
    if (!SL_SHORT)
        return program_chunk(log, buf, &h, SL_DATA_OFF(log) + log->staged, FLIGHT_DATA);
    log->short_len = 0;
    /* (sealed first: a short piece after it goes on from its last 4 bytes) */
    int rc = program_chunk(log, buf, &h, SL_DATA_OFF(log) + log->staged, FLIGHT_DATA);
    log->piece_sum = sl_get32(buf + SL_DATA_OFF(log) + log->staged - 4);
    return rc;
}

/* Keeps cfg.free_segments erased ahead of the writer, in idle pumps. */
static int keep_floor(struct sl_log *log)
{
    if (log->cur_seg == SL_NO_SEG)
        return SL_OK;
    uint32_t ahead = 0;
    for (uint32_t i = sl_next_usable(log, log->cur_seg); i != SL_NO_SEG && i != log->cur_seg;
         i = sl_next_usable(log, i)) {
        struct sl_seg_info *s = &log->segs[i];
        if (s->erased == 1) { /* (free: erasing cleared its number) */
            if (++ahead >= log->cfg.free_segments)
                return SL_OK;
            continue;
        }
        if (s->seq)
            evict(log, i);
        return erase_or_trim(log, i);
    }
    return SL_OK;
}

int sl_settle(struct sl_log *log)
{
    while (log->in_flight) {
        struct sts_bd_req *done = NULL;
        int r = log->cfg.bd.ops->poll(log->cfg.bd.ctx, &done);
        if (r < 0)
            return r;
        if (r > 0 && done == &log->req) {
            r = finish(log, log->req.result);
            if (r < 0)
                return r;
        }
    }
    return SL_OK;
}

static int pump_step(struct sl_log *log)
{
    if (!log->mounted)
        return SL_EINVAL;
    if (log->in_flight) {
        struct sts_bd_req *done = NULL;
        int r = log->cfg.bd.ops->poll(log->cfg.bd.ctx, &done);
        if (r < 0)
            return r;
        if (r == 0 || done != &log->req)
            return SL_BUSY;
        return finish(log, log->req.result);
    }
    if (log->cur_seg == SL_NO_SEG || log->next_chunk >= log->chunks_per_seg)
        return finish(log, open_segment(log));
    if (log->next_chunk < log->hdr_chunks) /* the new segment's copy of the catalog */
        return finish(log, write_page(log, log->next_chunk - 1, FLIGHT_CATALOG));
    if (log->mirror_page != SL_NO_PAGE || log->refresh_pages) {
        int mirror = log->mirror_page != SL_NO_PAGE;
        uint32_t k = mirror ? log->mirror_page : lowest_bit(log->refresh_pages);
        uint64_t dirty = log->dirty_pages; /* a change since is still to be written */
        int rc = write_page(log, k, mirror ? FLIGHT_CATALOG : FLIGHT_REFRESH);
        log->dirty_pages = dirty;
        return finish(log, rc);
    }
    if (log->dirty_pages)
        return finish(log, write_page(log, lowest_bit(log->dirty_pages), FLIGHT_CATALOG));
    int full = sl_stage(log);
    sl_lock(log);
    int sync_due = log->sync_wanted && log->taken >= log->sync_target;
    uint32_t request = log->sync_requests; /* the newest this flush answers */
    sl_unlock(log);
    if (SL_PIECES && full && !log->staged_records)
        return next_slot(log); /* the record does not fit what its pieces left */
    if (full || (sync_due && log->staged_records))
        return finish(log, write_staged(log, !full));
    if (sync_due) {
        int rc = log->cfg.bd.ops->flush(log->cfg.bd.ctx);
        if (rc)
            return rc;
        sl_lock(log);
        log->syncs_done = request;
        if (log->sync_requests == request) /* none came in meanwhile */
            log->sync_wanted = 0;
        sl_unlock(log);
        sl_count(&log->st.syncs, 1);
        return SL_BUSY;
    }
    return log->cfg.manual_maintenance ? SL_OK : keep_floor(log);
}

int sl_open_first(struct sl_log *log)
{
    while (log->cur_seg == SL_NO_SEG || log->next_chunk < log->hdr_chunks) {
        int rc = pump_step(log);
        if (rc < 0)
            return rc;
    }
    return log->cfg.bd.ops->flush(log->cfg.bd.ctx);
}

/* Below which record number every record belongs to a deleted stream:
 * each live stream's records come after its creation. Found again when
 * the catalog changes. */
static uint64_t dead_below(struct sl_log *log)
{
    if (log->dead_version != log->catalog_version + 1) {
        uint64_t low = log->next_gseq;
        for (uint32_t i = 0; i < log->max_streams; i++)
            if (log->streams[i].id && log->streams[i].created_gseq < low)
                low = log->streams[i].created_gseq;
        log->dead_below = low;
        log->dead_version = log->catalog_version + 1;
    }
    return log->dead_below;
}

/* Managed media: the oldest segment, once every record in it belongs to a
 * stream since deleted, leaves the log now rather than when the writer
 * comes round to it - on a large medium, not for a long time: trimmed,
 * the device's garbage collection no longer copies it, and a model no
 * longer keeps it (issue 43: the paper suite's tests each left gigabytes
 * live behind them). One trim command for the whole segment. Only after
 * the deletes are on the medium, flushed: a cut must not bring back a
 * stream whose records are gone. Never the writer's segment nor the one
 * before it (mount's catalog may need its copy). Raw flash keeps its
 * segments until the writer erases them: an erase there takes
 * milliseconds a block, and wears. Here in maintenance, not in the pump,
 * so a logger that never deletes links none of it. */
static int trim_dead(struct sl_log *log)
{
    if (log->needs_erase || log->cur_seg == SL_NO_SEG || log->dirty_pages ||
        log->mirror_page != SL_NO_PAGE) /* (the deletes' pages written, both copies) */
        return SL_OK;
    uint32_t o = sl_oldest(log);
    uint32_t next = o == SL_NO_SEG || o == log->cur_seg ? SL_NO_SEG : sl_next_seg(log, o);
    if (next == SL_NO_SEG || next == log->cur_seg || log->segs[next].first_gseq > dead_below(log))
        return SL_OK;
    if (log->segs[next].first_gseq > log->durable_below) {
        int rc = log->cfg.bd.ops->flush(log->cfg.bd.ctx);
        if (rc)
            return rc;
        log->durable_below = log->dead_below;
        return SL_BUSY;
    }
    struct sl_seg_info *s = &log->segs[o];
    evict(log, o);
    /* a trim is advice to the device: one it fails fails no write. The
     * segment is left free and not known erased, so it is trimmed again
     * before the writer uses it, where a failure counts */
    if (log->cfg.bd.ops->erase(log->cfg.bd.ctx, sl_seg_addr(log, o), log->seg_bytes))
        return SL_BUSY;
    s->erased = 1;
    s->erase_count++;
    sl_count(&log->st.erases, 1);
    sl_count(&log->st.dead_trims, 1);
    return SL_BUSY;
}

int sl_maintain(struct sl_log *log)
{
    sl_io_lock(log);
    int rc = !log->mounted ? SL_EINVAL : log->in_flight ? SL_BUSY : keep_floor(log);
    if (rc == SL_OK)
        rc = trim_dead(log);
    sl_io_unlock(log);
    return rc;
}

int sl_pump(struct sl_log *log)
{
    sl_io_lock(log);
    uint64_t t0 = sl_now(log);
    int rc = pump_step(log);
    uint64_t dt = sl_now(log) - t0;
    if (dt > log->st.worst_pump_ns)
        log->st.worst_pump_ns = dt;
    sl_io_unlock(log);
    return rc;
}

static uint32_t request_sync(struct sl_log *log)
{
    sl_lock(log);
    /* every record appended so far has left the ring once taken gets here */
    log->sync_target = log->st.appended_records;
    log->sync_wanted = 1;
    uint32_t mine = ++log->sync_requests;
    sl_unlock(log);
    return mine;
}

void sl_sync_request(struct sl_log *log)
{
    (void)request_sync(log);
}

int sl_sync(struct sl_log *log)
{
    uint32_t mine = request_sync(log);
    for (;;) {
        sl_lock(log);
        /* done once a flush answered this request or a later one: other
         * tasks' requests never keep it waiting */
        int done = (int32_t)(log->syncs_done - mine) >= 0;
        sl_unlock(log);
        if (done)
            return SL_OK;
        int rc = sl_pump(log);
        if (rc < 0)
            return rc;
    }
}

_Static_assert(offsetof(struct sl_stats, torn_pieces) == offsetof(struct sl_counters, torn_pieces),
               "sl_stats starts with the log's counters");

void sl_stats(const struct sl_log *log, struct sl_stats *out)
{
    sl_io_lock(log);
    sl_lock(log);
    memset(out, 0, sizeof(*out));
    memcpy(out, &log->st, sizeof(log->st)); /* (the same fields first: SL_COUNTERS) */
    out->buffered_bytes = log->fill;
    sl_unlock(log);
    uint32_t per_seg = log->chunks_per_seg - log->hdr_chunks;
    out->capacity_bytes = (uint64_t)log->n_segs * per_seg * log->chunk;
    uint64_t free_chunks = 0;
    uint32_t live = 0, lo = UINT32_MAX, hi = 0;
    out->erase_min = UINT32_MAX;
    for (uint32_t i = 0; i < log->n_segs; i++) {
        const struct sl_seg_info *s = &log->segs[i];
        if (s->seq) { /* live segments number a run: what is missing in it was lost */
            live++;
            lo = s->seq < lo ? s->seq : lo;
            hi = s->seq > hi ? s->seq : hi;
        }
        if (!s->seq)
            free_chunks += per_seg;
        out->erase_min = s->erase_count < out->erase_min ? s->erase_count : out->erase_min;
        out->erase_max = s->erase_count > out->erase_max ? s->erase_count : out->erase_max;
    }
    if (log->cur_seg != SL_NO_SEG && log->next_chunk < log->chunks_per_seg)
        free_chunks += log->chunks_per_seg - log->next_chunk;
    out->free_bytes = free_chunks * log->chunk;
    out->lost_segments = live ? hi - lo + 1 - live : 0;
    out->write_amplification =
        out->appended_bytes ? (double)out->programmed_bytes / (double)out->appended_bytes : 0.0;
    sl_io_unlock(log);
}
