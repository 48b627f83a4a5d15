#include "cli.h"
#include "storscope/suite.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at p (1..4), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *p)
{
    size_t n = p[0] < 0x80 ? 1 : (p[0] & 0xE0) == 0xC0 && p[0] >= 0xC2 ? 2
               : (p[0] & 0xF0) == 0xE0                  ? 3
               : (p[0] & 0xF8) == 0xF0 && p[0] <= 0xF4  ? 4
                                                        : 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    return n;
}

/* A message names what the user typed, which may be any bytes (a path is
 * not text): bytes that are not UTF-8, and control characters, are shown
 * as \xNN so the terminal shows what was given and nothing else. */
void cli_error(const char *fmt, ...)
{
    char msg[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fputs("storscope: ", stderr);
    for (const unsigned char *p = (const unsigned char *)msg; *p;) {
        size_t n = utf8_len(p);
        if (n == 1 && (*p < 0x20 || *p == 0x7F) && *p != '\n' && *p != '\t')
            n = 0;
        if (n) {
            fwrite(p, 1, n, stderr);
            p += n;
        } else {
            fprintf(stderr, "\\x%02X", *p++);
        }
    }
    fputc('\n', stderr);
}

static void usage(FILE *f)
{
    fputs("usage: storscope <command> [options]\n"
          "\n"
          "Measures a storage stack the way the STM32U5/eMMC study does, on Linux\n"
          "directories and other targets, and writes versioned JSON results.\n"
          "\n"
          "commands:\n"
          "  run       run workloads on a target (storscope run --help)\n"
          "  list      list tests, suites, targets or devices (storscope list --help)\n"
          "  report    findings and guidelines of a saved results file\n"
          "  compare   headline figures of several results files side by side\n"
          "  log       decode a sensorlog image (log dump IMAGE), or write a demo one\n"
          "  version   print the version\n"
          "\n"
          "exit status: 0 success, 1 a test failed, 2 usage error or refused target,\n"
          "130 stopped by Ctrl-C (finished points are kept)\n",
          f);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "run"))
        return cmd_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "list"))
        return cmd_list(argc - 1, argv + 1);
    if (!strcmp(cmd, "report"))
        return cmd_report(argc - 1, argv + 1);
    if (!strcmp(cmd, "compare"))
        return cmd_compare(argc - 1, argv + 1);
    if (!strcmp(cmd, "log"))
        return cmd_log(argc - 1, argv + 1);
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        printf("storscope %s (result schema %s)\n", STORSCOPE_VERSION, "storscope-result/1");
        return EXIT_OK;
    }
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        usage(stdout);
        return EXIT_OK;
    }
    cli_error("unknown command '%s'", cmd);
    usage(stderr);
    return EXIT_USAGE;
}
