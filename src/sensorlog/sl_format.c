/* sensorlog: erase and format. A segment is erased last block first, or
 * verified blank a chunk at a time when it reads blank at its start; a
 * format erases one segment and leaves the rest to the pump. */
#include "sl_internal.h"

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
