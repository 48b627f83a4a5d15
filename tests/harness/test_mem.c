#include "test_mem.h"

STS_TEST_BIG uint8_t sts_test_iobuf[STS_TEST_IOBUF_BYTES];
uint64_t sts_test_hist[STS_CTX_LATS * STS_HIST_BUCKETS];
STS_TEST_BIG uint64_t sts_test_sim_arena[STS_TEST_SIM_ARENA_BYTES / 8];
