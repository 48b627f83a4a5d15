/* sensorlog stacked on any block device, as a storscope filesystem (its
 * files are streams): the memory a firmware would give it statically, the
 * defaults a logger would pick for the medium, and +sensorlog's options
 * (chunk=, segment=, buffer=, erase_unit=, erase_slice=, files=, verify=). The
 * one place a target kind opens `+sensorlog`: sim: and raw: both do it here. */
#include "sensorlog/sl_crc_fast.h"
#include "storscope/error.h"
#include "storscope/sensorlog_fs.h"
#include "storscope/target.h"
#include "storscope/units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLFS_FILES 2048 /* S2 at full scale makes 1000, M2 a few hundred */

/* sensorlog's memory: the target's, as an MCU application's would be static */
struct sts_slfs_stack {
    struct sts_slfs fs;
    struct sts_slfs_file *files;
    struct sl_stream_info *streams;
    struct sl_seg_info *segs;
    uint8_t *ring, *chunk, *read;
    struct sts_flash_guard guard; /* 0x00-erased flash inverted; verify=1: read back */
};

int sts_flash_guard_stack(struct sts_flash_guard *g, struct sts_bd *bd, size_t buf_bytes,
                          int verify)
{
    struct sts_bd_geometry geo = {0};
    bd->ops->geometry(bd->ctx, &geo);
    memset(g, 0, sizeof(*g));
    g->invert_buf = geo.flags & STS_BD_ERASES_TO_ZERO ? malloc(buf_bytes) : NULL;
    g->verify_buf = verify ? malloc(buf_bytes) : NULL;
    if ((geo.flags & STS_BD_ERASES_TO_ZERO && !g->invert_buf) || (verify && !g->verify_buf)) {
        sts_flash_guard_free(g);
        return STS_ENOMEM;
    }
    if (g->invert_buf)
        sts_invertbd_init(&g->invert, bd, g->invert_buf, buf_bytes, bd);
    if (g->verify_buf) /* above the inverter: it compares what the store wrote */
        sts_verifybd_init(&g->verify, bd, g->verify_buf, buf_bytes, bd);
    return STS_OK;
}

void sts_flash_guard_free(struct sts_flash_guard *g)
{
    free(g->invert_buf);
    free(g->verify_buf);
    g->invert_buf = g->verify_buf = NULL;
}

void sts_slfs_stack_close(struct sts_slfs_stack *m)
{
    if (!m)
        return;
    free(m->segs);
    free(m->files);
    free(m->streams);
    free(m->ring);
    free(m->chunk);
    free(m->read);
    sts_flash_guard_free(&m->guard);
    free(m);
}

/* sensorlog over the model: chunks of 8 KiB or the medium's page if that is
 * larger (16 KiB on the eMMC and SD models: a chunk never shares a page with
 * one already synced; a catalog page then holds 339 or 680 files), on raw
 * flash no larger than its erase block (NOR: 4 KiB, so a create - a catalog
 * page written twice - takes two sectors to erase, not four), segments of
 * 1 MiB (the facade erases ahead as it writes, so a large segment costs no
 * wait; each segment opens with a copy of the catalog, 14 chunks of 4 KiB
 * for 2048 files), a 256 KiB RAM buffer. */
/* +sensorlog's options: sizes in bytes, erase_slice in ns (0: an erase
 * step runs to its end), verify -1 until the medium decides it. */
struct slfs_opts {
    uint64_t chunk, seg, buffer, erase_unit, files, erase_slice;
    int verify;
};

/* One chunk=, segment=, buffer=, erase_unit= or files= into *o. */
static int slfs_number(struct slfs_opts *o, const char *k, const char *v, char *err, size_t errlen)
{
    uint64_t *dst = !strcmp(k, "chunk") ? &o->chunk : !strcmp(k, "segment") ? &o->seg
                    : !strcmp(k, "buffer") ? &o->buffer
                    : !strcmp(k, "erase_unit") ? &o->erase_unit
                    : !strcmp(k, "files") ? &o->files : NULL;
    if (!dst) {
        snprintf(err, errlen, "+sensorlog: unknown option '%s' (chunk=, segment=, buffer=, "
                              "erase_unit=, erase_slice=, files=, verify=)", k);
        return STS_EINVAL;
    }
    if (dst == &o->files) { /* a count, not a size: "2K" would be 2048 files */
        char *end = NULL;
        unsigned long long n = strtoull(v, &end, 10);
        if (!*v || *end || n < 1 || n > SLFS_FILES) {
            snprintf(err, errlen, "+sensorlog: files= takes 1 .. %u (the files the log can "
                                  "name; each costs RAM), not '%s'", (unsigned)SLFS_FILES, v);
            return STS_EINVAL;
        }
        o->files = n;
        return STS_OK;
    }
    if (sts_parse_size(v, dst) || (*dst == 0 && dst != &o->erase_unit) || *dst > (1u << 30)) {
        snprintf(err, errlen, "+sensorlog: bad value '%s' for '%s'", v, k);
        return STS_EINVAL;
    }
    return STS_OK;
}

static int slfs_parse(const struct sts_target_spec *spec, struct slfs_opts *o, char *err,
                      size_t errlen)
{
    for (uint32_t i = 0; i < spec->n_fs_opts; i++) {
        const char *k = spec->fs_opts[i].key, *v = spec->fs_opts[i].value;
        int rc = STS_OK;
        if (!strcmp(k, "verify")) {
            if (sts_parse_bool(v, &o->verify)) {
                snprintf(err, errlen, "+sensorlog: verify= takes 0 or 1, not '%s'", v);
                return STS_EINVAL;
            }
        } else if (!strcmp(k, "erase_slice")) { /* a time: an erase step, then a suspend */
            if (sts_parse_duration(v, &o->erase_slice) || o->erase_slice > 1000000000ull) {
                snprintf(err, errlen, "+sensorlog: erase_slice= takes a time up to 1s (the "
                                      "device time one erase step may take: 2ms), not '%s'", v);
                return STS_EINVAL;
            }
        } else if ((rc = slfs_number(o, k, v, err, errlen)) != STS_OK) {
            return rc;
        }
    }
    if (o->buffer < STS_SLFS_MIN_BUFFER) {
        snprintf(err, errlen, "+sensorlog: buffer=%llu is too small: files are written in "
                              "records of up to %u B, which take %u B of buffer each; give "
                              "at least buffer=%u (default 256K)",
                 (unsigned long long)o->buffer, STS_SLFS_RECORD_MAX, STS_SLFS_MIN_BUFFER,
                 STS_SLFS_MIN_BUFFER);
        return STS_EINVAL;
    }
    return STS_OK;
}

/* The sizes the options left to the medium (g: its geometry; base: where
 * the log starts), checked. */
#define SLFS_MAX_SEGMENTS 65536u

static int slfs_layout(struct slfs_opts *o, struct sts_bd bd, const struct sts_bd_geometry *g,
                       uint64_t base, char *err, size_t errlen)
{
    int raw = (g->flags & STS_BD_NEEDS_ERASE) != 0;
    if (!o->chunk) {
        struct sl_layout l;
        struct sl_config probe = {.bd = bd};
        (void)sl_layout(&probe, &l); /* only its page size is wanted here */
        o->chunk = raw && g->erase_size >= 1024 && g->erase_size < 8192 ? g->erase_size : 8192;
        o->chunk = l.page_bytes > o->chunk ? l.page_bytes : o->chunk;
    }
    /* 1 MiB segments, doubled until the medium holds at most
     * SLFS_MAX_SEGMENTS: format and mount read every segment's header, and
     * the log keeps 32 B of RAM for each (a 1 TiB SSD in 1 MiB segments:
     * a million reads and 32 MiB) */
    if (!o->seg)
        for (o->seg = 1u << 20; (g->capacity - base) / o->seg > SLFS_MAX_SEGMENTS;)
            o->seg *= 2;
    if (raw && g->erase_size > o->seg)
        o->seg = g->erase_size;
    /* the pump erases in the chip's large erase (SPI NOR: 64 KiB blocks in
     * 150 ms against 16 sectors' 720 ms) where the segments and the log's
     * start align to it: on NOR erasing is most of a log's device time.
     * erase_unit=0 takes the erase block, as a chip without one would */
    if (o->erase_unit == UINT64_MAX)
        o->erase_unit = raw && g->erase_large_size && o->seg % g->erase_large_size == 0 &&
                                base % g->erase_large_size == 0
                            ? g->erase_large_size
                            : 0;
    if (raw && o->erase_unit &&
        (o->erase_unit % g->erase_size || o->seg % o->erase_unit || base % o->erase_unit)) {
        snprintf(err, errlen, "+sensorlog: erase_unit=%llu must be a multiple of the erase "
                              "block (%u B) that divides the segment (%llu B)%s",
                 (unsigned long long)o->erase_unit, (unsigned)g->erase_size,
                 (unsigned long long)o->seg, base ? " and the log's start" : "");
        return STS_EINVAL;
    }
    return STS_OK;
}

/* Why sts_slfs_init refused cfg (rc), in the options' words. */
static void slfs_refused(int rc, const struct sts_slfs_config *cfg, const struct slfs_opts *o,
                         const struct sts_bd_geometry *g, char *err, size_t errlen)
{
    struct sl_layout l;
    int fits = rc == STS_EINVAL && !sl_layout(&cfg->log, &l);
    if (rc == STS_EIO) /* the device failed while the log was laid: not the geometry */
        snprintf(err, errlen, "+sensorlog: formatting the log failed: the device returned an "
                              "I/O error");
    else if (fits && l.segments < 4)
        snprintf(err, errlen, "+sensorlog: the medium holds %llu segment%s of %llu B; the log "
                              "needs at least 4 (two kept erased ahead of the writer); give a "
                              "smaller segment= or a larger medium",
                 (unsigned long long)l.segments, l.segments == 1 ? "" : "s",
                 (unsigned long long)o->seg);
    else if (fits) /* the geometry holds: what is left is each segment's opening copy of
                      the catalog (the files' names), which must leave room for records */
        snprintf(err, errlen, "+sensorlog: segment=%llu holds %llu chunks of %llu B: too few "
                              "for the copy of the catalog of %u file names that opens each "
                              "segment and two chunks of records; give a larger segment= "
                              "(default 1M)",
                 (unsigned long long)o->seg, (unsigned long long)(o->seg / o->chunk),
                 (unsigned long long)o->chunk, (unsigned)o->files);
    else
        snprintf(err, errlen, "+sensorlog: cannot lay a log on this medium with chunk=%llu "
                              "segment=%llu (%s): chunk must be 1 KiB..64 KiB and a multiple "
                              "of the medium's page (%u B: a smaller chunk would share a page "
                              "with one already synced, and a power cut could take both), "
                              "segment a multiple of chunk and of the erase block (and of "
                              "erase_unit=, itself a multiple of the erase block), and the "
                              "medium must hold at least 4 segments",
                 (unsigned long long)o->chunk, (unsigned long long)o->seg, sts_strerror(rc),
                 (unsigned)g->page_size);
}

int sts_slfs_stack_open(struct sts_slfs_stack **stack, struct sts_bd bd,
                        const struct sts_target_spec *spec, uint64_t base, struct sts_fs *out,
                        char *err, size_t errlen)
{
    /* verify: by default on real raw flash (a chip can lie), off on a model
     * (it lies only when asked, errors_silent=1: then the option shows why) */
    struct slfs_opts o = {.buffer = 256u << 10, .erase_unit = UINT64_MAX, .files = SLFS_FILES,
                          .verify = -1};
    int rc = slfs_parse(spec, &o, err, errlen);
    if (rc)
        return rc;
    struct sts_bd_geometry g;
    memset(&g, 0, sizeof(g));
    bd.ops->geometry(bd.ctx, &g);
    if (o.verify < 0)
        o.verify = (g.flags & STS_BD_NEEDS_ERASE) && strcmp(spec->kind, "sim") != 0;
    rc = slfs_layout(&o, bd, &g, base, err, errlen);
    if (rc)
        return rc;
    struct sts_slfs_stack *m = calloc(1, sizeof(*m));
    uint32_t n_segs = (uint32_t)((g.capacity - base) / o.seg);
    if (m) {
        m->segs = calloc(n_segs ? n_segs : 1, sizeof(*m->segs));
        m->files = calloc(o.files, sizeof(*m->files));
        m->streams = calloc(o.files, sizeof(*m->streams));
        m->ring = malloc(o.buffer);
        m->chunk = malloc(o.chunk);
        m->read = malloc(o.chunk);
    }
    if (!m || !m->segs || !m->files || !m->streams || !m->ring || !m->chunk || !m->read ||
        sts_flash_guard_stack(&m->guard, &bd, o.chunk, o.verify)) {
        sts_slfs_stack_close(m);
        snprintf(err, errlen, "+sensorlog: out of memory");
        return STS_ENOMEM;
    }
    struct sts_slfs_config cfg = {
        .log = {.bd = bd, .offset = base, .chunk_bytes = (uint32_t)o.chunk,
                .segment_bytes = (uint32_t)o.seg, .free_segments = 2,
                .erase_unit_bytes = (uint32_t)o.erase_unit,
                .erase_slice_ns = (uint32_t)o.erase_slice, .buffer = m->ring,
                .buffer_bytes = o.buffer, .chunk_buf = m->chunk, .read_buf = m->read,
                .segs = m->segs, .n_segs = n_segs, .streams = m->streams,
                .max_streams = (uint32_t)o.files, .crc32c = sl_crc32c_fast},
        .files = m->files,
        .n_files = (uint32_t)o.files,
    };
    rc = sts_slfs_init(&m->fs, &cfg, out);
    if (rc) {
        slfs_refused(rc, &cfg, &o, &g, err, errlen);
        sts_slfs_stack_close(m);
        return rc;
    }
    *stack = m;
    return STS_OK;
}

struct sts_slfs *sts_slfs_stack_fs(struct sts_slfs_stack *m)
{
    return &m->fs;
}

void sts_slfs_stack_record(struct sts_slfs_stack *m, struct sts_target *t)
{
    const struct sl_log *lg = &m->fs.log;
    sts_target_env(t, STS_KV_U("sensorlog_chunk_bytes", lg->chunk));
    sts_target_env(t, STS_KV_U("sensorlog_segment_bytes", lg->seg_bytes));
    sts_target_env(t, STS_KV_U("sensorlog_segments", lg->n_segs));
    sts_target_env(t, STS_KV_U("sensorlog_buffer_bytes", lg->cfg.buffer_bytes));
    sts_target_env(t, STS_KV_U("sensorlog_erase_unit_bytes", lg->erase_block));
    sts_target_env(t, STS_KV_U("sensorlog_max_files", lg->max_streams));
    sts_target_env(t, STS_KV_U("sensorlog_erase_slice_ns", lg->cfg.erase_slice_ns));
    /* the log's own RAM (state, two chunk buffers, the segment table, the
     * streams' table, the ring) as this host lays it out: a 32-bit MCU's
     * pointers make its state smaller (docs/footprint.md) */
    sts_target_env(t, STS_KV_U("sensorlog_ram_bytes", sl_ram_bytes(&lg->cfg)));
    sts_target_env(t, STS_KV_U("sensorlog_verify", m->guard.verify_buf != NULL));
}
