/* Seeded pseudo-random numbers (xoshiro256** seeded by splitmix64): the same
 * seed gives the same offsets on every platform, so runs can be replayed. */
#ifndef STORSCOPE_RNG_H
#define STORSCOPE_RNG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sts_rng {
    uint64_t s[4];
};

void sts_rng_seed(struct sts_rng *r, uint64_t seed);
uint64_t sts_rng_next(struct sts_rng *r);
/* Uniform in [0, bound); bound 0 returns 0. Unbiased (rejection sampling). */
uint64_t sts_rng_below(struct sts_rng *r, uint64_t bound);
/* splitmix64 step: also used as a stateless hash for data patterns. */
uint64_t sts_mix64(uint64_t x);
/* The workloads' offset-stamped data: the byte at file offset o is byte
 * o % 8 of sts_mix64(seed ^ o / 8), so it depends on o and the seed only
 * and a read of the right length from the wrong place is caught. */
void sts_pattern_fill(uint8_t *buf, uint64_t off, size_t len, uint64_t seed);

#ifdef __cplusplus
}
#endif
#endif
