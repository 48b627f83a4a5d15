/* storscope probe TARGET: what is this card, really?
 *
 *   probe TARGET [--allow-destructive [--preserve]] [-o FILE] [--seed N]
 *
 * Read-only by default: it reports what the device states. With
 * --allow-destructive it writes: the counterfeit check (f3probe's method)
 * and, on managed media, the open allocation units (flashbench's
 * --open-au). --preserve saves every block before it is overwritten and
 * puts it back at the end. Exit 0: probed; 1: the card is counterfeit or a
 * step failed; 2: bad input or refused target. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_options.h"
#include "probe_identity.h"
#include "storscope/error.h"
#include "storscope/json.h"
#include "storscope/probe.h"
#include "storscope/suite.h"
#include "storscope/units.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MIN_BYTES (1u << 20)     /* smaller is no card */

struct probe_opts {
    const char *target, *output;
    int allow_destructive, preserve;
    uint64_t seed;
};

struct probe_out {
    struct identity id;
    struct sts_bd_geometry geo;
    int geo_rc;                     /* read timing: STS_OK, or why not */
    struct sts_probe_geometry timing;
    int wrote;                      /* the destructive steps ran */
    int fake_rc, au_rc, undo_rc;    /* STS_OK, or why the step failed / was skipped */
    struct sts_probe_fake fake;
    struct sts_probe_au au;
    const char *skipped;            /* why the writing steps did not run */
    const char *unmeasurable;       /* why read timing and open AUs are not looked for
                                       (an image file, a loop device); NULL: they are */
    char guide[3][160];
    int n_guide;
};

static const char *fake_kind(enum sts_probe_fake_kind k)
{
    return k == STS_FAKE_ALIAS ? "aliasing" : k == STS_FAKE_LOST ? "lost writes" : "genuine";
}

/* What a logger should do with the answers. */
static void guidelines(struct probe_out *p)
{
    char a[32], b[32];
    uint64_t au = p->wrote && !p->au_rc && p->au.limited ? p->au.au_bytes : 0;
    au = au ? au : !p->geo_rc && p->timing.visible ? p->timing.unit_bytes : 0;
    if (au) {
        sts_fmt_bytes(a, sizeof(a), au);
        snprintf(p->guide[p->n_guide++], sizeof(p->guide[0]),
                 "Align partitions and files to %s (the allocation unit, measured).", a);
    } else if (p->id.has_ssr && p->id.ssr.au_bytes) {
        /* nothing measured it (read-only, a mounted card, or noise): the
         * card's own word, said as such */
        sts_fmt_bytes(a, sizeof(a), p->id.ssr.au_bytes);
        snprintf(p->guide[p->n_guide++], sizeof(p->guide[0]),
                 "Align partitions and files to %s (the allocation unit the card states in "
                 "its SD Status; not measured).", a);
    }
    if (p->wrote && !p->au_rc && p->au.limited)
        snprintf(p->guide[p->n_guide++], sizeof(p->guide[0]),
                 "Append to at most %u files or streams at once: the card keeps %u "
                 "allocation units open; one more makes every write pay a merge.",
                 p->au.open_aus, p->au.open_aus);
    uint64_t page = !p->geo_rc && p->timing.page_bytes ? p->timing.page_bytes : 0;
    const char *how = page ? "measured" : "as the device reports it";
    page = page ? page : p->geo.page_size ? p->geo.page_size : p->geo.prog_size;
    if (page > 512) {
        sts_fmt_bytes(b, sizeof(b), page);
        snprintf(p->guide[p->n_guide++], sizeof(p->guide[0]),
                 "Write in chunks of at least %s (the page, %s).", b, how);
    }
}

static int64_t max_diff(const struct sts_probe_geometry *t)
{
    int64_t m = 0;
    for (uint32_t i = 0; i < t->n; i++)
        m = t->diff_ns[i] > m ? t->diff_ns[i] : m;
    return m;
}

/* the largest align the scan reached (of the powers of two and 3 x them) */
static uint64_t max_align(const struct sts_probe_geometry *t)
{
    uint64_t m = 0;
    for (uint32_t i = 0; i < t->n; i++)
        m = t->align[i] > m ? t->align[i] : m;
    return m;
}

static const char *fmt_align(const struct probe_out *p)
{
    static char a[32];
    sts_fmt_bytes(a, sizeof(a), max_align(&p->timing));
    return a;
}

static void print_summary(FILE *f, const char *target, const struct probe_out *p)
{
    char a[32], b[32], c[32];
    sts_fmt_bytes(a, sizeof(a), p->geo.capacity);
    sts_fmt_bytes(b, sizeof(b), p->geo.prog_size);
    sts_fmt_bytes(c, sizeof(c), p->geo.erase_size);
    fprintf(f, "probe of %s\n", target);
    fprintf(f, "  reported: capacity %s, program unit %s, erase unit %s%s\n", a, b, c,
            p->geo.flags & STS_BD_NEEDS_ERASE ? " (raw flash)" : "");
    probe_identity_print(f, &p->id);
    if (p->unmeasurable) {
        fprintf(f, "  read timing: not measurable: %s\n", p->unmeasurable);
    } else if (p->geo_rc == STS_ENOTSUP) {
        fprintf(f, "  read timing: not applicable (raw flash states its geometry)\n");
    } else if (p->geo_rc) {
        fprintf(f, "  read timing: failed: %s\n", sts_strerror(p->geo_rc));
    } else if (p->timing.unresolved) {
        fprintf(f, "  read timing: not resolved within the noise: steps of up to %.0f us "
                   "came and went between aligns, beside reads of %.0f us (%.3f s); nothing "
                   "claimed\n",
                (double)p->timing.top_step_ns / 1e3, (double)p->timing.read_ns / 1e3,
                (double)p->timing.device_ns / 1e9);
    } else if (!p->timing.visible) {
        fprintf(f, "  read timing: no boundary costs a read more, up to %s (%.3f s)\n",
                fmt_align(p), (double)p->timing.device_ns / 1e9);
    } else {
        char pg[32], un[40];
        sts_fmt_bytes(pg, sizeof(pg), p->timing.page_bytes);
        if (p->timing.unit_bytes)
            sts_fmt_bytes(un, sizeof(un), p->timing.unit_bytes);
        else if (max_align(&p->timing) < p->geo.erase_size)
            snprintf(un, sizeof(un), "beyond %s", fmt_align(p)); /* the scan's reach */
        else /* reached, but a read across it costs nothing more */
            snprintf(un, sizeof(un), "not seen");
        fprintf(f, "  read timing: page %s, erase unit %s (a %u B read across costs %.0f us "
                   "more; %.3f s)\n",
                p->timing.page_bytes ? pg : "not seen", un, p->timing.read_bytes,
                (double)max_diff(&p->timing) / 1e3, (double)p->timing.device_ns / 1e9);
    }
    if (!p->wrote) {
        fprintf(f, "  not measured: %s\n", p->skipped);
    } else {
        if (p->fake_rc) {
            fprintf(f, "  capacity check failed: %s\n", sts_strerror(p->fake_rc));
        } else {
            sts_fmt_bytes(a, sizeof(a), p->fake.usable_bytes);
            sts_fmt_bytes(b, sizeof(b), p->fake.claimed_bytes);
            fprintf(f, "  capacity: %s: %s usable of %s claimed (%u blocks written, %.3f s of device time)\n",
                    p->fake.kind == STS_FAKE_GENUINE ? "genuine" : "COUNTERFEIT",
                    a, b, p->fake.blocks_written, (double)p->fake.device_ns / 1e9);
            if (p->fake.kind != STS_FAKE_GENUINE)
                fprintf(f, "    beyond %s, %s\n", a,
                        p->fake.kind == STS_FAKE_ALIAS ? "writes wrap round onto the card's start"
                                                       : "writes are lost");
            if (p->fake.cache_bytes == UINT64_MAX) {
                fprintf(f, "    a controller cache answers reads of blocks the card cannot hold, "
                           "larger than the %llu MiB the probe rewrites to push it out: the real "
                           "size may be smaller\n",
                        (unsigned long long)(STS_PROBE_CACHE_MAX >> 20));
            } else if (p->fake.cache_bytes) {
                sts_fmt_bytes(a, sizeof(a), p->fake.cache_bytes);
                sts_fmt_bytes(b, sizeof(b), p->fake.evict_bytes_written);
                fprintf(f, "    a controller cache of about %s answers reads of blocks the card "
                           "cannot hold: before each check the probe rewrote enough to push it out (%s in all)\n", a, b);
            }
        }
        if (p->unmeasurable) {
            fprintf(f, "  open allocation units: not measurable: %s\n", p->unmeasurable);
        } else if (p->au_rc == STS_ENOTSUP) {
            fprintf(f, "  open allocation units: not applicable (raw flash has no controller)\n");
        } else if (p->au_rc == STS_EINVAL) {
            fprintf(f, "  open allocation units: not measured: too small to space %u streams "
                       "1 MiB apart\n", (unsigned)(STS_PROBE_MAX_STREAMS + 1));
        } else if (p->au_rc) {
            fprintf(f, "  open allocation units: failed: %s\n", sts_strerror(p->au_rc));
        } else if (!p->au.limited) {
            fprintf(f, "  open allocation units: no limit found up to %u streams\n",
                    p->au.streams_tried);
        } else {
            sts_fmt_bytes(a, sizeof(a), p->au.au_bytes);
            uint32_t n = p->au.open_aus + 1;
            fprintf(f, "  open allocation units: %u, of %s each (median write with %u streams "
                       "in turn %.2f ms, one stream writing as much %.2f ms; %.3f s of device "
                       "time)\n",
                    p->au.open_aus, p->au.au_bytes ? a : "unknown size", n,
                    (double)p->au.median_ns[n] / 1e6, (double)p->au.single_ns[n] / 1e6,
                    (double)p->au.device_ns / 1e9);
        }
        if (p->undo_rc != STS_ENOENT)
            fprintf(f, "  medium %s\n", p->undo_rc ? "NOT fully restored (--preserve failed)"
                                                   : "restored (--preserve)");
    }
    for (int i = 0; i < p->n_guide; i++)
        fprintf(f, "  guideline: %s\n", p->guide[i]);
}

static void u64_array(struct sts_jw *w, const char *key, const uint64_t *v, uint32_t n)
{
    sts_jw_array(w, key, 1);
    for (uint32_t i = 0; i < n; i++)
        sts_jw_u64(w, NULL, v[i]);
    sts_jw_end(w);
}

static void json_probe(struct sts_jw *w, const struct probe_out *p)
{
    sts_jw_object(w, "probe");
    sts_jw_object(w, "reported");
    sts_jw_u64(w, "capacity_bytes", p->geo.capacity);
    sts_jw_u64(w, "program_bytes", p->geo.prog_size);
    sts_jw_u64(w, "page_bytes", p->geo.page_size);
    sts_jw_u64(w, "erase_bytes", p->geo.erase_size);
    sts_jw_bool(w, "raw_flash", (p->geo.flags & STS_BD_NEEDS_ERASE) != 0);
    sts_jw_end(w);
    probe_identity_json(w, &p->id);
    sts_jw_object(w, "read_timing");
    sts_jw_str(w, "status", p->unmeasurable             ? "not_measurable"
                            : p->geo_rc == STS_ENOTSUP   ? "not_applicable"
                            : p->geo_rc                  ? sts_strerror(p->geo_rc)
                            : p->timing.unresolved       ? "not_resolved"
                                                         : "ok");
    if (p->unmeasurable)
        sts_jw_str(w, "why", p->unmeasurable);
    else if (!p->geo_rc && p->timing.unresolved)
        sts_jw_str(w, "why", "steps came and went between aligns, or stood under a tenth of "
                             "a read: noise hides the answer");
    sts_jw_bool(w, "visible", p->timing.visible);
    sts_jw_u64(w, "page_bytes", p->timing.page_bytes);
    sts_jw_u64(w, "unit_bytes", p->timing.unit_bytes);
    sts_jw_u64(w, "read_bytes", p->timing.read_bytes);
    u64_array(w, "align_bytes", p->timing.align, p->timing.n);
    sts_jw_array(w, "diff_ns", 1);
    for (uint32_t i = 0; i < p->timing.n; i++)
        sts_jw_i64(w, NULL, p->timing.diff_ns[i]);
    sts_jw_end(w);
    sts_jw_u64(w, "device_ns", p->timing.device_ns);
    sts_jw_end(w);
    sts_jw_bool(w, "destructive", p->wrote);
    if (!p->wrote)
        sts_jw_str(w, "not_measured", p->skipped);
    if (p->wrote) {
        sts_jw_object(w, "capacity");
        sts_jw_str(w, "status", p->fake_rc ? sts_strerror(p->fake_rc) : "ok");
        sts_jw_str(w, "kind", fake_kind(p->fake.kind));
        sts_jw_u64(w, "claimed_bytes", p->fake.claimed_bytes);
        sts_jw_u64(w, "usable_bytes", p->fake.usable_bytes);
        sts_jw_u64(w, "block_bytes", p->fake.block_bytes);
        sts_jw_u64(w, "grid_bytes", p->fake.grid_bytes);
        sts_jw_u64(w, "prefix_bytes", p->fake.prefix_bytes);
        if (p->fake.cache_bytes == UINT64_MAX)
            sts_jw_str(w, "cache", "larger than the probe outlasts");
        else
            sts_jw_u64(w, "cache_bytes", p->fake.cache_bytes);
        sts_jw_u64(w, "evict_bytes_written", p->fake.evict_bytes_written);
        sts_jw_u64(w, "blocks_written", p->fake.blocks_written);
        sts_jw_u64(w, "blocks_read", p->fake.blocks_read);
        sts_jw_u64(w, "bad_blocks", p->fake.bad_blocks);
        sts_jw_u64(w, "device_ns", p->fake.device_ns);
        sts_jw_end(w);
        sts_jw_object(w, "open_aus");
        sts_jw_str(w, "status", p->unmeasurable           ? "not_measurable"
                                : p->au_rc == STS_ENOTSUP  ? "not_applicable"
                                : p->au_rc == STS_EINVAL ? "too_small"
                                : p->au_rc               ? sts_strerror(p->au_rc)
                                                         : "ok");
        if (p->unmeasurable)
            sts_jw_str(w, "why", p->unmeasurable);
        sts_jw_bool(w, "limited", p->au.limited);
        sts_jw_u64(w, "open_aus", p->au.open_aus);
        sts_jw_u64(w, "streams_tried", p->au.streams_tried);
        sts_jw_u64(w, "au_bytes", p->au.au_bytes);
        sts_jw_u64(w, "write_bytes", p->au.write_bytes);
        sts_jw_u64(w, "spacing_bytes", p->au.spacing_bytes);
        u64_array(w, "median_write_ns", p->au.median_ns + 1, p->au.streams_tried);
        u64_array(w, "single_stream_write_ns", p->au.single_ns + 1, p->au.streams_tried);
        sts_jw_u64(w, "device_ns", p->au.device_ns);
        sts_jw_end(w);
        sts_jw_bool(w, "restored", p->undo_rc == STS_OK);
    }
    sts_jw_array(w, "guidelines", 0);
    for (int i = 0; i < p->n_guide; i++)
        sts_jw_str(w, NULL, p->guide[i]);
    sts_jw_end(w);
    sts_jw_end(w);
}

/* The whole document, storscope-result/1 with no tests and a probe. */
static int write_json(struct cli_out *out, const struct probe_opts *o, const struct sts_target *t,
                      const struct probe_out *p, uint64_t elapsed_ns, const char *status)
{
    static struct sts_jw w;
    sts_jw_init(&w, cli_out_write, out, 1);
    char started[32];
    time_t now = time(NULL);
    strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    sts_jw_object(&w, NULL);
    sts_jw_str(&w, "schema", STS_RESULT_SCHEMA);
    sts_jw_object(&w, "tool");
    sts_jw_str(&w, "name", "storscope");
    sts_jw_str(&w, "version", STORSCOPE_VERSION);
    sts_jw_end(&w);
    sts_jw_object(&w, "run");
    sts_jw_str(&w, "target", o->target);
    sts_jw_str(&w, "target_kind", t->kind);
    sts_jw_str(&w, "suite", "probe");
    sts_jw_str(&w, "scale", "quick");
    sts_jw_u64(&w, "seed", o->seed);
    sts_jw_bool(&w, "verify", 0);
    sts_jw_str(&w, "started_at", started);
    sts_jw_end(&w);
    sts_jw_object(&w, "environment");
    for (size_t i = 0; i < t->n_env; i++)
        sts_jw_kv(&w, &t->env[i]);
    sts_jw_end(&w);
    sts_jw_array(&w, "warnings", 0);
    for (size_t i = 0; i < t->n_warnings; i++)
        sts_jw_str(&w, NULL, t->warnings[i]);
    sts_jw_end(&w);
    sts_jw_array(&w, "tests", 0);
    sts_jw_end(&w);
    sts_jw_str(&w, "status", status);
    sts_jw_bool(&w, "interrupted", !strcmp(status, "interrupted"));
    sts_jw_u64(&w, "elapsed_ns", elapsed_ns);
    sts_jw_u64(&w, "tests_ok", 0);
    sts_jw_u64(&w, "tests_failed", 0);
    sts_jw_u64(&w, "tests_not_applicable", 0);
    json_probe(&w, p);
    sts_jw_end(&w);
    sts_jw_raw_newline(&w);
    return sts_jw_flush(&w) || sts_jw_error(&w);
}

#define PO(f) CLI_AT(0, struct probe_opts, f)
static const struct cli_opt probe_opts_table[] = {
    {"allow-destructive", 0, CLI_FLAG, "",
     "write to the device: the counterfeit-capacity and "
     "open-AU tests (destroys its data unless --preserve)",
     PO(allow_destructive)},
    {"preserve", 0, CLI_FLAG, "",
     "with --allow-destructive: put back every block it overwrote", PO(preserve)},
    {"output", 'o', CLI_FILE, "FILE", "write the JSON results (storscope-result/1) to FILE",
     PO(output)},
    {"seed", 0, CLI_COUNT, "N", "seed of the patterns it writes (default: 1)", PO(seed),
     .hint = "a whole number"},
};

const struct cli_command cli_probe_command = {
    "probe",
    "usage: storscope probe TARGET [options]\n"
    "\n"
    "What a card really is: its page and allocation unit by read timing, and with\n"
    "--allow-destructive its real capacity (a counterfeit) and the allocation units\n"
    "it keeps open. TARGET: raw:DEVICE_OR_IMAGE or sim:PROFILE[,options].\n"
    "\n",
    probe_opts_table, sizeof(probe_opts_table) / sizeof(probe_opts_table[0]),
    "\nRead-only unless --allow-destructive. Exit 1 when the card is counterfeit or a\n"
    "step failed.\n"};

static int parse(int argc, char **argv, struct probe_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->seed = 1;
    void *const into[] = {o};
    int first = cli_parse(&cli_probe_command, argc, argv, into, NULL);
    if (first == CLI_HELP_SHOWN)
        return -1;
    if (first < 0)
        return EXIT_USAGE;
    if (first != argc - 1) {
        cli_error("probe needs one TARGET (raw:/dev/mmcblk0, raw:card.img, sim:sd-consumer)");
        return EXIT_USAGE;
    }
    o->target = argv[first];
    if (o->preserve && !o->allow_destructive) {
        cli_error("--preserve only matters with --allow-destructive (read-only probes write "
                  "nothing)");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

static int open_target(const struct probe_opts *o, struct sts_target *t,
                       struct sts_target_spec *out_spec)
{
    struct sts_target_spec spec;
    const char *why = NULL;
    if (sts_target_spec_parse(o->target, &spec, &why)) {
        cli_error("bad target '%s': %s", o->target, why);
        return EXIT_USAGE;
    }
    if (strcmp(spec.kind, "raw") && strcmp(spec.kind, "sim")) {
        cli_error("probe looks at a device: give raw:DEVICE_OR_IMAGE or sim:PROFILE, not %s: "
                  "(a filesystem hides the card's geometry)", spec.kind);
        return EXIT_USAGE;
    }
    if (spec.fs[0]) {
        cli_error("probe looks at the device under a filesystem: drop '+%s' from %s", spec.fs,
                  o->target);
        return EXIT_USAGE;
    }
    const struct sts_target_kind *kind = cli_find_kind(spec.kind);
    memset(t, 0, sizeof(*t));
    t->seed = o->seed;
    t->allow_destructive = o->allow_destructive;
    char err[1024] = "";
    int rc = kind ? kind->open(t, &spec, err, sizeof(err)) : STS_ENOENT;
    if (rc == STS_EBUSY) {
        /* a mounted card (a Pi's boot card): what it says about itself is
         * in sysfs, read without touching the device; the probe proper is
         * refused below */
        static struct identity id;
        probe_identity(&spec, &id);
        if (id.dir[0]) {
            printf("probe of %s (identity only: the device is in use)\n", o->target);
            probe_identity_print(stdout, &id);
            fflush(stdout);
        }
    }
    if (rc) {
        cli_error("%s", err[0] ? err : sts_strerror(rc));
        return rc == STS_EIO ? EXIT_RUN_FAILED : EXIT_USAGE;
    }
    if (!t->bd) {
        cli_error("%s has no block device to probe", o->target);
        kind->close(t);
        return EXIT_USAGE;
    }
    *out_spec = spec;
    return EXIT_OK;
}

/* Ctrl-C, SIGTERM, SIGHUP: the probe stops at its next command, puts
 * back what it saved (--preserve), and its JSON says it was interrupted. */
static volatile int stop_signal;
static void on_signal(int sig)
{
    (void)sig;
    stop_signal = 1;
}

/* The steps that write (--allow-destructive): the capacity check, then
 * the read timing and the open allocation units on what is real, then
 * (--preserve) every block put back. 0, or EXIT_RUN_FAILED when --preserve
 * cannot have its memory (said). */
static int destructive_steps(const struct probe_opts *o, const struct sts_target *t, uint8_t *buf,
                             struct probe_out *p, struct cli_undo_mem *undo_mem)
{
    struct sts_probe_undo undo = {NULL, 0, 0};
    char why[256];
    if (o->preserve && cli_undo_alloc(undo_mem, p->geo.capacity, why, sizeof(why))) {
        cli_error("--preserve: %s", why);
        return EXIT_RUN_FAILED;
    }
    undo.mem = undo_mem->mem;
    undo.cap = o->preserve ? (size_t)undo_mem->bytes : 0;
    /* what it costs, said before it is spent: the capacity check's
     * samples (1/256 of the capacity, at least 16 MiB), the read
     * timing's 1 MiB and, where no open-AU limit turns up, up to ~100 MiB
     * of streams (cli_undo_need) */
    char cost[32], kept[32];
    sts_fmt_bytes(cost, sizeof(cost), cli_undo_need(p->geo.capacity));
    sts_fmt_bytes(kept, sizeof(kept), undo_mem->bytes);
    fprintf(stderr, "storscope: the destructive steps write up to %s to %s (more on a "
                    "counterfeit whose cache must be pushed out: said if found)%s%s%s\n", cost,
            o->target, o->preserve ? " (kept to put back: " : "", o->preserve ? kept : "",
            o->preserve ? (undo_mem->mapped ? ", in a temporary file)" : ", in memory)") : "");
    struct sts_probe_env env = {*t->bd, t->clock, buf, 2 * STS_PROBE_MAX_BLOCK,
                                o->preserve ? &undo : NULL, o->seed, 0, &stop_signal};
    p->wrote = 1;
    p->fake_rc = buf ? sts_probe_fake(&env, &p->fake) : STS_ENOMEM;
    if (!p->fake_rc)
        env.usable_bytes = p->fake.usable_bytes;
    if (!p->unmeasurable) {
        p->geo_rc = buf ? sts_probe_geometry(&env, &p->timing) : STS_ENOMEM;
        p->au_rc = buf ? sts_probe_open_aus(&env, &p->au) : STS_ENOMEM;
    }
    if (o->preserve)
        p->undo_rc = sts_probe_undo(&env);
    return 0;
}

/* A step failed (a step the medium cannot do, or one skipped, is not). */
static int a_step_failed(const struct probe_out *p)
{
    return (p->geo_rc && p->geo_rc != STS_ENOTSUP) ||
           (p->wrote && (p->fake_rc || (p->au_rc && p->au_rc != STS_ENOTSUP && p->au_rc != STS_EINVAL) ||
                         (p->undo_rc && p->undo_rc != STS_ENOENT)));
}

int cmd_probe(int argc, char **argv)
{
    struct probe_opts o;
    int code = parse(argc, argv, &o);
    if (code)
        return code < 0 ? EXIT_OK : code;
    cli_catch_stop_signals(on_signal);
    stop_signal = 0;
    struct sts_target t;
    static struct sts_target_spec spec;
    code = open_target(&o, &t, &spec);
    if (code)
        return code;
    /* opened before the medium is touched: a name it cannot write is said
     * before a probe that may take minutes, not after */
    static struct cli_out out;
    if (o.output && cli_out_open(&out, "-o", o.output)) {
        cli_find_kind(t.kind)->close(&t);
        return EXIT_USAGE;
    }
    static struct probe_out p;
    memset(&p, 0, sizeof(p));
    probe_identity(&spec, &p.id);
    p.undo_rc = STS_ENOENT;
    t.bd->ops->geometry(t.bd->ctx, &p.geo);
    if (p.geo.capacity < MIN_BYTES) {
        char a[32];
        sts_fmt_bytes(a, sizeof(a), p.geo.capacity);
        cli_error("%s is too small to probe (%s; at least 1 MiB)", o.target, a);
        cli_out_close(&out, 0);
        cli_find_kind(t.kind)->close(&t);
        return EXIT_USAGE;
    }
    uint64_t t0 = sts_clock_now(&t.clock);
    uint8_t *buf = malloc(2 * STS_PROBE_MAX_BLOCK);
    struct sts_probe_env ro = {*t.bd, t.clock, buf, 2 * STS_PROBE_MAX_BLOCK, NULL, o.seed, 0,
                               &stop_signal};
    int writing = o.allow_destructive && !(t.flags & STS_T_READ_ONLY);
    /* an image's read timing is its filesystem's extents and the page
     * cache: 32 KiB "allocation units" came out of a plain file, 2 to 20
     * open units out of a loop device (issue 41.3) */
    if (t.flags & STS_T_HOST_BACKED)
        p.unmeasurable = "an image file or a loop device has no allocation units: its "
                         "timings are the host's filesystem and page cache";
    if (!writing && !p.unmeasurable) /* (when writing, after the capacity check) */
        p.geo_rc = buf ? sts_probe_geometry(&ro, &p.timing) : STS_ENOMEM;
    struct cli_undo_mem undo_mem = {NULL, 0, 0};
    if (!writing) {
        p.skipped = "the capacity check and open allocation units write to the medium: "
                    "run with --allow-destructive (and --preserve to put every block back)";
    } else if (destructive_steps(&o, &t, buf, &p, &undo_mem)) {
        free(buf);
        cli_out_close(&out, 0);
        cli_find_kind(t.kind)->close(&t);
        return EXIT_RUN_FAILED;
    }
    guidelines(&p);
    uint64_t elapsed = sts_clock_now(&t.clock) - t0;
    int counterfeit = p.wrote && !p.fake_rc && p.fake.kind != STS_FAKE_GENUINE;
    int failed = a_step_failed(&p);
    print_summary(stdout, o.target, &p);
    int interrupted = stop_signal != 0;
    if (interrupted)
        cli_error("stopped by a signal%s", !p.wrote         ? ""
                                           : p.undo_rc == 0 ? "; every overwritten block put back"
                                           : o.preserve     ? "; NOT every block could be put back"
                                                            : "; blocks written so far keep the probe's data");
    const char *status = interrupted ? "interrupted" : failed ? "failed" : "ok";
    /* (a failed write leaves the stream's error set: the close says it and
     * removes the partial document) */
    if (o.output && (write_json(&out, &o, &t, &p, elapsed, status) | cli_out_close(&out, 1)))
        failed = 1;
    free(buf);
    cli_undo_free(&undo_mem);
    cli_find_kind(t.kind)->close(&t);
    return interrupted ? EXIT_INTERRUPTED : failed || counterfeit ? EXIT_RUN_FAILED : EXIT_OK;
}
