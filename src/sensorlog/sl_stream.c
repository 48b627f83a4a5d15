/* sensorlog: streams. A stream's id is its slot in the catalog + 1:
 * finding one by id is an index, by name a scan of RAM; neither touches the
 * device. A change marks its catalog page dirty, and the pump writes it. */
#include "sl_internal.h"

static struct sl_stream_info *find_name(struct sl_log *log, const char *name)
{
    struct sl_stream_info *s = log->streams, *end = s + log->max_streams;
    for (; s < end; s++) {
        /* (newlib's strcmp is 444 B of Cortex-M33 code: a name is 14 bytes) */
        const char *a = s->name, *b = name;
        while (*a && *a == *b)
            a++, b++;
        if (s->id && *a == *b)
            return s;
    }
    return NULL;
}

static void catalog_changed(struct sl_log *log, uint32_t slot)
{
    log->catalog_version++;
    log->dirty_pages |= sl_bit(slot / log->page_entries);
}

static int stream_create(struct sl_log *log, const char *name, uint16_t *id)
{
    size_t len = 0; /* (reads no further than a name can be) */
    while (name && len <= SL_CAT_NAME && name[len])
        len++;
    if (!log->mounted || len == 0 || len > SL_CAT_NAME)
        return SL_EINVAL;
    if (find_name(log, name))
        return SL_EEXIST;
    /* slots go round, so a deleted stream's id comes back as late as can be */
    for (uint32_t k = 1; k <= log->max_streams; k++) {
        uint32_t slot = (log->last_slot + k) % log->max_streams;
        struct sl_stream_info *s = &log->streams[slot];
        if (s->id)
            continue;
        memcpy(s->name, name, len); /* (a free slot's name is all NULs: padded) */
        s->created_gseq = log->next_gseq; /* its records are those staged from now on */
        sl_lock(log); /* append checks the id */
        s->id = (uint16_t)(slot + 1);
        sl_unlock(log);
        log->last_slot = slot;
        catalog_changed(log, slot);
        *id = s->id;
        return SL_OK;
    }
    return SL_ENOSPC;
}

int sl_stream_create(struct sl_log *log, const char *name, uint16_t *id)
{
    sl_io_lock(log);
    int rc = stream_create(log, name, id);
    sl_io_unlock(log);
    return rc;
}

int sl_stream_open(struct sl_log *log, const char *name, uint16_t *id)
{
    sl_io_lock(log);
    const struct sl_stream_info *s = name ? find_name(log, name) : NULL;
    if (s)
        *id = s->id;
    sl_io_unlock(log);
    return s ? SL_OK : SL_ENOENT;
}

const struct sl_stream_info *sl_stream_find(const struct sl_log *log, uint16_t id)
{
    if (!id || id > log->max_streams || log->streams[id - 1].id != id)
        return NULL;
    return &log->streams[id - 1];
}

const struct sl_stream_info *sl_stream_info(const struct sl_log *log, uint16_t id)
{
    sl_io_lock(log);
    const struct sl_stream_info *s = sl_stream_find(log, id);
    sl_io_unlock(log);
    return s;
}

int sl_stream_delete(struct sl_log *log, uint16_t id)
{
    sl_io_lock(log);
    if (!sl_stream_find(log, id)) {
        sl_io_unlock(log);
        return SL_ENOENT;
    }
    sl_lock(log);
    /* its records still in RAM go with it: the slot may be reused before
     * they reach the device, and they must not come back as the new
     * stream's (stream 0 marks them; staging drops them) */
    size_t cap = log->cfg.buffer_bytes;
    for (size_t at = log->tail, left = log->fill; left;) {
        uint8_t hdr[SL_RING_HDR];
        sl_ring_read(log, at, hdr, sizeof(hdr));
        if (sl_ring_hdr_stream(hdr) == id) { /* stream 0: both of its bytes */
            log->cfg.buffer[at] = 0;
            log->cfg.buffer[(at + 1) % cap] = 0;
        }
        size_t n = SL_RING_HDR + sl_ring_hdr_len(hdr);
        at = sl_ring_at(log, at, n);
        left -= n;
    }
    memset(&log->streams[id - 1], 0, sizeof(log->streams[id - 1]));
    sl_unlock(log);
    catalog_changed(log, id - 1u);
    sl_io_unlock(log);
    return SL_OK;
}
