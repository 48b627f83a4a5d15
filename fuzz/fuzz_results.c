/* libFuzzer: any bytes as a results file, through `storscope report` and
 * `storscope compare` (text, Markdown and HTML) - the cJSON reader, the
 * replay into the analysis and the first screen, and compare's figures.
 * Run: scripts/fuzz.sh (corpus in fuzz/corpus/results). */
#include "cli.h"

#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!path[0])
        snprintf(path, sizeof(path), "/dev/shm/storscope-fuzz-%d.json", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
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
