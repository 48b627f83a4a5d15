/* The probe's answers in the run's guidelines (`run/report --probe FILE`):
 * the page sets the least chunk, the allocation unit the alignment, and
 * the open allocation units how many files a logger may append to at once
 * - checked against the files L1 actually kept open. The probe measured
 * these on the device (flashbench's and f3probe's methods); what the
 * device reports of itself is not used here. */
#include "an_text.h"

#include <string.h>

/* L1 writes one file per stream in direct and mutex modes, one in iotask. */
static uint32_t l1_files(const struct sts_an_input *in)
{
    if (!in->has_l1 || !in->l1_streams[0] || !(in->l1_seen[0] || in->l1_seen[1]))
        return 0;
    uint32_t n = 1;
    for (const char *p = in->l1_streams; *p; p++)
        n += *p == ',';
    return n;
}

void an_probe(const struct sts_an_input *in, struct sts_analysis *out)
{
    char a[40], b[40], c[24];
    uint64_t knee = out->write_knee_bytes > 0 ? (uint64_t)out->write_knee_bytes : 0;
    if (in->probe_page_bytes > 512 && in->probe_page_bytes > knee) {
        an_bytes(a, sizeof(a), in->probe_page_bytes);
        if (knee) {
            an_bytes(b, sizeof(b), knee);
            SAY(an_add(out->guideline, &out->n_guidelines, "probe: page", "probe"),
                "Write in chunks of at least ", a, ", not ", b, ": the page storscope probe "
                "measured is larger than the write knee this run found; a smaller chunk is "
                "programmed as a whole page.");
        } else {
            SAY(an_add(out->guideline, &out->n_guidelines, "probe: page", "probe"),
                "Write in chunks of at least ", a, ", the page storscope probe measured.");
        }
    }
    if (in->probe_au_bytes) {
        an_bytes(a, sizeof(a), in->probe_au_bytes);
        SAY(an_add(out->guideline, &out->n_guidelines, "probe: alignment", "probe"),
            "Align partitions and each file's extents to ", a,
            ", the allocation unit storscope probe measured.");
    }
    if (!in->probe_open_aus)
        return;
    an_fixed(c, sizeof(c), in->probe_open_aus, 0);
    uint32_t files = l1_files(in);
    if (files > in->probe_open_aus) {
        an_fixed(a, sizeof(a), files, 0);
        SAY(an_add(out->guideline, &out->n_guidelines, "probe: open files", "probe"),
            "Append to at most ", c, " files at once: the card keeps ", c,
            " allocation units open (storscope probe), and L1's direct and mutex writers "
            "kept ", a, " open (streams ", in->l1_streams, "); pack the streams into one file "
            "through an I/O task, as L1's iotask does.");
    } else {
        SAY(an_add(out->guideline, &out->n_guidelines, "probe: open files", "probe"),
            "Append to at most ", c, " files at once: the card keeps ", c,
            " allocation units open (storscope probe); one more makes every write pay a "
            "merge.");
    }
}
