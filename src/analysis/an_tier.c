/* fsync beside the published tier table (seed 001's, and public figures
 * for drives with power-loss protection): which row's range a run's fsync
 * rate and mean fall in, or which rows it lies between - never forced into
 * one. */
#include "storscope/analysis.h"
#include "storscope/units.h"

#include <string.h>

#include "an_text.h"

struct tier_row {
    const char *name;
    double iops_lo, iops_hi, mean_lo_ns, mean_hi_ns;
};
static const struct tier_row tiers[] = {
    {"consumer SD card", 100, 250, 4.0e6, 10.0e6},
    {"A2 microSD", 400, 800, 1.2e6, 2.5e6},
    {"industrial eMMC", 1500, 4000, 0.2e6, 0.6e6},
    {"SATA SSD with power-loss protection", 10000, 25000, 0.05e6, 0.1e6},
    {"NVMe SSD with power-loss protection", 50000, 1e12, 0, 0.03e6},
};
#define N_TIERS (sizeof(tiers) / sizeof(tiers[0]))

/* A table figure as the table prints it: 4, 1.2, 0.05 (no trailing zeros). */
static void table_fig(char *buf, size_t n, double v)
{
    an_fixed(buf, n, v, 2);
    char *dot = strchr(buf, '.');
    if (!dot)
        return;
    char *end = buf + strlen(buf);
    while (end > dot && (end[-1] == '0' || end[-1] == '.'))
        *--end = '\0';
}

void sts_an_tier(const struct sts_an_input *in, char *out, size_t n)
{
    out[0] = '\0';
    if (!in->has_fsync)
        return;
    if (!strcmp(in->target_kind, "null")) {
        sts_strlcpy(out, "none: null: has no medium (its figure is storscope's own cost)", n);
        return;
    }
    double iops = in->fsync_iops, mean = in->fsync_mean_ns;
    /* consumer SSDs flush their cache on every fsync: a card's fsync rate
     * with an SSD's bandwidth */
    if (in->has_seq && in->seq_write_bps > 100e6 && iops < 10000) {
        sts_strlcpy(out, "like an SSD without power-loss protection (a card's fsync rate, "
                         "an SSD's sequential bandwidth)", n);
        return;
    }
    for (size_t i = 0; i < N_TIERS; i++)
        if (iops >= tiers[i].iops_lo && iops <= tiers[i].iops_hi && mean >= tiers[i].mean_lo_ns &&
            mean <= tiers[i].mean_hi_ns) {
            char lo[24], hi[24], mlo[24], mhi[24];
            an_fixed(lo, sizeof(lo), tiers[i].iops_lo, 0);
            an_fixed(hi, sizeof(hi), tiers[i].iops_hi, 0);
            table_fig(mlo, sizeof(mlo), tiers[i].mean_lo_ns / 1e6);
            table_fig(mhi, sizeof(mhi), tiers[i].mean_hi_ns / 1e6);
            sts_strlcpy(out, "in the ", n);
            sts_strlcat(out, tiers[i].name, n);
            sts_strlcat(out, " row's range (", n);
            if (tiers[i].iops_hi < 1e11) {
                sts_strlcat(out, lo, n);
                sts_strlcat(out, "-", n);
                sts_strlcat(out, hi, n);
            } else {
                sts_strlcat(out, "over ", n);
                sts_strlcat(out, lo, n);
            }
            sts_strlcat(out, " fsync/s, mean ", n);
            if (tiers[i].mean_lo_ns > 0) {
                sts_strlcat(out, mlo, n);
                sts_strlcat(out, "-", n);
            } else {
                sts_strlcat(out, "under ", n);
            }
            sts_strlcat(out, mhi, n);
            sts_strlcat(out, " ms)", n);
            return;
        }
    /* between rows: name the rows around its IOPS, never force one */
    const char *below = NULL, *above = NULL;
    for (size_t i = 0; i < N_TIERS; i++) {
        if (tiers[i].iops_hi < iops || (iops >= tiers[i].iops_lo && mean > tiers[i].mean_hi_ns))
            below = tiers[i].name;
        if (!above && (tiers[i].iops_lo > iops || (iops <= tiers[i].iops_hi &&
                                                   mean < tiers[i].mean_lo_ns)))
            above = tiers[i].name;
    }
    if (below && above && below != above) {
        sts_strlcpy(out, "between the ", n);
        sts_strlcat(out, below, n);
        sts_strlcat(out, " and ", n);
        sts_strlcat(out, above, n);
        sts_strlcat(out, " rows", n);
    } else if (below) {
        sts_strlcpy(out, "slower than every row (below the ", n);
        sts_strlcat(out, tiers[0].name, n);
        sts_strlcat(out, " row)", n);
        if (iops > tiers[0].iops_lo) { /* in range on IOPS, off on latency */
            sts_strlcpy(out, "near the ", n);
            sts_strlcat(out, below, n);
            sts_strlcat(out, " row (outside its latency band)", n);
        }
    } else {
        sts_strlcpy(out, "below the consumer SD card row", n);
    }
}
