/* fakebd: a counterfeit card. It claims more capacity than the device under
 * it holds; commands beyond the real size either alias (address modulo the
 * real size: the card wraps round and overwrites its own start, the common
 * fake) or are lost (writes accepted and dropped, reads return zeros). The
 * ground truth that `storscope probe` is checked against.
 *
 * From the command line, on sim: targets:
 *     sim:PROFILE,fake=REAL_SIZE[,fake_lost=1]
 * the model then holds REAL_SIZE and the target claims the profile's
 * capacity. Portable: no heap, no OS calls. */
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
};

/* Wraps `lower` (whose capacity is the real size); *out claims `claimed`
 * bytes. STS_EINVAL unless real < claimed and real is a multiple of the
 * lower device's erase block. */
int sts_fakebd_init(struct sts_fakebd *f, const struct sts_bd *lower, uint64_t claimed,
                    int lost, struct sts_bd *out);

#ifdef __cplusplus
}
#endif
#endif
