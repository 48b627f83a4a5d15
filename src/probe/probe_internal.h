/* What the probe's parts share (src/probe/). */
#ifndef STORSCOPE_PROBE_INTERNAL_H
#define STORSCOPE_PROBE_INTERNAL_H

#include "storscope/probe.h"

#include <string.h>

/* What the device says of itself (zeroed first: a field it leaves is 0). */
static inline void probe_device_geometry(const struct sts_probe_env *e,
                                         struct sts_bd_geometry *g)
{
    memset(g, 0, sizeof(*g));
    e->bd.ops->geometry(e->bd.ctx, g);
}

/* Ctrl-C asked the probe to stop. */
static inline int probe_stopped(const struct sts_probe_env *e)
{
    return e->stop && *e->stop;
}

#endif
