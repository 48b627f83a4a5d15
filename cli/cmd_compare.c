/* storscope compare A.json B.json ...: the headline figures of several
 * devices or configurations side by side (seed 003's SD vs eMMC vs SSD), with
 * each figure's ratio to the first file. --threshold PCT exits 1 when a later
 * file is worse than the first by more than PCT on any figure both have, so a
 * CI pipeline can gate on storage performance. */
#include "cli.h"
#include "json_in.h"
#include "storscope/output.h"
#include "storscope/units.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILES 16

struct figure {
    const char *label;
    int higher_is_better; /* 1: throughput, IOPS; 0: latency */
    int is_rate;          /* bytes/s (else ns, or a plain count when is_count) */
    int is_count;
    double (*get)(const cJSON *doc, int *found);
};

/* mean of the runs of the point `name` at chunk_bytes == chunk */
static double point_mean(const cJSON *doc, const char *id, const char *name, double chunk,
                         int *found)
{
    const cJSON *t = cli_test(doc, id), *p;
    const cJSON *points = t ? cJSON_GetObjectItemCaseSensitive(t, "points") : NULL;
    cJSON_ArrayForEach(p, points)
    {
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(p, "name");
        const cJSON *runs = cJSON_GetObjectItemCaseSensitive(p, "runs");
        if (cJSON_IsString(nm) && !strcmp(nm->valuestring, name) && runs &&
            cli_num(cJSON_GetObjectItemCaseSensitive(p, "params"), "chunk_bytes") == chunk) {
            *found = 1;
            return cli_num(runs, "mean");
        }
    }
    return 0;
}

static double test_key(const cJSON *doc, const char *id, const char *key, int *found)
{
    const cJSON *t = cli_test(doc, id);
    const cJSON *v = t ? cJSON_GetObjectItemCaseSensitive(t, key) : NULL;
    *found = cJSON_IsNumber(v);
    return *found ? v->valuedouble : 0;
}

static double fsync_pct(const cJSON *doc, const char *pct, int *found)
{
    const cJSON *t = cli_test(doc, "fsync");
    const cJSON *p = t ? cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(t, "points"), 0) : NULL;
    const cJSON *lat = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(p, "latency"), "write+flush");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(lat, "percentiles_ns"), pct);
    *found = cJSON_IsNumber(v);
    return *found ? v->valuedouble : 0;
}

static double seq_best(const cJSON *doc, const char *name, int *found)
{
    const cJSON *t = cli_test(doc, "seq"), *p;
    const cJSON *points = t ? cJSON_GetObjectItemCaseSensitive(t, "points") : NULL;
    cJSON_ArrayForEach(p, points)
    {
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(p, "name");
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(p, "metrics");
        if (cJSON_IsString(nm) && !strcmp(nm->valuestring, name) && m) {
            *found = 1;
            return cli_num(m, "best_bytes_per_second");
        }
    }
    return 0;
}

static double f_b0w(const cJSON *d, int *f) { return point_mean(d, "B0", "write", 1024, f); }
static double f_b0r(const cJSON *d, int *f) { return point_mean(d, "B0", "read", 1024, f); }
static double f_b0w1(const cJSON *d, int *f) { return point_mean(d, "B0", "write", 1, f); }
static double f_b2w(const cJSON *d, int *f) { return point_mean(d, "B2", "write", 2097152, f); }
static double f_b2r(const cJSON *d, int *f) { return point_mean(d, "B2", "read", 2097152, f); }
static double f_m1(const cJSON *d, int *f) { return point_mean(d, "M1", "randread", 1024, f); }
static double f_iops(const cJSON *d, int *f) { return test_key(d, "fsync", "iops", f); }
static double f_p50(const cJSON *d, int *f) { return fsync_pct(d, "50", f); }
static double f_p9999(const cJSON *d, int *f) { return fsync_pct(d, "99.99", f); }
static double f_max(const cJSON *d, int *f) { return test_key(d, "fsync", "max_latency_ns", f); }
static double f_seqw(const cJSON *d, int *f) { return seq_best(d, "write", f); }
static double f_seqr(const cJSON *d, int *f) { return seq_best(d, "read_uncached", f); }
static double f_s2(const cJSON *d, int *f)
{
    return test_key(d, "S2", "open_close_exponent_flat", f);
}
static double f_l1io(const cJSON *d, int *f) { return test_key(d, "L1", "iotask_max_lossless_bps", f); }
static double f_l1d(const cJSON *d, int *f) { return test_key(d, "L1", "direct_max_lossless_bps", f); }
static double f_l1buf(const cJSON *d, int *f)
{
    return test_key(d, "L1", "iotask_required_buffer_bytes", f);
}
static double f_l1stall(const cJSON *d, int *f) { return test_key(d, "L1", "iotask_worst_stall_ns", f); }
static double f_m2(const cJSON *d, int *f)
{
    return test_key(d, "M2", "create_threshold_free_bytes", f);
}

static const struct figure figures[] = {
    {"B0 write, 1 B chunks", 1, 1, 0, f_b0w1},
    {"B0 write, 1 KiB chunks", 1, 1, 0, f_b0w},
    {"B0 read, 1 KiB chunks", 1, 1, 0, f_b0r},
    {"B2 write, 2 MiB chunks", 1, 1, 0, f_b2w},
    {"B2 read, 2 MiB chunks", 1, 1, 0, f_b2r},
    {"M1 random read, 1 KiB", 1, 1, 0, f_m1},
    {"fsync IOPS", 1, 0, 1, f_iops},
    {"fsync p50", 0, 0, 0, f_p50},
    {"fsync p99.99", 0, 0, 0, f_p9999},
    {"fsync max", 0, 0, 0, f_max},
    {"seq write (dd), best", 1, 1, 0, f_seqw},
    {"seq read uncached, best", 1, 1, 0, f_seqr},
    {"S2 open+close growth exponent", 0, 0, 2, f_s2},
    {"L1 iotask, highest lossless rate", 1, 1, 0, f_l1io},
    {"L1 direct, highest lossless rate", 1, 1, 0, f_l1d},
    {"L1 iotask, RAM needed", 0, 0, 3, f_l1buf},
    {"L1 iotask, worst stall", 0, 0, 0, f_l1stall},
    {"M2 create over threshold, free", 0, 0, 3, f_m2},
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

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static void compare_usage(FILE *f)
{
    fputs("usage: storscope compare [--format text|md|html] [--threshold PCT] A.json B.json ...\n"
          "\n"
          "Headline figures of each file side by side, with the ratio to the first.\n"
          "--threshold PCT: exit 1 when a later file is worse than the first by more\n"
          "than PCT percent on any figure both files have.\n",
          f);
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

/* A row starts with its label; the header row opens the document. */
static void row_begin(enum fmt fmt, int header, const char *label)
{
    if (fmt == FMT_HTML && header)
        fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
              "<title>storscope compare</title><style>body{font-family:sans-serif}"
              "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .6em;"
              "text-align:left}</style></head><body>\n<h1>storscope compare</h1>\n<table>\n",
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
        printf("  %-24.24s", text);
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

int cmd_compare(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'f'},
        {"threshold", required_argument, NULL, 't'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    enum fmt fmt = FMT_TEXT;
    int ch;
    double threshold = -1;
    opterr = 0;
    optind = 1;
    while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        char *end;
        switch (ch) {
        case 'f':
            if (!strcmp(optarg, "text"))
                fmt = FMT_TEXT;
            else if (!strcmp(optarg, "md"))
                fmt = FMT_MD;
            else if (!strcmp(optarg, "html"))
                fmt = FMT_HTML;
            else {
                cli_error("bad --format '%s' (text, md or html)", optarg);
                return EXIT_USAGE;
            }
            break;
        case 't':
            threshold = strtod(optarg, &end);
            if (*end || threshold < 0 || !isfinite(threshold)) {
                cli_error("bad --threshold '%s' (a percentage, e.g. 10)", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'h': compare_usage(stdout); return EXIT_OK;
        case ':': cli_error("option '%s' needs a value", argv[optind - 1]); return EXIT_USAGE;
        default: cli_error("unknown option '%s'", argv[optind - 1]); return EXIT_USAGE;
        }
    }
    int n = argc - optind;
    if (n < 2 || n > MAX_FILES) {
        cli_error("compare needs 2 to %d results files", MAX_FILES);
        compare_usage(stderr);
        return EXIT_USAGE;
    }
    cJSON *docs[MAX_FILES];
    for (int i = 0; i < n; i++) {
        docs[i] = cli_load_results(argv[optind + i]);
        if (!docs[i]) {
            while (i--)
                cJSON_Delete(docs[i]);
            return EXIT_USAGE;
        }
    }
    const char *names[MAX_FILES];
    for (int i = 0; i < n; i++)
        names[i] = base_name(argv[optind + i]);
    row_begin(fmt, 1, "figure");
    for (int i = 0; i < n; i++)
        cell(fmt, 1, names[i]);
    row_end(fmt, 1, n);
    int regressions = 0;
    char why[2048] = "";
    for (size_t k = 0; k < N_FIGURES; k++) {
        const struct figure *fg = &figures[k];
        double v[MAX_FILES];
        int found[MAX_FILES], any = 0;
        for (int i = 0; i < n; i++) {
            found[i] = 0;
            v[i] = fg->get(docs[i], &found[i]);
            any |= found[i];
        }
        if (!any)
            continue; /* a figure none of the files has */
        row_begin(fmt, 0, fg->label);
        for (int i = 0; i < n; i++) {
            char text[64] = "-", val[32];
            if (found[i]) {
                show(val, sizeof(val), fg, v[i]);
                if (i && found[0] && v[0] != 0)
                    snprintf(text, sizeof(text), "%s (%.2fx)", val, v[i] / v[0]);
                else
                    snprintf(text, sizeof(text), "%s", val);
            }
            cell(fmt, 0, text);
            if (threshold >= 0 && i && found[i] && found[0] && v[0] != 0) {
                double change = (v[i] - v[0]) / fabs(v[0]) * 100.0;
                double worse = fg->higher_is_better ? -change : change;
                if (worse > threshold) {
                    regressions++;
                    char line[256];
                    snprintf(line, sizeof(line), "\n  %s: %s is %.1f %% worse than %s",
                             fg->label, argv[optind + i], worse, argv[optind]);
                    strncat(why, line, sizeof(why) - strlen(why) - 1);
                }
            }
        }
        row_end(fmt, 0, n);
    }
    if (fmt == FMT_HTML)
        fputs("</table>\n<p>Ratios are to the first file.</p>\n</body></html>\n", stdout);
    for (int i = 0; i < n; i++)
        cJSON_Delete(docs[i]);
    if (regressions) {
        fprintf(stderr, "storscope: %d figure%s regressed by more than %.1f %%:%s\n", regressions,
                regressions == 1 ? "" : "s", threshold, why);
        return EXIT_RUN_FAILED;
    }
    return EXIT_OK;
}
