/* The single-file HTML report: the target and its environment, findings
 * and guidelines, figures like the study's rendered by gnuplot to SVG and
 * inlined (nothing external: it opens offline), and tables. Without gnuplot
 * the report keeps its tables and says how to get the figures. */
#define _GNU_SOURCE
#include "cli.h"
#include "json_in.h"
#include "report_plot.h"
#include "report_system.h"
#include "storscope/analysis.h"
#include "storscope/output.h"
#include "storscope/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void cli_html_esc(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

static const cJSON *obj(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* "PREFIX256 KiB fileSUFFIX" from the test's own file_bytes (a title that
 * said 1 MiB at every scale was wrong at quick scale); "PREFIXfileSUFFIX"
 * when the results do not say. */
static const char *file_title(char *buf, size_t n, const cJSON *t, const char *prefix,
                              const char *suffix)
{
    double bytes = cli_num(obj(t, "params"), "file_bytes");
    char sz[32] = "";
    if (isfinite(bytes) && bytes > 0)
        sts_fmt_bytes(sz, sizeof(sz), sts_d2u64(bytes));
    snprintf(buf, n, "%s%s%sfile%s", prefix, sz, sz[0] ? " " : "", suffix);
    return buf;
}

/* Throughput against chunk size of a sweep test, read and write; title:
 * its prefix, then the file's size. */
static int sweep_plot(FILE *out, const cJSON *doc, const char *id, const char *prefix)
{
    const cJSON *t = cli_test(doc, id), *p;
    if (!t)
        return 0;
    char title[96];
    struct plot pl = {.title = file_title(title, sizeof(title), t, prefix, ""),
                      .xlabel = "chunk size", .ylabel = "throughput",
                      .logx = 1, .logy = 1, .names = {"write", "read"}, .n = 2, .y_rate = 1};
    cJSON_ArrayForEach(p, obj(t, "points"))
    {
        const cJSON *nm = obj(p, "name"), *runs = obj(p, "runs");
        if (!cJSON_IsString(nm) || !runs)
            continue;
        int s = !strcmp(nm->valuestring, "read");
        report_add_xy(&pl, s, cli_num(obj(p, "params"), "chunk_bytes"), cli_num(runs, "mean"));
    }
    return report_render(out, &pl) == 0;
}

/* M1: latency per read and throughput against chunk size. */
static int m1_plot(FILE *out, const cJSON *doc)
{
    const cJSON *t = cli_test(doc, "M1"), *p;
    if (!t)
        return 0;
    char t1[96], t2[96];
    struct plot lat = {.title = file_title(t1, sizeof(t1), t, "M1: random reads of a ", ", latency"),
                       .xlabel = "chunk size", .ylabel = "mean latency (us)", .logx = 1,
                       .names = {"latency per read"}, .n = 1};
    struct plot tp = {.title = file_title(t2, sizeof(t2), t, "M1: random reads of a ", ", throughput"),
                      .xlabel = "chunk size", .ylabel = "throughput", .logx = 1,
                      .logy = 1, .names = {"random read"}, .n = 1, .y_rate = 1};
    cJSON_ArrayForEach(p, obj(t, "points"))
    {
        if (!obj(p, "runs"))
            continue;
        double chunk = cli_num(obj(p, "params"), "chunk_bytes");
        report_add_xy(&lat, 0, chunk, cli_num(obj(p, "metrics"), "mean_latency_ns") / 1e3);
        report_add_xy(&tp, 0, chunk, cli_num(obj(p, "runs"), "mean"));
    }
    return (report_render(out, &lat) == 0) + (report_render(out, &tp) == 0);
}

static int s2_plot(FILE *out, const cJSON *doc)
{
    const cJSON *t = cli_test(doc, "S2"), *p;
    if (!t)
        return 0;
    struct plot pl = {.title = "S2: per-file latency against files per directory",
                      .xlabel = "files", .ylabel = "per-file latency (us)", .logy = 1,
                      .names = {"open+close, one directory", "open+close, sqrt(N) subdirectories",
                                "create, one directory"},
                      .n = 3};
    cJSON_ArrayForEach(p, obj(t, "points"))
    {
        const cJSON *nm = obj(p, "name"), *lay = obj(obj(p, "params"), "layout");
        if (!cJSON_IsString(nm) || !cJSON_IsString(lay) || !obj(p, "runs"))
            continue;
        int flat = !strcmp(lay->valuestring, "flat");
        int s = !strcmp(nm->valuestring, "open_close") ? (flat ? 0 : 1)
                : (!strcmp(nm->valuestring, "create") && flat) ? 2 : -1;
        if (s >= 0)
            report_add_xy(&pl, s, cli_num(obj(p, "params"), "files"),
                   cli_num(obj(p, "metrics"), "per_file_mean_ns") / 1e3);
    }
    return report_render(out, &pl) == 0;
}

static int fsync_plot(FILE *out, const cJSON *doc)
{
    const cJSON *t = cli_test(doc, "fsync");
    const cJSON *p = t ? cJSON_GetArrayItem(obj(t, "points"), 0) : NULL;
    const cJSON *pct = obj(obj(obj(obj(p, "latency"), "write+flush"), "percentiles_ns"), "50")
                           ? obj(obj(obj(p, "latency"), "write+flush"), "percentiles_ns")
                           : NULL;
    if (!pct)
        return 0;
    /* x = the number of nines, so the tail gets the room it deserves */
    struct plot pl = {.title = "fsync: latency of a 4 KiB write + flush by percentile",
                      .xlabel = "percentile", .ylabel = "latency (ms)", .logy = 1,
                      .names = {"write+flush"}, .n = 1,
                      .xtics = "(\"0\" 0, \"50\" 0.30103, \"90\" 1, \"99\" 2, \"99.9\" 3, "
                               "\"99.99\" 4)"};
    const cJSON *v;
    cJSON_ArrayForEach(v, pct)
    {
        double pc = atof(v->string);
        if (pc < 100)
            report_add_xy(&pl, 0, -log10(1.0 - pc / 100.0), v->valuedouble / 1e6);
    }
    return report_render(out, &pl) == 0;
}

/* fsync: how many operations took how long (log-log, 4 bins per octave). */
static int fsync_hist_plot(FILE *out, const cJSON *doc)
{
    const cJSON *t = cli_test(doc, "fsync");
    const cJSON *p = t ? cJSON_GetArrayItem(obj(t, "points"), 0) : NULL;
    const cJSON *h = obj(obj(obj(p, "latency"), "write+flush"), "histogram");
    const cJSON *lo = obj(h, "lo_ns"), *count = obj(h, "count");
    if (!cJSON_IsArray(lo) || !cJSON_IsArray(count) || cJSON_GetArraySize(lo) < 1)
        return 0;
    struct plot pl = {.title = "fsync: latency histogram of a 4 KiB write + flush",
                      .xlabel = "latency (ms)", .ylabel = "operations", .logx = 2, .logy = 1,
                      .names = {"operations per bin (4 per power of two)"}, .n = 1};
    for (int i = 0; i < cJSON_GetArraySize(lo); i++)
        report_add_xy(&pl, 0, cJSON_GetArrayItem(lo, i)->valuedouble / 1e6,
                      cJSON_GetArrayItem(count, i)->valuedouble);
    return report_render(out, &pl) == 0;
}

static void fsync_table(FILE *out, const cJSON *doc, const struct sts_analysis *an)
{
    const cJSON *t = cli_test(doc, "fsync");
    const cJSON *p = t ? cJSON_GetArrayItem(obj(t, "points"), 0) : NULL;
    const cJSON *lat = obj(obj(p, "latency"), "write+flush");
    if (!lat)
        return;
    const cJSON *pct = obj(lat, "percentiles_ns");
    fprintf(out, "<h2>fsync profile (seed 001 metrics)</h2>\n<table><tr><th>metric</th>"
                 "<th>value</th><th>assessment</th></tr>\n");
    fprintf(out, "<tr><td>write IOPS</td><td>%.0f</td><td>tier: ", cli_num(t, "iops"));
    cli_html_esc(out, an->tier);
    char rate[32];
    sts_fmt_rate(rate, sizeof(rate), cli_num(t, "bytes_per_second"));
    fprintf(out, "</td></tr>\n<tr><td>throughput</td><td>%s</td><td></td></tr>\n", rate);
    fprintf(out, "<tr><td>mean latency</td><td>%.3f ms</td><td></td></tr>\n",
            cli_num(lat, "mean_ns") / 1e6);
    fprintf(out, "<tr><td>p95 latency</td><td>%.3f ms</td><td></td></tr>\n",
            cli_num(pct, "95") / 1e6);
    fprintf(out, "<tr><td>p99.99 latency</td><td>%.3f ms</td><td></td></tr>\n",
            cli_num(pct, "99.99") / 1e6);
    double mx = cli_num(lat, "max_ns"), mean = cli_num(lat, "mean_ns");
    fprintf(out, "<tr><td>max latency</td><td>%.2f ms</td><td>%s</td></tr>\n</table>\n", mx / 1e6,
            mean > 0 && mx > 50 * mean ? "severe outlier: size buffers for this stall" : "");
}

static void s2_table(FILE *out, const cJSON *doc)
{
    const cJSON *t = cli_test(doc, "S2"), *p;
    if (!t)
        return;
    fprintf(out, "<h2>S2: metadata bursts (the study's Tables 3 and 4)</h2>\n<table><tr>"
                 "<th>files</th><th>layout</th><th>operation</th><th>total (ms, mean &plusmn; sd)</th>"
                 "<th>per file (us)</th></tr>\n");
    cJSON_ArrayForEach(p, obj(t, "points"))
    {
        const cJSON *runs = obj(p, "runs"), *prm = obj(p, "params");
        const cJSON *nm = obj(p, "name"), *lay = obj(prm, "layout");
        if (!runs || !cJSON_IsString(nm) || !cJSON_IsString(lay))
            continue;
        /* the strings come from a results file: escaped, never markup */
        fprintf(out, "<tr><td>%.0f</td><td>", cli_num(prm, "files"));
        cli_html_esc(out, lay->valuestring);
        fputs("</td><td>", out);
        cli_html_esc(out, nm->valuestring);
        fprintf(out, "</td><td>%.2f", cli_num(runs, "mean") / 1e6);
        if (cli_num(runs, "n") >= 2)
            fprintf(out, " &plusmn; %.2f", cli_num(runs, "sd") / 1e6);
        else /* (sd null: one run has no spread) */
            fputs(" (a single run)", out);
        fprintf(out, "</td><td>%.1f</td></tr>\n",
                cli_num(obj(p, "metrics"), "per_file_mean_ns") / 1e3);
    }
    fputs("</table>\n", out);
}

/* Markup around two strings from a results file, both escaped. */
static void html_pair(FILE *out, const char *open, const char *a, const char *mid, const char *b,
                      const char *close)
{
    fputs(open, out);
    cli_html_esc(out, a);
    fputs(mid, out);
    cli_html_esc(out, b);
    fputs(close, out);
}

int cli_report_html(FILE *out, const cJSON *doc, const struct sts_analysis *an,
                    const struct sts_summary_sink *summary)
{
    const cJSON *run = obj(doc, "run"), *env = obj(doc, "environment"), *kv;
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<title>storscope report</title>\n<style>body{font-family:sans-serif;max-width:64em;"
          "margin:1em auto;padding:0 1em;color:#222}table{border-collapse:collapse;margin:.5em 0}"
          "td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left;vertical-align:top}"
          "figure{margin:1em 0}svg{max-width:100%;height:auto}</style>\n</head><body>\n", out);
    fputs("<h1>storscope report</h1>\n<p>Target <code>", out);
    cli_html_esc(out, cJSON_IsString(obj(run, "target")) ? obj(run, "target")->valuestring : "?");
    fputs("</code>, scale ", out);
    cli_html_esc(out, cJSON_IsString(obj(run, "scale")) ? obj(run, "scale")->valuestring : "?");
    fputs(", started ", out);
    cli_html_esc(out, cJSON_IsString(obj(run, "started_at")) ? obj(run, "started_at")->valuestring : "-");
    fputs(".</p>\n", out);
    /* the terminal's first screen, line for line: the same figures in the
     * same units, and why a test or a point did not apply */
    fputs("<h2>Summary</h2>\n<table class=\"summary\">\n", out);
    for (size_t i = 0; i < summary->n; i++) {
        const char *text = summary->line[i].text;
        /* less the terminal's column alignment */
        html_pair(out, "<tr><th>", summary->line[i].id, "</th><td>", text + strspn(text, " "),
                  "</td></tr>\n");
    }
    fprintf(out, "</table>\n<p>%u test%s ok, %u failed, %u not applicable.%s</p>\n",
            summary->tests_ok, summary->tests_ok == 1 ? "" : "s", summary->tests_failed,
            summary->tests_skipped,
            summary->virtual_clock ? " Times are " STS_VIRTUAL_TIME "." : "");
    fputs("<h2>Guidelines for this device</h2>\n<ol>\n", out);
    for (size_t i = 0; i < an->n_guidelines; i++) {
        fputs("<li>", out);
        cli_html_esc(out, an->guideline[i].text);
        fputs("</li>\n", out);
    }
    char kind[64];
    const char *detail;
    size_t open = 0;
    for (size_t i = 0; i < an->n_findings; i++)
        open += (size_t)cli_unresolved(&an->finding[i], kind, sizeof(kind), &detail);
    if (!an->n_guidelines)
        fputs(open ? "<li>None resolved.</li>\n" : "<li>None: no guideline without evidence.</li>\n",
              out);
    fputs("</ol>\n", out);
    if (open)
        fputs("<p>Not resolved within the noise, so no guideline is given for:</p>\n<ul>\n", out);
    for (size_t i = 0; i < an->n_findings; i++)
        if (cli_unresolved(&an->finding[i], kind, sizeof(kind), &detail)) {
            html_pair(out, "<li><b>", kind, "</b> (", an->finding[i].test, "): ");
            cli_html_esc(out, detail);
            fputs("</li>\n", out);
        }
    if (open)
        fputs("</ul>\n", out);
    cli_print_probe(out, doc, 1);
    fputs("<h2>Findings</h2>\n<ul>\n", out);
    for (size_t i = 0; i < an->n_findings; i++)
        html_pair(out, "<li><b>", an->finding[i].test, "</b>: ", an->finding[i].text, "</li>\n");
    fputs("</ul>\n<h2>Figures</h2>\n", out);
    int figures = 0;
    if (report_have_gnuplot()) {
        figures += sweep_plot(out, doc, "B0", "B0: throughput against chunk size, ");
        figures += sweep_plot(out, doc, "B1", "B1: throughput against chunk size, ");
        figures += sweep_plot(out, doc, "B2", "B2: fixed iteration count, 1 B .. 2 MiB");
        figures += m1_plot(out, doc);
        figures += s2_plot(out, doc);
        figures += fsync_hist_plot(out, doc);
        figures += fsync_plot(out, doc);
        figures += report_system_figures(out, doc);
        if (!figures)
            fputs("<p>The results hold no series to plot.</p>\n", out);
    } else {
        fputs("<p>Figures need gnuplot: <code>apt-get install gnuplot-nox</code>, then run "
              "<code>storscope report</code> again.</p>\n", out);
    }
    fsync_table(out, doc, an);
    s2_table(out, doc);
    report_system_tables(out, doc);
    fputs("<h2>Environment</h2>\n<table>\n", out);
    cJSON_ArrayForEach(kv, env)
    {
        fputs("<tr><td>", out);
        cli_html_esc(out, kv->string);
        fputs("</td><td>", out);
        if (cJSON_IsString(kv))
            cli_html_esc(out, kv->valuestring);
        else
            fprintf(out, "%.15g", kv->valuedouble);
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n</body></html>\n", out);
    return figures;
}
