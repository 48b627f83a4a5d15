/* The option table: each command's options written once. Its parser, its
 * --help and `storscope help --options` (what cmake/manpage.sh and
 * cmake/completion.sh read) all come from the table, so the man page and
 * the completions cannot drift from what the program accepts. */
#ifndef STORSCOPE_CLI_OPTIONS_H
#define STORSCOPE_CLI_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What an option takes, which says how it is parsed, checked and completed. */
enum cli_arg {
    CLI_FLAG,   /* no value: an int set to 1 */
    CLI_TEXT,   /* a string kept as given; completed as nothing */
    CLI_FILE,   /* a file's path, kept as given */
    CLI_DIR,    /* a directory's path, kept as given */
    CLI_TARGET, /* a target spec (sim:..., posix:...), kept as given */
    CLI_SUITE,  /* a suite's name, kept as given */
    CLI_TESTS,  /* test ids separated by commas, kept as given */
    CLI_WORD,   /* one of the words of `metavar` ("quick|full"): its index, an int */
    CLI_SIZE,   /* bytes (4096, 64K, 2G), an integer in [min, max] */
    CLI_TIME,   /* nanoseconds (30s, 500ms), an integer in [min, max] */
    CLI_COUNT,  /* a whole number, an integer in [min, max] */
    CLI_NUMBER, /* a real number, 0 or more: a double */
    CLI_OPTIONAL, /* a string that may be left out: --name alone gives "", --name=VALUE
                     gives VALUE (getopt's optional argument: attached by '=' only) */
};

struct cli_opt {
    const char *name;    /* --name */
    char letter;         /* -l as well; 0: none */
    enum cli_arg arg;
    const char *metavar; /* the value's name in help (SPEC, N); CLI_WORD: its words, '|' between */
    const char *help;    /* lines of help, '\n' between (the man page takes them as written) */
    /* where the value goes: the `in`th of the structs given to cli_parse,
     * `at` bytes into it, an integer of `width` bytes (4 or 8; CLI_SIZE,
     * TIME, COUNT) times `times` (0: 1) - see CLI_AT */
    unsigned char in, width;
    uint32_t times;
    size_t at;
    uint64_t min, max; /* CLI_SIZE, TIME, COUNT: the bounds (max 0: none) */
    const char *hint;  /* a bad value is told "bad --name 'VALUE' (hint)" */
};

/* The destination of an option: field `f` of struct `type`, the `which`th
 * struct given to cli_parse. */
#define CLI_AT(which, type, f) \
    .in = (which), .width = sizeof(((type *)0)->f), .at = offsetof(type, f)

struct cli_command {
    const char *name;  /* "run", "log" */
    const char *usage; /* what --help prints before the options */
    const struct cli_opt *opts;
    size_t n_opts;
    const char *after; /* and after them */
};

#define CLI_MAX_OPTS 40

enum { CLI_HELP_SHOWN = -2, CLI_BAD = -1 };

/* Parses argv[1..argc) against c's options (getopt_long: operands are moved
 * after them), each value into its struct of `into`; given[i], when given is
 * not NULL, is the text of option i's last value (NULL: not given). Returns
 * the index of the first operand (argc when none), CLI_HELP_SHOWN after
 * --help printed the help on stdout, or CLI_BAD after saying what is wrong. */
int cli_parse(const struct cli_command *c, int argc, char **argv, void *const *into,
              const char **given);

/* The text given to option `name` (cli_parse's `given`), NULL when it was not. */
const char *cli_given(const struct cli_command *c, const char *const *given, const char *name);

/* The help: usage, then one line per option ("  -t, --target SPEC  where...",
 * continuation lines under the first), then `after`. */
void cli_print_help(FILE *f, const struct cli_command *c);

/* Every command's options as lines "COMMAND<TAB>--name<TAB>-l<TAB>KIND<TAB>WORDS"
 * (`storscope help --options`; "-" where there is no letter or word). */
void cli_print_option_table(FILE *f);

/* The commands with an option table. */
extern const struct cli_command cli_run_command, cli_probe_command, cli_report_command,
    cli_compare_command, cli_log_command, cli_plan_command, cli_fit_command, cli_db_command;

#endif
