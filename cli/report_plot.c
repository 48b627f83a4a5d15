/* gnuplot figures rendered to SVG and inlined into the HTML report. */
#define _GNU_SOURCE
#include "report_plot.h"
#include "storscope/units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int report_have_gnuplot(void)
{
    return system("gnuplot -e 'exit' >/dev/null 2>&1") == 0;
}


void report_add_xy(struct plot *p, int s, double x, double y)
{
    if ((p->logy && !(y > 0)) || (p->logx && !(x > 0)))
        return; /* a log scale has no place for it (an S2 open+close of 0 ns) */
    if (p->xmax == 0 || x < p->xmin)
        p->xmin = x;
    if (x > p->xmax)
        p->xmax = x;
    if (y > p->ymax)
        p->ymax = y;
    if (y > 0 && (p->ymin == 0 || y < p->ymin))
        p->ymin = y;
    size_t len = strlen(p->data[s]);
    snprintf(p->data[s] + len, sizeof(p->data[s]) - len, "%.9g %.9g\n", x, y);
}

/* Renders with gnuplot into an SVG string inlined into out. */
int report_render(FILE *out, const struct plot *p)
{
    int drawn = 0;
    for (int s = 0; s < p->n; s++)
        drawn += p->data[s][0] != '\0';
    if (!drawn)
        return 1;
    /* a rate in the binary unit its largest value needs, as the terminal says it */
    static const char *const units[] = {"B/s", "KiB/s", "MiB/s", "GiB/s"};
    int u = 0;
    double div = 1;
    while (p->y_rate && u < 3 && p->ymax >= div * 1024) {
        div *= 1024;
        u++;
    }
    /* a log axis of rates over many decades: one unit for all of it printed
     * 0.0000010 GiB/s at its foot, so there each tic says its own */
    int rate_tics = p->y_rate && p->logy && p->ymin > 0 && p->ymin / div < 0.01;
    if (rate_tics)
        div = 1;
    char script[] = "/tmp/storscope-plot-XXXXXX";
    int fd = mkstemp(script);
    if (fd < 0)
        return -1;
    char svg[sizeof(script) + 8];
    snprintf(svg, sizeof(svg), "%s.svg", script);
    FILE *g = fdopen(fd, "w");
    if (!g) {
        close(fd);
        unlink(script);
        return -1;
    }
    fprintf(g, "set terminal svg size 760,400 font 'sans,12' background '#ffffff'\n");
    /* the legend under the plot: it never covers a point */
    fprintf(g, "set output '%s'\nset grid\nset key below\n", svg);
    fprintf(g, "set title '%s'\nset xlabel '%s'\n", p->title, p->xlabel);
    if (p->y_rate && !rate_tics)
        fprintf(g, "set ylabel '%s (%s)'\n", p->ylabel, units[u]);
    else
        fprintf(g, "set ylabel '%s'\n", p->ylabel);
    if (rate_tics) { /* powers of two, 4x apart (16x over more than 16 of them) */
        double lo = 1, step = p->ymax / p->ymin > 65536.0 ? 16 : 4;
        while (lo * 2 <= p->ymin)
            lo *= 2;
        fprintf(g, "set ytics (");
        for (double y = lo; y <= p->ymax * 2; y *= step) {
            char lab[24];
            sts_fmt_bytes(lab, sizeof(lab), (uint64_t)y);
            fprintf(g, "%s\"%s/s\" %.0f", y == lo ? "" : ", ", lab, y);
        }
        fprintf(g, ")\n");
    } else if (!p->logy && !p->boxes) {
        fprintf(g, "set yrange [0:*]\n"); /* a linear axis from 0: 655-695 us is not a cliff */
    }
    if (p->logx == 2)
        fprintf(g, "set logscale x\n");
    if (p->logx == 1) { /* binary sizes on the tics: 1 B, 4 B ... 1 KiB ... 2 MiB */
        fprintf(g, "set logscale x 2\nset xtics (");
        int first = 1;
        for (double x = 1; x <= p->xmax * 1.01; x *= 4)
            if (x >= p->xmin / 1.01) {
                char lab[24];
                sts_fmt_bytes(lab, sizeof(lab), (uint64_t)x);
                fprintf(g, "%s\"%s\" %.0f", first ? "" : ", ", lab, x);
                first = 0;
            }
        fprintf(g, ")\n");
    }
    if (p->logy)
        fprintf(g, "set logscale y\n");
    for (int s = 0; s < p->n; s++)
        fprintf(g, "$d%d << EOD\n%sEOD\n", s, p->data[s]);
    if (p->xtics)
        fprintf(g, "set xtics %s\n", p->xtics);
    if (p->boxes)
        fprintf(g, "set style fill solid 0.6\nset boxwidth 0.6\nset yrange [0:*]\n");
    fprintf(g, "plot ");
    int first = 1;
    for (int s = 0; s < p->n; s++) {
        if (!p->data[s][0])
            continue;
        fprintf(g, "%s$d%d using 1:($2/%.0f) with %s title '%s'", first ? "" : ", ", s, div,
                p->boxes ? "boxes" : "linespoints lw 2 pt 7", p->names[s]);
        first = 0;
    }
    for (int f = 0; f < p->n_fn; f++)
        fprintf(g, ", %s with lines lw 2 dt 2 title '%s'", p->fn[f], p->fn_names[f]);
    fprintf(g, "\n");
    fclose(g);
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "gnuplot '%s' 2>/dev/null", script);
    int rc = system(cmd);
    unlink(script);
    FILE *in = rc == 0 ? fopen(svg, "r") : NULL;
    if (!in) {
        unlink(svg);
        return -1;
    }
    char line[4096];
    fputs("<figure>", out);
    while (fgets(line, sizeof(line), in))
        if (strncmp(line, "<?xml", 5) && strncmp(line, "<!DOCTYPE", 9) &&
            !strstr(line, "svg11.dtd"))
            fputs(line, out);
    fputs("</figure>\n", out);
    fclose(in);
    unlink(svg);
    return 0;
}

