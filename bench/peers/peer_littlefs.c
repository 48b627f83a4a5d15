/* littlefs 2.x as a logger uses it: records appended to a file named by its
 * first timestamp, a new file every 1/16 of the device, the oldest files
 * removed while more than 3/4 of the blocks are in use (littlefs slows as
 * it fills: it needs free blocks for copy-on-write), lfs_file_sync as the
 * sync. Searches list the directory and bisect the file by its fixed-size
 * records. Geometry: blocks = the device's erase block (4 KiB on NOR,
 * 4 KiB on managed media, where erase is a no-op), prog = its program unit,
 * caches of one program unit, a 32-byte lookahead. */
#include "peers.h"

#ifdef STORSCOPE_HAVE_LITTLEFS
#include "lfs.h"

#include <stdio.h>
#include <string.h>

#define MAX_FILES 64

static struct {
    lfs_t lfs;
    struct lfs_config cfg;
    lfs_file_t file;
    struct lfs_file_config fcfg;
    const struct peer_env *env;
    uint32_t names[MAX_FILES]; /* first ts of each file, oldest first */
    uint32_t n_files;
    uint64_t file_limit, in_file;
    uint32_t rec;
    int open;
} s;

#define BEST_CACHE 4096
#define BEST_LOOKAHEAD 256
static uint8_t rcache[BEST_CACHE], pcache[BEST_CACHE], fcache[BEST_CACHE],
    reader_cache[BEST_CACHE], lookahead[BEST_LOOKAHEAD];

static int bd_read(const struct lfs_config *c, lfs_block_t b, lfs_off_t off, void *buf,
                   lfs_size_t n)
{
    return s.env->bd.ops->read(s.env->bd.ctx, (uint64_t)b * c->block_size + off, buf, n)
               ? LFS_ERR_IO : 0;
}
static int bd_prog(const struct lfs_config *c, lfs_block_t b, lfs_off_t off, const void *buf,
                   lfs_size_t n)
{
    return s.env->bd.ops->program(s.env->bd.ctx, (uint64_t)b * c->block_size + off, buf, n)
               ? LFS_ERR_IO : 0;
}
static int bd_erase(const struct lfs_config *c, lfs_block_t b)
{
    if (!(s.env->geo.flags & STS_BD_NEEDS_ERASE))
        return 0; /* managed media: littlefs never needs the erased value */
    return s.env->bd.ops->erase(s.env->bd.ctx, (uint64_t)b * c->block_size, c->block_size)
               ? LFS_ERR_IO : 0;
}
static int bd_sync(const struct lfs_config *c)
{
    (void)c;
    return s.env->bd.ops->flush(s.env->bd.ctx) ? LFS_ERR_IO : 0;
}

static void name_of(uint32_t first, char *out)
{
    snprintf(out, 12, "%08x", (unsigned)first);
}

static int start_file(uint32_t first_ts)
{
    char name[12];
    if (s.open) {
        int rc = lfs_file_close(&s.lfs, &s.file);
        s.open = 0;
        if (rc)
            return rc;
    }
    while (s.n_files > 1 && lfs_fs_size(&s.lfs) > (lfs_ssize_t)(s.cfg.block_count * 3 / 4)) {
        name_of(s.names[0], name);
        int rc = lfs_remove(&s.lfs, name);
        if (rc)
            return rc;
        memmove(s.names, s.names + 1, --s.n_files * sizeof(s.names[0]));
    }
    if (s.n_files == MAX_FILES)
        return -1;
    name_of(first_ts, name);
    s.fcfg = (struct lfs_file_config){.buffer = fcache};
    int rc = lfs_file_opencfg(&s.lfs, &s.file, name, LFS_O_WRONLY | LFS_O_CREAT | LFS_O_APPEND,
                              &s.fcfg);
    if (rc)
        return rc;
    s.open = 1;
    s.names[s.n_files++] = first_ts;
    s.in_file = 0;
    return 0;
}

/* ctx NULL: issue 16's configuration; non-NULL: littlefs at its best for
 * the medium (issue 40): on NOR, blocks of the chip's large erase (64 KiB:
 * one 150 ms command where sixteen 4 KiB sectors take 720 ms), on managed
 * media 4 KiB caches (littlefs's documentation: a cache a multiple of the
 * read and program sizes, the larger the fewer device commands); a 256-byte
 * lookahead (2,048 blocks found free per scan) everywhere. */
static int configure(void *ctx, const struct peer_env *env)
{
    int best = ctx != NULL;
    memset(&s, 0, sizeof(s));
    s.env = env;
    uint32_t prog = env->geo.prog_size, read = env->geo.read_size;
    uint32_t block = env->geo.erase_size < 4096 ? env->geo.erase_size : 4096;
    int raw = (env->geo.flags & STS_BD_NEEDS_ERASE) != 0;
    if (raw)
        block = best && env->geo.erase_large_size ? env->geo.erase_large_size
                                                    : env->geo.erase_size;
    uint32_t cache = best && !raw ? BEST_CACHE : prog;
    if (prog > sizeof(pcache) || cache % prog || block % cache)
        return -1;
    s.cfg = (struct lfs_config){
        .read = bd_read, .prog = bd_prog, .erase = bd_erase, .sync = bd_sync,
        .read_size = read < 16 ? 16 : read, .prog_size = prog, .block_size = block,
        .block_count = (lfs_size_t)(env->geo.capacity / block), .block_cycles = 500,
        .cache_size = cache, .lookahead_size = best ? BEST_LOOKAHEAD : 32,
        .read_buffer = rcache, .prog_buffer = pcache, .lookahead_buffer = lookahead,
    };
    s.rec = env->max_record;
    s.file_limit = env->geo.capacity / 16 / s.rec * s.rec;
    return 0;
}

static int lfs_open(void *ctx, const struct peer_env *env)
{
    int rc = configure(ctx, env);
    if (!rc)
        rc = lfs_format(&s.lfs, &s.cfg);
    if (!rc)
        rc = lfs_mount(&s.lfs, &s.cfg);
    return rc;
}

/* Files in order of their first ts, from the directory. */
static int list(uint32_t *first, uint32_t *n);

static int lfs_remount(void *ctx, const struct peer_env *env)
{
    int rc = configure(ctx, env);
    if (!rc)
        rc = lfs_mount(&s.lfs, &s.cfg);
    if (!rc)
        rc = list(s.names, &s.n_files);
    return rc;
}

/* With several streams a record goes in framed - its stream and length in
 * two bytes before it - as a logger that keeps them in one file writes it. */
static int lfs_put(void *ctx, uint8_t stream, uint64_t ts, const void *data, size_t len)
{
    (void)ctx;
    uint8_t framed[2 + 256];
    if (s.env->streams > 1) {
        framed[0] = stream;
        framed[1] = (uint8_t)len;
        memcpy(framed + 2, data, len);
        data = framed;
        len += 2;
    }
    if (!s.open || s.in_file + len > s.file_limit) {
        int rc = start_file((uint32_t)ts);
        if (rc)
            return rc;
    }
    lfs_ssize_t n = lfs_file_write(&s.lfs, &s.file, data, (lfs_size_t)len);
    if (n != (lfs_ssize_t)len)
        return n < 0 ? (int)n : -1;
    s.in_file += len;
    return 0;
}

static int lfs_flush(void *ctx)
{
    (void)ctx;
    return s.open ? lfs_file_sync(&s.lfs, &s.file) : 0;
}

/* The files in order of their first ts, from the directory (what a reader
 * that was not the writer has to do). */
static int list(uint32_t *first, uint32_t *n)
{
    lfs_dir_t dir;
    struct lfs_info info;
    int rc = lfs_dir_open(&s.lfs, &dir, "/");
    if (rc)
        return rc;
    *n = 0;
    while ((rc = lfs_dir_read(&s.lfs, &dir, &info)) > 0) {
        if (info.type != LFS_TYPE_REG || *n == MAX_FILES)
            continue;
        uint32_t v = 0;
        sscanf(info.name, "%x", &v);
        uint32_t i = (*n)++;
        for (; i > 0 && first[i - 1] > v; i--) /* insertion: the directory is small */
            first[i] = first[i - 1];
        first[i] = v;
    }
    lfs_dir_close(&s.lfs, &dir);
    return rc;
}

/* Opens the file whose first record is stamped first_ts for reading,
 * with the reader's cache. */
static int open_reader(uint32_t first_ts, lfs_file_t *file, struct lfs_file_config *fc)
{
    char name[12];
    *fc = (struct lfs_file_config){.buffer = reader_cache};
    name_of(first_ts, name);
    return lfs_file_opencfg(&s.lfs, file, name, LFS_O_RDONLY, fc);
}

/* Reads n records from record index k of file f on, across files. */
static int read_from(const uint32_t *first, uint32_t n_files, uint32_t f, lfs_soff_t k,
                     uint32_t n, uint64_t expect, uint32_t *got)
{
    uint8_t rec[256];
    *got = 0;
    for (; f < n_files && *got < n; f++, k = 0) {
        lfs_file_t file;
        struct lfs_file_config fc;
        int rc = open_reader(first[f], &file, &fc);
        if (rc)
            return rc;
        rc = (int)lfs_file_seek(&s.lfs, &file, k * (lfs_soff_t)s.rec, LFS_SEEK_SET);
        while (rc >= 0 && *got < n &&
               (rc = (int)lfs_file_read(&s.lfs, &file, rec, s.rec)) == (int)s.rec) {
            if (expect != UINT64_MAX && peer_stamp_of(rec) != (uint32_t)(expect + *got))
                rc = -1;
            else
                ++*got;
        }
        lfs_file_close(&s.lfs, &file);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int lfs_range(void *ctx, uint64_t from, uint32_t n, uint32_t *got)
{
    (void)ctx;
    uint32_t first[MAX_FILES], n_files;
    int rc = s.open ? lfs_file_sync(&s.lfs, &s.file) : 0;
    if (!rc)
        rc = list(first, &n_files);
    if (rc)
        return rc;
    uint32_t f = 0;
    while (f + 1 < n_files && first[f + 1] <= from)
        f++;
    /* bisect the file by its records' stamps */
    lfs_file_t file;
    struct lfs_file_config fc;
    rc = open_reader(first[f], &file, &fc);
    if (rc)
        return rc;
    lfs_soff_t lo = 0, hi = lfs_file_size(&s.lfs, &file) / (lfs_soff_t)s.rec;
    uint8_t rec[4];
    while (lo < hi && rc >= 0) {
        lfs_soff_t mid = lo + (hi - lo) / 2;
        rc = (int)lfs_file_seek(&s.lfs, &file, mid * (lfs_soff_t)s.rec, LFS_SEEK_SET);
        if (rc >= 0)
            rc = (int)lfs_file_read(&s.lfs, &file, rec, 4);
        if (peer_stamp_of(rec) < from)
            lo = mid + 1;
        else
            hi = mid;
    }
    lfs_file_close(&s.lfs, &file);
    return rc < 0 ? rc : read_from(first, n_files, f, lo, n, from, got);
}

static int lfs_latest(void *ctx, uint32_t n, uint32_t *got)
{
    (void)ctx;
    int rc = s.open ? lfs_file_sync(&s.lfs, &s.file) : 0;
    if (rc)
        return rc;
    /* the writer knows its files: the newest is the one it appends to */
    uint32_t f = s.n_files, need = n;
    lfs_soff_t k = 0;
    while (f > 0 && need) {
        f--;
        struct lfs_info info;
        char name[12];
        name_of(s.names[f], name);
        rc = lfs_stat(&s.lfs, name, &info);
        if (rc)
            return rc;
        uint32_t have = info.size / s.rec;
        k = have > need ? have - need : 0;
        need -= have > need ? need : have;
    }
    return read_from(s.names, s.n_files, f, k, n, UINT64_MAX, got);
}

static int lfs_each(void *ctx, peer_record_fn fn, void *arg, uint64_t *evicted)
{
    (void)ctx;
    *evicted = 0; /* (a file goes whole) */
    uint32_t first[MAX_FILES], n_files;
    int rc = list(first, &n_files);
    int framed = s.env->streams > 1;
    for (uint32_t f = 0; !rc && f < n_files; f++) {
        lfs_file_t file;
        struct lfs_file_config fc;
        rc = open_reader(first[f], &file, &fc);
        if (rc)
            return rc;
        uint8_t head[2] = {0, (uint8_t)s.rec}, rec[256];
        for (;;) {
            if (framed && lfs_file_read(&s.lfs, &file, head, 2) != 2)
                break;
            if (lfs_file_read(&s.lfs, &file, rec, head[1]) != head[1])
                break; /* (a file's end: littlefs keeps what the last sync wrote) */
            fn(arg, head[0], rec, head[1]);
        }
        lfs_file_close(&s.lfs, &file);
    }
    return rc;
}

static size_t lfs_ram(void *ctx)
{
    (void)ctx;
    /* read, prog and file caches, and a reader's file cache */
    return sizeof(lfs_t) + 2 * sizeof(lfs_file_t) + 4 * s.cfg.cache_size + s.cfg.lookahead_size;
}

static void lfs_close_store(void *ctx)
{
    (void)ctx;
    if (s.open)
        lfs_file_close(&s.lfs, &s.file);
    lfs_unmount(&s.lfs);
    s.open = 0;
}

static const struct peer_store store = {
    "littlefs", lfs_open, lfs_remount, lfs_put, lfs_flush, lfs_range, lfs_latest, lfs_each,
    lfs_ram, lfs_close_store,
    NULL, "v2.9.3-compatible API; a file per 1/16 of the device, oldest removed above 3/4 "
          "full; block = erase block (4 KiB), prog = program unit, caches of one program unit",
    0,
};
const struct peer_store *const peer_littlefs = &store;
static int best_marker;
static const struct peer_store best_store = {
    "littlefs, best", lfs_open, lfs_remount, lfs_put, lfs_flush, lfs_range, lfs_latest, lfs_each,
    lfs_ram, lfs_close_store,
    &best_marker, "v2.9.3-compatible API, files as above; NOR: block = the chip's large erase "
                  "(64 KiB), caches of one program unit; managed media: 4 KiB blocks, 4 KiB "
                  "caches; a 256-byte lookahead",
    0,
};
const struct peer_store *const peer_littlefs_best = &best_store;
#else
const struct peer_store *const peer_littlefs = NULL;
const struct peer_store *const peer_littlefs_best = NULL;
#endif
