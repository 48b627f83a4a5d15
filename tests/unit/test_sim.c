/* Simulated media: calibration against the published tiers and the study's
 * shapes, and GC: fill level shapes the tail, trim gives it back, wear
 * levelling and endurance. Every workload runs through the real engine on
 * sim + extentfs in virtual time (sim_fixture.c); noise, faults, raw flash
 * and the data store have files of their own. */
#include "sts_test.h"
#include "storscope/error.h"
#include "storscope/extentfs.h"
#include "storscope/json.h"
#include "storscope/sim.h"
#include "storscope/suite.h"

#include "test_mem.h"

#include <math.h>
#include <string.h>

#include "sim_fixture.h"

static void tier(const char *name, uint64_t secs, double iops_lo, double iops_hi, double mean_lo,
                 double mean_hi, double tail_lo, double tail_hi)
{
    for (uint64_t seed = 1; seed <= 10; seed++) {
        CHECK_EQ(sim_target(name, 64 * MIB, -1, seed, 0), 0);
        CHECK_EQ(run("fsync", seed, S(secs), 16 * MIB, STS_SCALE_QUICK, NULL), 0);
        CHECK(seen.iops >= iops_lo && seen.iops <= iops_hi);
        CHECK(seen.mean_ns >= mean_lo && seen.mean_ns <= mean_hi);
        CHECK((double)seen.p9999_ns >= tail_lo && (double)seen.p9999_ns <= tail_hi);
    }
}

/* The published tier table (reference/calibration.md), every seed 1..10. */
static void tier_sd_consumer(void)
{
    tier("sd-consumer", 30, 100, 250, MS(4), MS(10), MS(500), MS(5000));
}
static void tier_sd_a2(void)
{
    tier("sd-a2", 30, 400, 800, MS(1.2), MS(2.5), MS(30), MS(400)); /* "~100 ms" */
}
static void tier_emmc_industrial(void)
{
    tier("emmc-industrial", 10, 1500, 4000, MS(0.2), MS(0.6), 0, MS(15));
}
static void tier_ssd_sata_plp(void)
{
    tier("ssd-sata-plp", 2, 10000, 25000, MS(0.05), MS(0.1), 0, MS(2));
}
static void tier_nvme_plp(void)
{
    tier("nvme-plp", 1, 50000, 1e9, 0, MS(0.03), 0, MS(0.5));
}

static void consumer_ssds_far_below_plp(void)
{
    double plp, consumer;
    CHECK_EQ(sim_target("ssd-sata-plp", 64 * MIB, -1, 1, 0), 0);
    CHECK_EQ(run("fsync", 1, S(1), 16 * MIB, STS_SCALE_QUICK, NULL), 0);
    plp = seen.iops;
    CHECK_EQ(sim_target("ssd-sata-consumer", 64 * MIB, -1, 1, 0), 0);
    CHECK_EQ(run("fsync", 1, S(5), 16 * MIB, STS_SCALE_QUICK, NULL), 0);
    consumer = seen.iops;
    CHECK(consumer * 10 < plp);
    CHECK(consumer > 200 && consumer < 1000); /* Samsung 850 Pro class: ~400/s */
    CHECK_EQ(sim_target("nvme-plp", 64 * MIB, -1, 1, 0), 0);
    CHECK_EQ(run("fsync", 1, S(1), 16 * MIB, STS_SCALE_QUICK, NULL), 0);
    plp = seen.iops;
    CHECK_EQ(sim_target("nvme-consumer", 64 * MIB, -1, 1, 0), 0);
    CHECK_EQ(run("fsync", 1, S(5), 16 * MIB, STS_SCALE_QUICK, NULL), 0);
    CHECK(seen.iops * 10 < plp);
    CHECK(seen.iops > 400 && seen.iops < 1200); /* KC3000 class: ~700-820/s */
}

/* The study's device shapes on emmc-stm32u5. */
static void emmc_stm32u5_b2_shape(void)
{
    CHECK_EQ(sim_target("emmc-stm32u5", 64 * MIB, -1, 1, 0), 0);
    CHECK_EQ(run("B2", 1, 0, 0, STS_SCALE_QUICK, NULL), 0);
    /* reads flat within 10 % from 64 KiB (2^16) to 2 MiB (2^21) */
    double lo = 1e30, hi = 0;
    for (int lg = 16; lg <= 21; lg++) {
        double r = seen.tput[0][lg];
        lo = r < lo ? r : lo;
        hi = r > hi ? r : hi;
    }
    CHECK(lo > 0 && hi <= lo * 1.10);
    CHECK(hi > 12e6 && hi < 16e6); /* ~14,000 kB/s */
    /* writes: 128 KiB (2^17) at least 20 % below both neighbours */
    double w64 = seen.tput[1][16], w128 = seen.tput[1][17], w256 = seen.tput[1][18];
    CHECK(w128 <= 0.8 * w64 && w128 <= 0.8 * w256);
    CHECK(w256 > 6e6 && w256 < 8e6); /* 6,000-8,000 kB/s for large writes */
}

/* B0's shape on the bare model (issue 46, defects 1 and 2): the study
 * read 1 KiB chunks 2.45x as fast as it wrote them (4,000 against 1,650
 * kB/s); below the 512 B sector every write is a command of its own, so
 * each doubling doubles throughput; at 512 B the read-modify-write of a
 * partial sector goes and the step is more than a doubling. */
static void emmc_stm32u5_b0_shape(void)
{
    CHECK_EQ(sim_target("emmc-stm32u5", 64 * MIB, -1, 1, 0), 0);
    CHECK_EQ(run("B0", 1, 0, 0, STS_SCALE_QUICK, NULL), 0);
    double rw = seen.tput[0][10] / seen.tput[1][10];
    CHECK(rw > 2.0 && rw < 3.0);
    for (int lg = 0; lg < 8; lg++) {
        double step = seen.tput[1][lg + 1] / seen.tput[1][lg];
        CHECK(step > 1.9 && step < 2.1);
    }
    CHECK(seen.tput[1][9] > 2.3 * seen.tput[1][8]);
}

static void emmc_stm32u5_m1_random_read_cost(void)
{
    /* the calibration as it was made, at byte offsets (a 1 KiB read spans
     * three sectors): ~0.19 ms per small read, ~0.27 ms at 1 KiB
     * (throughput = chunk / latency) */
    CHECK_EQ(sim_target("emmc-stm32u5", 64 * MIB, -1, 1, 0), 0);
    m1_byte_offsets = 1;
    CHECK_EQ(run("M1", 1, 0, 0, STS_SCALE_QUICK, NULL), 0);
    m1_byte_offsets = 0;
    CHECK_REL(1.0 / seen.tput[0][0], 0.19e-3, 0.1);
    CHECK_REL(1024.0 / seen.tput[0][10], 0.27e-3, 0.1);
    /* at the default chunk-aligned offsets the device alone reads 1 KiB in
     * less than the study's whole stack took (FileX's lookups and its CPU
     * time come on top: 0.25 ms with FileX in the model, bench/study.py),
     * and within its 25 % */
    CHECK_EQ(sim_target("emmc-stm32u5", 64 * MIB, -1, 1, 0), 0);
    CHECK_EQ(run("M1", 1, 0, 0, STS_SCALE_QUICK, NULL), 0);
    CHECK_REL(1.0 / seen.tput[0][0], 0.19e-3, 0.1);
    CHECK(1024.0 / seen.tput[0][10] < 0.27e-3);
    CHECK_REL(1024.0 / seen.tput[0][10], 0.27e-3, 0.25);
}

/* ---- GC: fill level shapes the tail, trim gives it back ------------------ */
static uint64_t worst_write(struct sts_sim *s, struct sts_bd *bd, uint64_t region_lo,
                            uint64_t region_bytes, unsigned ops)
{
    static uint8_t page[16384];
    struct sts_rng r;
    sts_rng_seed(&r, 99);
    uint64_t worst = 0;
    for (unsigned i = 0; i < ops; i++) {
        uint64_t off = region_lo + sts_rng_below(&r, region_bytes / sizeof(page)) * sizeof(page);
        uint64_t t0 = s->now_ns;
        bd->ops->program(bd->ctx, off, page, sizeof(page));
        bd->ops->flush(bd->ctx);
        if (s->now_ns - t0 > worst)
            worst = s->now_ns - t0;
    }
    return worst;
}

static void gc_tail_grows_with_fill_and_trim_restores_it(void)
{
    const struct sts_sim_params *p = sts_sim_profile_find("emmc-industrial");
    struct sts_sim_params q = *p;
    q.capacity = 64 * MIB;
    q.wl_every = 0;           /* isolate garbage collection */
    q.erase_tail_x100 = 0;    /* constant erase time: only valid data copied differs */
    CHECK_EQ(sts_sim_init(&st.sim, &q, 1, arena64, sizeof(arena64), 0, &st.bd), 0);
    CHECK_EQ(sts_sim_prefill(&st.sim, 100), 0);
    uint64_t at10 = worst_write(&st.sim, &st.bd, 56 * MIB, 8 * MIB, 20000);
    CHECK_EQ(sts_sim_init(&st.sim, &q, 1, arena64, sizeof(arena64), 0, &st.bd), 0);
    CHECK_EQ(sts_sim_prefill(&st.sim, 900), 0);
    uint64_t at90 = worst_write(&st.sim, &st.bd, 56 * MIB, 8 * MIB, 20000);
    CHECK(at90 > 2 * at10);
    CHECK(st.sim.n.gc_pages_copied > 0);
    /* trim the cold 90 %: victims hold little valid data again */
    CHECK_EQ(st.bd.ops->erase(st.bd.ctx, 0, 56 * MIB), 0);
    (void)worst_write(&st.sim, &st.bd, 56 * MIB, 8 * MIB, 20000); /* cycle old blocks out */
    uint64_t after_trim = worst_write(&st.sim, &st.bd, 56 * MIB, 8 * MIB, 20000);
    CHECK(after_trim * 2 < at90);
}

/* Static wear levelling spreads erases over the blocks that hold cold
 * data: a medium 3/4 full of data never rewritten, a small hot region
 * rewritten over and over. Without levelling the cold blocks are never
 * erased (the least-worn block stays at 0); with it each block takes a
 * share, so the least-worn block follows the mean. Moving the hottest block
 * instead of the coldest (a reversed comparison) leaves the cold ones at 0:
 * the spread of a 2-hour fsync run went from 637..676 to 0..1,816. */
static void erase_spread(uint32_t wl_every, uint32_t *min, uint32_t *max, uint64_t *sum,
                         uint32_t *n)
{
    struct sts_sim_params q = *sts_sim_profile_find("emmc-industrial");
    q.capacity = 8 * MIB;
    q.cache_bytes = 0;     /* every rewrite reaches the flash */
    q.page_bytes = 4096;   /* 147 blocks of 64 KiB: enough to tell cold from hot */
    q.erase_bytes = 64 * 1024;
    q.wl_every = wl_every;
    q.erase_tail_x100 = 0;
    q.endurance = 0;
    *min = UINT32_MAX;
    *max = 0;
    *sum = 0;
    *n = 0;
    if (sts_sim_init(&st.sim, &q, 1, arena64, sizeof(arena64), 0, &st.bd) ||
        sts_sim_prefill(&st.sim, 750))
        return;
    static uint8_t page[4096];
    struct sts_rng r;
    sts_rng_seed(&r, 5);
    for (unsigned i = 0; i < 60000; i++) { /* 1 MiB of hot data at the end, rewritten */
        uint64_t off = 7 * MIB + sts_rng_below(&r, MIB / sizeof(page)) * sizeof(page);
        st.bd.ops->program(st.bd.ctx, off, page, sizeof(page));
    }
    for (uint32_t b = 0; b < st.sim.n_blocks; b++) {
        uint32_t e = st.sim.blocks[b].erases;
        *min = e < *min ? e : *min;
        *max = e > *max ? e : *max;
        *sum += e;
        (*n)++;
    }
}

/* A managed medium's block is retired at its endurance, not one erase
 * later (issue 42: the FTL's limit off by one survived every test): under
 * rewrites that wear blocks out, no block is ever erased more than
 * `endurance` times, and the retired ones were erased exactly that often. */
static void managed_blocks_retire_at_their_endurance(void)
{
    struct sts_sim_params q = *sts_sim_profile_find("emmc-industrial");
    q.capacity = 8 * MIB;
    q.cache_bytes = 0;
    q.page_bytes = 4096;
    q.erase_bytes = 64 * 1024;
    q.wl_every = 0;
    q.erase_tail_x100 = 0;
    q.endurance = 12;
    CHECK_EQ(sts_sim_init(&st.sim, &q, 1, arena64, sizeof(arena64), 0, &st.bd), 0);
    static uint8_t page[4096];
    struct sts_rng r;
    sts_rng_seed(&r, 8);
    for (unsigned i = 0; i < 40000; i++) {
        uint64_t off = sts_rng_below(&r, 2 * MIB / sizeof(page)) * sizeof(page);
        if (st.bd.ops->program(st.bd.ctx, off, page, sizeof(page)))
            break; /* the spare pool worn away: enough */
    }
    uint32_t retired = 0;
    for (uint32_t b = 0; b < st.sim.n_blocks; b++) {
        CHECK(st.sim.blocks[b].erases <= q.endurance);
        if (st.sim.blocks[b].state == 3 /* bad */) {
            CHECK_EQ(st.sim.blocks[b].erases, q.endurance);
            retired++;
        }
    }
    CHECK(retired > 0); /* the workload wore blocks out */
}

static void wear_levelling_moves_the_coldest_blocks(void)
{
    uint32_t min_off, max_off, n_off, min_on, max_on, n_on;
    uint64_t sum_off, sum_on;
    erase_spread(0, &min_off, &max_off, &sum_off, &n_off);
    CHECK(n_off > 0);
    CHECK_EQ(min_off, 0); /* the cold blocks: never erased without levelling */
    erase_spread(8, &min_on, &max_on, &sum_on, &n_on);
    CHECK(n_on > 0);
    CHECK(st.sim.n.wl_moves > 0);
    double mean = (double)sum_on / n_on;
    CHECK(mean >= 8); /* the workload wore the medium enough to tell */
    CHECK(min_on >= mean / 2); /* every block took a share of the erases */
    CHECK(max_on < max_off);   /* and the hot blocks less than without */
}

const struct sts_test_case test_sim_cases[] = {
    {"tier_sd_consumer", tier_sd_consumer},
    {"tier_sd_a2", tier_sd_a2},
    {"tier_emmc_industrial", tier_emmc_industrial},
    {"tier_ssd_sata_plp", tier_ssd_sata_plp},
    {"tier_nvme_plp", tier_nvme_plp},
    {"consumer_ssds_far_below_plp", consumer_ssds_far_below_plp},
    {"emmc_stm32u5_b2_shape", emmc_stm32u5_b2_shape},
    {"emmc_stm32u5_b0_shape", emmc_stm32u5_b0_shape},
    {"emmc_stm32u5_m1_random_read_cost", emmc_stm32u5_m1_random_read_cost},
    {"gc_tail_grows_with_fill_and_trim_restores_it", gc_tail_grows_with_fill_and_trim_restores_it},
    {"wear_levelling_moves_the_coldest_blocks", wear_levelling_moves_the_coldest_blocks},
    {"managed_blocks_retire_at_their_endurance", managed_blocks_retire_at_their_endurance},
    {NULL, NULL},
};
