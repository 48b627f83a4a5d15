/* Report figures and tables of the system-level tests: concurrency (S1),
 * aging (M2) and sustained logging (L1). */
#include "report_system.h"
#include "cli.h"
#include "json_in.h"
#include "report_plot.h"
#include "storscope/output.h"

#include <stdio.h>
#include <string.h>

static const char *const modes[3] = {"direct", "mutex", "iotask"};

static const cJSON *obj(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

static const char *str(const cJSON *o, const char *k)
{
    const cJSON *v = obj(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static int mode_index(const cJSON *params)
{
    for (int i = 0; i < 3; i++)
        if (!strcmp(str(params, "mode"), modes[i]))
            return i;
    return -1;
}

/* S1: write throughput against load tasks, one line per mode (log y, as
 * the study plots it), at 1 KiB chunks or the largest chunk below. */
static int s1_plot(FILE *out, const cJSON *t)
{
    double chunk = 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, obj(t, "points"))
    {
        double c = cli_num(obj(p, "params"), "chunk_bytes");
        if (c <= 1024 && c > chunk)
            chunk = c;
    }
    char title[96];
    snprintf(title, sizeof(title), "S1: write throughput with CPU-load tasks (%.0f B chunks)",
             chunk);
    struct plot pl = {.title = title, .xlabel = "load tasks", .ylabel = "throughput",
                      .logy = 1, .names = {"direct", "mutex", "iotask"}, .n = 3, .y_rate = 1};
    cJSON_ArrayForEach(p, obj(t, "points"))
    {
        const cJSON *prm = obj(p, "params");
        int m = mode_index(prm);
        if (m < 0 || strcmp(str(p, "name"), "write") || cli_num(prm, "chunk_bytes") != chunk ||
            !obj(p, "runs"))
            continue;
        report_add_xy(&pl, m, cli_num(prm, "load_tasks"), cli_num(obj(p, "runs"), "mean"));
    }
    return report_render(out, &pl) == 0;
}

/* M2: latency against time with the fitted exponentials, and against free space. */
static int m2_plots(FILE *out, const cJSON *t)
{
    static const char *const ops[] = {"create_ns", "open_ns", "flush_ns", "close_ns"};
    struct plot time = {.title = "M2: latency of each lifecycle operation over time",
                        .xlabel = "time (days)", .ylabel = "latency (ms)", .logy = 1,
                        .names = {"create", "open", "flush", "close"}, .n = 4};
    struct plot space = {.title = "M2: latency against free space", .xlabel = "free space (MiB)",
                         .ylabel = "latency (ms)", .logy = 1, .names = {"create", "open"},
                         .n = 2};
    const cJSON *p;
    double span_ns = 0;
    cJSON_ArrayForEach(p, obj(t, "points"))
    {
        double tn = cli_num(obj(p, "metrics"), "t_ns");
        span_ns = tn > span_ns ? tn : span_ns;
    }
    /* back-to-back runs last seconds: days (and per-day fits) would say nothing */
    int in_days = span_ns >= 3600e9;
    if (!in_days)
        time.xlabel = "time (s)";
    cJSON_ArrayForEach(p, obj(t, "points"))
    {
        const cJSON *m = obj(p, "metrics");
        double days = cli_num(m, "t_ns") / (in_days ? 86400e9 : 1e9);
        double free_mib = cli_num(m, "free_bytes") / 1048576;
        for (int i = 0; i < 4; i++) {
            double v = cli_num(m, ops[i]) / 1e6;
            if (v > 0) /* a log axis cannot show 0 */
                report_add_xy(&time, i, days, v);
            if (i < 2 && v > 0)
                report_add_xy(&space, i, free_mib, v);
        }
    }
    static const char *const fit_of[] = {"create", "open"};
    static const char *const fit_name[] = {"create: fitted A exp(B t)", "open: fitted A exp(B t)"};
    for (int i = 0; i < 2 && in_days; i++) {
        char ka[32], kb[32];
        snprintf(ka, sizeof(ka), "%s_exp_a_ns", fit_of[i]);
        snprintf(kb, sizeof(kb), "%s_exp_b_per_day", fit_of[i]);
        if (!cJSON_IsNumber(obj(t, ka)))
            continue;
        snprintf(time.fn[time.n_fn], sizeof(time.fn[0]), "%.9g*exp(%.9g*x)",
                 cli_num(t, ka) / 1e6, cli_num(t, kb));
        time.fn_names[time.n_fn++] = fit_name[i];
    }
    int n = report_render(out, &time) == 0;
    return n + (report_render(out, &space) == 0);
}

/* L1: the RAM each architecture needed at the nominal rates. */
static int l1_plot(FILE *out, const cJSON *t)
{
    struct plot pl = {.title = "L1: buffer occupancy - most RAM the waiting records took",
                      .xlabel = "writer", .ylabel = "peak buffer (KiB)",
                      .names = {"peak at the nominal rates"}, .n = 1,
                      .xtics = "(\"direct\" 0, \"mutex\" 1, \"iotask\" 2)", .boxes = 1};
    const cJSON *p;
    int any = 0;
    cJSON_ArrayForEach(p, obj(t, "points"))
    {
        int m = mode_index(obj(p, "params"));
        if (m < 0 || strcmp(str(p, "name"), "sustained") || !obj(p, "metrics"))
            continue;
        report_add_xy(&pl, 0, m, cli_num(obj(p, "metrics"), "required_buffer_bytes") / 1024);
        any = 1;
    }
    if (!any)
        return 0;
    pl.xmin = -0.5;
    return report_render(out, &pl) == 0;
}

int report_system_figures(FILE *out, const cJSON *doc)
{
    int n = 0;
    const cJSON *t;
    if ((t = cli_test(doc, "S1")) && obj(t, "points"))
        n += s1_plot(out, t);
    if ((t = cli_test(doc, "M2")) && cJSON_GetArraySize(obj(t, "points")) > 0)
        n += m2_plots(out, t);
    if ((t = cli_test(doc, "L1")))
        n += l1_plot(out, t);
    return n;
}

static void m2_table(FILE *out, const cJSON *t)
{
    static const char *const ops[] = {"create", "open", "flush", "close"};
    fprintf(out, "<h2>M2: aging fits (t in days; the study's Figure 8)</h2>\n<table><tr>"
                 "<th>operation</th><th>line slope (ms/day)</th><th>line R&sup2;</th>"
                 "<th>A (ms)</th><th>B (1/day)</th><th>exp R&sup2;</th></tr>\n");
    for (int i = 0; i < 4; i++) {
        char k[5][48];
        snprintf(k[0], sizeof(k[0]), "%s_line_slope_ns_per_day", ops[i]);
        snprintf(k[1], sizeof(k[1]), "%s_line_r2", ops[i]);
        snprintf(k[2], sizeof(k[2]), "%s_exp_a_ns", ops[i]);
        snprintf(k[3], sizeof(k[3]), "%s_exp_b_per_day", ops[i]);
        snprintf(k[4], sizeof(k[4]), "%s_exp_r2", ops[i]);
        if (!cJSON_IsNumber(obj(t, k[0])))
            continue;
        fprintf(out, "<tr><td>%s</td><td>%.4g</td><td>%.4f</td>", ops[i], cli_num(t, k[0]) / 1e6,
                cli_num(t, k[1]));
        if (cJSON_IsNumber(obj(t, k[2])))
            fprintf(out, "<td>%.4g</td><td>%.4g</td><td>%.4f</td></tr>\n", cli_num(t, k[2]) / 1e6,
                    cli_num(t, k[3]), cli_num(t, k[4]));
        else
            fputs("<td>-</td><td>-</td><td>-</td></tr>\n", out);
    }
    fputs("</table>\n", out);
    if (cJSON_IsNumber(obj(t, "create_threshold_free_bytes")))
        fprintf(out, "<p>Create latency first exceeded the threshold with %.1f MiB free.</p>\n",
                cli_num(t, "create_threshold_free_bytes") / 1048576);
}

static void l1_table(FILE *out, const cJSON *t)
{
    fputs("<h2>L1: sustained logging (streams <code>", out);
    cli_html_esc(out, str(obj(t, "params"), "streams"));
    fputs("</code>)</h2>\n<table><tr>"
          "<th>run</th><th>writer</th><th>rate</th><th>payload</th>"
          "<th>records</th><th>lost</th><th>late</th><th>worst stall (ms)</th>"
          "<th>buffer needed (B)</th></tr>\n",
          out);
    const cJSON *p;
    cJSON_ArrayForEach(p, obj(t, "points"))
    {
        const cJSON *m = obj(p, "metrics"), *prm = obj(p, "params");
        if (!m)
            continue;
        fputs("<tr><td>", out);
        cli_html_esc(out, str(p, "name"));
        fputs("</td><td>", out);
        cli_html_esc(out, str(prm, "mode"));
        char payload[32];
        sts_fmt_rate(payload, sizeof(payload), cli_num(obj(p, "runs"), "mean"));
        fprintf(out, "</td><td>%.2fx</td><td>%s</td><td>%.0f</td>"
                     "<td>%.0f</td><td>%.0f</td><td>%.3f</td><td>%.0f</td></tr>\n",
                cli_num(prm, "rate_scale"), payload, cli_num(m, "records_produced"),
                cli_num(m, "records_lost"), cli_num(m, "records_late"),
                cli_num(m, "worst_stall_ns") / 1e6, cli_num(m, "required_buffer_bytes"));
    }
    fputs("</table>\n", out);
}

static void s1_table(FILE *out, const cJSON *t)
{
    /* mean degradation over chunk sizes per mode, op and load level */
    double sum[3][2][5] = {{{0}}};
    int n[3][2][5] = {{{0}}};
    const cJSON *p;
    cJSON_ArrayForEach(p, obj(t, "points"))
    {
        const cJSON *prm = obj(p, "params");
        int m = mode_index(prm), w = !strcmp(str(p, "name"), "write");
        double lt = cli_num(prm, "load_tasks");
        if (m < 0 || !(lt >= 0 && lt <= 4) || !obj(p, "metrics")) /* NaN too */
            continue;
        int l = (int)lt;
        sum[m][w][l] += cli_num(obj(p, "metrics"), "degradation");
        n[m][w][l]++;
    }
    fputs("<h2>S1: throughput lost to CPU-load tasks (mean over chunk sizes)</h2>\n<table><tr>"
          "<th>access</th><th>op</th><th>1 task</th><th>2</th><th>3</th><th>4</th></tr>\n",
          out);
    for (int m = 0; m < 3; m++)
        for (int w = 1; w >= 0; w--) {
            if (!n[m][w][4])
                continue;
            fprintf(out, "<tr><td>%s</td><td>%s</td>", modes[m], w ? "write" : "read");
            for (int l = 1; l <= 4; l++)
                fprintf(out, "<td>%.0f %%</td>", n[m][w][l] ? 100 * sum[m][w][l] / n[m][w][l] : 0);
            fputs("</tr>\n", out);
        }
    fputs("</table>\n", out);
}

void report_system_tables(FILE *out, const cJSON *doc)
{
    const cJSON *t;
    if ((t = cli_test(doc, "S1")) && cJSON_GetArraySize(obj(t, "points")) > 0)
        s1_table(out, t);
    if ((t = cli_test(doc, "M2")) && cJSON_GetArraySize(obj(t, "points")) > 0)
        m2_table(out, t);
    if ((t = cli_test(doc, "L1")) && cJSON_GetArraySize(obj(t, "points")) > 0)
        l1_table(out, t);
}
