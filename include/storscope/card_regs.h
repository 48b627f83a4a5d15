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

/* Parses "035054534c31..." (hex, 32 digits for CID/CSD, 16 for SCR, an
 * optional newline) into bytes; STS_EINVAL on anything else. */
int sts_hex_bytes(const char *hex, uint8_t *out, size_t n);

int sts_sd_cid_parse(const uint8_t cid[16], struct sts_sd_cid *out);
int sts_sd_csd_parse(const uint8_t csd[16], struct sts_sd_csd *out);
int sts_sd_scr_parse(const uint8_t scr[8], struct sts_sd_scr *out);

#ifdef __cplusplus
}
#endif
#endif
