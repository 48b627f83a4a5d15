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

static int fdb_open(void *ctx, const struct peer_env *env)
{
    (void)ctx;
    memset(&s, 0, sizeof(s));
    s.env = env;
    int nor = env->geo.flags & STS_BD_NEEDS_ERASE;
    /* FAL's partition table is static (fal_cfg.h): one partition a size */
    const char *name = !nor ? "managed_db"
                       : env->geo.capacity == 1024 * 1024 ? "nor1m_db" : "nor_db";
    if (env->geo.capacity != (!nor ? 256u : env->geo.capacity == 1024 * 1024 ? 1u : 16u) *
                                 1024 * 1024)
        return -1;
    static int fal_ready;
    if (!fal_ready && fal_init() < 0)
        return -1;
    fal_ready = 1;
    /* a fresh database on whatever the device holds: erase it first, as a
     * first boot would find it */
    const struct fal_partition *part = fal_partition_find(name);
    if (!part || fal_partition_erase_all(part) < 0)
        return -1;
    fdb_err_t rc = fdb_tsdb_init(&s.db, "log", name, stamp, env->max_record, NULL);
    return rc == FDB_NO_ERR ? 0 : -1;
}

static int fdb_put(void *ctx, uint64_t ts, const void *data, size_t len)
{
    (void)ctx;
    struct fdb_blob blob;
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
    "FlashDB TSDB", fdb_open, fdb_put, fdb_flush, fdb_range, fdb_latest, fdb_ram, fdb_close, NULL,
    "2.2.0; FAL partition = whole device, sector = erase block (4 KiB), write granularity 1 bit, "
    "rollover on",
};
const struct peer_store *const peer_flashdb = &store;
#else
const struct peer_store *const peer_flashdb = NULL;
#endif
