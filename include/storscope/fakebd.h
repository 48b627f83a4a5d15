/* fakebd: a counterfeit card. It claims more capacity than the device under
 * it holds; commands beyond the real size either alias (address modulo the
 * real size: the card wraps round and overwrites its own start, the common
 * fake) or are lost (writes accepted and dropped, reads return zeros). The
 * ground truth that `storscope probe` is checked against.
 *
 * A controller may also keep the last blocks written in RAM and answer
 * reads of them from there (fake_cache=): a check that writes a block and
 * reads it straight back sees it, wherever the card put it or lost it.
 *
 * From the command line, on sim: targets:
 *     sim:PROFILE,fake=REAL_SIZE[,fake_lost=1][,fake_cache=SIZE]
 * the model then holds REAL_SIZE and the target claims the profile's
 * capacity. Portable: no heap, no OS calls (the cache's memory is the
 * caller's). */
#ifndef STORSCOPE_FAKEBD_H
#define STORSCOPE_FAKEBD_H

#include "storscope/device.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sts_fakebd {
    struct sts_bd lower;   /* the real medium: [0, real) */
    uint64_t claimed;      /* bytes the card says it holds */
    uint64_t real;         /* bytes it holds: the lower device's capacity */
    int lost;              /* 1: beyond real, writes vanish; 0: they alias */
    /* the controller's cache: the last cache_n blocks of STS_FAKEBD_CACHE_BLOCK
     * bytes written, by the address the host gave; 0 blocks: none */
    uint8_t *cache;        /* cache_n blocks of data */
    uint64_t *cache_addr;  /* each block's address; UINT64_MAX: empty */
    uint32_t *cache_index; /* open hash, 2 x cache_n slots: block + 1, 0 empty */
    uint32_t cache_n, cache_slots, cache_next;
};

#define STS_FAKEBD_CACHE_BLOCK 512u

/* The memory a cache of `bytes` needs (its blocks, addresses and index). */
size_t sts_fakebd_cache_bytes(uint64_t bytes);

/* Wraps `lower` (whose capacity is the real size); *out claims `claimed`
 * bytes. STS_EINVAL unless real < claimed and real is a multiple of the
 * lower device's erase block. */
int sts_fakebd_init(struct sts_fakebd *f, const struct sts_bd *lower, uint64_t claimed,
                    int lost, struct sts_bd *out);
/* Gives the card a cache of `bytes` (a multiple of STS_FAKEBD_CACHE_BLOCK)
 * in `mem` (sts_fakebd_cache_bytes(bytes), 8-byte aligned). Only whole,
 * aligned blocks written are kept; a write that covers part of one drops
 * it; reads see the newest. A flush keeps them: the controller's copy
 * stays readable, as on the fakes f3 meets. */
int sts_fakebd_set_cache(struct sts_fakebd *f, void *mem, uint64_t bytes);

#ifdef __cplusplus
}
#endif
#endif
