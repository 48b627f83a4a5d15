/* libFuzzer: any bytes as a sensorlog image, through `storscope log dump`
 * (text and CSV): finding the header, sizing buffers from it, mounting,
 * reading every stream. Run: scripts/fuzz.sh (corpus in fuzz/corpus/log_dump). */
#include "cli.h"
#include "fuzz_input.h"

#include <stdint.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    if (fuzz_input_file(path, ".img", data, size))
        return 0;
    char *text[] = {"log", "dump", path, NULL};
    cmd_log(3, text);
    char *csv[] = {"log", "dump", path, "--csv", NULL};
    cmd_log(4, csv);
    unlink(path);
    return 0;
}
