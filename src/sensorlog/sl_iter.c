/* sensorlog: where a read starts. A start position is found by bisection,
 * first over the segments (their first sequence number and starting
 * timestamp are in RAM since mount), then over the chunks of one segment
 * (O(log n) reads); the latest N records by walking back from the end.
 * Timestamps are searched through their running maximum, which only grows,
 * so records appended slightly out of order between streams are still
 * found. From there sl_read.c reads on. */
#include "sl_internal.h"

/* The last live segment whose key is below (ts) or at (gseq) the target:
 * bisection over circular offsets from the oldest to the writer's segment
 * (the newest: the free ones after it are not searched, which on a large
 * medium little written - a million segments - were most of a search),
 * passing over retired and lost ones (in RAM: no device reads). */
static uint32_t find_seg(struct sl_log *log, int by_ts, uint64_t key)
{
    uint32_t oldest = sl_oldest(log), n = log->n_segs;
    if (oldest == SL_NO_SEG)
        return SL_NO_SEG;
    /* offset lo is live and before the target (or the oldest) */
    uint32_t lo = 0, hi = log->cur_seg < n ? (log->cur_seg + n - oldest) % n + 1 : n;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2, m = mid;
        while (m < hi && !log->segs[(oldest + m) % n].seq)
            m++;
        if (m == hi) { /* nothing live in [mid, hi) */
            hi = mid;
            continue;
        }
        const struct sl_seg_info *s = &log->segs[(oldest + m) % n];
        if (by_ts ? s->ts_start < key : s->first_gseq <= key)
            lo = m;
        else
            hi = mid;
    }
    return (oldest + lo) % n;
}

/* 1 when every chunk before the one whose header h (and part table) is in
 * read_buf ends before the key: by number, its first record's says so; by
 * time, the running maximum before its first record, in its part table. */
static int starts_past(const struct sl_log *log, const struct sl_chunk_hdr *h, int by_ts,
                       uint64_t key)
{
    if (!by_ts)
        return h->first_gseq <= key;
    uint32_t part = sl_flags_part(h->flags);
    return part && sl_get64(log->cfg.read_buf + SL_CHUNK_HDR + 8) < key; /* checked with h */
}

/* First chunk of seg that can hold the target, by its headers alone (a
 * header read costs a command, not a chunk's transfer), an unreadable
 * header counting as past the end. The first probe is where the key
 * should lie if keys grew evenly from the segment's start to the next
 * one's (both in RAM); from there probes gallop toward the target (2, 4,
 * 8 ... chunks on) until they pass it, and bisection finishes. A steady
 * stream, whose guess is off by two chunks at most, takes three reads;
 * keys that do not grow evenly (a facade's per-file offsets, a clock that
 * jumped) at most about twice bisection's log2(n). Where a probe can tell
 * that the chunk before it ends before the target (by number; by time
 * with parts, whose table holds the running maximum before the chunk), a
 * probe that lands on the target ends the search: a first probe short of
 * it aims the second by how far short it fell, and galloping steps by 1,
 * 2, 4 ... from there: a steady stream in one or two reads. */
static uint32_t find_chunk(struct sl_log *log, uint32_t seg, int by_ts, uint64_t key)
{
    uint32_t lo = log->hdr_chunks, hi = sl_seg_end(log, seg), next = sl_next_seg(log, seg);
    if (seg == log->cur_seg && log->mount_end)
        hi = log->mount_end; /* after a mount: where the data ends (the rest is unwritten) */
    const struct sl_seg_info *s = &log->segs[seg];
    /* keys as chunk ends: the largest timestamp so far, or one past the
     * last sequence number (the target's end is past `key`) */
    uint64_t end = key + (!by_ts && key < UINT64_MAX);
    uint64_t klo = by_ts ? s->ts_start : s->first_gseq;
    uint64_t khi = next != SL_NO_SEG ? (by_ts ? log->segs[next].ts_start
                                              : log->segs[next].first_gseq)
                   : by_ts ? log->ts_max
                           : log->next_gseq;
    uint64_t per = khi > klo && hi > lo ? sl_div64(khi - klo, hi - lo, NULL) : 0; /* keys a chunk */
    per += per < UINT64_MAX; /* (a damaged header's keys must not wrap it to 0) */
    uint64_t mid = end <= klo ? lo : end >= khi ? hi : lo + sl_div64(end - klo, per, NULL);
    int first = -1, after = 0; /* the first probe's answer; -1 once galloping is over */
    /* a probe can tell that the chunk before it ends before the target (by
     * number always, by time with parts): one read lands on the target. Else
     * the target is two probes, before and after it */
    int lands = !by_ts || log->part;
    uint32_t jump = lands ? 1 : 2;
    uint64_t reach = 0; /* where the last probe's chunk ended, when before the target */
    uint32_t hit = UINT32_MAX; /* the probe that landed on the target */
    int closed = -1; /* the chunk before lo was closed by a sync (-1: not read) */
    for (int probe = 0, aimed = 0; lo < hi; probe++) {
        if (probe == 1 && !after && lands) { /* short of the target by (end - reach) keys: aimed there,
                                       and galloping starts over from that probe */
            mid = lo - 1 + sl_div64(end - reach - 1, per, NULL) + 1;
            aimed = 1;
        } else if (probe && first == after) { /* still on the first probe's side: gallop */
            mid = after ? (hi - lo > jump ? hi - jump : lo) : lo + jump - 1;
            jump = jump < 0x40000000u ? 2 * jump : jump;
        } else if (probe) { /* passed the target: bisection */
            first = -1;
            mid = lo + (hi - lo) / 2;
        }
        mid = mid < hi ? mid : hi - 1;
        struct sl_chunk_hdr h;
        after = 1;
        int past = 0;
        if (sl_read_chunk_hdr(log, seg, (uint32_t)mid, &h) == SL_OK) {
            reach = by_ts ? h.ts_hi : h.first_gseq + h.n_records;
            after = reach >= end;
            past = after && starts_past(log, &h, by_ts, key);
        }
        if (!probe || aimed)
            first = after;
        aimed = 0;
        if (after) {
            hi = (uint32_t)mid;
        } else {
            lo = (uint32_t)mid + 1;
            closed = h.flags & SL_FLAG_PADDED; /* (read: an unreadable one is after) */
        }
        if (past)
            hit = lo = (uint32_t)mid; /* found: one read when the guess was right */
    }
    /* a probe's header is its chunk's first piece: the pieces a sync left
     * after it may hold the target, so the chunk before the one found is
     * read too when it was closed by a sync (version 5) */
    struct sl_chunk_hdr h;
    if (SL_PIECES && log->version >= SL_VERSION_PIECES && !log->part && lo > log->hdr_chunks &&
        hit != lo &&
        closed &&
        (closed > 0 || (sl_read_chunk_hdr(log, seg, lo - 1, &h) == SL_OK &&
                        (h.flags & SL_FLAG_PADDED))))
        lo--;
    return lo;
}

/* What every start shares: the device and read_buf to ourselves, the
 * stream known. */
static int iter_begin(struct sl_log *log, struct sl_iter *it, uint16_t stream)
{
    memset(it, 0, sizeof(*it));
    it->log = log;
    it->buf = log->cfg.read_buf;
    int rc = sl_settle(log);
    if (rc)
        return rc;
    it->stream = stream;
    if (stream) {
        const struct sl_stream_info *s = sl_stream_find(log, stream);
        if (!s)
            return SL_ENOENT;
        it->created_gseq = s->created_gseq;
    }
    return SL_OK;
}

static int iter_init(struct sl_log *log, struct sl_iter *it, uint16_t stream, int by_ts,
                     uint64_t key)
{
    int rc = iter_begin(log, it, stream);
    if (rc)
        return rc;
    if (by_ts)
        it->from_ts = key;
    else
        it->from_gseq = key;
    it->seg = find_seg(log, by_ts, key);
    if (it->seg == SL_NO_SEG) {
        it->done = 1;
        return SL_OK;
    }
    it->chunk = find_chunk(log, it->seg, by_ts, key);
    it->seg_seq = log->segs[it->seg].seq;
    /* a search is how a reader after a few records starts: the chunk it
     * lands in and the next are read in parts */
    it->partial = sl_load_parts(it, 1, by_ts, key);
    return SL_OK;
}

/* One past the last chunk written in a segment: chunks are written in
 * order, so the written ones are a prefix, found by bisection over headers
 * when the last one is not written (a segment closed early - after a
 * remount the writer starts a new one - leaves its tail unwritten, and
 * walking back through it chunk by chunk read every empty one). */
static uint32_t written_end(struct sl_log *log, uint32_t seg)
{
    uint32_t lo = log->hdr_chunks, hi = sl_seg_end(log, seg);
    if (seg == log->cur_seg) /* in RAM, no read: the writer's position, or where mount
                                found the data to end (a torn last chunk there is
                                passed over and counted by the reader) */
        return log->mount_end ? log->mount_end : hi;
    struct sl_chunk_hdr last;
    if (hi > lo && sl_read_chunk_hdr(log, seg, hi - 1, &last) == SL_OK)
        return hi; /* the usual case: one header read */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        struct sl_chunk_hdr h;
        if (sl_read_chunk_hdr(log, seg, mid, &h) == SL_OK)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Counts the records of `it->stream` (every stream: 0) in the data chunk
 * in it->buf whose payload checks up to `checked`, oldest first, as the
 * forward read gives them (past a part that does not check); stops at the
 * stop_after-th (0: none), whose sequence number *gseq_of_last then holds. */
static int64_t piece_matches(const struct sl_iter *it, uint32_t piece, const struct sl_chunk_hdr *h,
                             uint32_t checked, uint64_t stop_after, uint64_t *gseq_of_last,
                             struct sl_rec_state *carry)
{
    uint32_t part = sl_flags_part(h->flags), part_end = part;
    const uint8_t *base = it->buf + piece + sl_data_off(it->log, part), *r = base,
                  *end = r + checked;
    uint64_t m = 0;
    struct sl_rec_state s = *carry; /* the record before: a carried piece's goes on from it */
    if (!sl_carries(it->log) || !(h->flags & SL_FLAG_SHORT))
        s = (struct sl_rec_state){0, 0, 0, 0};
    s.run_left = h->flags & SL_FLAG_LIKE ? 1 : 0; /* (as take_chunk) */
    for (uint32_t i = 0; i < h->n_records; i++) {
        uint32_t at = (uint32_t)(r - base);
        if (sl_part_start(at, part, &part_end, &s) < 0 || sl_next_record(&r, end, &s)) {
            uint32_t first, index, to = sl_resume(it->log, it->buf, part, h->used, at, &first, &index);
            if (!to || index < i) {
                carry->run_left = 1; /* the forward read gives no more of this chunk either */
                return (int64_t)m;
            }
            r = base + first;
            end = base + to;
            part_end = first / part * part; /* a part's start: afresh */
            s = (struct sl_rec_state){0, 0, 0, 0};
            i = index - 1; /* (index 0: wraps to 0 with the loop's i++) */
            continue;
        }
        r += s.len;
        uint64_t g = h->first_gseq + i;
        if ((!it->stream || s.stream == it->stream) && g >= it->created_gseq) {
            *gseq_of_last = g;
            if (++m == stop_after)
                break;
        }
    }
    *carry = s;
    return (int64_t)m;
}

/* piece_matches over the chunk's pieces, from its first (header h). */
static int64_t chunk_matches(const struct sl_iter *it, const struct sl_chunk_hdr *h,
                             uint32_t checked, uint64_t stop_after, uint64_t *gseq_of_last)
{
    struct sl_chunk_hdr p = *h;
    struct sl_rec_state s = {0, 0, 0, 0};
    uint32_t off = 0;
    int64_t m = 0;
    for (;;) {
        m += piece_matches(it, off, &p, checked, stop_after ? stop_after - (uint64_t)m : 0,
                           gseq_of_last, &s);
        /* (a piece whose records did not parse leaves a carried piece after
         * it nothing to go on from: run_left, which a piece's end clears, set) */
        if (!SL_PIECES || (stop_after && (uint64_t)m == stop_after) ||
            (sl_carries(it->log) && s.run_left) ||
            sl_piece_next(it->log, it->buf, &off, &p) != SL_OK)
            return m;
        checked = p.used;
    }
}

/* The newest chunk of a walk back, often closed early by a sync, read as
 * far as it is used: its header (and part table), then the rest of what
 * it holds - on managed media a sector or two instead of 16 KiB. */
static int read_used(struct sl_log *log, struct sl_iter *it, struct sl_chunk_hdr *h)
{
    if (sl_hdr_to_buf(log, it, 1, log->hdr_read, h) != SL_OK)
        return SL_ENOENT;
    uint32_t end = sl_data_off(log, sl_flags_part(h->flags)) + h->used;
    if (end > log->hdr_read && sl_read_aligned(log, it, log->hdr_read, end))
        return SL_ENOENT;
    return sl_chunk_check(log, it->buf, log->segs[it->seg].seq, it->chunk, h);
}

/* Walks back from the newest chunk written (its place is in RAM: no
 * search) until n records of the stream are behind the walk, then starts
 * the iterator at the chunk holding the n-th newest. Each chunk passed is
 * read once here and once more when the records are read forward. */
static int iter_latest(struct sl_log *log, struct sl_iter *it, uint16_t stream, uint64_t n)
{
    int rc = iter_begin(log, it, stream);
    if (rc)
        return rc;
    uint32_t seg = log->cur_seg, chunk = 0;
    uint64_t found = 0;
    int start = 0, reads = 0, small = 0; /* the newest chunk fits a load in parts */
    struct sl_chunk_hdr start_hdr;
    uint32_t start_checked = 0;
    int next_ok = 0; /* the chunk after the one read checked (the walk goes back) */
    it->done = seg == SL_NO_SEG || n == 0;
    if (!it->done)
        chunk = written_end(log, seg);
    while (!it->done && found < n) {
        if (chunk <= log->hdr_chunks) { /* on to the segment before, if the log goes on there */
            uint32_t p = sl_prev_seg(log, seg);
            if (p == SL_NO_SEG)
                break; /* fewer than n: all of them, from the oldest chunk reached */
            seg = p;
            chunk = written_end(log, seg);
            next_ok = 0; /* its last chunk is where the forward read ends a segment */
            continue;
        }
        chunk--;
        struct sl_chunk_hdr h;
        it->seg = seg;
        it->chunk = chunk;
        if (SL_PARTS && log->part && !reads++) { /* large chunks: the newest as far as used */
            rc = read_used(log, it, &h);
            small = rc == SL_OK && h.used <= 2 * log->part;
        } else {
            rc = sl_read_chunk_into(log, seg, chunk, it->buf, &h);
        }
        /* a damaged chunk's parts that check count when the chunk after it
         * checks, as the forward read takes them (else it is a torn end) */
        uint32_t checked = 0;
        int inside = next_ok;
        next_ok = rc == SL_OK;
        if (rc == SL_OK)
            checked = h.used;
        else if (rc == SL_ENOENT && inside &&
                 sl_damaged_in_parts(log, it->buf, seg, chunk, 0, &h, &checked))
            rc = SL_OK;
        if (rc != SL_OK || h.type != SL_CHUNK_DATA)
            continue; /* damaged (the forward read counts it) or a catalog page */
        uint64_t last = 0;
        int64_t m = chunk_matches(it, &h, checked, 0, &last);
        if (m <= 0)
            continue;
        if (found + (uint64_t)m >= n) { /* the (m - (n - found) + 1)-th here is the start */
            chunk_matches(it, &h, checked, (uint64_t)m - (n - found) + 1, &last);
            it->from_gseq = last;
            start = 1;
            start_hdr = h;
            start_checked = checked;
            break;
        }
        found += (uint64_t)m;
    }
    it->seg = seg;
    it->chunk = chunk;
    it->seg_seq = seg == SL_NO_SEG ? 0 : log->segs[seg].seq;
    it->loaded = 0;
    if (start) { /* the chunk the walk stopped in is in the buffer: read once, not twice */
        it->live = seg == log->cur_seg && chunk == log->next_chunk;
        sl_take_chunk(it, &start_hdr);
        it->avail = start_checked;
        it->partial = reads == 2 && small; /* the newest after it, in parts: a sync's few */
    }
    return SL_OK;
}

int sl_iter_latest(struct sl_log *log, struct sl_iter *it, uint16_t stream, uint64_t n)
{
    sl_io_lock(log);
    int rc = iter_latest(log, it, stream, n);
    sl_io_unlock(log);
    return rc;
}

int sl_iter_from_gseq(struct sl_log *log, struct sl_iter *it, uint16_t stream, uint64_t gseq)
{
    sl_io_lock(log);
    int rc = iter_init(log, it, stream, 0, gseq);
    sl_io_unlock(log);
    return rc;
}

int sl_iter_from_ts(struct sl_log *log, struct sl_iter *it, uint16_t stream, uint64_t ts)
{
    sl_io_lock(log);
    int rc = iter_init(log, it, stream, 1, ts);
    sl_io_unlock(log);
    return rc;
}
