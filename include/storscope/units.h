/* Parsing and formatting of sizes and durations, without stdio so the
 * firmware can use it too. Sizes: plain bytes or K/M/G/T suffixes (powers of
 * 1024, "KiB" and "KB" accepted as the same). Durations: ns, us, ms, s, m, h;
 * a bare number means seconds. */
#ifndef STORSCOPE_UNITS_H
#define STORSCOPE_UNITS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

int sts_parse_size(const char *s, uint64_t *bytes);
int sts_parse_duration(const char *s, uint64_t *ns);
int sts_parse_u64(const char *s, uint64_t *out);
/* Parses "0/1/yes/no/true/false/on/off". */
int sts_parse_bool(const char *s, int *out);
/* Copies src into dst (size n) and appends more; always NUL-terminates. */
void sts_strlcpy(char *dst, const char *src, size_t n);
void sts_strlcat(char *dst, const char *src, size_t n);

/* Decimal text of v into buf (at least 21 bytes); returns the length. */
size_t sts_fmt_u64(char *buf, uint64_t v);
/* Human display of a byte count with binary units: "512 B", "4 KiB", "1.5 MiB". */
size_t sts_fmt_bytes(char *buf, size_t n, uint64_t bytes);
/* A double as an unsigned count, defined for every input (a cast is not):
 * NaN and negatives give 0, values past 2^64 - 1 give UINT64_MAX. Numbers
 * read from a results file go through this. */
uint64_t sts_d2u64(double v);

#ifdef __cplusplus
}
#endif
#endif
