/* The HTML report's parts for S1, M2 and L1. */
#ifndef STORSCOPE_CLI_REPORT_SYSTEM_H
#define STORSCOPE_CLI_REPORT_SYSTEM_H

#include <cjson/cJSON.h>
#include <stdio.h>

/* Figures rendered (needs gnuplot); returns how many. */
int report_system_figures(FILE *out, const cJSON *doc);
void report_system_tables(FILE *out, const cJSON *doc);

#endif
