/* What an SD or eMMC card says about itself, for storscope probe: read
 * from Linux sysfs, read-only. */
#ifndef STORSCOPE_PROBE_IDENTITY_H
#define STORSCOPE_PROBE_IDENTITY_H

#include "storscope/card_regs.h"
#include "storscope/json.h"
#include "storscope/target.h"

#include <stdio.h>

/* What the card says about itself, from sysfs (Linux decodes SD and eMMC
 * registers into /sys/dev/block/MAJ:MIN/device/). */
struct identity {
    char dir[512];          /* where it was read; "" = none found */
    char type[8];           /* "SD", "MMC", or "SCSI": a disk behind a USB or SCSI
                               bridge (a card reader), which hides the card's
                               registers and gives its own vendor and model */
    int has_cid, has_csd, has_scr;
    char vendor[16], model[32];
    /* eMMC: its EXT_CSD, from the kernel's debugfs text (or a fixture's
     * ext_csd file), else through the MMC_IOC_CMD ioctl; why not, if not */
    int has_ext_csd;
    struct sts_mmc_ext_csd ext;
    char ext_source[16], ext_why[200];
    struct sts_sd_cid cid;  /* SD: decoded here from the raw register */
    struct sts_sd_csd csd;
    struct sts_sd_scr scr;
    int has_ssr;            /* SD: the SD Status (sysfs `ssr`), decoded here */
    struct sts_sd_ssr ssr;
    uint64_t pref_erase, erase; /* the kernel's preferred_erase_size and erase_size,
                                   bytes (0: not given) */
    char name[16], manfid[16], oemid[16], date[16], fwrev[40], life_time[32], pre_eol[16];
};

/* Fills *id from the sysfs device directory of a raw: block device (its
 * disk's, for a partition), or of STORSCOPE_SYSFS_DEVICE when set (a
 * card's saved registers; the tests' fixtures). id->dir is "" when there
 * is nothing to read. */
void probe_identity(const struct sts_target_spec *spec, struct identity *id);
/* The data lines the card drives: 4 when its SCR lists a 4-bit bus, else 1. */
unsigned probe_identity_bus_lines(const struct identity *id);
void probe_identity_print(FILE *f, const struct identity *id);
void probe_identity_json(struct sts_jw *w, const struct identity *id);

#endif
