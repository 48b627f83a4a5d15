/* storscope plan: runs each configuration of plan_spec.c (plan_pool.c),
 * then judges and ranks them: lossless, within the RAM given, no more at
 * risk at a power cut than allowed; the fitting ones by worst stall, then
 * RAM, data at risk and energy (plan_out.c says it). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_options.h"
#include "db.h"
#include "fit.h"
#include "plan.h"
#include "storscope/units.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop_asked; /* 1: Ctrl-C (plan.h) */
static void on_signal(int sig)
{
    (void)sig;
    stop_asked = 1;
}

#define PO(f) CLI_AT(0, struct plan_opts, f)
static const struct cli_opt plan_opts_table[] = {
    {"streams", 0, CLI_TEXT, "SPEC",
     "the logger's streams: NAME:RATEHz:SIZEB,... (e.g. imu:1000Hz:12B,env:1Hz:32B)",
     PO(streams)},
    {"medium", 0, CLI_TARGET, "SPEC",
     "the simulated medium alone: sim:PROFILE[,PARAM=VALUE...], sim:@FILE (a profile "
     "`storscope fit -o FILE` saved), or a device's RESULTS.json to fit one to first "
     "(default sim:emmc-stm32u5)",
     PO(medium)},
    {"ram", 0, CLI_SIZE, "SIZE", "RAM the logger can give its storage: 16K, 64K", PO(ram_bytes),
     .min = 256, .hint = "at least 256 bytes, e.g. 16K"},
    {"lose-at-most", 0, CLI_TIME, "TIME",
     "the records a power cut may take, as time: 1s (default), 100ms", PO(lose_ns), .min = 1000000,
     .hint = "at least 1ms, e.g. 1s"},
    {"duration", 'd', CLI_TIME, "TIME",
     "simulated time each configuration of the sweep runs (default 30m; the front then runs "
     "--confirm-for): longer sees rarer stalls",
     PO(duration_ns), .min = 1000000000, .hint = "at least 1s, e.g. 1h"},
    {"jobs", 'j', CLI_COUNT, "N", "configurations run at once (default: one per CPU)", PO(jobs),
     .min = 1, .max = 256, .hint = "1 to 256"},
    {"lifetime", 0, CLI_TEXT, "TIME",
     "how long the medium must last at this wear: 5y, 700d, 36h (default: not judged)",
     PO(lifetime)},
    {"seed", 0, CLI_COUNT, "N", "the runs' seed (default 1)", PO(seed)},
    {"repeat", 0, CLI_COUNT, "N",
     "seeds each configuration runs with, judged on the worst (default 1; 3 on a noisy medium)",
     PO(repeat), .min = 1, .max = 100, .hint = "1 to 100"},
    {"battery", 0, CLI_TEXT, "CAP@V",
     "the battery the logger runs on: 2000mAh@3.7V, 1.2Ah@3V; each configuration's "
     "battery days from the energy its medium drew (default: not said)",
     PO(battery)},
    {"confirm-for", 0, CLI_TEXT, "TIME",
     "run each configuration on the front alone this long (default 1d: a simulated day; 0: "
     "not): one that loses a record over it does not fit",
     PO(confirm_for)},
    {"power-cuts", 0, CLI_COUNT, "N",
     "cut the power N times in the run of each configuration on the front to check what a "
     "cut takes (default 3; 0: none)",
     PO(power_cuts), .max = PLAN_MAX_CUTS, .hint = "0 to 8"},
    {"output", 'o', CLI_FILE, "FILE", "also write the plan as JSON (storscope-plan/1)",
     PO(output)},
    {"quiet", 'q', CLI_FLAG, "", "no table on stdout, no progress line", PO(quiet)},
    {"db", 0, CLI_OPTIONAL, "ARCHIVE",
     "archive every run's results too (storscope db): the default archive, or "
     "--db=ARCHIVE (sqlite:PATH, postgresql://...)",
     PO(db)},
    {"shard", 0, CLI_TEXT, "K/N",
     "run only the Kth of N shards of the runs (with --shard-dir), for --collect to rank",
     PO(shard_text)},
    {"shard-dir", 0, CLI_DIR, "DIR",
     "keep the runs' results in DIR, a directory every shard can write", PO(shard_dir)},
    {"collect", 0, CLI_TEXT, "DIR|JOB",
     "run nothing: rank the runs the shards left in DIR (or Slurm job JOB's), the same plan "
     "a local run gives",
     PO(collect)},
    {"slurm", 0, CLI_FLAG, "",
     "submit the runs as a Slurm array job (sbatch), one a task, into --shard-dir; then "
     "--collect JOB",
     PO(slurm)},
    {"partition", 0, CLI_TEXT, "P", "--slurm: the partition to submit to", PO(partition)},
    {"array-max", 0, CLI_COUNT, "N", "--slurm: at most N of its tasks at once", PO(array_max),
     .min = 1, .max = 100000, .hint = "1 to 100000"},
};

const struct cli_command cli_plan_command = {
    "plan",
    "usage: storscope plan --streams SPEC --ram SIZE [options]\n"
    "\n"
    "Decides a logger's storage by simulation before any hardware exists: runs\n"
    "every configuration - store (bare extents, sensorlog), RAM buffer, sync\n"
    "interval, writer (direct, mutex, I/O task) - with the logger's streams\n"
    "on the medium in virtual time (L1), and ranks them: lossless, within the\n"
    "RAM given, no more at risk at a power cut than allowed, lasting as long as\n"
    "asked (--lifetime), least worst stall. Beyond one machine: --shard K/N\n"
    "--shard-dir DIR on each, then --collect DIR; or --slurm --shard-dir DIR,\n"
    "then --collect JOB.\n",
    plan_opts_table,
    sizeof(plan_opts_table) / sizeof(plan_opts_table[0]),
    "\nexit status: 0 a configuration fits, 1 none does (the plan says what the\n"
    "smallest lossless one needs), 2 bad input, 130 stopped (finished runs kept).\n",
};

/* ---- judging and ranking -------------------------------------------- */

/* a no worse than b on RAM, worst stall, data at risk and (on a medium
 * with an energy model) energy, better on one */
static int dominates(const struct plan_spec *spec, const struct plan_config *a,
                     const struct plan_config *b)
{
    int e = spec->energy_modelled;
    int le = a->ram <= b->ram && a->worst_stall <= b->worst_stall &&
             a->at_risk_bytes <= b->at_risk_bytes && (!e || a->energy_nj <= b->energy_nj);
    int lt = a->ram < b->ram || a->worst_stall < b->worst_stall ||
             a->at_risk_bytes < b->at_risk_bytes || (e && a->energy_nj < b->energy_nj);
    return le && lt;
}

/* Energy: the medium's over the writer's run, scaled to a day; a battery's
 * days are its energy over that (the medium alone: the MCU's own current
 * is not in the model, and the regulator is taken as lossless). */
static void energy(const struct plan_opts *o, const struct plan_spec *spec, struct plan_config *c)
{
    c->energy_day_j = spec->energy_modelled
                          ? (double)c->energy_nj / 1e9 * 86400e9 / (double)o->duration_ns
                          : -1;
    c->battery_days = o->battery_j > 0 && c->energy_day_j > 0 ? o->battery_j / c->energy_day_j
                                                               : -1;
}

/* --battery CAP@V: mAh or Ah at volts, into joules; -1 when it is not one */
static int read_battery(const char *text, double *joules)
{
    char *end = NULL;
    double cap = strtod(text, &end), ah = 0;
    if (end != text && !strncmp(end, "mAh@", 4))
        ah = cap / 1000, end += 4;
    else if (end != text && !strncmp(end, "Ah@", 3))
        ah = cap, end += 3;
    else
        return -1;
    const char *v_at = end;
    double volts = strtod(v_at, &end);
    if (end == v_at || (strcmp(end, "V") && *end) || !(ah > 0) || !(volts > 0) ||
        ah > 1e6 || volts > 1000)
        return -1;
    *joules = ah * 3600.0 * volts;
    return 0;
}

/* Wear: a block is erased once a lap of what the store programs, so its
 * erases a day are the run's erases - or, where the run had not lapped
 * the medium yet (a first fill erases nothing), the bytes it programmed
 * over the erase block, whichever is more - over the medium's blocks and
 * the run's days. The years to the first worn block assume even wear:
 * sensorlog's log is a circle, a managed medium's FTL levels it (at the
 * run's write amplification). */
static void wear(const struct plan_opts *o, const struct plan_spec *spec, struct plan_config *c)
{
    uint64_t blocks = spec->erase_bytes ? spec->capacity_bytes / spec->erase_bytes : 0;
    double by_bytes = spec->erase_bytes ? (double)c->device_bytes / spec->erase_bytes : 0;
    double erases = (double)c->erased_blocks > by_bytes ? (double)c->erased_blocks : by_bytes;
    double days = (double)o->duration_ns / 86400e9;
    c->erases_per_block_day = blocks ? erases / (double)blocks / days : 0;
    c->lifetime_years = !spec->endurance || c->erases_per_block_day <= 0
                            ? -1
                            : spec->endurance / c->erases_per_block_day / 365.0;
}

/* --lifetime and --confirm-for: a number and s, m, h, d or y (years of
 * 365 days), within [lo, hi]. Read here, not by the core's time parser:
 * days and years would cost the engine's flash budget on an MCU, which
 * never plans. */
static int read_long_time(const char *text, double lo, double hi, uint64_t *ns)
{
    char *end = NULL;
    double v = strtod(text, &end);
    double unit = !strcmp(end, "s") ? 1e9 : !strcmp(end, "m") ? 60e9
                  : !strcmp(end, "h") ? 3600e9 : !strcmp(end, "d") ? 86400e9
                  : !strcmp(end, "y") ? 365 * 86400e9 : 0;
    if (end == text || !unit || !(v * unit >= lo) || v * unit > hi)
        return -1;
    *ns = (uint64_t)(v * unit);
    return 0;
}

static void judge(const struct plan_opts *o, const struct plan_spec *spec, struct plan_config *c,
                  size_t n)
{
    /* the bytes --lose-at-most allows a cut to take */
    double allowed = spec->payload_bps * (double)o->lose_ns / 1e9;
    for (size_t i = 0; i < n; i++) {
        wear(o, spec, &c[i]);
        energy(o, spec, &c[i]);
        int lasts = !o->lifetime_ns || c[i].lifetime_years < 0 ||
                    c[i].lifetime_years * 365.0 * 86400e9 >= (double)o->lifetime_ns;
        c[i].fits = c[i].done && c[i].lossless && c[i].ram <= o->ram_bytes &&
                    (double)c[i].at_risk_bytes <= allowed && lasts && c[i].cut_checked != -1 &&
                    c[i].cut_checked != -4 && c[i].day_checked != -1 && c[i].day_checked != -3;
    }
    for (size_t i = 0; i < n; i++) {
        c[i].front = c[i].fits;
        for (size_t j = 0; j < n && c[i].front; j++)
            if (j != i && c[j].fits && dominates(spec, &c[j], &c[i]))
                c[i].front = 0;
    }
}

/* fitting ones by worst stall, RAM, data at risk, energy; then lossless ones by
 * RAM; then the rest by records lost; ones that did not run last */
static int cmp_u64(uint64_t a, uint64_t b)
{
    return a < b ? -1 : a > b;
}
static int rank_cmp(const void *pa, const void *pb)
{
    const struct plan_config *a = pa, *b = pb;
    int ga = !a->done ? 3 : a->fits ? 0 : a->lossless ? 1 : 2;
    int gb = !b->done ? 3 : b->fits ? 0 : b->lossless ? 1 : 2;
    int r = cmp_u64((uint64_t)ga, (uint64_t)gb);
    if (!r && ga == 0)
        r = cmp_u64(a->worst_stall, b->worst_stall);
    if (!r && ga <= 1)
        r = cmp_u64(a->ram, b->ram);
    if (!r && ga == 0)
        r = cmp_u64(a->at_risk_bytes, b->at_risk_bytes);
    if (!r && ga == 0) /* (0 for all on a medium with no energy model) */
        r = cmp_u64(a->energy_nj, b->energy_nj);
    if (!r && ga == 2)
        r = cmp_u64(a->lost + a->late, b->lost + b->late);
    if (!r) /* the order they were laid out in: a plan ranks the same every time */
        r = a->run != b->run ? (a->run < b->run ? -1 : 1) : a->writer - b->writer;
    return r;
}

/* --medium RESULTS.json: the medium fitted to a device's results (fit.c),
 * so the plan is made on the user's card; --medium sim:@FILE: the profile a
 * fit saved. o->medium becomes the simulated medium either stands for: 0,
 * or -1 after saying why. */
static int medium_of(struct plan_opts *o)
{
    static char expanded[2048];
    static struct fit_data d;
    static struct fit_out fitted;
    char err[512];
    if (!strncmp(o->medium, "sim:", 4)) {
        if (cli_profile_expand(o->medium, expanded, sizeof(expanded), err, sizeof(err))) {
            cli_error("bad --medium '%s': %s", o->medium, err);
            return -1;
        }
        if (strcmp(expanded, o->medium))
            o->medium_from = o->medium + 5;
        o->medium = expanded;
        return 0;
    }
    if (access(o->medium, R_OK)) /* not a file: read_medium says what --medium takes */
        return 0;
    char self[1024];
    ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (fit_load(o->medium, NULL, &d, err, sizeof(err)) || len <= 0) {
        if (err[0] || len <= 0)
            cli_error("--medium %s: %s", o->medium, len <= 0 ? "cannot run the model" : err);
        return -1;
    }
    self[len] = '\0';
    if (!o->quiet)
        fprintf(stderr, "storscope: plan: fitting the medium to %s first (storscope fit)\n",
                o->medium);
    if (fit_run(self, &d, o->jobs, &fitted, NULL, err, sizeof(err))) {
        cli_error("--medium %s: the fit failed: %s", o->medium, err);
        return -1;
    }
    if (fitted.rms_pct > FIT_POOR_PCT) {
        cli_error("--medium %s: the fitted model is off by %.0f %% (rms) from its results, more "
                  "than %d %%: a plan on it would not be that device's (storscope fit %s "
                  "--points shows where)", o->medium, fitted.rms_pct, FIT_POOR_PCT, o->medium);
        return -1;
    }
    o->medium_from = o->medium;
    o->medium_fit_rms = fitted.rms_pct;
    sts_strlcpy(expanded, fitted.spec, sizeof(expanded));
    o->medium = expanded;
    return 0;
}

/* A shard's end: its runs' results are in the shards' directory. */
static int shard_done(const struct plan_opts *o, struct plan_pool *p, struct plan_config *cfg)
{
    size_t done = plan_pool_done(p);
    free(cfg);
    if (*p->stop == 1) {
        cli_error("plan: shard %u of %u stopped; its finished runs are in %s", o->shard,
                  o->shards, p->dir);
        return EXIT_INTERRUPTED;
    }
    if (p->failed)
        cli_error("plan: shard %u of %u: %zu of its runs failed; the first: %s", o->shard,
                  o->shards, p->failed, p->failed_first);
    else if (!o->quiet)
        printf("shard %u of %u: %zu run%s, results in %s\n", o->shard, o->shards, done,
               done == 1 ? "" : "s", p->dir);
    return p->failed ? EXIT_RUN_FAILED : EXIT_OK;
}

int cmd_plan(int argc, char **argv)
{
    struct plan_opts o = {.medium = "sim:emmc-stm32u5", .lose_ns = 1000000000ull,
                          .duration_ns = 1800000000000ull, .seed = 1, .power_cuts = 3,
                          .confirm_ns = 86400000000000ull};
    void *const into[] = {&o};
    int first = cli_parse(&cli_plan_command, argc, argv, into, NULL);
    if (first == CLI_HELP_SHOWN)
        return EXIT_OK;
    if (first < 0)
        return EXIT_USAGE;
    if (first < argc) {
        cli_error("plan takes no operands ('%s')", argv[first]);
        return EXIT_USAGE;
    }
    if (!o.streams || !o.ram_bytes) {
        cli_error("plan needs --streams and --ram (storscope plan --help)");
        return EXIT_USAGE;
    }
    if (o.confirm_for && strcmp(o.confirm_for, "0") &&
        read_long_time(o.confirm_for, 1e9, 30 * 86400e9, &o.confirm_ns)) {
        cli_error("bad --confirm-for '%s' (0, or a time in s, m, h or d up to 30 days: 1d, 6h, "
                  "30m)", o.confirm_for);
        return EXIT_USAGE;
    }
    if (o.battery && read_battery(o.battery, &o.battery_j)) {
        cli_error("bad --battery '%s' (a capacity in mAh or Ah at a voltage: 2000mAh@3.7V, "
                  "1.2Ah@3V)", o.battery);
        return EXIT_USAGE;
    }
    if (o.confirm_for && !strcmp(o.confirm_for, "0"))
        o.confirm_ns = 0;
    if (o.lifetime && read_long_time(o.lifetime, 3600e9, 500 * 365 * 86400e9, &o.lifetime_ns)) {
        cli_error("bad --lifetime '%s' (a time in h, d or y from an hour to 500 years: 5y, "
                  "700d, 36h)", o.lifetime);
        return EXIT_USAGE;
    }
    if (!o.jobs) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        o.jobs = cpus > 0 ? (uint32_t)(cpus < 256 ? cpus : 256) : 1;
    }
    db_hide_password((char *)(uintptr_t)o.db); /* not on the runs' command lines */
    if (plan_shard_opts(&o) || medium_of(&o))
        return EXIT_USAGE;
    struct plan_spec spec;
    char why[300];
    if (plan_spec_read(&o, &spec, why, sizeof(why))) {
        cli_error("%s", why);
        return EXIT_USAGE;
    }
    /* on a noisy medium one seed's figures are one draw: a verdict another
     * seed could flip is not given as one */
    if (!o.repeat)
        o.repeat = spec.noisy ? 3 : 1;
    static struct plan_run runs[PLAN_MAX_RUNS];
    size_t n = plan_runs(&o, &spec, runs, PLAN_MAX_RUNS);
    struct plan_config *cfg = calloc(3 * n, sizeof(*cfg));
    struct plan_pool p = {.stop = &stop_asked, .o = &o, .spec = &spec, .runs = runs, .n = n, .cfg = cfg};
    ssize_t len = readlink("/proc/self/exe", p.self, sizeof(p.self) - 1);
    if (len > 0)
        p.self[len] = '\0';
    /* the runs' files: the shards' directory, kept, or a temporary one */
    const char *kept = o.shard_dir;
    if (o.collect && plan_collect_dir(o.collect, p.dir, sizeof(p.dir))) {
        free(cfg);
        return EXIT_USAGE;
    }
    if (o.collect)
        kept = p.dir;
    if (kept && strlen(kept) >= sizeof(p.dir) - 24) {
        cli_error("the shards' directory's name is too long: %s", kept);
        free(cfg);
        return EXIT_USAGE;
    }
    if (kept && kept != p.dir)
        snprintf(p.dir, sizeof(p.dir), "%s", kept);
    if (kept && plan_shard_check(&o, &spec, runs, n, p.dir, !o.collect)) {
        free(cfg);
        return EXIT_USAGE;
    }
    if (o.slurm) {
        free(cfg);
        return plan_slurm_submit(&o, &spec, runs, n, argc, argv, p.self);
    }
    const char *tmp = getenv("TMPDIR");
    /* (a TMPDIR too long for the runs' file names: /tmp) */
    int use_tmpdir = tmp && *tmp && strlen(tmp) + 24 < sizeof(p.dir);
    if (!kept)
        snprintf(p.dir, sizeof(p.dir), "%s/storscope-plan.XXXXXX", use_tmpdir ? tmp : "/tmp");
    if (!cfg || len <= 0 || (!kept && !mkdtemp(p.dir))) {
        cli_error("plan: cannot set up its runs: %s", !cfg ? "out of memory" : strerror(errno));
        free(cfg);
        return EXIT_RUN_FAILED;
    }
    for (size_t i = 0; i < 3 * n; i++) {
        cfg[i].run = &runs[i / 3];
        cfg[i].writer = (int)(i % 3);
    }
    cli_catch_stop_signals(on_signal);
    if (!o.quiet && !o.shards)
        plan_print_head(&o, &spec, n);
    fflush(stdout);
    int stopped = 0;
    if (o.collect)
        plan_pool_collect(&p);
    else
        stopped = plan_pool_run(&p) != 0;
    if (!kept && (o.shards || (p.failed && p.failed == plan_pool_done(&p))))
        plan_pool_clean(&p);
    if (o.shards) /* a shard ranks nothing: --collect does, from every shard's runs */
        return shard_done(&o, &p, cfg);
    if (p.failed && p.failed == plan_pool_done(&p)) { /* the medium, not a configuration */
        cli_error("plan: %s", p.failed_first);
        free(cfg);
        return EXIT_USAGE;
    }
    if (p.failed)
        fprintf(stderr, "storscope: plan: %zu of %zu runs failed (listed as not run); the "
                        "first: %s\n", p.failed, n, p.failed_first);
    /* the front's checks: a configuration that loses records over the
     * longer run, or whose cut loses what was synced or takes more than
     * its figure, drops out, and the front it leaves is checked in turn */
    judge(&o, &spec, cfg, 3 * n);
    for (int k = 1; (o.power_cuts || o.confirm_ns) && !stopped && k > 0;) {
        k = plan_check_front(&p, cfg, 3 * n);
        stopped = k < 0;
        judge(&o, &spec, cfg, 3 * n);
    }
    plan_front_clean(&p, cfg, 3 * n);
    if (!kept)
        plan_pool_clean(&p);
    qsort(cfg, 3 * n, sizeof(*cfg), rank_cmp);
    if (!o.quiet) {
        if (cfg[0].fits) {
            char cmd[1024];
            fputs("recommended: ", stdout);
            plan_print_config(stdout, &cfg[0]);
            plan_command_text(&o, &spec, cfg[0].run, cfg[0].worst_seed, cmd, sizeof(cmd));
            printf("  measure it again: %s\n", cmd);
        }
        plan_print_table(stdout, cfg, 3 * n, 20);
        plan_print_stores(stdout, cfg, 3 * n);
    }
    int rc = o.output ? plan_write_json(&o, &spec, cfg, 3 * n, n, stopped) : 0;
    int fits = cfg[0].fits;
    if (!fits && !stopped)
        plan_say_nothing_fits(&o, &spec, cfg, 3 * n);
    free(cfg);
    if (stopped) {
        cli_error("plan: stopped; the runs that finished are ranked above%s",
                  o.output ? " and in the JSON" : "");
        return EXIT_INTERRUPTED;
    }
    return rc ? EXIT_RUN_FAILED : fits ? EXIT_OK : EXIT_RUN_FAILED;
}
