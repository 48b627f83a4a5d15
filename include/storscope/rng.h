/* Seeded pseudo-random numbers (xoshiro256** seeded by splitmix64): the same
 * seed gives the same offsets on every platform, so runs can be replayed. */
#ifndef STORSCOPE_RNG_H
#define STORSCOPE_RNG_H

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

#ifdef __cplusplus
}
#endif
#endif
