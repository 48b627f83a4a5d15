#include "storscope/error.h"

const char *sts_strerror(int err)
{
    switch (err) {
    case STS_OK: return "success";
    case STS_EIO: return "I/O error";
    case STS_EINVAL: return "invalid argument";
    case STS_ENOENT: return "not found";
    case STS_EEXIST: return "already exists";
    case STS_ENOSPC: return "not enough space";
    case STS_ENOMEM: return "buffer too small";
    case STS_ENOTSUP: return "not supported by this target";
    case STS_EINTR: return "interrupted";
    case STS_ECORRUPT: return "data read back does not match what was written";
    case STS_EACCES: return "permission denied";
    case STS_ENOTDIR: return "not a directory";
    case STS_EISDIR: return "is a directory";
    case STS_EBUSY: return "busy";
    case STS_ERANGE: return "out of range";
    case STS_EEVICTED: return "evicted: the log wrapped past it";
    default: return "unknown error";
    }
}
