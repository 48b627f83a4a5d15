/* Internal to src/analysis: formatting numbers into finding and guideline
 * text without stdio, and appending items. */
#ifndef STORSCOPE_AN_TEXT_H
#define STORSCOPE_AN_TEXT_H

#include "storscope/analysis.h"

#include <stddef.h>
#include <stdint.h>

void an_fixed(char *buf, size_t n, double v, int decimals); /* "12.35" */
void an_rate(char *buf, size_t n, double bps);             /* "1.5 MiB/s" */
void an_ms(char *buf, size_t n, double ns);                /* "2.50 ms", "15.0 us" */
void an_ratio(char *buf, size_t n, double r);              /* "18x", "2.5x" */
void an_bytes(char *buf, size_t n, uint64_t b);            /* "4 KiB" */
/* A guideline's evidence: a figure with its interval ("5.05 MiB/s +-1.2 %",
 * the figure alone where exact), and how many runs points lo..hi are the
 * means of ("; 8 runs each", "; 5 to 12 runs", a single run named as one;
 * "" where exact or not known) */
void an_figure(char *buf, size_t n, const struct sts_series *s, uint32_t i);
void an_runs(char *buf, size_t n, const struct sts_series *s, uint32_t lo, uint32_t hi);
/* A new item in a list, or NULL when the list is full. */
struct sts_an_item *an_add(struct sts_an_item *items, size_t *count, const char *kind,
                           const char *test);
/* Joins strings into the item's text (nothing when it is NULL). */
void an_say(struct sts_an_item *it, const char *const *parts, size_t n);
#define SAY(it, ...)                                                        \
    do {                                                                    \
        const char *const parts_[] = {__VA_ARGS__};                         \
        an_say((it), parts_, sizeof(parts_) / sizeof(parts_[0]));           \
    } while (0)

/* Concurrency (S1), aging (M2), pre-opening (M2, S2) and sustained logging
 * (L1): what the collector keeps of them and what the analysis says. */
void an_system_point(struct sts_an_input *in, const struct sts_test_info *ti,
                     const struct sts_point *p);
void an_system_test_end(struct sts_an_input *in, const struct sts_test_end *te);
void an_system(const struct sts_an_input *in, const struct sts_an_config *cfg,
               struct sts_analysis *out);
/* What the probe measured (storscope probe), applied to the run: chunk >=
 * page, alignment to the allocation unit, at most open-AU files at once. */
void an_probe(const struct sts_an_input *in, struct sts_analysis *out);

#endif
