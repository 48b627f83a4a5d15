/* The device profiles: one row each. Where the numbers come from is in
 * docs/device-models.md; calibration targets in the tests (test_sim.c). */
#include "storscope/error.h"
#include "storscope/sim.h"
#include "storscope/units.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define US(x) ((uint64_t)(x) * 1000ull)
#define MS(x) ((uint64_t)(x) * 1000000ull)
#define KIB(x) ((uint64_t)(x) * 1024ull)
#define MIB(x) ((uint64_t)(x) * 1024ull * 1024ull)
#define GIB(x) ((uint64_t)(x) * 1024ull * 1024ull * 1024ull)
#define MBPS(x) ((uint64_t)(x) * 1000000ull)

const struct sts_sim_params sts_sim_profiles[] = {
    {
        .name = "emmc-stm32u5",
        .summary = "Kingston EMMC04G (eMMC 5.1, 4 GiB) behind an STM32U5 SDMMC: the study's medium",
        .capacity = GIB(4), .sector_bytes = 512, .page_bytes = KIB(16), .erase_bytes = MIB(4),
        .managed = 1, .op_permille = 70, .gc_low_blocks = 2, .wl_every = 16,
        /* a read costs its command whether or not it continues the one
         * before: the study's S2 tables imply ~0.46-0.50 ms per directory-
         * sector read of FileX's sequential walk end to end, and M1 ~0.19
         * ms for a small random one (docs/device-models.md). A write
         * command holds the card 410 us: fitted on the study's B0 write of
         * 1 KiB chunks (1,650 kB/s) by the MCU image, FileX's CPU counted
         * and no garbage collection (issue 46; bench/README.md) */
        .cmd_read_ns = US(155), .cmd_write_ns = US(410), .read_access_ns = 0,
        .read_bw = MBPS(14), .write_bw = MBPS(25),
        .page_read_ns = US(60), .page_prog_ns = US(1900), .erase_ns = MS(3),
        .erase_tail_x100 = 200, .erase_tail_cap = 5,
        .cache_bytes = KIB(512), .flush_ns = US(200),
        .dip_bytes = KIB(128), .dip_percent = 45,
        .endurance = 3000,
    },
    {
        .name = "sd-consumer",
        .summary = "consumer microSD card (class 10, no A-rating): ~200 fsync/s; GC stalls of 0.5-1 s "
                   "once its spare blocks run out (at once with capacity=1G,fill=97)",
        .capacity = GIB(16), .sector_bytes = 512, .page_bytes = KIB(16), .erase_bytes = MIB(4),
        .managed = 1, .op_permille = 30, .gc_low_blocks = 2, .wl_every = 8,
        .cmd_read_ns = US(250), .cmd_write_ns = US(300), .read_access_ns = US(300),
        .read_bw = MBPS(22), .write_bw = MBPS(15),
        .page_read_ns = US(100), .page_prog_ns = US(2400), .erase_ns = MS(4),
        .erase_tail_x100 = 150, .erase_tail_cap = 10,
        .cache_bytes = KIB(64), .flush_ns = US(1200),
        /* a 4 MiB AU (flashbench -a on such cards). Consumer cards keep
         * only a few open (Linaro's flash card survey; lwn.net/Articles/
         * 428584): open_aus=3 models that, but its merge-per-switch cost
         * would also hit the random writes behind this profile's fsync
         * tier, which such cards absorb in a random-write area the model
         * lacks; so the limit is an option, off by default */
        .au_bytes = MIB(4), .open_aus = 0,
        /* flashbench -a on such a card (its README's example, 16 KiB pages
         * and 4 MiB units): two 1 KiB reads across a page boundary take
         * ~150 us more than beside it, across a 4 MiB boundary ~300 us */
        .read_page_cross_ns = US(150), .read_unit_cross_ns = US(150),
        .fill_permille = 600,
        .endurance = 1500,
    },
    {
        .name = "sd-a2",
        .summary = "A2 application-class microSD: command queue and cache, ~600 fsync/s",
        .capacity = GIB(32), .sector_bytes = 512, .page_bytes = KIB(16), .erase_bytes = MIB(4),
        .managed = 1, .op_permille = 70, .gc_low_blocks = 2, .wl_every = 12,
        .cmd_read_ns = US(80), .cmd_write_ns = US(90), .read_access_ns = US(150),
        .read_bw = MBPS(80), .write_bw = MBPS(60),
        .page_read_ns = US(60), .page_prog_ns = US(900), .erase_ns = MS(3),
        .erase_tail_x100 = 150, .erase_tail_cap = 15,
        .cache_bytes = MIB(1), .flush_ns = US(500), .fill_permille = 300,
        .endurance = 3000,
    },
    {
        .name = "emmc-industrial",
        .summary = "industrial pSLC eMMC 5.1 (HS200): ~2,500 fsync/s, tails under 15 ms",
        .capacity = GIB(8), .sector_bytes = 512, .page_bytes = KIB(4), .erase_bytes = KIB(512),
        .managed = 1, .op_permille = 150, .gc_low_blocks = 4, .wl_every = 64,
        .cmd_read_ns = US(25), .cmd_write_ns = US(30), .read_access_ns = US(60),
        .read_bw = MBPS(180), .write_bw = MBPS(120),
        .page_read_ns = US(30), .page_prog_ns = US(200), .erase_ns = MS(2),
        .erase_tail_x100 = 300, .erase_tail_cap = 4,
        .cache_bytes = MIB(2), .flush_ns = US(120),
        .endurance = 30000,
    },
    {
        .name = "nor-spi",
        .summary = "SPI NOR flash (W25Q-class, 16 MiB): 4 KiB sectors, 256 B pages, raw",
        .capacity = MIB(16), .sector_bytes = 1, .page_bytes = 256, .erase_bytes = KIB(4),
        .managed = 0, .prog_ands = 1, .no_ecc = 1,
        .cmd_read_ns = US(2), .cmd_write_ns = US(2), .read_access_ns = 0,
        .read_bw = MBPS(40), .write_bw = MBPS(40),
        .page_read_ns = 0, .page_prog_ns = US(700), .erase_ns = MS(45),
        /* a program of fewer bytes than a page: 30 us for the first, 2.5
         * us each after it (W25Q tBP1, tBP2), so a 12-byte one takes 57.5
         * us, not a page's 700 */
        .byte_prog_ns = US(30), .byte_prog_next_ns = 2500,
        .erase_tail_x100 = 400, .erase_tail_cap = 9,
        /* W25Q128JV: 64 KiB block erase 150 ms typical (2 s max), against
         * 45 ms (400 ms) for a 4 KiB sector: 5x cheaper per byte */
        .erase_large_bytes = KIB(64), .erase_large_ns = MS(150),
        /* erase suspend (75h) takes tSUS = 20 us at most; page program is
         * allowed while an erase is suspended (W25Q128JV datasheet) */
        .erase_suspend_ns = US(20),
        .flush_ns = 0,
        .endurance = 100000,
#if STS_SIM_ENERGY
        /* W25Q128JV Rev. F, 9.4 (DC electrical characteristics), typical:
         * standby 10 uA (ICC1), Dual/Quad read at 80 MHz 10 mA (ICC3: the
         * clock the 40 MB/s quad read above runs at), page program 20 mA
         * (ICC5), sector/block erase 20 mA (ICC6); a 3.3 V supply, inside
         * its 3.0-3.6 V range for 133 MHz (9.2) */
        .supply_mv = 3300, .read_na = 10000000, .program_na = 20000000,
        .erase_na = 20000000, .idle_na = 10000,
#endif
    },
    {
        .name = "nand-slc",
        .summary = "raw SLC NAND (1 Gbit, ONFI): 2 KiB pages, 128 KiB blocks, factory bad blocks",
        .capacity = MIB(128), .sector_bytes = 512, .page_bytes = KIB(2), .erase_bytes = KIB(128),
        .managed = 0, .prog_ands = 0,
        .cmd_read_ns = US(5), .cmd_write_ns = US(5), .read_access_ns = 0,
        .read_bw = MBPS(40), .write_bw = MBPS(40),
        .page_read_ns = US(25), .page_prog_ns = US(250), .erase_ns = MS(2),
        .erase_tail_x100 = 400, .erase_tail_cap = 5,
        .flush_ns = 0,
        .endurance = 60000, .bad_permille = 10,
    },
    {
        .name = "ssd-sata-consumer",
        .summary = "consumer SATA SSD without power-loss protection: flush empties the cache",
        .capacity = GIB(256), .sector_bytes = 512, .page_bytes = KIB(16), .erase_bytes = MIB(16),
        .managed = 1, .op_permille = 70, .gc_low_blocks = 4, .wl_every = 256,
        .cmd_read_ns = US(20), .cmd_write_ns = US(20), .read_access_ns = US(50),
        .read_bw = MBPS(540), .write_bw = MBPS(500),
        .page_read_ns = US(50), .page_prog_ns = US(600), .erase_ns = MS(3),
        .erase_tail_x100 = 300, .erase_tail_cap = 4,
        .cache_bytes = MIB(64), .flush_ns = MS(2),
        .endurance = 3000,
    },
    {
        .name = "ssd-sata-plp",
        .summary = "enterprise SATA SSD with power-loss protection: ~15,000 fsync/s",
        .capacity = GIB(480), .sector_bytes = 512, .page_bytes = KIB(16), .erase_bytes = MIB(16),
        .managed = 1, .op_permille = 280, .gc_low_blocks = 4, .wl_every = 256, .plp = 1,
        .cmd_read_ns = US(20), .cmd_write_ns = US(20), .read_access_ns = US(50),
        .read_bw = MBPS(540), .write_bw = MBPS(500),
        .page_read_ns = US(50), .page_prog_ns = US(40), .erase_ns = MS(3),
        .erase_tail_x100 = 300, .erase_tail_cap = 3,
        .cache_bytes = MIB(256), .flush_ns = US(35),
        .endurance = 10000,
    },
    {
        .name = "nvme-consumer",
        .summary = "consumer NVMe SSD without power-loss protection: ~700 fsync/s",
        .capacity = GIB(1024), .sector_bytes = 512, .page_bytes = KIB(16), .erase_bytes = MIB(16),
        .managed = 1, .op_permille = 70, .gc_low_blocks = 4, .wl_every = 256,
        .cmd_read_ns = US(8), .cmd_write_ns = US(8), .read_access_ns = US(60),
        .read_bw = MBPS(3500), .write_bw = MBPS(3000),
        .page_read_ns = US(50), .page_prog_ns = US(500), .erase_ns = MS(3),
        .erase_tail_x100 = 300, .erase_tail_cap = 4,
        .cache_bytes = MIB(256), .flush_ns = US(900),
        .endurance = 3000,
    },
    {
        .name = "nvme-plp",
        .summary = "datacenter NVMe SSD with power-loss protection: ~60,000 fsync/s",
        .capacity = GIB(1024), .sector_bytes = 512, .page_bytes = KIB(16), .erase_bytes = MIB(16),
        .managed = 1, .op_permille = 280, .gc_low_blocks = 4, .wl_every = 256, .plp = 1,
        .cmd_read_ns = US(6), .cmd_write_ns = US(6), .read_access_ns = US(60),
        .read_bw = MBPS(3500), .write_bw = MBPS(3000),
        .page_read_ns = US(40), .page_prog_ns = US(8), .erase_ns = MS(3),
        .erase_tail_x100 = 300, .erase_tail_cap = 3,
        .cache_bytes = MIB(512), .flush_ns = US(5),
        .endurance = 10000,
    },
    {
        .name = "ram",
        .summary = "RAM disk: no latency, keeps data (for tests and the engine's own cost)",
        .capacity = MIB(64), .sector_bytes = 1, .page_bytes = KIB(4), .erase_bytes = KIB(64),
        .managed = 1, .op_permille = 70, .gc_low_blocks = 1,
        .read_bw = 1000000000000000000ull, .write_bw = 1000000000000000000ull,
        .cpu_ns = 50, /* time must move: a time-based test on it has to end */
    },
};
const size_t sts_n_sim_profiles = sizeof(sts_sim_profiles) / sizeof(sts_sim_profiles[0]);

const struct sts_sim_params *sts_sim_profile_find(const char *name)
{
    for (size_t i = 0; i < sts_n_sim_profiles; i++)
        if (strcmp(sts_sim_profiles[i].name, name) == 0)
            return &sts_sim_profiles[i];
    return NULL;
}

enum kind { SIZE, TIME, NUM, BW, VOLT, AMP };
/* (8 bytes a row on a 32-bit MCU: the table is part of the simulator's
 * flash, which docs/footprint.md holds to its budget) */
struct field {
    const char *key;
    uint16_t off;
    uint8_t kind;  /* enum kind */
    uint8_t width; /* bytes */
};
_Static_assert(sizeof(struct sts_sim_params) <= UINT16_MAX, "a field's offset fits 16 bits");
#define F(k, kind, member) {k, (uint16_t)offsetof(struct sts_sim_params, member), kind, \
                            (uint8_t)sizeof(((struct sts_sim_params *)0)->member)}
static const struct field fields[] = {
    F("capacity", SIZE, capacity), F("sector_bytes", SIZE, sector_bytes),
    F("page_bytes", SIZE, page_bytes), F("erase_bytes", SIZE, erase_bytes),
    F("managed", NUM, managed), F("prog_ands", NUM, prog_ands), F("plp", NUM, plp),
    F("no_ecc", NUM, no_ecc),
    F("op_permille", NUM, op_permille), F("gc_low_blocks", NUM, gc_low_blocks),
    F("wl_every", NUM, wl_every), F("cmd_read", TIME, cmd_read_ns),
    F("cmd_write", TIME, cmd_write_ns), F("read_access", TIME, read_access_ns),
    F("read_bw", BW, read_bw), F("write_bw", BW, write_bw),
    F("page_read", TIME, page_read_ns), F("page_prog", TIME, page_prog_ns),
    F("byte_prog", TIME, byte_prog_ns), F("byte_prog_next", TIME, byte_prog_next_ns),
    F("read_page_cross", TIME, read_page_cross_ns), F("read_unit_cross", TIME, read_unit_cross_ns),
    F("erase_time", TIME, erase_ns), F("erase_tail_x100", NUM, erase_tail_x100),
    F("erase_tail_cap", NUM, erase_tail_cap), F("erase_large", SIZE, erase_large_bytes),
    F("erase_large_time", TIME, erase_large_ns), F("erase_suspend", TIME, erase_suspend_ns),
    F("au", SIZE, au_bytes), F("open_aus", NUM, open_aus),
#if STS_SIM_DIRTY /* (a firmware's model keeps no lies: sim.h) */
    F("erases_to_zero", NUM, erases_to_zero),
#endif
    F("cache", SIZE, cache_bytes),
    F("flush_time", TIME, flush_ns), F("dip_bytes", SIZE, dip_bytes),
    F("dip_percent", NUM, dip_percent), F("cpu", TIME, cpu_ns), F("poll", TIME, poll_ns),
    F("fill_permille", NUM, fill_permille), F("endurance", NUM, endurance), F("bad_permille", NUM, bad_permille),
#if STS_SIM_ENERGY
    F("supply", VOLT, supply_mv), F("i_read", AMP, read_na), F("i_program", AMP, program_na),
    F("i_erase", AMP, erase_na), F("i_idle", AMP, idle_na),
#endif
};

#if STS_SIM_ENERGY
/* "3.3V", "3.3", "1800mV" into millivolts; "20mA", "10uA", "1.5A", "900nA"
 * into nanoamps (amp 1), each up to UINT32_MAX; -1 when it is not one. */
static int parse_electric(const char *text, int amp, uint64_t *out)
{
    char *end = NULL;
    double v = strtod(text, &end);
    if (end == text || !(v >= 0))
        return -1;
    double scale = amp ? (!strcmp(end, "A") ? 1e9 : !strcmp(end, "mA") ? 1e6
                          : !strcmp(end, "uA") ? 1e3 : !strcmp(end, "nA") ? 1 : 0)
                       : (!strcmp(end, "V") || !*end ? 1e3 : !strcmp(end, "mV") ? 1 : 0);
    if (!scale || v * scale > UINT32_MAX)
        return -1;
    *out = (uint64_t)(v * scale + 0.5);
    return 0;
}
#endif

int sts_sim_param_set(struct sts_sim_params *p, const char *key, const char *value)
{
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        if (strcmp(fields[i].key, key))
            continue;
        uint64_t v;
        int rc;
        switch (fields[i].kind) {
        case SIZE: rc = sts_parse_size(value, &v); break;
        case TIME: rc = sts_parse_duration(value, &v); break;
        case BW: rc = sts_parse_size(value, &v); break; /* bytes per second */
#if STS_SIM_ENERGY
        case VOLT: rc = parse_electric(value, 0, &v); break;
        case AMP: rc = parse_electric(value, 1, &v); break;
#endif
        default: rc = sts_parse_u64(value, &v); break;
        }
        if (rc)
            return STS_EINVAL;
        uint8_t *dst = (uint8_t *)p + fields[i].off;
        switch (fields[i].width) {
        case 1: /* the byte-wide fields are flags: managed, prog_ands, plp, no_ecc, erases_to_zero */
            if (v > 1)
                return STS_ERANGE;
            *dst = (uint8_t)v;
            break;
        case 4: {
            if (v > UINT32_MAX)
                return STS_ERANGE;
            uint32_t w = (uint32_t)v;
            memcpy(dst, &w, 4);
            break;
        }
        default: memcpy(dst, &v, 8); break;
        }
        return STS_OK;
    }
    return STS_ENOENT;
}
