/* storscope run's options: what the command line says, checked (the
 * plan's scale, runs, duration and sizes; the target and tests as given,
 * resolved by cmd_run.c). */
#ifndef STORSCOPE_CLI_RUN_OPTIONS_H
#define STORSCOPE_CLI_RUN_OPTIONS_H

#include "storscope/suite.h" /* struct sts_plan */

struct run_opts {
    const char *target;
    const char *suite;
    const char *tests;
    const char *output;
    const char *csv;
    int quiet;
    int tables;
    int allow_destructive;
    const char *fio_json;
    const char *probe; /* storscope probe's results: its answers in the guidelines */
    const char *size;  /* --size as given */
    const char *db;    /* --db: archive the results there ("": the default archive) */
    int output_is_scratch; /* -o was not given: --db's document goes to a file of ours */
};

/* 0: parsed; 1: --help was printed; -1: a usage error, already said. */
int run_parse_options(int argc, char **argv, struct run_opts *o, struct sts_plan *plan);

#endif
