/* The option table's parser, help and listing (cli_options.h). */
#define _GNU_SOURCE
#include "cli_options.h"
#include "cli.h"
#include "storscope/units.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* getopt_long's code of option i: its letter, or past every char */
#define LONG_ONLY(i) (256 + (int)(i))

/* Index of `word` among the '|'-separated words of `words`; -1 if absent. */
static int word_index(const char *words, const char *word)
{
    size_t len = strlen(word);
    int i = 0;
    for (const char *w = words; w; i++) {
        const char *bar = strchr(w, '|');
        size_t n = bar ? (size_t)(bar - w) : strlen(w);
        if (n == len && !strncmp(w, word, n))
            return i;
        w = bar ? bar + 1 : NULL;
    }
    return -1;
}

static void store_u64(void *base, const struct cli_opt *o, uint64_t v)
{
    char *at = (char *)base + o->at;
    if (o->width == sizeof(uint32_t)) {
        uint32_t v32 = (uint32_t)v;
        memcpy(at, &v32, sizeof(v32));
    } else {
        memcpy(at, &v, sizeof(v));
    }
}

/* Takes one option's value into its struct: 0, or -1 after saying why. */
static int take(const struct cli_opt *o, const char *value, void *base)
{
    char *at = (char *)base + o->at;
    uint64_t v = 0;
    int bad = 0;
    switch (o->arg) {
    case CLI_FLAG: {
        int one = 1;
        memcpy(at, &one, sizeof(one));
        return 0;
    }
    case CLI_WORD: {
        int i = word_index(o->metavar, value);
        if (i < 0)
            break;
        memcpy(at, &i, sizeof(i));
        return 0;
    }
    case CLI_NUMBER: {
        char *end;
        double d = strtod(value, &end);
        if (end == value || *end || d < 0 || !isfinite(d))
            break;
        memcpy(at, &d, sizeof(d));
        return 0;
    }
    case CLI_SIZE: bad = sts_parse_size(value, &v); goto bounded;
    case CLI_TIME: bad = sts_parse_duration(value, &v); goto bounded;
    case CLI_COUNT:
        bad = sts_parse_u64(value, &v);
    bounded:
        if (bad || v < o->min || (o->max && v > o->max))
            break;
        store_u64(base, o, v * (o->times ? o->times : 1));
        return 0;
    case CLI_OPTIONAL: {
        const char *text = value ? value : "";
        memcpy(at, &text, sizeof(text));
        return 0;
    }
    default: memcpy(at, &value, sizeof(value)); return 0;
    }
    if (o->hint)
        cli_error("bad --%s '%s' (%s)", o->name, value, o->hint);
    else
        cli_error("bad --%s '%s'", o->name, value);
    return -1;
}

int cli_parse(const struct cli_command *c, int argc, char **argv, void *const *into,
              const char **given)
{
    struct option longopts[CLI_MAX_OPTS + 2];
    char shortopts[2 * CLI_MAX_OPTS + 4] = ":h";
    size_t ns = 2;
    for (size_t i = 0; i < c->n_opts && i < CLI_MAX_OPTS; i++) {
        const struct cli_opt *o = &c->opts[i];
        int has_arg = o->arg == CLI_FLAG       ? no_argument
                      : o->arg == CLI_OPTIONAL ? optional_argument
                                               : required_argument;
        longopts[i] = (struct option){o->name, has_arg, NULL, o->letter ? o->letter : LONG_ONLY(i)};
        if (o->letter) {
            shortopts[ns++] = o->letter;
            if (has_arg)
                shortopts[ns++] = ':';
            if (has_arg == optional_argument)
                shortopts[ns++] = ':';
        }
        if (given)
            given[i] = NULL;
    }
    shortopts[ns] = '\0';
    size_t n = c->n_opts < CLI_MAX_OPTS ? c->n_opts : CLI_MAX_OPTS;
    longopts[n] = (struct option){"help", no_argument, NULL, 'h'};
    longopts[n + 1] = (struct option){NULL, 0, NULL, 0};
    opterr = 0;
    optind = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (ch == 'h') {
            cli_print_help(stdout, c);
            return CLI_HELP_SHOWN;
        }
        if (ch == ':') {
            cli_error("option '%s' needs a value", argv[optind - 1]);
            return CLI_BAD;
        }
        size_t i = 0;
        while (i < n && !(c->opts[i].letter ? c->opts[i].letter == ch : LONG_ONLY(i) == ch))
            i++;
        if (i == n) {
            cli_error("unknown option '%s'", argv[optind - 1]);
            return CLI_BAD;
        }
        if (take(&c->opts[i], optarg, into[c->opts[i].in]))
            return CLI_BAD;
        if (given)
            given[i] = optarg ? optarg : "";
    }
    return optind;
}

const char *cli_given(const struct cli_command *c, const char *const *given, const char *name)
{
    for (size_t i = 0; i < c->n_opts && i < CLI_MAX_OPTS; i++)
        if (!strcmp(c->opts[i].name, name))
            return given[i];
    return NULL;
}

#define HELP_COLUMN 24 /* where an option's help begins */
#define HELP_WIDTH 80  /* and the column no line passes */

/* "  -t, --target SPEC" or "      --size SIZE", then the help's words,
 * wrapped: from column 24 (two spaces after a longer head), the lines
 * after the first under it. */
static void print_option(FILE *f, const struct cli_opt *o)
{
    char head[96];
    int col = snprintf(head, sizeof(head), "  %c%c%c --%s%s%s%s", o->letter ? '-' : ' ',
                       o->letter ? o->letter : ' ', o->letter ? ',' : ' ', o->name,
                       o->arg == CLI_FLAG ? "" : o->arg == CLI_OPTIONAL ? "[=" : " ",
                       o->arg == CLI_FLAG ? "" : o->metavar,
                       o->arg == CLI_OPTIONAL ? "]" : "");
    col = fprintf(f, "%s%*s", head, col < HELP_COLUMN ? HELP_COLUMN - col : 2, "");
    int line_start = 1;
    for (const char *w = o->help; *w;) {
        size_t n = strcspn(w, " ");
        if (!line_start && col + 1 + (int)n > HELP_WIDTH) {
            col = fprintf(f, "\n%*s", HELP_COLUMN, "") - 1;
            line_start = 1;
        }
        col += fprintf(f, "%s%.*s", line_start ? "" : " ", (int)n, w);
        line_start = 0;
        w += n;
        w += strspn(w, " ");
    }
    fputc('\n', f);
}

void cli_print_help(FILE *f, const struct cli_command *c)
{
    fputs(c->usage, f);
    for (size_t i = 0; i < c->n_opts; i++)
        print_option(f, &c->opts[i]);
    static const struct cli_opt help = {"help", 'h', CLI_FLAG, "", "this text", 0, 0, 0, 0, 0, 0, 0};
    print_option(f, &help);
    if (c->after)
        fputs(c->after, f);
}

static const char *const kind_names[] = {
    [CLI_FLAG] = "flag",   [CLI_TEXT] = "text",   [CLI_FILE] = "file",   [CLI_DIR] = "dir",
    [CLI_TARGET] = "target", [CLI_SUITE] = "suite", [CLI_TESTS] = "tests", [CLI_WORD] = "words",
    [CLI_SIZE] = "size",   [CLI_TIME] = "time",   [CLI_COUNT] = "count", [CLI_NUMBER] = "number",
    [CLI_OPTIONAL] = "optional",
};

void cli_print_option_table(FILE *f)
{
    const struct cli_command *const all[] = {&cli_run_command, &cli_probe_command,
                                             &cli_report_command, &cli_compare_command,
                                             &cli_log_command, &cli_plan_command,
                                             &cli_fit_command, &cli_db_command};
    for (size_t k = 0; k < sizeof(all) / sizeof(all[0]); k++)
        for (size_t i = 0; i < all[k]->n_opts; i++) {
            const struct cli_opt *o = &all[k]->opts[i];
            char letter[3] = "-";
            if (o->letter)
                letter[1] = o->letter;
            fprintf(f, "%s\t--%s\t%s\t%s\t%s\n", all[k]->name, o->name, o->letter ? letter : "-",
                    kind_names[o->arg], o->arg == CLI_WORD ? o->metavar : "-");
        }
}
