/* Figures of the HTML report: series of x y points (and fitted curves)
 * rendered by gnuplot to an inline SVG. */
#ifndef STORSCOPE_CLI_REPORT_PLOT_H
#define STORSCOPE_CLI_REPORT_PLOT_H

#include <stdio.h>

/* One data block per series: "x y" lines. */
struct plot {
    const char *title, *xlabel, *ylabel;
    int logx, logy;      /* logx 1: binary sizes on the tics; 2: a plain log scale */
    char data[4][16384]; /* up to 4 series */
    const char *names[4];
    int n;
    double xmin, xmax;
    /* curves drawn over the points: gnuplot expressions in x, e.g. a fit */
    char fn[2][160];
    const char *fn_names[2];
    int n_fn;
    const char *xtics;   /* raw "set xtics" argument, e.g. ("direct" 0, "iotask" 2) */
    int boxes;           /* bars instead of lines */
    int y_rate;          /* y in bytes/s: drawn in the binary unit that fits its largest
                            value (B/s .. GiB/s, as on the terminal), named in ylabel;
                            on a log axis each tic names its own unit instead */
    double ymin, ymax;   /* the smallest (> 0) and largest y added */
};

int report_have_gnuplot(void);
void report_add_xy(struct plot *p, int series, double x, double y);
/* Writes <figure><svg>...</svg></figure> into out; 1 (and nothing) when no
 * series has a point, -1 when gnuplot failed. Series without points are
 * left out of the figure and its legend. */
int report_render(FILE *out, const struct plot *p);

#endif
