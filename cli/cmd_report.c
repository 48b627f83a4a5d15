/* storscope report RESULTS.json: the findings and guidelines of a saved run.
 * Reads the JSON with cJSON, rebuilds the analysis input and prints what the
 * portable analysis concludes. */
#include "cli.h"
#include "db.h"
#include "cli_options.h"
#include "json_in.h"
#include "storscope/analysis.h"
#include "storscope/output.h"
#include "storscope/units.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static double num(const cJSON *o, const char *key)
{
    return cli_num(o, key);
}

/* Fills the analysis input from a results document: the document is
 * replayed through the same collecting sink a live run feeds; only the
 * fsync tail, which a live run reads from its histogram, comes from the
 * percentiles the JSON keeps. */
static void input_from(const cJSON *doc, struct sts_an_input *in)
{
    struct sts_sink collector;
    sts_an_collector_init(in, &collector);
    cli_replay(doc, &collector);
    const cJSON *t = cli_test(doc, "fsync");
    const cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(t, "points"), 0);
    const cJSON *lat = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(p, "latency"), "write+flush");
    if (!lat)
        return;
    const cJSON *pct = cJSON_GetObjectItemCaseSensitive(lat, "percentiles_ns");
    in->has_fsync = 1;
    in->fsync_iops = num(cJSON_GetObjectItemCaseSensitive(p, "metrics"), "iops");
    in->fsync_mean_ns = num(lat, "mean_ns");
    in->fsync_p50_ns = num(pct, "50");
    in->fsync_p9999_ns = num(pct, "99.99");
    in->fsync_max_ns = num(lat, "max_ns");
    in->fsync_count = num(lat, "count");
    double at = num(lat, "max_at_op"); /* (absent from files before it: not known) */
    in->fsync_max_at = isfinite(at) ? at : 0;
    /* whether the worst stall repeated, from the histogram's bins */
    const cJSON *hist = cJSON_GetObjectItemCaseSensitive(lat, "histogram");
    const cJSON *lo = cJSON_GetObjectItemCaseSensitive(hist, "lo_ns");
    const cJSON *count = cJSON_GetObjectItemCaseSensitive(hist, "count");
    enum { MAX_BINS = 168 };
    static uint64_t lo_v[MAX_BINS], count_v[MAX_BINS];
    size_t n = 0;
    for (const cJSON *a = lo ? lo->child : NULL, *b = count ? count->child : NULL;
         a && b && n < MAX_BINS; a = a->next, b = b->next, n++) {
        lo_v[n] = cJSON_IsNumber(a) && a->valuedouble >= 0 ? sts_d2u64(a->valuedouble) : 0;
        count_v[n] = cJSON_IsNumber(b) && b->valuedouble >= 0 ? sts_d2u64(b->valuedouble) : 0;
    }
    if (n)
        sts_an_fsync_bins(in, lo_v, count_v, n, in->fsync_max_ns);
}

void cli_print_analysis(FILE *f, const struct sts_analysis *an)
{
    fprintf(f, "\nFindings\n");
    if (!an->n_findings)
        fprintf(f, "  (none: the results hold no series these detectors apply to)\n");
    for (size_t i = 0; i < an->n_findings; i++)
        fprintf(f, "  [%s] %s\n", an->finding[i].test, an->finding[i].text);
    cli_print_guidelines(f, an);
}

void cli_print_totals(FILE *f, const struct sts_summary_sink *ss)
{
    struct sts_run_end re = {.interrupted = (int)ss->interrupted,
                             .elapsed_ns = ss->elapsed_ns,
                             .tests_ok = ss->tests_ok,
                             .tests_failed = ss->tests_failed,
                             .tests_skipped = ss->tests_skipped};
    sts_print_totals(f, &re, ss->virtual_clock);
}

int cli_unresolved(const struct sts_an_item *it, char *kind, size_t n, const char **detail)
{
    static const char lead[] = "Unresolved within the noise (";
    if (strcmp(it->kind, "unresolved") || strncmp(it->text, lead, sizeof(lead) - 1))
        return 0;
    const char *k = it->text + sizeof(lead) - 1, *end = strstr(k, "): ");
    if (!end)
        return 0;
    snprintf(kind, n, "%.*s", (int)(end - k), k);
    *detail = end + 3;
    return 1;
}

void cli_print_guidelines(FILE *f, const struct sts_analysis *an)
{
    fprintf(f, "\nGuidelines for this device\n");
    const struct sts_an_item *none = NULL; /* why there is none, when the analysis says */
    size_t open = 0;                       /* answers the noise could move */
    char kind[64];
    const char *detail;
    for (size_t i = 0; i < an->n_findings; i++) {
        if (!strcmp(an->finding[i].kind, "no medium"))
            none = &an->finding[i];
        open += (size_t)cli_unresolved(&an->finding[i], kind, sizeof(kind), &detail);
    }
    if (!an->n_guidelines && none)
        fprintf(f, "  (none: %s)\n", none->text);
    else if (!an->n_guidelines)
        fprintf(f, "  (none%s)\n", open ? " resolved" : ": no guideline without evidence");
    for (size_t i = 0; i < an->n_guidelines; i++)
        fprintf(f, "  %zu. %s\n", i + 1, an->guideline[i].text);
    /* a guideline the noise could move is said to be open, never left out
     * silently: "none" must not read as "nothing to fix" (issue 41) */
    if (open)
        fprintf(f, "  Not resolved within the noise, so no guideline is given for:\n");
    for (size_t i = 0; i < an->n_findings; i++)
        if (cli_unresolved(&an->finding[i], kind, sizeof(kind), &detail))
            fprintf(f, "  - %s (%s): %s\n", kind, an->finding[i].test, detail);
}

struct report_opts {
    const char *html, *probe, *db;
    int format; /* 0 text, 1 openmetrics */
};
#define RO(f) CLI_AT(0, struct report_opts, f)
static const struct cli_opt report_opts_table[] = {
    {"output", 'o', CLI_FILE, "REPORT.html",
     "write a single-file HTML report with figures (gnuplot) and tables", RO(html)},
    {"probe", 0, CLI_FILE, "PROBE.json",
     "add what `storscope probe -o PROBE.json` measured on the "
     "device (page, allocation unit, open allocation units) to the guidelines",
     RO(probe)},
    {"format", 0, CLI_WORD, "text|openmetrics",
     "text (the default), or OpenMetrics for Prometheus: the run's headline figures, its "
     "filesystem's free space and its card's wear estimate, on stdout",
     RO(format), .hint = "text or openmetrics"},
    {"db", 0, CLI_OPTIONAL, "ARCHIVE",
     "with --format openmetrics and no file: the latest archived run of each card (of each "
     "target where no probe named a card), from the default archive or --db=ARCHIVE",
     RO(db)},
};

const struct cli_command cli_report_command = {
    "report",
    "usage: storscope report RESULTS.json [options]\n"
    "       storscope report PLAN.json [-o PLAN.html]\n"
    "       storscope report --format openmetrics RESULTS.json | --db[=ARCHIVE]\n"
    "\n"
    "Prints the findings (knee, plateau, dips, asymmetry, random-read penalty,\n"
    "tail, fsync beside the tier table) and the guidelines they support, each\n"
    "naming its test. Of a saved plan (storscope plan -o): the recommendation\n"
    "and the Pareto front, and with -o the front plotted and every configuration.\n"
    "\n",
    report_opts_table, sizeof(report_opts_table) / sizeof(report_opts_table[0]), NULL};

/* The latest archived run of each card (or target): its id kept per key. */
struct latest {
    int64_t id[1024];
    char key[1024][128];
    size_t n, dropped;
};

static int keep_latest(void *arg, const struct db_run *r)
{
    struct latest *l = arg;
    char key[128];
    if (*r->card_name || *r->card_serial)
        snprintf(key, sizeof(key), "card %s %s %s", r->card_manufacturer, r->card_name,
                 r->card_serial);
    else
        snprintf(key, sizeof(key), "target %.100s", r->target);
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->key[i], key)) {
            l->id[i] = r->id; /* oldest first: the last seen is the latest */
            return 0;
        }
    if (l->n == sizeof(l->id) / sizeof(l->id[0])) {
        l->dropped++;
        return 0;
    }
    snprintf(l->key[l->n], sizeof(l->key[0]), "%s", key);
    l->id[l->n++] = r->id;
    return 0;
}

static int report_openmetrics(const struct report_opts *ro, int n, char **files)
{
    if (ro->html || ro->probe) {
        cli_error("--format openmetrics writes to stdout and takes no -o or --probe");
        return EXIT_USAGE;
    }
    if ((n > 0) == (ro->db != NULL)) {
        cli_error("--format openmetrics takes one results file, or --db (the archive's latest "
                  "run of each card)");
        return EXIT_USAGE;
    }
    if (n > 1) {
        cli_error("report takes one results file");
        return EXIT_USAGE;
    }
    if (n == 1) {
        cJSON *doc = cli_load_results(files[0]);
        if (!doc)
            return EXIT_USAGE;
        const char *slash = strrchr(files[0], '/');
        const char *name = slash ? slash + 1 : files[0];
        cli_openmetrics(stdout, &doc, &name, 1);
        cJSON_Delete(doc);
        return fflush(stdout) ? EXIT_RUN_FAILED : EXIT_OK;
    }
    const struct db_ops *ops;
    char where[4096], err[256];
    void *ctx = db_open_named(ro->db, 0, &ops, where, sizeof(where));
    if (!ctx)
        return EXIT_USAGE;
    static struct latest l;
    l.n = l.dropped = 0;
    int rc = ops->list(ctx, NULL, keep_latest, &l, err, sizeof(err));
    static cJSON *docs[1024];
    static char names[1024][24];
    static const char *runs[1024];
    size_t got = 0;
    for (size_t i = 0; !rc && i < l.n; i++) {
        char *text = NULL;
        rc = ops->document(ctx, l.id[i], &text, err, sizeof(err));
        if (!rc && (docs[got] = cJSON_Parse(text))) {
            snprintf(names[got], sizeof(names[got]), "%lld", (long long)l.id[i]);
            runs[got] = names[got];
            got++;
        }
        free(text);
    }
    ops->close(ctx);
    if (rc)
        cli_error("archive %s: %s", where, err);
    else
        cli_openmetrics(stdout, docs, runs, got);
    if (l.dropped)
        fprintf(stderr, "storscope: %zu cards beyond the first 1024 left out\n", l.dropped);
    for (size_t i = 0; i < got; i++)
        cJSON_Delete(docs[i]);
    return rc ? EXIT_RUN_FAILED : EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
    struct report_opts ro = {NULL, NULL, NULL, 0};
    void *const into[] = {&ro};
    int first = cli_parse(&cli_report_command, argc, argv, into, NULL);
    if (first == CLI_HELP_SHOWN)
        return EXIT_OK;
    if (first < 0)
        return EXIT_USAGE;
    if (ro.format == 1)
        return report_openmetrics(&ro, argc - first, argv + first);
    if (ro.db) {
        cli_error("--db goes with --format openmetrics (the latest run of each card)");
        return EXIT_USAGE;
    }
    if (first == argc) {
        cli_error("report needs one results file");
        cli_print_help(stderr, &cli_report_command);
        return EXIT_USAGE;
    }
    if (argc - first > 1) {
        cli_error("report takes one results file");
        return EXIT_USAGE;
    }
    const char *html = ro.html, *file = argv[first], *probe = ro.probe;
    struct stat in_st, out_st;
    if (html && !stat(file, &in_st) && !stat(html, &out_st) && in_st.st_dev == out_st.st_dev &&
        in_st.st_ino == out_st.st_ino) {
        cli_error("-o %s is the results file itself: the HTML would overwrite the results", html);
        return EXIT_USAGE;
    }
    static struct sts_an_input probe_in;
    char probed[512] = "";
    if (probe && cli_load_probe(probe, &probe_in, probed, sizeof(probed)))
        return EXIT_USAGE;
    cJSON *doc = cli_load_json(file);
    const cJSON *schema = doc ? cJSON_GetObjectItemCaseSensitive(doc, "schema") : NULL;
    if (cJSON_IsString(schema) && !strcmp(schema->valuestring, "storscope-plan/1")) {
        int rc = cli_report_plan(doc, file, html); /* a saved plan (report_plan.c) */
        cJSON_Delete(doc);
        return rc;
    }
    cJSON_Delete(doc);
    doc = cli_load_results(file);
    if (!doc)
        return EXIT_USAGE;
    /* opened before anything is printed: a name it cannot write is said
     * alone, not after the whole summary */
    static struct cli_out out;
    if (html && cli_out_open(&out, "-o", html)) {
        cJSON_Delete(doc);
        return EXIT_USAGE;
    }
    const cJSON *run = cJSON_GetObjectItemCaseSensitive(doc, "run");
    const cJSON *target = cJSON_GetObjectItemCaseSensitive(run, "target");
    printf("storscope report: %s (target %s)\n", file,
           cJSON_IsString(target) ? target->valuestring : "?");
    if (probe && cJSON_IsString(target))
        cli_probe_target_check(probed, target->valuestring);
    static struct sts_summary_sink summary;
    struct sts_sink sink;
    sts_summary_sink_init(&summary, &sink);
    cli_replay(doc, &sink);
    struct sts_an_input in;
    input_from(doc, &in);
    cli_probe_apply(&in, &probe_in);
    struct sts_an_config cfg;
    sts_an_config_default(&cfg);
    static struct sts_analysis an;
    sts_analyze(&in, &cfg, &an);
    putchar('\n');
    sts_summary_add_analysis(&summary, &an);
    sts_summary_print(&summary, stdout);
    cli_print_totals(stdout, &summary);
    cli_print_analysis(stdout, &an);
    cli_print_probe(stdout, doc, 0);
    int rc = EXIT_OK;
    if (html) {
        int figures = cli_report_html(out.f, doc, &an, &summary);
        if (cli_out_close(&out, 1))
            rc = EXIT_RUN_FAILED;
        else
            printf("report: %s (%d figure%s)\n", html, figures, figures == 1 ? "" : "s");
    }
    cJSON_Delete(doc);
    return rc;
}
