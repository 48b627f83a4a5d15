/* verifybd: every program read back and compared, over any struct sts_bd.
 * A chip can fail a program without saying so: a worn NAND or NOR block
 * whose cells no longer take a charge, a driver that drops a write, a
 * counterfeit's lost writes. A store above it would then report records
 * durable that never reached the medium. Under this decorator such a
 * program fails with STS_EIO, which sensorlog (and any store with a
 * program-failure path) handles by writing the data again elsewhere and
 * retiring the block; an erase that did not erase shows up the same way,
 * at the first program over it. littlefs does the same inside its core on
 * every program; sensorlog leaves it to this decorator, so a firmware that
 * trusts its chip pays nothing (docs/sensorlog-format.md, "Silent
 * failures").
 *
 * Cost: one read of what each program wrote, in pieces of the caller's
 * buffer (bench/README, "verified programs"). On the non-blocking path the
 * read-back happens when the program is polled done. Portable: no heap,
 * no OS calls; the caller lends the buffer. */
#ifndef STORSCOPE_VERIFYBD_H
#define STORSCOPE_VERIFYBD_H

#include "storscope/device.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sts_verifybd {
    struct sts_bd lower;
    struct sts_bd_ops ops;   /* the decorated device's, with the lower one's optional paths */
    uint8_t *buf;            /* the read-back buffer, lent by the caller */
    size_t buf_bytes;        /* any size >= 1; a program unit or more reads in one go */
    uint64_t verified;       /* programs read back */
    uint64_t mismatches;     /* of them, ones that did not hold what was written */
};

/* Wraps `lower`; *out is the decorated device. buf must stay valid while
 * the device is used. */
void sts_verifybd_init(struct sts_verifybd *v, const struct sts_bd *lower, void *buf,
                       size_t buf_bytes, struct sts_bd *out);

#ifdef __cplusplus
}
#endif
#endif
