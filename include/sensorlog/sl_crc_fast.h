/* CRC-32C for sensorlog on a host CPU (Linux boards, PCs, the simulator):
 * what sl_crc32c() computes, at memory speed. Not built for MCUs, whose
 * default is sl_crc32c's 64-byte table or a CRC peripheral. */
#ifndef SENSORLOG_SL_CRC_FAST_H
#define SENSORLOG_SL_CRC_FAST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* For sl_config.crc32c (ctx unused): the CPU's CRC32C instruction where it
 * has one, chosen at run time (x86-64 SSE4.2; AArch64's CRC extension),
 * else slice-by-8 (8 KiB of tables, built on first use). `crc` is a
 * previous result to continue from, 0 to start, as for sl_crc32c. */
uint32_t sl_crc32c_fast(void *ctx, uint32_t crc, const void *data, size_t len);

/* The implementation sl_crc32c_fast uses here: "sse4.2", "armv8-crc" or
 * "slice-by-8". */
const char *sl_crc32c_fast_name(void);

/* Each implementation on its own, for tests and benchmarks: slice-by-8
 * always; the instruction's only when sl_crc32c_hw_available() (else it
 * returns the slice-by-8 result). */
uint32_t sl_crc32c_slice8(uint32_t crc, const void *data, size_t len);
int sl_crc32c_hw_available(void);
uint32_t sl_crc32c_hw(uint32_t crc, const void *data, size_t len);

#ifdef __cplusplus
}
#endif
#endif
