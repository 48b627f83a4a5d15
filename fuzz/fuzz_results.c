/* libFuzzer: any bytes as a results file, through `storscope report` and
 * `storscope compare` (text, Markdown and HTML) - the cJSON reader, the
 * replay into the analysis and the first screen, and compare's figures.
 * Run: scripts/fuzz.sh (corpus in fuzz/corpus/results). */
#include "cli.h"
#include "fuzz_input.h"

#include <stdint.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    if (fuzz_input_file(path, ".json", data, size))
        return 0;
    char *report[] = {"report", path, NULL};
    cmd_report(2, report);
    char *compare[] = {"compare", path, path, NULL};
    cmd_compare(3, compare);
    char *md[] = {"compare", "--format", "md", path, path, NULL};
    cmd_compare(5, md);
    char *html[] = {"compare", "--format", "html", "--threshold", "10", path, path, NULL};
    cmd_compare(7, html);
    unlink(path);
    return 0;
}
