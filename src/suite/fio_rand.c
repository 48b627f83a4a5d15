/* rand: fio's random read and random write, as a twin of
 *   fio --rw=randread|randwrite --bs=B --ioengine=psync --iodepth=1
 *       [--direct=1] --number_ios=N --size=S
 * Block-aligned offsets, each used at most once per pass (fio's random map:
 * without replacement), one request at a time. Latency is per call, as
 * fio's clat; a write pass is followed by an untimed data sync so the next
 * point starts from the medium (fio leaves the page cache dirty unless
 * asked: compare with fio's end_fsync=1 when it matters). Reads start from
 * a dropped cache (fio's invalidate=1).
 *
 * M1 is the study's test and keeps the study's habits (1 B .. 1 KiB,
 * offsets drawn with replacement; at any byte with --m1-offsets byte);
 * this one is what a reader of fio numbers expects. */
#include "workload.h"

#define RAND_PATH "rand.dat"
#define RAND_MIN_BLOCK 512u
#define RAND_MAX_BLOCK (1024u * 1024u)

struct rand_cfg {
    uint64_t file_bytes;
    uint32_t ops;  /* requests a point makes per run (fewer when the file has fewer blocks) */
    uint32_t runs;
};

/* A permutation of [0, n) from a seed, in O(1) memory: a 4-round Feistel
 * network over the smallest even number of bits that covers n, walking
 * the cycle past values >= n (fewer than 4 steps on average). Pass i of a
 * point uses seed + i: each block at most once per pass, as fio's random
 * map does. */
struct rand_perm {
    uint64_t n, key;
    unsigned half; /* bits per Feistel half */
};

static void perm_init(struct rand_perm *p, uint64_t n, uint64_t seed)
{
    p->n = n;
    p->key = sts_mix64(seed ^ 0x52414e44ull); /* "RAND" */
    p->half = 1;
    while (p->half < 32 && (1ull << (2 * p->half)) < n)
        p->half++;
}

static uint64_t feistel(const struct rand_perm *p, uint64_t x)
{
    uint64_t mask = (1ull << p->half) - 1, l = x >> p->half, r = x & mask;
    for (uint64_t round = 0; round < 4; round++) {
        uint64_t f = sts_mix64(r ^ (p->key + round * 0x9E3779B97F4A7C15ull)) & mask;
        uint64_t t = l ^ f;
        l = r;
        r = t;
    }
    return l << p->half | r;
}

uint64_t wl_perm_at(uint64_t n, uint64_t seed, uint64_t i)
{
    struct rand_perm p;
    perm_init(&p, n, seed);
    uint64_t x = i;
    do
        x = feistel(&p, x);
    while (x >= n);
    return x;
}

static void rand_config(const struct sts_plan *p, struct rand_cfg *cfg)
{
    int full = p->scale == STS_SCALE_FULL;
    *cfg = (struct rand_cfg){wl_size(p, 16 * MIB, 1024 * MIB), full ? 4096 : 256, full ? 5 : 3};
}

static int rand_point(struct sts_ctx *c, const struct rand_cfg *cfg, int is_write,
                      uint64_t block, uint64_t step, uint64_t steps)
{
    const char *name = is_write ? "randwrite" : "randread";
    uint64_t blocks = cfg->file_bytes / block;
    uint64_t ops = blocks < cfg->ops ? blocks : cfg->ops;
    struct sts_kv params[] = {
        STS_KV_S("op", name),
        STS_KV_U("block_bytes", block),
        STS_KV_U("file_bytes", cfg->file_bytes),
        STS_KV_U("ops", ops),
        STS_KV_S("offsets", "aligned, without replacement"),
    };
    const char *why = wl_chunk_unusable(c, block);
    if (!why && is_write)
        why = wl_read_only(c) ? WL_READ_ONLY_WHY : wl_no_rewrite(c);
    if (!why && !ops)
        why = "the file holds no whole block of this size (give a larger --size)";
    if (why)
        return wl_emit_skipped(c, name, params, WL_COUNT(params), why);
    double runs[WL_MAX_RUNS];
    char label[48];
    wl_label(label, sizeof(label), name, block);
    wl_lat_reset(c);
    uint32_t r = 0;
    for (; wl_run_again(c, runs, r, cfg->runs); r++) {
        wl_run_progress(c, label, step, steps, r, cfg->runs);
        sts_fh fh;
        int rc = wl_open(c, RAND_PATH, is_write ? STS_O_WRONLY : STS_O_RDONLY, &fh);
        if (rc)
            return rc;
        if (!is_write)
            rc = wl_drop_cache(c, fh);
        uint64_t busy = 0;
        for (uint64_t i = 0; i < ops && !rc; i++) {
            if (sts_should_stop(c)) {
                rc = STS_EINTR;
                break;
            }
            uint64_t off = wl_perm_at(blocks, c->plan->seed + r, i) * block;
            /* positioning is outside the request's time, as fio's pread and
             * pwrite carry their offset: on a POSIX target the seek is a
             * system call of its own, no I/O */
            rc = wl_seek(c, fh, off);
            if (rc)
                break;
            const void *src = is_write ? wl_pattern_src(c, off, block) : NULL;
            uint64_t start = wl_now(c);
            rc = is_write ? wl_write(c, fh, src, (size_t)block) : wl_read(c, fh, c->buf, (size_t)block);
            uint64_t took = wl_now(c) - start;
            sts_lat_record(&c->lat[0], took);
            busy += took;
            if (!rc && !is_write)
                rc = wl_verify(c, c->buf, off, (size_t)block); /* untimed */
        }
        if (!rc && is_write)
            rc = wl_sync(c, fh, STS_SYNC_DATA); /* untimed: the next point starts clean */
        int rc2 = wl_close(c, fh);
        if (rc || rc2)
            return rc ? rc : rc2;
        runs[r] = wl_rate(ops * block, busy);
    }
    struct sts_kv metrics[] = {
        STS_KV_D("mean_latency_ns", c->lat[0].w.mean),
        STS_KV_D("iops", c->lat[0].w.mean > 0 ? 1e9 / c->lat[0].w.mean : 0),
        STS_KV_U("bytes_per_run", ops * block),
    };
    struct sts_lat_report lat = {.name = is_write ? "write" : "read", .lat = &c->lat[0]};
    return wl_emit_runs(c, name, params, WL_COUNT(params), runs, r, metrics,
                        WL_COUNT(metrics), &lat, 1);
}

static int rand_run(struct sts_ctx *c)
{
    struct rand_cfg cfg;
    rand_config(c->plan, &cfg);
    cfg.runs = wl_runs(c, cfg.runs, cfg.runs);
    struct sts_kv tp[] = {
        STS_KV_U("file_bytes", cfg.file_bytes),
        STS_KV_U("ops", cfg.ops),
        STS_KV_U("runs", cfg.runs),
        STS_KV_U("min_block_bytes", RAND_MIN_BLOCK),
        STS_KV_U("max_block_bytes", RAND_MAX_BLOCK),
        STS_KV_U("iodepth", 1),
    };
    int rc = sts_test_begin(c, tp, WL_COUNT(tp));
    if (!rc)
        rc = wl_prefill(c, RAND_PATH, cfg.file_bytes);
    uint64_t step = 0, steps = 0;
    for (uint64_t b = RAND_MIN_BLOCK; b <= RAND_MAX_BLOCK; b *= 2)
        steps += 2;
    /* reads first at every size: the writes then find the file as laid out */
    for (int w = 0; w < 2; w++)
        for (uint64_t b = RAND_MIN_BLOCK; b <= RAND_MAX_BLOCK && !rc; b *= 2)
            rc = rand_point(c, &cfg, w, b, step++, steps);
    int rc2 = wl_remove(c, RAND_PATH);
    return rc ? rc : rc2;
}

static uint64_t rand_scratch(const struct sts_plan *p)
{
    struct rand_cfg cfg;
    rand_config(p, &cfg);
    return cfg.file_bytes;
}

const struct sts_test_def sts_test_rand = {
    "rand", "Random read and write, blocks 512 B .. 1 MiB, aligned offsets each once per pass, "
            "one at a time (fio's randread/randwrite, iodepth 1)",
    "fio randread/randwrite", rand_scratch, rand_run, 0, 0, 0,
};
