#define _DEFAULT_SOURCE /* (TIOCGWINSZ and struct winsize) */
#define _POSIX_C_SOURCE 200809L
#include "storscope/output.h"

#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>
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

/* Appends to the line being built (cut at its end: the terminal cuts it
 * further below). (The attribute lets the compilers check each call's
 * format, which -Wformat-nonliteral asks of a vsnprintf wrapper.) */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void add(char *line, size_t n, const char *fmt, ...)
{
    size_t used = strlen(line);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + used, n - used, fmt, ap);
    va_end(ap);
}

/* Columns of the terminal behind out; 0 when it does not say. */
static unsigned columns(FILE *out)
{
    struct winsize ws;
    return ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 ? ws.ws_col : 0;
}

static void prog_update(void *ctx, const struct sts_progress *pr)
{
    struct sts_progress_sink *ps = ctx;
    unsigned long long now = mono_ns();
    if (ps->shown && now - ps->last_ns < 200000000ull)
        return;
    ps->last_ns = now;
    char line[256] = "";
    add(line, sizeof(line), "[%s", pr->test_id);
    if (ps->n_tests)
        add(line, sizeof(line), " %u/%u", ps->test_index, ps->n_tests);
    add(line, sizeof(line), "] %s", pr->what);
    if (pr->total) {
        double frac = (double)pr->done / (double)pr->total;
        add(line, sizeof(line), "  %3.0f %%", 100.0 * frac);
        /* the test's own pace so far: its points are alike enough for that;
         * the tests after it at the pace of those finished (this one's,
         * projected, when none is): tests differ, so it is a guess, and
         * says it is at the pace so far */
        if (frac > 0.02 && frac < 1) {
            double spent = (double)(now - ps->test_start_ns) / 1e9;
            double left = spent * (1 - frac) / frac;
            double per_test = ps->tests_done ? (double)ps->tests_done_ns / 1e9 / ps->tests_done
                                             : spent / frac;
            double run_left = left + per_test * (double)(ps->n_tests - ps->test_index);
            add(line, sizeof(line), "  ~%.0f %s left", left >= 60 ? left / 60 : left,
                left >= 60 ? "min" : "s");
            if (ps->n_tests > ps->test_index)
                add(line, sizeof(line), " (run: ~%.0f %s at this pace)",
                    run_left >= 60 ? run_left / 60 : run_left, run_left >= 60 ? "min" : "s");
        }
    }
    if (ps->last_bps > 0) { /* the live rate: the last point measured */
        char rate[32];
        sts_fmt_rate(rate, sizeof(rate), ps->last_bps);
        add(line, sizeof(line), "  last point %s", rate);
    }
    add(line, sizeof(line), "  (Ctrl-C keeps finished points)");
    /* one row of the terminal, never two: a wrapped line is not erased by
     * the next draw's \r and leaves a stale copy each time */
    unsigned cols = columns(ps->out);
    if (cols > 1 && strlen(line) > cols - 1)
        line[cols - 1] = '\0';
    fprintf(ps->out, "\r\033[K%s", line);
    fflush(ps->out);
    ps->shown = 1;
}

static int prog_point(void *ctx, const struct sts_test_info *ti, const struct sts_point *p)
{
    struct sts_progress_sink *ps = ctx;
    (void)ti;
    if (p->n_runs && p->run_metric && !strcmp(p->run_metric, "bytes_per_second"))
        ps->last_bps = p->run_stats.mean;
    if (ps->clear_on_point)
        clear_line(ps);
    return 0;
}

static int prog_test_end(void *ctx, const struct sts_test_end *te)
{
    struct sts_progress_sink *ps = ctx;
    (void)te;
    clear_line(ps);
    ps->tests_done++;
    ps->tests_done_ns += mono_ns() - ps->test_start_ns;
    ps->last_bps = 0; /* (the next test's rates are of another kind) */
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
    ps->tests_done = 0;
    ps->tests_done_ns = 0;
    ps->last_bps = 0;
    ps->test_index = ps->n_tests = 0;
    ps->test_start_ns = mono_ns();
    sink->ops = &progress_ops;
    sink->ctx = ps;
}
