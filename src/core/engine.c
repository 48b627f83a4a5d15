#include "storscope/error.h"
#include "storscope/port.h"
#include "storscope/suite.h"

#include <string.h>

const char *sts_scale_name(enum sts_scale s)
{
    return s == STS_SCALE_FULL ? "full" : "quick";
}

int sts_scale_parse(const char *s, enum sts_scale *out)
{
    if (strcmp(s, "quick") == 0)
        *out = STS_SCALE_QUICK;
    else if (strcmp(s, "full") == 0)
        *out = STS_SCALE_FULL;
    else
        return STS_EINVAL;
    return STS_OK;
}

uint64_t sts_plan_scratch_bytes(const struct sts_plan *plan)
{
    uint64_t need = 0;
    for (size_t i = 0; i < plan->n_tests; i++) {
        uint64_t b = plan->tests[i]->scratch_bytes ? plan->tests[i]->scratch_bytes(plan) : 0;
        if (b > need)
            need = b;
    }
    return need;
}

/* Every sink sees every event; the first error is kept and returned. */
static int keep_first(int rc, int r)
{
    return (r < 0 && rc == 0) ? r : rc;
}

int sts_test_begin(struct sts_ctx *c, const struct sts_kv *params, size_t n)
{
    if (c->begun)
        return STS_OK;
    if (n > STS_CTX_MAX_PARAMS)
        n = STS_CTX_MAX_PARAMS;
    if (n)
        memcpy(c->params, params, n * sizeof(*params));
    c->info.params = c->params;
    c->info.n_params = n;
    c->begun = 1;
    int rc = 0;
    for (size_t i = 0; i < c->n_sinks; i++)
        if (c->sinks[i].ops->test_begin)
            rc = keep_first(rc, c->sinks[i].ops->test_begin(c->sinks[i].ctx, &c->info));
    return rc;
}

int sts_emit_point(struct sts_ctx *c, const struct sts_point *point)
{
    int rc = sts_test_begin(c, NULL, 0);
    struct sts_point with_device = *point;
    const struct sts_point *p = point;
    struct sts_kv dev[32];
    if (c->target->counters && !point->skipped && !point->device) {
        with_device.device = dev;
        with_device.n_device = c->target->counters(c->target, dev, 32);
        p = &with_device;
    }
    for (size_t i = 0; i < c->n_sinks; i++)
        if (c->sinks[i].ops->point)
            rc = keep_first(rc, c->sinks[i].ops->point(c->sinks[i].ctx, &c->info, p));
    return rc;
}

void sts_set_summary(struct sts_ctx *c, struct sts_kv kv)
{
    for (size_t i = 0; i < c->n_summary; i++)
        if (strcmp(c->summary[i].key, kv.key) == 0) {
            c->summary[i] = kv;
            return;
        }
    if (c->n_summary < STS_CTX_MAX_SUMMARY)
        c->summary[c->n_summary++] = kv;
}

void sts_report_progress(struct sts_ctx *c, const char *what, uint64_t done, uint64_t total)
{
    struct sts_progress pr = {c->def->id, what, done, total};
    for (size_t i = 0; i < c->n_sinks; i++)
        if (c->sinks[i].ops->progress)
            c->sinks[i].ops->progress(c->sinks[i].ctx, &pr);
}

int sts_fail(struct sts_ctx *c, int err, const char *msg)
{
    if (!c->errmsg[0])
        sts_strlcpy(c->errmsg, msg, sizeof(c->errmsg));
    return err;
}

static enum sts_test_status status_of(int rc)
{
    if (rc == STS_OK)
        return STS_TEST_OK;
    if (rc == STS_EINTR)
        return STS_TEST_INTERRUPTED;
    if (rc == STS_ENOTSUP)
        return STS_TEST_NOT_APPLICABLE;
    return STS_TEST_FAILED;
}

int sts_engine_run(const struct sts_plan *plan, struct sts_target *target,
                   const struct sts_workspace *ws, const struct sts_sink *sinks,
                   size_t n_sinks, const struct sts_run_info *info)
{
    int rc_ = 0;
    int first_err = 0;
    struct sts_run_end re = {0};
    uint64_t t0 = sts_clock_now(&target->clock);

    for (size_t i = 0; i < n_sinks; i++)
        if (sinks[i].ops->run_begin)
            rc_ = keep_first(rc_, sinks[i].ops->run_begin(sinks[i].ctx, info));
    int abort_run = 0; /* set up failed: no test runs, but every sink sees run_end */
    if (rc_ < 0)
        first_err = abort_run = rc_;

    for (size_t t = 0; t < plan->n_tests && !abort_run; t++) {
        struct sts_ctx c;
        memset(&c, 0, sizeof(c));
        c.plan = plan;
        c.target = target;
        c.def = plan->tests[t];
        c.buf = ws->buf;
        c.buf_size = ws->buf_size;
        c.rounds = ws->rounds;
        c.rounds_len = ws->rounds_len;
        c.sinks = sinks;
        c.n_sinks = n_sinks;
        c.info.id = c.def->id;
        c.info.title = c.def->title;
        for (int l = 0; l < STS_CTX_LATS; l++) {
            int hr = sts_hist_init(&c.lat[l].h, ws->hist + (size_t)l * ws->hist_buckets,
                                   ws->hist_buckets, ws->hist_sub_bits, ws->hist_max_exp);
            if (hr < 0) /* the workspace cannot hold the histograms */
                first_err = abort_run = hr;
            sts_welford_init(&c.lat[l].w);
            c.lat[l].max_at = 0;
        }
        if (abort_run)
            break; /* to run_end: a sink's document is never left open */

        if (target->counters) { /* start counting at the test's first point */
            struct sts_kv discard[32];
            (void)target->counters(target, discard, 32);
        }
        int rc;
        uint64_t test_ns = 0, wall_ns = 0;
        if (sts_should_stop(&c)) {
            rc = STS_EINTR;
        } else {
            const struct sts_clock *wall = sts_port_clock();
            uint64_t ts = sts_clock_now(&target->clock), ws0 = sts_clock_now(wall);
            rc = c.def->run(&c);
            test_ns = sts_clock_now(&target->clock) - ts;
            wall_ns = sts_clock_now(wall) - ws0;
        }
        if (c.scratch_path[0]) /* a workload that failed midway left its file */
            (void)target->fs.ops->unlink(target->fs.ctx, c.scratch_path);
        if (rc == STS_EINTR && !c.begun && !sts_should_stop(&c))
            rc = STS_EIO; /* only the user may interrupt */

        int sink_rc = sts_test_begin(&c, NULL, 0);
        struct sts_test_end te = {
            .id = c.def->id,
            .status = status_of(rc),
            .error = rc && rc != STS_EINTR ? (c.errmsg[0] ? c.errmsg : sts_strerror(rc)) : NULL,
            .summary = c.summary,
            .n_summary = c.n_summary,
            .elapsed_ns = test_ns,
            .wall_ns = wall_ns,
        };
        rc_ = sink_rc;
        for (size_t i = 0; i < n_sinks; i++)
            if (sinks[i].ops->test_end)
                rc_ = keep_first(rc_, sinks[i].ops->test_end(sinks[i].ctx, &te));
        if (rc_ < 0) { /* a sink cannot take more: stop here */
            first_err = rc_;
            break;
        }
        switch (te.status) {
        case STS_TEST_OK: re.tests_ok++; break;
        case STS_TEST_NOT_APPLICABLE: re.tests_skipped++; break;
        case STS_TEST_FAILED:
            re.tests_failed++;
            if (!first_err)
                first_err = rc;
            break;
        case STS_TEST_INTERRUPTED: re.interrupted = 1; break;
        }
        if (re.interrupted)
            break;
    }

    re.status = re.interrupted ? STS_EINTR : first_err;
    re.elapsed_ns = sts_clock_now(&target->clock) - t0;
    rc_ = 0;
    for (size_t i = 0; i < n_sinks; i++)
        if (sinks[i].ops->run_end)
            rc_ = keep_first(rc_, sinks[i].ops->run_end(sinks[i].ctx, &re));
    if (re.status)
        return re.status;
    return rc_;
}
