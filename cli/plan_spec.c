/* storscope plan: the logger's streams and medium, read and checked before
 * anything runs, and the configurations to judge. */
#define _POSIX_C_SOURCE 200809L
#include "plan.h"
#include "storscope/sensorlog_fs.h"
#include "storscope/sim.h"
#include "storscope/target.h"
#include "storscope/units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define STREAM_FORM "NAME:RATEHz:SIZEB[:burst=N][,...], e.g. imu:1000Hz:12B"

/* A whole number at *p with an optional unit word (case ignored) after it:
 * 0, or -1 when there is no number or another word. */
static int number_with_unit(const char **p, const char *unit, uint64_t *v)
{
    const char *s = *p;
    char *end = NULL;
    if (*s < '0' || *s > '9')
        return -1;
    unsigned long long x = strtoull(s, &end, 10);
    size_t n = strlen(unit);
    if (!strncasecmp(end, unit, n))
        end += n;
    if (*end && *end != ':' && *end != ',')
        return -1;
    *p = end;
    *v = x;
    return 0;
}

static const char *read_stream(const char **pp, struct plan_stream *st, char *why, size_t len)
{
    const char *p = *pp;
    size_t k = 0;
    while (*p && *p != ':' && *p != ',') {
        char c = *p++;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '-';
        if (!ok || k + 1 >= sizeof(st->name)) {
            snprintf(why, len, "bad --streams: a stream's name is 1 to %zu letters, digits, '_' "
                     "or '-' (" STREAM_FORM ")", sizeof(st->name) - 1);
            return why;
        }
        st->name[k++] = c;
    }
    st->name[k] = '\0';
    uint64_t hz = 0, bytes = 0;
    if (!k || *p++ != ':' || number_with_unit(&p, "hz", &hz) || *p++ != ':' ||
        number_with_unit(&p, "b", &bytes)) {
        snprintf(why, len, "bad --streams near '%.40s' (expected " STREAM_FORM ")", *pp);
        return why;
    }
    uint64_t burst = 1;
    if (!strncmp(p, ":burst=", 7)) {
        p += 7;
        if (number_with_unit(&p, "", &burst) || burst < 1 || burst > 100000) {
            snprintf(why, len, "--streams: %s's burst must be 1 to 100000 records "
                     "(" STREAM_FORM ")", st->name);
            return why;
        }
    }
    if (*p == ':') {
        snprintf(why, len, "--streams: '%.40s': no such stream option (burst=N is the one "
                 "there is; " STREAM_FORM ")", p + 1);
        return why;
    }
    if (hz < 1 || hz > 1000000) {
        snprintf(why, len, "--streams: %s's rate must be 1 to 1000000 Hz", st->name);
        return why;
    }
    if (bytes < 1 || bytes > STS_SLFS_RECORD_MAX) {
        snprintf(why, len, "--streams: %s's records of %llu B: a record must be 1 to %u B "
                 "(the largest record L1 and sensorlog take)", st->name,
                 (unsigned long long)bytes, STS_SLFS_RECORD_MAX);
        return why;
    }
    st->rate_hz = (uint32_t)hz;
    st->record_bytes = (uint32_t)bytes;
    st->burst = (uint32_t)burst;
    *pp = *p == ',' ? p + 1 : p;
    return NULL;
}

static const char *read_streams(const char *text, struct plan_spec *spec, char *why, size_t len)
{
    spec->n = 0;
    spec->payload_bps = spec->records_per_s = 0;
    spec->l1_streams[0] = '\0';
    for (const char *p = text; *p;) {
        if (spec->n == PLAN_MAX_STREAMS) {
            snprintf(why, len, "--streams: at most %d streams", PLAN_MAX_STREAMS);
            return why;
        }
        struct plan_stream *st = &spec->s[spec->n];
        if (read_stream(&p, st, why, len))
            return why;
        for (uint32_t i = 0; i < spec->n; i++)
            if (!strcmp(spec->s[i].name, st->name)) {
                snprintf(why, len, "--streams: two streams are named '%s'", st->name);
                return why;
            }
        char one[64], burst[24] = "";
        if (st->burst > 1)
            snprintf(burst, sizeof(burst), ":burst=%u", st->burst);
        snprintf(one, sizeof(one), "%s%s:%ux%u%s", spec->n ? "," : "", st->name, st->rate_hz,
                 st->record_bytes, burst);
        sts_strlcat(spec->l1_streams, one, sizeof(spec->l1_streams));
        spec->payload_bps += (double)st->rate_hz * st->record_bytes;
        spec->records_per_s += st->rate_hz;
        spec->n++;
    }
    if (!spec->n) {
        snprintf(why, len, "--streams names no stream (" STREAM_FORM ")");
        return why;
    }
    return NULL;
}

/* The medium alone (the plan chooses the store), a known profile; its
 * capacity as its parameters leave it. */
static const char *read_medium(const char *text, struct plan_spec *spec, char *why, size_t len)
{
    struct sts_target_spec t;
    const char *bad = NULL;
    if (sts_target_spec_parse(text, &t, &bad)) {
        snprintf(why, len, "bad --medium '%s': %s", text, bad);
        return why;
    }
    if (strcmp(t.kind, "sim") || t.fs[0]) {
        snprintf(why, len, "--medium takes a simulated medium alone, sim:PROFILE[,PARAM=VALUE"
                 "...] (storscope list devices), not '%s': the plan chooses the store", text);
        return why;
    }
    const struct sts_sim_params *prof = sts_sim_profile_find(t.arg);
    if (!prof) {
        snprintf(why, len, "--medium: no profile '%s' (storscope list devices)", t.arg);
        return why;
    }
    struct sts_sim_params params = *prof;
    struct sts_sim_noise noise = {0};
    for (uint32_t i = 0; i < t.n_opts; i++) {
        const char *bad_noise = NULL;
        (void)sts_sim_noise_parse(&noise, t.opts[i].key, t.opts[i].value, &bad_noise);
        int refused = sts_sim_param_set(&params, t.opts[i].key, t.opts[i].value);
        if (refused && !strcmp(t.opts[i].key, "capacity")) {
            snprintf(why, len, "--medium: bad capacity '%s'", t.opts[i].value);
            return why;
        } /* (other options - seed=, fill= - are the run's to check) */
    }
    spec->capacity_bytes = params.capacity;
    spec->suspends_erases = params.erase_suspend_ns > 0 && !params.managed;
    spec->endurance = params.endurance;
    spec->erase_bytes = params.erase_bytes;
    spec->energy_modelled = params.supply_mv > 0;
    /* (a bad noise value is the first run's to refuse, with the model's words) */
    spec->noisy = noise.cv_permille || noise.stall_rate_millihz || noise.bimodal_permille ||
                  noise.drift_cv_permille;
    return NULL;
}

const char *plan_spec_read(const struct plan_opts *o, struct plan_spec *spec, char *why,
                           size_t why_len)
{
    memset(spec, 0, sizeof(*spec));
    if (read_streams(o->streams, spec, why, why_len) ||
        read_medium(o->medium, spec, why, why_len))
        return why;
    return NULL;
}

/* Sensorlog's segments: 1 MiB, or larger where that keeps the segment
 * table (32 B a segment in the logger's RAM) to 64 entries or fewer. */
static uint64_t segment_for(uint64_t capacity)
{
    uint64_t seg = 1u << 20;
    while (capacity / seg > 64 && seg < (1u << 30))
        seg *= 2;
    return seg;
}

size_t plan_runs(const struct plan_opts *o, const struct plan_spec *spec, struct plan_run *runs,
                 size_t max)
{
    /* L1's buffers from its least (256 B) by doubling to the RAM given, or
     * 64 KiB if that is more, so a plan that fits nothing can say what the
     * smallest lossless configuration needs */
    uint64_t top = o->ram_bytes > (64u << 10) ? o->ram_bytes : (64u << 10);
    top = top < (1u << 20) ? top : (1u << 20);
    /* syncs: twice, 4 and 16 times as often as the loss allowed (never
     * under 1 ms). Not once: a cut just before a sync ends takes the
     * interval's records and those that came during the sync, more than
     * the interval (the measured at-risk figure the plan judges) */
    uint64_t syncs[3] = {o->lose_ns / 2, o->lose_ns / 4, o->lose_ns / 16};
    /* sensorlog's ring: 512 B (a record of its largest size takes 267),
     * 4 KiB and 16 KiB */
    static const uint64_t rings[] = {512, 4096, 16384};
    uint64_t seg = segment_for(spec->capacity_bytes);
    size_t n = 0;
    /* sensorlog's runs first: the first run runs alone and a failure there
     * stops the plan, and bare extents can fail on a small medium where a
     * log that wraps runs (an hour of the study's streams on a 16 MiB NOR) */
    static const int order[] = {1, 2, 3, 0}; /* rings[k - 1]; 0: bare extents */
    for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
        int store = order[k];
        for (uint64_t buf = 256; buf <= top; buf *= 2)
            for (int y = 0; y < 3; y++) {
                if (syncs[y] < 1000000 || (y && syncs[y] == syncs[y - 1]))
                    continue;
                if (n == max)
                    return n;
                struct plan_run *r = &runs[n++];
                r->buffer_bytes = buf;
                r->sync_ns = syncs[y];
                if (!store) {
                    snprintf(r->target, sizeof(r->target), "%s", o->medium);
                    snprintf(r->store, sizeof(r->store), "bare extents");
                    continue;
                }
                /* a file per stream, and the I/O task's one log */
                /* on a chip that suspends erases, 2 ms slices: the writer
                 * waits for a slice, not for an erase (0.6 s worst stall
                 * against 14 ms on sim:nor-spi, bench/README) */
                snprintf(r->target, sizeof(r->target),
                         "%s+sensorlog,files=%u,buffer=%llu,segment=%llu%s", o->medium,
                         spec->n + 1, (unsigned long long)rings[store - 1],
                         (unsigned long long)seg, spec->suspends_erases ? ",erase_slice=2ms" : "");
                char ring[16], segs[16];
                sts_fmt_bytes(ring, sizeof(ring), rings[store - 1]);
                sts_fmt_bytes(segs, sizeof(segs), seg);
                snprintf(r->store, sizeof(r->store), "sensorlog, %s ring, %s segments%s", ring,
                         segs, spec->suspends_erases ? ", 2 ms erase slices" : "");
            }
    }
    return n;
}
