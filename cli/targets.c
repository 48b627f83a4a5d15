#include "cli.h"
#include "storscope/posix.h"
#include "storscope/sim.h"

#include <string.h>

const struct sts_target_kind *const cli_target_kinds[] = {
    &sts_target_posix,
    &sts_target_sim,
    &sts_target_raw,
    &sts_target_mtd,
    &sts_target_null,
};
const size_t cli_n_target_kinds = sizeof(cli_target_kinds) / sizeof(cli_target_kinds[0]);

const struct sts_target_kind *cli_find_kind(const char *name)
{
    for (size_t i = 0; i < cli_n_target_kinds; i++)
        if (strcmp(cli_target_kinds[i]->name, name) == 0)
            return cli_target_kinds[i];
    return NULL;
}
