/* Findings and guidelines about the system around the medium: concurrency
 * (S1), aging (M2), slow opens (M2, S2) and sustained logging (L1). Every
 * number comes from a named point or summary of the results. */
#include "an_text.h"
#include "storscope/target.h"
#include "storscope/units.h"

#include <string.h>

enum { MODE_DIRECT, MODE_MUTEX, MODE_IOTASK, N_MODES };
static const char *const mode_name[N_MODES] = {"direct", "mutex", "iotask"};

static int mode_of(const struct sts_point *p)
{
    const struct sts_kv *m = sts_kv_find(p->params, p->n_params, "mode");
    if (!m || m->type != STS_KV_STR)
        return -1;
    for (int i = 0; i < N_MODES; i++)
        if (!strcmp(m->v.s, mode_name[i]))
            return i;
    return -1;
}

static double num(const struct sts_kv *kv, size_t n, const char *key, double dflt)
{
    const struct sts_kv *k = sts_kv_find(kv, n, key);
    return k ? sts_kv_number(k) : dflt;
}

static double metric(const struct sts_point *p, const char *key)
{
    return num(p->metrics, p->n_metrics, key, 0.0);
}

void an_system_point(struct sts_an_input *in, const struct sts_test_info *ti,
                     const struct sts_point *p)
{
    if (p->skipped)
        return;
    int mode = mode_of(p);
    if (!strcmp(ti->id, "S1") && !strcmp(p->name, "write") && mode >= 0) {
        double loads = num(p->params, p->n_params, "load_tasks", -1);
        if (!(loads >= 0 && loads <= 4)) /* NaN included: a results file may hold it */
            return;
        in->has_s1 = 1;
        in->s1_priority = (uint32_t)sts_d2u64(num(ti->params, ti->n_params, "storage_priority", 0));
        in->s1_deg_sum[mode][(int)loads] += metric(p, "degradation");
        in->s1_deg_n[mode][(int)loads]++;
    } else if (!strcmp(ti->id, "M2") && !strcmp(p->name, "lifecycle")) {
        double create = metric(p, "create_ns"), free_b = metric(p, "free_bytes");
        if (!in->m2_lifecycles) {
            in->m2_first_create_ns = create;
            in->m2_first_free = free_b;
            in->m2_threshold_ns = num(ti->params, ti->n_params, "threshold_ns", 200e6);
            in->m2_cross_free = -1;
            in->m2_first_files = metric(p, "files");
        }
        in->m2_last_files = metric(p, "files");
        if (in->m2_lifecycles < STS_AN_MIN_SLOW)
            in->m2_create_head[in->m2_lifecycles] = create;
        in->m2_create_tail[in->m2_lifecycles % STS_AN_MIN_SLOW] = create;
        in->m2_lifecycles++;
        in->m2_total_bytes = metric(p, "total_bytes");
        in->m2_last_create_ns = create;
        in->m2_last_free = free_b;
        in->m2_span_days = metric(p, "t_ns") / 86400e9;
        double om = metric(p, "open_max_ns");
        for (int i = 0; i < STS_AN_MIN_SLOW; i++) /* keep the three largest */
            if (om > in->m2_open_top[i]) {
                double t = in->m2_open_top[i];
                in->m2_open_top[i] = om;
                om = t;
            }
        if (metric(p, "open_max_ns") >= in->m2_open_max_ns) {
            in->m2_open_max_ns = metric(p, "open_max_ns");
            in->m2_open_max_free = free_b;
        }
    } else if (!strcmp(ti->id, "L1") && mode >= 0) {
        const struct sts_kv *streams = sts_kv_find(ti->params, ti->n_params, "streams");
        if (streams && streams->type == STS_KV_STR)
            sts_strlcpy(in->l1_streams, streams->v.s, sizeof(in->l1_streams));
        if (!strcmp(p->name, "max_lossless")) {
            in->l1_scale[mode] = num(p->params, p->n_params, "rate_scale", -1);
            return;
        }
        if (strcmp(p->name, "sustained"))
            return;
        if (!in->has_l1)
            for (int i = 0; i < N_MODES; i++)
                in->l1_scale[i] = -1;
        in->has_l1 = 1;
        in->l1_seen[mode] = 1;
        in->l1_need[mode] = metric(p, "required_buffer_bytes");
        in->l1_stall[mode] = metric(p, "worst_stall_ns");
        in->l1_lost[mode] = metric(p, "records_lost");
        in->l1_late[mode] = metric(p, "records_late");
        in->l1_worst_lost[mode] = 0;
        in->l1_worst_stream[mode][0] = '\0';
        for (size_t i = 0; i < p->n_metrics; i++) { /* records_lost_<stream> */
            const struct sts_kv *kv = &p->metrics[i];
            if (strncmp(kv->key, "records_lost_", 13))
                continue;
            double v = sts_kv_number(kv);
            if (v > in->l1_worst_lost[mode]) {
                in->l1_worst_lost[mode] = v;
                sts_strlcpy(in->l1_worst_stream[mode], kv->key + 13,
                            sizeof(in->l1_worst_stream[mode]));
            }
        }
    }
}

void an_system_test_end(struct sts_an_input *in, const struct sts_test_end *te)
{
    if (strcmp(te->id, "M2") || !in->m2_lifecycles)
        return;
    in->has_m2 = 1;
    const struct sts_kv *s = te->summary;
    size_t n = te->n_summary;
    in->m2_cross_free = num(s, n, "create_threshold_free_bytes", -1);
    in->m2_cross_files = num(s, n, "create_threshold_files", -1);
    in->m2_cross_before = num(s, n, "create_threshold_free_before_bytes", -1);
    in->m2_probe_first_ns = num(s, n, "probe_create_first_ns", -1);
    in->m2_probe_last_ns = num(s, n, "probe_create_last_ns", -1);
    const struct sts_kv *cause = sts_kv_find(s, n, "create_growth_cause");
    sts_strlcpy(in->m2_cause, cause && cause->type == STS_KV_STR ? cause->v.s : "",
                sizeof(in->m2_cause));
    in->m2_create_b = num(s, n, "create_exp_b_per_day", 0);
    in->m2_create_a_ns = num(s, n, "create_exp_a_ns", 0);
    in->m2_create_r2 = num(s, n, "create_exp_r2", -1);
    in->m2_has_exp = in->m2_create_r2 >= 0;
}

/* 0 when the mode was not measured at that load (a degradation itself may
 * be negative: a run can come out faster under load) */
static int s1_mean(const struct sts_an_input *in, int mode, int loads, double *out)
{
    uint32_t n = in->s1_deg_n[mode][loads];
    *out = n ? in->s1_deg_sum[mode][loads] / n : 0;
    return n != 0;
}

static void concurrency(const struct sts_an_input *in, const struct sts_an_config *cfg,
                        struct sts_analysis *out)
{
    double d, io, mx;
    int has_io = s1_mean(in, MODE_IOTASK, 4, &io), has_mx = s1_mean(in, MODE_MUTEX, 4, &mx);
    if (!s1_mean(in, MODE_DIRECT, 4, &d))
        return;
    char a[24], b[24], c[24], n[24];
    an_fixed(a, sizeof(a), d * 100, 0);
    an_fixed(b, sizeof(b), mx * 100, 0);
    an_fixed(c, sizeof(c), io * 100, 0);
    an_fixed(n, sizeof(n), in->s1_deg_n[MODE_DIRECT][4], 0);
    SAY(an_add(out->finding, &out->n_findings, "concurrency", "S1"),
        "with 4 CPU-load tasks on the storage core, write throughput falls ", a,
        " % with direct access, ", has_mx ? b : "-", " % through a mutex, ",
        has_io ? c : "-", " % through an I/O task (mean over ", n, " chunk sizes)");
    if (d < cfg->concurrency_loss)
        return;
    char keep_d[24], keep_io[24];
    an_fixed(keep_d, sizeof(keep_d), (1 - d) * 100, 0);
    an_fixed(keep_io, sizeof(keep_io), (1 - io) * 100, 0);
    if (io <= 0) /* faster under load happens; more than all of it reads oddly */
        sts_strlcpy(keep_io, "all", sizeof(keep_io));
    char keep_mx[24];
    an_fixed(keep_mx, sizeof(keep_mx), (1 - mx) * 100, 0);
    if (mx <= 0)
        sts_strlcpy(keep_mx, "all", sizeof(keep_mx));
    if (has_mx && mx <= d - 0.10 && (!has_io || mx <= io + 0.05))
        /* a mutex that does as well as the I/O task is the smaller cure */
        SAY(an_add(out->guideline, &out->n_guidelines, "mutex", "S1"),
            "Serialise access to the filesystem (one mutex around it is enough here): with 4 "
            "CPU-load tasks direct access keeps ", keep_d, " % of its write throughput, a mutex ",
            keep_mx, mx <= 0 ? " of it" : " %", has_io ? ", an I/O task " : "",
            has_io ? keep_io : "", has_io ? (io <= 0 ? " of it (S1)." : " % (S1).") : " (S1).");
    else if (has_io && io <= d - 0.10)
        SAY(an_add(out->guideline, &out->n_guidelines, "io task", "S1"),
            "Put one I/O task with a request queue in front of the filesystem: with 4 CPU-load "
            "tasks direct access keeps ", keep_d, " % of its write throughput, the I/O task ",
            keep_io, io <= 0 ? " of it (S1)" : " % (S1)",
            in->s1_priority ? "." : "; give it a priority above the load tasks, at equal "
                                    "priority it only gets its share of the CPU.");
    else
        SAY(an_add(out->guideline, &out->n_guidelines, "cpu load", "S1"),
            "Keep CPU-bound tasks off the storage core or run storage at a higher priority: "
            "with 4 load tasks write throughput falls ", a, " %",
            has_io ? " and an I/O task did not change that here (S1: " : "",
            has_io ? c : "", has_io ? " %)." : " (S1).");
}

static double median3(const double *v)
{
    double a = v[0], b = v[1], c = v[2];
    return a > b ? (b > c ? b : (a > c ? c : a)) : (a > c ? a : (b > c ? c : b));
}

/* 1 when create latency at least doubled from the first lifecycles to the
 * last, each end taken as the median of STS_AN_MIN_SLOW lifecycles that do
 * not overlap; *from and *to are those medians */
static int m2_grew(const struct sts_an_input *in, double *from, double *to)
{
    _Static_assert(STS_AN_MIN_SLOW == 3, "median3 takes three");
    *from = median3(in->m2_create_head);
    *to = median3(in->m2_create_tail);
    return in->m2_lifecycles >= 2 * STS_AN_MIN_SLOW && *from > 0 && *to >= 2 * *from;
}

/* M2's probe found the directory's size, not free space, behind the
 * slowdown: the cure is fewer files per directory, not headroom. */
static void directory_guideline(const struct sts_an_input *in, const char *thr, int crossed,
                                struct sts_analysis *out)
{
    char files[24], p0[24], p1[24], c0[24], c1[24];
    an_ms(p0, sizeof(p0), in->m2_probe_first_ns);
    an_ms(p1, sizeof(p1), in->m2_probe_last_ns);
    if (crossed) {
        an_fixed(files, sizeof(files), in->m2_cross_files, 0);
        SAY(an_add(out->guideline, &out->n_guidelines, "files per directory", "M2"),
            "Keep fewer than ", files, " files per directory (start a new directory before): "
            "create latency exceeded ", thr, " with ", files,
            " files in the directory, while a create in an empty directory of the same volume "
            "took ", p0, " at first and ", p1, " at the end (M2: the directory's size, not free "
            "space, is the cause).");
        return;
    }
    double from, to;
    (void)m2_grew(in, &from, &to);
    an_ms(c0, sizeof(c0), from);
    an_ms(c1, sizeof(c1), to);
    an_fixed(files, sizeof(files), in->m2_last_files, 0);
    SAY(an_add(out->guideline, &out->n_guidelines, "files per directory", "M2"),
        "Rotate directories as files accumulate: create latency grew from ", c0, " to ", c1,
        " (medians of the first and last 3 lifecycles) as the directory reached ", files,
        " files, while a create in an empty directory of "
        "the same volume took ", p0, " at first and ", p1, " at the end (M2: the directory's "
        "size, not free space; it stayed under ", thr, ").");
}

static void aging(const struct sts_an_input *in, struct sts_analysis *out)
{
    if (!in->has_m2)
        return;
    char a[24], b[24], c[24], d[24];
    an_ms(a, sizeof(a), in->m2_first_create_ns);
    an_bytes(b, sizeof(b), sts_d2u64(in->m2_first_free));
    an_ms(c, sizeof(c), in->m2_last_create_ns);
    an_bytes(d, sizeof(d), sts_d2u64(in->m2_last_free));
    char fit[96] = "";
    if (in->m2_has_exp && in->m2_span_days >= 1.0 / 24) { /* per day means nothing over seconds */
        char fa[24], fb[24], fr[24];
        an_ms(fa, sizeof(fa), in->m2_create_a_ns);
        an_fixed(fb, sizeof(fb), in->m2_create_b, 2);
        an_fixed(fr, sizeof(fr), in->m2_create_r2, 2);
        const char *parts[] = {"; fit ", fa, " x exp(", fb, " t/day), R^2 ", fr};
        for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
            sts_strlcat(fit, parts[i], sizeof(fit));
    }
    char f0[24], f1[24];
    an_fixed(f0, sizeof(f0), in->m2_first_files, 0);
    an_fixed(f1, sizeof(f1), in->m2_last_files, 0);
    SAY(an_add(out->finding, &out->n_findings, "aging", "M2"), "create latency went from ", a,
        " with ", b, " free and ", f0, " files to ", c, " with ", d, " free and ", f1,
        " files in the directory", fit);
    char thr[24];
    an_ms(thr, sizeof(thr), in->m2_threshold_ns);
    int crossed = in->m2_cross_free >= 0 && in->m2_total_bytes > 0;
    double from, to;
    int grew = m2_grew(in, &from, &to);
    if (!crossed && !grew)
        return;
    if (!strcmp(in->m2_cause, "directory")) {
        directory_guideline(in, thr, crossed, out);
        return;
    }
    /* free space, or a cause M2 could not tell (older results, no probe) */
    const char *why = !strcmp(in->m2_cause, "free space")
                          ? "; a create in an empty directory slowed as much: free space, not the "
                            "directory, is the cause"
                          : "; M2 could not tell free space from the number of files (no probe "
                            "directory): rotating directories may be the cure instead";
    if (crossed) {
        char pct[24], fr[24];
        /* round the floor up to whole percent: it must hold the latency */
        double p = in->m2_cross_free / in->m2_total_bytes * 100.0;
        an_fixed(pct, sizeof(pct), (double)sts_d2u64(p + 0.999), 0);
        an_bytes(fr, sizeof(fr), sts_d2u64(in->m2_cross_free));
        /* where the crossing lies: between the lifecycle before, still
         * under the threshold, and this one (the floor's interval) */
        char bf[24], between[96] = "";
        if (in->m2_cross_before > in->m2_cross_free) {
            an_bytes(bf, sizeof(bf), sts_d2u64(in->m2_cross_before));
            const char *parts[] = {"; the lifecycle before, at ", bf, " free, was still under it"};
            for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
                sts_strlcat(between, parts[i], sizeof(between));
        }
        SAY(an_add(out->guideline, &out->n_guidelines, "free-space floor", "M2"),
            "Keep at least ", pct, " % of the volume free: create latency exceeded ", thr,
            " in two lifecycles in a row from when free space was down to ", fr, between, " (M2",
            why, ").");
    } else {
        an_ms(a, sizeof(a), from);
        an_ms(c, sizeof(c), to);
        SAY(an_add(out->guideline, &out->n_guidelines, "free-space floor", "M2"),
            "Keep a free-space floor and monitor it: create latency grew from ", a, " to ", c,
            " (medians of the first and last 3 lifecycles) as free space fell from ", b, " to ",
            d, " (M2; it stayed under ", thr, why, ").");
    }
}

static void preopen(const struct sts_an_input *in, const struct sts_an_config *cfg,
                    struct sts_analysis *out)
{
    /* M2 counts only when several lifecycles had a slow open; S2's figure
     * is already a mean over every file of the burst */
    int m2_trend = in->has_m2 && in->m2_open_top[STS_AN_MIN_SLOW - 1] >= cfg->preopen_ns;
    double m2 = m2_trend ? in->m2_open_max_ns : 0, s2 = in->has_s2 ? in->s2_open_hi_ns : 0;
    if (m2 < cfg->preopen_ns && s2 < cfg->preopen_ns)
        return;
    char a[24], b[24], c[24], k[24];
    if (m2 >= s2) {
        an_ms(a, sizeof(a), m2);
        an_bytes(b, sizeof(b), sts_d2u64(in->m2_open_max_free));
        an_ms(c, sizeof(c), cfg->preopen_ns);
        an_fixed(k, sizeof(k), STS_AN_MIN_SLOW, 0);
        double third = in->m2_open_top[STS_AN_MIN_SLOW - 1];
        if (m2 > 2 * third) { /* the slowest did not repeat: one event, said as one */
            char t[24];
            an_ms(t, sizeof(t), third);
            SAY(an_add(out->guideline, &out->n_guidelines, "pre-open", "M2"),
                "Open files before time-critical paths and keep them open: opens took over ", c,
                " in at least ", k, " lifecycles, ", t, " or more in ", k,
                "; the slowest, ", a, ", came once (M2, with ", b, " free).");
            return;
        }
        SAY(an_add(out->guideline, &out->n_guidelines, "pre-open", "M2"),
            "Open files before time-critical paths and keep them open: opens took over ", c,
            " in at least ", k, " lifecycles, up to ", a, " (M2, with ", b, " free).");
    } else {
        an_ms(a, sizeof(a), s2);
        an_fixed(b, sizeof(b), in->s2_n_hi, 0);
        SAY(an_add(out->guideline, &out->n_guidelines, "pre-open", "S2"),
            "Open files before time-critical paths and keep them open: open+close took ", a,
            " per file with ", b, " files in the directory (S2).");
    }
}

static void logging(const struct sts_an_input *in, struct sts_analysis *out)
{
    if (!in->has_l1)
        return;
    char text[STS_AN_TEXT] = "";
    int best = -1;
    for (int m = 0; m < N_MODES; m++) {
        if (!in->l1_seen[m])
            continue;
        char need[24], stall[24], lost[24];
        an_bytes(need, sizeof(need), sts_d2u64(in->l1_need[m]));
        an_ms(stall, sizeof(stall), in->l1_stall[m]);
        an_fixed(lost, sizeof(lost), in->l1_lost[m] + in->l1_late[m], 0);
        char most[48] = "";
        if (in->l1_worst_stream[m][0]) { /* which stream lost them */
            char n[24];
            an_fixed(n, sizeof(n), in->l1_worst_lost[m], 0);
            const char *w[] = {", most lost by ", in->l1_worst_stream[m], ": ", n};
            for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
                sts_strlcat(most, w[i], sizeof(most));
        }
        const char *parts[] = {text[0] ? "; " : "", mode_name[m], " needed ", need,
                               " (worst stall ", stall, ", ", lost, " lost or late", most, ")"};
        for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
            sts_strlcat(text, parts[i], sizeof(text));
        int ok = in->l1_lost[m] == 0 && in->l1_late[m] == 0;
        if (ok && (best < 0 || m == MODE_IOTASK))
            best = m; /* the guideline's architecture when it holds */
    }
    SAY(an_add(out->finding, &out->n_findings, "sustained logging", "L1"), "streams ",
        in->l1_streams, ": ", text);
    if (best < 0) {
        SAY(an_add(out->guideline, &out->n_guidelines, "too slow", "L1"),
            "This medium did not keep up with streams ", in->l1_streams,
            " in any mode: records were lost or late (L1); lower the rate, give more RAM or "
            "choose a faster medium.");
        return;
    }
    char need[24], stall[24];
    an_bytes(need, sizeof(need), sts_d2u64(in->l1_need[best]));
    an_ms(stall, sizeof(stall), in->l1_stall[best]);
    SAY(an_add(out->guideline, &out->n_guidelines, "logger buffer", "L1"),
        "Give the logger at least ", need, " of RAM for records waiting to be written: that "
        "held every stall seen (worst ", stall, ") at streams ", in->l1_streams, " (L1 ",
        mode_name[best], ").");
    double d = in->l1_scale[MODE_DIRECT], io = in->l1_scale[MODE_IOTASK];
    if (d > 0 && io >= 1.5 * d) {
        char a[24], b[24];
        an_ratio(a, sizeof(a), io);
        an_ratio(b, sizeof(b), d);
        SAY(an_add(out->guideline, &out->n_guidelines, "io task", "L1"),
            "Write through one I/O task in aligned 4 KiB chunks: it sustained ", a,
            " the streams' rate without loss, record-by-record writing ", b, " (L1 --bisect).");
    }
}

void an_system(const struct sts_an_input *in, const struct sts_an_config *cfg,
               struct sts_analysis *out)
{
    concurrency(in, cfg, out);
    aging(in, out);
    preopen(in, cfg, out);
    logging(in, out);
}
