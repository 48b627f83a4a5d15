/* The fuzzers that drive a command (report, compare, log dump) hand it the
 * input as a file: written to /dev/shm under a name of this process's. */
#ifndef STORSCOPE_FUZZ_INPUT_H
#define STORSCOPE_FUZZ_INPUT_H

#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

/* The input in a file named path (64 bytes) ending in suffix; 0, or -1. */
static inline int fuzz_input_file(char path[64], const char *suffix, const uint8_t *data,
                                  size_t size)
{
    snprintf(path, 64, "/dev/shm/storscope-fuzz-%d%s", (int)getpid(), suffix);
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    fwrite(data, 1, size, f);
    return fclose(f) ? -1 : 0;
}

#endif
