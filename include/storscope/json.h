/* Streaming JSON writer: constant memory, no stdio, no heap, so the same code
 * writes results to a file on Linux and to a UART or semihosting console on
 * an MCU. Errors are sticky: check sts_jw_error() once at the end. */
#ifndef STORSCOPE_JSON_H
#define STORSCOPE_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "storscope/result.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STS_JW_MAX_DEPTH 16
#define STS_JW_BUF 256

struct sts_jw {
    int (*write)(void *ctx, const char *s, size_t n); /* < 0 on failure */
    void *ctx;
    char buf[STS_JW_BUF];
    size_t len;
    int depth;
    uint8_t count[STS_JW_MAX_DEPTH];   /* members so far at each level (saturating) */
    uint8_t compact[STS_JW_MAX_DEPTH]; /* level printed on one line */
    uint8_t is_array[STS_JW_MAX_DEPTH];
    int pretty;
    int err;
};

void sts_jw_init(struct sts_jw *w, int (*write)(void *, const char *, size_t), void *ctx,
                 int pretty);
/* key is NULL inside arrays and at the top level. */
void sts_jw_object(struct sts_jw *w, const char *key);
void sts_jw_array(struct sts_jw *w, const char *key, int compact);
void sts_jw_end(struct sts_jw *w);
void sts_jw_str(struct sts_jw *w, const char *key, const char *s);
void sts_jw_u64(struct sts_jw *w, const char *key, uint64_t v);
void sts_jw_i64(struct sts_jw *w, const char *key, int64_t v);
/* Non-finite values are written as null (JSON has no NaN). */
void sts_jw_double(struct sts_jw *w, const char *key, double v);
void sts_jw_bool(struct sts_jw *w, const char *key, int v);
void sts_jw_null(struct sts_jw *w, const char *key);
void sts_jw_kv(struct sts_jw *w, const struct sts_kv *kv);
/* A bare newline between documents (ends a pretty-printed file). */
void sts_jw_raw_newline(struct sts_jw *w);
int sts_jw_flush(struct sts_jw *w);
int sts_jw_error(const struct sts_jw *w);

/* Shortest-ish decimal text of v with 10 significant digits; returns length.
 * buf needs 32 bytes. Exposed for tests and for other text sinks. */
size_t sts_fmt_double(char *buf, double v);

/* The results document ("storscope-result/1") as a sink. Each point is
 * flushed as soon as it is written, and run_end closes the document, so a
 * run stopped by Ctrl-C still leaves valid JSON with every finished point. */
struct sts_json_sink {
    struct sts_jw jw;
    int (*flush)(void *ctx); /* optional: push buffered bytes to the medium */
    void *flush_ctx;
    int in_points;
    /* optional: top-level keys of the caller's, written as the run ends
     * (after the tests, before the document closes); not in a build with
     * STS_JSON_AT_END 0 */
    void (*at_end)(void *ctx, struct sts_jw *w);
    void *at_end_ctx;
};
/* The at_end hook (storscope run's "power_cut"): a firmware's results need
 * none, and it does not fit the engine's 32 KiB (0 in
 * cmake/arm-none-eabi.cmake; docs/footprint.md) */
#ifndef STS_JSON_AT_END
#define STS_JSON_AT_END 1
#endif
void sts_json_sink_init(struct sts_json_sink *js, struct sts_sink *sink,
                        int (*write)(void *, const char *, size_t), void *ctx,
                        int (*flush)(void *), int pretty);

#define STS_RESULT_SCHEMA "storscope-result/1"

#ifdef __cplusplus
}
#endif
#endif
