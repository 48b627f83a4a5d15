/* storscope fit RESULTS.json: a simulator profile fitted to a device's
 * measurements (fit.c), printed with every point's error and what was not
 * fitted, and saved for `sim:@FILE` (profile_file.c) - so a logger is
 * planned on the user's own card. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_options.h"
#include "fit.h"
#include "storscope/output.h"
#include "storscope/sim.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct fit_opts {
    const char *base, *probe, *output;
    uint32_t jobs;
    int quiet, points;
};

#define FO(f) CLI_AT(0, struct fit_opts, f)
static const struct cli_opt fit_opts_table[] = {
    {"base", 0, CLI_TEXT, "PROFILE",
     "the profile to start from and keep what the runs do not measure (default: the "
     "results' own sim: profile, else sd-consumer for an SD card, emmc-industrial for an "
     "eMMC, else emmc-stm32u5)",
     FO(base)},
    {"probe", 0, CLI_FILE, "PROBE.json",
     "also take the page, allocation unit and open-AU limit `storscope probe -o` measured",
     FO(probe)},
    {"output", 'o', CLI_FILE, "FILE", "save the profile (use it as sim:@FILE)", FO(output)},
    {"jobs", 'j', CLI_COUNT, "N", "model runs at once (default: one per CPU)", FO(jobs), .min = 1,
     .max = 64, .hint = "1 to 64"},
    {"points", 0, CLI_FLAG, "", "also print every point: measured, fitted, error", FO(points)},
    {"quiet", 'q', CLI_FLAG, "", "print nothing but errors", FO(quiet)},
};

const struct cli_command cli_fit_command = {
    "fit",
    "usage: storscope fit RESULTS.json [options]\n"
    "\n"
    "Fits a simulator profile to what a run measured on a device (B2's reads and\n"
    "writes; B0 and M1 where the run has them: `storscope run --suite paper`),\n"
    "by running the model and moving each parameter while its figures come\n"
    "closer, and says which parameters it fitted, from what, the error at every\n"
    "point, and what stays the base profile's. The saved profile is a medium\n"
    "like any other: storscope run -t sim:@card.profile, storscope plan\n"
    "--medium sim:@card.profile (or plan --medium RESULTS.json, which fits it).\n"
    "\n",
    fit_opts_table, sizeof(fit_opts_table) / sizeof(fit_opts_table[0]), NULL};

static volatile sig_atomic_t stop_asked;
static void on_signal(int sig)
{
    (void)sig;
    stop_asked = 1;
}

static int quiet_progress;
static void progress(unsigned evaluations, double rms_pct)
{
    if (!quiet_progress && isatty(STDERR_FILENO))
        fprintf(stderr, "\r  fitting: %u model runs, error %.1f %%   ", evaluations, rms_pct);
}

static void value_text(const struct fit_param *p, double v, char *b, size_t n)
{
    if (!strcmp(p->key, "dip_bytes"))
        snprintf(b, n, "%.0f B", v);
    else if (!strcmp(p->key, "dip_percent"))
        snprintf(b, n, "%.0f %%", v);
    else if (p->is_time)
        sts_fmt_ns(b, n, v);
    else
        sts_fmt_rate(b, n, v);
}

static void print_fit(const struct fit_data *d, const struct fit_out *o, const char *results,
                      int points)
{
    printf("storscope fit: %s (%s, scale %s), base profile %s\n\n", results, d->target, d->scale,
           d->base);
    printf("  fitted, %u model runs of %s, %zu points within %.1f %% (rms):\n", o->evaluations,
           d->tests, d->n, o->rms_pct);
    for (size_t i = 0; i < o->n; i++) {
        char v[32], b[32];
        value_text(&o->p[i], o->p[i].value, v, sizeof(v));
        value_text(&o->p[i], o->p[i].base, b, sizeof(b));
        if (o->p[i].fitted)
            printf("    %-12s %12s   (base %s)  %s\n", o->p[i].key, v, b, o->p[i].from);
    }
    for (size_t i = 0; i < o->n; i++) {
        char b[32];
        value_text(&o->p[i], o->p[i].base, b, sizeof(b));
        if (!o->p[i].fitted)
            printf("  not fitted: %s stays the base's %s (%s)\n", o->p[i].key, b, o->p[i].from);
    }
    printf("  not fitted, the base's: capacity%s, sector, page%s, erase block, cache, flush,\n"
           "    garbage collection, wear and endurance (B0, B2 and M1 do not measure them%s)\n",
           d->capacity[0] ? " (the results')" : "", d->probe_opts[0] ? " and AU (the probe's)" : "",
           d->probe_opts[0] ? "" : "; the probe measures page and AU: --probe");
    if (points) {
        printf("\n  %-4s %-9s %10s %14s %14s %8s\n", "test", "op", "chunk", "measured", "fitted",
               "error");
        for (size_t k = 0; k < d->n; k++) {
            const struct fit_point *p = &d->pt[k];
            char a[24], b[24];
            sts_fmt_rate(a, sizeof(a), p->bps);
            sts_fmt_rate(b, sizeof(b), p->model_bps);
            printf("  %-4s %-9s %10.0f %14s %14s %+7.1f %%\n", p->test, p->op, p->chunk, a, b,
                   p->model_bps > 0 ? 100 * (p->model_bps / p->bps - 1) : -100.0);
        }
    }
    printf("\n  the model: %s\n", o->spec);
}

int cmd_fit(int argc, char **argv)
{
    struct fit_opts o = {0};
    void *const into[] = {&o};
    int first = cli_parse(&cli_fit_command, argc, argv, into, NULL);
    if (first == CLI_HELP_SHOWN)
        return EXIT_OK;
    if (first < 0)
        return EXIT_USAGE;
    if (first != argc - 1) {
        cli_error("fit takes one results file (storscope fit --help)");
        return EXIT_USAGE;
    }
    if (o.base && !sts_sim_profile_find(o.base)) {
        cli_error("bad --base '%s': no such profile (storscope list devices)", o.base);
        return EXIT_USAGE;
    }
    static struct fit_data d;
    static struct fit_out out;
    char err[512];
    if (fit_load(argv[first], o.base, &d, err, sizeof(err)) ||
        (o.probe && fit_load_probe(o.probe, &d, err, sizeof(err)))) {
        if (err[0])
            cli_error("%s", err);
        return EXIT_USAGE;
    }
    char self[1024];
    ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (len <= 0) {
        cli_error("fit: cannot find its own program to run the model");
        return EXIT_RUN_FAILED;
    }
    self[len] = '\0';
    if (!o.jobs) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        o.jobs = cpus > 0 ? (uint32_t)(cpus < 64 ? cpus : 64) : 1;
    }
    cli_catch_stop_signals(on_signal);
    quiet_progress = o.quiet;
    int rc = fit_run(self, &d, o.jobs, &out, progress, err, sizeof(err));
    if (!o.quiet && isatty(STDERR_FILENO))
        fputs("\r\033[K", stderr);
    if (stop_asked) {
        cli_error("stopped by signal; nothing saved");
        return EXIT_INTERRUPTED;
    }
    if (rc) {
        cli_error("fit: %s", err);
        return EXIT_RUN_FAILED;
    }
    if (!o.quiet)
        print_fit(&d, &out, argv[first], o.points);
    if (out.rms_pct > FIT_POOR_PCT)
        cli_error("the fitted model is off by %.0f %% (rms) from these results, more than %d %%: "
                  "it does not describe this device (a page cache or a filesystem in front of "
                  "the medium, or a base of another kind: --base); a plan on it is not this "
                  "device's", out.rms_pct, FIT_POOR_PCT);
    if (o.output) {
        if (fit_write_profile(o.output, &d, &out, err, sizeof(err))) {
            cli_error("%s", err);
            return EXIT_RUN_FAILED;
        }
        if (!o.quiet)
            printf("  saved: %s (storscope run -t sim:@%s)\n", o.output, o.output);
    }
    return EXIT_OK;
}
