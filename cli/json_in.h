#ifndef STORSCOPE_CLI_JSON_IN_H
#define STORSCOPE_CLI_JSON_IN_H

#include <cjson/cJSON.h>

#include "storscope/analysis.h"
#include "storscope/result.h"

/* A JSON file, parsed: NULL after saying why not (unreadable, a directory,
 * not JSON, nested too deep) */
cJSON *cli_load_json(const char *path);
/* A results file (storscope-result/1, the shape replay relies on): NULL
 * after saying what is wrong */
cJSON *cli_load_results(const char *path);
double cli_num(const cJSON *o, const char *key); /* 0 when absent */
/* What `storscope probe -o FILE` measured, into the analysis input
 * (probe_*), and the target it probed; -1 with the reason printed when
 * FILE holds no probe. */
int cli_load_probe(const char *path, struct sts_an_input *in, char *target, size_t target_len);
/* Copies the probe's answers (probe_*) into an analysis input. */
void cli_probe_apply(struct sts_an_input *to, const struct sts_an_input *probe);
/* Warns on stderr when the probe was of another target than `target`. */
void cli_probe_target_check(const char *probed, const char *target);
const cJSON *cli_test(const cJSON *doc, const char *id);
/* Feeds a saved run's tests, points and summaries to a sink (test_begin,
 * point, test_end), so what reads a live run reads a file the same way. */
void cli_replay(const cJSON *doc, const struct sts_sink *sink);

#endif
