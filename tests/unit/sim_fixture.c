/* The simulator tests' shared fixture: sim_fixture.h says what it is. */
#include "sim_fixture.h"
#include "storscope/error.h"
#include "storscope/suite.h"

#include <string.h>

STS_TEST_BIG uint64_t arena64[ARENA_BYTES / 8];

struct simt st;

/* A sim target as `sim:NAME,capacity=...,fill=...,seed=...` would build. */
int sim_target(const char *name, uint64_t capacity, int fill_percent, uint64_t seed,
               uint64_t keep_bytes)
{
    const struct sts_sim_params *prof = sts_sim_profile_find(name);
    if (!prof)
        return STS_ENOENT;
    struct sts_sim_params p = *prof;
    p.capacity = capacity;
    int rc = sts_sim_init(&st.sim, &p, seed, arena64, sizeof(arena64), keep_bytes, &st.bd);
    if (rc)
        return rc;
    if (fill_percent < 0)
        fill_percent = (int)p.fill_permille / 10;
    if (fill_percent)
        rc = sts_sim_prefill(&st.sim, (uint32_t)fill_percent * 10);
    uint64_t base = capacity * (uint64_t)fill_percent / 100;
    base = (base + p.erase_bytes - 1) / p.erase_bytes * p.erase_bytes;
    struct sts_extentfs_config cfg = {.bd = st.bd, .files = st.files, .n_files = 4, .base = base};
    memset(&st.t, 0, sizeof(st.t));
    if (!rc)
        rc = sts_extentfs_init(&st.efs, &cfg, &st.t.fs);
    sts_sim_clock(&st.sim, &st.t.clock);
    st.t.kind = "sim";
    st.t.flags = STS_T_VIRTUAL_TIME | (keep_bytes ? STS_T_KEEPS_DATA : 0);
    return rc;
}

struct seen seen;

static int seen_point(void *ctx, const struct sts_test_info *ti, const struct sts_point *p)
{
    (void)ctx;
    (void)ti;
    if (p->skipped)
        return 0;
    const struct sts_kv *ch = sts_kv_find(p->params, p->n_params, "chunk_bytes");
    if (ch) {
        unsigned lg = 0;
        while ((1ull << lg) < (uint64_t)sts_kv_number(ch))
            lg++;
        seen.tput[strcmp(p->name, "write") == 0][lg] = p->run_stats.mean;
    }
    if (!strcmp(p->name, "randwrite+fsync")) {
        const struct sts_lat *l = p->lat[0].lat;
        seen.mean_ns = l->w.mean;
        seen.p9999_ns = sts_hist_percentile(&l->h, 99.99);
        seen.max_ns = l->h.max;
        seen.iops = sts_kv_number(sts_kv_find(p->metrics, p->n_metrics, "iops"));
    }
    return 0;
}
const struct sts_sink_ops seen_ops = {.point = seen_point};

int m1_byte_offsets;
int run(const char *id, uint64_t seed, uint64_t duration_ns, uint64_t size,
        enum sts_scale scale, const struct sts_sink *extra)
{
    const struct sts_test_def *tests[] = {sts_test_find(id)};
    struct sts_plan plan = {.tests = tests, .n_tests = 1, .scale = scale, .seed = seed,
                            .duration_ns = duration_ns, .size_bytes = size,
                            .m1_byte_offsets = m1_byte_offsets};
    struct sts_workspace ws = {sts_test_iobuf, STS_TEST_IOBUF_BYTES, sts_test_hist,
                               STS_HIST_BUCKETS, STS_HIST_SUB_BITS, STS_HIST_MAX_EXP, NULL, 0};
    struct sts_sink sinks[2] = {{&seen_ops, NULL}};
    size_t n = 1;
    if (extra)
        sinks[n++] = *extra;
    struct sts_run_info ri = {.tool_version = STORSCOPE_VERSION, .target = "sim"};
    memset(&seen, 0, sizeof(seen));
    return sts_engine_run(&plan, &st.t, &ws, sinks, n, &ri);
}

uint8_t pg_a[16384], pg_b[16384], rd[16384];
