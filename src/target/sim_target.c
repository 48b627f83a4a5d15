#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
/* Target kind "sim:PROFILE[,key=value...][+FS[,key=value...]]": a device
 * model under extentfs (files as bare extents) or whatever filesystem the
 * seam stacks on it (fs_stack.h), run in the model's virtual time. Keys are the profile's parameters (see
 * `storscope list devices` and docs/device-models.md) plus seed=, fill=
 * (percent of the medium already holding data), prefill= (old data from
 * before: random, pattern or an image, sim_prefill.c), data=0|1, pack=0|1
 * (cold pages kept as runs of the pattern: bd/sim/store.c) and clock=;
 * sensorlog takes chunk=, segment= and buffer= (bytes). */
#include "storscope/error.h"
#include "storscope/fs_stack.h"
#include "storscope/sensorlog_fs.h"
#include "storscope/fakebd.h"
#include "storscope/faultbd.h"
#include "storscope/sim.h"
#include "storscope/target.h"
#include "storscope/units.h"

#include "storscope/port.h"

#include <pthread.h>
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sim_target {
    struct sts_sim sim;
    struct sts_bd bd;        /* the model; in real time, wrapped by `timed` */
    struct sts_bd timed;
    struct sts_fakebd fake;  /* fake=: bd claims more than the model holds */
    void *fake_cache;        /* fake_cache=: its controller's RAM */
    struct sts_faultbd fault; /* dev_fail_*: over bd (or timed) */
    struct sts_bd faulty;
    int real;
    pthread_mutex_t lock;    /* real time: one command at a time, as on hardware */
    struct sts_sim_counters last;
    void *arena;             /* mapped: see arena_map */
    size_t arena_bytes;
    struct sts_fs_stack *fs; /* what stacks on the model (fs_stack.h) */
    char prefill[STS_SPEC_ARG_MAX]; /* prefill=, as given (the run's environment names it) */
};

/* The model's arena as fresh anonymous memory, reserved but not committed
 * (MAP_NORESERVE): the kernel backs a page only when it is written, so a
 * model's memory grows with the data written to it and its block table,
 * not with its capacity (a 1 TiB NVMe profile keeping data costs what the
 * tests write). NULL when even the address space is not there. */
static void *arena_map(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

#if STS_SIM_PACK
/* What the store no longer holds pages in goes back to the kernel: the
 * arena is private anonymous memory, so the next write there finds zeros,
 * which an unused slot may hold. */
static void arena_release(void *ctx, void *addr, size_t len)
{
    (void)ctx;
    (void)madvise(addr, len, MADV_DONTNEED);
}
#endif

static void arena_unmap(struct sim_target *st)
{
    if (st->arena)
        munmap(st->arena, st->arena_bytes);
    st->arena = NULL;
}

static int sim_after_cut(struct sts_target *t, struct sts_cut_check *out);

static size_t sim_counters(struct sts_target *t, struct sts_kv *out, size_t max)
{
    struct sim_target *st = t->impl;
    return sts_sim_counters_kv(&st->sim, &st->last, out, max);
}

/* clock=real: each command holds the device for its modelled duration of
 * wall time, so threads that share the device queue behind each other. */
static void hold(struct sim_target *st, uint64_t virt0, uint64_t wall0)
{
    sts_port_wait_until(wall0 + (st->sim.now_ns - virt0));
}
#define TIMED(call)                                                      \
    struct sim_target *st = ctx;                                         \
    pthread_mutex_lock(&st->lock);                                       \
    uint64_t v0 = st->sim.now_ns, w0 = sts_clock_now(sts_port_clock());  \
    int rc = call;                                                       \
    hold(st, v0, w0);                                                    \
    pthread_mutex_unlock(&st->lock);                                     \
    return rc
static int rt_read(void *ctx, uint64_t a, void *b, size_t n)
{
    TIMED(st->bd.ops->read(st->bd.ctx, a, b, n));
}
static int rt_program(void *ctx, uint64_t a, const void *b, size_t n)
{
    TIMED(st->bd.ops->program(st->bd.ctx, a, b, n));
}
static int rt_erase(void *ctx, uint64_t a, uint64_t n)
{
    TIMED(st->bd.ops->erase(st->bd.ctx, a, n));
}
static int rt_flush(void *ctx)
{
    TIMED(st->bd.ops->flush(st->bd.ctx));
}
#undef TIMED
static void rt_geometry(void *ctx, struct sts_bd_geometry *g)
{
    struct sim_target *st = ctx;
    st->bd.ops->geometry(st->bd.ctx, g);
}
static const struct sts_bd_ops real_time_ops = {
    .version = STS_BD_OPS_VERSION, rt_read, rt_program, rt_erase, rt_flush, rt_geometry, NULL, NULL,
    NULL
};

/* What sim:PROFILE,key=value... asks for, read and checked before the
 * model exists. */
struct sim_opts {
    struct sts_sim_params p; /* the profile with its parameters set */
    uint64_t claimed;        /* the capacity the device reports (fake=: more than p's) */
    uint64_t seed, fill;     /* fill: percent */
    int keep, real, fake_lost, pack;
    const char *prefill;
    uint64_t fake_real, fake_cache;
    struct sts_sim_faults faults;
    struct sts_sim_noise noise;
    struct sts_fault_config dev_fault; /* dev_fail_*: the k-th device command fails */
    int dev_inject;
};

/* dev_fail_* are taken out of the device's options or the filesystem's
 * (sim:nor-spi+sensorlog,dev_fail_at=9 reads naturally), out of *taken. */
static int take_dev_faults(const struct sts_target_spec *spec, struct sts_target_spec *taken,
                           struct sim_opts *o, char *err, size_t errlen)
{
    struct sts_fault_config fs_part;
    const char *why = NULL;
    o->dev_inject = sts_faultbd_take_opts(taken->opts, &taken->n_opts, &o->dev_fault, &why);
    int in_fs = o->dev_inject < 0 ? 0
                                  : sts_faultbd_take_opts(taken->fs_opts, &taken->n_fs_opts,
                                                          &fs_part, &why);
    if (o->dev_inject < 0 || in_fs < 0) {
        snprintf(err, errlen, "sim:%s: %s", spec->arg, why);
        return STS_EINVAL;
    }
    if (in_fs) {
        if (o->dev_inject) {
            snprintf(err, errlen, "sim:%s: dev_fail_* given twice", spec->arg);
            return STS_EINVAL;
        }
        o->dev_fault = fs_part;
        o->dev_inject = 1;
    }
    return STS_OK;
}

/* One key=value of the device; *flag set when the key takes 0 or 1.
 * STS_ENOENT: no such key. */
static int sim_opt(struct sim_opts *o, const char *k, const char *v, int *flag)
{
    if (!strcmp(k, "seed"))
        return sts_parse_u64(v, &o->seed);
    if (!strcmp(k, "fill")) {
        int rc = sts_parse_u64(v, &o->fill);
        return !rc && o->fill > 100 ? STS_ERANGE : rc;
    }
    if (!strcmp(k, "prefill")) {
        o->prefill = v; /* checked when the model exists */
        return STS_OK;
    }
    if (!strcmp(k, "cut_after"))
        return sts_parse_u64(v, &o->faults.cut_after_ops);
    if (!strcmp(k, "cut_at"))
        return sts_parse_duration(v, &o->faults.cut_at_ns);
    if (!strcmp(k, "read_errors") || !strcmp(k, "prog_errors") || !strcmp(k, "erase_errors")) {
        uint64_t ppm = 0;
        int rc = sts_parse_u64(v, &ppm);
        uint32_t *dst = k[0] == 'r' ? &o->faults.read_error_ppm
                        : k[0] == 'p' ? &o->faults.prog_error_ppm : &o->faults.erase_error_ppm;
        *dst = (uint32_t)ppm;
        return !rc && ppm > 1000000 ? STS_ERANGE : rc;
    }
    if (!strcmp(k, "error_lo"))
        return sts_parse_size(v, &o->faults.error_lo);
    if (!strcmp(k, "error_hi"))
        return sts_parse_size(v, &o->faults.error_hi);
    if (!strcmp(k, "fake")) {
        int rc = sts_parse_size(v, &o->fake_real);
        return !rc && !o->fake_real ? STS_EINVAL : rc;
    }
    if (!strcmp(k, "clock")) {
        o->real = !strcmp(v, "real");
        return o->real || !strcmp(v, "virtual") ? STS_OK : STS_EINVAL;
    }
    *flag = 1;
    if (!strcmp(k, "data"))
        return sts_parse_bool(v, &o->keep);
    if (!strcmp(k, "pack"))
        return sts_parse_bool(v, &o->pack);
    if (!strcmp(k, "fake_lost"))
        return sts_parse_bool(v, &o->fake_lost);
    if (!strcmp(k, "errors_permanent") || !strcmp(k, "errors_silent")) {
        int b = 0, rc = sts_parse_bool(v, &b);
        *(k[7] == 'p' ? &o->faults.permanent : &o->faults.silent) = (uint8_t)b;
        return rc;
    }
    *flag = 0;
    return STS_ENOENT;
}

/* The device's options into *o: the profile, then each key=value. */
static int sim_parse(const struct sts_target_spec *spec, struct sim_opts *o, char *err,
                     size_t errlen)
{
    for (uint32_t i = 0; i < spec->n_opts; i++) {
        const char *k = spec->opts[i].key, *v = spec->opts[i].value, *why = NULL;
        int flag = 0; /* (a flag's message says what it takes) */
        int rc = sim_opt(o, k, v, &flag);
        if (rc == STS_ENOENT && !strcmp(k, "fake_cache")) {
            rc = sts_parse_size(v, &o->fake_cache);
            if (rc || !o->fake_cache || o->fake_cache % STS_FAKEBD_CACHE_BLOCK ||
                o->fake_cache > (1ull << 30)) {
                snprintf(err, errlen, "sim: bad value '%s' for 'fake_cache': a size in steps "
                                      "of 512 B, up to 1G", v);
                return STS_EINVAL;
            }
        } else if (rc == STS_ENOENT && (rc = sts_sim_noise_parse(&o->noise, k, v, &why)) !=
                                           STS_ENOENT) {
            if (rc) {
                snprintf(err, errlen, "sim: bad value '%s' for '%s': %s", v, k, why);
                return STS_EINVAL;
            }
        } else if (rc == STS_ENOENT && (rc = sts_sim_param_set(&o->p, k, v)) == STS_ENOENT) {
            snprintf(err, errlen, "sim: unknown option '%s' (see docs/device-models.md)", k);
            return STS_EINVAL;
        }
        if (rc == STS_ERANGE) {
            snprintf(err, errlen,
                     "sim: value '%s' for '%s' is out of range (flags take 0 or 1, times "
                     "at most 4.29 s, counts and sizes at most 4294967295 except capacity, "
                     "au, cache and the bandwidths; see docs/device-models.md)", v, k);
            return STS_EINVAL;
        }
        if (rc) {
            snprintf(err, errlen, "sim: bad value '%s' for '%s'%s", v, k,
                     flag ? ": it takes 0 or 1" : "");
            return STS_EINVAL;
        }
    }
    o->claimed = o->p.capacity;
    if (o->fake_cache && !o->fake_real) {
        snprintf(err, errlen, "sim:%s: fake_cache= is a counterfeit's cache: it needs fake=",
                 spec->arg);
        return STS_EINVAL;
    }
    if (o->fake_real) { /* the model holds the real size; the card claims the rest */
        if (o->fake_real >= o->claimed || o->fake_real % o->p.erase_bytes) {
            snprintf(err, errlen, "sim:%s: fake= must be below the capacity (%llu B) and a "
                                  "multiple of the erase block (%u B)",
                     spec->arg, (unsigned long long)o->claimed, (unsigned)o->p.erase_bytes);
            return STS_EINVAL;
        }
        o->p.capacity = o->fake_real;
    }
    const char *why = NULL;
    if (sts_sim_check(&o->p, &why)) {
        snprintf(err, errlen, "sim:%s: %s", spec->arg, why);
        return STS_EINVAL;
    }
    return STS_OK;
}

/* Why the model's arena could not be had, and what to give it instead. */
static void arena_refused(const char *arg, const struct sim_opts *o, size_t arena_bytes,
                          char *err, size_t errlen)
{
    const char *or_data = o->keep ? " or data=0 (data not kept: reads return zeros, no --verify)"
                                  : "";
    if (arena_bytes == SIZE_MAX) { /* a 32-bit host: 4 GiB and its data do not fit */
        snprintf(err, errlen, "sim:%s: the model%s needs more address space than this "
                              "host has; give it capacity=1G%s",
                 arg, o->keep ? " and its data" : "", or_data);
        return;
    }
    /* a quarter of what failed, as a power of two: the size that just
     * failed was once the example given */
    char need[48], size[24];
    sts_fmt_bytes(need, sizeof(need), arena_bytes);
    uint64_t fits = 64ull << 20;
    while (fits * 8 <= o->p.capacity)
        fits *= 2;
    snprintf(size, sizeof(size), fits >= 1ull << 30 ? "%lluG" : "%lluM",
             (unsigned long long)(fits >> (fits >= 1ull << 30 ? 30 : 20)));
    snprintf(err, errlen, "sim:%s: cannot reserve %s of address space for the model%s; "
                          "give it a smaller capacity= (e.g. capacity=%s)%s",
             arg, need, o->keep ? " and its data" : "", size, or_data);
}

/* The model as *o asks, with what it held before (prefill=, fill=); the
 * workloads' seed packs its cold pages. */
static int sim_model_open(struct sim_target **out, const char *arg, const struct sim_opts *o,
                          uint64_t workload_seed, char *err, size_t errlen)
{
    struct sim_target *st = calloc(1, sizeof(*st));
    uint64_t keep_bytes = o->keep ? o->p.capacity : 0;
#if STS_SIM_PACK
    size_t arena_bytes = o->pack ? sts_sim_arena_bytes_packed(&o->p, keep_bytes)
                                 : sts_sim_arena_bytes(&o->p, keep_bytes);
#else
    size_t arena_bytes = sts_sim_arena_bytes(&o->p, keep_bytes);
#endif
    if (st && arena_bytes != SIZE_MAX) {
        st->arena = arena_map(arena_bytes);
        st->arena_bytes = arena_bytes;
    }
    if (!st || !st->arena) {
        free(st);
        arena_refused(arg, o, arena_bytes, err, errlen);
        return STS_ENOMEM;
    }
    err[0] = '\0';
    int rc = sts_sim_init_zeroed(&st->sim, &o->p, o->seed, st->arena, arena_bytes, keep_bytes,
                                 &st->bd);
    if (!rc && o->fake_real) {
        struct sts_bd model = st->bd;
        rc = sts_fakebd_init(&st->fake, &model, o->claimed, o->fake_lost, &st->bd);
        if (!rc && o->fake_cache) {
            st->fake_cache = malloc(sts_fakebd_cache_bytes(o->fake_cache));
            rc = st->fake_cache ? sts_fakebd_set_cache(&st->fake, st->fake_cache, o->fake_cache)
                                : STS_ENOMEM;
        }
    }
    if (!rc && o->prefill) {
        snprintf(st->prefill, sizeof(st->prefill), "%s", o->prefill);
        rc = sts_sim_prefill_old(&st->sim, &st->bd, o->prefill, o->seed, err, errlen);
    }
    if (!rc && o->fill)
        rc = sts_sim_prefill(&st->sim, (uint32_t)(o->fill * 10));
    if (!rc) {
        sts_sim_set_faults(&st->sim, &o->faults);
        sts_sim_set_noise(&st->sim, &o->noise);
#if STS_SIM_PACK
        sts_sim_set_pack(&st->sim, o->pack, workload_seed); /* not the model's seed */
        st->sim.release = arena_release;
#else
        (void)workload_seed;
#endif
    }
    *out = st;
    return rc;
}

static void sim_free(struct sim_target *st)
{
    free(st->fake_cache);
    arena_unmap(st);
    free(st);
}

static int noisy(const struct sts_sim_noise *n)
{
    return n->cv_permille || n->stall_rate_millihz || n->bimodal_permille ||
           n->drift_cv_permille;
}

/* The run's environment: what the model is and what it was given. */
static void sim_env(struct sts_target *t, const struct sim_opts *o, const struct sim_target *st)
{
    const struct sts_sim_params *p = &o->p;
    sts_target_env(t, STS_KV_S("device", p->name));
    sts_target_env(t, STS_KV_S("device_summary", p->summary));
    sts_target_env(t, STS_KV_S("clock", o->real ? "real" : "virtual"));
    sts_target_env(t, STS_KV_U("sim_seed", o->seed));
    sts_target_env(t, STS_KV_U("sim_capacity_bytes", o->claimed));
    if (o->fake_real) {
        sts_target_env(t, STS_KV_U("sim_fake_real_bytes", o->fake_real));
        sts_target_env(t, STS_KV_S("sim_fake_kind", o->fake_lost ? "lost writes" : "aliasing"));
        if (o->fake_cache)
            sts_target_env(t, STS_KV_U("sim_fake_cache_bytes", o->fake_cache));
    }
    sts_target_env(t, STS_KV_U("sim_sector_bytes", p->sector_bytes));
    sts_target_env(t, STS_KV_U("sim_page_bytes", p->page_bytes));
    sts_target_env(t, STS_KV_U("sim_erase_bytes", p->erase_bytes));
    sts_target_env(t, STS_KV_S("sim_kind", p->managed ? "managed (FTL)" : "raw flash"));
    sts_target_env(t, STS_KV_U("sim_fill_percent", o->fill));
    if (p->dip_bytes) /* a dip the profile puts there: the analysis says so of its guideline */
        sts_target_env(t, STS_KV_U("sim_dip_bytes", p->dip_bytes));
    if (o->prefill)
        sts_target_env(t, STS_KV_S("sim_prefill", st->prefill));
    /* a noisy model's virtual time does not repeat: its figures need their
     * spread like a real device's (the analysis reads this) */
    sts_target_env(t, STS_KV_B("sim_noisy", noisy(&o->noise)));
    sts_target_env(t, STS_KV_B("sim_keeps_data", o->keep));
    /* the store's set-up: a cut_after= that is to land in a test counts these */
    sts_target_env(t, STS_KV_U("sim_commands_at_open", st->sim.host_ops));
}

static int sim_open(struct sts_target *t, const struct sts_target_spec *spec, char *err,
                    size_t errlen)
{
    const struct sts_sim_params *prof = sts_sim_profile_find(spec->arg);
    const char *comma = strchr(spec->arg, ',');
    if (!prof && comma) { /* no profile name has a comma: an option that is not key=value */
        snprintf(err, errlen, "option '%s' after sim:%.*s is not KEY=VALUE (e.g. capacity=64M)",
                 comma + 1, (int)(comma - spec->arg), spec->arg);
        return STS_EINVAL;
    }
    if (!prof) {
        snprintf(err, errlen, "unknown device profile '%s' (see `storscope list devices`)",
                 spec->arg);
        return STS_ENOENT;
    }
    struct sim_opts o = {.p = *prof, .seed = t->seed, .fill = prof->fill_permille / 10,
                         .keep = 1, .pack = 1};
    struct sts_target_spec taken = *spec; /* the spec without dev_fail_* (after +FS too) */
    int rc = take_dev_faults(spec, &taken, &o, err, errlen);
    if (!rc)
        rc = sim_parse(&taken, &o, err, errlen);
    if (rc)
        return rc;
    spec = &taken;
    struct sim_target *st = NULL;
    rc = sim_model_open(&st, spec->arg, &o, t->seed, err, errlen);
    if (!st)
        return rc;
    /* the files live above the filled part, which stays cold */
    uint64_t base = o.p.capacity * o.fill / 100;
    base = (base + o.p.erase_bytes - 1) / o.p.erase_bytes * o.p.erase_bytes;
    st->real = o.real;
    if (o.real) {
        pthread_mutex_init(&st->lock, NULL);
        st->timed.ops = &real_time_ops;
        st->timed.ctx = st;
    }
    struct sts_bd bd = o.real ? st->timed : st->bd;
    if (o.dev_inject) {
        sts_faultbd_init(&st->fault, &bd, &o.dev_fault, &st->faulty);
        bd = st->faulty;
    }
    char shown[STS_SPEC_ARG_MAX + 8];
    snprintf(shown, sizeof(shown), "sim:%.*s", STS_SPEC_ARG_MAX - 1, spec->arg);
    struct sts_fs_medium medium = {.bd = bd, .base = base, .data_dropped = !o.keep,
                                   .shown = shown};
    if (!rc)
        rc = sts_fs_stack_open(&st->fs, spec, &medium, t, err, errlen);
    else if (!err[0])
        snprintf(err, errlen, "sim:%s: %s", spec->arg, sts_strerror(rc));
    if (rc) {
        sim_free(st);
        return rc;
    }
    t->kind = "sim";
    t->bd = o.dev_inject ? &st->faulty : o.real ? &st->timed : &st->bd;
    t->faultbd = o.dev_inject ? &st->fault : NULL;
    if (o.real)
        t->clock = *sts_port_clock();
    else
        sts_sim_clock(&st->sim, &t->clock);
    t->flags = (o.real ? 0 : STS_T_VIRTUAL_TIME) | (o.keep ? STS_T_KEEPS_DATA : 0) |
               (noisy(&o.noise) ? STS_T_NOISY : 0) | sts_fs_stack_flags(st->fs);
    t->io_align = 0;
    t->impl = st;
    t->counters = sim_counters;
    t->after_cut = sts_fs_stack_sensorlog(st->fs) ? sim_after_cut : NULL;
    sim_env(t, &o, st);
    sts_fs_stack_record(st->fs, t);
    return STS_OK;
}

/* +sensorlog: the durability promise checked through the facade, after
 * whatever the workloads were doing when the power went. */
static int sim_after_cut(struct sts_target *t, struct sts_cut_check *out)
{
    struct sim_target *st = t->impl;
    memset(out, 0, sizeof(*out));
    struct sts_slfs *log = sts_fs_stack_sensorlog(st->fs);
    if (!st->sim.n.power_cuts || !log)
        return 0;
    sts_sim_power_on(&st->sim);
    char why[160];
    if (sts_slfs_check_after_cut(log, &out->files, &out->synced_bytes, why, sizeof(why))) {
        out->lost = 1;
        snprintf(out->msg, sizeof(out->msg),
                 "after the power cut: data synced before it is lost: %s", why);
    } else {
        snprintf(out->msg, sizeof(out->msg),
                 "after the power cut: the log mounted again and holds every synced "
                 "byte (%u file%s, %llu bytes checked%s%s)", out->files,
                 out->files == 1 ? "" : "s", (unsigned long long)out->synced_bytes,
                 why[0] ? "; " : "", why);
    }
    return 1;
}

static void sim_close(struct sts_target *t)
{
    struct sim_target *st = t->impl;
    if (!st)
        return;
    if (st->real)
        pthread_mutex_destroy(&st->lock);
    sts_fs_stack_close(st->fs);
    free(st->fake_cache);
    arena_unmap(st);
    free(st);
    t->impl = NULL;
}

const struct sts_target_kind sts_target_sim = {
    "sim",
    "sim:PROFILE[,seed=N][,fill=PERCENT][,prefill=random|pattern|IMAGE[:PERCENT]][,data=0|1][,pack=0|1]"
    "[,clock=virtual|real][,cut_after=N]"
    "[+sensorlog[,chunk=B][,segment=B][,buffer=B][,erase_unit=B][,erase_slice=T][,files=N]]"
    "[,read_errors=PPM]"
    "[,PARAM=VALUE...]",
    "a simulated medium in deterministic virtual time (`storscope list devices`)",
    sim_open,
    sim_close,
};
