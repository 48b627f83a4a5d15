/* CRC-32C at memory speed on a host (issue 43: with sensorlog on a
 * simulated medium, 78-87 % of the host's CPU went to sl_crc32c's 4-bit
 * table). The CPU's instruction where it has one, else slice-by-8; every
 * path computes what sl_crc32c computes (tests/host: RFC 3720's vectors
 * and random buffers at every alignment and length). Host only: the MCU
 * build keeps sl_crc32c's 64 bytes of table. */
#include "sensorlog/sl_crc_fast.h"

#include <stdatomic.h>
#include <string.h>
#include <threads.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <nmmintrin.h>
#define HW_NAME "sse4.2"
#define HW_TARGET __attribute__((target("sse4.2")))
#define HW_BYTE(c, b) _mm_crc32_u8((c), (b))
#define HW_WORD(c, w) ((uint32_t)_mm_crc32_u64((c), (w)))
static int hw_present(void)
{
    return __builtin_cpu_supports("sse4.2");
}
#elif defined(__aarch64__) && defined(__GNUC__) && defined(__linux__)
#include <arm_acle.h>
#include <asm/hwcap.h>
#include <sys/auxv.h>
#define HW_NAME "armv8-crc"
#define HW_TARGET __attribute__((target("+crc")))
#define HW_BYTE(c, b) __crc32cb((c), (b))
#define HW_WORD(c, w) __crc32cd((c), (w))
static int hw_present(void)
{
    return (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
}
#endif

/* ---- slice-by-8: eight table lookups for eight bytes ----------------- */
static uint32_t table[8][256];
static once_flag table_once = ONCE_FLAG_INIT;

static void table_build(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1; /* reflected 0x1EDC6F41 */
        table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int s = 1; s < 8; s++)
            table[s][i] = (table[s - 1][i] >> 8) ^ table[0][table[s - 1][i] & 0xFF];
}

uint32_t sl_crc32c_slice8(uint32_t crc, const void *data, size_t len)
{
    call_once(&table_once, table_build);
    const uint8_t *p = data;
    uint32_t c = ~crc;
    for (; len >= 8; p += 8, len -= 8) {
        /* little-endian by construction: the bytes, not a host word */
        uint32_t lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                           (uint32_t)p[3] << 24);
        c = table[7][lo & 0xFF] ^ table[6][(lo >> 8) & 0xFF] ^ table[5][(lo >> 16) & 0xFF] ^
            table[4][lo >> 24] ^ table[3][p[4]] ^ table[2][p[5]] ^ table[1][p[6]] ^
            table[0][p[7]];
    }
    while (len--)
        c = (c >> 8) ^ table[0][(c ^ *p++) & 0xFF];
    return ~c;
}

/* ---- the instruction --------------------------------------------------- */
#ifdef HW_NAME
HW_TARGET static uint32_t hw_crc(uint32_t crc, const uint8_t *p, size_t len)
{
    uint32_t c = ~crc;
    for (; len && ((uintptr_t)p & 7); len--)
        c = HW_BYTE(c, *p++);
    for (; len >= 8; p += 8, len -= 8) {
        uint64_t w;
        memcpy(&w, p, 8); /* aligned here; the instruction takes the host's (LE) word */
        c = HW_WORD(c, w);
    }
    while (len--)
        c = HW_BYTE(c, *p++);
    return ~c;
}
#endif

/* -1 not decided yet; decided once, the same by every thread */
static atomic_int hw_state = -1;

int sl_crc32c_hw_available(void)
{
    int s = atomic_load_explicit(&hw_state, memory_order_relaxed);
    if (s < 0) {
#ifdef HW_NAME
        s = hw_present();
#else
        s = 0;
#endif
        atomic_store_explicit(&hw_state, s, memory_order_relaxed);
    }
    return s;
}

uint32_t sl_crc32c_hw(uint32_t crc, const void *data, size_t len)
{
#ifdef HW_NAME
    if (sl_crc32c_hw_available())
        return hw_crc(crc, data, len);
#endif
    return sl_crc32c_slice8(crc, data, len);
}

uint32_t sl_crc32c_fast(void *ctx, uint32_t crc, const void *data, size_t len)
{
    (void)ctx;
    return sl_crc32c_hw(crc, data, len);
}

const char *sl_crc32c_fast_name(void)
{
#ifdef HW_NAME
    if (sl_crc32c_hw_available())
        return HW_NAME;
#endif
    return "slice-by-8";
}
