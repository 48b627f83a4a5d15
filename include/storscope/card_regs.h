/* SD card registers as the card sends them (and Linux shows them in
 * /sys/block/mmcblkN/device/{cid,csd,scr} as hex): identity, capacity and
 * the spec and speed the card claims - what `storscope probe` reports
 * beside what it measures (a counterfeit's CSD claims the fake capacity).
 * Bit positions from the SD Physical Layer Simplified Specification
 * (CID 5.2, CSD 5.3, SCR 5.6). Portable: no heap, no stdio. */
#ifndef STORSCOPE_CARD_REGS_H
#define STORSCOPE_CARD_REGS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sts_sd_cid {
    uint8_t manfid;        /* MID: JEDEC-assigned by the SD Association */
    char oemid[3];         /* OID: two ASCII characters */
    char name[6];          /* PNM: five ASCII characters */
    uint8_t hwrev, fwrev;  /* PRV: n.m */
    uint32_t serial;       /* PSN */
    uint16_t year;         /* MDT: 2000 + y */
    uint8_t month;         /* 1..12 */
};

struct sts_sd_csd {
    uint8_t version;       /* CSD_STRUCTURE + 1: 1 standard, 2 SDHC/SDXC, 3 SDUC */
    uint64_t capacity;     /* bytes the card claims */
    uint32_t max_rate;     /* TRAN_SPEED, bits per second (25 Mbit/s default speed) */
    uint16_t classes;      /* CCC: command classes supported (bit n = class n) */
};

struct sts_sd_scr {
    char spec[8];          /* "1.0", "1.10", "2.00", "3.0x", "4.xx", "5.xx", "6.xx" ... */
    uint8_t bus_widths;    /* bit 0: 1 bit, bit 2: 4 bits */
    uint8_t security;      /* 2 SDSC, 3 SDHC, 4 SDXC */
    uint8_t cmd_support;   /* bit 0 CMD20 (speed class), bit 1 CMD23, bit 2 CMD48/49, bit 3 CMD58/59 */
};

/* An SD card's SD Status (ACMD13: 512 bits, SD Physical Layer Simplified
 * Specification, "SD Status"): the classes printed on the label and the
 * allocation unit the card manages. Linux gives it as sysfs `ssr`. */
struct sts_sd_ssr {
    unsigned bus_width;      /* DAT_BUS_WIDTH [511:510]: 1 or 4 data lines (0 unknown) */
    unsigned speed_class;    /* SPEED_CLASS [447:440] as the label's number: 0, 2, 4, 6, 10 */
    unsigned move_mbps;      /* PERFORMANCE_MOVE [439:432], MB/s (0: not defined) */
    uint64_t au_bytes;       /* AU_SIZE [431:428]: 16 KiB .. 64 MiB (0: not defined) */
    unsigned erase_aus;      /* ERASE_SIZE [423:408]: AUs one erase covers (0: none given) */
    unsigned erase_timeout_s, erase_offset_s; /* ERASE_TIMEOUT [407:402], ERASE_OFFSET [401:400] */
    unsigned uhs_grade;      /* UHS_SPEED_GRADE [399:396]: 0, 1 (U1), 3 (U3) */
    uint64_t uhs_au_bytes;   /* UHS_AU_SIZE [395:392]: 1 MiB .. 64 MiB (0: none) */
    unsigned video_class;    /* VIDEO_SPEED_CLASS [391:384]: 0, 6, 10, 30, 60, 90 (V6 ..) */
    unsigned app_class;      /* APP_PERF_CLASS [339:336]: 0, 1 (A1), 2 (A2) */
    int discard, fule;       /* DISCARD_SUPPORT [313], FULE_SUPPORT [312] (SD 5.1 on) */
};

/* An eMMC's EXT_CSD, the 512-byte register CMD8 returns (JEDEC JESD84-B51,
 * 7.4): what mmc-utils' `mmc extcsd read` says about the part's revision,
 * size, cache, firmware and wear. Bytes are little-endian where a field
 * spans several. */
struct sts_mmc_ext_csd {
    uint8_t rev;            /* EXT_CSD_REV [192]: 5 = eMMC 4.41, 6 = 4.5/4.51, 7 = 5.0, 8 = 5.1 */
    char version[8];        /* rev as the standard names it ("5.1"); "?" when unknown */
    uint64_t capacity;      /* SEC_COUNT [215:212] x 512 bytes */
    uint32_t cache_kib;     /* CACHE_SIZE [252:249] as mmc-utils reads it (KiB); 0 = none */
    char firmware[17];      /* FIRMWARE_VERSION [261:254]: bytes 254..261 as hex (rev >= 7) */
    uint8_t life_a, life_b; /* DEVICE_LIFE_TIME_EST_TYP_A/B [268]/[269]: 1 = 0-10 % used
                               ... 10 = 90-100 %, 11 = beyond; 0 = not given (rev < 7) */
    uint8_t pre_eol;        /* PRE_EOL_INFO [267]: 1 normal, 2 warning, 3 urgent; 0 not given */
    uint32_t erase_group;   /* HC_ERASE_GRP_SIZE [224] x 512 KiB: the erase unit, bytes */
};

/* Parses "035054534c31..." (hex, 32 digits for CID/CSD, 16 for SCR, an
 * optional newline) into bytes; STS_EINVAL on anything else. */
int sts_hex_bytes(const char *hex, uint8_t *out, size_t n);

int sts_sd_cid_parse(const uint8_t cid[16], struct sts_sd_cid *out);
int sts_sd_csd_parse(const uint8_t csd[16], struct sts_sd_csd *out);
int sts_sd_scr_parse(const uint8_t scr[8], struct sts_sd_scr *out);
/* STS_EINVAL when a field holds a value the specification reserves (a
 * speed class above 4, a bus width code of 1 or 3). */
int sts_sd_ssr_parse(const uint8_t ssr[64], struct sts_sd_ssr *out);
/* STS_EINVAL when the register cannot be one (no revision this parser knows
 * of the field layout, 0..8, or no sector count). */
int sts_mmc_ext_csd_parse(const uint8_t ext_csd[512], struct sts_mmc_ext_csd *out);

#ifdef __cplusplus
}
#endif
#endif
