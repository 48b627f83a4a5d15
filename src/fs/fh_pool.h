/* Internal to the filesystem adapters: which of a fixed set of open-file
 * slots are in use (a handle is a slot's index). */
#ifndef STORSCOPE_FH_POOL_H
#define STORSCOPE_FH_POOL_H

#include "storscope/fs.h"

/* A free slot's index, or -1 when all n are in use. */
static inline int fh_pool_free(const int *used, int n)
{
    for (int i = 0; i < n; i++)
        if (!used[i])
            return i;
    return -1;
}

/* 1 when fh names a slot in use. */
static inline int fh_pool_valid(const int *used, int n, sts_fh fh)
{
    return fh >= 0 && fh < n && used[fh];
}

#endif
