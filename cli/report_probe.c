/* The probe section of `storscope report`, from a probe document's JSON:
 * the same facts the probe printed, for a results file read later. */
#include "cli.h"
#include "storscope/units.h"

#include <stdio.h>
#include <string.h>

static const cJSON *obj(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

static double num(const cJSON *o, const char *k)
{
    const cJSON *v = obj(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static const char *str(const cJSON *o, const char *k)
{
    const cJSON *v = obj(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static const char *bytes(char *buf, size_t n, double b)
{
    sts_fmt_bytes(buf, n, (uint64_t)b);
    return buf;
}

/* The facts, one line each, into lines[]; returns how many. */
static int probe_lines(const cJSON *probe, char lines[][200], int max)
{
    int n = 0;
    char a[32], b[32];
    const cJSON *t = obj(probe, "read_timing");
    if (n < max && t && !strcmp(str(t, "status"), "ok"))
        snprintf(lines[n++], 200, obj(t, "visible") && cJSON_IsTrue(obj(t, "visible"))
                                      ? "Read timing: page %s, erase unit %s."
                                      : "Read timing: no boundary costs a read more.",
                 num(t, "page_bytes") ? bytes(a, sizeof(a), num(t, "page_bytes")) : "not seen",
                 /* 0 while visible: beyond the scan's reach, or no step at it */
                 num(t, "unit_bytes") ? bytes(b, sizeof(b), num(t, "unit_bytes"))
                                      : "not seen");
    if (n < max && t && !strcmp(str(t, "status"), "not_resolved"))
        snprintf(lines[n++], 200, "Read timing: not resolved within the noise (nothing claimed).");
    const cJSON *c = obj(probe, "capacity");
    if (n < max && c && !strcmp(str(c, "status"), "ok"))
        snprintf(lines[n++], 200, "Capacity: %s, %s usable of %s claimed.", str(c, "kind"),
                 bytes(a, sizeof(a), num(c, "usable_bytes")),
                 bytes(b, sizeof(b), num(c, "claimed_bytes")));
    const cJSON *o = obj(probe, "open_aus");
    if (n < max && o && !strcmp(str(o, "status"), "ok")) {
        if (cJSON_IsTrue(obj(o, "limited")))
            snprintf(lines[n++], 200, "Open allocation units: %.0f, of %s each.",
                     num(o, "open_aus"), bytes(a, sizeof(a), num(o, "au_bytes")));
        else
            snprintf(lines[n++], 200, "Open allocation units: no limit up to %.0f streams.",
                     num(o, "streams_tried"));
    }
    if (n < max && !cJSON_IsTrue(obj(probe, "destructive")))
        snprintf(lines[n++], 200, "Not measured: %s", str(probe, "not_measured"));
    const cJSON *g;
    cJSON_ArrayForEach(g, obj(probe, "guidelines"))
        if (n < max && cJSON_IsString(g))
            snprintf(lines[n++], 200, "Guideline: %s", g->valuestring);
    return n;
}

void cli_print_probe(FILE *f, const cJSON *doc, int html)
{
    const cJSON *probe = obj(doc, "probe");
    if (!cJSON_IsObject(probe))
        return;
    char lines[16][200];
    int n = probe_lines(probe, lines, 16);
    fputs(html ? "<h2>Probe</h2>\n<ul>\n" : "\nProbe\n", f);
    for (int i = 0; i < n; i++) {
        fputs(html ? "<li>" : "  ", f);
        if (html)
            cli_html_esc(f, lines[i]);
        else
            fputs(lines[i], f);
        fputs(html ? "</li>\n" : "\n", f);
    }
    if (html)
        fputs("</ul>\n", f);
}
