/* storscope report RESULTS.json: the findings and guidelines of a saved run.
 * Reads the JSON with cJSON, rebuilds the analysis input and prints what the
 * portable analysis concludes. */
#include "cli.h"
#include "json_in.h"
#include "storscope/analysis.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double num(const cJSON *o, const char *key)
{
    return cli_num(o, key);
}

static void series_from(struct sts_series *s, const char *test, const cJSON *points,
                        const char *name)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, points)
    {
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(p, "name");
        const cJSON *runs = cJSON_GetObjectItemCaseSensitive(p, "runs");
        const cJSON *params = cJSON_GetObjectItemCaseSensitive(p, "params");
        if (!cJSON_IsString(nm) || strcmp(nm->valuestring, name) || !runs ||
            s->n >= STS_AN_MAX_POINTS)
            continue;
        snprintf(s->test, sizeof(s->test), "%s", test);
        s->chunk[s->n] = (uint64_t)num(params, "chunk_bytes");
        s->bps[s->n] = num(runs, "mean");
        s->n++;
    }
}

/* Fills the analysis input from a results document. */
static void input_from(const cJSON *doc, struct sts_an_input *in)
{
    memset(in, 0, sizeof(*in));
    const cJSON *t;
    const cJSON *tests = cJSON_GetObjectItemCaseSensitive(doc, "tests");
    int have_b0 = 0;
    cJSON_ArrayForEach(t, tests) {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(t, "id");
        if (cJSON_IsString(id) && !strcmp(id->valuestring, "B0"))
            have_b0 = 1;
    }
    cJSON_ArrayForEach(t, tests)
    {
        const cJSON *idj = cJSON_GetObjectItemCaseSensitive(t, "id");
        const cJSON *points = cJSON_GetObjectItemCaseSensitive(t, "points");
        if (!cJSON_IsString(idj) || !cJSON_IsArray(points))
            continue;
        const char *id = idj->valuestring;
        if (!strcmp(id, "B0") || (!strcmp(id, "B1") && !have_b0)) {
            series_from(&in->seq_write, id, points, "write");
            series_from(&in->seq_read, id, points, "read");
        } else if (!strcmp(id, "B2")) {
            series_from(&in->fixed_write, id, points, "write");
            series_from(&in->fixed_read, id, points, "read");
        } else if (!strcmp(id, "M1")) {
            series_from(&in->rand_read, id, points, "randread");
        } else if (!strcmp(id, "fsync")) {
            const cJSON *p = cJSON_GetArrayItem(points, 0);
            const cJSON *lat = cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(p, "latency"), "write+flush");
            if (!lat)
                continue;
            const cJSON *pct = cJSON_GetObjectItemCaseSensitive(lat, "percentiles_ns");
            in->has_fsync = 1;
            in->fsync_iops = num(cJSON_GetObjectItemCaseSensitive(p, "metrics"), "iops");
            in->fsync_mean_ns = num(lat, "mean_ns");
            in->fsync_p50_ns = num(pct, "50");
            in->fsync_p9999_ns = num(pct, "99.99");
            in->fsync_max_ns = num(lat, "max_ns");
        } else if (!strcmp(id, "S2")) {
            const cJSON *e = cJSON_GetObjectItemCaseSensitive(t, "open_close_exponent_flat");
            if (!cJSON_IsNumber(e))
                continue;
            in->has_s2 = 1;
            in->s2_exp_flat = e->valuedouble;
            in->s2_ci_flat = num(t, "open_close_exponent_flat_ci95");
            in->s2_exp_sub = num(t, "open_close_exponent_subdirs");
            in->s2_ci_sub = num(t, "open_close_exponent_subdirs_ci95");
            const cJSON *p;
            cJSON_ArrayForEach(p, points)
            {
                const cJSON *nm = cJSON_GetObjectItemCaseSensitive(p, "name");
                const cJSON *prm = cJSON_GetObjectItemCaseSensitive(p, "params");
                const cJSON *lay = cJSON_GetObjectItemCaseSensitive(prm, "layout");
                if (!cJSON_IsString(nm) || strcmp(nm->valuestring, "open_close") ||
                    !cJSON_IsString(lay))
                    continue;
                sts_an_s2_point(in, !strcmp(lay->valuestring, "flat"), num(prm, "files"),
                                num(cJSON_GetObjectItemCaseSensitive(p, "metrics"),
                                    "per_file_mean_ns"));
            }
        } else if (!strcmp(id, "seq")) {
            const cJSON *p;
            cJSON_ArrayForEach(p, points)
            {
                const cJSON *nm = cJSON_GetObjectItemCaseSensitive(p, "name");
                const cJSON *m = cJSON_GetObjectItemCaseSensitive(p, "metrics");
                if (!cJSON_IsString(nm) || !m)
                    continue;
                if (!strcmp(nm->valuestring, "write"))
                    in->seq_write_bps = num(m, "best_bytes_per_second"), in->has_seq = 1;
                else if (!strcmp(nm->valuestring, "read_uncached"))
                    in->seq_read_bps = num(m, "best_bytes_per_second"), in->has_seq = 1;
            }
        }
    }
}

void cli_print_analysis(FILE *f, const struct sts_analysis *an)
{
    fprintf(f, "\nFindings\n");
    if (!an->n_findings)
        fprintf(f, "  (none: the results hold no series these detectors apply to)\n");
    for (size_t i = 0; i < an->n_findings; i++)
        fprintf(f, "  [%s] %s\n", an->finding[i].test, an->finding[i].text);
    fprintf(f, "\nGuidelines for this device\n");
    if (!an->n_guidelines)
        fprintf(f, "  (none: no guideline without evidence)\n");
    for (size_t i = 0; i < an->n_guidelines; i++)
        fprintf(f, "  %zu. %s\n", i + 1, an->guideline[i].text);
}

static void report_usage(FILE *f)
{
    fputs("usage: storscope report RESULTS.json [-o REPORT.html]\n"
          "\n"
          "Prints the findings (knee, plateau, dips, asymmetry, random-read penalty,\n"
          "tail, medium tier) and the guidelines they support, each naming its test.\n"
          "-o writes a single-file HTML report with figures (gnuplot) and tables.\n",
          f);
}

int cmd_report(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        report_usage(stdout);
        return EXIT_OK;
    }
    const char *html = NULL, *file = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
            if (++i >= argc) {
                cli_error("-o needs a file name");
                return EXIT_USAGE;
            }
            html = argv[i];
        } else if (argv[i][0] == '-') {
            cli_error("unknown option '%s'", argv[i]);
            return EXIT_USAGE;
        } else if (file) {
            cli_error("report takes one results file");
            return EXIT_USAGE;
        } else {
            file = argv[i];
        }
    }
    if (!file) {
        cli_error("report needs one results file");
        report_usage(stderr);
        return EXIT_USAGE;
    }
    cJSON *doc = cli_load_results(file);
    if (!doc)
        return EXIT_USAGE;
    const cJSON *run = cJSON_GetObjectItemCaseSensitive(doc, "run");
    const cJSON *target = cJSON_GetObjectItemCaseSensitive(run, "target");
    printf("storscope report: %s (target %s)\n", file,
           cJSON_IsString(target) ? target->valuestring : "?");
    struct sts_an_input in;
    input_from(doc, &in);
    struct sts_an_config cfg;
    sts_an_config_default(&cfg);
    struct sts_analysis an;
    sts_analyze(&in, &cfg, &an);
    cli_print_analysis(stdout, &an);
    int rc = html ? cli_report_html(html, doc, &an) : EXIT_OK;
    cJSON_Delete(doc);
    return rc;
}
