/* storscope compare A.json B.json ...: the headline figures of several
 * devices or configurations side by side (seed 003's SD vs eMMC vs SSD), with
 * each figure's ratio to the first file. --threshold PCT exits 1 when a later
 * file is worse than the first by more than PCT and beyond both files' 95 %
 * intervals (docs/analysis.md), so a CI pipeline can gate on storage
 * performance without gating on noise. */
#include "cli.h"
#include "cli_options.h"
#include "json_in.h"
#include "storscope/analysis.h"
#include "storscope/output.h"
#include "storscope/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILES 16

/* A figure as read from one file: the value and, when the file holds its
 * spread, a 95 % interval [lo, hi] around it. */
struct val {
    double v, lo, hi;
    int found, has_ci;
};

struct figure {
    const char *label;
    int higher_is_better; /* 1: throughput, IOPS; 0: latency */
    int is_rate;          /* bytes/s (else ns, or a plain count when is_count) */
    int is_count;
    int is_exponent;      /* compared by intervals only, never by percent */
    void (*get)(const cJSON *doc, struct val *out);
    const char *no_ci;    /* why the file holds no interval for it */
};

static void set_ci(struct val *o, double lo, double hi)
{
    o->lo = lo;
    o->hi = hi;
    o->has_ci = isfinite(lo) && isfinite(hi) && lo <= o->v && o->v <= hi;
}

/* A point's mean over its runs, the interval from their spread (Student t,
 * n - 1 degrees of freedom): one run has none. */
static void from_runs(const cJSON *runs, struct val *o)
{
    o->found = 1;
    o->v = cli_num(runs, "mean");
    double n = cli_num(runs, "n"), sd = cli_num(runs, "sd");
    if (n >= 2 && isfinite(sd)) {
        double h = sts_t975((unsigned)(n - 1)) * sd / sqrt(n);
        set_ci(o, o->v - h, o->v + h);
    }
}

/* the point `name` at chunk_bytes == chunk */
static void point_mean(const cJSON *doc, const char *id, const char *name, double chunk,
                       struct val *o)
{
    const cJSON *t = cli_test(doc, id), *p;
    const cJSON *points = t ? cJSON_GetObjectItemCaseSensitive(t, "points") : NULL;
    cJSON_ArrayForEach(p, points)
    {
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(p, "name");
        const cJSON *runs = cJSON_GetObjectItemCaseSensitive(p, "runs");
        if (cJSON_IsString(nm) && !strcmp(nm->valuestring, name) && runs &&
            cli_num(cJSON_GetObjectItemCaseSensitive(p, "params"), "chunk_bytes") == chunk) {
            from_runs(runs, o);
            return;
        }
    }
}

static void test_key(const cJSON *doc, const char *id, const char *key, struct val *o)
{
    const cJSON *t = cli_test(doc, id);
    const cJSON *v = t ? cJSON_GetObjectItemCaseSensitive(t, key) : NULL;
    o->found = cJSON_IsNumber(v);
    o->v = o->found ? v->valuedouble : 0;
}

static const cJSON *fsync_lat(const cJSON *doc)
{
    const cJSON *t = cli_test(doc, "fsync");
    const cJSON *p = t ? cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(t, "points"), 0) : NULL;
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(p, "latency"),
                                            "write+flush");
}

/* Percentile p of the fsync latency, with the order-statistic interval: the
 * p-quantile of N samples lies between ranks N p -/+ 1.96 sqrt(N p (1-p))
 * with 95 % confidence; the file keeps fio's percentile list, so the
 * interval runs from the nearest kept percentile below the low rank (or
 * the minimum) to the nearest above the high rank (or the maximum): wider
 * than the truth, never narrower. */
static void fsync_pct(const cJSON *doc, double p, struct val *o)
{
    static const double kept[] = {1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9,
                                  99.95, 99.99};
    const cJSON *lat = fsync_lat(doc);
    const cJSON *pct = cJSON_GetObjectItemCaseSensitive(lat, "percentiles_ns");
    char key[16];
    snprintf(key, sizeof(key), "%g", p);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(pct, key);
    o->found = cJSON_IsNumber(v);
    if (!o->found)
        return;
    o->v = v->valuedouble;
    double n = cli_num(lat, "count"), q = p / 100;
    if (!(n > 0))
        return;
    double h = 1.96 * sqrt(n * q * (1 - q)), rlo = (n * q - h) / n * 100, rhi = (n * q + h) / n * 100;
    double lo = cli_num(lat, "min_ns"), hi = NAN; /* above the top kept percentile: unbounded */
    for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
        snprintf(key, sizeof(key), "%g", kept[i]);
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(pct, key);
        if (!cJSON_IsNumber(k))
            continue;
        if (kept[i] <= rlo)
            lo = k->valuedouble;
        if (kept[i] >= rhi && isnan(hi))
            hi = k->valuedouble;
    }
    if (isnan(hi) && rhi <= 100 - 100 / n) /* short of the last sample: the maximum bounds it */
        hi = cli_num(lat, "max_ns");
    set_ci(o, lo, hi);
}

/* fsync IOPS is the inverse of the mean write+flush time: its interval
 * follows from the mean's (sd / sqrt(count)) */
static void fsync_iops(const cJSON *doc, struct val *o)
{
    test_key(doc, "fsync", "iops", o);
    const cJSON *lat = fsync_lat(doc);
    double mean = cli_num(lat, "mean_ns"), sd = cli_num(lat, "sd_ns"), n = cli_num(lat, "count");
    if (o->found && n >= 2 && mean > 0) {
        double r = 1.96 * sd / sqrt(n) / mean;
        if (r < 1)
            set_ci(o, o->v / (1 + r), o->v / (1 - r));
    }
}

/* the best of the seq runs; the runs' range brackets it */
static void seq_best(const cJSON *doc, const char *name, struct val *o)
{
    const cJSON *t = cli_test(doc, "seq"), *p;
    const cJSON *points = t ? cJSON_GetObjectItemCaseSensitive(t, "points") : NULL;
    cJSON_ArrayForEach(p, points)
    {
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(p, "name");
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(p, "metrics");
        const cJSON *runs = cJSON_GetObjectItemCaseSensitive(p, "runs");
        if (cJSON_IsString(nm) && !strcmp(nm->valuestring, name) && m) {
            o->found = 1;
            o->v = cli_num(m, "best_bytes_per_second");
            if (cli_num(runs, "n") >= 2)
                set_ci(o, cli_num(runs, "min"), cli_num(runs, "max"));
            return;
        }
    }
}

static void exponent(const cJSON *doc, const char *key, const char *ci_key, struct val *o)
{
    struct val ci = {0};
    test_key(doc, "S2", key, o);
    test_key(doc, "S2", ci_key, &ci);
    if (o->found && ci.found)
        set_ci(o, o->v - ci.v, o->v + ci.v);
}

static void f_b0w(const cJSON *d, struct val *o) { point_mean(d, "B0", "write", 1024, o); }
static void f_b0r(const cJSON *d, struct val *o) { point_mean(d, "B0", "read", 1024, o); }
static void f_b0w1(const cJSON *d, struct val *o) { point_mean(d, "B0", "write", 1, o); }
static void f_b2w(const cJSON *d, struct val *o) { point_mean(d, "B2", "write", 2097152, o); }
static void f_b2r(const cJSON *d, struct val *o) { point_mean(d, "B2", "read", 2097152, o); }
static void f_m1(const cJSON *d, struct val *o) { point_mean(d, "M1", "randread", 1024, o); }
static void f_p50(const cJSON *d, struct val *o) { fsync_pct(d, 50, o); }
static void f_p9999(const cJSON *d, struct val *o) { fsync_pct(d, 99.99, o); }
static void f_max(const cJSON *d, struct val *o) { test_key(d, "fsync", "max_latency_ns", o); }
static void f_seqw(const cJSON *d, struct val *o) { seq_best(d, "write", o); }
static void f_seqr(const cJSON *d, struct val *o) { seq_best(d, "read_uncached", o); }
static void f_s2(const cJSON *d, struct val *o)
{
    exponent(d, "open_close_exponent_flat", "open_close_exponent_flat_ci95", o);
}
static void f_l1io(const cJSON *d, struct val *o) { test_key(d, "L1", "iotask_max_lossless_bps", o); }
static void f_l1d(const cJSON *d, struct val *o) { test_key(d, "L1", "direct_max_lossless_bps", o); }
static void f_l1buf(const cJSON *d, struct val *o)
{
    test_key(d, "L1", "iotask_required_buffer_bytes", o);
}
static void f_l1stall(const cJSON *d, struct val *o) { test_key(d, "L1", "iotask_worst_stall_ns", o); }
static void f_m2(const cJSON *d, struct val *o)
{
    test_key(d, "M2", "create_threshold_free_bytes", o);
}

#define ONE_RUN "one run (--runs 3 gives an interval)"
#define ONE_SAMPLE "one sample: the worst of a run has no interval"
#define ONE_SEARCH "one search per file, no spread recorded"
static const struct figure figures[] = {
    {"B0 write, 1 B chunks", 1, 1, 0, 0, f_b0w1, ONE_RUN},
    {"B0 write, 1 KiB chunks", 1, 1, 0, 0, f_b0w, ONE_RUN},
    {"B0 read, 1 KiB chunks", 1, 1, 0, 0, f_b0r, ONE_RUN},
    {"B2 write, 2 MiB chunks", 1, 1, 0, 0, f_b2w, ONE_RUN},
    {"B2 read, 2 MiB chunks", 1, 1, 0, 0, f_b2r, ONE_RUN},
    {"M1 random read, 1 KiB", 1, 1, 0, 0, f_m1, ONE_RUN},
    {"fsync IOPS", 1, 0, 1, 0, fsync_iops, "fewer than 2 operations"},
    {"fsync p50", 0, 0, 0, 0, f_p50, "too few operations"},
    {"fsync p99.99", 0, 0, 0, 0, f_p9999, "too few operations for the 99.99th"},
    {"fsync max", 0, 0, 0, 0, f_max, ONE_SAMPLE},
    {"seq write (dd), best", 1, 1, 0, 0, f_seqw, ONE_RUN},
    {"seq read uncached, best", 1, 1, 0, 0, f_seqr, ONE_RUN},
    {"S2 open+close growth exponent", 0, 0, 2, 1, f_s2, "no interval in the file"},
    {"L1 iotask, highest lossless rate", 1, 1, 0, 0, f_l1io, ONE_SEARCH},
    {"L1 direct, highest lossless rate", 1, 1, 0, 0, f_l1d, ONE_SEARCH},
    {"L1 iotask, RAM needed", 0, 0, 3, 0, f_l1buf, ONE_SEARCH},
    {"L1 iotask, worst stall", 0, 0, 0, 0, f_l1stall, ONE_SAMPLE},
    {"M2 create over threshold, free", 0, 0, 3, 0, f_m2, ONE_SEARCH},
};
#define N_FIGURES (sizeof(figures) / sizeof(figures[0]))

static void show(char *buf, size_t n, const struct figure *fg, double v)
{
    if (fg->is_rate)
        sts_fmt_rate(buf, n, v);
    else if (fg->is_count == 1)
        snprintf(buf, n, "%.0f", v);
    else if (fg->is_count == 2)
        snprintf(buf, n, "%.2f", v);
    else if (fg->is_count == 3)
        sts_fmt_bytes(buf, n, sts_d2u64(v));
    else
        sts_fmt_ns(buf, n, v);
}

size_t cli_figure_count(void)
{
    return N_FIGURES;
}

const char *cli_figure_label(size_t k)
{
    return k < N_FIGURES ? figures[k].label : NULL;
}

int cli_figure_unit(size_t k)
{
    const struct figure *fg = &figures[k < N_FIGURES ? k : 0];
    return fg->is_rate ? FIGURE_BYTES_PER_SECOND
           : fg->is_count == 1 ? FIGURE_PER_SECOND
           : fg->is_count == 2 ? FIGURE_RATIO
           : fg->is_count == 3 ? FIGURE_BYTES
                               : FIGURE_NS;
}

int cli_figure_get(size_t k, const cJSON *doc, double *v, char *text, size_t n)
{
    struct val got;
    memset(&got, 0, sizeof(got));
    if (k >= N_FIGURES)
        return 0;
    figures[k].get(doc, &got);
    if (!got.found)
        return 0;
    *v = got.v;
    show(text, n, &figures[k], got.v);
    return 1;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}


enum fmt { FMT_TEXT, FMT_MD, FMT_HTML };

static void html_text(const char *t)
{
    for (; *t; t++)
        if (*t == '<')
            fputs("&lt;", stdout);
        else if (*t == '>')
            fputs("&gt;", stdout);
        else if (*t == '&')
            fputs("&amp;", stdout);
        else
            putchar(*t);
}

/* An HTML cell marked against the first file's figure: better or worse
 * when the two 95 % intervals do not overlap, "within spread" when they
 * do, "no interval" when either file has none (one run, a maximum). */
static void verdict_cell(const char *text, const struct figure *fg, const struct val *a,
                         const struct val *b, int i)
{
    const char *cls = "", *why = "";
    if (i && a->found && b->found) {
        if (!a->has_ci || !b->has_ci) {
            cls = "noci";
            why = "no 95 % interval in one of the files: a difference of unknown meaning";
        } else if (fg->higher_is_better ? b->lo > a->hi : b->hi < a->lo) {
            cls = "better";
            why = "better than the first file, beyond both 95 % intervals";
        } else if (fg->higher_is_better ? b->hi < a->lo : b->lo > a->hi) {
            cls = "worse";
            why = "worse than the first file, beyond both 95 % intervals";
        } else {
            cls = "same";
            why = "within the two files' 95 % intervals";
        }
    }
    if (cls[0])
        printf("<td class=\"%s\" title=\"%s\">", cls, why);
    else
        fputs("<td>", stdout);
    html_text(text);
    fputs(cls[0] && strcmp(cls, "same") && strcmp(cls, "noci")
              ? (!strcmp(cls, "better") ? " &#9650;" : " &#9660;")
              : "",
          stdout);
    fputs("</td>", stdout);
}

/* A row starts with its label; the header row opens the document. */
static void row_begin(enum fmt fmt, int header, const char *label)
{
    if (fmt == FMT_HTML && header)
        fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
              "<title>storscope compare</title><style>body{font-family:sans-serif}"
              "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .6em;"
              "text-align:left;vertical-align:top}.better{background:#e3f4e1}"
              ".worse{background:#fbe3e1}.noci{color:#666}</style></head><body>\n"
              "<h1>storscope compare</h1>\n<table>\n",
              stdout);
    if (fmt == FMT_TEXT)
        printf("%-32s", label);
    else if (fmt == FMT_MD)
        printf("| %s", label);
    else {
        fputs(header ? "<tr><th>" : "<tr><td>", stdout);
        html_text(label);
        fputs(header ? "</th>" : "</td>", stdout);
    }
}

static void cell(enum fmt fmt, int header, const char *text)
{
    if (fmt == FMT_TEXT)
        printf("  %-26.26s", text);
    else if (fmt == FMT_MD)
        printf(" | %s", text);
    else {
        fputs(header ? "<th>" : "<td>", stdout);
        html_text(text);
        fputs(header ? "</th>" : "</td>", stdout);
    }
}

static void row_end(enum fmt fmt, int header, int n)
{
    if (fmt == FMT_TEXT) {
        putchar('\n');
    } else if (fmt == FMT_MD) {
        fputs(" |\n", stdout);
        if (header) {
            fputs("| ---", stdout);
            for (int i = 0; i < n; i++)
                fputs(" | ---", stdout);
            fputs(" |\n", stdout);
        }
    } else {
        fputs("</tr>\n", stdout);
    }
}

/* 1 when the file's times are a simulator's virtual time (environment.clock). */
static int virtual_clock(const cJSON *doc)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(doc, "environment"), "clock");
    return cJSON_IsString(c) && !strcmp(c->valuestring, "virtual");
}

/* Simulated and measured times side by side are not alike (a simulator's
 * virtual time counts the device model alone, work done in RAM takes
 * 0 ns): said before the table, which still shows both. */
static void note_clocks(cJSON *const *docs, const char *const *names, int n)
{
    int n_virtual = 0;
    for (int i = 0; i < n; i++)
        n_virtual += virtual_clock(docs[i]);
    if (!n_virtual || n_virtual == n)
        return;
    fputs("storscope: note: these files' times are not alike: simulated device time (virtual "
          "time, work done in RAM takes 0 ns) in",
          stderr);
    for (int i = 0; i < n; i++)
        if (virtual_clock(docs[i]))
            fprintf(stderr, " %s", names[i]);
    fputs("; wall-clock time in", stderr);
    for (int i = 0; i < n; i++)
        if (!virtual_clock(docs[i]))
            fprintf(stderr, " %s", names[i]);
    fputs("\n", stderr);
}

struct compare_opts {
    int fmt;          /* enum fmt */
    double threshold; /* percent; -1: no gate */
};
_Static_assert(FMT_TEXT == 0 && FMT_MD == 1 && FMT_HTML == 2, "--format's words are in order");
#define CO(f) CLI_AT(0, struct compare_opts, f)
static const struct cli_opt compare_opts_table[] = {
    {"format", 0, CLI_WORD, "text|md|html", "the table as text (default), Markdown or HTML",
     CO(fmt), .hint = "text, md or html"},
    {"threshold", 0, CLI_NUMBER, "PCT",
     "exit 1 when a later file is worse than the first on a "
     "figure both files have by more than PCT percent and beyond "
     "both files' 95 % intervals (their runs' spread, a "
     "percentile's order statistics); growth exponents by their "
     "intervals alone. A figure a file holds no interval for (one "
     "run, a maximum) is shown but not gated, and named.",
     CO(threshold), .hint = "a percentage, e.g. 10"},
};

const struct cli_command cli_compare_command = {
    "compare",
    "usage: storscope compare [options] A.json B.json ...\n"
    "\n"
    "Headline figures of each file side by side, with the ratio to the first.\n"
    "\n",
    compare_opts_table, sizeof(compare_opts_table) / sizeof(compare_opts_table[0]), NULL};

/* The first row: each file's name (and in HTML the target it measured,
 * what a reader compares). */
static void header_row(enum fmt fmt, cJSON *const *docs, const char *const *names, int n)
{
    row_begin(fmt, 1, "figure");
    for (int i = 0; i < n; i++) {
        if (fmt != FMT_HTML) {
            cell(fmt, 1, names[i]);
            continue;
        }
        const cJSON *tg = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(docs[i], "run"), "target");
        fputs("<th>", stdout);
        html_text(names[i]);
        fputs("<br><code>", stdout);
        html_text(cJSON_IsString(tg) ? tg->valuestring : "?");
        fputs("</code></th>", stdout);
    }
    row_end(fmt, 1, n);
}

/* A cell's text: the figure, and for the files after the first its ratio
 * to the first (an exponent's difference). */
static void cell_text(char *text, size_t len, const struct figure *fg, const struct val *first,
                      const struct val *v, int i)
{
    char val[32];
    snprintf(text, len, "-");
    if (!v->found)
        return;
    show(val, sizeof(val), fg, v->v);
    if (i && first->found && fg->is_exponent)
        snprintf(text, len, "%s (%+.2f)", val, v->v - first->v);
    else if (i && first->found && first->v != 0)
        snprintf(text, len, "%s (%.2fx)", val, v->v / first->v);
    else
        snprintf(text, len, "%s", val);
}

/* The gate for one file's figure against the first file's: 1 when it is
 * worse beyond both intervals (and, but for exponents, by more than the
 * threshold), with the line saying so added to why; a figure with no
 * interval is named once in notes, and counted in *ungated. */
static int regressed(const struct figure *fg, const struct val *first, const struct val *v,
                     double threshold, const char *first_file, const char *file, char *why,
                     size_t why_len, char *notes, size_t notes_len, int *ungated)
{
    if (!v->has_ci || !first->has_ci) {
        /* no spread, no verdict: a difference of unknown meaning */
        char line[256];
        snprintf(line, sizeof(line), "\n  %s: %s", fg->label, fg->no_ci);
        if (!strstr(notes, line))
            strncat(notes, line, notes_len - strlen(notes) - 1);
        (*ungated)++;
        return 0;
    }
    int apart = fg->higher_is_better ? v->hi < first->lo : v->lo > first->hi;
    double change = first->v != 0 ? (v->v - first->v) / fabs(first->v) * 100.0 : 0;
    double worse = fg->higher_is_better ? -change : change;
    if (!apart || (!fg->is_exponent && !(worse > threshold)))
        return 0;
    char line[320], a[32], b[32], c[32], d[32];
    show(a, sizeof(a), fg, first->lo);
    show(b, sizeof(b), fg, first->hi);
    show(c, sizeof(c), fg, v->lo);
    show(d, sizeof(d), fg, v->hi);
    if (fg->is_exponent)
        snprintf(line, sizeof(line), "\n  %s: %s is %+.2f (95 %% interval %s..%s against %s..%s)",
                 fg->label, file, v->v - first->v, c, d, a, b);
    else
        snprintf(line, sizeof(line),
                 "\n  %s: %s is %.1f %% worse than %s (95 %% intervals %s..%s and %s..%s do not overlap)",
                 fg->label, file, worse, first_file, c, d, a, b);
    strncat(why, line, why_len - strlen(why) - 1);
    return 1;
}

int cmd_compare(int argc, char **argv)
{
    struct compare_opts co = {FMT_TEXT, -1};
    void *const into[] = {&co};
    int first = cli_parse(&cli_compare_command, argc, argv, into, NULL);
    if (first == CLI_HELP_SHOWN)
        return EXIT_OK;
    if (first < 0)
        return EXIT_USAGE;
    double threshold = co.threshold;
    int n = argc - first;
    if (n < 2 || n > MAX_FILES) {
        cli_error("compare needs 2 to %d results files", MAX_FILES);
        cli_print_help(stderr, &cli_compare_command);
        return EXIT_USAGE;
    }
    cJSON *docs[MAX_FILES];
    for (int i = 0; i < n; i++) {
        docs[i] = cli_load_results(argv[first + i]);
        if (!docs[i]) {
            while (i--)
                cJSON_Delete(docs[i]);
            return EXIT_USAGE;
        }
    }
    const char *names[MAX_FILES];
    for (int i = 0; i < n; i++)
        names[i] = base_name(argv[first + i]);
    int rc = cli_compare_docs(docs, names, (const char *const *)argv + first, n, co.fmt,
                              threshold);
    for (int i = 0; i < n; i++)
        cJSON_Delete(docs[i]);
    return rc;
}

int cli_compare_docs(cJSON *const *docs, const char *const *names, const char *const *sources,
                     int n, int format, double threshold)
{
    enum fmt fmt = (enum fmt)format;
    note_clocks(docs, names, n);
    header_row(fmt, docs, names, n);
    int regressions = 0, ungated = 0;
    char why[2048] = "", notes[2048] = "";
    for (size_t k = 0; k < N_FIGURES; k++) {
        const struct figure *fg = &figures[k];
        struct val v[MAX_FILES];
        int any = 0;
        for (int i = 0; i < n; i++) {
            memset(&v[i], 0, sizeof(v[i]));
            fg->get(docs[i], &v[i]);
            any |= v[i].found;
        }
        if (!any)
            continue; /* a figure none of the files has */
        row_begin(fmt, 0, fg->label);
        for (int i = 0; i < n; i++) {
            char text[96];
            cell_text(text, sizeof(text), fg, &v[0], &v[i], i);
            if (fmt == FMT_HTML)
                verdict_cell(text, fg, &v[0], &v[i], i);
            else
                cell(fmt, 0, text);
            if (threshold >= 0 && i && v[i].found && v[0].found)
                regressions += regressed(fg, &v[0], &v[i], threshold, sources[0], sources[i],
                                         why, sizeof(why), notes, sizeof(notes), &ungated);
        }
        row_end(fmt, 0, n);
    }
    if (fmt == FMT_HTML)
        fputs("</table>\n<p>Ratios are to the first file. Green (&#9650;) is better and red "
              "(&#9660;) worse than it beyond both files' 95 % intervals; unmarked cells are "
              "within them, grey ones have no interval to judge by (one run, a maximum).</p>\n"
              "</body></html>\n",
              stdout);
    if (ungated)
        fprintf(stderr, "storscope: not gated, no interval to judge a difference by:%s\n", notes);
    if (regressions) {
        fprintf(stderr, "storscope: %d figure%s regressed beyond the runs' spread and by more than "
                        "%.1f %%:%s\n", regressions, regressions == 1 ? "" : "s", threshold, why);
        return EXIT_RUN_FAILED;
    }
    return EXIT_OK;
}
