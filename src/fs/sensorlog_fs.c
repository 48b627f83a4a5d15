/* sensorlog behind the filesystem interface (see sensorlog_fs.h). The
 * facade is the logger's only user, so it is also its I/O task: it pumps
 * when the RAM buffer is full and on every sync. */
#include "storscope/sensorlog_fs.h"
#include "storscope/error.h"
#include "storscope/target.h"

#include <string.h>

#define REC_MAX STS_SLFS_RECORD_MAX
/* bytes of record header a facade record takes, about: stream and length
 * (two varints of 1-2 bytes) and a byte-clock step of at most 2 * REC_MAX
 * (2 bytes) */
#define REC_HDR_ABOUT 5u

static int find(const struct sts_slfs *fs, const char *name)
{
    for (uint32_t i = 0; i < fs->cfg.n_files; i++)
        if (fs->cfg.files[i].name[0] && !fs->cfg.files[i].deleting &&
            !strcmp(fs->cfg.files[i].name, name))
            return (int)i;
    return -1;
}

/* What a file's bytes sum to, with the log's own CRC (a host's is the
 * CPU's instruction: sl_crc_fast.h) - this runs on every byte written. */
static uint32_t data_crc(const struct sts_slfs *fs, uint32_t crc, const void *p, size_t n)
{
    const struct sl_config *c = &fs->log.cfg;
    return c->crc32c ? c->crc32c(c->crc_ctx, crc, p, n) : sl_crc32c(crc, p, n);
}

static int sl_err(int rc)
{
    /* the other codes are storscope's; data the log recycled under a read
     * is gone, as a file that no longer exists */
    return rc == SL_EFULL ? STS_ENOSPC : rc == SL_EOVERTAKEN ? STS_ENOENT : rc;
}

/* Chunk slots the log has taken so far; a segment left early counts whole. */
static uint64_t chunks_taken(const struct sl_log *log)
{
    return (uint64_t)log->seq * log->chunks_per_seg + log->next_chunk;
}

/* Whether the medium failed the last operation that reached it: an I/O
 * error sets it, a success clears it (a transient error is over). */
static int noted(struct sts_slfs *fs, int rc)
{
    if (rc == STS_EIO)
        fs->io_failed = 1;
    else if (rc >= 0)
        fs->io_failed = 0;
    return rc;
}

/* The idle work an I/O task would have done meanwhile: erasing ahead as
 * many bytes as the operation took, at least one block. One block per
 * operation fell behind whenever an operation took more (a create on NOR:
 * two chunks), and the operation that then opened a segment erased all of
 * it at once. The header and catalog copy a segment opens with (14 chunks
 * for 2,048 files) are not the operation's own: they are carried, and each
 * operation pays SLFS_ERASES_CARRIED blocks of them, so the one that opens
 * a segment does not wait for all. The segment holds hundreds of chunks:
 * the carried blocks are paid long before the next one is needed. */
#define SLFS_ERASES_CARRIED 4u

static int erase_ahead(struct sts_slfs *fs)
{
    const struct sl_log *log = &fs->log;
    uint64_t taken = chunks_taken(log), block = log->erase_block;
    uint64_t opened = (uint64_t)(log->seq - fs->paced_seq) * log->hdr_chunks;
    uint64_t own = taken - fs->paced > opened ? taken - fs->paced - opened : 0;
    fs->carried += opened * log->chunk;
    fs->paced = taken;
    fs->paced_seq = log->seq;
    uint64_t carry = fs->carried / block < SLFS_ERASES_CARRIED ? fs->carried / block
                                                                : SLFS_ERASES_CARRIED;
    uint64_t steps = (own * log->chunk + block - 1) / block + carry;
    for (uint64_t i = 0; i < (steps ? steps : 1); i++) {
        int rc = sl_maintain(&fs->log);
        if (rc == SL_OK) { /* enough is erased ahead */
            fs->carried = 0;
            break;
        }
        if (rc != SL_BUSY)
            return rc;
        if (i >= steps - carry && fs->carried) /* a carried block paid */
            fs->carried = fs->carried > block ? fs->carried - block : 0;
    }
    return SL_OK;
}

/* The pump run until it has nothing left to write. Between its calls the
 * facade only waits: a device that can take a wait's polls at once does
 * (sts_bd_ops.idle; the model's clock ends where polling would have). */
static int pump_through(struct sts_slfs *fs)
{
    const struct sts_bd *bd = &fs->log.cfg.bd;
    void (*idle)(void *) = bd->ops->version >= 2 ? bd->ops->idle : NULL;
    int rc;
    while ((rc = sl_pump(&fs->log)) == SL_BUSY)
        if (idle)
            idle(bd->ctx);
    return rc;
}

/* What an operation needs written, then the erases that keep pace with it. */
static int pump_all(struct sts_slfs *fs)
{
    int rc = pump_through(fs);
    if (!rc && erase_ahead(fs) < 0)
        rc = SL_EIO;
    return sl_err(rc);
}

/* Deletes file f's stream, catalog chunk written. A delete that fails
 * leaves the entry marked: the file is gone for the facade's users, and a
 * check after a power cut accepts it either way - unless the medium had
 * already failed the operation before and nothing since: then the delete
 * never reached it (a workload removing its files after the power went),
 * the file stays, and the check still wants its synced bytes. Excused, a
 * file whose stream a bad medium lost passed the check unread. */
static int delete_file(struct sts_slfs *fs, uint32_t f)
{
    struct sts_slfs_file *e = &fs->cfg.files[f];
    int begun_failed = fs->io_failed;
    fs->it_valid = 0;
    int rc = sl_err(sl_stream_delete(&fs->log, e->id));
    if (!rc)
        rc = pump_all(fs); /* the catalog chunk, as for a create */
    if (rc)
        e->deleting = !begun_failed;
    else
        e->name[0] = '\0';
    return rc;
}

static int open_file(void *ctx, const char *path, int flags, sts_fh *out)
{
    struct sts_slfs *fs = ctx;
    size_t len = strlen(path);
    if (len == 0 || len >= SL_NAME_MAX)
        return STS_EINVAL; /* sensorlog names hold 14 bytes */
    int f = find(fs, path);
    int writable = (flags & STS_O_WRONLY) != 0;
    if (f < 0 && !(flags & STS_O_CREAT))
        return STS_ENOENT;
    if (f >= 0 && writable && (flags & STS_O_TRUNC)) { /* a new stream under the same name */
        int rc = delete_file(fs, (uint32_t)f);
        if (rc)
            return rc;
        f = -1;
    }
    if (f < 0) {
        for (uint32_t i = 0; i < fs->cfg.n_files && f < 0; i++)
            if (!fs->cfg.files[i].name[0] || fs->cfg.files[i].deleting)
                f = (int)i;
        if (f < 0)
            return STS_ENOSPC;
        struct sts_slfs_file *e = &fs->cfg.files[f];
        int rc = sl_stream_create(&fs->log, path, &e->id);
        if (rc)
            return sl_err(rc); /* SL_ENOSPC: the catalog is full */
        memcpy(e->name, path, len + 1);
        e->deleting = 0;
        e->size = e->synced = e->synced_end = 0;
        e->crc = e->synced_crc = 0;
        e->n_runs = 0;
        e->fragmented = 0;
        /* a filesystem writes its directory entry now: so does the facade
         * (one catalog chunk, whatever the number of files) */
        fs->it_valid = 0;
        rc = pump_all(fs);
        if (rc)
            return rc;
    }
    for (int h = 0; h < STS_SLFS_HANDLES; h++)
        if (!fs->handles[h].used) {
            fs->handles[h].used = 1;
            fs->handles[h].file = (uint32_t)f;
            fs->handles[h].pos = 0;
            *out = h;
            return STS_OK;
        }
    return STS_EBUSY; /* too many open files */
}

static int fs_close(void *ctx, sts_fh fh)
{
    struct sts_slfs *fs = ctx;
    if (fh < 0 || fh >= STS_SLFS_HANDLES || !fs->handles[fh].used)
        return STS_EINVAL;
    fs->handles[fh].used = 0;
    return STS_OK;
}

/* Appends one record of file f and notes where its bytes went. */
static int append(struct sts_slfs *fs, uint32_t f, const uint8_t *p, uint32_t n)
{
    struct sts_slfs_file *e = &fs->cfg.files[f];
    struct sts_slfs_run *last = e->n_runs ? &e->runs[e->n_runs - 1] : NULL;
    int extend = last && fs->last_file == f && last->ts0 + last->len == fs->byte_clock;
    if (!extend && e->n_runs == STS_SLFS_RUNS)
        e->fragmented = 1; /* the last stretch is scanned from here on */
    int rc = sl_append(&fs->log, e->id, fs->byte_clock, p, n);
    if (rc == SL_EFULL) { /* the I/O task's turn */
        rc = pump_all(fs);
        if (!rc)
            rc = sl_append(&fs->log, e->id, fs->byte_clock, p, n);
    }
    if (rc)
        return sl_err(rc);
    if (extend || e->fragmented)
        last->len += n;
    else
        e->runs[e->n_runs++] = (struct sts_slfs_run){fs->byte_clock, e->size, n};
    fs->byte_clock += n;
    e->size += n;
    e->crc = data_crc(fs, e->crc, p, n);
    fs->last_file = f;
    fs->unsynced = 1;
    return STS_OK;
}

static int write_file(void *ctx, sts_fh fh, const void *buf, size_t len, size_t *done)
{
    struct sts_slfs *fs = ctx;
    *done = 0;
    if (fh < 0 || fh >= STS_SLFS_HANDLES || !fs->handles[fh].used)
        return STS_EINVAL;
    uint32_t f = fs->handles[fh].file;
    if (fs->handles[fh].pos != fs->cfg.files[f].size)
        return STS_ENOTSUP; /* append-only */
    fs->it_valid = 0; /* pumping reuses the read buffer */
    const uint8_t *p = buf;
    while (*done < len) {
        uint32_t n = len - *done > REC_MAX ? REC_MAX : (uint32_t)(len - *done);
        int rc = append(fs, f, p + *done, n);
        if (rc)
            return rc;
        *done += n;
        fs->handles[fh].pos += n;
    }
    /* An I/O task writes a chunk once it is full, not when the next sync
     * comes: left in RAM until then, a second's chunks and their erases all
     * fell on the sync, and on an aged NOR a sync took over a second. The
     * erases follow only a chunk written (a pump that only staged records
     * took nothing to erase for) */
    if (fs->log.fill < fs->log.chunk)
        return STS_OK;
    uint64_t before = chunks_taken(&fs->log);
    int rc = pump_through(fs);
    if (!rc && chunks_taken(&fs->log) != before && erase_ahead(fs) < 0)
        rc = SL_EIO;
    return sl_err(rc);
}

static int sync_log(void *ctx, sts_fh fh, enum sts_sync_kind kind)
{
    struct sts_slfs *fs = ctx;
    (void)fh;
    (void)kind;
    fs->it_valid = 0;
    int rc = sl_sync(&fs->log);
    if (rc)
        return sl_err(rc);
    fs->unsynced = 0;
    /* the log is one: a sync makes every file's bytes durable */
    for (uint32_t i = 0; i < fs->cfg.n_files; i++) {
        struct sts_slfs_file *e = &fs->cfg.files[i];
        if (!e->name[0] || e->deleting || e->synced == e->size)
            continue;
        const struct sts_slfs_run *last = &e->runs[e->n_runs - 1];
        e->synced = e->size;
        e->synced_end = last->ts0 + last->len;
        e->synced_crc = e->crc;
    }
    /* the bytes are durable whatever this says: it is the next write's room */
    return sl_err(erase_ahead(fs));
}

/* Points the iterator at byte `off` of file f: the run holding it gives its
 * byte-clock time, and a search by timestamp finds the record. */
static int position(struct sts_slfs *fs, uint32_t f, uint64_t off)
{
    const struct sts_slfs_file *e = &fs->cfg.files[f];
    uint32_t lo = 0, hi = e->n_runs;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (e->runs[mid].off0 <= off)
            lo = mid;
        else
            hi = mid;
    }
    const struct sts_slfs_run *r = &e->runs[lo];
    int scan = e->fragmented && lo == e->n_runs - 1;
    uint64_t t = r->ts0 + (off - r->off0);
    /* a record holds at most 255 bytes: the one holding t starts after t - 255 */
    uint64_t from = scan || t - r->ts0 < REC_MAX - 1 ? r->ts0 : t - (REC_MAX - 1);
    int rc = sl_iter_from_ts(&fs->log, &fs->it, e->id, from);
    if (!rc)
        rc = sl_iter_next(&fs->it, &fs->rec);
    if (rc) /* (overtaken: evicted while the search ran) */
        return rc == SL_ENOENT || rc == SL_EOVERTAKEN ? STS_EEVICTED : rc;
    if (fs->rec.ts > from && fs->rec.ts > t)
        return STS_EEVICTED; /* the circular log has moved past it */
    if (scan) { /* other files' records lie between: count this file's bytes */
        uint64_t skip = off - r->off0;
        while (skip >= fs->rec.len) {
            skip -= fs->rec.len;
            rc = sl_iter_next(&fs->it, &fs->rec);
            if (rc)
                return rc == SL_ENOENT || rc == SL_EOVERTAKEN ? STS_EEVICTED : rc;
        }
        fs->rec_off = skip;
    } else {
        /* the search found the first record at or after `from`: records of
         * any size up to REC_MAX follow until the one holding t */
        while (fs->rec.ts + fs->rec.len <= t) {
            rc = sl_iter_next(&fs->it, &fs->rec);
            if (rc) /* the index and the log disagree; or evicted under the read */
                return rc == SL_ENOENT ? STS_ECORRUPT : sl_err(rc);
        }
        if (fs->rec.ts > t)
            return STS_ECORRUPT;
        fs->rec_off = t - fs->rec.ts;
    }
    fs->it_file = f;
    fs->it_pos = off;
    fs->it_valid = 1;
    return STS_OK;
}

static int fs_read_records(struct sts_slfs *fs, sts_fh fh, void *buf, size_t len, size_t *done);

/* A read that found no record where the index says there is one: if the
 * device failed reads meanwhile, that is the cause, not a range the log
 * has moved past. */
static int fs_read(void *ctx, sts_fh fh, void *buf, size_t len, size_t *done)
{
    struct sts_slfs *fs = ctx;
    uint64_t before = fs->log.st.read_errors;
    int rc = fs_read_records(fs, fh, buf, len, done);
    if ((rc == STS_EEVICTED || rc == STS_ECORRUPT || rc == STS_EIO) &&
        fs->log.st.read_errors != before)
        rc = STS_EIO;
    return noted(fs, rc);
}

static int fs_read_records(struct sts_slfs *fs, sts_fh fh, void *buf, size_t len, size_t *done)
{
    *done = 0;
    if (fh < 0 || fh >= STS_SLFS_HANDLES || !fs->handles[fh].used)
        return STS_EINVAL;
    uint32_t f = fs->handles[fh].file;
    uint64_t pos = fs->handles[fh].pos, size = fs->cfg.files[f].size;
    if (pos >= size)
        return STS_OK;
    if (fs->unsynced) { /* readers see what is on the medium */
        int rc = sync_log(fs, fh, STS_SYNC_DATA);
        if (rc)
            return rc;
    }
    size_t n = size - pos < len ? (size_t)(size - pos) : len;
    if (!(fs->it_valid && fs->it_file == f && fs->it_pos == pos)) {
        int rc = position(fs, f, pos);
        if (rc)
            return rc;
    }
    uint8_t *out = buf;
    while (*done < n) {
        if (fs->rec_off == fs->rec.len) {
            int rc = sl_iter_next(&fs->it, &fs->rec);
            if (rc) {
                fs->it_valid = 0;
                return rc == SL_ENOENT ? STS_EIO : sl_err(rc);
            }
            fs->rec_off = 0;
        }
        size_t k = fs->rec.len - fs->rec_off;
        k = k < n - *done ? k : n - *done;
        memcpy(out + *done, fs->rec.data + fs->rec_off, k);
        fs->rec_off += k;
        *done += k;
    }
    fs->it_pos = pos + n;
    fs->handles[fh].pos = pos + n;
    return STS_OK;
}

static int fs_seek(void *ctx, sts_fh fh, uint64_t offset)
{
    struct sts_slfs *fs = ctx;
    if (fh < 0 || fh >= STS_SLFS_HANDLES || !fs->handles[fh].used)
        return STS_EINVAL;
    fs->handles[fh].pos = offset;
    return STS_OK;
}


static int fs_unlink(void *ctx, const char *path)
{
    struct sts_slfs *fs = ctx;
    int f = find(fs, path);
    if (f < 0)
        return STS_ENOENT;
    return noted(fs, delete_file(fs, (uint32_t)f));
}

static int fs_open(void *ctx, const char *path, int flags, sts_fh *out)
{
    return noted(ctx, open_file(ctx, path, flags, out));
}
static int fs_write(void *ctx, sts_fh fh, const void *buf, size_t len, size_t *done)
{
    return noted(ctx, write_file(ctx, fh, buf, len, done));
}
static int fs_sync(void *ctx, sts_fh fh, enum sts_sync_kind kind)
{
    return noted(ctx, sync_log(ctx, fh, kind));
}

/* Directories are name prefixes: making one costs nothing. */
static int fs_mkdir(void *ctx, const char *path)
{
    (void)ctx;
    return strlen(path) < SL_NAME_MAX ? STS_OK : STS_EINVAL;
}

static int fs_rmdir(void *ctx, const char *path)
{
    (void)ctx;
    (void)path;
    return STS_OK;
}

static int fs_stat(void *ctx, const char *path, struct sts_stat *st)
{
    struct sts_slfs *fs = ctx;
    int f = find(fs, path);
    if (f >= 0) {
        st->size = fs->cfg.files[f].size;
        st->is_dir = 0;
        return STS_OK;
    }
    size_t len = strlen(path);
    for (uint32_t i = 0; i < fs->cfg.n_files; i++) {
        const char *n = fs->cfg.files[i].name;
        if (n[0] && !fs->cfg.files[i].deleting && !strncmp(n, path, len) && n[len] == '/') {
            st->size = 0;
            st->is_dir = 1;
            return STS_OK;
        }
    }
    return STS_ENOENT;
}

/* Free space is what the files do not hold: the log is circular, so space
 * taken by deleted files comes back as the writer goes round (overwriting
 * past this point evicts the oldest records, live or not). Each record's
 * 7-byte header on up to 255 bytes is counted. */
static int fs_statvfs(void *ctx, struct sts_statvfs *st)
{
    struct sts_slfs *fs = ctx;
    struct sl_stats s;
    sl_stats(&fs->log, &s);
    uint64_t live = 0;
    for (uint32_t i = 0; i < fs->cfg.n_files; i++)
        if (fs->cfg.files[i].name[0] && !fs->cfg.files[i].deleting)
            live += fs->cfg.files[i].size + (fs->cfg.files[i].size + REC_MAX - 1) / REC_MAX * REC_HDR_ABOUT;
    st->total_bytes = s.capacity_bytes;
    st->free_bytes = live < s.capacity_bytes ? s.capacity_bytes - live : 0;
    st->block_size = fs->log.chunk;
    return STS_OK;
}

/* A step of what a logger's idle loop does with sensorlog: keep
 * free_segments erased ahead of the writer (one erase unit, or one slice
 * of it with erase_slice_ns on a chip that suspends), so that the writes
 * after find their segment erased instead of waiting for it. */
static int idle_work(void *ctx)
{
    struct sts_slfs *fs = ctx;
    int rc = sl_maintain(&fs->log);
    if (rc == SL_OK)
        return 0; /* enough is erased ahead */
    if (rc != SL_BUSY)
        return sl_err(rc);
    rc = pump_through(fs);
    return rc ? sl_err(rc) : 1;
}
static int fs_idle(void *ctx)
{
    return noted(ctx, idle_work(ctx));
}

static const struct sts_fs_ops slfs_ops = {
    .version = STS_FS_OPS_VERSION,
    .open = fs_open,
    .close = fs_close,
    .read = fs_read,
    .write = fs_write,
    .seek = fs_seek,
    .sync = fs_sync,
    .unlink = fs_unlink,
    .mkdir = fs_mkdir,
    .rmdir = fs_rmdir,
    .stat = fs_stat,
    .statvfs = fs_statvfs,
    .advise = NULL,
    .idle = fs_idle,
};

/* One file after the remount: its stream's records read from the oldest. */
static int check_file(struct sts_slfs *fs, const struct sts_slfs_file *e, uint64_t *bytes,
                      uint64_t *evicted_records, char *why, size_t n)
{
    uint16_t id;
    int rc = sl_stream_open(&fs->log, e->name, &id);
    if (e->deleting && (rc || id != e->id))
        return STS_OK; /* its delete reached the medium before the cut */
    if (rc || id != e->id) {
        sts_strlcpy(why, "its stream is gone", n);
        return STS_ECORRUPT;
    }
    struct sl_iter it;
    struct sl_record r;
    uint64_t got = 0, got_synced = 0, end = 0, first_ts = UINT64_MAX;
    uint32_t crc = 0;
    rc = sl_iter_from_gseq(&fs->log, &it, id, 0);
    uint64_t evicted = 0, last_gseq = 0;
    while (!rc && (rc = sl_iter_next(&it, &r)) == SL_OK) {
        /* the reader passed over the oldest segment's end. If the log had
         * evicted that segment (the records before lie below the end its
         * evict hook gave), an eviction the cut stopped erased it - its
         * header's block goes last - and this file is held from here; if
         * not, the medium lost it, and the middle check below names it */
        if (it.evicted != evicted && (!got || last_gseq < fs->evicted_end)) {
            *evicted_records += it.evicted - evicted;
            first_ts = UINT64_MAX;
            got = got_synced = 0;
            crc = 0;
        }
        evicted = it.evicted;
        last_gseq = r.gseq;
        first_ts = first_ts == UINT64_MAX ? r.ts : first_ts;
        uint64_t take = got < e->synced ? e->synced - got : 0;
        take = take < r.len ? take : r.len;
        crc = data_crc(fs, crc, r.data, (size_t)take);
        got += r.len;
        if (r.ts < e->synced_end) /* its bytes before the end of the last sync */
            got_synced += e->synced_end - r.ts < r.len ? e->synced_end - r.ts : r.len;
        end = r.ts + r.len > end ? r.ts + r.len : end;
    }
    if (rc != SL_ENOENT) {
        sts_strlcpy(why, "its records cannot be read", n);
        return STS_ECORRUPT;
    }
    /* evicted whole by the circular log before the cut: nothing to hold -
     * when the log's oldest record is no newer than where its evictions
     * ended (a medium that lost the oldest segments leaves it newer) */
    struct sl_iter all;
    if (!got && sl_iter_from_gseq(&fs->log, &all, 0, 0) == SL_OK &&
        sl_iter_next(&all, &r) == SL_OK && r.ts >= e->synced_end && r.gseq <= fs->evicted_end)
        return STS_OK;
    if (end < e->synced_end) {
        sts_strlcpy(why, "synced bytes are missing from its end", n);
        return STS_ECORRUPT;
    }
    /* from its oldest byte still kept (the log may have evicted the ones
     * before) to its last synced one, every byte must be there: a chunk
     * passed over in the middle leaves fewer */
    uint64_t from = 0;
    for (uint32_t i = 0; i < e->n_runs && !e->fragmented; i++)
        if (first_ts >= e->runs[i].ts0 && first_ts < e->runs[i].ts0 + e->runs[i].len)
            from = e->runs[i].off0 + (first_ts - e->runs[i].ts0);
    if (!e->fragmented && got_synced < e->synced - from) {
        sts_strlcpy(why, "synced bytes are missing from its middle", n);
        return STS_ECORRUPT;
    }
    if (first_ts == e->runs[0].ts0 && got >= e->synced && crc != e->synced_crc) {
        sts_strlcpy(why, "its synced bytes read back different", n);
        return STS_ECORRUPT;
    }
    *bytes += e->synced;
    return STS_OK;
}

int sts_slfs_check_after_cut(struct sts_slfs *fs, uint32_t *files, uint64_t *bytes, char *why,
                             size_t why_len)
{
    *files = 0;
    *bytes = 0;
    why[0] = '\0';
    struct sl_config lc = fs->log.cfg;
    int rc = sl_mount(&fs->log, &lc);
    if (rc) {
        sts_strlcpy(why, "the log does not mount again", why_len);
        return STS_ECORRUPT;
    }
    uint64_t evicted = 0;
    for (uint32_t i = 0; i < fs->cfg.n_files; i++) {
        const struct sts_slfs_file *e = &fs->cfg.files[i];
        if (!e->name[0] || !e->synced)
            continue;
        char what[96];
        if (check_file(fs, e, bytes, &evicted, what, sizeof(what))) {
            sts_strlcpy(why, "file ", why_len);
            sts_strlcat(why, e->name, why_len);
            sts_strlcat(why, ": ", why_len);
            sts_strlcat(why, what, why_len);
            return STS_ECORRUPT;
        }
        (*files)++;
    }
    if (evicted) { /* said, so a check that passed over records is not silent */
        char num[24];
        sts_fmt_u64(num, evicted);
        sts_strlcpy(why, num, why_len);
        sts_strlcat(why, " records of the oldest segment, evicted before the cut, read blank",
                    why_len);
    }
    return STS_OK;
}

/* The log's evict hook: the newest evicted segment's end, then the
 * caller's own hook, if it gave one. */
static void on_evict(void *ctx, uint64_t first_gseq, uint64_t end_gseq)
{
    struct sts_slfs *fs = ctx;
    if (end_gseq > fs->evicted_end)
        fs->evicted_end = end_gseq;
    if (fs->cfg.log.evict)
        fs->cfg.log.evict(fs->cfg.log.evict_ctx, first_gseq, end_gseq);
}

int sts_slfs_init(struct sts_slfs *fs, const struct sts_slfs_config *cfg, struct sts_fs *out)
{
    memset(fs, 0, sizeof(*fs));
    fs->cfg = *cfg;
    /* a buffer that cannot take one record would fail the first long write */
    if (!cfg->files || !cfg->n_files || cfg->log.buffer_bytes < STS_SLFS_MIN_BUFFER)
        return STS_EINVAL;
    memset(cfg->files, 0, sizeof(*cfg->files) * cfg->n_files);
    struct sl_config lc = cfg->log;
    lc.manual_maintenance = 1;
    lc.evict = on_evict;
    lc.evict_ctx = fs;
    int rc = sl_format(&fs->log, &lc);
    if (rc)
        return rc;
    if (fs->cfg.n_files > fs->log.max_streams)
        fs->cfg.n_files = fs->log.max_streams;
    fs->last_file = UINT32_MAX;
    fs->paced = chunks_taken(&fs->log);
    fs->paced_seq = fs->log.seq;
    out->ops = &slfs_ops;
    out->ctx = fs;
    return STS_OK;
}
