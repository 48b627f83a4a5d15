#include "storscope/rng.h"

#include <string.h>

uint64_t sts_mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

void sts_rng_seed(struct sts_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++) {
        seed += 0x9e3779b97f4a7c15ull;
        r->s[i] = sts_mix64(seed);
    }
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t sts_rng_next(struct sts_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t sts_rng_below(struct sts_rng *r, uint64_t bound)
{
    if (bound == 0)
        return 0;
    /* Reject the short top range so every value is equally likely. */
    uint64_t limit = UINT64_MAX - (UINT64_MAX % bound);
    uint64_t x;
    do {
        x = sts_rng_next(r);
    } while (x >= limit);
    return x % bound;
}

void sts_pattern_fill(uint8_t *buf, uint64_t off, size_t len, uint64_t seed)
{
    size_t i = 0;
    /* byte by byte up to an 8-byte boundary of the file offset */
    while (i < len && ((off + i) & 7)) {
        uint64_t o = off + i;
        buf[i++] = (uint8_t)(sts_mix64(seed ^ (o >> 3)) >> (8 * (o & 7)));
    }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* whole words: byte k of a word is bits 8k..8k+7, i.e. little-endian */
    for (; i + 8 <= len; i += 8) {
        uint64_t w = sts_mix64(seed ^ ((off + i) >> 3));
        memcpy(buf + i, &w, 8);
    }
#endif
    while (i < len) {
        uint64_t o = off + i;
        buf[i++] = (uint8_t)(sts_mix64(seed ^ (o >> 3)) >> (8 * (o & 7)));
    }
}
