/* sensorlog's host CRC-32C (sl_crc_fast.h) against RFC 3720's vectors
 * (appendix B.4) and against a bitwise CRC written here from the
 * polynomial, on random buffers at every alignment and length, continued
 * across splits - each implementation the host has, and the MCU's 4-bit
 * table, must agree to the bit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "sensorlog/sensorlog.h"
#include "sensorlog/sl_crc_fast.h"

/* The definition, a bit at a time: reflected 0x1EDC6F41, in and out
 * inverted. */
static uint32_t bitwise(uint32_t crc, const uint8_t *p, size_t n)
{
    uint32_t c = ~crc;
    while (n--) {
        c ^= *p++;
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1)));
    }
    return ~c;
}

static uint32_t fast(uint32_t crc, const void *p, size_t n)
{
    return sl_crc32c_fast(NULL, crc, p, n);
}

typedef uint32_t (*crc_fn)(uint32_t, const void *, size_t);
static const crc_fn impls[] = {sl_crc32c, sl_crc32c_slice8, sl_crc32c_hw, fast};
#define N_IMPLS (sizeof(impls) / sizeof(impls[0]))

static void rfc3720_vectors(void **state)
{
    (void)state;
    uint8_t zeros[32], ones[32], inc[32], dec[32];
    memset(zeros, 0, sizeof(zeros));
    memset(ones, 0xFF, sizeof(ones));
    for (int i = 0; i < 32; i++) {
        inc[i] = (uint8_t)i;
        dec[i] = (uint8_t)(31 - i);
    }
    /* B.4's iSCSI SCSI Read (10) command PDU */
    static const uint8_t pdu[48] = {0x01, 0xc0, [16] = 0x14, [22] = 0x04, [27] = 0x14,
                                    [31] = 0x18, [32] = 0x28, [40] = 0x02};
    for (size_t i = 0; i < N_IMPLS; i++) {
        assert_int_equal(impls[i](0, zeros, 32), 0x8A9136AAu);
        assert_int_equal(impls[i](0, ones, 32), 0x62A8AB43u);
        assert_int_equal(impls[i](0, inc, 32), 0x46DD794Eu);
        assert_int_equal(impls[i](0, dec, 32), 0x113FDB5Cu);
        assert_int_equal(impls[i](0, pdu, sizeof(pdu)), 0xD9963A56u);
        assert_int_equal(impls[i](0, "123456789", 9), 0xE3069283u); /* the check value */
        assert_int_equal(impls[i](0, "", 0), 0);
    }
}

static void random_buffers_every_alignment_and_length(void **state)
{
    (void)state;
    static uint8_t buf[4096 + 16];
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < sizeof(buf); i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        buf[i] = (uint8_t)x;
    }
    for (size_t off = 0; off < 16; off++)
        for (size_t len = 0; len <= 300; len++) {
            uint32_t want = bitwise(0, buf + off, len);
            for (size_t i = 0; i < N_IMPLS; i++)
                assert_int_equal(impls[i](0, buf + off, len), want);
        }
    /* a whole chunk, and continued across every split of a short span
     * (sensorlog sums a header, then its payload, from the first's result) */
    uint32_t whole = bitwise(0, buf + 3, 4096);
    for (size_t i = 0; i < N_IMPLS; i++)
        assert_int_equal(impls[i](0, buf + 3, 4096), whole);
    uint32_t span = bitwise(0, buf + 1, 97);
    for (size_t cut = 0; cut <= 97; cut++)
        for (size_t i = 0; i < N_IMPLS; i++)
            assert_int_equal(impls[i](impls[i](0, buf + 1, cut), buf + 1 + cut, 97 - cut), span);
}

static void the_host_names_what_it_uses(void **state)
{
    (void)state;
    const char *name = sl_crc32c_fast_name();
    if (sl_crc32c_hw_available())
        assert_true(!strcmp(name, "sse4.2") || !strcmp(name, "armv8-crc"));
    else
        assert_string_equal(name, "slice-by-8");
    print_message("CRC-32C here: %s\n", name);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rfc3720_vectors),
        cmocka_unit_test(random_buffers_every_alignment_and_length),
        cmocka_unit_test(the_host_names_what_it_uses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
