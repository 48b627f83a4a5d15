/* What the analysis reads, gathered as a run goes: a sink that fills
 * struct sts_an_input from the points and test ends (sts_an_collector_init),
 * and the fsync stall bins and S2 points it keeps. */
#include "storscope/analysis.h"
#include "storscope/target.h"
#include "storscope/units.h"

#include <math.h>
#include <string.h>

#include "storscope/error.h"
#include "an_text.h"

#define STS_AN_STALL_BINS 168 /* 4 a power of two over 2^42: the JSON's (json_sink.c) */

void sts_an_fsync_bins(struct sts_an_input *in, const uint64_t *lo, const uint64_t *count,
                       size_t n, double max_ns)
{
    /* a bin of 4 a power of two ends at lo * 2^(1/4) */
    double near = 0, above = 0, repeated = 0;
    for (size_t i = n; i-- > 0;) {
        if ((double)lo[i] * 1.189207115 > max_ns / 2)
            near += (double)count[i];
        above += (double)count[i];
        if (above >= 2 && repeated == 0) /* (the bin's top: a buffer errs large) */
            repeated = fmin((double)lo[i] * 1.189207115, max_ns);
    }
    in->fsync_near_max = near;
    in->fsync_repeated_ns = repeated;
}

void sts_an_s2_point(struct sts_an_input *in, int flat, double n, double v)
{
    if (flat && (in->s2_n_lo == 0 || n < in->s2_n_lo))
        in->s2_n_lo = n, in->s2_open_lo_ns = v;
    if (flat && n >= in->s2_n_hi)
        in->s2_n_hi = n, in->s2_open_hi_ns = v;
    if (!flat && n >= in->s2_n_hi)
        in->s2_open_hi_sub_ns = v;
}

/* ---- a sink that fills the input as a run goes ----------------------------- */
static void append(const struct sts_an_input *in, struct sts_series *s,
                   const struct sts_test_info *ti, const struct sts_point *p)
{
    const char *test = ti->id;
    const struct sts_kv *ch = sts_kv_find(p->params, p->n_params, "chunk_bytes");
    if (!ch || p->skipped || s->n >= STS_AN_MAX_POINTS)
        return;
    sts_strlcpy(s->test, test, sizeof(s->test));
    s->chunk[s->n] = sts_d2u64(sts_kv_number(ch));
    double mean = p->run_stats.mean, ci = NAN;
    uint64_t n = p->run_stats.n;
    const struct sts_welford *ops = p->n_lat ? &p->lat[0].lat->w : NULL;
    if (in->exact && (n < 2 || !(p->run_stats.m2 > 0)))
        ci = 0; /* virtual time: a rerun gives the same figure */
    else if (n >= 2) /* the runs' spread (on the model too: a store's state moves
                        between runs - a log that wraps meets an erase in some) */
        ci = sts_t975((unsigned)(n - 1)) * sqrt(p->run_stats.m2 / (double)(n - 1)) /
             sqrt((double)n);
    else if (ops && ops->n >= 2 && ops->mean > 0) /* one run: its operations' spread */
        ci = mean * sts_t975((unsigned)(ops->n - 1)) * sqrt(ops->m2 / (double)(ops->n - 1)) /
             sqrt((double)ops->n) / ops->mean;
    /* a noisy device's runs that happened to agree (no stall fell in them)
     * are not exact: +-1 % at least, the precision adaptive repetition
     * aims at. Without it, stall-free small chunks beside stall-slowed
     * large ones printed a read plateau the noiseless model does not have
     * (bench/verdicts_noise.py, stalls=2:20ms) */
    double floor_share = STS_AN_CI_FLOOR;
    const struct sts_kv *rounds = sts_kv_find(ti->params, ti->n_params, "rounds");
    if (in->host_clock && rounds && rounds->type == STS_KV_BOOL && rounds->v.b)
        floor_share = STS_AN_CI_FLOOR_ROUNDS;
    if (!in->exact && isfinite(ci) && ci < floor_share * mean)
        ci = floor_share * mean;
    s->bps[s->n] = mean;
    s->ci[s->n] = ci;
    s->runs[s->n] = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
    const struct sts_kv *copied = sts_kv_find(p->device, p->n_device, "gc_pages_copied");
    const struct sts_kv *pages = sts_kv_find(p->device, p->n_device, "pages_programmed");
    double all = pages ? sts_kv_number(pages) : 0;
    s->gc_share[s->n] = copied && all > 0 ? sts_kv_number(copied) / all : copied ? 0 : NAN;
    s->n++;
}

static int collect_point(void *ctx, const struct sts_test_info *ti, const struct sts_point *p)
{
    struct sts_an_input *in = ctx;
    an_system_point(in, ti, p);
    int is_write = strcmp(p->name, "write") == 0, is_read = strcmp(p->name, "read") == 0;
    if (!strcmp(ti->id, "B0") || !strcmp(ti->id, "B1")) {
        struct sts_series *s = is_write ? &in->seq_write : is_read ? &in->seq_read : NULL;
        if (!s)
            return 0;
        if (s->n && strcmp(s->test, ti->id)) { /* the other sweep is there already */
            if (!strcmp(ti->id, "B1"))
                return 0; /* B0 wins: it is the study's knee test */
            s->n = 0;     /* B0 replaces B1 */
        }
        append(in, s, ti, p);
    } else if (!strcmp(ti->id, "B2")) {
        if (is_write)
            append(in, &in->fixed_write, ti, p);
        if (is_read)
            append(in, &in->fixed_read, ti, p);
    } else if (!strcmp(ti->id, "M1")) {
        append(in, &in->rand_read, ti, p);
    } else if (!strcmp(ti->id, "fsync") && p->n_lat && p->lat[0].lat->h.total && !p->skipped) {
        const struct sts_lat *l = p->lat[0].lat;
        const struct sts_kv *iops = sts_kv_find(p->metrics, p->n_metrics, "iops");
        in->has_fsync = 1;
        in->fsync_iops = iops ? sts_kv_number(iops) : 0;
        in->fsync_mean_ns = l->w.mean;
        in->fsync_p50_ns = (double)sts_hist_percentile(&l->h, 50);
        in->fsync_p9999_ns = (double)sts_hist_percentile(&l->h, 99.99);
        in->fsync_max_ns = (double)l->h.max;
        in->fsync_count = (double)l->w.n;
        in->fsync_max_at = (double)l->max_at;
        /* the bins the JSON holds, so a report of the file says the same
         * (static: 2.7 KB is too much for an MCU task's stack) */
        static uint64_t lo[STS_AN_STALL_BINS], count[STS_AN_STALL_BINS];
        size_t n = sts_hist_bins(&l->h, 2, lo, count, STS_AN_STALL_BINS);
        sts_an_fsync_bins(in, lo, count, n, in->fsync_max_ns);
    } else if (!strcmp(ti->id, "S2") && !strcmp(p->name, "open_close") && !p->skipped) {
        const struct sts_kv *files = sts_kv_find(p->params, p->n_params, "files");
        const struct sts_kv *layout = sts_kv_find(p->params, p->n_params, "layout");
        const struct sts_kv *pf = sts_kv_find(p->metrics, p->n_metrics, "per_file_mean_ns");
        if (!files || !layout || !pf)
            return 0;
        sts_an_s2_point(in, !strcmp(layout->v.s, "flat"), sts_kv_number(files),
                        sts_kv_number(pf));
    } else if (!strcmp(ti->id, "seq") && !p->skipped) {
        const struct sts_kv *best = sts_kv_find(p->metrics, p->n_metrics, "best_bytes_per_second");
        if (best && is_write) {
            in->has_seq = 1;
            in->seq_write_bps = sts_kv_number(best);
        } else if (best && !strcmp(p->name, "read_uncached")) {
            in->has_seq = 1;
            in->seq_read_bps = sts_kv_number(best);
        }
    }
    return 0;
}

static int collect_test_end(void *ctx, const struct sts_test_end *te)
{
    struct sts_an_input *in = ctx;
    an_system_test_end(in, te);
    if (strcmp(te->id, "S2") || te->status != STS_TEST_OK)
        return 0;
    const struct sts_kv *e = sts_kv_find(te->summary, te->n_summary, "open_close_exponent_flat");
    const struct sts_kv *ci = sts_kv_find(te->summary, te->n_summary, "open_close_exponent_flat_ci95");
    const struct sts_kv *es = sts_kv_find(te->summary, te->n_summary, "open_close_exponent_subdirs");
    const struct sts_kv *cs =
        sts_kv_find(te->summary, te->n_summary, "open_close_exponent_subdirs_ci95");
    if (e && ci && es && cs) {
        in->has_s2 = 1;
        in->s2_exp_flat = e->v.d;
        in->s2_ci_flat = ci->v.d;
        in->s2_exp_sub = es->v.d;
        in->s2_ci_sub = cs->v.d;
    }
    return 0;
}

static int collect_run_begin(void *ctx, const struct sts_run_info *ri)
{
    struct sts_an_input *in = ctx;
    sts_strlcpy(in->target_kind, ri->target_kind ? ri->target_kind : "", sizeof(in->target_kind));
    const char *plus = ri->target && !strncmp(ri->target, "sim:", 4) ? strchr(ri->target, '+')
                                                                   : NULL;
    if (plus) { /* sim:PROFILE[,k=v]+FS[,k=v] */
        size_t n = strcspn(plus + 1, ",");
        n = n < sizeof(in->fs_layer) - 1 ? n : sizeof(in->fs_layer) - 1;
        memcpy(in->fs_layer, plus + 1, n);
        in->fs_layer[n] = '\0';
    }
    const struct sts_kv *clock = sts_kv_find(ri->env, ri->n_env, "clock");
    /* virtual time is exact - a rerun gives the same figure - unless the
     * simulator was made noisy: then each figure's spread counts */
    const struct sts_kv *noisy = sts_kv_find(ri->env, ri->n_env, "sim_noisy");
    int virtual_clock = clock && clock->type == STS_KV_STR && !strcmp(clock->v.s, "virtual");
    in->exact = virtual_clock && !(noisy && noisy->type == STS_KV_BOOL && noisy->v.b);
    in->host_clock = !virtual_clock;
    const struct sts_kv *dev = sts_kv_find(ri->env, ri->n_env, "device");
    const struct sts_kv *dip = sts_kv_find(ri->env, ri->n_env, "sim_dip_bytes");
    /* (a run replayed from its file may give the number as any kind) */
    in->model_dip_bytes = !dip                         ? 0
                          : dip->type == STS_KV_UINT   ? dip->v.u
                          : dip->type == STS_KV_INT    ? (uint64_t)dip->v.i
                          : dip->type == STS_KV_DOUBLE ? sts_d2u64(dip->v.d)
                                                       : 0;
    in->no_medium = !strcmp(in->target_kind, "null") ||
                    (!strcmp(in->target_kind, "sim") && dev && dev->type == STS_KV_STR &&
                     !strcmp(dev->v.s, "ram"));
    return 0;
}

static const struct sts_sink_ops collector_ops = {.run_begin = collect_run_begin,
                                                  .point = collect_point,
                                                  .test_end = collect_test_end};

void sts_an_collector_init(struct sts_an_input *in, struct sts_sink *sink)
{
    memset(in, 0, sizeof(*in));
    sink->ops = &collector_ops;
    sink->ctx = in;
}
