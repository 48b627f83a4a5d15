#ifndef STORSCOPE_CLI_JSON_IN_H
#define STORSCOPE_CLI_JSON_IN_H

#include <cjson/cJSON.h>

/* Parses a results file; on failure prints what is wrong and returns NULL. */
cJSON *cli_load_results(const char *path);
double cli_num(const cJSON *o, const char *key); /* 0 when absent */
const cJSON *cli_test(const cJSON *doc, const char *id);

#endif
