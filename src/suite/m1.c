/* M1: random reads on a 1 MiB file (the study's section 4, Table 2). */
#include "workload.h"

#define M1_PATH "M1.dat"

struct m1_cfg {
    uint64_t file_bytes;
    uint32_t reads;
    uint32_t runs;
};

static void m1_config(const struct sts_plan *p, struct m1_cfg *cfg)
{
    int full = p->scale == STS_SCALE_FULL;
    *cfg = (struct m1_cfg){1 * MIB, full ? 1000 : 200, full ? 10 : 3};
}

static int m1_point(struct sts_ctx *c, const struct m1_cfg *cfg, uint64_t chunk, uint64_t step,
                    uint64_t steps)
{
    struct sts_kv params[] = {
        STS_KV_S("op", "randread"),
        STS_KV_U("chunk_bytes", chunk),
        STS_KV_U("file_bytes", cfg->file_bytes),
        STS_KV_U("reads", cfg->reads),
        STS_KV_S("offsets", c->plan->m1_byte_offsets ? "byte" : "chunk"),
    };
    const char *why = wl_chunk_unusable(c, chunk);
    if (why)
        return wl_emit_skipped(c, "randread", params, WL_COUNT(params), why);
    /* Same offsets for every chunk size and run: only the size varies. */
    struct sts_rng rng;
    double runs[WL_MAX_RUNS];
    uint64_t align = c->target->io_align > 1 ? c->target->io_align : 1;
    if (!c->plan->m1_byte_offsets) /* a multiple of the chunk and of the target's alignment */
        align = (chunk + align - 1) / align * align;
    uint64_t slots = (cfg->file_bytes - chunk) / align + 1;
    char label[48];
    wl_label(label, sizeof(label), "randread", chunk);
    wl_lat_reset(c);
    uint32_t r = 0;
    for (; wl_run_again(c, runs, r, cfg->runs); r++) {
        wl_run_progress(c, label, step, steps, r, cfg->runs);
        sts_rng_seed(&rng, c->plan->seed + r);
        sts_fh fh;
        int rc = wl_open(c, M1_PATH, STS_O_RDONLY, &fh);
        if (rc)
            return rc;
        rc = wl_drop_cache(c, fh);
        uint64_t busy = 0, prev = wl_now(c);
        for (uint32_t i = 0; i < cfg->reads && !rc; i++) {
            if (sts_should_stop(c)) {
                rc = STS_EINTR;
                break;
            }
            uint64_t off = sts_rng_below(&rng, slots) * align;
            rc = wl_seek(c, fh, off);
            if (!rc)
                rc = wl_read(c, fh, c->buf, (size_t)chunk);
            uint64_t now = wl_now(c);
            sts_lat_record(&c->lat[0], now - prev);
            busy += now - prev;
            if (!rc)
                rc = wl_verify(c, c->buf, off, (size_t)chunk);
            prev = wl_now(c); /* verification is not part of the latency */
        }
        int rc2 = wl_close(c, fh);
        if (rc || rc2)
            return rc ? rc : rc2;
        runs[r] = wl_rate((uint64_t)cfg->reads * chunk, busy);
    }
    struct sts_kv metrics[] = {
        STS_KV_D("mean_latency_ns", c->lat[0].w.mean),
        STS_KV_U("bytes_per_run", (uint64_t)cfg->reads * chunk),
    };
    struct sts_lat_report lat = {.name = "read", .lat = &c->lat[0]};
    return wl_emit_runs(c, "randread", params, WL_COUNT(params), runs, r, metrics,
                        WL_COUNT(metrics), &lat, 1);
}

static int m1_run(struct sts_ctx *c)
{
    struct m1_cfg cfg;
    m1_config(c->plan, &cfg);
    cfg.runs = wl_runs(c, cfg.runs, cfg.runs);
    struct sts_kv tp[] = {
        STS_KV_U("file_bytes", cfg.file_bytes),
        STS_KV_U("reads", cfg.reads),
        STS_KV_U("runs", cfg.runs),
        STS_KV_U("min_chunk_bytes", 1),
        STS_KV_U("max_chunk_bytes", 1024),
    };
    int rc = sts_test_begin(c, tp, WL_COUNT(tp));
    if (!rc)
        rc = wl_prefill(c, M1_PATH, cfg.file_bytes);
    uint64_t step = 0;
    for (uint64_t ch = 1; ch <= 1024 && !rc; ch *= 2)
        rc = m1_point(c, &cfg, ch, step++, 11);
    int rc2 = wl_remove(c, M1_PATH);
    return rc ? rc : rc2;
}

static uint64_t m1_scratch(const struct sts_plan *p)
{
    struct m1_cfg cfg;
    m1_config(p, &cfg);
    return cfg.file_bytes;
}

const struct sts_test_def sts_test_m1 = {
    "M1", "Random reads on one file, chunks 1 B .. 1 KiB, offsets at multiples of the chunk drawn with replacement (the study: 1 MiB, 1000 reads)", "study M1",
    m1_scratch, m1_run, 0, 0, 0,
};
