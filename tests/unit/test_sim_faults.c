/* Power cuts and injected errors on the simulator: what a cut keeps and
 * tears, on managed media and on raw NOR and NAND, error rates and
 * addresses, silent failures, flash that erases to 0x00. */
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

/* ---- power cuts and injected errors --------------------------------------- */

static void managed_power_cut_keeps_flushed_loses_unflushed(void)
{
    struct sts_sim_params p = *sts_sim_profile_find("sd-consumer");
    p.capacity = 64 * MIB;
    p.cache_bytes = 256 * 1024;
    CHECK_EQ(sts_sim_init(&st.sim, &p, 1, arena64, sizeof(arena64), 1 * MIB, &st.bd), 0);
    struct sts_bd *bd = &st.bd;
    memset(pg_a, 0xa5, sizeof(pg_a));
    memset(pg_b, 0x3c, sizeof(pg_b));
    for (int i = 0; i < 4; i++)
        CHECK_EQ(bd->ops->program(bd->ctx, (uint64_t)i * 16384, pg_a, 16384), 0);
    CHECK_EQ(bd->ops->flush(bd->ctx), 0);
    /* overwrite two flushed pages and write two new ones, no flush */
    for (int i = 2; i < 6; i++)
        CHECK_EQ(bd->ops->program(bd->ctx, (uint64_t)i * 16384, pg_b, 16384), 0);
    sts_sim_power_cut(&st.sim);
    CHECK(bd->ops->read(bd->ctx, 0, rd, 16) == STS_EIO); /* off until power returns */
    sts_sim_power_on(&st.sim);
    for (int i = 0; i < 6; i++) {
        int rc = bd->ops->read(bd->ctx, (uint64_t)i * 16384, rd, 16384);
        if (i < 2) { /* flushed and untouched since: intact */
            CHECK_EQ(rc, 0);
            CHECK(memcmp(rd, pg_a, 16384) == 0);
        } else { /* unflushed: lost, and never read back as other data */
            CHECK(rc == STS_EIO);
        }
    }
    CHECK_EQ(st.sim.n.pages_lost, 4);
    /* rewriting a lost page whole makes it readable again */
    CHECK_EQ(bd->ops->program(bd->ctx, 2 * 16384, pg_b, 16384), 0);
    CHECK_EQ(bd->ops->read(bd->ctx, 2 * 16384, rd, 16384), 0);
    CHECK(memcmp(rd, pg_b, 16384) == 0);
    /* a partial write cannot merge into a lost page */
    CHECK(bd->ops->program(bd->ctx, 3 * 16384 + 512, pg_b, 512) == STS_EIO);
}

static void cut_after_n_ops_tears_the_write_in_flight(void)
{
    struct sts_sim_params p = *sts_sim_profile_find("nand-slc");
    p.capacity = 1 * MIB;
    p.bad_permille = 0;
    CHECK_EQ(sts_sim_init(&st.sim, &p, 1, arena64, sizeof(arena64), p.capacity, &st.bd), 0);
    struct sts_sim_faults f = {.cut_after_ops = 3};
    sts_sim_set_faults(&st.sim, &f);
    struct sts_bd *bd = &st.bd;
    memset(pg_a, 0x11, 2048);
    CHECK_EQ(bd->ops->program(bd->ctx, 0, pg_a, 2048), 0);     /* op 1 */
    CHECK_EQ(bd->ops->program(bd->ctx, 2048, pg_a, 2048), 0);  /* op 2 */
    CHECK_EQ(bd->ops->read(bd->ctx, 0, rd, 2048), 0);          /* op 3 */
    CHECK(bd->ops->program(bd->ctx, 4096, pg_a, 2048) == STS_EIO); /* cut during op 4 */
    CHECK(bd->ops->read(bd->ctx, 0, rd, 2048) == STS_EIO);     /* device off */
    sts_sim_power_on(&st.sim);
    CHECK_EQ(bd->ops->read(bd->ctx, 2048, rd, 2048), 0);       /* raw: no cache, durable */
    CHECK(memcmp(rd, pg_a, 2048) == 0);
    CHECK(bd->ops->read(bd->ctx, 4096, rd, 2048) == STS_EIO);  /* torn page */
    CHECK_EQ(bd->ops->erase(bd->ctx, 0, 128 * 1024), 0);       /* erase heals it */
    CHECK_EQ(bd->ops->read(bd->ctx, 4096, rd, 2048), 0);
    CHECK_EQ(rd[0], 0xff);
    CHECK_EQ(st.sim.n.power_cuts, 1);
}

/* NOR has no ECC: a program the power stopped leaves its cells half-way
 * and reads back without an error - each bit it was to clear cleared or
 * not, each bit it was to leave alone as it was - and nothing outside the
 * bytes it was programming changes, the rest of the page included (what a
 * store that appends commits into one page relies on). With no_ecc=0 the
 * page reads as an error, as on NAND. */
static void a_cut_program_on_nor_leaves_its_bits_half_way_and_nothing_else(void)
{
    for (int ecc = 0; ecc < 2; ecc++) {
        struct sts_sim_params p = *sts_sim_profile_find("nor-spi");
        p.capacity = 64 * 1024;
        if (ecc)
            CHECK_EQ(sts_sim_param_set(&p, "no_ecc", "0"), 0);
        CHECK_EQ(sts_sim_init(&st.sim, &p, 3, arena64, sizeof(arena64), p.capacity, &st.bd), 0);
        struct sts_bd *bd = &st.bd;
        memset(pg_a, 0x3C, 64);
        CHECK_EQ(bd->ops->program(bd->ctx, 0, pg_a, 64), 0); /* synced: bytes 0-63 */
        for (int i = 0; i < 128; i++)
            pg_b[i] = (uint8_t)(i * 37 + 11); /* what the cut stops half-way */
        struct sts_sim_faults f = {.cut_after_ops = st.sim.host_ops};
        sts_sim_set_faults(&st.sim, &f);
        CHECK(bd->ops->program(bd->ctx, 64, pg_b, 128) == STS_EIO);
        sts_sim_power_on(&st.sim);
        if (ecc) {
            CHECK(bd->ops->read(bd->ctx, 0, rd, 256) == STS_EIO);
            continue;
        }
        CHECK_EQ(bd->ops->read(bd->ctx, 0, rd, 256), 0);
        int cleared = 0, missed = 0;
        for (int i = 0; i < 64; i++)
            CHECK_EQ(rd[i], 0x3C); /* before it, in the same page: untouched */
        for (int i = 0; i < 128; i++) {
            for (int bit = 0; bit < 8; bit++) {
                int want = (pg_b[i] >> bit) & 1, got = (rd[64 + i] >> bit) & 1;
                if (want)
                    CHECK_EQ(got, 1); /* a bit left alone is never cleared */
                else if (got)
                    missed++;
                else
                    cleared++;
            }
        }
        CHECK(cleared > 100 && missed > 100); /* half-way: some of each */
        for (int i = 192; i < 256; i++)
            CHECK_EQ(rd[i], 0xFF); /* after it: still erased */
        /* a cut erase leaves the sector half-erased, readable */
        memset(pg_a, 0x00, 256);
        CHECK_EQ(bd->ops->program(bd->ctx, 4096, pg_a, 256), 0);
        f.cut_after_ops = st.sim.host_ops;
        sts_sim_set_faults(&st.sim, &f);
        CHECK(bd->ops->erase(bd->ctx, 4096, 4096) == STS_EIO);
        sts_sim_power_on(&st.sim);
        CHECK_EQ(bd->ops->read(bd->ctx, 4096, rd, 256), 0);
        int ones = 0;
        for (int i = 0; i < 256; i++)
            ones += __builtin_popcount(rd[i]);
        CHECK(ones > 256 && ones < 256 * 8 - 256); /* neither the old zeros nor erased */
    }
}

/* A NOR program of a few bytes costs the chip tBP1 + (n - 1) tBP2 (30 us
 * and 2.5 us on a W25Q), not a page's tPP (700 us): a store that commits
 * in small programs (FlashDB's index and status bytes) pays what the chip
 * charges. A whole page still takes tPP. */
static void a_small_nor_program_costs_its_bytes_not_a_page(void)
{
    struct sts_sim_params p = *sts_sim_profile_find("nor-spi");
    p.capacity = 64 * 1024;
    CHECK_EQ(sts_sim_init(&st.sim, &p, 3, arena64, sizeof(arena64), p.capacity, &st.bd), 0);
    struct sts_bd *bd = &st.bd;
    memset(pg_a, 0x00, 256);
    uint64_t t0 = st.sim.now_ns;
    CHECK_EQ(bd->ops->program(bd->ctx, 0, pg_a, 1), 0);
    uint64_t one = st.sim.now_ns - t0;
    t0 = st.sim.now_ns;
    CHECK_EQ(bd->ops->program(bd->ctx, 256, pg_a, 12), 0);
    uint64_t twelve = st.sim.now_ns - t0;
    t0 = st.sim.now_ns;
    CHECK_EQ(bd->ops->program(bd->ctx, 512, pg_a, 256), 0);
    uint64_t page = st.sim.now_ns - t0;
    CHECK(one >= 30000 && one < 40000);          /* tBP1, and the command */
    CHECK(twelve - one >= 11 * 2500);            /* 11 more bytes, 2.5 us each */
    CHECK(twelve - one < 11 * 2500 + 1000);      /* (and their 11 bytes on the bus) */
    CHECK(page >= 700000 && page < 720000);      /* a whole page: tPP */
    /* 200 bytes across a page boundary: two part programs */
    t0 = st.sim.now_ns;
    CHECK_EQ(bd->ops->program(bd->ctx, 1024 - 100, pg_a, 200), 0);
    uint64_t split = st.sim.now_ns - t0;
    CHECK(split >= 2 * (30000 + 99 * 2500) && split < 2 * (30000 + 99 * 2500) + 10000);
}

/* A read that does not continue the one before it pays the device's
 * access time (sd-consumer: 300 us, the profile's read_access) on top of
 * its command and transfer; one that continues it does not. Page and unit
 * crossings are off, so the access time alone tells the three apart. */
static void a_read_elsewhere_pays_the_access_time(void)
{
    struct sts_sim_params p = *sts_sim_profile_find("sd-consumer");
    p.capacity = 64 * MIB;
    p.read_page_cross_ns = p.read_unit_cross_ns = 0;
    CHECK_EQ(p.read_access_ns, 300000);
    CHECK_EQ(sts_sim_init(&st.sim, &p, 1, arena64, sizeof(arena64), 1 * MIB, &st.bd), 0);
    struct sts_bd *bd = &st.bd;
    uint64_t t0 = st.sim.now_ns;
    CHECK_EQ(bd->ops->read(bd->ctx, 0, rd, 4096), 0);
    uint64_t t1 = st.sim.now_ns;
    CHECK_EQ(bd->ops->read(bd->ctx, 4096, rd, 4096), 0); /* continues it */
    uint64_t t2 = st.sim.now_ns;
    CHECK_EQ(bd->ops->read(bd->ctx, 32 * 4096, rd, 4096), 0); /* elsewhere */
    uint64_t t3 = st.sim.now_ns;
    CHECK_EQ((t1 - t0) - (t2 - t1), 300000);
    CHECK_EQ((t3 - t2) - (t2 - t1), 300000);
}

/* A command to a bad block is still a command the host issued: it counts
 * toward cut_after as it does above the device (storscope's device fault
 * injection, which sizes the power-cut sweep). Uncounted, a sweep's cuts
 * at a nand-slc run's last commands never came (exit 0, nothing cut). */
static void a_bad_blocks_command_counts_toward_a_cut(void)
{
    struct sts_sim_params p = *sts_sim_profile_find("nand-slc");
    p.capacity = 1 * MIB;
    p.bad_permille = 1000; /* every block bad from the factory */
    CHECK_EQ(sts_sim_init(&st.sim, &p, 1, arena64, sizeof(arena64), p.capacity, &st.bd), 0);
    struct sts_sim_faults f = {.cut_after_ops = 2};
    sts_sim_set_faults(&st.sim, &f);
    struct sts_bd *bd = &st.bd;
    CHECK(bd->ops->read(bd->ctx, 0, rd, 2048) == STS_EIO);         /* op 1: a bad block */
    CHECK(bd->ops->program(bd->ctx, 2048, pg_a, 2048) == STS_EIO); /* op 2: a bad block */
    CHECK_EQ(st.sim.n.power_cuts, 0);
    CHECK(bd->ops->read(bd->ctx, 0, rd, 2048) == STS_EIO);         /* op 3: the cut */
    CHECK_EQ(st.sim.n.power_cuts, 1);
    CHECK_EQ(st.sim.host_ops, 3);
}

static void plp_cache_survives_a_cut(void)
{
    struct sts_sim_params p = *sts_sim_profile_find("ssd-sata-plp");
    p.capacity = 64 * MIB;
    CHECK_EQ(sts_sim_init(&st.sim, &p, 1, arena64, sizeof(arena64), 1 * MIB, &st.bd), 0);
    memset(pg_a, 0x77, 16384);
    CHECK_EQ(st.bd.ops->program(st.bd.ctx, 0, pg_a, 16384), 0);
    sts_sim_power_cut(&st.sim);
    sts_sim_power_on(&st.sim);
    CHECK_EQ(st.bd.ops->read(st.bd.ctx, 0, rd, 16384), 0);
    CHECK(memcmp(rd, pg_a, 16384) == 0);
}

static void injected_errors_by_rate_and_address(void)
{
    struct sts_sim_params p = *sts_sim_profile_find("nor-spi");
    p.capacity = 64 * 1024;
    CHECK_EQ(sts_sim_init(&st.sim, &p, 1, arena64, sizeof(arena64), p.capacity, &st.bd), 0);
    struct sts_sim_faults f = {.read_error_ppm = 1000000, .error_lo = 8192, .error_hi = 12288};
    sts_sim_set_faults(&st.sim, &f);
    CHECK_EQ(st.bd.ops->read(st.bd.ctx, 0, rd, 64), 0);
    CHECK(st.bd.ops->read(st.bd.ctx, 8192 + 100, rd, 64) == STS_EIO);
    f.read_error_ppm = 0; /* transient: gone with the cause */
    sts_sim_set_faults(&st.sim, &f);
    CHECK_EQ(st.bd.ops->read(st.bd.ctx, 8192 + 100, rd, 64), 0);
    /* permanent erase errors retire the block */
    f = (struct sts_sim_faults){.erase_error_ppm = 1000000, .permanent = 1};
    sts_sim_set_faults(&st.sim, &f);
    CHECK(st.bd.ops->erase(st.bd.ctx, 4096, 4096) == STS_EIO);
    f.erase_error_ppm = 0;
    sts_sim_set_faults(&st.sim, &f);
    CHECK(st.bd.ops->read(st.bd.ctx, 4096, rd, 16) == STS_EIO);
    CHECK_EQ(st.bd.ops->read(st.bd.ctx, 0, rd, 16), 0);
    /* a rate, not a certainty: about 10 % of 10,000 reads fail */
    f = (struct sts_sim_faults){.read_error_ppm = 100000};
    sts_sim_set_faults(&st.sim, &f);
    unsigned failed = 0;
    for (int i = 0; i < 10000; i++)
        failed += st.bd.ops->read(st.bd.ctx, 0, rd, 16) == STS_EIO;
    CHECK(failed > 800 && failed < 1200);
    CHECK_EQ(st.sim.n.injected_errors, failed + 2);
}

/* A silent failure (errors_silent): the program or erase says it worked;
 * only reading back shows it did nothing. A block that goes bad that way
 * keeps lying, and its time is charged as for a real command. */
static void a_silent_failure_reports_success_and_changes_nothing(void)
{
    struct sts_sim_params p = *sts_sim_profile_find("nor-spi");
    p.capacity = 64 * 1024;
    CHECK_EQ(sts_sim_init(&st.sim, &p, 1, arena64, sizeof(arena64), p.capacity, &st.bd), 0);
    struct sts_bd *bd = &st.bd;
    memset(pg_a, 0x5A, 256);
    struct sts_sim_faults f = {.prog_error_ppm = 1000000, .silent = 1, .permanent = 1};
    sts_sim_set_faults(&st.sim, &f);
    if (!STS_SIM_DIRTY) { /* a firmware's model does not lie: the failure is reported */
        CHECK(bd->ops->program(bd->ctx, 4096, pg_a, 256) == STS_EIO);
        return;
    }
    uint64_t t0 = st.sim.now_ns;
    CHECK_EQ(bd->ops->program(bd->ctx, 4096, pg_a, 256), 0); /* "done" */
    CHECK(st.sim.now_ns - t0 >= p.page_prog_ns);             /* and it took a program's time */
    CHECK_EQ(bd->ops->read(bd->ctx, 4096, rd, 256), 0);
    for (int i = 0; i < 256; i++)
        CHECK_EQ(rd[i], 0xFF); /* still erased: nothing was stored */
    f.prog_error_ppm = 0;
    sts_sim_set_faults(&st.sim, &f);
    /* the block lies from now on: a later program and erase there too */
    CHECK_EQ(bd->ops->program(bd->ctx, 4096 + 256, pg_a, 256), 0);
    CHECK_EQ(bd->ops->read(bd->ctx, 4096 + 256, rd, 1), 0);
    CHECK_EQ(rd[0], 0xFF);
    /* other blocks work; an erase there is real */
    CHECK_EQ(bd->ops->program(bd->ctx, 8192, pg_a, 256), 0);
    CHECK_EQ(bd->ops->read(bd->ctx, 8192, rd, 1), 0);
    CHECK_EQ(rd[0], 0x5A);
    CHECK_EQ(bd->ops->erase(bd->ctx, 8192, 4096), 0);
    CHECK_EQ(bd->ops->read(bd->ctx, 8192, rd, 1), 0);
    CHECK_EQ(rd[0], 0xFF);
    /* a silent erase failure leaves the old bytes where they were */
    CHECK_EQ(bd->ops->program(bd->ctx, 12288, pg_a, 256), 0);
    f = (struct sts_sim_faults){.erase_error_ppm = 1000000, .silent = 1};
    sts_sim_set_faults(&st.sim, &f);
    CHECK_EQ(bd->ops->erase(bd->ctx, 12288, 4096), 0);
    CHECK_EQ(bd->ops->read(bd->ctx, 12288, rd, 1), 0);
    CHECK_EQ(rd[0], 0x5A);
    CHECK_EQ(st.sim.n.injected_errors, 2);
}

/* Flash that erases to 0x00 (erases_to_zero): blank reads 0x00, a program
 * sets bits (over programmed bytes they OR), an erase clears them again;
 * the geometry says so. A firmware's model keeps 0xFF (STS_SIM_DIRTY). */
static void a_chip_can_erase_to_zero(void)
{
    struct sts_sim_params p = *sts_sim_profile_find("nor-spi");
    p.capacity = 64 * 1024;
    p.erases_to_zero = 1;
    CHECK_EQ(sts_sim_init(&st.sim, &p, 1, arena64, sizeof(arena64), p.capacity, &st.bd), 0);
    struct sts_bd *bd = &st.bd;
    struct sts_bd_geometry g = {0};
    bd->ops->geometry(bd->ctx, &g);
    uint8_t erased = STS_SIM_DIRTY ? 0x00 : 0xFF;
    CHECK_EQ(!!(g.flags & STS_BD_ERASES_TO_ZERO), STS_SIM_DIRTY);
    CHECK_EQ(bd->ops->read(bd->ctx, 100, rd, 4), 0);
    CHECK_EQ(rd[0], erased);
    pg_a[0] = 0x0F;
    CHECK_EQ(bd->ops->program(bd->ctx, 100, pg_a, 1), 0);
    pg_a[0] = 0x30;
    CHECK_EQ(bd->ops->program(bd->ctx, 100, pg_a, 1), 0); /* NOR: again over it */
    CHECK_EQ(bd->ops->read(bd->ctx, 100, rd, 1), 0);
    CHECK_EQ(rd[0], STS_SIM_DIRTY ? 0x3F : 0x00); /* bits set (OR), or cleared (AND) */
    CHECK_EQ(bd->ops->erase(bd->ctx, 0, 4096), 0);
    CHECK_EQ(bd->ops->read(bd->ctx, 100, rd, 1), 0);
    CHECK_EQ(rd[0], erased);
}

const struct sts_test_case test_sim_faults_cases[] = {
    {"managed_power_cut_keeps_flushed_loses_unflushed",
     managed_power_cut_keeps_flushed_loses_unflushed},
    {"cut_after_n_ops_tears_the_write_in_flight", cut_after_n_ops_tears_the_write_in_flight},
    {"a_read_elsewhere_pays_the_access_time", a_read_elsewhere_pays_the_access_time},
    {"a_small_nor_program_costs_its_bytes_not_a_page",
     a_small_nor_program_costs_its_bytes_not_a_page},
    {"a_cut_program_on_nor_leaves_its_bits_half_way_and_nothing_else",
     a_cut_program_on_nor_leaves_its_bits_half_way_and_nothing_else},
    {"a_bad_blocks_command_counts_toward_a_cut", a_bad_blocks_command_counts_toward_a_cut},
    {"plp_cache_survives_a_cut", plp_cache_survives_a_cut},
    {"injected_errors_by_rate_and_address", injected_errors_by_rate_and_address},
    {"a_chip_can_erase_to_zero", a_chip_can_erase_to_zero},
    {"a_silent_failure_reports_success_and_changes_nothing",
     a_silent_failure_reports_success_and_changes_nothing},
    {NULL, NULL},
};
