/* Target kind "null:": the null block device under extentfs. Every workload
 * runs through the same engine, method tables, histograms and sinks as on a
 * real target; only the medium does nothing. */
#include "storscope/error.h"
#include "storscope/extentfs.h"
#include "storscope/port.h"
#include "storscope/target.h"

#include <string.h>

#define NULL_FILES 8
#define NULL_CAPACITY (1ull << 50) /* 1 PiB: no workload runs out of space */

struct null_target {
    struct sts_null_bd nb;
    struct sts_extentfs efs;
    struct sts_extentfs_file files[NULL_FILES];
    int in_use;
};

static struct null_target null_state; /* one null target at a time, no heap */

static int null_open(struct sts_target *t, const struct sts_target_spec *spec, char *err,
                     size_t errlen)
{
    if (spec->arg[0] || spec->n_opts) {
        sts_strlcpy(err, "null: takes no argument or options (write it as \"null:\")", errlen);
        return STS_EINVAL;
    }
    if (spec->fs[0]) {
        sts_strlcpy(err, "null: has no medium for a filesystem: drop '+", errlen);
        sts_strlcat(err, spec->fs, errlen);
        sts_strlcat(err, "' (sim:PROFILE+", errlen);
        sts_strlcat(err, spec->fs, errlen);
        sts_strlcat(err, " runs it on a simulated medium)", errlen);
        return STS_EINVAL;
    }
    if (null_state.in_use) {
        sts_strlcpy(err, "null: is already open", errlen);
        return STS_EBUSY;
    }
    struct null_target *n = &null_state;
    memset(n, 0, sizeof(*n));
    struct sts_extentfs_config cfg = {.files = n->files, .n_files = NULL_FILES};
    sts_null_bd_init(&n->nb, &cfg.bd, NULL_CAPACITY);
    int rc = sts_extentfs_init(&n->efs, &cfg, &t->fs);
    if (rc)
        return rc;
    n->in_use = 1;
    t->kind = "null";
    t->clock = *sts_port_clock();
    t->flags = STS_T_NO_FS_METADATA; /* keeps no data, has no cache, no directories */
    t->io_align = 0;
    t->impl = n;
    sts_target_env(t, STS_KV_S("device", "null (keeps no data, takes no time)"));
    sts_target_env(t, STS_KV_S("filesystem", "extentfs"));
    return STS_OK;
}

static void null_close(struct sts_target *t)
{
    struct null_target *n = t->impl;
    if (n)
        n->in_use = 0;
    t->impl = NULL;
}

const struct sts_target_kind sts_target_null = {
    "null",
    "null:",
    "a device that keeps no data and takes no time: measures storscope's own overhead",
    null_open,
    null_close,
};
