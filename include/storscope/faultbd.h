/* faultbd: the block-device twin of faultfs. It sits on any struct sts_bd
 * (the simulator, a RAM disk, a raw device, a port's driver) and fails
 * chosen device commands with the error a device returns, so what sits above
 * it (extentfs, sensorlog, littlefs, FatFs, FileX) is seen failing as it
 * would on a card that errs.
 *
 * From the command line, on sim: targets (the stack is storscope's there):
 *     sim:PROFILE[+FS],dev_fail_at=K[,dev_fail_from=1][,dev_fail_op=program|erase][,dev_fail_err=eio]
 * dev_fail_at=0 counts: the run ends by printing how many device commands
 * there were. Portable: no heap, no OS calls; the count is atomic. */
#ifndef STORSCOPE_FAULTBD_H
#define STORSCOPE_FAULTBD_H

#include "storscope/device.h"
#include "storscope/faultfs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Command kinds, for the ops mask (0 = every kind). A command started on
 * the non-blocking path counts as its kind when it is submitted. */
enum sts_fault_bd_op {
    STS_BOP_READ = 0x1, STS_BOP_PROGRAM = 0x2, STS_BOP_ERASE = 0x4, STS_BOP_FLUSH = 0x8,
};

struct sts_faultbd {
    struct sts_bd lower;
    struct sts_fault_config cfg; /* as faultfs's, over device commands */
    size_t counted, failed;
};

/* Wraps `lower`; *out is the decorated device. */
void sts_faultbd_init(struct sts_faultbd *f, const struct sts_bd *lower,
                      const struct sts_fault_config *cfg, struct sts_bd *out);

/* Takes the dev_fail_* keys out of one option list: 1 when any was given,
 * 0 none, STS_EINVAL with *why. */
int sts_faultbd_take_opts(struct sts_spec_opt *opts, uint32_t *n_opts,
                          struct sts_fault_config *cfg, const char **why);

#ifdef __cplusplus
}
#endif
#endif
