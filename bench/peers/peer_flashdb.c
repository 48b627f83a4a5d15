/* FlashDB's time-series database (TSDB) as its users run it: the whole
 * device one FAL partition, sectors of one erase block, rollover on, every
 * append written to flash at once (a TSDB append is durable when it
 * returns: sync has nothing to do). On managed media the FAL port's erase
 * writes 0xFF, the erased value FlashDB expects, as an SD/eMMC port must;
 * writes smaller than a sector cost the card's read-modify-write. */
#include "peers.h"

#ifdef STORSCOPE_HAVE_FLASHDB
#include <flashdb.h>

#include <string.h>

static struct {
    struct fdb_tsdb db;
    const struct peer_env *env;
    uint64_t ts; /* the stamp of the record being appended */
} s;

static int dev_init(void) { return 0; }
static int dev_read(long off, uint8_t *buf, size_t n)
{
    return s.env->bd.ops->read(s.env->bd.ctx, (uint64_t)off, buf, n) ? -1 : (int)n;
}
static int dev_write(long off, const uint8_t *buf, size_t n)
{
    return s.env->bd.ops->program(s.env->bd.ctx, (uint64_t)off, buf, n) ? -1 : (int)n;
}
static int dev_erase(long off, size_t n)
{
    if (s.env->geo.flags & STS_BD_NEEDS_ERASE)
        return s.env->bd.ops->erase(s.env->bd.ctx, (uint64_t)off, n) ? -1 : (int)n;
    static uint8_t ff[4096];
    memset(ff, 0xFF, sizeof(ff));
    for (size_t done = 0; done < n; done += sizeof(ff))
        if (s.env->bd.ops->program(s.env->bd.ctx, (uint64_t)off + done, ff, sizeof(ff)))
            return -1;
    return (int)n;
}

const struct fal_flash_dev peer_fal_nor = {
    "peer_nor", 0, 16 * 1024 * 1024, 4096, {dev_init, dev_read, dev_write, dev_erase}, 1};
const struct fal_flash_dev peer_fal_nor1m = {
    "peer_nor1m", 0, 1024 * 1024, 4096, {dev_init, dev_read, dev_write, dev_erase}, 1};
const struct fal_flash_dev peer_fal_managed = {
    "peer_managed", 0, 256 * 1024 * 1024, 4096, {dev_init, dev_read, dev_write, dev_erase}, 1};

static fdb_time_t stamp(void)
{
    return (fdb_time_t)s.ts;
}

/* The partition for the device (FAL's table is static, fal_cfg.h: one
 * partition a size), or NULL. */
static const char *partition_of(const struct peer_env *env)
{
    int nor = env->geo.flags & STS_BD_NEEDS_ERASE;
    const char *name = !nor ? "managed_db"
                       : env->geo.capacity == 1024 * 1024 ? "nor1m_db" : "nor_db";
    if (env->geo.capacity != (!nor ? 256u : env->geo.capacity == 1024 * 1024 ? 1u : 16u) *
                                 1024 * 1024)
        return NULL;
    static int fal_ready;
    if (!fal_ready && fal_init() < 0)
        return NULL;
    fal_ready = 1;
    return name;
}

/* (with several streams a record's first byte is its stream: a TSDB has none) */
static uint32_t blob_max(const struct peer_env *env)
{
    return env->max_record + (env->streams > 1);
}

/* ctx NULL: issue 16's configuration, sectors of one erase block; non-NULL:
 * FlashDB at its best (issue 40) - sectors of the chip's large erase on NOR
 * (FDB_TSDB_CTRL_SET_SEC_SIZE, a multiple of the FAL block: 64 KiB, one
 * 150 ms command where sixteen 4 KiB sectors take 720 ms), the FAL block
 * (4 KiB) on managed media, where a larger sector only writes more 0xFF at
 * each rollover. */
static int start(void *ctx, const struct peer_env *env)
{
    memset(&s, 0, sizeof(s));
    s.env = env;
    const char *name = partition_of(env);
    uint32_t sec = env->geo.erase_large_size;
    if (ctx && (env->geo.flags & STS_BD_NEEDS_ERASE) && sec)
        fdb_tsdb_control(&s.db, FDB_TSDB_CTRL_SET_SEC_SIZE, &sec);
    return name && fdb_tsdb_init(&s.db, "log", name, stamp, blob_max(env), NULL) == FDB_NO_ERR
               ? 0 : -1;
}

static int fdb_open(void *ctx, const struct peer_env *env)
{
    /* a fresh database on whatever the device holds: erase it first, as a
     * first boot would find it */
    const char *name = partition_of(env);
    const struct fal_partition *part = name ? fal_partition_find(name) : NULL;
    s.env = env; /* (the FAL port's device) */
    if (!part || fal_partition_erase_all(part) < 0)
        return -1;
    return start(ctx, env);
}

static int fdb_remount(void *ctx, const struct peer_env *env)
{
    return start(ctx, env);
}

static int fdb_put(void *ctx, uint8_t stream, uint64_t ts, const void *data, size_t len)
{
    (void)ctx;
    struct fdb_blob blob;
    uint8_t tagged[1 + 256];
    if (s.env->streams > 1) {
        tagged[0] = stream;
        memcpy(tagged + 1, data, len);
        data = tagged;
        len++;
    }
    s.ts = ts;
    return fdb_tsl_append(&s.db, fdb_blob_make(&blob, data, len)) == FDB_NO_ERR ? 0 : -1;
}

static int fdb_flush(void *ctx)
{
    (void)ctx;
    return 0;
}

struct reading {
    uint32_t want, got;
    uint64_t expect; /* UINT64_MAX: any */
    int bad;
};

static bool one(fdb_tsl_t tsl, void *arg)
{
    struct reading *r = arg;
    uint8_t rec[256] = {0};
    struct fdb_blob blob;
    size_t n = fdb_blob_read((fdb_db_t)&s.db, fdb_tsl_to_blob(tsl, fdb_blob_make(&blob, rec,
                                                                                 sizeof(rec))));
    if (n < 4 || (r->expect != UINT64_MAX && peer_stamp_of(rec) != (uint32_t)(r->expect + r->got)))
        r->bad = 1;
    return r->bad || ++r->got >= r->want; /* true stops the iteration */
}

static int fdb_range(void *ctx, uint64_t from, uint32_t n, uint32_t *got)
{
    (void)ctx;
    struct reading r = {n, 0, from, 0};
    fdb_tsl_iter_by_time(&s.db, (fdb_time_t)from, (fdb_time_t)INT32_MAX, one, &r);
    *got = r.got;
    return r.bad ? -1 : 0;
}

static int fdb_latest(void *ctx, uint32_t n, uint32_t *got)
{
    (void)ctx;
    struct reading r = {n, 0, UINT64_MAX, 0};
    fdb_tsl_iter_reverse(&s.db, one, &r);
    *got = r.got;
    return r.bad ? -1 : 0;
}

struct every {
    peer_record_fn fn;
    void *arg;
};

/* A record whose index entry says it was written (FDB_TSL_WRITE), as
 * FlashDB's samples read them: one a cut left half-written stays
 * PRE_WRITE. */
static bool each_one(fdb_tsl_t tsl, void *arg)
{
    struct every *e = arg;
    if (tsl->status != FDB_TSL_WRITE)
        return false;
    uint8_t rec[1 + 256] = {0};
    struct fdb_blob blob;
    size_t n = fdb_blob_read((fdb_db_t)&s.db, fdb_tsl_to_blob(tsl, fdb_blob_make(&blob, rec,
                                                                                 sizeof(rec))));
    int tagged = s.env->streams > 1;
    if (n >= (size_t)tagged)
        e->fn(e->arg, tagged ? rec[0] : 0, rec + tagged, n - (size_t)tagged);
    return false;
}

static int fdb_each(void *ctx, peer_record_fn fn, void *arg, uint64_t *evicted)
{
    (void)ctx;
    *evicted = 0; /* (a sector goes whole) */
    struct every e = {fn, arg};
    fdb_tsl_iter(&s.db, each_one, &e);
    return 0;
}

static size_t fdb_ram(void *ctx)
{
    (void)ctx;
    return sizeof(struct fdb_tsdb);
}

static void fdb_close(void *ctx)
{
    (void)ctx;
    fdb_tsdb_deinit(&s.db);
}

static const struct peer_store store = {
    "FlashDB TSDB", fdb_open, fdb_remount, fdb_put, fdb_flush, fdb_range, fdb_latest, fdb_each,
    fdb_ram, fdb_close, NULL,
    "2.2.0; FAL partition = whole device, sector = erase block (4 KiB), write granularity 1 bit, "
    "rollover on",
    0,
};
const struct peer_store *const peer_flashdb = &store;
static int best_marker;
static const struct peer_store best_store = {
    "FlashDB TSDB, best", fdb_open, fdb_remount, fdb_put, fdb_flush, fdb_range, fdb_latest,
    fdb_each, fdb_ram, fdb_close, &best_marker,
    "2.2.0, as above; NOR: sector = the chip's large erase (64 KiB, "
    "FDB_TSDB_CTRL_SET_SEC_SIZE); managed media: sector = the FAL block (4 KiB)",
    0,
};
const struct peer_store *const peer_flashdb_best = &best_store;
#else
const struct peer_store *const peer_flashdb = NULL;
const struct peer_store *const peer_flashdb_best = NULL;
#endif
