/* What sensorlog's CRC-32C costs a byte on the MCU (issue 43.3): the MCU
 * build keeps sl_crc32c's 64-byte table, and this measures it on a
 * Cortex-M33 under QEMU, in instructions (-icount shift=0: one instruction
 * is one ns of guest time). QEMU models no pipeline, so what it gives is
 * the instruction count; a Cortex-M33 takes at least one cycle for each,
 * two for a load that cannot be pipelined. It first checks RFC 3720's
 * vectors, so a CRC that computes nothing fast does not pass. One line
 * for scripts/footprint.sh; exit 0 only when the vectors check. */
#include "board.h"

#include "sensorlog/sensorlog.h"
#include "storscope/clock.h"
#include "storscope/port.h"

#include <stdint.h>

#define BYTES 65536u

static uint8_t buf[BYTES];

static void put_u(uint64_t v)
{
    char d[24];
    int n = 0;
    do
        d[n++] = (char)('0' + v % 10);
    while (v /= 10);
    while (n)
        board_write(&d[--n], 1);
}

int main(void)
{
    board_init();
    /* RFC 3720, B.4: 32 bytes of zeros, of 0xFF, and ascending */
    static const uint32_t want[3] = {0x8A9136AAu, 0x62A8AB43u, 0x46DD794Eu};
    int ok = 1;
    for (int v = 0; v < 3; v++) {
        for (int i = 0; i < 32; i++)
            buf[i] = (uint8_t)(v == 0 ? 0 : v == 1 ? 0xFF : i);
        ok &= sl_crc32c(0, buf, 32) == want[v];
    }
    uint32_t x = 0x9E3779B9u;
    for (uint32_t i = 0; i < BYTES; i++) { /* xorshift: any bytes, not a pattern */
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        buf[i] = (uint8_t)x;
    }
    const struct sts_clock *clk = sts_port_clock();
    uint64_t t0 = sts_clock_now(clk);
    volatile uint32_t sink = sl_crc32c(0, buf, BYTES);
    uint64_t instructions = sts_clock_now(clk) - t0;
    (void)sink;
    uint64_t hundredths = (instructions * 100 + BYTES / 2) / BYTES;
    board_puts("crc32c ");
    board_puts(ok ? "vectors ok" : "vectors WRONG");
    board_puts(", sl_crc32c over ");
    put_u(BYTES);
    board_puts(" bytes: ");
    put_u(instructions);
    board_puts(" instructions, ");
    put_u(hundredths / 100);
    board_puts(".");
    put_u(hundredths / 10 % 10);
    put_u(hundredths % 10);
    board_puts(" a byte\n");
    board_exit(ok ? 0 : 1);
}
