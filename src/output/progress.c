#define _POSIX_C_SOURCE 200809L
#include "storscope/output.h"

#include <time.h>

static unsigned long long mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static void clear_line(struct sts_progress_sink *ps)
{
    if (ps->shown) {
        fputs("\r\033[K", ps->out);
        fflush(ps->out);
        ps->shown = 0;
    }
}

static void prog_update(void *ctx, const struct sts_progress *pr)
{
    struct sts_progress_sink *ps = ctx;
    unsigned long long now = mono_ns();
    if (ps->shown && now - ps->last_ns < 200000000ull)
        return;
    ps->last_ns = now;
    fprintf(ps->out, "\r\033[K[%s", pr->test_id);
    if (ps->n_tests)
        fprintf(ps->out, " %u/%u", ps->test_index, ps->n_tests);
    fprintf(ps->out, "] %s", pr->what);
    if (pr->total) {
        double frac = (double)pr->done / (double)pr->total;
        fprintf(ps->out, "  %3.0f %%", 100.0 * frac);
        /* the test's own pace so far: its points are alike enough for that */
        if (frac > 0.02 && frac < 1) {
            double left = (double)(now - ps->test_start_ns) / 1e9 * (1 - frac) / frac;
            fprintf(ps->out, left >= 60 ? "  ~%.0f min left in this test" : "  ~%.0f s left in this test",
                    left >= 60 ? left / 60 : left);
        }
    }
    fputs("  (Ctrl-C stops and keeps finished points)", ps->out);
    fflush(ps->out);
    ps->shown = 1;
}

static int prog_point(void *ctx, const struct sts_test_info *ti, const struct sts_point *p)
{
    struct sts_progress_sink *ps = ctx;
    (void)ti;
    (void)p;
    if (ps->clear_on_point)
        clear_line(ps);
    return 0;
}

static int prog_test_end(void *ctx, const struct sts_test_end *te)
{
    (void)te;
    clear_line(ctx);
    return 0;
}

static int prog_test_begin(void *ctx, const struct sts_test_info *ti)
{
    struct sts_progress_sink *ps = ctx;
    (void)ti;
    clear_line(ps);
    ps->test_index++;
    ps->test_start_ns = mono_ns();
    return 0;
}

static int prog_run_begin(void *ctx, const struct sts_run_info *ri)
{
    struct sts_progress_sink *ps = ctx;
    ps->n_tests = ri->n_tests;
    ps->test_index = 0;
    return 0;
}

static const struct sts_sink_ops progress_ops = {
    .run_begin = prog_run_begin,
    .test_begin = prog_test_begin,
    .point = prog_point,
    .test_end = prog_test_end,
    .progress = prog_update,
};

void sts_progress_sink_init(struct sts_progress_sink *ps, struct sts_sink *sink, FILE *out)
{
    ps->out = out;
    ps->last_ns = 0;
    ps->shown = 0;
    ps->clear_on_point = 0;
    ps->test_index = ps->n_tests = 0;
    ps->test_start_ns = mono_ns();
    sink->ops = &progress_ops;
    sink->ctx = ps;
}
