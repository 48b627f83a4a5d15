/* The version check of the method tables (device, filesystem, OS port):
 * one rule for the three, so an out-of-tree device or port written for
 * another layout is refused with its name instead of calling a method
 * that is not where this library looks for it. */
#include "storscope/device.h"
#include "storscope/error.h"
#include "storscope/fs.h"
#include "storscope/port.h"
#include "storscope/units.h"
#include "storscope/target.h"

#include <string.h>

static int check(const void *ops, uint32_t version, uint32_t known, const char *what,
                 const char *macro, char *err, size_t errlen)
{
    if (ops && version >= 1 && version <= known)
        return STS_OK;
    if (errlen) {
        char num[24];
        sts_strlcpy(err, what, errlen);
        if (!ops) {
            sts_strlcpy(err + strlen(err), " method table: none given", errlen - strlen(err));
            return STS_EINVAL;
        }
        sts_strlcpy(err + strlen(err), " method table of version ", errlen - strlen(err));
        sts_fmt_u64(num, version);
        sts_strlcpy(err + strlen(err), num, errlen - strlen(err));
        sts_strlcpy(err + strlen(err),
                    version ? ": newer than this library, which knows up to "
                            : " (written before tables had one: set .version = ",
                    errlen - strlen(err));
        if (version) {
            sts_fmt_u64(num, known);
            sts_strlcpy(err + strlen(err), num, errlen - strlen(err));
        } else {
            sts_strlcpy(err + strlen(err), macro, errlen - strlen(err));
            sts_strlcpy(err + strlen(err), ")", errlen - strlen(err));
        }
    }
    return STS_EINVAL;
}

int sts_bd_ops_check(const struct sts_bd_ops *ops, char *err, size_t errlen)
{
    return check(ops, ops ? ops->version : 0, STS_BD_OPS_VERSION, "device",
                 "STS_BD_OPS_VERSION", err, errlen);
}

int sts_fs_ops_check(const struct sts_fs_ops *ops, char *err, size_t errlen)
{
    return check(ops, ops ? ops->version : 0, STS_FS_OPS_VERSION, "filesystem",
                 "STS_FS_OPS_VERSION", err, errlen);
}

int sts_port_ops_check(const struct sts_port_ops *ops, char *err, size_t errlen)
{
    return check(ops, ops ? ops->version : 0, STS_PORT_OPS_VERSION, "OS port",
                 "STS_PORT_OPS_VERSION", err, errlen);
}
