/* `storscope report plan.json [-o plan.html]`: a saved plan (storscope-plan/1)
 * read back - the recommendation, the Pareto front and the ranking - and
 * its HTML section with the front plotted: worst stall against RAM, every
 * configuration that ran, the fitting ones apart, the front and the
 * recommended one marked (issue 47). Everything shown is the file's. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "json_in.h"
#include "report_plot.h"
#include "storscope/output.h"
#include "storscope/units.h"

#include <stdio.h>
#include <string.h>

static const cJSON *obj(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

static const char *text_of(const cJSON *o, const char *k)
{
    const cJSON *v = obj(o, k);
    return cJSON_IsString(v) ? v->valuestring : "?";
}

/* "bare extents, iotask, 1 KiB buffer, syncs every 62.5 ms: RAM 1 KiB, worst
 * stall 2.10 ms, 750 B at risk, 6.2 years" */
static void config_line(const cJSON *c, char *b, size_t n)
{
    char buf[24], sync[24], ram[24], stall[24], risk[24];
    sts_fmt_bytes(buf, sizeof(buf), (uint64_t)cli_num(c, "buffer_bytes"));
    sts_fmt_ns(sync, sizeof(sync), cli_num(c, "sync_interval_ns"));
    sts_fmt_bytes(ram, sizeof(ram), (uint64_t)cli_num(c, "ram_bytes"));
    sts_fmt_ns(stall, sizeof(stall), cli_num(c, "worst_stall_ns"));
    sts_fmt_bytes(risk, sizeof(risk), (uint64_t)cli_num(c, "at_risk_bytes"));
    double years = cli_num(c, "lifetime_years");
    char life[64] = "";
    if (years > 0)
        snprintf(life, sizeof(life), ", %.1f years", years);
    const cJSON *joules = obj(c, "energy_per_day_j");
    if (cJSON_IsNumber(joules)) /* (no energy model: null) */
        snprintf(life + strlen(life), sizeof(life) - strlen(life), ", %.3g J a day",
                 joules->valuedouble);
    const cJSON *held = obj(c, "power_cuts_held");
    snprintf(b, n, "%s, %s, %s buffer, syncs every %s: RAM %s, worst stall %s, %s at risk%s%s%s",
             text_of(c, "store"), text_of(c, "writer"), buf, sync, ram, stall, risk,
             cJSON_IsTrue(held)    ? " (power cuts: held)"
             : cJSON_IsFalse(held) ? " (power cuts: LOST SYNCED DATA)"
                                   : "",
             life, cJSON_IsTrue(obj(c, "lossless")) ? "" : ", LOSES RECORDS");
}

/* the recommended configuration (the file names its rank), or NULL */
static const cJSON *recommended(const cJSON *doc)
{
    const cJSON *r = obj(doc, "recommended"), *c;
    if (!cJSON_IsNumber(r))
        return NULL;
    cJSON_ArrayForEach(c, obj(doc, "configurations"))
    if (cli_num(c, "rank") == r->valuedouble)
        return c;
    return NULL;
}

static void print_text(const cJSON *doc, const char *file)
{
    const cJSON *spec = obj(doc, "spec"), *cs = obj(doc, "configurations"), *c;
    size_t n = 0, fit = 0, front = 0, ran = 0;
    cJSON_ArrayForEach(c, cs)
    {
        n++;
        ran += cJSON_IsTrue(obj(c, "ran"));
        fit += cJSON_IsTrue(obj(c, "fits"));
        front += cJSON_IsTrue(obj(c, "front"));
    }
    char ram[24];
    sts_fmt_bytes(ram, sizeof(ram), (uint64_t)cli_num(spec, "ram_bytes"));
    printf("storscope report: %s (storscope plan on %s, RAM %s)\n\n", file,
           text_of(spec, "medium"), ram);
    printf("  %zu configurations judged, %zu ran, %zu fit, %zu on the Pareto front\n", n, ran,
           fit, front);
    char line[320];
    const cJSON *rec = recommended(doc);
    if (rec) {
        config_line(rec, line, sizeof(line));
        printf("  recommended: %s\n", line);
    } else {
        printf("  recommended: none fits\n");
    }
    printf("\n  the front (fitting, no other better on every figure):\n");
    cJSON_ArrayForEach(c, cs)
    if (cJSON_IsTrue(obj(c, "front")) && cJSON_IsTrue(obj(c, "fits"))) {
        config_line(c, line, sizeof(line));
        printf("  %4.0f. %s\n", cli_num(c, "rank"), line);
    }
}

/* the HTML page: the spec, the recommendation, the figure, the ranking */
static int write_html(FILE *out, const cJSON *doc, const char *file)
{
    const cJSON *spec = obj(doc, "spec"), *cs = obj(doc, "configurations"), *c;
    fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>storscope plan</title>\n"
          "<style>body{font-family:sans-serif;max-width:72em;margin:auto}"
          "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;"
          "text-align:right}td:nth-child(2),td:nth-child(3){text-align:left}"
          "tr.fits{background:#eef8ee}tr.front{font-weight:bold}</style></head><body>\n"
          "<h1>storscope plan</h1>\n<p>",
          out);
    cli_html_esc(out, file);
    fputs(": on <code>", out);
    cli_html_esc(out, text_of(spec, "medium"));
    fputs("</code>.</p>\n<h2>Recommended</h2>\n<p>", out);
    char line[320];
    const cJSON *rec = recommended(doc);
    if (rec) {
        config_line(rec, line, sizeof(line));
        cli_html_esc(out, line);
        fputs("</p>\n<p>Measured again by: <code>", out);
        cli_html_esc(out, text_of(rec, "command"));
        fputs("</code>", out);
    } else {
        fputs("None fits.", out);
    }
    fputs("</p>\n<h2>The Pareto front</h2>\n", out);
    int figures = 0;
    if (report_have_gnuplot()) {
        static struct plot p;
        memset(&p, 0, sizeof(p));
        p.title = "Worst stall against RAM, every configuration that ran";
        p.xlabel = "RAM: buffer + store state (bytes)";
        p.ylabel = "worst stall (ms)";
        p.logx = 1;
        p.logy = 2;
        p.names[0] = "does not fit";
        p.names[1] = "fits";
        p.names[2] = "on the front";
        p.names[3] = "recommended";
        p.n = 4;
        cJSON_ArrayForEach(c, cs)
        {
            double x = cli_num(c, "ram_bytes"), y = cli_num(c, "worst_stall_ns") / 1e6;
            if (!cJSON_IsTrue(obj(c, "ran")) || !(x > 0) || !(y > 0))
                continue;
            int s = !cJSON_IsTrue(obj(c, "fits")) ? 0 : cJSON_IsTrue(obj(c, "front")) ? 2 : 1;
            report_add_xy(&p, s, x, y);
            if (c == rec)
                report_add_xy(&p, 3, x, y);
        }
        int rc = report_render(out, &p);
        figures += rc == 0;
    } else {
        fputs("<p>The figure needs gnuplot: <code>apt-get install gnuplot-nox</code>.</p>\n", out);
    }
    fputs("<h2>Every configuration, ranked</h2>\n<table><tr><th>rank</th><th>store</th>"
          "<th>writer</th><th>buffer (B)</th><th>sync every (ms)</th><th>RAM (B)</th>"
          "<th>worst stall (ms)</th><th>at risk (B)</th><th>lost</th><th>late</th>"
          "<th>lifetime (years)</th><th>energy (J/day)</th></tr>\n",
          out);
    cJSON_ArrayForEach(c, cs)
    {
        int fits = cJSON_IsTrue(obj(c, "fits")), front = cJSON_IsTrue(obj(c, "front"));
        fprintf(out, "<tr class=\"%s%s\"><td>%.0f</td><td>", fits ? "fits" : "",
                fits && front ? " front" : "", cli_num(c, "rank"));
        cli_html_esc(out, text_of(c, "store"));
        fputs("</td><td>", out);
        cli_html_esc(out, text_of(c, "writer"));
        if (!cJSON_IsTrue(obj(c, "ran"))) {
            fprintf(out, "</td><td>%.0f</td><td>%.1f</td><td colspan=\"7\">not run</td></tr>\n",
                    cli_num(c, "buffer_bytes"), cli_num(c, "sync_interval_ns") / 1e6);
            continue;
        }
        char joules[24] = "-";
        const cJSON *e = obj(c, "energy_per_day_j");
        if (cJSON_IsNumber(e))
            snprintf(joules, sizeof(joules), "%.3g", e->valuedouble);
        fprintf(out, "</td><td>%.0f</td><td>%.1f</td><td>%.0f</td><td>%.3f</td><td>%.0f</td>"
                     "<td>%.0f</td><td>%.0f</td><td>%.1f</td><td>%s</td></tr>\n",
                cli_num(c, "buffer_bytes"), cli_num(c, "sync_interval_ns") / 1e6,
                cli_num(c, "ram_bytes"), cli_num(c, "worst_stall_ns") / 1e6,
                cli_num(c, "at_risk_bytes"), cli_num(c, "records_lost"),
                cli_num(c, "records_late"), cli_num(c, "lifetime_years"), joules);
    }
    fputs("</table>\n<p>Bold: on the Pareto front (no other fitting configuration is as good "
          "on every figure and better on one); green: fits (lossless, within the RAM, syncing "
          "often enough, lasting as asked). docs/plan.md says how each figure is measured.</p>\n"
          "</body></html>\n",
          out);
    return figures;
}

int cli_report_plan(const cJSON *doc, const char *file, const char *html)
{
    if (!cJSON_IsArray(obj(doc, "configurations")) || !cJSON_IsObject(obj(doc, "spec"))) {
        cli_error("%s: a storscope-plan/1 document without its spec or configurations "
                  "(docs/storscope-plan.schema.json)", file);
        return EXIT_USAGE;
    }
    static struct cli_out out;
    if (html && cli_out_open(&out, "-o", html))
        return EXIT_USAGE;
    print_text(doc, file);
    if (!html)
        return EXIT_OK;
    int figures = write_html(out.f, doc, file);
    if (cli_out_close(&out, 1))
        return EXIT_RUN_FAILED;
    printf("report: %s (%d figure%s)\n", html, figures, figures == 1 ? "" : "s");
    return EXIT_OK;
}
