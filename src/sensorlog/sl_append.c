/* sensorlog: append and staging. Append only copies a record into the RAM
 * ring under the caller's lock; the pump (sl_write.c) takes records from
 * the ring into the chunk being staged, here, and writes the chunk. */
#include "sl_internal.h"

/* ---- the RAM ring (records as stream, len, ts, data: sl_internal.h) ------ */
static void ring_hdr_put(uint8_t *hdr, uint16_t stream, uint16_t len, uint64_t ts)
{
    memcpy(hdr, &stream, 2);
    memcpy(hdr + 2, &len, 2);
    memcpy(hdr + 4, &ts, 8);
}
static uint64_t ring_hdr_ts(const uint8_t *hdr)
{
    uint64_t v;
    memcpy(&v, hdr + 4, 8);
    return v;
}

/* (one copy each, outside sl_internal.h: copies of these in every file a
 * logger links cost more code than the calls) */
static void call(void (*fn)(void *), void *ctx)
{
    if (fn)
        fn(ctx);
}
void sl_lock(const struct sl_log *log) { call(log->cfg.lock, log->cfg.lock_ctx); }
void sl_unlock(const struct sl_log *log) { call(log->cfg.unlock, log->cfg.lock_ctx); }
void sl_io_lock(const struct sl_log *log) { call(log->cfg.io_lock, log->cfg.io_lock_ctx); }
void sl_io_unlock(const struct sl_log *log) { call(log->cfg.io_unlock, log->cfg.io_lock_ctx); }

uint64_t sl_now(const struct sl_log *log)
{
    return log->cfg.now_ns ? log->cfg.now_ns(log->cfg.clock_ctx) : 0;
}

void sl_ring_read(const struct sl_log *log, size_t at, void *dst, size_t n)
{
    size_t cap = log->cfg.buffer_bytes;
    if (n <= cap - at) {
        memcpy(dst, log->cfg.buffer + at, n);
        return;
    }
    memcpy(dst, log->cfg.buffer + at, cap - at);
    memcpy((uint8_t *)dst + (cap - at), log->cfg.buffer, n - (cap - at));
}

static void ring_write(struct sl_log *log, const void *src, size_t n)
{
    size_t cap = log->cfg.buffer_bytes, head = log->head;
    if (n <= cap - head) { /* the usual case: no wrap */
        memcpy(log->cfg.buffer + head, src, n);
    } else {
        memcpy(log->cfg.buffer + head, src, cap - head);
        memcpy(log->cfg.buffer, (const uint8_t *)src + (cap - head), n - (cap - head));
    }
    log->head = sl_ring_at(log, head, n);
}

/* The oldest record (n bytes with its header) leaves the ring; the caller
 * holds the lock. */
static void ring_consume(struct sl_log *log, size_t n)
{
    log->tail = sl_ring_at(log, log->tail, n);
    log->fill -= n;
    log->taken++;
}

/* Removes the oldest record; the caller holds the lock. */
static void ring_drop(struct sl_log *log)
{
    uint8_t hdr[SL_RING_HDR];
    sl_ring_read(log, log->tail, hdr, sizeof(hdr));
    ring_consume(log, SL_RING_HDR + sl_ring_hdr_len(hdr));
}

int sl_append(struct sl_log *log, uint16_t stream, uint64_t ts, const void *data, size_t len)
{
    if (len > log->chunk - SL_DATA_OFF(log) - SL_REC_HDR_MAX || (len && !data))
        return SL_EINVAL;
    size_t need = SL_RING_HDR + len;
    if (need > log->cfg.buffer_bytes)
        return SL_ENOMEM; /* it would never fit: no amount of pumping helps */
    uint64_t t0 = sl_now(log);
    uint8_t hdr[SL_RING_HDR];
    ring_hdr_put(hdr, stream, (uint16_t)len, ts);
    sl_lock(log);
    /* never created, deleted, or no such slot (id 0 wraps past the last) */
    if ((uint32_t)stream - 1u >= log->max_streams || log->streams[stream - 1].id != stream) {
        sl_unlock(log);
        return SL_ENOENT;
    }
    while (log->cfg.buffer_bytes - log->fill < need) {
        if (log->cfg.full_policy != SL_DROP_OLDEST || !log->fill) {
            sl_count(&log->st.rejected_records, 1);
            sl_unlock(log);
            return SL_EFULL;
        }
        ring_drop(log);
        sl_count(&log->st.dropped_records, 1);
    }
    ring_write(log, hdr, sizeof(hdr));
    if (len) /* (an event marker may come without a pointer: memcpy takes none) */
        ring_write(log, data, len);
    log->fill += need;
    sl_count(&log->st.appended_records, 1);
    sl_count(&log->st.appended_bytes, len);
    uint64_t dt = sl_now(log) - t0; /* with the wait for the lock: what the producer paid */
    if (dt > log->st.worst_append_ns)
        log->st.worst_append_ns = dt;
    sl_unlock(log);
    return SL_OK;
}

size_t sl_put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

/* ---- staging: records from the ring into the chunk ------------------------ */
/* 1 when the chunk cannot take the next record (it must be written). */
int sl_stage(struct sl_log *log)
{
    uint32_t cap = log->chunk - SL_PIECE_OFF(log) - SL_DATA_OFF(log);
    uint8_t *out = log->cfg.chunk_buf + SL_DATA_OFF(log);
    for (;;) {
        sl_lock(log);
        /* a sync closes the chunk at the records appended before it; taking
         * newer ones would keep it open as long as records keep coming */
        if (!log->fill || (log->sync_wanted && log->taken >= log->sync_target)) {
            sl_unlock(log);
            return 0;
        }
        uint8_t hdr[SL_RING_HDR];
        sl_ring_read(log, log->tail, hdr, sizeof(hdr));
        uint64_t ts = ring_hdr_ts(hdr);
        uint32_t len = sl_ring_hdr_len(hdr);
        if (!sl_ring_hdr_stream(hdr)) { /* its stream was deleted: it never reaches the device */
            ring_consume(log, SL_RING_HDR + len);
            sl_unlock(log);
            continue;
        }
        uint32_t part = SL_PARTS ? log->part : 0;
        /* a chunk's first record, and with parts each part's first, starts
         * afresh: it repeats nothing of the record before it, so a reader
         * can start decoding there (an empty chunk's boundary is 0: one test
         * a record finds both) */
        int fresh = log->staged >= log->staged_part_end;
        if (fresh) {
            if (!log->staged_records) {
                /* a short piece's time base is where the piece before left
                 * the running maximum: it is not written (version 6) */
                log->staged_ts_base = sl_short_pieces(log) && log->piece_off ? log->ts_max : ts;
                if (!SL_PIECES || !log->piece_off) /* the chunk's first number, for its bound */
                    log->staged_gseq = log->next_gseq;
                if (part) /* the part table: no entry yet */
                    memset(log->cfg.chunk_buf + SL_CHUNK_HDR, 0xFF, SL_DATA_OFF(log) - SL_CHUNK_HDR);
            }
            log->staged_ts_last = log->staged_ts_base;
            /* a carried short piece's first record goes on from the piece
             * before's last (version 7): a steady stream's is one byte */
            uint8_t *carry = log->cfg.chunk_buf + SL_CARRY_AT;
            if (SL_SHORT && !log->staged_records) {
                log->carried = sl_carries(log) && log->piece_off;
                sl_put16(carry, log->staged_stream_last);
                sl_put16(carry + 2, (uint16_t)log->staged_len_last);
                sl_put64(carry + 4, log->staged_step_last);
            }
            if (!(SL_SHORT && log->carried) || log->staged_records) {
                log->staged_step_last = 0;
                log->staged_len_last = 0;
                log->staged_stream_last = 0;
            }
            log->staged_plain_at = log->staged_run_at = SL_NO_SEG;
            /* without parts a boundary never comes: no test of the part
             * size on every record */
            log->staged_part_end = part ? (log->staged | (part - 1)) + 1 : UINT32_MAX;
        }
        uint16_t stream = sl_ring_hdr_stream(hdr);
        /* the change of step (wrapping 64-bit arithmetic): samples at a
         * steady rate store 0, one byte, whatever the clock's unit */
        uint64_t step = ts - log->staged_ts_last, dts = sl_zigzag(step - log->staged_step_last);
        /* a record just like the one before (stream, length, step) joins
         * its run for no header byte; the second such in a row opens one
         * in place of its predecessor's one-byte head (streams up to 31:
         * the run's 0 and count take one byte more), so a run never costs
         * more than plain heads would */
        uint32_t run = log->staged_run_at, plain = log->staged_plain_at;
        int like = stream == log->staged_stream_last && len == log->staged_len_last && !dts &&
                   log->version >= SL_VERSION_RUNS;
        int extend = like && run != SL_NO_SEG && out[run] < SL_RUN_MAX;
        /* (a run's record never starts past a part boundary) */
        int open = like && !extend && plain != SL_NO_SEG && stream < 32 &&
                   log->staged + 1 < log->staged_part_end;
        uint8_t h[SL_REC_HDR_MAX]; /* the header, when it is written */
        /* a carried piece's first record like the one before it has no
         * head: the piece's magic byte says so (version 7) */
        int headless = SL_SHORT && like && log->carried == 1 && !log->staged_records;
        uint32_t grow = extend || headless ? 0 : 1;
        if (!extend && !open && !headless) {
            uint32_t head = (uint32_t)stream << SL_REC_HEAD_SHIFT |
                            (len != log->staged_len_last ? SL_REC_LEN_FOLLOWS : 0) |
                            (dts ? SL_REC_STEP_CHANGES : 0);
            grow = (uint32_t)sl_put_varint(h, head);
            if (head & SL_REC_LEN_FOLLOWS)
                grow += (uint32_t)sl_put_varint(h + grow, len);
            if (dts)
                grow += (uint32_t)sl_put_varint(h + grow, dts);
        }
        /* the bound is the chunk's, over all its pieces: mount numbers past
         * a damaged newest chunk by it (records of no data in a run take no
         * byte, so bytes alone do not bound them) */
        if (log->staged + grow + len > cap ||
            (uint32_t)log->next_gseq - (uint32_t)log->staged_gseq >= sl_chunk_max_records(log)) {
            sl_unlock(log);
            return 1;
        }
        if (fresh && part) { /* the part's entry: where decoding may start */
            uint8_t *e = log->cfg.chunk_buf + SL_CHUNK_HDR + log->staged / part * SL_PART_ENTRY;
            sl_put16(e + 4, (uint16_t)log->staged);
            sl_put16(e + 6, (uint16_t)log->staged_records);
            sl_put64(e + 8, log->ts_max); /* the records before it: all below a key above this */
        }
        uint8_t *r = out + log->staged;
        if (extend) {
            out[run]++;
        } else if (open) { /* the predecessor's data moves up a byte */
            sl_move(out + plain + 1, out + plain, (uint32_t)(r - (out + plain)));
            out[plain] = SL_REC_RUN;
            out[plain + 1] = 2; /* the record before and this one */
            log->staged_run_at = plain + 1;
            log->staged_plain_at = SL_NO_SEG;
            r++;
        } else {
            /* (a headless record has no head for a run to take over) */
            log->staged_plain_at = like && !headless ? log->staged : SL_NO_SEG;
            log->staged_run_at = SL_NO_SEG;
            if (SL_SHORT)
                log->carried = (uint8_t)(log->carried + headless);
            memcpy(r, h, grow);
            r += grow;
        }
        sl_ring_read(log, sl_ring_at(log, log->tail, SL_RING_HDR), r, len);
        ring_consume(log, SL_RING_HDR + len);
        sl_unlock(log);
        log->staged_ts_last = ts;
        log->staged_step_last = step;
        log->staged_len_last = len;
        log->staged_stream_last = stream;
        log->staged += grow + len;
        log->staged_data += len;
        log->staged_records++;
        log->next_gseq++;
        SL_ASSERT(log->staged <= cap && log->staged_data <= log->staged);
        SL_ASSERT((uint32_t)log->next_gseq - (uint32_t)log->staged_gseq <=
                  sl_chunk_max_records(log));
        if (ts > log->ts_max)
            log->ts_max = ts;
    }
}
