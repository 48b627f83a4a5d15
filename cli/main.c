#include "cli.h"
#include "cli_options.h"
#include "storscope/suite.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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
          "  probe     what a card really is: counterfeit capacity, open allocation units\n"
          "  plan      a logger's storage decided by simulation: store, buffer, sync, writer\n"
          "  fit       a simulator profile fitted to a device's results (sim:@FILE)\n"
          "  db        the results archive: import, list, show, compare, export\n"
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
    if (!strcmp(cmd, "probe"))
        return cmd_probe(argc - 1, argv + 1);
    if (!strcmp(cmd, "plan"))
        return cmd_plan(argc - 1, argv + 1);
    if (!strcmp(cmd, "fit"))
        return cmd_fit(argc - 1, argv + 1);
    if (!strcmp(cmd, "db"))
        return cmd_db(argc - 1, argv + 1);
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        printf("storscope %s (result schema %s)\n", STORSCOPE_VERSION, "storscope-result/1");
        return EXIT_OK;
    }
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        /* `storscope help run` is `storscope run --help` (it printed this) */
        static const char *const commands[] = {"run", "list",  "report", "compare", "log",
                                              "probe", "plan", "fit",    "db"};
        for (size_t i = 0; argc > 2 && i < sizeof(commands) / sizeof(commands[0]); i++)
            if (!strcmp(argv[2], commands[i])) {
                char *args[] = {argv[0], argv[2], "--help", NULL};
                return main(3, args);
            }
        if (argc == 3 && !strcmp(argv[2], "--options")) {
            cli_print_option_table(stdout); /* what the man page and completions read */
            return EXIT_OK;
        }
        if (argc > 2) {
            cli_error("no help on '%s': it is not a command", argv[2]);
            usage(stderr);
            return EXIT_USAGE;
        }
        usage(stdout);
        return EXIT_OK;
    }
    cli_error("unknown command '%s'", cmd);
    usage(stderr);
    return EXIT_USAGE;
}
