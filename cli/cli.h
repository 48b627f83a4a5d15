#ifndef STORSCOPE_CLI_H
#define STORSCOPE_CLI_H

#include "storscope/target.h"

/* Exit codes: 0 success, 1 a test failed, 2 usage error or refused target,
 * 130 stopped by Ctrl-C (partial results kept). */
enum { EXIT_OK = 0, EXIT_RUN_FAILED = 1, EXIT_USAGE = 2, EXIT_INTERRUPTED = 130 };

int cmd_run(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_log(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_fit(int argc, char **argv);
int cmd_db(int argc, char **argv);

struct cJSON;
/* compare's table of documents already read: names head the columns,
 * sources name them in what --threshold says; format 0 text, 1 Markdown,
 * 2 HTML; threshold < 0: no gate. EXIT_OK, or EXIT_RUN_FAILED when a
 * figure regressed. */
int cli_compare_docs(struct cJSON *const *docs, const char *const *names,
                     const char *const *sources, int n, int format, double threshold);
/* compare's headline figures one by one (db trend): how many, the kth's
 * label, and its value in doc (1, with its text as compare shows it; 0
 * when doc has none). */
size_t cli_figure_count(void);
const char *cli_figure_label(size_t k);
/* what the kth figure is counted in */
enum { FIGURE_BYTES_PER_SECOND, FIGURE_NS, FIGURE_PER_SECOND, FIGURE_RATIO, FIGURE_BYTES };
int cli_figure_unit(size_t k);
int cli_figure_get(size_t k, const struct cJSON *doc, double *v, char *text, size_t n);

struct sts_analysis;
struct sts_an_item;
#include <stdio.h>
void cli_print_analysis(FILE *f, const struct sts_analysis *an);   /* findings + guidelines */
void cli_print_guidelines(FILE *f, const struct sts_analysis *an);
/* 1 when the finding says a detector's answer is within the noise: its
 * kind ("read buffer") into `kind`, and what the three readings found */
int cli_unresolved(const struct sts_an_item *it, char *kind, size_t n, const char **detail);
struct sts_summary_sink;
void cli_print_totals(FILE *f, const struct sts_summary_sink *ss); /* "6 tests ok, ..." */
/* Writes s as HTML text: a results file's strings never become markup. */
void cli_html_esc(FILE *f, const char *s);
/* `report` of a saved plan (storscope-plan/1): the exit status */
struct cJSON;
int cli_report_plan(const struct cJSON *doc, const char *file, const char *html);
/* report --format openmetrics: n runs as OpenMetrics text, each sample
 * labelled with its run's name (report_openmetrics.c) */
void cli_openmetrics(FILE *f, struct cJSON *const *docs, const char *const *runs, size_t n);
#include <cjson/cJSON.h>
struct sts_summary_sink;
/* The probe section of a probe document, as text or HTML (nothing when
 * the document has none). */
void cli_print_probe(FILE *f, const cJSON *doc, int html);
/* The HTML report into out: the summary is the terminal's first screen
 * (replayed). Returns the number of figures drawn. */
int cli_report_html(FILE *out, const cJSON *doc, const struct sts_analysis *an,
                    const struct sts_summary_sink *summary);

/* Target kinds this build knows. */
extern const struct sts_target_kind *const cli_target_kinds[];
extern const size_t cli_n_target_kinds;
const struct sts_target_kind *cli_find_kind(const char *name);

/* SIGINT, SIGTERM and SIGHUP call handler (which sets a flag): a long
 * command stops at its next step and keeps what it has. */
void cli_catch_stop_signals(void (*handler)(int));

/* An output file (-o, --fio-json): a new or regular file is written as
 * PATH.partial and renamed to PATH by cli_out_close(o, 1), removed by
 * cli_out_close(o, 0) (through a symbolic link, next to the file it names);
 * a device or FIFO is written in place and never renamed over or removed.
 * On failure both say what failed and return -1. */
struct cli_out {
    FILE *f;
    const char *path;
    char real[4096];    /* where a link named by path points; "" otherwise */
    char partial[4096]; /* "" when written in place */
    int err;            /* errno of the first write that failed, 0 if none */
    int replaces;       /* a file of that name was there: its mode (and owner) are kept */
    unsigned mode;      /* its permission bits */
};
int cli_out_open(struct cli_out *o, const char *option, const char *path);
/* 1 when a and b name the same file, existing or not (the same directory
 * and name once links are followed, or the same inode): two outputs there
 * would rename over each other. A device (/dev/null) is never the same. */
int cli_same_file(const char *a, const char *b);
int cli_out_close(struct cli_out *o, int keep);
/* Writer callbacks (sts_jw, the JSON sink) on a struct cli_out: they keep
 * the errno of a failed write, which the close then names. */
int cli_out_write(void *out, const char *s, size_t n);
int cli_out_flush(void *out);

/* What storscope leaves free on a user's filesystem of total_bytes (run's
 * scratch files, log demo's image): 5 % of it, at least 64 MiB where that
 * is no more than a tenth of it. */
uint64_t cli_space_reserve(uint64_t total_bytes);

/* probe --preserve's memory for the blocks it overwrites (cli/probe_undo.c):
 * what a destructive probe of a device of `capacity` bytes may write, in
 * RAM up to 256 MiB, else in an unnamed temporary file mapped in. */
struct cli_undo_mem {
    uint8_t *mem;
    uint64_t bytes;
    int mapped;
};
uint64_t cli_undo_need(uint64_t capacity);
/* 0, or -1 with err naming why (memory, or a filesystem without room). */
int cli_undo_alloc(struct cli_undo_mem *m, uint64_t capacity, char *err, size_t n);
void cli_undo_free(struct cli_undo_mem *m);

/* Prints "storscope: <msg>" to stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* `sim:@FILE[,...][+FS]` (a profile `storscope fit` wrote) into the target
 * it stands for, `sim:BASE,KEY=VALUE...`; any other target as it is: 0, or
 * -1 with why in err (the file unreadable, a line not KEY=VALUE, no base) */
int cli_profile_expand(const char *spec, char *out, size_t n, char *err, size_t errlen);

#endif
