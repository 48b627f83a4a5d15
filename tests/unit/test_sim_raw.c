/* Raw flash on the simulator: NOR and NAND program and erase semantics,
 * the non-blocking path (submit/poll), and bare extents on raw flash
 * (issue 12.3). */
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

/* ---- raw flash semantics ------------------------------------------------- */
static void nor_programs_and_bits_and_erase_resets(void)
{
    struct sts_sim_params p = *sts_sim_profile_find("nor-spi");
    p.capacity = 64 * 1024;
    CHECK_EQ(sts_sim_init(&st.sim, &p, 1, arena64, sizeof(arena64), p.capacity, &st.bd), 0);
    uint8_t b[4] = {0};
    st.bd.ops->read(st.bd.ctx, 100, b, 4);
    CHECK(b[0] == 0xff && b[3] == 0xff); /* erased reads as ones */
    uint8_t w1[2] = {0xf0, 0x3c}, w2[2] = {0x0f, 0xff};
    CHECK_EQ(st.bd.ops->program(st.bd.ctx, 100, w1, 2), 0);
    CHECK_EQ(st.bd.ops->program(st.bd.ctx, 100, w2, 2), 0); /* NOR: bits AND */
    st.bd.ops->read(st.bd.ctx, 100, b, 2);
    CHECK_EQ(b[0], 0x00);
    CHECK_EQ(b[1], 0x3c);
    CHECK(st.bd.ops->erase(st.bd.ctx, 100, 4096) == STS_EINVAL); /* not block-aligned */
    CHECK_EQ(st.bd.ops->erase(st.bd.ctx, 0, 4096), 0);
    st.bd.ops->read(st.bd.ctx, 100, b, 2);
    CHECK(b[0] == 0xff && b[1] == 0xff);
    CHECK(st.sim.now_ns >= p.erase_ns); /* erase takes its time */
}

static void nand_refuses_reprogram_and_wears_out(void)
{
    struct sts_sim_params p = *sts_sim_profile_find("nand-slc");
    p.capacity = 1 * MIB;
    p.bad_permille = 0;
    p.endurance = 3;
    CHECK_EQ(sts_sim_init(&st.sim, &p, 1, arena64, sizeof(arena64), p.capacity, &st.bd), 0);
    uint8_t page[2048];
    memset(page, 0x5a, sizeof(page));
    CHECK_EQ(st.bd.ops->program(st.bd.ctx, 0, page, sizeof(page)), 0);
    CHECK(st.bd.ops->program(st.bd.ctx, 0, page, sizeof(page)) == STS_EIO);
    CHECK_EQ(st.bd.ops->erase(st.bd.ctx, 0, 128 * 1024), 0);
    CHECK_EQ(st.bd.ops->program(st.bd.ctx, 0, page, sizeof(page)), 0);
    CHECK_EQ(st.bd.ops->erase(st.bd.ctx, 0, 128 * 1024), 0);
    /* the third erase reaches the endurance: the block is retired */
    CHECK(st.bd.ops->erase(st.bd.ctx, 0, 128 * 1024) == STS_EIO);
    CHECK(st.bd.ops->program(st.bd.ctx, 0, page, sizeof(page)) == STS_EIO);
    CHECK(st.bd.ops->read(st.bd.ctx, 0, page, 16) == STS_EIO);
    CHECK_EQ(st.bd.ops->read(st.bd.ctx, 128 * 1024, page, 16), 0); /* others fine */
}

static void nand_factory_bad_blocks_follow_the_seed(void)
{
    struct sts_sim_params p = *sts_sim_profile_find("nand-slc");
    p.capacity = 64 * MIB; /* 512 blocks, 1 % bad */
    unsigned bad[2] = {0, 0}, same = 0;
    static uint8_t first[512];
    for (int run_i = 0; run_i < 3; run_i++) {
        CHECK_EQ(sts_sim_init(&st.sim, &p, run_i == 2 ? 8 : 7, arena64, sizeof(arena64), 0,
                              &st.bd), 0);
        uint8_t b[16];
        unsigned n = 0;
        for (unsigned blk = 0; blk < 512; blk++) {
            int is_bad = st.bd.ops->read(st.bd.ctx, (uint64_t)blk * 128 * 1024, b, 16) == STS_EIO;
            n += (unsigned)is_bad;
            if (run_i == 0)
                first[blk] = (uint8_t)is_bad;
            else if (run_i == 1)
                same += first[blk] == is_bad;
        }
        if (run_i < 2)
            bad[run_i] = n;
    }
    CHECK(bad[0] >= 1 && bad[0] <= 20);
    CHECK_EQ(same, 512); /* same seed, same bad blocks */
}

/* ---- the non-blocking path (nb) -------------------------------------------- */
static double nb_metric(const struct sts_point *p, const char *key)
{
    const struct sts_kv *kv = sts_kv_find(p->metrics, p->n_metrics, key);
    return kv ? sts_kv_number(kv) : -1.0;
}
static double nb_seen[2][4];
static int nb_point(void *ctx, const struct sts_test_info *ti, const struct sts_point *p)
{
    (void)ctx;
    (void)ti;
    int k = strcmp(p->name, "nonblocking") == 0;
    nb_seen[k][0] = nb_metric(p, "blocked_max_ns");
    nb_seen[k][1] = nb_metric(p, "block_mean_ns");
    nb_seen[k][2] = nb_metric(p, "file_mean_ns");
    nb_seen[k][3] = nb_metric(p, "polls_per_block_mean");
    return 0;
}
static const struct sts_sink_ops nb_ops = {.point = nb_point};

static void nb_blocks_the_caller_only_per_poll(void)
{
    CHECK_EQ(sim_target("sd-consumer", 64 * MIB, 0, 1, 0), 0);
    st.sim.p.poll_ns = 3463; /* the seed's measured step on a Cortex-M4 */
    st.t.bd = &st.bd;
    struct sts_sink sink = {&nb_ops, NULL};
    CHECK_EQ(run("nb", 1, 0, 0, STS_SCALE_QUICK, &sink), 0);
    /* blocking: the caller waits for the whole 512 B read (hundreds of us) */
    CHECK(nb_seen[0][0] > 100000);
    CHECK(nb_seen[0][3] < 0); /* no polls reported for blocking calls */
    /* non-blocking: never more than one poll step, whatever the device does */
    CHECK(nb_seen[1][0] <= 3463);
    CHECK(nb_seen[1][0] > 0);
    /* the same device work: per block and per file within a poll step each */
    CHECK(nb_seen[1][1] >= nb_seen[0][1] && nb_seen[1][1] <= nb_seen[0][1] + 2 * 3463);
    CHECK_REL(nb_seen[1][2], nb_seen[0][2], 0.05);
    /* polls per block ~ block time / poll step */
    CHECK_REL(nb_seen[1][3], nb_seen[0][1] / 3463.0, 0.05);
    /* a device without the path: not applicable, said so */
    CHECK_EQ(sim_target("sd-consumer", 64 * MIB, 0, 1, 0), 0);
    st.t.bd = NULL;
    CHECK_EQ(run("nb", 1, 0, 0, STS_SCALE_QUICK, NULL), 0);
}

/* ---- bare extents on raw flash (issue 12.3) ------------------------------ */
/* B0 on NOR through extentfs: every erase block of the file is erased
 * before its first program, in the timed write, so a write point can be
 * no faster than its erases alone allow. The old extentfs programmed
 * erased-looking flash without erasing: 0 erases, 6x the throughput. */
static void bare_extents_on_nor_pay_their_erases(void)
{
    const uint64_t cap = 2 * MIB;
    CHECK_EQ(sim_target("nor-spi", cap, 0, 1, cap), 0);
    st.t.bd = &st.bd;
    st.t.flags |= STS_T_NO_FS_METADATA;
    const struct sts_sim_params *p = &st.sim.p;
    const struct sts_test_def *tests[] = {sts_test_find("B0")};
    struct sts_plan plan = {.tests = tests, .n_tests = 1, .scale = STS_SCALE_QUICK, .seed = 3,
                            .verify = 1, .runs = 1};
    struct sts_workspace ws = {sts_test_iobuf, STS_TEST_IOBUF_BYTES, sts_test_hist,
                               STS_HIST_BUCKETS, STS_HIST_SUB_BITS, STS_HIST_MAX_EXP, NULL, 0};
    struct sts_sink sinks[1] = {{&seen_ops, NULL}};
    struct sts_run_info ri = {.tool_version = STORSCOPE_VERSION, .target = "sim"};
    memset(&seen, 0, sizeof(seen));
    uint64_t erases0 = st.sim.n.erases;
    CHECK_EQ(sts_engine_run(&plan, &st.t, &ws, sinks, 1, &ri), 0); /* --verify passes */
    /* quick B0: a 256 KiB file written once per chunk size 1 B .. 1 KiB */
    const uint64_t file = 256 * 1024, blocks = file / p->erase_bytes;
    CHECK(st.sim.n.erases - erases0 >= 11 * blocks);
    for (unsigned lg = 0; lg <= 10; lg++) {
        double bound = (double)file / ((double)blocks * (double)p->erase_ns * 1e-9);
        CHECK(seen.tput[1][lg] > 0);
        CHECK(seen.tput[1][lg] <= bound);
    }
}

/* What raw flash cannot take is refused, not turned into a wrong figure. */
static void bare_extents_refuse_rewrites_and_partial_nand_pages(void)
{
    static struct sts_extentfs_file files[2];
    uint8_t buf[2048], back[2048];
    memset(buf, 0x5a, sizeof(buf));
    size_t done;
    sts_fh fh;
    struct sts_fs fs;
    struct sts_extentfs efs;
    /* NOR: appends pay erases; rewriting programmed bytes is refused;
     * after O_TRUNC the blocks are erased again and the new data reads back */
    struct sts_sim_params p = *sts_sim_profile_find("nor-spi");
    p.capacity = 256 * 1024;
    CHECK_EQ(sts_sim_init(&st.sim, &p, 1, arena64, sizeof(arena64), p.capacity, &st.bd), 0);
    struct sts_extentfs_config cfg = {.bd = st.bd, .files = files, .n_files = 2};
    CHECK_EQ(sts_extentfs_init(&efs, &cfg, &fs), 0);
    CHECK_EQ(fs.ops->open(fs.ctx, "a", STS_O_CREAT | STS_O_WRONLY, &fh), 0);
    CHECK_EQ(fs.ops->write(fs.ctx, fh, buf, 100, &done), 0);
    CHECK_EQ(st.sim.n.erases, 1);
    CHECK_EQ(fs.ops->write(fs.ctx, fh, buf, 100, &done), 0); /* same block: no new erase */
    CHECK_EQ(st.sim.n.erases, 1);
    CHECK_EQ(fs.ops->seek(fs.ctx, fh, 50), 0);
    CHECK_EQ(fs.ops->write(fs.ctx, fh, buf, 10, &done), STS_ENOTSUP);
    CHECK_EQ(fs.ops->close(fs.ctx, fh), 0);
    memset(buf, 0x33, sizeof(buf));
    CHECK_EQ(fs.ops->open(fs.ctx, "a", STS_O_TRUNC | STS_O_WRONLY, &fh), 0);
    CHECK_EQ(fs.ops->write(fs.ctx, fh, buf, 200, &done), 0);
    CHECK_EQ(st.sim.n.erases, 2);
    CHECK_EQ(fs.ops->close(fs.ctx, fh), 0);
    CHECK_EQ(fs.ops->open(fs.ctx, "a", STS_O_RDONLY, &fh), 0);
    CHECK_EQ(fs.ops->read(fs.ctx, fh, back, 200, &done), 0);
    CHECK_EQ(done, 200);
    CHECK(memcmp(back, buf, 200) == 0); /* not 0x5a & 0x33: the block was erased */
    CHECK_EQ(fs.ops->close(fs.ctx, fh), 0);
    /* NAND programs a page once: half a page is refused, whole pages work */
    p = *sts_sim_profile_find("nand-slc");
    p.capacity = 1 * MIB;
    p.bad_permille = 0;
    CHECK_EQ(sts_sim_init(&st.sim, &p, 1, arena64, sizeof(arena64), p.capacity, &st.bd), 0);
    cfg.bd = st.bd;
    CHECK_EQ(sts_extentfs_init(&efs, &cfg, &fs), 0);
    CHECK_EQ(fs.ops->open(fs.ctx, "n", STS_O_CREAT | STS_O_WRONLY, &fh), 0);
    CHECK_EQ(fs.ops->write(fs.ctx, fh, buf, 1024, &done), STS_ENOTSUP);
    CHECK_EQ(fs.ops->write(fs.ctx, fh, buf, 2048, &done), 0);
    CHECK_EQ(st.sim.n.erases, 1);
    CHECK_EQ(fs.ops->close(fs.ctx, fh), 0);
}


/* sts_bd_ops.idle (issue 43): a caller that only waits takes the polls that
 * would not complete the command at once, and the poll that does complete
 * it comes at the very time polling all along would have given - the
 * reference here, on an identical model. The sensorlog facade waited that
 * way a poll_ns at a time: 300 000 calls for a 300 ms erase at 1 us. */
static void idle_ends_where_polling_would(void)
{
    static uint8_t buf[16384];
    for (uint32_t len = 512; len <= sizeof(buf); len *= 4) {
        uint64_t end[2], polls[2];
        for (int way = 0; way < 2; way++) {
            CHECK_EQ(sim_target("emmc-stm32u5", 64 * MIB, 0, 1, 0), 0);
            st.sim.p.poll_ns = 3463; /* not a divisor of any command's time */
            const struct sts_bd_ops *ops = st.bd.ops;
            if (!STS_SIM_IDLE) { /* a firmware's model is polled for real */
                CHECK(ops->idle == NULL);
                return;
            }
            CHECK(ops->version >= 2 && ops->idle);
            uint64_t t0 = st.sim.now_ns;
            ops->idle(st.bd.ctx); /* nothing in flight: no time */
            CHECK_EQ(st.sim.now_ns, t0);
            struct sts_bd_req req = {STS_BD_PROGRAM, 4 * MIB, buf, len, -1};
            CHECK_EQ(ops->submit(st.bd.ctx, &req), 0);
            struct sts_bd_req *done = NULL;
            polls[way] = 0;
            while (!done) {
                if (way)
                    ops->idle(st.bd.ctx);
                CHECK(ops->poll(st.bd.ctx, &done) >= 0);
                polls[way]++;
            }
            CHECK(done == &req);
            CHECK_EQ(req.result, 0);
            end[way] = st.sim.now_ns;
            ops->idle(st.bd.ctx); /* done: nothing more */
            CHECK_EQ(st.sim.now_ns, end[way]);
        }
        CHECK_EQ(end[1], end[0]);
        CHECK(polls[0] > 10); /* the command takes many poll steps */
        CHECK_EQ(polls[1], 1);
    }
}

/* A poll() that fails ends the test at once, naming it; the old loop took
 * the error for "still running" and spun up to 10^8 times. */
static unsigned failing_polls;
static int failing_poll(void *ctx, struct sts_bd_req **done)
{
    (void)ctx;
    *done = NULL;
    failing_polls++;
    return STS_EIO;
}
static void nb_poll_error_fails_at_once(void)
{
    static struct sts_bd_ops ops;
    static struct sts_bd bd;
    CHECK_EQ(sim_target("sd-consumer", 64 * MIB, 0, 1, 0), 0);
    ops = *st.bd.ops;
    ops.poll = failing_poll;
    bd = (struct sts_bd){&ops, st.bd.ctx};
    st.t.bd = &bd;
    failing_polls = 0;
    CHECK(run("nb", 1, 0, 0, STS_SCALE_QUICK, NULL) == STS_EIO);
    CHECK_EQ(failing_polls, 1);
    st.sim.inflight = NULL; /* the request the test gave up on */
}

/* SPI NOR erases 64 KiB blocks (D8h) in 150 ms against 45 ms per 4 KiB
 * sector (W25Q128JV datasheet, typical): an aligned 64 KiB erase is one
 * block command, anything else goes sector by sector, and the geometry
 * says the large erase exists. Times from the datasheet, tail off. */
static void nor_large_erase_costs_one_block_command(void)
{
    struct sts_sim_params p = *sts_sim_profile_find("nor-spi");
    p.capacity = 256 * 1024;
    p.erase_tail_x100 = 0;
    CHECK_EQ(sts_sim_init(&st.sim, &p, 1, arena64, sizeof(arena64), 0, &st.bd), 0);
    struct sts_bd_geometry g = {0};
    st.bd.ops->geometry(st.bd.ctx, &g);
    CHECK_EQ(g.erase_size, 4096);
    CHECK_EQ(g.erase_large_size, 65536);
    static const struct {
        uint64_t addr, len, ms; /* datasheet: block 150 ms, sector 45 ms */
    } cases[] = {
        {0, 4096, 45},                 /* one sector */
        {0, 65536, 150},               /* one aligned block */
        {65536, 131072, 300},          /* two blocks */
        {4096, 65536, 16 * 45},        /* unaligned: 16 sectors */
        {61440, 8192, 2 * 45},         /* straddles two blocks, covers neither */
        {61440, 4096 + 65536, 45 + 150}, /* a sector, then a whole block */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint64_t t0 = st.sim.now_ns;
        CHECK_EQ(st.bd.ops->erase(st.bd.ctx, cases[i].addr, cases[i].len), 0);
        CHECK_EQ(st.sim.now_ns - t0, p.cmd_write_ns + cases[i].ms * 1000000ull);
    }
    /* managed media have no such thing; a bad row is refused, named */
    const char *why = NULL;
    p.erase_large_bytes = 6144;
    CHECK(sts_sim_check(&p, &why) != 0);
    CHECK(why && strstr(why, "erase_large must be") != NULL /* the option typed */);
    struct sts_sim_params m = *sts_sim_profile_find("emmc-stm32u5");
    m.capacity = 64ull << 20;
    CHECK_EQ(sts_sim_init(&st.sim, &m, 1, arena64, sizeof(arena64), 0, &st.bd), 0);
    memset(&g, 0, sizeof(g));
    st.bd.ops->geometry(st.bd.ctx, &g);
    CHECK_EQ(g.erase_large_size, 0);
}


/* ---- energy (issue 47) ------------------------------------------------- */
/* A point's energy_nj from the model's counters since *last; -1 if none. */
static double energy_of(struct sts_sim_counters *last)
{
    struct sts_kv kv[32];
    size_t n = sts_sim_counters_kv(&st.sim, last, kv, 32);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(kv[i].key, "energy_nj"))
            return (double)kv[i].v.u;
    return -1;
}

/* Energy is each command's time at its class's current, the time between
 * commands at the standby current, times the supply: worked out here by
 * hand from the clock around each command, with currents far apart so a
 * command charged to another class shows. */
static void energy_is_each_commands_time_at_its_current(void)
{
#if !STS_SIM_ENERGY
    /* a firmware's model has no energy model (STS_SIM_ENERGY 0, sim.h): it
     * reports no energy and takes no currents - what is checked here */
    struct sts_sim_params q = *sts_sim_profile_find("nor-spi");
    q.capacity = 1u << 20;
    CHECK_EQ(sts_sim_init(&st.sim, &q, 1, arena64, sizeof(arena64), q.capacity, &st.bd), 0);
    struct sts_sim_counters none;
    memset(&none, 0, sizeof(none));
    CHECK_EQ(st.bd.ops->read(st.bd.ctx, 0, rd, 4096), 0);
    CHECK(energy_of(&none) < 0);
    CHECK_EQ(sts_sim_param_set(&q, "supply", "3.3V"), STS_ENOENT);
    CHECK_EQ(sts_sim_param_set(&q, "i_read", "10mA"), STS_ENOENT);
#else
    struct sts_sim_params p = *sts_sim_profile_find("nor-spi");
    p.capacity = 1u << 20;
    const char *set[][2] = {{"supply", "2V"}, {"i_read", "1mA"}, {"i_program", "3mA"},
                            {"i_erase", "7mA"}, {"i_idle", "500uA"}};
    for (size_t i = 0; i < 5; i++)
        CHECK_EQ(sts_sim_param_set(&p, set[i][0], set[i][1]), 0);
    CHECK_EQ(sts_sim_init(&st.sim, &p, 1, arena64, sizeof(arena64), p.capacity, &st.bd), 0);
    struct sts_sim_counters last;
    memset(&last, 0, sizeof(last));
    (void)energy_of(&last); /* from here */
    uint64_t t0 = st.sim.now_ns;
    CHECK_EQ(st.bd.ops->erase(st.bd.ctx, 0, 4096), 0);
    double erase_ns = (double)(st.sim.now_ns - t0);
    memset(pg_a, 0x5a, 256);
    t0 = st.sim.now_ns;
    CHECK_EQ(st.bd.ops->program(st.bd.ctx, 0, pg_a, 256), 0);
    double prog_ns = (double)(st.sim.now_ns - t0);
    t0 = st.sim.now_ns;
    CHECK_EQ(st.bd.ops->read(st.bd.ctx, 0, rd, 4096), 0);
    double read_ns = (double)(st.sim.now_ns - t0);
    st.sim.now_ns += 1000000000u; /* a second the caller spends elsewhere */
    /* V x A x ns = nJ */
    double want = 2.0 * (7e-3 * erase_ns + 3e-3 * prog_ns + 1e-3 * read_ns + 0.5e-3 * 1e9);
    CHECK(erase_ns > 1e6 && prog_ns > 1e4 && read_ns > 1e4); /* each took time */
    CHECK(fabs(energy_of(&last) - want) <= 1.0);
    /* the next point counts from the last: an idle second alone */
    st.sim.now_ns += 1000000000u;
    CHECK(fabs(energy_of(&last) - 2.0 * 0.5e-3 * 1e9) <= 1.0);

    /* the SPI NOR profile's currents are the W25Q128JV datasheet's typical
     * ones (Rev. F, 9.4): standby 10 uA, quad read at 80 MHz 10 mA, page
     * program and sector erase 20 mA, on a 3.3 V supply */
    const struct sts_sim_params *w = sts_sim_profile_find("nor-spi");
    CHECK_EQ(w->supply_mv, 3300);
    CHECK_EQ(w->read_na, 10000000u);
    CHECK_EQ(w->program_na, 20000000u);
    CHECK_EQ(w->erase_na, 20000000u);
    CHECK_EQ(w->idle_na, 10000u);
    /* a medium with no cited currents reports no energy, not a made-up one */
    struct sts_sim_params m = *sts_sim_profile_find("emmc-stm32u5");
    m.capacity = 64ull << 20;
    CHECK_EQ(sts_sim_init(&st.sim, &m, 1, arena64, sizeof(arena64), 0, &st.bd), 0);
    memset(&last, 0, sizeof(last));
    CHECK_EQ(st.bd.ops->read(st.bd.ctx, 0, rd, 4096), 0);
    CHECK(energy_of(&last) < 0);
    /* currents and voltages with their units, or refused */
    const char *bad[][2] = {{"i_read", "5"},       {"i_read", "-1mA"}, {"i_idle", "5A"},
                            {"supply", "3.3 V"},   {"supply", "V"},    {"i_erase", "20 mA"},
                            {"i_program", "x20mA"}};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK(sts_sim_param_set(&m, bad[i][0], bad[i][1]) != 0);
    CHECK_EQ(sts_sim_param_set(&m, "supply", "1800mV"), 0);
    CHECK_EQ(m.supply_mv, 1800);
    CHECK_EQ(sts_sim_param_set(&m, "i_idle", "1.5uA"), 0);
    CHECK_EQ(m.idle_na, 1500);
#endif
}

const struct sts_test_case test_sim_raw_cases[] = {
    {"energy_is_each_commands_time_at_its_current", energy_is_each_commands_time_at_its_current},
    {"nor_large_erase_costs_one_block_command", nor_large_erase_costs_one_block_command},
    {"nb_blocks_the_caller_only_per_poll", nb_blocks_the_caller_only_per_poll},
    {"nb_poll_error_fails_at_once", nb_poll_error_fails_at_once},
    {"idle_ends_where_polling_would", idle_ends_where_polling_would},
    {"nor_programs_and_bits_and_erase_resets", nor_programs_and_bits_and_erase_resets},
    {"nand_refuses_reprogram_and_wears_out", nand_refuses_reprogram_and_wears_out},
    {"nand_factory_bad_blocks_follow_the_seed", nand_factory_bad_blocks_follow_the_seed},
    {"bare_extents_on_nor_pay_their_erases", bare_extents_on_nor_pay_their_erases},
    {"bare_extents_refuse_rewrites_and_partial_nand_pages",
     bare_extents_refuse_rewrites_and_partial_nand_pages},
    {NULL, NULL},
};
