/* The card registers storscope reads (storscope/card_regs.h): an SD card's
 * CID, CSD, SCR and SD Status, and an eMMC's EXT_CSD, decoded as the kernel
 * and the published layouts (SD Physical Layer spec, JEDEC) lay them out. */
#include "sts_test.h"
#include "storscope/card_regs.h"
#include "storscope/error.h"

#include <string.h>

/* ---- card registers ------------------------------------------------------ */
/* Recorded from a SanDisk-labelled 16 GB microSD under Linux
 * (/sys/class/mmc_host/mmc0/mmc0:0007/{cid,csd,scr}), with the kernel's
 * own decoding of the same card as the reference: manfid 0x000003, oemid
 * 0x5054, name SL16G, hwrev 0x3, fwrev 0x0, serial 0xda0a5d93, date
 * 01/2016 (codesec7.rssing.com, a NuttX driver writer's notes). */
static const char cid_hex[] = "035054534c31364730da0a5d93010101\n";
static const char csd_hex[] = "400e00325b59000073a77f800a400001\n";
static const char scr_hex[] = "0235800201000000\n";

static void sd_registers_decode_as_the_kernel_does(void)
{
    uint8_t cid[16], csd[16], scr[8];
    CHECK_EQ(sts_hex_bytes(cid_hex, cid, 16), 0);
    CHECK_EQ(sts_hex_bytes(csd_hex, csd, 16), 0);
    CHECK_EQ(sts_hex_bytes(scr_hex, scr, 8), 0);
    struct sts_sd_cid c;
    CHECK_EQ(sts_sd_cid_parse(cid, &c), 0);
    CHECK_EQ(c.manfid, 0x03);
    CHECK_STR(c.oemid, "PT"); /* 0x5054 */
    CHECK_STR(c.name, "SL16G");
    CHECK_EQ(c.hwrev, 3);
    CHECK_EQ(c.fwrev, 0);
    CHECK_EQ(c.serial, 0xda0a5d93u);
    CHECK_EQ(c.year, 2016);
    CHECK_EQ(c.month, 1);
    struct sts_sd_csd d;
    CHECK_EQ(sts_sd_csd_parse(csd, &d), 0);
    CHECK_EQ(d.version, 2);          /* SDHC: a 16 GB card */
    CHECK(d.capacity > 14500000000ull && d.capacity <= 16000000000ull);
    CHECK_EQ(d.capacity % 524288u, 0);
    CHECK_EQ(d.max_rate, 25000000u); /* default speed: 25 Mbit/s */
    CHECK(d.classes & (1u << 5));    /* class 5: erase, which every SD card has */
    struct sts_sd_scr r;
    CHECK_EQ(sts_sd_scr_parse(scr, &r), 0);
    CHECK_STR(r.spec, "3.0x");
    CHECK_EQ(r.security, 3);         /* SDHC */
    CHECK_EQ(r.bus_widths, 0x5);     /* 1 and 4 bits */
    CHECK_EQ(r.cmd_support & 0x2, 0x2); /* CMD23 */
    /* bad text is refused, not half-read */
    CHECK_EQ(sts_hex_bytes("03505454", cid, 16), STS_EINVAL);
    CHECK_EQ(sts_hex_bytes("zz5054534c31364730da0a5d93010101", cid, 16), STS_EINVAL);
    CHECK_EQ(sts_hex_bytes("035054534c31364730da0a5d9301010100", cid, 16), STS_EINVAL);
    /* a standard-capacity CSD (version 1): C_SIZE 4095, C_SIZE_MULT 7,
     * READ_BL_LEN 9 is the largest: 4096 x 512 x 512 = 1 GiB */
    uint8_t v1[16] = {0};
    v1[3] = 0x32;                               /* 25 Mbit/s */
    v1[5] = 0x09;                               /* READ_BL_LEN [83:80] = 9 */
    v1[6] = 0x03; v1[7] = 0xFF; v1[8] = 0xC0;   /* C_SIZE [73:62] = 4095 */
    v1[9] = 0x03; v1[10] = 0x80;                /* C_SIZE_MULT [49:47] = 7 */
    CHECK_EQ(sts_sd_csd_parse(v1, &d), 0);
    CHECK_EQ(d.version, 1);
    CHECK_EQ(d.capacity, 1ull << 30);
}

/* SD Status registers laid out by hand, byte by byte, from the SD
 * Physical Layer Simplified Specification's table (bit 511 is byte 0's
 * top bit): what a label's classes and the card's AU come out as. */
static void sd_status_decodes_as_the_sd_spec_lays_it_out(void)
{
    uint8_t r[64];
    struct sts_sd_ssr d;
    /* a UHS card: 4 data lines, Class 10, U3, V30, A2, 4 MiB AUs erased 8
     * at a time (10 s, offset 1 s), UHS AU 4 MiB, discard supported */
    memset(r, 0, sizeof(r));
    r[0] = 0x80;             /* DAT_BUS_WIDTH [511:510] = 10b: 4 lines */
    r[8] = 0x04;             /* SPEED_CLASS [447:440] = 4: Class 10 */
    r[9] = 90;               /* PERFORMANCE_MOVE [439:432]: 90 MB/s */
    r[10] = 0x90;            /* AU_SIZE [431:428] = 9: 4 MiB */
    r[11] = 0x00, r[12] = 8; /* ERASE_SIZE [423:408] = 8 AUs */
    r[13] = 10 << 2 | 1;     /* ERASE_TIMEOUT [407:402] 10, ERASE_OFFSET [401:400] 1 */
    r[14] = 0x39;            /* UHS_SPEED_GRADE [399:396] 3, UHS_AU_SIZE [395:392] 9 */
    r[15] = 30;              /* VIDEO_SPEED_CLASS [391:384] = 30 */
    r[21] = 0x02;            /* APP_PERF_CLASS [339:336] = 2: A2 */
    r[24] = 0x02;            /* DISCARD_SUPPORT [313] (FULE [312] clear) */
    CHECK_EQ(sts_sd_ssr_parse(r, &d), 0);
    CHECK_EQ(d.bus_width, 4u);
    CHECK_EQ(d.speed_class, 10u);
    CHECK_EQ(d.move_mbps, 90u);
    CHECK_EQ(d.au_bytes, 4ull << 20);
    CHECK_EQ(d.erase_aus, 8u);
    CHECK_EQ(d.erase_timeout_s, 10u);
    CHECK_EQ(d.erase_offset_s, 1u);
    CHECK_EQ(d.uhs_grade, 3u);
    CHECK_EQ(d.uhs_au_bytes, 4ull << 20);
    CHECK_EQ(d.video_class, 30u);
    CHECK_EQ(d.app_class, 2u);
    CHECK_EQ(d.discard, 1);
    CHECK_EQ(d.fule, 0);
    /* an old Class 4 card on one line, 1 MiB AUs, SD's 12 MiB code */
    memset(r, 0, sizeof(r));
    r[8] = 0x02;
    r[10] = 0x70;
    CHECK_EQ(sts_sd_ssr_parse(r, &d), 0);
    CHECK_EQ(d.bus_width, 1u);
    CHECK_EQ(d.speed_class, 4u);
    CHECK_EQ(d.au_bytes, 1ull << 20);
    CHECK_EQ(d.uhs_grade + d.video_class + d.app_class + d.uhs_au_bytes, 0);
    r[10] = 0xB0;
    CHECK_EQ(sts_sd_ssr_parse(r, &d), 0);
    CHECK_EQ(d.au_bytes, 12ull << 20);
    r[24] = 0x01; /* FULE alone */
    CHECK_EQ(sts_sd_ssr_parse(r, &d), 0);
    CHECK_EQ(d.fule + 2 * d.discard, 1);
    /* reserved codes: not an SD Status */
    r[0] = 0x40; /* bus width 01b */
    CHECK_EQ(sts_sd_ssr_parse(r, &d), STS_EINVAL);
    r[0] = 0x00;
    r[8] = 5; /* speed class 5 */
    CHECK_EQ(sts_sd_ssr_parse(r, &d), STS_EINVAL);
}

/* An EXT_CSD laid out by hand from JESD84-B51's table (7.4), as three
 * parts would send it: a worn eMMC 5.1, a fresh 5.0, an old 4.5 part that
 * predates the health report. */
static void put_le32(uint8_t *x, unsigned at, uint32_t v)
{
    for (unsigned i = 0; i < 4; i++)
        x[at + i] = (uint8_t)(v >> (8 * i));
}

static void mmc_ext_csd_decodes_as_jedec_lays_it_out(void)
{
    static uint8_t x[512];
    struct sts_mmc_ext_csd e;
    /* worn 5.1: 8 GB (15,269,888 sectors), 512 KiB cache, 90-100 % of its
     * life used in type A cells, 80-90 % in B, pre-EOL urgent */
    memset(x, 0, sizeof(x));
    x[192] = 8;
    put_le32(x, 212, 15269888u);
    put_le32(x, 249, 512u);
    const uint8_t fw[8] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08};
    memcpy(x + 254, fw, 8);
    x[224] = 1;    /* erase groups of 512 KiB */
    x[267] = 0x03; /* urgent */
    x[268] = 0x0A;
    x[269] = 0x09;
    CHECK_EQ(sts_mmc_ext_csd_parse(x, &e), 0);
    CHECK_EQ(e.rev, 8);
    CHECK_STR(e.version, "5.1");
    CHECK_EQ(e.capacity, 15269888ull * 512u);
    CHECK_EQ(e.cache_kib, 512u);
    CHECK_STR(e.firmware, "0102030405060708");
    CHECK_EQ(e.erase_group, 512u * 1024u);
    CHECK_EQ(e.pre_eol, 3);
    CHECK_EQ(e.life_a, 10);
    CHECK_EQ(e.life_b, 9);
    /* fresh 5.0: 0-10 % used, normal, a 4 GiB part without a cache */
    memset(x, 0, sizeof(x));
    x[192] = 7;
    put_le32(x, 212, 8388608u);
    x[267] = 0x01;
    x[268] = 0x01;
    x[269] = 0x01;
    x[224] = 8;
    CHECK_EQ(sts_mmc_ext_csd_parse(x, &e), 0);
    CHECK_STR(e.version, "5.0");
    CHECK_EQ(e.capacity, 4ull << 30);
    CHECK_EQ(e.cache_kib, 0u);
    CHECK_EQ(e.erase_group, 4u << 20);
    CHECK_EQ((unsigned)e.pre_eol * 100 + e.life_a * 10 + e.life_b, 111u);
    /* old 4.5: bytes 254..269 were reserved then: whatever they hold is
     * not a health report, and none is invented */
    memset(x, 0xA5, sizeof(x));
    x[192] = 6;
    put_le32(x, 212, 7634944u);
    put_le32(x, 249, 256u);
    CHECK_EQ(sts_mmc_ext_csd_parse(x, &e), 0);
    CHECK_STR(e.version, "4.5");
    CHECK_EQ(e.cache_kib, 256u);
    CHECK_EQ(e.pre_eol, 0);
    CHECK_EQ(e.life_a, 0);
    CHECK_EQ(e.firmware[0], '\0');
    /* what cannot be an EXT_CSD is refused */
    x[192] = 9;
    CHECK_EQ(sts_mmc_ext_csd_parse(x, &e), STS_EINVAL);
    x[192] = 8;
    put_le32(x, 212, 0);
    CHECK_EQ(sts_mmc_ext_csd_parse(x, &e), STS_EINVAL);
}

const struct sts_test_case test_card_regs_cases[] = {
    {"sd_status_decodes_as_the_sd_spec_lays_it_out", sd_status_decodes_as_the_sd_spec_lays_it_out},
    {"mmc_ext_csd_decodes_as_jedec_lays_it_out", mmc_ext_csd_decodes_as_jedec_lays_it_out},
    {"sd_registers_decode_as_the_kernel_does", sd_registers_decode_as_the_kernel_does},
    {NULL, NULL},
};
