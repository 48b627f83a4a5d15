/* sensorlog: mount. It reads every segment header (one read each), finds
 * the end of the newest segment by bisection (O(log n) chunk reads) and its
 * catalog; it never replays the log. What it cannot read it retries; what
 * does not check it rebuilds from a redundant copy or passes over and
 * counts (sl_stats: repaired, corrupt_chunks). It never takes a segment
 * for erased, or a log for absent, on the strength of a read error. */
#include "sl_internal.h"

int sl_all_bytes(const uint8_t *p, uint32_t n, uint8_t v)
{
    for (uint32_t i = 0; i < n; i++)
        if (p[i] != v)
            return 0;
    return 1;
}

/* What chunk 0 of segment i says, into segs[i]. A header that does not
 * check (torn by a cut, or damaged) is stood in for by chunk 1, catalog
 * page 0, which carries the segment's sequence number, first record, start
 * time and erase count too; mount later keeps such a stand-in only if its
 * sequence number belongs to the live run. */
int sl_scan_segment(struct sl_log *log, uint32_t i)
{
    struct sl_seg_info *s = &log->segs[i];
    uint8_t *buf = log->cfg.read_buf;
    memset(s, 0, sizeof(*s));
    struct sl_seg_hdr h;
    int rc = sl_read_raw(log, i, 0);
    if (rc && rc != SL_EIO)
        return rc;
    if (rc == SL_OK) {
        int drc = sl_seg_hdr_decode(log, buf, &h);
        if (drc == SL_ECORRUPT || drc == SL_FOREIGN)
            return drc; /* a newer format (refuse) / another log's geometry */
        if (drc == SL_OK) {
            s->seq = h.seq; /* (the rest of *s is 0) */
            s->erase_count = h.erase_count;
            s->first_gseq = h.first_gseq;
            s->ts_start = h.ts_start;
            s->version = (uint8_t)h.version;
            return SL_OK;
        }
        if (sl_all_bytes(buf, log->chunk, 0xFF)) {
            /* blank at its start: erased by sensorlog (the header's block
             * goes last), or never written by it - a chip that held other
             * data may be blank there and not behind: verified before use */
            s->erased = (uint8_t)(log->needs_erase * SL_SEG_BLANK); /* (managed: trimmed) */
            return SL_OK;
        }
        if (sl_all_bytes(buf, log->chunk, 0x00))
            return SL_OK; /* trimmed */
    }
    /* torn (reads fail every time) or damaged: look at catalog page 0 */
    struct sl_chunk_hdr c;
    rc = sl_read_raw(log, i, 1);
    if (rc == SL_OK && sl_chunk_check(log, buf, sl_get32(buf + 8), 1, &c) == SL_OK &&
        c.type == SL_CHUNK_CATALOG && c.seg_seq) {
        s->seq = c.seg_seq; /* its version: the others' */
        s->erase_count = sl_get32(buf + SL_CHUNK_HDR + 4);
        s->first_gseq = c.first_gseq;
        s->ts_start = c.ts_hi;
        s->rebuilt = 1;
    }
    return rc == SL_EIO || rc == SL_OK ? SL_OK : rc;
}

/* A live log's segments have sequence numbers within n_segs of the newest
 * (each segment opened takes the next number, and there are n_segs): a
 * header further back is from a log that sl_format() replaced without
 * erasing it (the new log numbers its segments past the old ones by
 * n_segs). Such a segment is free, and must be erased before it is used.
 * A rebuilt header (catalog page 0 standing in for it) is kept by the same
 * bound and only when no other segment has its number: a catalog page left
 * from an earlier lap on a medium that keeps old data is not taken for a
 * live segment. (A bound of n_segs - 1 for rebuilt ones dropped the oldest
 * segment of a log using every segment whenever its header was damaged,
 * and said nothing. A lap's page that passes - its segment's header torn
 * as the writer opened it, on media that keep trimmed data - brings back
 * records that were evicted, each intact and in its place: never a wrong
 * one.) */
static void drop_older_logs(struct sl_log *log, uint32_t head)
{
    uint32_t n = log->n_segs, max = 0;
    struct sl_seg_info *segs = log->segs;
    uint32_t top = segs[head].seq;
    /* the log is written in ring order: from the newest round to it, every
     * live segment is newer than the ones before it. One older than a
     * segment before it is an earlier lap's, left where the writer passed
     * it over (retired: its erase failed, or did not erase); taken for the
     * log's, it ended a reader's pass there */
    for (struct sl_seg_info *s = segs + head, *end = segs + n; n--;) {
        s = s + 1 == end ? segs : s + 1;
        int keep = s->seq + log->n_segs > top && s->seq >= max;
        max = s->seq > max ? s->seq : max;
        for (struct sl_seg_info *o = segs; o < end && keep && s->rebuilt; o++)
            keep = o == s || o->seq != s->seq;
        if (keep) {
            sl_count(&log->st.repaired, s->rebuilt);
            continue;
        }
        s->seq = 0; /* (its erased flag is 0: it read as a header, or stood in for one) */
        s->rebuilt = 0;
    }
}

/* 1 when chunk `i` of seg checks. */
static int chunk_ok(struct sl_log *log, uint32_t seg, uint32_t i)
{
    struct sl_chunk_hdr h;
    return sl_read_chunk(log, seg, i, &h) == SL_OK;
}

/* Smallest chunk index in [1, chunks_per_seg] that was not written: written
 * chunks form a prefix, so bisection finds the end in log2(chunks) reads. A
 * chunk that does not check but whose successor does was written and then
 * damaged, so it counts as written: one bad chunk does not cut the segment
 * short (and sequence numbers after it are not handed out again). */
static uint32_t find_end(struct sl_log *log, uint32_t seg)
{
    uint32_t lo = 1, hi = log->chunks_per_seg; /* the header pages are chunks too */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int written = chunk_ok(log, seg, mid) ||
                      (mid + 1 < log->chunks_per_seg && chunk_ok(log, seg, mid + 1));
        if (written)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The last chunk at or before `at` that checks, its header in *h and the
 * chunk in read_buf; below hdr_chunks when none does. */
static uint32_t last_good(struct sl_log *log, uint32_t seg, uint32_t at, struct sl_chunk_hdr *h)
{
    while (at >= log->hdr_chunks && sl_read_chunk(log, seg, at, h) != SL_OK)
        at--;
    return at;
}

static uint32_t seg_by_seq(const struct sl_log *log, uint32_t seq)
{
    for (uint32_t i = 0; seq && i < log->n_segs; i++)
        if (log->segs[i].seq == seq)
            return i;
    return SL_NO_SEG;
}

/* Reads catalog chunk `idx` of seg and applies it; SL_ENOENT if it is not
 * an intact catalog chunk. */
static int apply_page(struct sl_log *log, uint32_t seg, uint32_t idx, uint32_t *page)
{
    struct sl_chunk_hdr h;
    int rc = sl_read_chunk(log, seg, idx, &h);
    if (rc)
        return rc;
    if (h.type != SL_CHUNK_CATALOG || h.used < SL_CAT_PAGE_HDR)
        return SL_ENOENT;
    *page = sl_get16(log->cfg.read_buf + SL_CHUNK_HDR);
    rc = sl_catalog_page_decode(log, log->cfg.read_buf + SL_CHUNK_HDR, h.used);
    if (rc == SL_OK)
        log->catalog_version = h.catalog_version;
    return rc == SL_ECORRUPT ? SL_ENOENT : rc;
}

/* The header copy of the catalog in seg (chunks 1 .. n_pages). A page that
 * does not check is taken from where the previous segment left it: the
 * copy was made from that state. */
static int load_catalog(struct sl_log *log, uint32_t seg, uint32_t last, int depth);

static int load_header_pages(struct sl_log *log, uint32_t seg, int depth)
{
    uint64_t bad = 0;
    uint32_t page;
    memset(log->streams, 0, sizeof(*log->streams) * log->max_streams);
    for (uint32_t k = 0; k < log->n_pages; k++) {
        int rc = apply_page(log, seg, 1 + k, &page);
        if (rc == SL_ENOENT || (rc == SL_OK && page != k))
            bad |= sl_bit(k);
        else if (rc)
            return rc;
    }
    if (!bad)
        return SL_OK;
    uint32_t prev = seg_by_seq(log, log->segs[seg].seq - 1);
    if (prev == SL_NO_SEG || depth <= 0) {
        sl_count(&log->st.corrupt_chunks, 1); /* those streams' names are lost */
        return SL_OK;
    }
    int rc = load_catalog(log, prev, find_end(log, prev) - 1, depth - 1);
    for (uint32_t k = 0; k < log->n_pages && !rc; k++)
        if (!(bad & sl_bit(k)))
            (void)apply_page(log, seg, 1 + k, &page); /* read before: it checks */
    if (!rc)
        sl_count(&log->st.repaired, 1);
    return rc;
}

/* The catalog of segment seg as of chunk `last`: its header copy, then the
 * updates written in it, newest first, found by following each chunk's
 * link to the catalog chunk before it (at most SL_CATALOG_UPDATES). A
 * broken link makes it read the segment's chunks in order instead. */
static int load_catalog(struct sl_log *log, uint32_t seg, uint32_t last, int depth)
{
    int rc = load_header_pages(log, seg, depth);
    if (rc || last < log->hdr_chunks)
        return rc;
    struct sl_chunk_hdr h;
    uint32_t at = last_good(log, seg, last, &h); /* (a damaged one's predecessor links too) */
    if (at < log->hdr_chunks)
        return SL_OK;
    log->catalog_version = h.catalog_version;
    uint32_t idx = h.type == SL_CHUNK_CATALOG ? at : h.cat_chunk, page;
    uint64_t seen = 0;
    uint32_t found = 0;
    int broken = 0;
    for (uint32_t n = 0; idx != SL_NO_CAT && idx >= log->hdr_chunks && n <= SL_CATALOG_UPDATES;
         n++) {
        rc = sl_read_chunk(log, seg, idx, &h);
        if (rc == SL_OK && h.type != SL_CHUNK_CATALOG)
            rc = SL_ENOENT;
        if (rc) {
            broken = 1;
            break;
        }
        uint32_t k = sl_get16(log->cfg.read_buf + SL_CHUNK_HDR);
        if (k < SL_MAX_PAGES && !(seen & sl_bit(k))) { /* the newest copy wins */
            seen |= sl_bit(k);
            if (sl_catalog_page_decode(log, log->cfg.read_buf + SL_CHUNK_HDR, h.used))
                broken = 1;
            else if (++found == log->n_pages)
                break; /* every page found: older copies say nothing newer */
        }
        idx = h.cat_chunk;
    }
    if (!broken)
        return SL_OK;
    /* the slow way: every catalog chunk of the segment, oldest first */
    rc = load_header_pages(log, seg, depth);
    for (uint32_t i = log->hdr_chunks; i <= last && !rc; i++) {
        rc = apply_page(log, seg, i, &page);
        rc = rc == SL_ENOENT ? SL_OK : rc;
    }
    sl_count(&log->st.repaired, 1);
    return rc;
}

int sl_mount(struct sl_log *log, const struct sl_config *cfg)
{
    int rc = sl_geometry(log, cfg);
    if (rc)
        return rc;
    /* A header of another geometry or catalog size is not this log's: the
     * segment is free (a log formatted over another leaves the old one's
     * headers where its writer has not been yet: refusing them made such a
     * log unmountable after a power cut - found on a real SD card under
     * Linux, tests/vm/kernel_vm.py). Only a device where none is this
     * log's is refused as another's; a newer format version always is. */
    int foreign = SL_ENOENT;
    for (uint32_t i = 0; i < log->n_segs; i++)
        if ((rc = sl_scan_segment(log, i)) == SL_FOREIGN)
            foreign = SL_ECORRUPT;
        else if (rc)
            return rc;
    for (;;) { /* the newest segment whose catalog copy was written whole */
        uint32_t head = SL_NO_SEG;
        for (uint32_t i = 0; i < log->n_segs; i++)
            if (log->segs[i].seq &&
                (head == SL_NO_SEG || log->segs[i].seq > log->segs[head].seq))
                head = i;
        if (head == SL_NO_SEG)
            return foreign;
        drop_older_logs(log, head); /* (the newest is kept) */
        struct sl_seg_info *hs = &log->segs[head];
        uint32_t end = find_end(log, head);
        if (end < log->hdr_chunks) {
            /* cut while the segment was opening: it holds no record */
            hs->seq = 0;
            hs->erased = 0;
            continue;
        }
        rc = load_catalog(log, head, end - 1, SL_CATALOG_DEPTH);
        if (rc)
            return rc;
        /* a log is written in the version it was formatted with (the
         * newest header says which; one rebuilt from its catalog page does
         * not, and the library's own is taken) */
        log->version = hs->version ? hs->version : sl_written_version(log);
        if (SL_PARTS && log->version < SL_VERSION_PARTS) { /* written on without parts */
            log->part = 0;
            log->data_off = SL_CHUNK_HDR;
        }
        if (SL_PIECES && log->version < SL_VERSION_PIECES)
            log->piece_unit = log->chunk; /* an older reader would stop at a sync's first piece */
        log->seq = hs->seq;
        log->next_gseq = hs->first_gseq;
        log->ts_max = hs->ts_start;
        /* numbering goes on after the last chunk that checks; chunks after
         * it that were written but do not check still had their numbers */
        struct sl_chunk_hdr h;
        uint32_t last = last_good(log, head, end - 1, &h), damaged = end - 1 - last;
        /* its last piece that checks numbers on (a torn one after it was
         * never synced) */
        /* (a short piece damaged after its sync hides the ones after it:
         * their numbers were given, as a damaged chunk's were) */
        rc = SL_OK;
        for (uint32_t off = 0; SL_PIECES && last >= log->hdr_chunks &&
                               (rc = sl_piece_next(log, log->cfg.read_buf, &off, &h)) == SL_OK;)
            ;
        damaged += SL_SHORT && rc == SL_ECORRUPT;
        log->st.torn_pieces = rc == SL_TORN; /* (one mount, one newest chunk) */
        /* the first record number of the chunk after the last that checks
         * (when no damaged chunk lies between them; else it does not match) */
        uint64_t expect = last < log->hdr_chunks ? hs->first_gseq : h.first_gseq + h.n_records;
        if (end < log->chunks_per_seg && sl_read_raw(log, head, end) == SL_OK &&
            sl_chunk_written(log->cfg.read_buf, hs->seq, end, expect))
            damaged++; /* written, then damaged: not a torn tail */
        if (last >= log->hdr_chunks) {
            log->next_gseq = h.first_gseq + h.n_records;
            log->ts_max = h.ts_hi;
        }
        log->next_gseq += (uint64_t)damaged * sl_chunk_max_records(log);
        SL_ASSERT(end <= log->chunks_per_seg); /* (numbers come from the medium: not asserted) */
        sl_count(&log->st.corrupt_chunks, damaged);
        /* writing goes on in a fresh segment: the end of this one may be torn */
        log->cur_seg = head;
        log->next_chunk = log->chunks_per_seg;
        log->mount_end = end; /* where its data ends, for readers: no search */
        log->mounted = 1;
        return SL_OK;
    }
}
