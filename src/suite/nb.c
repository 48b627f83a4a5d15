/* nb (seed 002): how long the caller is blocked per call when it reads a
 * 10 KiB file in 512 B blocks through (a) the blocking read and (b) the
 * device's non-blocking path driven by a submit/poll state machine, as a
 * super loop would. Measured on the target's clock around every call. */
#include "storscope/device.h"
#include "workload.h"

#include <string.h>

#define NB_FILE_BYTES (10u * 1024u)
#define NB_BLOCK 512u

/* Fails the test naming the read, the device offset and the path it took
 * ("read device@1536/poll: I/O error"), as file failures name the file. */
static int nb_fail(struct sts_ctx *c, int rc, uint32_t off, const char *how)
{
    char where[48], num[24];
    sts_strlcpy(where, "device@", sizeof(where));
    sts_fmt_u64(num, off);
    sts_strlcat(where, num, sizeof(where));
    sts_strlcat(where, how, sizeof(where));
    return wl_fail_on(c, rc, "read", where);
}

struct nb_stats {
    struct sts_welford block_ns; /* from start to completion of each block */
    struct sts_welford polls;    /* poll() calls per block */
    double file_ns[WL_MAX_RUNS];
};

static int nb_blocking(struct sts_ctx *c, struct sts_bd *bd, uint32_t runs, struct nb_stats *st)
{
    for (uint32_t r = 0; r < runs; r++) {
        uint64_t f0 = wl_now(c);
        for (uint32_t off = 0; off < NB_FILE_BYTES; off += NB_BLOCK) {
            if (sts_should_stop(c))
                return STS_EINTR;
            uint64_t t0 = wl_now(c);
            int rc = bd->ops->read(bd->ctx, off, c->buf, NB_BLOCK);
            uint64_t t1 = wl_now(c);
            if (rc)
                return nb_fail(c, rc, off, "/blocking");
            sts_lat_record(&c->lat[0], t1 - t0); /* blocked for the whole read */
            sts_welford_add(&st->block_ns, (double)(t1 - t0));
        }
        st->file_ns[r] = (double)(wl_now(c) - f0);
    }
    return STS_OK;
}

static int nb_state_machine(struct sts_ctx *c, struct sts_bd *bd, uint32_t runs,
                            struct nb_stats *st)
{
    struct sts_bd_req req;
    for (uint32_t r = 0; r < runs; r++) {
        uint64_t f0 = wl_now(c);
        for (uint32_t off = 0; off < NB_FILE_BYTES; off += NB_BLOCK) {
            if (sts_should_stop(c))
                return STS_EINTR;
            req = (struct sts_bd_req){STS_BD_READ, off, c->buf, NB_BLOCK, 0};
            uint64_t b0 = wl_now(c);
            int rc = bd->ops->submit(bd->ctx, &req);
            uint64_t t = wl_now(c);
            if (rc)
                return nb_fail(c, rc, off, "/submit");
            sts_lat_record(&c->lat[1], t - b0);
            struct sts_bd_req *done = NULL;
            uint64_t polls = 0;
            while (!done) { /* the super loop: one bounded step per call */
                uint64_t p0 = wl_now(c);
                int prc = bd->ops->poll(bd->ctx, &done);
                uint64_t p1 = wl_now(c);
                if (prc < 0) /* an error is not "still running": spinning on it hung */
                    return nb_fail(c, prc, off, "/poll");
                sts_lat_record(&c->lat[1], p1 - p0);
                polls++;
                if ((polls & 4095) == 0 && sts_should_stop(c))
                    return STS_EINTR;
                if (polls > 100000000ull) /* the request never completed */
                    return nb_fail(c, STS_EIO, off, "/never-completed");
            }
            if (done->result)
                return nb_fail(c, done->result, off, "/completion");
            sts_welford_add(&st->block_ns, (double)(wl_now(c) - b0));
            sts_welford_add(&st->polls, (double)polls);
        }
        st->file_ns[r] = (double)(wl_now(c) - f0);
    }
    return STS_OK;
}

static int nb_emit(struct sts_ctx *c, const char *name, uint32_t runs, const struct nb_stats *st,
                   const struct sts_lat *calls)
{
    double bps[WL_MAX_RUNS];
    double file_sum = 0;
    for (uint32_t r = 0; r < runs; r++) {
        bps[r] = NB_FILE_BYTES * 1e9 / (st->file_ns[r] > 0 ? st->file_ns[r] : 1);
        file_sum += st->file_ns[r];
    }
    struct sts_kv params[] = {
        STS_KV_S("op", name),
        STS_KV_U("file_bytes", NB_FILE_BYTES),
        STS_KV_U("block_bytes", NB_BLOCK),
    };
    struct sts_kv metrics[] = {
        STS_KV_D("blocked_mean_ns", calls->w.mean),
        STS_KV_U("blocked_max_ns", calls->h.max),
        STS_KV_U("calls", calls->w.n),
        STS_KV_D("block_mean_ns", st->block_ns.mean),
        STS_KV_D("block_min_ns", st->block_ns.min),
        STS_KV_D("block_max_ns", st->block_ns.max),
        STS_KV_D("file_mean_ns", file_sum / runs),
        STS_KV_D("polls_per_block_mean", st->polls.mean),
        STS_KV_D("polls_per_block_min", st->polls.min),
        STS_KV_D("polls_per_block_max", st->polls.max),
    };
    struct sts_lat_report lat = {.name = "call", .lat = calls};
    size_t n_metrics = WL_COUNT(metrics) - (st->polls.n ? 0 : 3); /* blocking: no polls */
    return wl_emit_runs(c, name, params, WL_COUNT(params), bps, runs, metrics, n_metrics,
                        &lat, 1);
}

static int nb_run(struct sts_ctx *c)
{
    uint32_t runs = wl_runs(c, 3, 10);
    struct sts_kv tp[] = {
        STS_KV_U("file_bytes", NB_FILE_BYTES),
        STS_KV_U("block_bytes", NB_BLOCK),
        STS_KV_U("runs", runs),
    };
    int rc = sts_test_begin(c, tp, WL_COUNT(tp));
    if (rc)
        return rc;
    struct sts_bd *bd = c->target->bd;
    if (!bd)
        return sts_fail(c, STS_ENOTSUP, "nb works at block level: it needs a sim: or raw: target");
    if (!bd->ops->submit || !bd->ops->poll)
        return sts_fail(c, STS_ENOTSUP, "this device has no non-blocking path (submit/poll)");
    struct sts_bd_geometry g;
    bd->ops->geometry(bd->ctx, &g);
    if (g.capacity < NB_FILE_BYTES)
        return sts_fail(c, STS_ENOTSUP, "the device is smaller than the 10 KiB file");
    /* reads only, at the start of the device: nothing is written */
    struct nb_stats blocking, nonblocking;
    memset(&blocking, 0, sizeof(blocking));
    memset(&nonblocking, 0, sizeof(nonblocking));
    sts_welford_init(&blocking.block_ns);
    sts_welford_init(&blocking.polls);
    sts_welford_init(&nonblocking.block_ns);
    sts_welford_init(&nonblocking.polls);
    wl_lat_reset(c);
    sts_report_progress(c, "blocking reads", 0, 2);
    rc = nb_blocking(c, bd, runs, &blocking);
    if (!rc)
        rc = nb_emit(c, "blocking", runs, &blocking, &c->lat[0]);
    if (!rc) {
        sts_report_progress(c, "submit/poll state machine", 1, 2);
        rc = nb_state_machine(c, bd, runs, &nonblocking);
    }
    if (!rc)
        rc = nb_emit(c, "nonblocking", runs, &nonblocking, &c->lat[1]);
    return rc;
}

static uint64_t nb_scratch(const struct sts_plan *p)
{
    (void)p;
    return 0;
}

const struct sts_test_def sts_test_nb = {
    "nb", "Time the caller is blocked: 10 KiB in 512 B blocks, blocking vs submit/poll",
    "seed 002 (non-blocking littlefs)", nb_scratch, nb_run, 0, 0, 0,
};
