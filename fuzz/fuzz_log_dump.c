/* libFuzzer: any bytes as a sensorlog image, through `storscope log dump`
 * (text and CSV): finding the header, sizing buffers from it, mounting,
 * reading every stream. Run: scripts/fuzz.sh (corpus in fuzz/corpus/log_dump). */
#include "cli.h"

#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!path[0])
        snprintf(path, sizeof(path), "/dev/shm/storscope-fuzz-%d.img", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    char *text[] = {"log", "dump", path, NULL};
    cmd_log(3, text);
    char *csv[] = {"log", "dump", path, "--csv", NULL};
    cmd_log(4, csv);
    unlink(path);
    return 0;
}
