/* card_regs.h: SD CID, CSD and SCR, and an eMMC's EXT_CSD, decoded from their
 * bytes. */
#include "storscope/card_regs.h"
#include "storscope/error.h"

#include <string.h>

/* Bits [hi:lo] of a register of n bytes sent most significant first, the
 * way the SD specification numbers them (bit 0 = the last byte's lowest). */
static uint64_t bits(const uint8_t *r, size_t n, unsigned hi, unsigned lo)
{
    uint64_t v = 0;
    for (unsigned b = hi + 1; b-- > lo;)
        v = v << 1 | ((r[n - 1 - b / 8] >> (b % 8)) & 1u);
    return v;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

int sts_hex_bytes(const char *hex, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int a = hexval(hex[2 * i]), b = a < 0 ? -1 : hexval(hex[2 * i + 1]);
        if (a < 0 || b < 0)
            return STS_EINVAL;
        out[i] = (uint8_t)(a << 4 | b);
    }
    const char *end = hex + 2 * n;
    return *end == '\0' || (*end == '\n' && end[1] == '\0') ? STS_OK : STS_EINVAL;
}

static void ascii(char *dst, const uint8_t *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = src[i] >= 0x20 && src[i] < 0x7F ? (char)src[i] : '?';
    dst[n] = '\0';
}

int sts_sd_cid_parse(const uint8_t cid[16], struct sts_sd_cid *out)
{
    memset(out, 0, sizeof(*out));
    out->manfid = cid[0];
    ascii(out->oemid, cid + 1, 2);
    ascii(out->name, cid + 3, 5);
    out->hwrev = cid[8] >> 4;
    out->fwrev = cid[8] & 0x0F;
    out->serial = (uint32_t)bits(cid, 16, 55, 24);
    out->year = (uint16_t)(2000 + bits(cid, 16, 19, 12));
    out->month = (uint8_t)bits(cid, 16, 11, 8);
    return out->month >= 1 && out->month <= 12 ? STS_OK : STS_EINVAL;
}

int sts_sd_csd_parse(const uint8_t csd[16], struct sts_sd_csd *out)
{
    memset(out, 0, sizeof(*out));
    unsigned structure = (unsigned)bits(csd, 16, 127, 126);
    out->version = (uint8_t)(structure + 1);
    /* TRAN_SPEED: a time value times a unit of 100 kbit/s .. 100 Mbit/s */
    static const uint8_t tenths[16] = {0, 10, 12, 13, 15, 20, 25, 30,
                                       35, 40, 45, 50, 55, 60, 70, 80};
    static const uint32_t unit[8] = {10000, 100000, 1000000, 10000000, 0, 0, 0, 0};
    unsigned ts = (unsigned)bits(csd, 16, 103, 96);
    out->max_rate = tenths[(ts >> 3) & 0xF] * unit[ts & 7];
    out->classes = (uint16_t)bits(csd, 16, 95, 84);
    if (structure == 0) { /* standard capacity: (C_SIZE+1) x 2^(C_SIZE_MULT+2) x 2^READ_BL_LEN */
        uint64_t c_size = bits(csd, 16, 73, 62), mult = bits(csd, 16, 49, 47);
        uint64_t bl_len = bits(csd, 16, 83, 80);
        out->capacity = (c_size + 1) << (mult + 2 + bl_len);
    } else if (structure == 1) { /* SDHC/SDXC: (C_SIZE+1) x 512 KiB */
        out->capacity = (bits(csd, 16, 69, 48) + 1) * 524288ull;
    } else if (structure == 2) { /* SDUC: a 28-bit C_SIZE */
        out->capacity = (bits(csd, 16, 75, 48) + 1) * 524288ull;
    } else {
        return STS_EINVAL;
    }
    return out->max_rate ? STS_OK : STS_EINVAL;
}

int sts_sd_ssr_parse(const uint8_t ssr[64], struct sts_sd_ssr *out)
{
    /* AU_SIZE's codes 1..15 (UHS_AU_SIZE uses 7..15 of the same table) */
    static const uint32_t au_kib[16] = {0,    16,   32,   64,    128,   256,   512,   1024,
                                        2048, 4096, 8192, 12288, 16384, 24576, 32768, 65536};
    static const uint8_t speed[5] = {0, 2, 4, 6, 10};
    memset(out, 0, sizeof(*out));
    unsigned width = (unsigned)bits(ssr, 64, 511, 510), sc = (unsigned)bits(ssr, 64, 447, 440);
    if (width == 1 || width == 3 || sc > 4)
        return STS_EINVAL;
    out->bus_width = width == 2 ? 4 : 1;
    out->speed_class = speed[sc];
    out->move_mbps = (unsigned)bits(ssr, 64, 439, 432);
    out->au_bytes = (uint64_t)au_kib[bits(ssr, 64, 431, 428)] * 1024;
    out->erase_aus = (unsigned)bits(ssr, 64, 423, 408);
    out->erase_timeout_s = (unsigned)bits(ssr, 64, 407, 402);
    out->erase_offset_s = (unsigned)bits(ssr, 64, 401, 400);
    out->uhs_grade = (unsigned)bits(ssr, 64, 399, 396);
    unsigned uau = (unsigned)bits(ssr, 64, 395, 392);
    out->uhs_au_bytes = uau >= 7 ? (uint64_t)au_kib[uau] * 1024 : 0;
    out->video_class = (unsigned)bits(ssr, 64, 391, 384);
    out->app_class = (unsigned)bits(ssr, 64, 339, 336);
    out->discard = (int)bits(ssr, 64, 313, 313);
    out->fule = (int)bits(ssr, 64, 312, 312);
    return STS_OK;
}

int sts_sd_scr_parse(const uint8_t scr[8], struct sts_sd_scr *out)
{
    memset(out, 0, sizeof(*out));
    if (bits(scr, 8, 63, 60) != 0)
        return STS_EINVAL; /* SCR structure 1.0 is the only one defined */
    unsigned spec = (unsigned)bits(scr, 8, 59, 56), spec3 = (unsigned)bits(scr, 8, 47, 47);
    unsigned spec4 = (unsigned)bits(scr, 8, 42, 42), specx = (unsigned)bits(scr, 8, 41, 38);
    const char *name = "?";
    if (spec == 0)
        name = "1.0";
    else if (spec == 1)
        name = "1.10";
    else if (spec == 2 && !spec3)
        name = "2.00";
    else if (spec == 2 && specx == 1)
        name = "5.xx";
    else if (spec == 2 && specx == 2)
        name = "6.xx";
    else if (spec == 2 && specx >= 3)
        name = specx == 3 ? "7.xx" : specx == 4 ? "8.xx" : "9.xx";
    else if (spec == 2 && spec4)
        name = "4.xx";
    else if (spec == 2)
        name = "3.0x";
    memcpy(out->spec, name, strlen(name) + 1);
    out->security = (uint8_t)bits(scr, 8, 54, 52);
    out->bus_widths = (uint8_t)bits(scr, 8, 51, 48);
    out->cmd_support = (uint8_t)bits(scr, 8, 35, 32);
    return STS_OK;
}

/* EXT_CSD byte offsets (JESD84-B51, 7.4) */
enum {
    XC_CACHE_SIZE = 249,     /* 4 bytes */
    XC_FIRMWARE = 254,       /* 8 bytes */
    XC_PRE_EOL = 267,
    XC_LIFE_A = 268,
    XC_LIFE_B = 269,
    XC_REV = 192,
    XC_SEC_COUNT = 212,      /* 4 bytes */
    XC_HC_ERASE_GRP = 224,
};

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int sts_mmc_ext_csd_parse(const uint8_t x[512], struct sts_mmc_ext_csd *out)
{
    static const char *const names[] = {"4.0", "4.1", "4.2", "4.3", "?", "4.41", "4.5", "5.0",
                                        "5.1"};
    memset(out, 0, sizeof(*out));
    out->rev = x[XC_REV];
    out->capacity = (uint64_t)le32(x + XC_SEC_COUNT) * 512u;
    if (out->rev >= sizeof(names) / sizeof(names[0]) || !out->capacity)
        return STS_EINVAL;
    memcpy(out->version, names[out->rev], strlen(names[out->rev]) + 1);
    out->erase_group = (uint32_t)x[XC_HC_ERASE_GRP] * 512u * 1024u;
    if (out->rev >= 5) /* CACHE_SIZE came with 4.5's cache; 4.41 reserved it (zero) */
        out->cache_kib = le32(x + XC_CACHE_SIZE);
    if (out->rev >= 7) { /* eMMC 5.0: firmware version and the health report */
        static const char hex[] = "0123456789abcdef";
        for (int i = 0; i < 8; i++) { /* bytes 254..261 in address order */
            uint8_t b = x[XC_FIRMWARE + i];
            out->firmware[2 * i] = hex[b >> 4];
            out->firmware[2 * i + 1] = hex[b & 15];
        }
        out->pre_eol = x[XC_PRE_EOL];
        out->life_a = x[XC_LIFE_A];
        out->life_b = x[XC_LIFE_B];
    }
    return STS_OK;
}
