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

static void arena_unmap(struct sim_target *st)
{
    if (st->arena)
        munmap(st->arena, st->arena_bytes);
    st->arena = NULL;
}

static int sim_after_cut(struct sts_target *t, int *lost, char *msg, size_t n);

static size_t sim_counters(struct sts_target *t, struct sts_kv *out, size_t max)
{
    struct sim_target *st = t->impl;
    const struct sts_sim_counters *n = &st->sim.n, *l = &st->last;
    size_t k = 0;
#define D(name, field) \
    if (k < max) out[k++] = STS_KV_U(name, n->field - l->field)
    D("reads", reads);
    D("programs", programs);
    D("erases", erases);
    D("trims", trims);
    D("flushes", flushes);
    D("bytes_read", bytes_read);
    D("bytes_written", bytes_written);
    D("pages_programmed", pages_programmed);
    D("gc_runs", gc_runs);
    D("gc_pages_copied", gc_pages_copied);
    D("wear_level_moves", wl_moves);
    D("blocks_erased", blocks_erased);
    D("stalls", stalls);
    D("device_busy_ns", busy_ns);
    D("injected_errors", injected_errors);
    D("power_cuts", power_cuts);
    D("pages_lost", pages_lost);
#undef D
    uint64_t host = n->bytes_written - l->bytes_written;
    uint64_t flash = (n->pages_programmed - l->pages_programmed) * st->sim.p.page_bytes;
    if (k < max)
        out[k++] = STS_KV_D("write_amplification", host ? (double)flash / (double)host : 0.0);
    uint32_t lo = UINT32_MAX, hi = 0;
    for (uint32_t b = 0; b < st->sim.n_blocks; b++) {
        uint32_t e = st->sim.blocks[b].erases;
        lo = e < lo ? e : lo;
        hi = e > hi ? e : hi;
    }
    if (k + 1 < max) {
        out[k++] = STS_KV_U("erase_count_min", lo);
        out[k++] = STS_KV_U("erase_count_max", hi);
    }
    st->last = *n;
    return k;
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
    struct sts_sim_params p = *prof;
    uint64_t seed = t->seed, fill = prof->fill_permille / 10;
    int keep = 1, real = 0, fake_lost = 0, pack = 1;
    const char *prefill = NULL;
    uint64_t fake_real = 0, fake_cache = 0;
    struct sts_sim_faults faults = {0};
    struct sts_sim_noise noise = {0};
    const char *why = NULL;
    /* dev_fail_*: the k-th device command fails (faultbd), under whatever
     * filesystem sits on the model */
    struct sts_fault_config dev_fault, fs_part;
    const char *fault_why = NULL;
    struct sts_target_spec taken = *spec; /* the spec without them (after +FS too) */
    int dev_inject = sts_faultbd_take_opts(taken.opts, &taken.n_opts, &dev_fault, &fault_why);
    int in_fs = dev_inject < 0 ? 0
                               : sts_faultbd_take_opts(taken.fs_opts, &taken.n_fs_opts, &fs_part,
                                                       &fault_why);
    if (dev_inject < 0 || in_fs < 0) {
        snprintf(err, errlen, "sim:%s: %s", spec->arg, fault_why);
        return STS_EINVAL;
    }
    if (in_fs) { /* sim:nor-spi+sensorlog,dev_fail_at=9 reads naturally */
        if (dev_inject) {
            snprintf(err, errlen, "sim:%s: dev_fail_* given twice", spec->arg);
            return STS_EINVAL;
        }
        dev_fault = fs_part;
        dev_inject = 1;
    }
    spec = &taken;
    for (uint32_t i = 0; i < spec->n_opts; i++) {
        const char *k = spec->opts[i].key, *v = spec->opts[i].value;
        int rc = STS_OK, flag = 0; /* (a flag's message says what it takes) */
        if (!strcmp(k, "seed")) {
            rc = sts_parse_u64(v, &seed);
        } else if (!strcmp(k, "fill")) {
            rc = sts_parse_u64(v, &fill);
            if (!rc && fill > 100)
                rc = STS_ERANGE;
        } else if (!strcmp(k, "prefill")) {
            prefill = v; /* checked when the model exists */
        } else if (!strcmp(k, "data")) {
            rc = sts_parse_bool(v, &keep);
            flag = 1;
        } else if (!strcmp(k, "pack")) {
            rc = sts_parse_bool(v, &pack);
            flag = 1;
        } else if (!strcmp(k, "cut_after")) {
            rc = sts_parse_u64(v, &faults.cut_after_ops);
        } else if (!strcmp(k, "cut_at")) {
            rc = sts_parse_duration(v, &faults.cut_at_ns);
        } else if (!strcmp(k, "read_errors") || !strcmp(k, "prog_errors") ||
                   !strcmp(k, "erase_errors")) {
            uint64_t ppm = 0;
            rc = sts_parse_u64(v, &ppm);
            if (!rc && ppm > 1000000)
                rc = STS_ERANGE;
            uint32_t *dst = k[0] == 'r' ? &faults.read_error_ppm
                            : k[0] == 'p' ? &faults.prog_error_ppm : &faults.erase_error_ppm;
            *dst = (uint32_t)ppm;
        } else if (!strcmp(k, "errors_permanent") || !strcmp(k, "errors_silent")) {
            int b = 0;
            rc = sts_parse_bool(v, &b);
            flag = 1;
            *(k[7] == 'p' ? &faults.permanent : &faults.silent) = (uint8_t)b;
        } else if (!strcmp(k, "error_lo")) {
            rc = sts_parse_size(v, &faults.error_lo);
        } else if (!strcmp(k, "error_hi")) {
            rc = sts_parse_size(v, &faults.error_hi);
        } else if (!strcmp(k, "fake")) {
            rc = sts_parse_size(v, &fake_real);
            rc = !rc && !fake_real ? STS_EINVAL : rc;
        } else if (!strcmp(k, "fake_lost")) {
            rc = sts_parse_bool(v, &fake_lost);
            flag = 1;
        } else if (!strcmp(k, "fake_cache")) {
            rc = sts_parse_size(v, &fake_cache);
            if (rc || !fake_cache || fake_cache % STS_FAKEBD_CACHE_BLOCK ||
                fake_cache > (1ull << 30)) {
                snprintf(err, errlen, "sim: bad value '%s' for 'fake_cache': a size in steps "
                                      "of 512 B, up to 1G", v);
                return STS_EINVAL;
            }
        } else if (!strcmp(k, "clock")) {
            if (!strcmp(v, "real"))
                real = 1;
            else if (strcmp(v, "virtual") != 0)
                rc = STS_EINVAL;
        } else if ((rc = sts_sim_noise_parse(&noise, k, v, &why)) != STS_ENOENT) {
            if (rc) {
                snprintf(err, errlen, "sim: bad value '%s' for '%s': %s", v, k, why);
                return STS_EINVAL;
            }
        } else {
            rc = sts_sim_param_set(&p, k, v);
            if (rc == STS_ENOENT) {
                snprintf(err, errlen, "sim: unknown option '%s' (see docs/device-models.md)", k);
                return STS_EINVAL;
            }
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
    uint64_t claimed = p.capacity;
    if (fake_cache && !fake_real) {
        snprintf(err, errlen, "sim:%s: fake_cache= is a counterfeit's cache: it needs fake=",
                 spec->arg);
        return STS_EINVAL;
    }
    if (fake_real) { /* the model holds the real size; the card claims the rest */
        if (fake_real >= claimed || fake_real % p.erase_bytes) {
            snprintf(err, errlen, "sim:%s: fake= must be below the capacity (%llu B) and a "
                                  "multiple of the erase block (%u B)",
                     spec->arg, (unsigned long long)claimed, (unsigned)p.erase_bytes);
            return STS_EINVAL;
        }
        p.capacity = fake_real;
    }
    if (sts_sim_check(&p, &why)) {
        snprintf(err, errlen, "sim:%s: %s", spec->arg, why);
        return STS_EINVAL;
    }
    struct sim_target *st = calloc(1, sizeof(*st));
    uint64_t keep_bytes = keep ? p.capacity : 0;
#if STS_SIM_PACK
    size_t arena_bytes = pack ? sts_sim_arena_bytes_packed(&p, keep_bytes)
                              : sts_sim_arena_bytes(&p, keep_bytes);
#else
    size_t arena_bytes = sts_sim_arena_bytes(&p, keep_bytes);
#endif
    if (st && arena_bytes != SIZE_MAX) {
        st->arena = arena_map(arena_bytes);
        st->arena_bytes = arena_bytes;
    }
    if (!st || !st->arena) {
        free(st);
        char need[48];
        sts_fmt_bytes(need, sizeof(need), arena_bytes);
        if (arena_bytes == SIZE_MAX) /* a 32-bit host: 4 GiB and its data do not fit */
            snprintf(err, errlen, "sim:%s: the model%s needs more address space than this "
                                  "host has; give it capacity=1G%s",
                     spec->arg, keep ? " and its data" : "",
                     keep ? " or data=0 (data not kept: reads return zeros, no --verify)" : "");
        else {
            /* a quarter of what failed, as a power of two: the size that
             * just failed was once the example given */
            uint64_t fits = 64ull << 20;
            while (fits * 8 <= p.capacity)
                fits *= 2;
            char size[24];
            snprintf(size, sizeof(size), fits >= 1ull << 30 ? "%lluG" : "%lluM",
                     (unsigned long long)(fits >> (fits >= 1ull << 30 ? 30 : 20)));
            snprintf(err, errlen, "sim:%s: cannot reserve %s of address space for the model%s; "
                                  "give it a smaller capacity= (e.g. capacity=%s)%s",
                     spec->arg, need, keep ? " and its data" : "", size,
                     keep ? " or data=0 (data not kept: reads return zeros, no --verify)" : "");
        }
        return STS_ENOMEM;
    }
    err[0] = '\0';
    int rc = sts_sim_init_zeroed(&st->sim, &p, seed, st->arena, arena_bytes, keep_bytes, &st->bd);
    if (!rc && fake_real) {
        struct sts_bd model = st->bd;
        rc = sts_fakebd_init(&st->fake, &model, claimed, fake_lost, &st->bd);
        if (!rc && fake_cache) {
            st->fake_cache = malloc(sts_fakebd_cache_bytes(fake_cache));
            rc = st->fake_cache ? sts_fakebd_set_cache(&st->fake, st->fake_cache, fake_cache)
                                : STS_ENOMEM;
        }
    }
    if (!rc && prefill) {
        snprintf(st->prefill, sizeof(st->prefill), "%s", prefill);
        rc = sts_sim_prefill_old(&st->sim, &st->bd, prefill, seed, err, errlen);
    }
    if (!rc && fill)
        rc = sts_sim_prefill(&st->sim, (uint32_t)(fill * 10));
    if (!rc) {
        sts_sim_set_faults(&st->sim, &faults);
        sts_sim_set_noise(&st->sim, &noise);
#if STS_SIM_PACK
        sts_sim_set_pack(&st->sim, pack, t->seed); /* the workloads' seed, not the model's */
#endif
    }
    /* the files live above the filled part, which stays cold */
    uint64_t base = p.capacity * fill / 100;
    base = (base + p.erase_bytes - 1) / p.erase_bytes * p.erase_bytes;
    st->real = real;
    if (real) {
        pthread_mutex_init(&st->lock, NULL);
        st->timed.ops = &real_time_ops;
        st->timed.ctx = st;
    }
    struct sts_bd bd = real ? st->timed : st->bd;
    if (dev_inject) {
        sts_faultbd_init(&st->fault, &bd, &dev_fault, &st->faulty);
        bd = st->faulty;
    }
    char shown[STS_SPEC_ARG_MAX + 8];
    snprintf(shown, sizeof(shown), "sim:%.*s", STS_SPEC_ARG_MAX - 1, spec->arg);
    struct sts_fs_medium medium = {.bd = bd, .base = base, .data_dropped = !keep, .shown = shown};
    if (!rc)
        rc = sts_fs_stack_open(&st->fs, spec, &medium, t, err, errlen);
    else if (!err[0])
        snprintf(err, errlen, "sim:%s: %s", spec->arg, sts_strerror(rc));
    if (rc) {
        free(st->fake_cache);
        arena_unmap(st);
        free(st);
        return rc;
    }
    t->kind = "sim";
    t->bd = dev_inject ? &st->faulty : real ? &st->timed : &st->bd;
    t->faultbd = dev_inject ? &st->fault : NULL;
    if (real)
        t->clock = *sts_port_clock();
    else
        sts_sim_clock(&st->sim, &t->clock);
    int noisy = noise.cv_permille || noise.stall_rate_millihz || noise.bimodal_permille ||
                noise.drift_cv_permille;
    t->flags = (real ? 0 : STS_T_VIRTUAL_TIME) | (keep ? STS_T_KEEPS_DATA : 0) |
               (noisy ? STS_T_NOISY : 0) |
               sts_fs_stack_flags(st->fs);
    t->io_align = 0;
    t->impl = st;
    t->counters = sim_counters;
    t->after_cut = sts_fs_stack_sensorlog(st->fs) ? sim_after_cut : NULL;
    sts_target_env(t, STS_KV_S("device", p.name));
    sts_target_env(t, STS_KV_S("device_summary", p.summary));
    sts_target_env(t, STS_KV_S("clock", real ? "real" : "virtual"));
    sts_target_env(t, STS_KV_U("sim_seed", seed));
    sts_target_env(t, STS_KV_U("sim_capacity_bytes", claimed));
    if (fake_real) {
        sts_target_env(t, STS_KV_U("sim_fake_real_bytes", fake_real));
        sts_target_env(t, STS_KV_S("sim_fake_kind", fake_lost ? "lost writes" : "aliasing"));
        if (fake_cache)
            sts_target_env(t, STS_KV_U("sim_fake_cache_bytes", fake_cache));
    }
    sts_target_env(t, STS_KV_U("sim_sector_bytes", p.sector_bytes));
    sts_target_env(t, STS_KV_U("sim_page_bytes", p.page_bytes));
    sts_target_env(t, STS_KV_U("sim_erase_bytes", p.erase_bytes));
    sts_target_env(t, STS_KV_S("sim_kind", p.managed ? "managed (FTL)" : "raw flash"));
    sts_target_env(t, STS_KV_U("sim_fill_percent", fill));
    if (p.dip_bytes) /* a dip the profile puts there: the analysis says so of its guideline */
        sts_target_env(t, STS_KV_U("sim_dip_bytes", p.dip_bytes));
    if (prefill)
        sts_target_env(t, STS_KV_S("sim_prefill", st->prefill));
    /* a noisy model's virtual time does not repeat: its figures need their
     * spread like a real device's (the analysis reads this) */
    sts_target_env(t, STS_KV_B("sim_noisy", noisy));
    sts_target_env(t, STS_KV_B("sim_keeps_data", keep));
    sts_fs_stack_record(st->fs, t);
    return STS_OK;
}

/* +sensorlog: the durability promise checked through the facade, after
 * whatever the workloads were doing when the power went. */
static int sim_after_cut(struct sts_target *t, int *lost, char *msg, size_t n)
{
    struct sim_target *st = t->impl;
    *lost = 0;
    struct sts_slfs *log = sts_fs_stack_sensorlog(st->fs);
    if (!st->sim.n.power_cuts || !log)
        return 0;
    sts_sim_power_on(&st->sim);
    uint32_t files;
    uint64_t bytes;
    char why[160];
    if (sts_slfs_check_after_cut(log, &files, &bytes, why, sizeof(why))) {
        *lost = 1;
        snprintf(msg, n, "after the power cut: data synced before it is lost: %s", why);
    } else {
        snprintf(msg, n, "after the power cut: the log mounted again and holds every synced "
                         "byte (%u file%s, %llu bytes checked)", files, files == 1 ? "" : "s",
                 (unsigned long long)bytes);
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
