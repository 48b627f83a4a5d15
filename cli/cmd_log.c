/* storscope log: sensorlog images on the host.
 *   log dump IMAGE [--stream NAME] [--csv]   decode a card image or device, read-only
 *   log demo IMAGE [--size SIZE] [--seconds N]  write a demo log (imu, ppg, env)
 * Both reach the medium through a target kind - raw: for an image or a
 * card, mtd: for a board's flash (/dev/mtdN, erased through MEMERASE) - so
 * a mounted device is refused and dump never writes. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_options.h"
#include "sensorlog/sensorlog.h"
#include "sensorlog/sl_crc_fast.h"
#include "storscope/error.h"
#include "storscope/posix.h"
#include "storscope/units.h"
#include "storscope/sensorlog_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

struct log_mem {
    struct sl_log log;
    struct sl_config cfg;
    uint8_t *ring, *chunk, *read;
    struct sl_seg_info *segs;
    struct sl_stream_info *streams;
    struct sts_flash_guard guard; /* raw flash: every program read back, 0x00-erased inverted */
};

static void log_mem_free(struct log_mem *m)
{
    free(m->ring);
    free(m->chunk);
    free(m->read);
    sts_flash_guard_free(&m->guard);
    free(m->segs);
    free(m->streams);
}

static int log_mem_alloc(struct log_mem *m, struct sts_bd bd, uint32_t chunk, uint32_t seg_bytes,
                         uint64_t size, uint32_t max_streams)
{
    memset(m, 0, sizeof(*m));
    uint32_t n = (uint32_t)(size / seg_bytes);
    m->ring = malloc(65536);
    m->streams = calloc(max_streams ? max_streams : 1, sizeof(*m->streams));
    m->segs = calloc(n ? n : 1, sizeof(*m->segs));
    if (posix_memalign((void **)&m->chunk, 4096, chunk))
        m->chunk = NULL;
    if (posix_memalign((void **)&m->read, 4096, chunk))
        m->read = NULL;
    struct sts_bd_geometry g = {0};
    bd.ops->geometry(bd.ctx, &g);
    /* a flash chip can fail a program silently: read back on raw flash */
    if (!m->ring || !m->segs || !m->chunk || !m->read || !m->streams ||
        sts_flash_guard_stack(&m->guard, &bd, chunk, !!(g.flags & STS_BD_NEEDS_ERASE)))
        return SL_ENOMEM;
    m->cfg = (struct sl_config){.bd = bd, .size = size, .chunk_bytes = chunk,
                                .segment_bytes = seg_bytes, .buffer = m->ring,
                                .buffer_bytes = 65536, .chunk_buf = m->chunk,
                                .read_buf = m->read, .segs = m->segs, .n_segs = n,
                                .streams = m->streams, .max_streams = max_streams,
                                .crc32c = sl_crc32c_fast};
    return SL_OK;
}

/* The medium through its target kind: an MTD character device (a board's
 * SPI NOR or NAND, /dev/mtdN) through mtd:, with its erases; an image or a
 * block device through raw:. Either refuses a mounted device. */
static const struct sts_target_kind *open_medium(struct sts_target *t, const char *path,
                                                 int writable)
{
    struct stat st;
    const struct sts_target_kind *kind =
        !stat(path, &st) && S_ISCHR(st.st_mode) ? &sts_target_mtd : &sts_target_raw;
    struct sts_target_spec spec;
    const char *why = NULL;
    char spec_text[600], err[256] = "";
    snprintf(spec_text, sizeof(spec_text), "%s:%s", kind->name, path);
    if (sts_target_spec_parse(spec_text, &spec, &why)) {
        cli_error("bad image path '%s': %s", path, why);
        return NULL;
    }
    memset(t, 0, sizeof(*t));
    t->allow_destructive = writable;
    if (kind->open(t, &spec, err, sizeof(err))) {
        cli_error("%s", err);
        return NULL;
    }
    return kind;
}

/* An image cut short (a partial copy of a card): the device as the log's
 * header states it, reads past the end failing as a torn page would, so
 * mount and iterators pass over what is missing and count it. */
struct padded_bd {
    struct sts_bd inner;
    uint64_t have, claimed; /* bytes in the image / in the log's geometry */
};

static int pad_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    struct padded_bd *p = ctx;
    if (addr >= p->have || len > p->have - addr)
        return STS_EIO;
    return p->inner.ops->read(p->inner.ctx, addr, buf, len);
}
static int pad_refuse(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    (void)ctx, (void)addr, (void)buf, (void)len;
    return STS_EACCES; /* dump never writes */
}
static int pad_erase(void *ctx, uint64_t addr, uint64_t len)
{
    (void)ctx, (void)addr, (void)len;
    return STS_EACCES;
}
static int pad_flush(void *ctx)
{
    (void)ctx;
    return STS_OK;
}
static void pad_geometry(void *ctx, struct sts_bd_geometry *g)
{
    struct padded_bd *p = ctx;
    p->inner.ops->geometry(p->inner.ctx, g);
    g->capacity = p->claimed;
}
static const struct sts_bd_ops padded_ops = {
    .version = STS_BD_OPS_VERSION, pad_read, pad_refuse, pad_erase, pad_flush, pad_geometry, NULL,
    NULL, NULL
};

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#define MAX_DUMP_SEGMENTS (1u << 20) /* 32 MiB of segment table at most */

struct found {
    uint64_t at;                 /* byte offset of the header found */
    uint32_t chunk, seg, n, max_streams;
};

/* Finds the first intact segment header wherever it is (segment 0 may be
 * free): a header starts on a chunk boundary, and chunks are multiples of
 * 1 KiB. Every field the allocations depend on is checked against the
 * format's limits before anything is sized from it. 0, -1 none, -2 an I/O
 * error, -3 a header with impossible geometry (*why says which). */
static int find_header(struct sts_bd *bd, uint64_t image, struct found *f, const char **why)
{
    enum { WINDOW = 1u << 20 };
    uint8_t *buf;
    if (posix_memalign((void **)&buf, 4096, WINDOW))
        return -2;
    int rc = -1;
    for (uint64_t base = 0; base < image && rc == -1; base += WINDOW) {
        size_t len = image - base < WINDOW ? (size_t)(image - base) : WINDOW;
        len -= len % 1024;
        if (!len || bd->ops->read(bd->ctx, base, buf, len)) {
            rc = len ? -2 : -1;
            break;
        }
        for (size_t off = 0; off + 64 <= len && rc == -1; off += 1024) {
            const uint8_t *h = buf + off;
            if (memcmp(h, "SLSG", 4) || h[6] != 60 || h[7] != 0)
                continue;
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION /* see SL_CRC_MATCH */
            if (le32(h + 56) != sl_crc32c(0, h, 56))
                continue;
#endif
            *f = (struct found){base + off, le32(h + 32), le32(h + 36), le32(h + 40),
                                le32(h + 48)};
            rc = 0;
            if (f->chunk < 1024 || f->chunk > 65535 + 52 || f->chunk % 512)
                *why = "its chunk size", rc = -3;
            else if (f->seg < 2 * f->chunk || f->seg % f->chunk || f->seg > (1u << 30))
                *why = "its segment size", rc = -3;
            else if (f->n < 3 || f->n > MAX_DUMP_SEGMENTS)
                *why = "its number of segments", rc = -3;
            else if (!f->max_streams || f->max_streams > SL_MAX_STREAMS)
                *why = "its number of streams", rc = -3;
        }
    }
    free(buf);
    return rc;
}

/* "no stream X (its streams: a, b, ...)", the names as many as fit. */
static void say_no_stream(struct sl_log *log, uint32_t max_streams, const char *path,
                          const char *stream)
{
    char names[512] = "";
    size_t at = 0; /* names fit 14 bytes: room for one more and ", ..." */
    for (uint32_t i = 1; i <= max_streams && i <= UINT16_MAX; i++) {
        const struct sl_stream_info *si = sl_stream_info(log, (uint16_t)i);
        if (!si)
            continue;
        if (at + 2 + SL_NAME_MAX + sizeof(", ...") > sizeof(names)) {
            snprintf(names + at, sizeof(names) - at, ", ...");
            break;
        }
        at += (size_t)snprintf(names + at, sizeof(names) - at, "%s%s", at ? ", " : "", si->name);
    }
    cli_error("%s has no stream '%s' (its streams: %s)", path, stream, at ? names : "none");
}

/* Every record of stream id (0: all) from the oldest, one line each, in
 * text or CSV; what ended the read (SL_ENOENT: the end). */
static int print_records(struct sl_log *log, uint16_t id, int csv, struct sl_iter *it,
                         uint64_t *count)
{
    struct sl_record r;
    int rc;
    if (csv)
        printf("gseq,stream,timestamp,bytes,data_hex\n");
    sl_iter_from_gseq(log, it, id, 0);
    while ((rc = sl_iter_next(it, &r)) == SL_OK) {
        const struct sl_stream_info *si = sl_stream_info(log, r.stream);
        const char *name = si ? si->name : "?";
        if (csv)
            printf("%llu,%s,%llu,%u,", (unsigned long long)r.gseq, name,
                   (unsigned long long)r.ts, r.len);
        else
            printf("%10llu  %-15s  ts %-14llu  %3u B  ", (unsigned long long)r.gseq, name,
                   (unsigned long long)r.ts, r.len);
        for (unsigned i = 0; i < r.len; i++)
            printf("%02x", r.data[i]);
        putchar('\n');
        (*count)++;
    }
    return rc;
}

/* What the read passed over or could not read, said on stderr:
 * EXIT_RUN_FAILED when records inside the log were lost, else EXIT_OK
 * (a torn end was never synced; an eviction is the log's design). */
static int say_what_was_lost(const struct sl_stats *st, const struct sl_iter *it)
{
    if (st->repaired)
        fprintf(stderr, "storscope: %llu damaged %s read from their second copy\n",
                (unsigned long long)st->repaired,
                st->repaired == 1 ? "header or catalog page was" : "headers or catalog pages were");
    if (it->evicted)
        fprintf(stderr, "storscope: %llu %s after the oldest segment's first records %s "
                        "erased by an eviction a power cut stopped (the log's oldest, "
                        "leaving it by design): not shown\n", (unsigned long long)it->evicted,
                it->evicted == 1 ? "record" : "records", it->evicted == 1 ? "was" : "were");
    if (it->torn)
        fprintf(stderr, "storscope: %llu %s at the end of a segment's data could not be "
                        "read (torn by a power cut, so never synced, or damaged): their "
                        "records are not shown\n", (unsigned long long)it->torn,
                it->torn == 1 ? "chunk" : "chunks");
    if (st->torn_pieces)
        fprintf(stderr, "storscope: the newest chunk ends in a piece that was written but does "
                        "not check (torn by a power cut, so never synced, or damaged): its "
                        "records are not shown\n");
    int status = EXIT_OK;
    if (it->lost_segments) {
        fprintf(stderr, "storscope: %llu %s of the log could not be read (%s and its catalog "
                        "copy damaged): %llu records lost, the records after %s shown\n",
                (unsigned long long)it->lost_segments,
                it->lost_segments == 1 ? "segment" : "segments",
                it->lost_segments == 1 ? "its header" : "each one's header",
                (unsigned long long)it->lost_records, it->lost_segments == 1 ? "it" : "them");
        status = EXIT_RUN_FAILED;
    }
    if (it->skipped) {
        fprintf(stderr, "storscope: %llu %s inside the log could not be read (damaged): "
                        "their records are not shown\n", (unsigned long long)it->skipped,
                it->skipped == 1 ? "chunk or part of one" : "chunks or parts of one");
        status = EXIT_RUN_FAILED;
    }
    return status;
}

static int dump(const char *path, const char *stream, int csv)
{
    struct sts_target t;
    const struct sts_target_kind *kind = open_medium(&t, path, 0);
    if (!kind)
        return EXIT_USAGE;
    struct sts_bd_geometry g;
    memset(&g, 0, sizeof(g));
    t.bd->ops->geometry(t.bd->ctx, &g);
    struct found f;
    memset(&f, 0, sizeof(f));
    const char *why = "";
    int frc = find_header(t.bd, g.capacity, &f, &why);
    if (frc) {
        if (frc == -1)
            cli_error("%s holds no sensorlog log (no segment header anywhere in its %llu bytes)",
                      path, (unsigned long long)g.capacity);
        else if (frc == -2)
            cli_error("%s: read error while looking for a sensorlog header", path);
        else
            cli_error("%s: a sensorlog header with impossible geometry (%s) at byte %llu",
                      path, why, (unsigned long long)f.at);
        kind->close(&t);
        return EXIT_USAGE;
    }
    /* the log starts where segment 0 would be, the header's segment back */
    uint64_t log_bytes = (uint64_t)f.seg * f.n, offset = f.at % f.seg;
    struct padded_bd pad = {*t.bd, g.capacity, offset + log_bytes};
    struct sts_bd bd = {&padded_ops, &pad};
    int truncated = g.capacity < offset + log_bytes;
    struct log_mem m;
    int rc = log_mem_alloc(&m, bd, f.chunk, f.seg, log_bytes, f.max_streams);
    m.cfg.offset = offset;
    m.cfg.page_bytes = f.chunk; /* a reader: any page that divides the chunk */
    if (!rc)
        rc = sl_mount(&m.log, &m.cfg);
    uint16_t id = 0;
    int said = 0;
    if (!rc && stream && sl_stream_open(&m.log, stream, &id)) {
        say_no_stream(&m.log, f.max_streams, path, stream);
        rc = SL_ENOENT;
        said = 1;
    }
    if (rc) {
        /* (a mount that found nothing said nothing: an image cut short
         * exited 2 without a word) */
        if (!said)
            cli_error("cannot mount the log in %s: %s%s", path,
                      rc == SL_ECORRUPT ? "unknown format version or geometry"
                      : rc == SL_ENOMEM ? "out of memory"
                      : rc == SL_ENOENT ? "no segment holds a whole catalog"
                                        : "I/O error",
                      truncated ? " (the image ends before the log does: cut short?)" : "");
        log_mem_free(&m);
        kind->close(&t);
        return EXIT_USAGE;
    }
    struct sl_iter it;
    uint64_t count = 0;
    rc = print_records(&m.log, id, csv, &it, &count);
    struct sl_stats st;
    sl_stats(&m.log, &st);
    if (!csv)
        fprintf(stderr, "%llu records; %u segments of %u KiB, %u-byte chunks; wear %u..%u "
                        "erases per segment\n",
                (unsigned long long)count, f.n, f.seg / 1024, f.chunk, st.erase_min,
                st.erase_max);
    if (truncated)
        fprintf(stderr, "storscope: %s is cut short: it holds %llu of the log's %llu bytes; "
                        "what is past its end is not shown\n",
                path, (unsigned long long)(g.capacity > offset ? g.capacity - offset : 0),
                (unsigned long long)log_bytes);
    int status = say_what_was_lost(&st, &it);
    if (rc != SL_ENOENT) {
        cli_error("reading %s stopped: %s", path, sts_strerror(rc));
        status = EXIT_RUN_FAILED;
    }
    log_mem_free(&m);
    kind->close(&t);
    return status;
}

static volatile sig_atomic_t demo_stop;

/* Ctrl-C, SIGTERM, SIGHUP: the demo stops at the next millisecond of its
 * streams and removes the image it was writing (a half-written demo is no
 * product), as a failed one does. */
static void on_demo_signal(int sig)
{
    (void)sig;
    demo_stop = 1;
}

/* 0 when an image of `size` bytes at path leaves its filesystem the space
 * storscope leaves any user's (cli_space_reserve): a log that wraps writes
 * all of it. */
static int demo_space(const char *path, uint64_t size)
{
    char copy[4096];
    snprintf(copy, sizeof(copy), "%s", path);
    const char *dir = dirname(copy);
    struct statvfs sv;
    if (statvfs(dir, &sv))
        return 0; /* unknown: the writes themselves report ENOSPC */
    uint64_t total = (uint64_t)sv.f_blocks * sv.f_frsize, free = (uint64_t)sv.f_bavail * sv.f_frsize;
    uint64_t reserve = cli_space_reserve(total);
    if (size + reserve <= free)
        return 0;
    char a[32], b[32], c[32];
    sts_fmt_bytes(a, sizeof(a), size);
    sts_fmt_bytes(b, sizeof(b), free);
    sts_fmt_bytes(c, sizeof(c), reserve);
    cli_error("not enough free space for a %s image in %s: %s is free and storscope leaves %s "
              "of it (--size sets the image's size)",
              a, dir, b, c);
    return -1;
}

/* What a demo writes to: a new image, or with --allow-destructive a block
 * device (a card or an eMMC, the whole of it: a logger's own medium), which
 * is never removed afterwards - what was synced stays for `log dump`. */
struct demo_opts {
    uint64_t size, seconds;
    int allow_destructive, progress;
};

/* A demo log: 3 sensors sampled for `seconds`, synced once a second. */
/* The demo's three streams on a fresh log, written for `seconds` of
 * virtual time (stopped early by a signal) and synced each second; with
 * progress, a line once each sync has returned. */
static int demo_write(struct sl_log *log, uint64_t seconds, int progress)
{
    uint16_t imu = 0, ppg = 0, env = 0;
    int rc = sl_stream_create(log, "imu", &imu);
    if (!rc)
        rc = sl_stream_create(log, "ppg", &ppg);
    if (!rc)
        rc = sl_stream_create(log, "env", &env);
    for (uint64_t ms = 0; !rc && ms < seconds * 1000; ms++) {
        if (demo_stop)
            break;
        uint64_t ts = ms * 1000000ull; /* ns */
        int16_t acc[6] = {(int16_t)(ms % 100), (int16_t)(-(int)(ms % 37)), 1000, 0, 1, 2};
        rc = sl_append(log, imu, ts, acc, sizeof(acc));
        if (!rc && ms % 10 == 0) {
            uint32_t ppg_v[6] = {(uint32_t)ms, 2, 3, 4, 5, 6};
            rc = sl_append(log, ppg, ts, ppg_v, sizeof(ppg_v));
        }
        if (!rc && ms % 1000 == 0) {
            char text[64];
            int len = snprintf(text, sizeof(text), "t=%llus temp=21.5C rh=40%%",
                               (unsigned long long)(ms / 1000));
            rc = sl_append(log, env, ts, text, (size_t)len);
        }
        while (!rc && (rc = sl_pump(log)) == SL_BUSY)
            rc = 0;
        if (!rc && ms % 1000 == 999) {
            rc = sl_sync(log);
            /* what a power cut from here on must not take: a line a sync,
             * printed once the sync returned (tests/vm/kernel_vm.py cuts
             * the power after one and counts what the log kept) */
            if (!rc && progress) {
                printf("synced %llu s: imu %llu, ppg %llu, env %llu records\n",
                       (unsigned long long)(ms / 1000 + 1), (unsigned long long)(ms + 1),
                       (unsigned long long)(ms / 10 + 1), (unsigned long long)(ms / 1000 + 1));
                fflush(stdout);
            }
        }
    }
    return rc;
}

static int demo(const char *path, const struct demo_opts *o)
{
    uint64_t size = o->size, seconds = o->seconds;
    struct stat st;
    /* a card (a block device) or a board's flash (an MTD character device) */
    int device = !stat(path, &st) && (S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode));
    if (device && !o->allow_destructive) {
        cli_error("%s is a %s: a demo formats all of it as a log, which needs "
                  "--allow-destructive", path,
                  S_ISCHR(st.st_mode) ? "character device (an MTD's flash)" : "block device");
        return EXIT_USAGE;
    }
    if (!device && demo_space(path, size))
        return EXIT_USAGE;
    demo_stop = 0;
    cli_catch_stop_signals(on_demo_signal);
    int fd = device ? -1 : open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (!device && fd < 0) {
        if (errno == EEXIST)
            cli_error("cannot create %s: it exists (a demo writes a new image, never over a "
                      "file)", path);
        else
            cli_error("cannot create %s: %s", path, strerror(errno));
        return EXIT_USAGE;
    }
    int trunc = device ? 0 : ftruncate(fd, (off_t)size);
    if (!device)
        close(fd);
    struct sts_target t;
    const struct sts_target_kind *kind = trunc ? NULL : open_medium(&t, path, 1);
    if (!kind) {
        if (!device)
            unlink(path);
        return EXIT_USAGE;
    }
    if (device) {
        struct sts_bd_geometry g;
        memset(&g, 0, sizeof(g));
        t.bd->ops->geometry(t.bd->ctx, &g);
        size = g.capacity;
    }
    /* sensorlog's defaults for this medium: an image file's page is not
     * known, so chunks of 16 KiB, segments of 16 chunks */
    struct sl_layout l;
    struct sl_config probe = {.bd = *t.bd};
    struct log_mem m;
    int rc = sl_layout(&probe, &l);
    if (!rc && size / l.segment_bytes < 4) {
        char a[32];
        sts_fmt_bytes(a, sizeof(a), 4ull * l.segment_bytes);
        cli_error("the %s is too small for a log of four segments (%s at least)",
                  device ? "device" : "image", a);
        kind->close(&t);
        if (!device)
            unlink(path);
        return EXIT_USAGE;
    }
    if (!rc)
        rc = log_mem_alloc(&m, *t.bd, l.chunk_bytes, l.segment_bytes,
                           size / l.segment_bytes * l.segment_bytes, 16);
    else
        memset(&m, 0, sizeof(m));
    if (!rc)
        rc = sl_format(&m.log, &m.cfg);
    if (!rc)
        rc = demo_write(&m.log, seconds, o->progress);
    if (!rc && !demo_stop)
        rc = sl_sync(&m.log);
    log_mem_free(&m);
    kind->close(&t);
    if (demo_stop) {
        if (device) {
            cli_error("interrupted: the log on %s holds what was synced before", path);
            return EXIT_INTERRUPTED;
        }
        unlink(path);
        cli_error("interrupted: %s, half written, was removed", path);
        return EXIT_INTERRUPTED;
    }
    if (rc) {
        cli_error("writing the demo log to %s failed: %s", path, sts_strerror(rc));
        if (!device)
            unlink(path);
        return EXIT_RUN_FAILED;
    }
    printf("%s: a sensorlog with streams imu (1 kHz), ppg (100 Hz), env (1 Hz), %llu s\n", path,
           (unsigned long long)seconds);
    return EXIT_OK;
}

struct log_opts {
    const char *stream;
    int csv, allow_destructive, progress;
    uint64_t size, seconds;
};
#define LO(f) CLI_AT(0, struct log_opts, f)
static const struct cli_opt log_opts_table[] = {
    {"stream", 0, CLI_TEXT, "NAME", "dump: only this stream's records", LO(stream)},
    {"csv", 0, CLI_FLAG, "", "dump: CSV, one row per record", LO(csv)},
    {"size", 0, CLI_SIZE, "SIZE", "demo: the image's size (default: 1M)", LO(size),
     .min = 1u << 20, .max = 1ull << 40, .hint = "1M .. 1T"},
    {"seconds", 0, CLI_COUNT, "N", "demo: seconds of the three streams to write (default: 10)",
     LO(seconds), .min = 1, .max = 86400, .hint = "1 .. 86400"},
    {"allow-destructive", 0, CLI_FLAG, "",
     "demo: format a whole block device or MTD device (destroys its data)",
     LO(allow_destructive)},
    {"progress", 0, CLI_FLAG, "", "demo: a line after each sync (once a second of the streams)",
     LO(progress)},
};

const struct cli_command cli_log_command = {
    "log",
    "usage: storscope log dump IMAGE [--stream NAME] [--csv]\n"
    "       storscope log demo IMAGE [--size SIZE] [--seconds N] [--progress]\n"
    "       storscope log demo DEVICE --allow-destructive [--seconds N] [--progress]\n"
    "\n"
    "dump decodes a sensorlog on a card image, a block device or an MTD device\n"
    "(read-only; a mounted device is refused): one line per record, or CSV\n"
    "with --csv.\n"
    "demo writes a new image holding a small log of three sensor streams, or\n"
    "formats a whole block device (a card) or MTD device (a board's flash,\n"
    "/dev/mtdN) as one with --allow-destructive.\n"
    "\n",
    log_opts_table, sizeof(log_opts_table) / sizeof(log_opts_table[0]), NULL};

int cmd_log(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "dump") && strcmp(argv[1], "demo"))) {
        if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
            cli_print_help(stdout, &cli_log_command);
            return EXIT_OK;
        }
        cli_error(argc < 2 ? "log needs a subcommand" : "unknown log subcommand '%s'",
                  argc < 2 ? "" : argv[1]);
        cli_print_help(stderr, &cli_log_command);
        return EXIT_USAGE;
    }
    int is_dump = !strcmp(argv[1], "dump");
    struct log_opts lo = {NULL, 0, 0, 0, 1ull << 20, 10};
    void *const into[] = {&lo};
    const char *given[CLI_MAX_OPTS];
    int first = cli_parse(&cli_log_command, argc - 1, argv + 1, into, given);
    if (first == CLI_HELP_SHOWN)
        return EXIT_OK;
    if (first < 0)
        return EXIT_USAGE;
    int size_given = cli_given(&cli_log_command, given, "size") != NULL;
    char **sub = argv + 1; /* the options were parsed from argv[1..]: its operands end them */
    if (argc - 1 - first != 1) {
        cli_error("log %s needs one IMAGE", argv[1]);
        return EXIT_USAGE;
    }
    const char *image = sub[first];
    if (is_dump && (lo.allow_destructive || lo.progress || size_given)) {
        cli_error("--allow-destructive, --progress and --size are demo's: dump only reads");
        return EXIT_USAGE;
    }
    struct stat st;
    if (!is_dump && size_given && !stat(image, &st) && S_ISBLK(st.st_mode)) {
        cli_error("--size is an image's: a demo on a device takes all of it");
        return EXIT_USAGE;
    }
    struct demo_opts o = {lo.size, lo.seconds, lo.allow_destructive, lo.progress};
    return is_dump ? dump(image, lo.stream, lo.csv) : demo(image, &o);
}
