/* storscope db trend FIGURE: one of compare's headline figures across the
 * archived runs, oldest first - a card's figure over its firmware updates,
 * a fleet's over time - as text, and with -o as an HTML page with the
 * figure drawn against the days since the first run (gnuplot). */
#define _GNU_SOURCE
#include "cli.h"
#include "db.h"
#include "report_plot.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* "2026-12-07T14:23:13Z" as seconds since the epoch; NAN when it is not */
static double iso_seconds(const char *s)
{
    struct tm tm;
    memset(&tm, 0, sizeof(tm));
    const char *end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
    return end ? (double)timegm(&tm) : NAN;
}

/* a figure's value as drawn: rates in bytes/s (the plot picks the unit),
 * times in ms */
static double plot_y(long figure, double v)
{
    return cli_figure_unit((size_t)figure) == FIGURE_NS ? v / 1e6 : v;
}

/* METRIC names one of compare's figures: its label, or a part of it
 * that no other label holds (case aside); -1 after saying which there are. */
static long find_figure(const char *metric)
{
    long hit = -1, hits = 0;
    for (size_t k = 0; k < cli_figure_count(); k++) {
        const char *label = cli_figure_label(k);
        if (!strcasecmp(label, metric))
            return (long)k;
        if (strcasestr(label, metric)) {
            hit = (long)k;
            hits++;
        }
    }
    if (hits == 1)
        return hit;
    cli_error("'%s' %s; the figures (compare's):", metric,
              hits ? "names more than one figure" : "names no figure");
    for (size_t k = 0; k < cli_figure_count(); k++)
        fprintf(stderr, "  %s\n", cli_figure_label(k));
    return -1;
}

struct trend_ctx {
    const struct db_ops *ops;
    void *db;
    long figure;
    size_t shown;
    double first, last, lo, hi;
    char lo_text[48], hi_text[48];
    int failed;
    FILE *html;              /* -o: the table's rows go here too */
    struct plot *plot;       /* and the values, against days since the first run */
    double t0;               /* the first run's start, s since the epoch (NAN: not yet) */
    char err[256];
};

static int trend_run(void *arg, const struct db_run *r)
{
    struct trend_ctx *x = arg;
    char *text = NULL;
    if (x->ops->document(x->db, r->id, &text, x->err, sizeof(x->err))) {
        x->failed = 1;
        return 1;
    }
    cJSON *doc = cJSON_Parse(text);
    free(text);
    double v;
    char shown[48];
    if (doc && cli_figure_get((size_t)x->figure, doc, &v, shown, sizeof(shown))) {
        if (!x->shown++)
            x->first = v;
        if (x->shown == 1 || v < x->lo) {
            x->lo = v;
            snprintf(x->lo_text, sizeof(x->lo_text), "%s", shown);
        }
        if (x->shown == 1 || v > x->hi) {
            x->hi = v;
            snprintf(x->hi_text, sizeof(x->hi_text), "%s", shown);
        }
        x->last = v;
        const char *when = *r->started_at ? r->started_at : r->imported_at;
        printf("%-5lld %-20s %-14s %s\n", (long long)r->id, when, shown, r->target);
        if (x->html) {
            double t = iso_seconds(when);
            if (isnan(x->t0))
                x->t0 = t;
            if (!isnan(t))
                report_add_xy(x->plot, 0, (t - x->t0) / 86400.0, plot_y(x->figure, v));
            fprintf(x->html, "<tr><td>%lld</td><td>", (long long)r->id);
            cli_html_esc(x->html, when);
            fputs("</td><td>", x->html);
            cli_html_esc(x->html, shown);
            fputs("</td><td>", x->html);
            cli_html_esc(x->html, r->target);
            fputs("</td></tr>\n", x->html);
        }
    }
    cJSON_Delete(doc);
    return 0;
}

/* One figure across the archived runs, oldest first: a card's figure over
 * its firmware updates, a fleet's over time. */
int db_trend(const struct db_opts *o, int n, char **args)
{
    if (n != 1) {
        cli_error("db trend needs one figure's name (as compare labels it: 'fsync p99.99')");
        return EXIT_USAGE;
    }
    long figure = find_figure(args[0]);
    if (figure < 0)
        return EXIT_USAGE;
    const struct db_ops *ops;
    char where[4096], err[256];
    void *ctx, *lister;
    if (db_open_two(o, &ops, where, sizeof(where), &lister, &ctx))
        return EXIT_USAGE;
    const char *label = cli_figure_label((size_t)figure);
    printf("%s, run by run:\n%-5s %-20s %-14s %s\n", label, "id", "started", "value", "target");
    struct db_filter f;
    db_filter_of(o, &f);
    static struct plot plot; /* 64 KiB of points: not on the stack */
    memset(&plot, 0, sizeof(plot));
    struct trend_ctx x = {.ops = ops, .db = ctx, .figure = figure, .plot = &plot, .t0 = NAN};
    static struct cli_out out;
    if (o->output) {
        if (cli_out_open(&out, "-o", o->output)) {
            ops->close(lister);
            ops->close(ctx);
            return EXIT_USAGE;
        }
        x.html = out.f;
        fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>storscope db trend: ",
              x.html);
        cli_html_esc(x.html, label);
        fputs("</title></head><body>\n<h1>", x.html);
        cli_html_esc(x.html, label);
        fputs(", run by run</h1>\n<table><tr><th>run</th><th>started</th><th>value</th>"
              "<th>target</th></tr>\n", x.html);
    }
    int rc = ops->list(lister, &f, trend_run, &x, err, sizeof(err));
    ops->close(lister);
    ops->close(ctx);
    if (x.html) {
        fputs("</table>\n", x.html);
        plot.title = label;
        plot.xlabel = "days since the first run";
        plot.ylabel = cli_figure_unit((size_t)figure) == FIGURE_NS ? "ms" : "";
        plot.y_rate = cli_figure_unit((size_t)figure) == FIGURE_BYTES_PER_SECOND;
        plot.names[0] = label;
        plot.n = 1;
        if (!report_have_gnuplot())
            fputs("<p>(no figure: gnuplot is not installed - Debian's gnuplot-nox)</p>\n",
                  x.html);
        else if (report_render(x.html, &plot) < 0)
            fputs("<p>(no figure: gnuplot failed)</p>\n", x.html);
        fputs("</body></html>\n", x.html);
        if (cli_out_close(&out, !rc && !x.failed) && !rc && !x.failed) {
            cli_error("-o %s: cannot write it", o->output);
            return EXIT_RUN_FAILED;
        }
    }
    if (rc || x.failed) {
        cli_error("archive %s: %s", where, rc ? err : x.err);
        return EXIT_RUN_FAILED;
    }
    if (!x.shown)
        printf("no archived run that matches has it\n");
    else if (x.first != 0)
        printf("%zu run%s; the last is %.2fx the first (lowest %s, highest %s)\n", x.shown,
               x.shown == 1 ? "" : "s", x.last / x.first, x.lo_text, x.hi_text);
    return EXIT_OK;
}

