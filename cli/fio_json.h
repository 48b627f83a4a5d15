#ifndef STORSCOPE_CLI_FIO_JSON_H
#define STORSCOPE_CLI_FIO_JSON_H

#include <stdio.h>

#include "storscope/result.h"

struct cli_fio_json {
    FILE *f;
    int written;
};
void cli_fio_json_init(struct cli_fio_json *fj, struct sts_sink *sink, FILE *f);

#endif
