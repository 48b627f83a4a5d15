/* storscope db: the results archive (issue 48). import, list, show,
 * compare, trend and export over the archive db.h describes; `run --db` stores a
 * run as it finishes through the same db_store_file. */
#define _GNU_SOURCE
#include "cli.h"
#include "cli_options.h"
#include "db.h"
#include "json_in.h"
#include "storscope/output.h"
#include "storscope/units.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The archive a reading action uses: never made by it. */
static void *open_archive(const struct db_opts *o, const struct db_ops **ops, char *where,
                          size_t where_len)
{
    return db_open_named(o->db, 0, ops, where, where_len);
}

int db_open_two(const struct db_opts *o, const struct db_ops **ops, char *where,
                    size_t where_len, void **lister, void **reader)
{
    *lister = open_archive(o, ops, where, where_len);
    *reader = *lister ? open_archive(o, ops, where, where_len) : NULL;
    if (*reader)
        return 0;
    if (*lister)
        (*ops)->close(*lister);
    return -1;
}

/* Every file is read and checked before any is stored: one foreign or
 * damaged file and nothing is imported. */
static int db_import(const struct db_opts *o, int n, char **files)
{
    if (!n) {
        cli_error("db import needs results files");
        return EXIT_USAGE;
    }
    int bad = 0;
    for (int i = 0; i < n; i++) {
        cJSON *doc = cli_load_results(files[i]);
        if (!doc) {
            bad++;
            continue;
        }
        struct db_run run;
        struct db_point *pts;
        size_t n_pts;
        char err[256];
        if (db_read_run(doc, "", 0, &run, &pts, &n_pts, err, sizeof(err))) {
            cli_error("%s: %s", files[i], err);
            bad++;
        }
        free(pts);
        cJSON_Delete(doc);
    }
    if (bad) {
        cli_error("%d of %d file%s refused: nothing imported", bad, n, n == 1 ? "" : "s");
        return EXIT_USAGE;
    }
    cJSON *card = NULL;
    if (o->probe && !(card = db_load_card(o->probe)))
        return EXIT_USAGE;
    const struct db_ops *ops;
    char where[4096];
    void *ctx = db_open_named(o->db, 1, &ops, where, sizeof(where));
    if (!ctx) {
        cJSON_Delete(card);
        return EXIT_USAGE;
    }
    int stored = 0, already = 0, failed = 0;
    for (int i = 0; i < n; i++) {
        int rc = db_store(ops, ctx, where, files[i], o->quiet, card);
        stored += rc == 0;
        already += rc == 1;
        failed += rc < 0;
    }
    ops->close(ctx);
    cJSON_Delete(card);
    if (!o->quiet)
        printf("%d run%s archived, %d already there%s\n", stored, stored == 1 ? "" : "s",
               already, failed ? ", some failed (above)" : "");
    return failed ? EXIT_RUN_FAILED : EXIT_OK;
}

void db_filter_of(const struct db_opts *o, struct db_filter *f)
{
    f->id = 0;
    f->target = o->target;
    f->card = o->card;
    f->test = o->test;
    f->since = o->since;
    f->until = o->until;
}

static int print_run(void *arg, const struct db_run *r)
{
    int *count = arg;
    if (!(*count)++)
        printf("%-5s %-20s %-8s %-10s %-6s %-20s %s\n", "id", "started", "status", "suite",
               "scale", "card", "target");
    char card[80];
    snprintf(card, sizeof(card), "%s%s%s", r->card_name, *r->card_serial ? " " : "",
             r->card_serial);
    printf("%-5lld %-20s %-8s %-10s %-6s %-20s %s\n", (long long)r->id,
           *r->started_at ? r->started_at : r->imported_at, r->status,
           *r->suite ? r->suite : "-", *r->scale ? r->scale : "-", *card ? card : "-",
           r->target);
    return 0;
}

static int db_list(const struct db_opts *o)
{
    const struct db_ops *ops;
    char where[4096], err[256];
    void *ctx = open_archive(o, &ops, where, sizeof(where));
    if (!ctx)
        return EXIT_USAGE;
    struct db_filter f;
    db_filter_of(o, &f);
    int count = 0, rc = ops->list(ctx, &f, print_run, &count, err, sizeof(err));
    ops->close(ctx);
    if (rc) {
        cli_error("archive %s: %s", where, err);
        return EXIT_RUN_FAILED;
    }
    if (!count)
        printf("no run in %s matches\n", where);
    return EXIT_OK;
}

static int parse_id(const char *text, int64_t *id)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || end == text || *end || v <= 0) {
        cli_error("'%s' is not a run's id (a whole number, as db list shows)", text);
        return -1;
    }
    *id = v;
    return 0;
}

static void value_text(char *b, size_t n, double v, const char *unit)
{
    if (!isfinite(v))
        snprintf(b, n, "-");
    else if (!strcmp(unit, "bytes_per_second"))
        sts_fmt_rate(b, n, v);
    else if (strstr(unit, "ns"))
        sts_fmt_ns(b, n, v);
    else
        snprintf(b, n, "%.6g", v);
}

static int print_point(void *arg, const struct db_point *p)
{
    (void)arg;
    char mean[32], p50[32], p99[32], max[32];
    value_text(mean, sizeof(mean), p->mean, p->unit);
    value_text(p50, sizeof(p50), p->p50_ns, "ns");
    value_text(p99, sizeof(p99), p->p99_ns, "ns");
    value_text(max, sizeof(max), p->max_ns, "ns");
    printf("  %-6s %-12s %-14s p50 %-10s p99 %-10s max %-10s %s\n", p->test_id, p->name, mean,
           p50, p99, max, p->params);
    return 0;
}

static int show_one(void *arg, const struct db_run *r)
{
    const struct db_run **out = arg;
    *out = r; /* seen (valid only during the call) */
    printf("run %lld: %s\n  started %s, archived %s, storscope %s\n"
           "  suite %s, scale %s, seed %lld; status %s: %lld test%s ok, %lld failed\n",
           (long long)r->id, r->target, *r->started_at ? r->started_at : "(not recorded)",
           r->imported_at, r->tool_version, *r->suite ? r->suite : "(tests chosen)",
           *r->scale ? r->scale : "-", (long long)r->seed, r->status, (long long)r->tests_ok,
           r->tests_ok == 1 ? "" : "s", (long long)r->tests_failed);
    if (*r->card_name || *r->card_serial || *r->card_manufacturer)
        printf("  card: manufacturer %s, OEM %s, name %s, serial %s\n",
               *r->card_manufacturer ? r->card_manufacturer : "-",
               *r->card_oem ? r->card_oem : "-", *r->card_name ? r->card_name : "-",
               *r->card_serial ? r->card_serial : "-");
    return 1;
}

static int db_show(const struct db_opts *o, int n, char **args)
{
    int64_t id;
    if (n != 1) {
        cli_error("db show needs one run's id");
        return EXIT_USAGE;
    }
    if (parse_id(args[0], &id))
        return EXIT_USAGE;
    const struct db_ops *ops;
    char where[4096], err[256];
    void *ctx = open_archive(o, &ops, where, sizeof(where));
    if (!ctx)
        return EXIT_USAGE;
    char *doc = NULL;
    int rc = ops->document(ctx, id, &doc, err, sizeof(err));
    if (rc) {
        cli_error("archive %s: %s", where, err);
        ops->close(ctx);
        return EXIT_USAGE;
    }
    if (o->json) {
        if (o->output) {
            static struct cli_out out; /* 8 KiB: not on the stack */
            rc = cli_out_open(&out, "--output", o->output);
            if (!rc) {
                rc = cli_out_write(&out, doc, strlen(doc));
                rc = cli_out_close(&out, !rc) || rc;
            }
        } else {
            rc = fputs(doc, stdout) < 0 || fflush(stdout);
        }
        free(doc);
        ops->close(ctx);
        return rc ? EXIT_RUN_FAILED : EXIT_OK;
    }
    free(doc);
    struct db_filter f = {.id = id};
    const struct db_run *shown = NULL;
    rc = ops->list(ctx, &f, show_one, &shown, err, sizeof(err));
    if (!rc) {
        printf("  points:\n");
        rc = ops->points(ctx, id, print_point, NULL, err, sizeof(err));
    }
    ops->close(ctx);
    if (rc) {
        cli_error("archive %s: %s", where, err);
        return EXIT_RUN_FAILED;
    }
    return EXIT_OK;
}

#define MAX_COMPARED 16

static int db_compare(const struct db_opts *o, int n, char **args)
{
    if (n < 2 || n > MAX_COMPARED) {
        cli_error("db compare needs 2 to %d runs' ids", MAX_COMPARED);
        return EXIT_USAGE;
    }
    int64_t ids[MAX_COMPARED];
    for (int i = 0; i < n; i++)
        if (parse_id(args[i], &ids[i]))
            return EXIT_USAGE;
    const struct db_ops *ops;
    char where[4096], err[256];
    void *ctx = open_archive(o, &ops, where, sizeof(where));
    if (!ctx)
        return EXIT_USAGE;
    cJSON *docs[MAX_COMPARED] = {0};
    char labels[MAX_COMPARED][24];
    const char *names[MAX_COMPARED];
    int got = 0, rc = EXIT_OK;
    for (; got < n; got++) {
        char *text = NULL;
        if (ops->document(ctx, ids[got], &text, err, sizeof(err))) {
            cli_error("archive %s: %s", where, err);
            rc = EXIT_USAGE;
            break;
        }
        docs[got] = cJSON_Parse(text);
        free(text);
        if (!docs[got]) {
            cli_error("archive %s: run %lld's document does not parse", where,
                      (long long)ids[got]);
            rc = EXIT_RUN_FAILED;
            break;
        }
        snprintf(labels[got], sizeof(labels[got]), "run %lld", (long long)ids[got]);
        names[got] = labels[got];
    }
    ops->close(ctx);
    if (rc == EXIT_OK)
        rc = cli_compare_docs(docs, names, names, n, o->fmt, o->threshold);
    for (int i = 0; i < got; i++)
        cJSON_Delete(docs[i]);
    return rc;
}

/* CSV (RFC 4180): a field with a comma, a quote or a line break is quoted,
 * its quotes doubled. */
static void csv_field(FILE *f, const char *s, int last)
{
    if (strpbrk(s, ",\"\r\n")) {
        fputc('"', f);
        for (; *s; s++) {
            if (*s == '"')
                fputc('"', f);
            fputc(*s, f);
        }
        fputc('"', f);
    } else {
        fputs(s, f);
    }
    fputc(last ? '\n' : ',', f);
}

static void csv_number(FILE *f, double v, int last)
{
    if (isfinite(v))
        fprintf(f, "%.17g", v);
    fputc(last ? '\n' : ',', f);
}

struct export_ctx {
    FILE *f;
    const struct db_ops *ops;
    void *db;
    const struct db_run *run;
    int failed;
    char err[256];
};

static int export_point(void *arg, const struct db_point *p)
{
    struct export_ctx *x = arg;
    const struct db_run *r = x->run;
    char id[24], seed[24], seq[24];
    snprintf(id, sizeof(id), "%lld", (long long)r->id);
    snprintf(seed, sizeof(seed), "%lld", (long long)r->seed);
    snprintf(seq, sizeof(seq), "%lld", (long long)p->seq);
    const char *text[] = {id,          r->started_at, r->target,     r->suite,
                          r->scale,    seed,          r->status,     r->card_manufacturer,
                          r->card_oem, r->card_name,  r->card_serial, p->test_id,
                          seq,         p->name,       p->params,     p->unit};
    for (size_t i = 0; i < sizeof(text) / sizeof(text[0]); i++)
        csv_field(x->f, text[i], 0);
    csv_number(x->f, p->mean, 0);
    csv_number(x->f, p->sd, 0);
    csv_number(x->f, p->p50_ns, 0);
    csv_number(x->f, p->p99_ns, 0);
    csv_number(x->f, p->max_ns, 1);
    return 0;
}

static int export_run(void *arg, const struct db_run *r)
{
    struct export_ctx *x = arg;
    x->run = r;
    if (x->ops->points(x->db, r->id, export_point, x, x->err, sizeof(x->err))) {
        x->failed = 1;
        return 1;
    }
    return 0;
}

static int db_export(const struct db_opts *o)
{
    const struct db_ops *ops;
    char where[4096], err[256];
    void *ctx, *lister;
    if (db_open_two(o, &ops, where, sizeof(where), &lister, &ctx))
        return EXIT_USAGE;
    FILE *f = stdout;
    if (o->output && !(f = fopen(o->output, "w"))) {
        cli_error("cannot write %s: %s", o->output, strerror(errno));
        ops->close(lister);
        ops->close(ctx);
        return EXIT_USAGE;
    }
    fputs("run_id,started_at,target,suite,scale,seed,status,card_manufacturer,card_oem,"
          "card_name,card_serial,test,point,name,params,unit,mean,sd,p50_ns,p99_ns,max_ns\n",
          f);
    struct db_filter flt;
    db_filter_of(o, &flt);
    struct export_ctx x = {f, ops, ctx, NULL, 0, ""};
    int rc = ops->list(lister, &flt, export_run, &x, err, sizeof(err));
    ops->close(lister);
    ops->close(ctx);
    int werr = ferror(f);
    if (f != stdout && fclose(f))
        werr = 1;
    if (rc || x.failed || werr) {
        cli_error("export from %s: %s", where, rc ? err : x.failed ? x.err : "write error");
        if (o->output)
            remove(o->output);
        return EXIT_RUN_FAILED;
    }
    return EXIT_OK;
}

int cmd_db(int argc, char **argv)
{
    struct db_opts o = {.fmt = 0, .threshold = -1};
    void *const into[] = {&o};
    if (argc < 2 || argv[1][0] == '-') {
        if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
            cli_print_help(stdout, &cli_db_command);
            return EXIT_OK;
        }
        cli_error("db needs what to do: import, list, show, compare, trend or export");
        cli_print_help(stderr, &cli_db_command);
        return EXIT_USAGE;
    }
    const char *sub = argv[1];
    int first = cli_parse(&cli_db_command, argc - 1, argv + 1, into, NULL);
    if (first == CLI_HELP_SHOWN)
        return EXIT_OK;
    if (first < 0)
        return EXIT_USAGE;
    int n = argc - 1 - first;
    char **args = argv + 1 + first;
    if (!strcmp(sub, "import"))
        return db_import(&o, n, args);
    if (n && strcmp(sub, "show") && strcmp(sub, "compare") && strcmp(sub, "trend")) {
        cli_error("db %s takes no operands ('%s')", sub, args[0]);
        return EXIT_USAGE;
    }
    if (!strcmp(sub, "list"))
        return db_list(&o);
    if (!strcmp(sub, "show"))
        return db_show(&o, n, args);
    if (!strcmp(sub, "compare"))
        return db_compare(&o, n, args);
    if (!strcmp(sub, "export"))
        return db_export(&o);
    if (!strcmp(sub, "trend"))
        return db_trend(&o, n, args);
    cli_error("db: unknown action '%s' (import, list, show, compare, trend or export)", sub);
    return EXIT_USAGE;
}
