/* Detectors and guidelines. Every number a guideline states is read off a
 * named point of the results; a guideline appears only when its detector
 * found something. */
#include "storscope/analysis.h"
#include "storscope/target.h"
#include "storscope/units.h"

#include <math.h>
#include <string.h>

#include "storscope/error.h"
#include "an_text.h"

void sts_an_config_default(struct sts_an_config *cfg)
{
    cfg->knee_gain = 0.25;
    cfg->plateau_band = 0.05;
    cfg->dip_drop = 0.20;
    cfg->stall_rate_bps = 100.0 * 1024.0;
    cfg->concurrency_loss = 0.30;
    cfg->preopen_ns = 1e6;
}

/* ---- detectors ----------------------------------------------------------- */
/* A point's interval; an unknown spread counts as none here (the finding
 * then says the spread is unknown, and no guideline rests on it). */
static double lo_of(const struct sts_series *s, uint32_t i)
{
    return s->bps[i] - (isfinite(s->ci[i]) ? s->ci[i] : 0);
}
static double hi_of(const struct sts_series *s, uint32_t i)
{
    return s->bps[i] + (isfinite(s->ci[i]) ? s->ci[i] : 0);
}

/* knee_read's answer for a curve still rising at its last point (no knee
 * in it: knee_section reads the knee on a longer series then) */
#define STILL_RISING (-2)

/* The knee with the intervals read one way: `hopeful` 0 strictly (each
 * rise from the bottom of its interval to the top of the others'), 1
 * hopefully (from the top of its own to the bottom of theirs: every rise
 * the noise could hide). */
static int knee_read(const struct sts_series *s, double gain, int hopeful)
{
    if (s->n < 3)
        return -1;
    /* the last chunk that lifts throughput more than `gain` above every
     * smaller chunk: a flat stretch before a step does not hide the step
     * (FileX: flat 1..256 B, 2x at 512 B), and a recovery from a dip is not
     * a rise. A knee needs the curve to have at least doubled by then and
     * one more point after it that no longer rises that much. */
    int knee = -1;
    double best = hopeful ? lo_of(s, 0) : hi_of(s, 0);
    for (uint32_t i = 1; i < s->n; i++) {
        double up = hopeful ? hi_of(s, i) : lo_of(s, i), top = hopeful ? lo_of(s, i) : hi_of(s, i);
        if (up > (1.0 + gain) * best)
            knee = (int)i;
        best = top > best ? top : best;
    }
    if (knee + 1 == (int)s->n && knee > 0 && !hopeful)
        return STILL_RISING;
    if (knee < 0 || knee + 1 >= (int)s->n ||
        (hopeful ? hi_of(s, (uint32_t)knee) < 2.0 * lo_of(s, 0)
                 : lo_of(s, (uint32_t)knee) < 2.0 * hi_of(s, 0)))
        return -1;
    return knee;
}

int sts_an_knee(const struct sts_series *s, double gain)
{
    int k = knee_read(s, gain, 0);
    return k < 0 ? -1 : k;
}

/* The plateau with each point's interval read one way: `hopeful` 0 as
 * sts_an_plateau (the larger chunks at the top of theirs, this one at the
 * bottom: the latest start the intervals allow), 1 the other way (the
 * earliest). The two agree when the noise cannot move the answer. */
static int plateau_read(const struct sts_series *s, double band, int hopeful)
{
    if (s->n < 3)
        return -1;
    /* the smallest chunk that no larger chunk beats by more than `band`:
     * where the curve stops rising, not where it first enters a band around
     * the tail's mean (a curve still climbing 5 % per doubling from 4 KiB
     * to 64 KiB sits in +-10 % of its mean but is not flat at 4 KiB) */
    int found = -1;
    for (int i = (int)s->n - 2; i >= 0; i--) {
        double top = 0;
        for (uint32_t j = (uint32_t)i + 1; j < s->n; j++) {
            double v = hopeful ? lo_of(s, j) : hi_of(s, j);
            top = v > top ? v : top;
        }
        double here = hopeful ? hi_of(s, (uint32_t)i) : lo_of(s, (uint32_t)i);
        if (s->bps[i] > 0 && top <= (1.0 + band) * here)
            found = i;
        else
            break;
    }
    return found;
}

int sts_an_plateau(const struct sts_series *s, double band)
{
    return plateau_read(s, band, 0);
}

/* Dips with the intervals read strictly (`hopeful` 0: from the top of the
 * point's interval to the bottom of its neighbours') or hopefully (1: every
 * dip the noise could hide). */
static int dip_read(const struct sts_series *s, int from, double drop, int hopeful)
{
    /* below both neighbours by `drop`: a dip inside the noise is not one */
    for (uint32_t i = from > 1 ? (uint32_t)from : 1; i + 1 < s->n; i++) {
        double a = hopeful ? hi_of(s, i - 1) : lo_of(s, i - 1),
               b = hopeful ? hi_of(s, i + 1) : lo_of(s, i + 1);
        if ((hopeful ? lo_of(s, i) : hi_of(s, i)) <= (1.0 - drop) * (a < b ? a : b))
            return (int)i;
    }
    return -1;
}

int sts_an_dip(const struct sts_series *s, int from, double drop)
{
    return dip_read(s, from, drop, 0);
}

/* what a figure without a recorded spread says of itself */
#define UNPROVEN " [no spread recorded: one figure per size, unconfirmed]"

/* 1 when every point of s up to `last` has a known spread */
static int spread_known(const struct sts_series *s, uint32_t last)
{
    for (uint32_t i = 0; i <= last && i < s->n; i++)
        if (!isfinite(s->ci[i]))
            return 0;
    return 1;
}

void sts_an_growth_class(double slope, double ci95, char *out, size_t n)
{
    static const char *const names[] = {"O(1)", "O(n)", "O(n^2)", "O(n^3)"};
    if (!isfinite(slope) || !isfinite(ci95) || ci95 < 0) { /* from a damaged results file */
        sts_strlcpy(out, "of unknown order", n);
        return;
    }
    double lo = slope - ci95, hi = slope + ci95;
    /* clamped before any cast: a double beyond int is undefined behaviour */
    lo = lo < -1 ? -1 : lo > 4 ? 4 : lo;
    hi = hi < -1 ? -1 : hi > 4 ? 4 : hi;
    slope = slope < -1 ? -1 : slope > 4 ? 4 : slope;
    /* a class k is named when the whole interval lies within k +- 0.3: a
     * slope of 0.4 is growth, not O(1), even if it rounds to 0 */
    int k = (int)floor(slope + 0.5);
    k = k < 0 ? 0 : k > 3 ? 3 : k;
    if (lo >= k - 0.3 && hi <= k + 0.3) {
        sts_strlcpy(out, names[k], n);
        return;
    }
    int klo = (int)floor(lo + 0.5), khi = (int)floor(hi + 0.5);
    klo = klo < 0 ? 0 : klo > 3 ? 3 : klo;
    khi = khi < 0 ? 0 : khi > 3 ? 3 : khi;
    if (klo == khi) { /* between k and its neighbour on the side the slope leans to */
        if (slope >= k && k < 3)
            khi = k + 1;
        else if (k > 0)
            klo = k - 1;
        else
            khi = 1;
    }
    sts_strlcpy(out, "between ", n);
    sts_strlcat(out, names[klo], n);
    sts_strlcat(out, " and ", n);
    sts_strlcat(out, names[khi], n);
}

/* ---- the analysis ---------------------------------------------------------- */
static const struct sts_series *pick(const struct sts_series *a, const struct sts_series *b)
{
    return a->n >= 3 ? a : (b->n >= 3 ? b : NULL);
}

/* On sim:MEDIUM+FS the sizes B0..B2 found are those of FS's files (for
 * sensorlog, its record header and chunk), not the medium's: a guideline
 * that does not say so reads as advice about the study's eMMC. */
static void name_the_layer(const struct sts_an_input *in, struct sts_analysis *out)
{
    static const char *const sized[] = {"chunk size", "buffer small writes", "read buffer",
                                        "sizes to avoid"};
    if (!in->fs_layer[0])
        return;
    for (size_t i = 0; i < out->n_guidelines; i++)
        for (size_t k = 0; k < sizeof(sized) / sizeof(sized[0]); k++) {
            if (strcmp(out->guideline[i].kind, sized[k]))
                continue;
            char text[STS_AN_TEXT];
            sts_strlcpy(text, "Through ", sizeof(text));
            sts_strlcat(text, in->fs_layer, sizeof(text));
            sts_strlcat(text, " (its files, not the bare medium): ", sizeof(text));
            size_t at = strlen(text);
            sts_strlcat(text, out->guideline[i].text, sizeof(text));
            if (text[at] >= 'A' && text[at] <= 'Z')
                text[at] = (char)(text[at] - 'A' + 'a');
            sts_strlcpy(out->guideline[i].text, text, sizeof(out->guideline[i].text));
        }
}

/* The widest interval of s, as a percentage of its figure. */
static double widest_pct(const struct sts_series *s)
{
    double w = 0;
    for (uint32_t i = 0; i < s->n; i++)
        if (s->bps[i] > 0 && isfinite(s->ci[i]) && s->ci[i] / s->bps[i] > w)
            w = s->ci[i] / s->bps[i];
    return 100.0 * w;
}

/* The series by its figures alone, intervals set aside. */
static void figures_only(const struct sts_series *s, struct sts_series *out)
{
    *out = *s;
    for (uint32_t i = 0; i < out->n; i++)
        out->ci[i] = 0;
}

/* The series with each interval as wide as another execution's hopeful
 * reading could reach (STS_AN_ANOTHER_EXECUTION): what the hopeful
 * reading is read on. */
static const struct sts_series *as_another_execution(const struct sts_series *s,
                                                     struct sts_series *out)
{
    *out = *s;
    for (uint32_t i = 0; i < out->n; i++) /* (from s: gcc -O3 took out's for unset) */
        out->ci[i] = s->ci[i] * STS_AN_ANOTHER_EXECUTION;
    return out;
}

/* A detector whose answer the noise could move - its figures, its 95 %
 * intervals read strictly and read hopefully (as another execution could
 * see them) do not all agree - gives no guideline: a finding says it is
 * unresolved, with the three answers (issue 41). 1 when it is. */
static int unresolved(struct sts_analysis *out, const struct sts_series *s, const char *kind,
                      const char *detector, int figures, int strict, int hopeful)
{
    if (figures == strict && strict == hopeful)
        return 0;
    char x[24] = "none", y[24] = "none", z[24] = "none", pct[16], wider[16];
    if (figures >= 0)
        an_bytes(x, sizeof(x), s->chunk[figures]);
    if (strict >= 0)
        an_bytes(y, sizeof(y), s->chunk[strict]);
    if (hopeful >= 0)
        an_bytes(z, sizeof(z), s->chunk[hopeful]);
    an_fixed(pct, sizeof(pct), widest_pct(s), 0);
    an_fixed(wider, sizeof(wider), STS_AN_ANOTHER_EXECUTION, 2);
    SAY(an_add(out->finding, &out->n_findings, "unresolved", s->test),
        "Unresolved within the noise (", kind, "): ", detector, " at ", x, " by the figures; at ",
        y, " by their 95 % intervals read strictly, at ", z, " read hopefully (intervals up to +-",
        pct, " %, each stretched ", wider, "x: what another execution could see); more runs "
        "(--runs N) may resolve it.");
    return 1;
}

/* The write knee: chunk size and alignment; small writes buffered. The
 * series it read (NULL: none). */
static const struct sts_series *knee_section(const struct sts_an_input *in,
                                            const struct sts_an_config *cfg,
                                            struct sts_analysis *out)
{
    struct sts_series fig, wide;
    char a[40], b[40], c[40], d[40];
    const struct sts_series *seq = pick(&in->seq_write, &in->fixed_write), *w = seq;
    /* B0 ends at 1 KiB; on a device whose write command costs more than a
     * sector's transfer its writes still rise there (the study's eMMC:
     * 1.7x from 512 B to 1 KiB), and the knee is where B2's, which go on
     * to 2 MiB, stop rising */
    if (w == &in->seq_write && knee_read(w, cfg->knee_gain, 0) == STILL_RISING &&
        in->fixed_write.n >= 3 &&
        in->fixed_write.chunk[in->fixed_write.n - 1] > w->chunk[w->n - 1]) {
        w = &in->fixed_write;
        an_bytes(a, sizeof(a), seq->chunk[seq->n - 1]);
        an_bytes(b, sizeof(b), seq->chunk[seq->n - 2]);
        an_ratio(c, sizeof(c), seq->bps[seq->n - 1] / seq->bps[seq->n - 2]);
        SAY(an_add(out->finding, &out->n_findings, "still rising", seq->test), seq->test,
            "'s writes still rise at its largest chunk, ", a, " (", c, " over ", b,
            "): the write knee is read on ", w->test, "'s larger chunks");
    }
    int k = w ? sts_an_knee(w, cfg->knee_gain) : -1;
    if (w && unresolved(out, w, "chunk size", "the write knee",
                        (figures_only(w, &fig), sts_an_knee(&fig, cfg->knee_gain)), k,
                        knee_read(as_another_execution(w, &wide), cfg->knee_gain, 1)))
        k = -1;
    if (k >= 0) {
        out->write_knee_bytes = (int64_t)w->chunk[k];
        double gain = w->bps[k] / w->bps[0];
        double next = (w->bps[k + 1] / w->bps[k] - 1.0) * 100.0;
        an_bytes(a, sizeof(a), w->chunk[k]);
        an_bytes(b, sizeof(b), w->chunk[0]);
        an_ratio(c, sizeof(c), gain);
        an_fixed(d, sizeof(d), fabs(next), 0);
        char ra[24], rb[24], fa[40], fb[40], runs[96];
        an_rate(ra, sizeof(ra), w->bps[0]);
        an_rate(rb, sizeof(rb), w->bps[k]);
        an_figure(fa, sizeof(fa), w, 0);
        an_figure(fb, sizeof(fb), w, (uint32_t)k);
        an_runs(runs, sizeof(runs), w, 0, (uint32_t)k);
        int known = spread_known(w, w->n - 1);
        SAY(an_add(out->finding, &out->n_findings, "knee", w->test), "write knee at ", a,
            ": throughput rises ", c, " from ", b, " (", ra, ") to ", a, " (", rb,
            next >= 0 ? "), then one doubling gains only " : "), then the next doubling loses ",
            d, " %", known ? "" : UNPROVEN);
        SAY(an_add(out->guideline, &out->n_guidelines, "chunk size", w->test),
            "Write in chunks of at least ", a, ", aligned to ", a,
            ": below that, write throughput falls up to ", c, " (", w->test, ": ", fb, " at ", a,
            " vs ", fa, " at ", b, runs, known ? ")." : ")" UNPROVEN ".");
        if (gain >= 4.0) /* says which sizes it compares: the sweep may start at 4 KiB */
            SAY(an_add(out->guideline, &out->n_guidelines, "buffer small writes", w->test),
                "Buffer small records in RAM and write them out as ", a,
                "-aligned chunks: writes of ", b, " ran ", c, " slower than writes of ", a,
                " (", w->test, ", the smallest chunk it measured).");
    }
    return seq;
}

/* The read plateau: the read buffer that is enough. */
static void plateau_section(const struct sts_an_input *in, const struct sts_an_config *cfg,
                            struct sts_analysis *out)
{
    struct sts_series fig, wide;
    char a[40], b[40], c[40], d[40];
    const struct sts_series *r = pick(&in->fixed_read, &in->seq_read);
    int p = r ? sts_an_plateau(r, cfg->plateau_band) : -1;
    if (r && unresolved(out, r, "read buffer", "the read plateau",
                        (figures_only(r, &fig), sts_an_plateau(&fig, cfg->plateau_band)), p,
                        plateau_read(as_another_execution(r, &wide), cfg->plateau_band, 1)))
        p = -1;
    if (p >= 0 && p > 0) {
        out->read_plateau_bytes = (int64_t)r->chunk[p];
        an_bytes(a, sizeof(a), r->chunk[p]);
        an_bytes(b, sizeof(b), r->chunk[r->n - 1]);
        an_rate(c, sizeof(c), r->bps[p]);
        an_fixed(d, sizeof(d), cfg->plateau_band * 100.0, 0);
        char fp[40], ftop[40], runs[96];
        an_figure(fp, sizeof(fp), r, (uint32_t)p);
        an_figure(ftop, sizeof(ftop), r, r->n - 1);
        an_runs(runs, sizeof(runs), r, (uint32_t)p, r->n - 1);
        SAY(an_add(out->finding, &out->n_findings, "plateau", r->test), "read throughput plateaus at ",
            c, " from ", a, " up to ", b, " (within +-", d, " %)");
        SAY(an_add(out->guideline, &out->n_guidelines, "read buffer", r->test),
            "A read buffer of ", a, " is enough: larger reads gain less than ", d, " % (",
            r->test, ": ", fp, " at ", a, runs[0] ? ", " : "", runs[0] ? ftop : "",
            runs[0] ? " at " : "", runs[0] ? b : "", runs,
            spread_known(r, r->n - 1) ? ")." : ")" UNPROVEN ".");
    }
}

/* 1 when the device's garbage collection copied a tenth or more of the
 * pages it programmed during point i, and a larger share than during the
 * point before: the medium changed state there (a small model filling up,
 * a card out of spare blocks), so a dip at i is its, not the chunk size's.
 * Collections that copy nothing (erasing blocks the host emptied) cost an
 * erase now and then and explain no dip. Unknown counters say nothing. */
static int gc_grew(const struct sts_series *s, uint32_t i)
{
    double now = s->gc_share[i], before = s->gc_share[i - 1]; /* (NaN: compares false) */
    return now >= 0.1 && now > before;
}

/* Write dips: sizes to avoid (w: the knee's series, where the fixed one is
 * short). */
static void dip_section(const struct sts_an_input *in, const struct sts_an_config *cfg,
                        const struct sts_series *w, struct sts_analysis *out)
{
    struct sts_series fig, wide;
    char a[40], b[40], c[40], d[40];
    const struct sts_series *dw = in->fixed_write.n >= 3 ? &in->fixed_write : w;
    int dp = dw ? sts_an_dip(dw, 1, cfg->dip_drop) : -1;
    if (dw && unresolved(out, dw, "sizes to avoid", "a write dip",
                         (figures_only(dw, &fig), sts_an_dip(&fig, 1, cfg->dip_drop)), dp,
                         dip_read(as_another_execution(dw, &wide), 1, cfg->dip_drop, 1)))
        dp = -1;
    if (dp > 0 && gc_grew(dw, (uint32_t)dp)) {
        char g[24], h[24];
        an_bytes(a, sizeof(a), dw->chunk[dp]);
        an_rate(c, sizeof(c), dw->bps[dp]);
        an_bytes(d, sizeof(d), dw->chunk[dp - 1]);
        an_fixed(g, sizeof(g), dw->gc_share[dp] * 100.0, 0);
        an_fixed(h, sizeof(h), dw->gc_share[dp - 1] * 100.0, 0);
        SAY(an_add(out->finding, &out->n_findings, "dip", dw->test), "write throughput dips at ",
            a, " (", c, ", ", dw->test, ") where the device's garbage collection grew: it copied ",
            g, " % of the pages programmed during it, against ", h, " % during ", d,
            ". That is the medium's state, not a size to avoid: no guideline (a medium this "
            "test does not fill would tell the size's own effect).");
        dp = -1;
    }
    if (dp > 0) {
        out->write_dip_bytes = (int64_t)dw->chunk[dp];
        double nb = dw->bps[dp - 1] < dw->bps[dp + 1] ? dw->bps[dp - 1] : dw->bps[dp + 1];
        an_bytes(a, sizeof(a), dw->chunk[dp]);
        an_fixed(b, sizeof(b), (1.0 - dw->bps[dp] / nb) * 100.0, 0);
        an_rate(c, sizeof(c), dw->bps[dp]);
        an_bytes(d, sizeof(d), dw->chunk[dp - 1]);
        char e[24], f0[40], f1[40], f2[40], runs[96], figs[160] = "";
        an_bytes(e, sizeof(e), dw->chunk[dp + 1]);
        an_runs(runs, sizeof(runs), dw, (uint32_t)dp - 1, (uint32_t)dp + 1);
        if (runs[0]) { /* not exact: the three figures with their intervals */
            an_figure(f0, sizeof(f0), dw, (uint32_t)dp);
            an_figure(f1, sizeof(f1), dw, (uint32_t)dp - 1);
            an_figure(f2, sizeof(f2), dw, (uint32_t)dp + 1);
            const char *const part[] = {": ", f0, " against ", f1, " and ", f2, runs};
            for (size_t j = 0; j < sizeof(part) / sizeof(part[0]); j++)
                sts_strlcat(figs, part[j], sizeof(figs));
        }
        SAY(an_add(out->finding, &out->n_findings, "dip", dw->test), "write throughput dips at ", a,
            ": ", c, ", ", b, " % below both ", d, " and ", e);
        SAY(an_add(out->guideline, &out->n_guidelines, "sizes to avoid", dw->test),
            "Avoid writes of ", a, ": ", b, " % slower than ", d, " or ", e, " (", dw->test, figs,
            spread_known(dw, (uint32_t)dp + 1) ? ")." : ")" UNPROVEN ".",
            in->model_dip_bytes == dw->chunk[dp]
                ? " The model was made to dip there (its profile's dip_bytes, fitted to the "
                  "study's B2): this guideline is its calibration, not a finding."
                : "");
    }
}

/* Read/write asymmetry at the largest chunk both measured. */
static void asymmetry_section(const struct sts_an_input *in, const struct sts_series *w,
                              struct sts_analysis *out)
{
    char a[40], b[40];
    const struct sts_series *rw = pick(&in->seq_read, &in->fixed_read);
    if (w && rw && w->n && rw->n) {
        uint32_t i = (w->n < rw->n ? w->n : rw->n) - 1;
        if (w->chunk[i] == rw->chunk[i] && w->bps[i] > 0) {
            an_ratio(a, sizeof(a), rw->bps[i] / w->bps[i]);
            an_bytes(b, sizeof(b), w->chunk[i]);
            SAY(an_add(out->finding, &out->n_findings, "asymmetry", w->test), "reads are ", a,
                " as fast as writes at ", b);
        }
    }
}

/* Random against sequential reads at the largest chunk both measured. */
static void random_section(const struct sts_an_input *in, struct sts_analysis *out)
{
    char a[40], b[40], c[40], d[40];
    if (in->rand_read.n && in->seq_read.n) {
        for (int i = (int)in->rand_read.n - 1; i >= 0; i--) {
            int j = -1;
            for (uint32_t q = 0; q < in->seq_read.n; q++)
                if (in->seq_read.chunk[q] == in->rand_read.chunk[i])
                    j = (int)q;
            if (j < 0 || in->seq_read.bps[j] <= 0)
                continue;
            an_bytes(a, sizeof(a), in->rand_read.chunk[i]);
            an_fixed(b, sizeof(b), (1.0 - in->rand_read.bps[i] / in->seq_read.bps[j]) * 100.0, 0);
            an_rate(c, sizeof(c), in->rand_read.bps[i]);
            an_rate(d, sizeof(d), in->seq_read.bps[j]);
            SAY(an_add(out->finding, &out->n_findings, "random penalty", "M1"),
                "random reads of ", a, " run at ", c, " against ", d, " sequential: a ", b,
                " % penalty");
            break;
        }
    }
}

/* Metadata growth (S2). */
static void metadata_section(const struct sts_an_input *in, struct sts_analysis *out)
{
    char a[40], b[40], c[40], d[40];
    if (in->has_s2) {
        char cls[48], cls_sub[48];
        sts_an_growth_class(in->s2_exp_flat, in->s2_ci_flat, cls, sizeof(cls));
        sts_an_growth_class(in->s2_exp_sub, in->s2_ci_sub, cls_sub, sizeof(cls_sub));
        an_fixed(a, sizeof(a), in->s2_exp_flat, 2);
        an_fixed(b, sizeof(b), in->s2_ci_flat, 2);
        an_ms(c, sizeof(c), in->s2_open_lo_ns);
        an_ms(d, sizeof(d), in->s2_open_hi_ns);
        char nlo[24], nhi[24], sub_ns[24];
        an_fixed(nlo, sizeof(nlo), in->s2_n_lo, 0);
        an_fixed(nhi, sizeof(nhi), in->s2_n_hi, 0);
        an_ms(sub_ns, sizeof(sub_ns), in->s2_open_hi_sub_ns);
        SAY(an_add(out->finding, &out->n_findings, "metadata growth", "S2"),
            "open+close per file grows ", cls, " with files per directory (slope ", a, " +- ",
            b, "): ", c, " at ", nlo, " files, ", d, " at ", nhi, "; ", cls_sub,
            " spread over subdirectories (", sub_ns, " at ", nhi, ")");
        if (in->s2_exp_flat - in->s2_ci_flat >= 0.5) /* at least linear, with confidence */
            SAY(an_add(out->guideline, &out->n_guidelines, "fewer files", "S2"),
                "Keep directories small or aggregate records into fewer files: opening a file "
                "costs ", cls, " in the directory's size (S2: ", c, " at ", nlo, " files, ", d,
                " at ", nhi, "); spread over subdirectories it costs ", sub_ns, ".");
    }
}

/* Tail and tier (fsync). */
static void fsync_section(const struct sts_an_input *in, const struct sts_an_config *cfg,
                          struct sts_analysis *out)
{
    char a[40], b[40], c[40], d[40];
    if (in->has_fsync) {
        an_ms(a, sizeof(a), in->fsync_max_ns);
        an_ms(b, sizeof(b), in->fsync_mean_ns);
        an_ratio(c, sizeof(c), in->fsync_max_ns / (in->fsync_mean_ns > 0 ? in->fsync_mean_ns : 1));
        an_ms(d, sizeof(d), in->fsync_p9999_ns);
        SAY(an_add(out->finding, &out->n_findings, "tail", "fsync"), "worst write+flush ", a, " = ", c,
            " the mean (", b, "); p99.99 ", d);
        /* a stall is sized into the buffer when it repeated (another
         * operation came within a factor of two of it); one that did not is
         * named as the single event it was, and the buffer sized for the
         * worst that repeated */
        int single = in->fsync_near_max == 1 && in->fsync_repeated_ns > 0;
        double stall = single ? in->fsync_repeated_ns : in->fsync_max_ns;
        double need = cfg->stall_rate_bps * stall / 1e9;
        char r1[24], sz[24], st[24], at[24], of[24];
        an_rate(r1, sizeof(r1), cfg->stall_rate_bps);
        an_bytes(sz, sizeof(sz), sts_d2u64(need + 0.5));
        an_ms(st, sizeof(st), stall);
        an_fixed(at, sizeof(at), in->fsync_max_at, 0);
        an_fixed(of, sizeof(of), in->fsync_count, 0);
        if (single) {
            SAY(an_add(out->finding, &out->n_findings, "single stall", "fsync"), "one stall of ",
                a, ": write+flush ", at, " of ", of, "; none other came within half of it, "
                "so it is one event, not sized into a buffer (the worst that repeated: ", st,
                ")");
            SAY(an_add(out->guideline, &out->n_guidelines, "stall buffer", "fsync"),
                "Size the RAM buffer in front of storage for the worst stall that repeated: at ",
                r1, " of data, a ", st, " stall needs at least ", sz, " (fsync: reached by two "
                "writes+flushes or more; one single ", a, " stall is in the findings); scale "
                "with your rate.");
        } else {
            SAY(an_add(out->guideline, &out->n_guidelines, "stall buffer", "fsync"),
                "Size the RAM buffer in front of storage for the worst stall: at ", r1,
                " of data, a ", a, " stall needs at least ", sz, " (fsync max); scale with "
                "your rate.");
        }
        sts_an_tier(in, out->tier, sizeof(out->tier));
        char iops[24];
        an_fixed(iops, sizeof(iops), in->fsync_iops, 0);
        SAY(an_add(out->finding, &out->n_findings, "tier", "fsync"),
            "fsync beside the published tier table (seed 001): ", out->tier, "; this run ", iops,
            " fsync/s, mean ", b, " (figures compared, not media)");
    }
}

void sts_analyze(const struct sts_an_input *in, const struct sts_an_config *cfg,
                 struct sts_analysis *out)
{
    memset(out, 0, sizeof(*out));
    out->write_knee_bytes = out->read_plateau_bytes = out->write_dip_bytes = -1;
    const struct sts_series *w = knee_section(in, cfg, out);
    plateau_section(in, cfg, out);
    dip_section(in, cfg, w, out);
    asymmetry_section(in, w, out);
    random_section(in, out);
    metadata_section(in, out);
    fsync_section(in, cfg, out);
    an_system(in, cfg, out);
    name_the_layer(in, out);
    an_probe(in, out);
    if (in->no_medium && out->n_guidelines) {
        /* a stall of null: is the host's scheduler, a knee of a RAM disk
         * the engine's cost per call: advice about them is about no device */
        out->n_guidelines = 0;
        SAY(an_add(out->finding, &out->n_findings, "no medium", "target"),
            "no guideline: ", in->target_kind, " has no medium, so its figures are storscope's "
            "and the host's own cost");
    }
}
