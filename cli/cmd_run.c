#define _GNU_SOURCE
#include "cli.h"
#include "db.h"
#include "run_options.h"
#include "storscope/faultbd.h"
#include "storscope/faultfs.h"
#include "fio_json.h"
#include "json_in.h"
#include "storscope/analysis.h"
#include "storscope/error.h"
#include "storscope/json.h"
#include "storscope/output.h"
#include "storscope/suite.h"
#include "storscope/units.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_TESTS 32
#define IO_BUF_BYTES (2u * 1024u * 1024u) /* the largest chunk of the study */
#define IO_BUF_ALIGN 4096u
/* B2's 22 sizes, written and read, WL_MAX_RUNS rounds each */
#define ROUNDS_LEN (48u * 64u)

static volatile int stop_requested;

/* SIGINT, SIGTERM and SIGHUP alike, the second as the first: the run stops
 * at the next operation, closes its JSON and removes its scratch files. A
 * handler reset to the default made a second Ctrl-C (or `timeout`'s
 * follow-up) kill the process halfway through writing its results. */
static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

/* ---- file sinks ---------------------------------------------------- */
static int add_tests(const char *list, const struct sts_test_def **tests, size_t *n)
{
    /* every comma-separated name, empty ones too: "B0,,B2" is a typo to
     * name, not a list of two */
    for (const char *p = list; *list;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char name[32];
        if (len == 0) {
            cli_error("--tests '%s': an empty test name", list);
            return -1;
        }
        snprintf(name, sizeof(name), "%.*s", (int)(len < sizeof(name) ? len : sizeof(name) - 1), p);
        const struct sts_test_def *t = len < sizeof(name) ? sts_test_find(name) : NULL;
        if (!t) {
            cli_error("unknown test '%.*s' (see `storscope list tests`)", (int)len, p);
            return -1;
        }
        for (size_t i = 0; i < *n; i++)
            if (tests[i] == t) {
                cli_error("--tests '%s': %s is given twice", list, t->id);
                return -1;
            }
        if (*n >= MAX_TESTS) {
            cli_error("too many tests");
            return -1;
        }
        tests[(*n)++] = t;
        if (!comma)
            break;
        p = comma + 1;
    }
    if (*n == 0) {
        cli_error("--tests needs at least one test");
        return -1;
    }
    return 0;
}


static void iso_now(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* (a 32 MiB card partition keeps 3.2 MiB, not more than it has: issue 15.9) */
uint64_t cli_space_reserve(uint64_t total_bytes)
{
    uint64_t reserve = total_bytes / 20, floor = 64ull << 20;
    if (floor > total_bytes / 10)
        floor = total_bytes / 10;
    return reserve > floor ? reserve : floor;
}

/* A suite's test that cannot fit the target: not applicable, with why,
 * so the rest of the suite runs (paper on a 16 MiB NOR through sensorlog
 * was refused whole because S2 wanted 16 MiB). Tests named with --tests are
 * still refused: the user asked for them. */
#define TOO_BIG_MAX 16
static struct sts_test_def too_big[TOO_BIG_MAX];
static char too_big_why[TOO_BIG_MAX][200];
static int too_big_run(struct sts_ctx *c)
{
    size_t i = (size_t)(c->def - too_big);
    return sts_fail(c, STS_ENOTSUP, i < TOO_BIG_MAX ? too_big_why[i] : "does not fit");
}

/* Refuses a run that would leave the filesystem nearly full, naming the
 * test that needs the most and what would fit; in a suite, a test too big
 * for the target is set aside as not applicable instead (tests[] is the
 * plan's, writable). */
static int check_space(struct sts_target *t, struct sts_plan *plan,
                       const struct sts_test_def **tests, const char *spec)
{
    struct sts_statvfs sv;
    if (t->fs.ops->statvfs(t->fs.ctx, &sv))
        return 0; /* unknown: the writes themselves will report ENOSPC */
    uint64_t reserve = 0;
    /* a filesystem no larger than --capacity was set aside to be filled: M2
     * keeps to its own floor there */
    int set_aside = plan->capacity_bytes && sv.total_bytes <= plan->capacity_bytes;
    if ((t->flags & STS_T_USER_FS) && !set_aside) /* leave the user's filesystem usable */
        reserve = cli_space_reserve(sv.total_bytes);
    /* M2 alone on a filesystem larger than --capacity would only fail once
     * running (in a suite it says it is not applicable): refused now */
    if ((t->flags & STS_T_USER_FS) && plan->capacity_bytes && !set_aside && !plan->suite_name)
        for (size_t i = 0; i < plan->n_tests; i++)
            if (!strcmp(plan->tests[i]->id, "M2")) {
                char a[32], b[32];
                sts_fmt_bytes(a, sizeof(a), sv.total_bytes);
                sts_fmt_bytes(b, sizeof(b), plan->capacity_bytes);
                cli_error("M2 fills the filesystem it runs on, and %s is on one of %s, larger "
                          "than --capacity %s: give M2 a filesystem of that size set aside "
                          "(a loop-mounted image; README.md)", spec, a, b);
                return -1;
            }
    uint64_t need = 0;
    const char *biggest = "";
    for (size_t i = 0; i < plan->n_tests; i++) {
        if (plan->tests[i]->rewrites_only && sts_target_no_rewrite(t))
            continue; /* it will say it is not applicable, having written nothing */
        if (plan->tests[i]->appends_only && (t->flags & STS_T_APPEND_ONLY))
            continue; /* the log wraps: its oldest records make room */
        uint64_t n = plan->tests[i]->scratch_bytes ? plan->tests[i]->scratch_bytes(plan) : 0;
        if (plan->suite_name && i < TOO_BIG_MAX && n + reserve > sv.free_bytes) {
            char a[32], c[32];
            sts_fmt_bytes(a, sizeof(a), n);
            sts_fmt_bytes(c, sizeof(c), sv.free_bytes > reserve ? sv.free_bytes - reserve : 0);
            snprintf(too_big_why[i], sizeof(too_big_why[i]),
                     "%s needs %s, but a file on %s can hold at most %s (--size sets fsync, "
                     "seq, rand and M2's files)", tests[i]->id, a, spec, c);
            too_big[i] = *tests[i];
            too_big[i].run = too_big_run;
            too_big[i].scratch_bytes = NULL;
            tests[i] = &too_big[i];
            continue;
        }
        if (n > need) {
            need = n;
            biggest = plan->tests[i]->id;
        }
    }
    if (need + reserve > sv.free_bytes) {
        char a[32], b[32], c[32], d[32];
        sts_fmt_bytes(a, sizeof(a), need);
        sts_fmt_bytes(b, sizeof(b), reserve);
        sts_fmt_bytes(c, sizeof(c), sv.free_bytes);
        sts_fmt_bytes(d, sizeof(d), sv.free_bytes > reserve ? sv.free_bytes - reserve : 0);
        if (reserve)
            cli_error("not enough free space on %s: %s needs %s and storscope leaves %s free, "
                      "but only %s is available: at most %s can be used (--size sets fsync, "
                      "seq, rand and M2's files; leave %s out with --tests, or free space)",
                      spec, biggest, a, b, c, d, biggest);
        else
            cli_error("not enough space on %s: %s needs %s, but a file can hold at most %s "
                      "(--size sets fsync, seq, rand and M2's files; leave %s out with --tests)",
                      spec, biggest, a, c, biggest);
        return -1;
    }
    return 0;
}

/* The tests to run: --tests, or the suite's (paper by default); 0, or
 * EXIT_USAGE after saying why. */
static int select_tests(const struct run_opts *o, struct sts_plan *plan,
                        const struct sts_test_def **tests, size_t *n_tests)
{
    *n_tests = 0;
    if (o->tests)
        return add_tests(o->tests, tests, n_tests) ? EXIT_USAGE : 0;
    const char *name = o->suite ? o->suite : "paper";
    const struct sts_suite_def *s = sts_suite_find(name);
    if (!s) {
        cli_error("unknown suite '%s' (see `storscope list suites`)", name);
        return EXIT_USAGE;
    }
    for (size_t i = 0; i < s->n; i++)
        tests[(*n_tests)++] = sts_test_find(s->test_ids[i]);
    plan->suite_name = s->name;
    return 0;
}

/* Usage errors are found before anything runs, not after an hour: 0, or
 * EXIT_USAGE after saying why. */
static int check_plan(const struct run_opts *o, const struct sts_plan *plan,
                      const struct sts_test_def *const *tests, size_t n_tests)
{
    int has_l1 = 0, has_fsync = 0;
    for (size_t i = 0; i < n_tests; i++) {
        has_l1 |= !strcmp(tests[i]->id, "L1");
        has_fsync |= !strcmp(tests[i]->id, "fsync");
        if (plan->size_bytes && plan->size_bytes < tests[i]->min_size_bytes) {
            char least[32];
            sts_fmt_bytes(least, sizeof(least), tests[i]->min_size_bytes);
            cli_error("--size %s is too small for %s: its writes are %s, the least size it "
                      "takes", o->size, tests[i]->id, least);
            return EXIT_USAGE;
        }
    }
    if (plan->streams) {
        const char *bad = sts_l1_streams_check(plan->streams);
        if (bad) {
            cli_error("--streams '%s': %s", plan->streams, bad + 4 /* past "L1: " */);
            return EXIT_USAGE;
        }
        if (!has_l1) {
            cli_error("--streams is an L1 option, but L1 is not among the tests");
            return EXIT_USAGE;
        }
    }
    /* L1's options mean nothing to the other tests: taken and ignored, a
     * user believed them applied */
    const struct {
        int given;
        const char *name;
    } l1_only[] = {{plan->tasks, "--tasks"},
                   {plan->deadline_ns != 0, "--deadline"},
                   {plan->buffer_bytes != 0, "--buffer"},
                   {plan->sync_interval_ns != 0, "--sync-every"},
                   {plan->bisect, "--bisect"}};
    for (size_t i = 0; i < sizeof(l1_only) / sizeof(l1_only[0]) && !has_l1; i++)
        if (l1_only[i].given) {
            cli_error("%s is an L1 option, but L1 is not among the tests", l1_only[i].name);
            return EXIT_USAGE;
        }
    if (o->output && o->fio_json && cli_same_file(o->output, o->fio_json)) {
        cli_error("-o and --fio-json name the same file ('%s'): each writes its own", o->fio_json);
        return EXIT_USAGE;
    }
    if (o->fio_json && !has_fsync) {
        cli_error("--fio-json writes the fsync test's result, but fsync is not among the tests "
                  "(add --tests fsync)");
        return EXIT_USAGE;
    }
    return 0;
}

/* The target as given (the default: the study's medium), its kind and
 * the fault injection taken from its options, and --csv's directory made:
 * 0, or EXIT_USAGE after saying why. Nothing is opened yet. */
static int resolve_target(struct run_opts *o, const char *probed, struct sts_target_spec *spec,
                          struct sts_fault_config *fault, int *inject,
                          const struct sts_target_kind **kind)
{
    /* the study's medium, simulated: runs anywhere, the same everywhere; a
     * 32-bit host cannot map the 4 GiB model with its data, so it gets 1 GiB
     * of it (the same figures but for the volume's size: M2's span) */
    if (!o->target)
        o->target = sizeof(void *) >= 8 ? "sim:emmc-stm32u5" : "sim:emmc-stm32u5,capacity=1G";
    if (o->probe)
        cli_probe_target_check(probed, o->target);
    static char expanded[2048]; /* sim:@FILE: the profile it names (profile_file.c) */
    char perr[512];
    if (cli_profile_expand(o->target, expanded, sizeof(expanded), perr, sizeof(perr))) {
        cli_error("bad target '%s': %s", o->target, perr);
        return EXIT_USAGE;
    }
    o->target = expanded;
    const char *why = NULL;
    if (sts_target_spec_parse(o->target, spec, &why)) {
        cli_error("bad target '%s': %s", o->target, why);
        return EXIT_USAGE;
    }
    /* fault injection is the decorator's, on every kind: the kind never sees it */
    *inject = sts_faultfs_take_opts(spec, fault, &why);
    if (*inject < 0) {
        cli_error("bad target '%s': %s", o->target, why);
        return EXIT_USAGE;
    }
    *kind = cli_find_kind(spec->kind);
    if (!*kind) {
        char known[256] = "";
        for (size_t i = 0; i < cli_n_target_kinds; i++) {
            sts_strlcat(known, i ? ", " : "", sizeof(known));
            sts_strlcat(known, cli_target_kinds[i]->name, sizeof(known));
        }
        cli_error("unknown target kind '%s' (known: %s)", spec->kind, known);
        return EXIT_USAGE;
    }
    if (o->csv) {
        struct stat st;
        if (mkdir(o->csv, 0755) && errno != EEXIST) {
            cli_error("cannot create --csv directory %s: %s", o->csv, strerror(errno));
            return EXIT_USAGE;
        }
        if (stat(o->csv, &st) || !S_ISDIR(st.st_mode) || access(o->csv, W_OK)) {
            cli_error("--csv %s is not a writable directory", o->csv);
            return EXIT_USAGE;
        }
    }

    return 0;
}

/* The screen after the run: its summary, totals and guidelines (none
 * when it failed), and where its results went. */
static void print_outcome(const struct run_opts *o, int rc, struct sts_an_input *an_in,
                          const struct sts_an_input *probe_in, struct sts_summary_sink *summary,
                          int json_open, int json_err)
{
    if (!o->quiet && (rc == 0 || rc == STS_EINTR)) {
        struct sts_an_config acfg;
        static struct sts_analysis an;
        sts_an_config_default(&acfg);
        cli_probe_apply(an_in, probe_in);
        sts_analyze(an_in, &acfg, &an);
        if (o->tables) {
            cli_print_analysis(stdout, &an);
        } else {
            putchar('\n');
            sts_summary_add_analysis(summary, &an);
            sts_summary_print(summary, stdout);
            cli_print_totals(stdout, summary);
            cli_print_guidelines(stdout, &an);
        }
    } else if (!o->quiet && !json_err) {
        /* a test that failed keeps its row (what failed, on which file)
         * and the totals; no guideline rests on a run that did not finish */
        putchar('\n');
        sts_summary_print(summary, stdout);
        cli_print_totals(stdout, summary);
    }
    if (json_open && !o->quiet && !rc && !o->output_is_scratch)
        printf("\nresults: %s (findings and figures: storscope report %s [-o report.html])\n",
               o->output, o->output);
    else if (!o->quiet && !rc && !o->tables)
        printf("\nfindings and per-point tables: run again with --tables (or -o FILE, then "
               "storscope report FILE)\n");
}

/* What can be told once the target is open: --verify on a target that
 * cannot take it, tests that need more room than it has. */
static int check_opened(struct sts_target *target, struct sts_plan *plan,
                        const struct sts_test_def **tests, const char *spec)
{
    if (plan->verify && (target->flags & STS_T_READ_ONLY)) {
        cli_error("--verify needs to write its pattern, but %s is read-only "
                  "(writing a raw device needs --allow-destructive)", spec);
        return -1;
    }
    if (plan->verify && !(target->flags & STS_T_KEEPS_DATA)) {
        cli_error("--verify needs a target that keeps data; %s keeps none", spec);
        return -1;
    }
    return check_space(target, plan, tests, spec);
}

/* What a power cut left of a store: checked once, as the results file
 * ends (its "power_cut") or after the run when there is none. */
struct cut_state {
    struct sts_target *target;
    int checked, cut;
    struct sts_cut_check c;
};

static void check_cut(struct cut_state *cs)
{
    if (cs->checked)
        return;
    cs->checked = 1;
    cs->cut = cs->target->after_cut && cs->target->after_cut(cs->target, &cs->c);
}

static void write_cut(void *ctx, struct sts_jw *w)
{
    struct cut_state *cs = ctx;
    check_cut(cs);
    if (!cs->cut)
        return;
    sts_jw_object(w, "power_cut");
    sts_jw_bool(w, "synced_data_kept", !cs->c.lost);
    sts_jw_u64(w, "files_checked", cs->c.files);
    sts_jw_u64(w, "synced_bytes_checked", cs->c.synced_bytes);
    sts_jw_str(w, "message", cs->c.msg);
    sts_jw_end(w);
}

/* What a power cut left of a store, and what fault injection counted
 * (read before the target closes: it owns them). 1 when a cut lost data. */
static int report_what_was_injected(struct cut_state *cs, const struct sts_faultfs *faultfs)
{
    struct sts_target *target = cs->target;
    check_cut(cs);
    if (cs->cut) /* a store on a device that lost power: what survived */
        fprintf(stderr, "storscope: %s\n", cs->c.msg);
    if (target->faultbd)
        fprintf(stderr, "storscope: device fault injection: %llu device commands counted, %llu "
                        "failed\n", (unsigned long long)target->faultbd->counted,
                (unsigned long long)target->faultbd->failed);
    if (faultfs) /* the count sizes a sweep: fail_at=1 .. this */
        fprintf(stderr, "storscope: fault injection: %llu operations counted, %llu failed\n",
                (unsigned long long)faultfs->counted, (unsigned long long)faultfs->failed);
    return cs->cut && cs->c.lost;
}

/* Where a run's points go: the progress line, the per-point tables, the
 * summary, the results file, the analysis, fio's JSON, CSV. */
struct run_sinks {
    struct sts_sink sinks[7];
    size_t n;
    struct sts_progress_sink ps;
    struct sts_term_sink ts;
    struct sts_summary_sink summary;
    struct sts_json_sink js;
    struct sts_an_input an_in;
    struct sts_csv_sink *cs; /* allocated: free it after the run */
};

static int open_sinks(struct run_sinks *r, const struct run_opts *o, struct cli_out *json,
                      struct cli_out *fio, struct cli_fio_json *fj)
{
    r->n = 0;
    r->cs = NULL;
    if (!o->quiet && isatty(STDERR_FILENO)) {
        sts_progress_sink_init(&r->ps, &r->sinks[r->n++], stderr);
        r->ps.clear_on_point = o->tables; /* (its rows go to the same terminal) */
    }
    if (!o->quiet && o->tables)
        sts_term_sink_init(&r->ts, &r->sinks[r->n++], stdout);
    if (!o->quiet)
        sts_summary_sink_init(&r->summary, &r->sinks[r->n++]);
    if (json->f)
        sts_json_sink_init(&r->js, &r->sinks[r->n++], cli_out_write, json, cli_out_flush, 1);
    sts_an_collector_init(&r->an_in, &r->sinks[r->n++]);
    if (fio->f)
        cli_fio_json_init(fj, &r->sinks[r->n++], fio->f);
    if (o->csv) {
        r->cs = malloc(sizeof(*r->cs));
        if (!r->cs)
            return -1;
        sts_csv_sink_init(r->cs, &r->sinks[r->n++], o->csv);
    }
    return 0;
}

/* The target opened as the spec says: 0, or the exit code after saying why. */
static int open_run_target(const struct run_opts *o, const struct sts_plan *plan,
                           const struct sts_target_kind *kind, const struct sts_target_spec *spec,
                           struct sts_target *target)
{
    memset(target, 0, sizeof(*target));
    target->seed = plan->seed;
    target->allow_destructive = o->allow_destructive;
    char err[1024] = "";
    int rc = kind->open(target, spec, err, sizeof(err));
    if (!rc && sts_fs_ops_check(target->fs.ops, err, sizeof(err))) {
        kind->close(target); /* a target kind whose filesystem this library cannot call */
        rc = STS_EINVAL;
    }
    if (!rc)
        return EXIT_OK;
    cli_error("%s", err[0] ? err : sts_strerror(rc));
    /* the device failing while the target is set up is a failed run, not
     * a usage error */
    return rc == STS_EIO || rc == STS_ECORRUPT ? EXIT_RUN_FAILED : EXIT_USAGE;
}

/* The engine's buffers, from the heap (the I/O buffer is 2 MiB): 0, or -1
 * after saying so. free_workspace frees what there is. */
static int alloc_workspace(struct sts_workspace *ws)
{
    uint8_t *buf = NULL;
    memset(ws, 0, sizeof(*ws));
    if (posix_memalign((void **)&buf, IO_BUF_ALIGN, IO_BUF_BYTES))
        buf = NULL;
    *ws = (struct sts_workspace){
        .buf = buf,
        .buf_size = IO_BUF_BYTES,
        .hist = calloc((size_t)STS_CTX_LATS * STS_HIST_BUCKETS, sizeof(*ws->hist)),
        .hist_buckets = STS_HIST_BUCKETS,
        .hist_sub_bits = STS_HIST_SUB_BITS,
        .hist_max_exp = STS_HIST_MAX_EXP,
        .rounds = calloc(ROUNDS_LEN, sizeof(*ws->rounds)),
        .rounds_len = ROUNDS_LEN,
    };
    if (ws->buf && ws->hist && ws->rounds)
        return 0;
    cli_error("out of memory");
    return -1;
}

static void free_workspace(struct sts_workspace *ws)
{
    free(ws->buf);
    free(ws->hist);
    free(ws->rounds);
}

/* The run itself, then what it found: the exit code. */
static int run_and_report(const struct run_opts *o, const struct sts_plan *plan,
                          struct sts_target *target, struct sts_workspace *ws,
                          struct run_sinks *rs, const struct sts_an_input *probe_in,
                          const struct cli_out *json, struct sts_faultfs *injected)
{
    char started[32];
    iso_now(started, sizeof(started));
    struct sts_run_info ri = {
        .tool_version = STORSCOPE_VERSION,
        .target = o->target,
        .target_kind = target->kind,
        .suite = plan->suite_name,
        .scale = sts_scale_name(plan->scale),
        .seed = plan->seed,
        .n_tests = (uint32_t)plan->n_tests,
        .verify = plan->verify,
        .started_at = started,
        .env = target->env,
        .n_env = target->n_env,
        .warnings = target->warnings,
        .n_warnings = target->n_warnings,
    };
    if (!o->quiet)
        printf("storscope %s: %s, scale %s, seed %llu\n", STORSCOPE_VERSION, o->target,
               ri.scale, (unsigned long long)plan->seed);
    struct cut_state cut = {.target = target};
    if (json->f) {
        rs->js.at_end = write_cut;
        rs->js.at_end_ctx = &cut;
    }
    int rc = sts_engine_run(plan, target, ws, rs->sinks, rs->n, &ri), code = EXIT_OK;
    free(rs->cs);
    if (rc == STS_EINTR) {
        code = EXIT_INTERRUPTED;
        cli_error("stopped by signal; finished points kept%s%s", o->output ? " in " : "",
                  o->output ? o->output : "");
    } else if (rc) {
        code = EXIT_RUN_FAILED;
        /* a results file that could not be written is not the target's
         * I/O error: the close below names the file and the reason */
        if (!json->err)
            cli_error("run failed: %s", sts_strerror(rc));
    }
    print_outcome(o, rc, &rs->an_in, probe_in, &rs->summary, json->f != NULL, json->err);
    if (report_what_was_injected(&cut, injected))
        code = EXIT_RUN_FAILED;
    return code;
}

int cmd_run(int argc, char **argv)
{
    struct run_opts o = {0};
    struct sts_plan plan = {.scale = STS_SCALE_QUICK, .seed = 1};
    int prc = run_parse_options(argc, argv, &o, &plan);
    if (prc)
        return prc > 0 ? EXIT_OK : EXIT_USAGE;

    const struct sts_test_def *tests[MAX_TESTS];
    size_t n_tests = 0;
    if (select_tests(&o, &plan, tests, &n_tests))
        return EXIT_USAGE;
    plan.tests = tests;
    plan.n_tests = n_tests;
    static struct sts_an_input probe_in; /* the probe's answers; read before anything runs */
    char probed[512];
    if (o.probe && cli_load_probe(o.probe, &probe_in, probed, sizeof(probed)))
        return EXIT_USAGE;
    if (check_plan(&o, &plan, tests, n_tests))
        return EXIT_USAGE;
    plan.stop = &stop_requested;

    struct sts_target_spec spec;
    struct sts_fault_config fault;
    int inject = 0;
    const struct sts_target_kind *kind = NULL;
    if (resolve_target(&o, probed, &spec, &fault, &inject, &kind))
        return EXIT_USAGE;
    /* --db: an archive that cannot be had is found before the run; without
     * -o the document goes to a scratch file, archived, then removed */
    static char scratch[4096];
    if (o.db) {
        if (db_check(o.db))
            return EXIT_USAGE;
        if (!o.output) {
            const char *tmp = getenv("TMPDIR");
            snprintf(scratch, sizeof(scratch), "%s/storscope-run-XXXXXX.json",
                     tmp && *tmp ? tmp : "/tmp");
            int fd = mkstemps(scratch, 5);
            if (fd < 0) {
                cli_error("--db: cannot make the results' scratch file %s: %s", scratch,
                          strerror(errno));
                return EXIT_USAGE;
            }
            close(fd);
            o.output = scratch;
            o.output_is_scratch = 1;
        }
    }

    /* Signals first: a Ctrl-C during set-up must still clean up. */
    cli_catch_stop_signals(on_signal);

    struct sts_target target;
    int code = open_run_target(&o, &plan, kind, &spec, &target);
    if (code)
        return code;
    static struct cli_out json, fio; /* 8 KiB each: not on the stack */
    struct cli_fio_json fj = {0};
    struct sts_workspace ws = {0};
    if (check_opened(&target, &plan, tests, o.target)) {
        code = EXIT_USAGE;
        goto out;
    }
    /* after the CLI's own checks: operation 1 is the run's first */
    static struct sts_faultfs faultfs;
    if (inject) {
        sts_faultfs_init(&faultfs, &target.fs, &fault, &target.fs);
        sts_target_env(&target, STS_KV_U("fault_fail_at", fault.fail_at));
        sts_target_env(&target, STS_KV_B("fault_fail_from", fault.from));
        sts_target_env(&target, STS_KV_U("fault_op_mask", fault.ops));
    }
    /* the results grow in FILE.partial and take FILE's name when the run
     * ends, however it ends: FILE is never a half-written document. Both
     * files are opened here: a name that cannot be written is found before
     * the run, not when it ends */
    if ((o.output && cli_out_open(&json, "-o", o.output)) ||
        (o.fio_json && cli_out_open(&fio, "--fio-json", o.fio_json))) {
        code = EXIT_USAGE;
        goto out;
    }
    if (alloc_workspace(&ws)) {
        code = EXIT_RUN_FAILED;
        goto out;
    }
    for (size_t i = 0; i < target.n_warnings; i++)
        fprintf(stderr, "storscope: warning: %s\n", target.warnings[i]);
    static struct run_sinks rs; /* the summary is 10 KB: not on the stack */
    if (open_sinks(&rs, &o, &json, &fio, &fj)) {
        code = EXIT_RUN_FAILED;
        goto out;
    }
    code = run_and_report(&o, &plan, &target, &ws, &rs, &probe_in, &json,
                          inject ? &faultfs : NULL);
out:
    if (fio.f && !fj.written && code != EXIT_USAGE) {
        cli_error("--fio-json: no fsync result to write (add --tests fsync)");
        if (code == EXIT_OK)
            code = EXIT_RUN_FAILED;
    }
    if (cli_out_close(&fio, fj.written) && code == EXIT_OK)
        code = EXIT_RUN_FAILED;
    kind->close(&target); /* removes the scratch directory */
    /* a run that failed keeps its results; one refused before it ran has none */
    if (cli_out_close(&json, code != EXIT_USAGE) && code == EXIT_OK)
        code = EXIT_RUN_FAILED;
    free_workspace(&ws);
    /* a run that failed or was stopped is archived too: its status says so */
    if (o.db && code != EXIT_USAGE && db_store_file(o.db, o.output, o.quiet, o.probe) < 0 &&
        code == EXIT_OK)
        code = EXIT_RUN_FAILED;
    if (o.output_is_scratch)
        unlink(o.output);
    return code;
}
