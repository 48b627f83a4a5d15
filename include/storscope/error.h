/* storscope error codes: negative on failure, 0 on success (littlefs style). */
#ifndef STORSCOPE_ERROR_H
#define STORSCOPE_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

enum sts_err {
    STS_OK = 0,
    STS_EIO = -1,        /* device or OS reported an I/O error */
    STS_EINVAL = -2,     /* bad argument or malformed input */
    STS_ENOENT = -3,     /* no such file, directory, test or profile */
    STS_EEXIST = -4,     /* already exists */
    STS_ENOSPC = -5,     /* medium full, or refusing to fill it */
    STS_ENOMEM = -6,     /* a caller-provided buffer is too small */
    STS_ENOTSUP = -7,    /* operation not supported by this target */
    STS_EINTR = -8,      /* run stopped by the user (Ctrl-C) */
    STS_ECORRUPT = -9,   /* data read back differs from what was written */
    STS_EACCES = -10,    /* permission denied */
    STS_ENOTDIR = -11,   /* a directory was expected */
    STS_EISDIR = -12,    /* a file was expected */
    STS_EBUSY = -13,     /* target busy (e.g. a mounted device) */
    STS_ERANGE = -14,    /* value out of range */
    STS_EEVICTED = -15,  /* a circular log (sensorlog) wrapped past the data: it keeps
                            only its newest */
};

/* Short, stable, human-readable name of an error code ("I/O error"). */
const char *sts_strerror(int err);

#ifdef __cplusplus
}
#endif
#endif
