#include "cli.h"
#include "storscope/sim.h"
#include "storscope/fs_stack.h"
#include "storscope/suite.h"

#include <stdio.h>
#include <string.h>

static void list_usage(FILE *f)
{
    fputs("usage: storscope list tests|suites|targets|devices\n", f);
}

int cmd_list(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        list_usage(stdout);
        return EXIT_OK;
    }
    if (argc != 2) {
        cli_error("list needs exactly one of: tests, suites, targets, devices");
        list_usage(stderr);
        return EXIT_USAGE;
    }
    const char *what = argv[1];
    if (!strcmp(what, "tests")) {
        for (size_t i = 0; i < sts_n_tests; i++)
            printf("%-6s %-24s %s\n", sts_tests[i]->id, sts_tests[i]->origin,
                   sts_tests[i]->title);
    } else if (!strcmp(what, "suites")) {
        for (size_t i = 0; i < sts_n_suites; i++) {
            printf("%-6s %s:", sts_suites[i].name, sts_suites[i].summary);
            for (size_t k = 0; k < sts_suites[i].n; k++)
                printf(" %s", sts_suites[i].test_ids[k]);
            putchar('\n');
        }
    } else if (!strcmp(what, "targets")) {
        for (size_t i = 0; i < cli_n_target_kinds; i++) {
            printf("%-6s %s\n       %s\n", cli_target_kinds[i]->name,
                   cli_target_kinds[i]->summary, cli_target_kinds[i]->usage);
            /* the kinds that hand a block device to the seam (fs_stack.h) */
            if (!strcmp(cli_target_kinds[i]->name, "sim") ||
                !strcmp(cli_target_kinds[i]->name, "raw") ||
                !strcmp(cli_target_kinds[i]->name, "mtd"))
                printf("       filesystems in this build (+FS): %s\n", sts_fs_stack_built());
        }
    } else if (!strcmp(what, "devices")) {
        for (size_t i = 0; i < sts_n_sim_profiles; i++)
            printf("%-18s %s\n", sts_sim_profiles[i].name, sts_sim_profiles[i].summary);
        /* indented: a line that starts in column 0 is a profile, for
         * scripts that read the list */
        fputs("\n  every profile is noiseless unless told (sim:PROFILE,OPTION=...), drawn from\n"
              "  seed=:\n"
              "    noise=CV               each command's time times a lognormal factor of mean\n"
              "                           1 and that coefficient of variation (0.1 or 10%)\n"
              "    stalls=RATE:DURATION   background stalls, RATE a second of device time, at\n"
              "                           random times (stalls=0.5:100ms)\n"
              "    bimodal=P:FACTOR       a share P of commands FACTOR times slower (0.05:10)\n"
              "    drift=CV:PERIOD        slow and fast spells: the speed drawn again every\n"
              "                           PERIOD of device time, lognormal, that CV (0.2:50ms)\n"
              "    prefill=random|pattern|IMAGE[:PERCENT]\n"
              "                           old data from before in PERCENT of the erase blocks\n"
              "  any parameter of a profile can be set too (docs/device-models.md)\n",
              stdout);
    } else {
        cli_error("unknown list '%s' (choose tests, suites, targets or devices)", what);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}
