/* Large buffers shared by the portable tests. On the firmware they live in
 * external RAM (PSRAM on the AN505), on the host in ordinary static memory. */
#ifndef STS_TEST_MEM_H
#define STS_TEST_MEM_H

#include <stdint.h>

#include "storscope/rng.h"
#include "storscope/sim.h"
#include "storscope/suite.h"

#ifdef STS_FIRMWARE
#define STS_TEST_BIG __attribute__((section(".psram"), aligned(4096)))
#else
#define STS_TEST_BIG __attribute__((aligned(4096)))
#endif

#define STS_TEST_IOBUF_BYTES (2u * 1024u * 1024u) /* the study's largest chunk */
extern uint8_t sts_test_iobuf[STS_TEST_IOBUF_BYTES];
extern uint64_t sts_test_hist[STS_CTX_LATS * STS_HIST_BUCKETS];
/* A simulator arena for the sensorlog tests (one test at a time uses it). */
#define STS_TEST_SIM_ARENA_BYTES (1536u * 1024u)
extern uint64_t sts_test_sim_arena[STS_TEST_SIM_ARENA_BYTES / 8];

/* XORs mask into the byte a simulated medium stores at addr (wear, a
 * disturbed cell): -1 when nothing is stored there. */
static inline int sts_test_flip(struct sts_sim *s, uint64_t addr, uint8_t mask)
{
    uint32_t pb = s->p.page_bytes, page = (uint32_t)(addr / pb);
    if (!s->store_map[page])
        return -1;
    s->store[(size_t)(s->store_map[page] - 1) * pb + addr % pb] ^= mask;
    return 0;
}

/* Record k of the sensorlog tests: 10..29 bytes that follow from k, so a
 * record returned from the wrong place, or damaged, does not check. */
static inline size_t sts_test_rec_bytes(uint64_t k, uint8_t *out)
{
    size_t len = 10 + (size_t)(sts_mix64(k) % 20);
    for (size_t i = 0; i < len; i++)
        out[i] = (uint8_t)(sts_mix64(k * 977 + i) >> 24);
    return len;
}

#endif
