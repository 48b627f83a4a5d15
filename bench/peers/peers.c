/* sensorlog, littlefs and FlashDB's TSDB side by side (issue 16), on the same
 * simulated devices, in virtual time, with the same records: R bytes each
 * (12, 64, 256), stamped 1 ms apart, the stamp in the record's first 4
 * bytes. Throughput is payload over the device's virtual time (host CPU is
 * not in it: see bench/README.md for instructions per record). Printed: the
 * table of issue 16, measured.
 *
 *   sensorlog_peers [--passes N] [--records N] [--only NAME] [--cpu N]
 *     --passes   laps of the 16 MiB NOR before the throughput is measured (3)
 *     --records  records written before the queries on eMMC (1000000)
 *     --cpu      only append N 12-byte records on the NOR (bench/peers/cpu.sh
 *                runs this under callgrind to count instructions a record)
 *
 * Build: cmake --preset release -DSTORSCOPE_LITTLEFS_DIR=... -DSTORSCOPE_FLASHDB_DIR=...
 * (each store is left out, and says so, when its sources are not given). */
#define _POSIX_C_SOURCE 200809L
#include "peers.h"
#include "storscope/rng.h"
#include "storscope/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the device: a simulated medium behind a counting layer ------------- */
static struct sts_sim sim;
static struct {
    struct sts_bd inner;
    uint64_t reads, programmed, erased, erase_cmds;
} dev;

__attribute__((noinline)) static int c_read(void *ctx, uint64_t a, void *b, size_t n)
{
    (void)ctx;
    dev.reads++;
    return dev.inner.ops->read(dev.inner.ctx, a, b, n);
}
__attribute__((noinline)) static int c_program(void *ctx, uint64_t a, const void *b, size_t n)
{
    (void)ctx;
    dev.programmed += n;
    return dev.inner.ops->program(dev.inner.ctx, a, b, n);
}
__attribute__((noinline)) static int c_erase(void *ctx, uint64_t a, uint64_t n)
{
    (void)ctx;
    dev.erased += n;
    dev.erase_cmds++;
    return dev.inner.ops->erase(dev.inner.ctx, a, n);
}
__attribute__((noinline)) static int c_flush(void *ctx)
{
    (void)ctx;
    return dev.inner.ops->flush(dev.inner.ctx);
}
static void c_geometry(void *ctx, struct sts_bd_geometry *g)
{
    (void)ctx;
    dev.inner.ops->geometry(dev.inner.ctx, g);
}
static const struct sts_bd_ops counted_ops = {
    .version = STS_BD_OPS_VERSION, c_read, c_program, c_erase, c_flush, c_geometry, NULL, NULL,
    NULL
};
static uint64_t now_ns(void)
{
    return sim.now_ns;
}

static void *arena;
static struct peer_env env;

static int device(const char *profile, uint64_t capacity, uint32_t max_record)
{
    struct sts_sim_params p = *sts_sim_profile_find(profile);
    p.capacity = capacity;
    p.bad_permille = 0;
    size_t bytes = sts_sim_arena_bytes(&p, capacity);
    free(arena);
    arena = calloc(1, bytes);
    memset(&dev, 0, sizeof(dev));
    if (!arena || sts_sim_init_zeroed(&sim, &p, 1, arena, bytes, capacity, &dev.inner))
        return -1;
    memset(&env, 0, sizeof(env));
    env.bd = (struct sts_bd){&counted_ops, NULL};
    c_geometry(NULL, &env.geo);
    env.now_ns = now_ns;
    env.max_record = max_record;
    env.streams = 1;
    return 0;
}

/* ---- workloads ---------------------------------------------------------- */
struct writing {
    uint64_t payload, ns, programmed, erased, erase_cmds, records;
};

/* The device's counters when a write begins, and what the writing cost
 * once the store synced it all. */
static struct writing start_writing(void)
{
    return (struct writing){.ns = sim.now_ns, .programmed = dev.programmed, .erased = dev.erased,
                            .erase_cmds = dev.erase_cmds};
}

static int finish_writing(const struct peer_store *st, const struct writing *m, struct writing *w)
{
    if (st->sync(st->ctx))
        return -1;
    w->ns = sim.now_ns - m->ns;
    w->programmed = dev.programmed - m->programmed;
    w->erased = dev.erased - m->erased;
    w->erase_cmds = dev.erase_cmds - m->erase_cmds;
    return 0;
}

/* The store's calls, each through a function of its own so that
 * bench/peers/cpu.sh can count the instructions spent inside them (and not
 * inside the device model: callgrind --toggle-collect on these and on the
 * c_* device functions above). */
__attribute__((noinline)) static int peer_cpu_append(const struct peer_store *st, uint64_t ts,
                                                     const void *rec, size_t len)
{
    return st->append(st->ctx, 0, ts, rec, len);
}
__attribute__((noinline)) static int peer_cpu_sync(const struct peer_store *st)
{
    return st->sync(st->ctx);
}
/* Called once the store is open: callgrind zeroes its counts here
 * (--zero-before), so what the format and the set-up cost is not counted. */
__attribute__((noinline)) void peer_cpu_start(void);
__attribute__((noinline)) void peer_cpu_start(void)
{
    __asm__ volatile("" ::: "memory");
}

/* Appends records of `len` bytes until `until` bytes of payload have gone
 * in, a sync each second of virtual time (or after every record). */
static int write_records(const struct peer_store *st, size_t len, uint64_t until, int sync_each,
                         uint64_t *ts, struct writing *w)
{
    uint8_t rec[256];
    memset(rec, 0xA5, sizeof(rec));
    struct writing m = start_writing();
    uint64_t next_sync = sim.now_ns + 1000000000ull;
    w->payload = w->records = 0;
    while (w->payload < until) {
        peer_stamp(rec, ++*ts);
        rec[4] = (uint8_t)*ts; /* records differ beyond their stamp */
        int rc = peer_cpu_append(st, *ts, rec, len);
        if (!rc && (sync_each || sim.now_ns >= next_sync)) {
            rc = peer_cpu_sync(st);
            next_sync = sim.now_ns + 1000000000ull;
        }
        if (rc) {
            fprintf(stderr, "%s: append %llu failed (%d)\n", st->name,
                    (unsigned long long)w->records, rc);
            return -1;
        }
        w->payload += len;
        w->records++;
    }
    return finish_writing(st, &m, w);
}

enum { M_NOR_KBS, M_NOR_ERASES, M_NOR_ERASE_CMDS, M_NOR_WA, M_STUDY_NOR, M_SYNC1, M_SYNC1_KEPT,
       M_CUTS, M_CUTS_WRONG, M_EMMC_KBS, M_STUDY_EMMC, M_RAM, M_RAM_EMMC, M_RANGE, M_LATEST, M_N };
static const size_t sizes[3] = {12, 64, 256};
#define N_STORES 6
static char cell[N_STORES][M_N][128];

static double kbs(const struct writing *w)
{
    return w->ns ? (double)w->payload / 1000.0 / ((double)w->ns / 1e9) : 0.0;
}

static void put3(char *out, size_t n, const double v[3], int decimals)
{
    snprintf(out, n, "%.*f / %.*f / %.*f", decimals, v[0], decimals, v[1], decimals, v[2]);
}

static int nor_after_wraps(int i, const struct peer_store *st, unsigned passes)
{
    double speed[3], erases[3], cmds[3], wa[3];
    for (int k = 0; k < 3; k++) {
        uint64_t cap = 16ull << 20, ts = 0;
        struct writing lap1, laps, w;
        if (device("nor-spi", cap, (uint32_t)sizes[k]) || st->open(st->ctx, &env))
            return -1;
        /* Wear and bytes written are counted over every lap after the first
         * (none with --passes 1) and the quarter after them: a store erases
         * a segment or a block ahead at a time (sensorlog 512 KiB, 128
         * sectors), so a 4 MiB window alone counted 16-32 sectors a MiB more
         * or less by where it fell. The speed is the last quarter's. */
        if (write_records(st, sizes[k], cap, 0, &ts, &lap1) ||
            write_records(st, sizes[k], (passes - 1) * cap, 0, &ts, &laps) ||
            write_records(st, sizes[k], cap / 4, 0, &ts, &w))
            return -1;
        if (k == 0) /* the 16 MiB NOR's configuration (its segment table) */
            snprintf(cell[i][M_RAM], sizeof(cell[0][0]), "%.1f KB",
                     st->ram_bytes(st->ctx) / 1000.0);
        st->close(st->ctx);
        speed[k] = kbs(&w);
        double mib = (double)(laps.payload + w.payload) / (1 << 20);
        erases[k] = (double)(laps.erased + w.erased) / env.geo.erase_size / mib;
        cmds[k] = (double)(laps.erase_cmds + w.erase_cmds) / mib;
        wa[k] = (double)(laps.programmed + w.programmed) / (double)(laps.payload + w.payload);
        fprintf(stderr, "  %s NOR %zu B: %.1f KB/s\n", st->name, sizes[k], speed[k]);
    }
    put3(cell[i][M_NOR_KBS], sizeof(cell[0][0]), speed, 1);
    put3(cell[i][M_NOR_ERASES], sizeof(cell[0][0]), erases, 1);
    put3(cell[i][M_NOR_ERASE_CMDS], sizeof(cell[0][0]), cmds, 0);
    put3(cell[i][M_NOR_WA], sizeof(cell[0][0]), wa, 2);
    return 0;
}

/* A sync after every 12-byte record on a 1 MiB `nor-spi`, once the store
 * has wrapped: records go in, each synced, until the chip has been erased
 * twice over after formatting (every store recycles its space by then), and the speed is
 * that of the next 4,000; then the records the store still holds (its
 * latest, as many as come back), as a share of the chip: what a logger that
 * syncs every event keeps. On 16 MiB it is the same per record and takes
 * a store at 0.2 KB/s hours of host time to wrap. */
static int nor_sync_each(int i, const struct peer_store *st)
{
    const uint64_t cap = 1ull << 20;
    uint64_t ts = 0;
    uint32_t kept = 0;
    struct writing w;
    if (device("nor-spi", cap, 12) || st->open(st->ctx, &env))
        return -1;
    uint64_t e0 = dev.erased; /* (a store may erase the chip as it formats) */
    while (dev.erased - e0 < 2 * cap)
        if (write_records(st, 12, 100 * 12, 1, &ts, &w))
            return -1;
    if (write_records(st, 12, 4000 * 12, 1, &ts, &w) || st->latest(st->ctx, UINT32_MAX, &kept))
        return -1;
    st->close(st->ctx);
    /* what the same store holds of the same records synced once a second,
     * wrapped as far: the payload it can keep on this chip at all */
    uint32_t held = 0;
    struct writing h;
    ts = 0;
    if (device("nor-spi", cap, 12) || st->open(st->ctx, &env))
        return -1;
    e0 = dev.erased;
    while (dev.erased - e0 < 2 * cap)
        if (write_records(st, 12, 100 * 12, 0, &ts, &h))
            return -1;
    if (st->latest(st->ctx, UINT32_MAX, &held))
        return -1;
    st->close(st->ctx);
    snprintf(cell[i][M_SYNC1], sizeof(cell[0][0]), "%.2f", kbs(&w));
    snprintf(cell[i][M_SYNC1_KEPT], sizeof(cell[0][0]),
             "%u (%.1f %% of the chip; %.0f %% of the %u it holds synced once a second)", kept,
             100.0 * kept * 12 / (double)cap, held ? 100.0 * kept / held : 0.0, held);
    fprintf(stderr, "  %s sync each record after wrap: %.2f KB/s, %u records kept\n", st->name,
            kbs(&w), kept);
    return 0;
}

static int emmc_speed(int i, const struct peer_store *st)
{
    double speed[3];
    for (int k = 0; k < 3; k++) {
        uint64_t ts = 0;
        struct writing w;
        if (device("emmc-stm32u5", 256ull << 20, (uint32_t)sizes[k]) ||
            st->open(st->ctx, &env) || write_records(st, sizes[k], 4ull << 20, 0, &ts, &w))
            return -1;
        if (k == 0)
            snprintf(cell[i][M_RAM_EMMC], sizeof(cell[0][0]), "%.1f KB",
                     st->ram_bytes(st->ctx) / 1000.0);
        st->close(st->ctx);
        speed[k] = kbs(&w);
        fprintf(stderr, "  %s eMMC %zu B: %.1f KB/s\n", st->name, sizes[k], speed[k]);
    }
    put3(cell[i][M_EMMC_KBS], sizeof(cell[0][0]), speed, 0);
    return 0;
}

static int queries(int i, const struct peer_store *st, uint64_t records)
{
    uint64_t ts = 0;
    struct writing w;
    if (device("emmc-stm32u5", 256ull << 20, 12) || st->open(st->ctx, &env) ||
        write_records(st, 12, records * 12, 0, &ts, &w))
        return -1;
    uint32_t got = 0;
    uint64_t t0 = sim.now_ns, r0 = dev.reads;
    int rc = st->range(st->ctx, records / 2, 1000, &got);
    if (rc || got != 1000) {
        fprintf(stderr, "%s: time range read %u of 1000 records (%d)\n", st->name, got, rc);
        return -1;
    }
    snprintf(cell[i][M_RANGE], sizeof(cell[0][0]), "%.2f ms (%llu reads)",
             (double)(sim.now_ns - t0) / 1e6, (unsigned long long)(dev.reads - r0));
    t0 = sim.now_ns;
    r0 = dev.reads;
    rc = st->latest(st->ctx, 100, &got);
    if (rc || got != 100) {
        fprintf(stderr, "%s: latest read %u of 100 records (%d)\n", st->name, got, rc);
        return -1;
    }
    snprintf(cell[i][M_LATEST], sizeof(cell[0][0]), "%.2f ms (%llu reads)",
             (double)(sim.now_ns - t0) / 1e6, (unsigned long long)(dev.reads - r0));
    st->close(st->ctx);
    return 0;
}

/* ---- the study's three streams, jittered -------------------------------- */
/* imu 1 kHz x 12 B, ppg 100 Hz x 24 B, env 1 Hz x 64 B (the study's
 * logger), each sample stamped within +-5 % of its period of where it is due
 * (a sampling interrupt's latency), in 10-us ticks (a 32-bit stamp covers
 * the 4,900 s the 16 MiB NOR's laps take; FlashDB's stamps are 32-bit),
 * interleaved in stamp order, each stamp above the one before (FlashDB
 * refuses any other). Record contents follow from the stamp. */
static const uint32_t study_period[3] = {100, 1000, 100000}; /* ticks of 10 us */
static const uint8_t study_len[3] = {12, 24, 64};

struct study {
    struct sts_rng rng;
    uint64_t due[3], last;
};

static void fill(uint8_t *rec, size_t len, uint64_t ts)
{
    for (size_t b = 0; b < len; b++)
        rec[b] = (uint8_t)(sts_mix64(ts * 131u + b) >> 24);
    peer_stamp(rec, ts);
}

/* The next sample: its stream, length and stamp. */
static uint8_t study_next(struct study *g, uint64_t *ts)
{
    uint8_t k = 0;
    for (uint8_t i = 1; i < 3; i++)
        if (g->due[i] < g->due[k])
            k = i;
    uint64_t j = study_period[k] / 20, t = g->due[k] + sts_rng_below(&g->rng, 2 * j + 1);
    t = t > j ? t - j : 0;
    g->due[k] += study_period[k];
    *ts = t > g->last ? t : g->last + 1;
    g->last = *ts;
    return k;
}

/* The three streams until `until` bytes of payload, a sync each second of
 * device time. */
static int write_study(const struct peer_store *st, uint64_t until, struct study *g,
                       struct writing *w)
{
    uint8_t rec[64];
    struct writing m = start_writing();
    uint64_t next_sync = sim.now_ns + 1000000000ull;
    w->payload = w->records = 0;
    while (w->payload < until) {
        uint64_t ts;
        uint8_t k = study_next(g, &ts);
        fill(rec, study_len[k], ts);
        int rc = st->append(st->ctx, k, ts, rec, study_len[k]);
        if (!rc && sim.now_ns >= next_sync) {
            rc = st->sync(st->ctx);
            next_sync = sim.now_ns + 1000000000ull;
        }
        if (rc) {
            fprintf(stderr, "%s: append %llu of the three streams failed (%d)\n", st->name,
                    (unsigned long long)w->records, rc);
            return -1;
        }
        w->payload += study_len[k];
        w->records++;
    }
    return finish_writing(st, &m, w);
}

/* The three streams through a 16 MiB NOR, counted as nor_after_wraps
 * counts one stream; then 4 MiB of them on the eMMC. */
static int study_streams(int i, const struct peer_store *st, unsigned passes)
{
    const uint64_t cap = 16ull << 20;
    struct study g;
    memset(&g, 0, sizeof(g));
    sts_rng_seed(&g.rng, 40);
    struct writing lap1, laps, w;
    if (device("nor-spi", cap, 64))
        return -1;
    env.streams = 3;
    if (st->open(st->ctx, &env) || write_study(st, cap, &g, &lap1) ||
        write_study(st, (passes - 1) * cap, &g, &laps) || write_study(st, cap / 4, &g, &w))
        return -1;
    st->close(st->ctx);
    double mib = (double)(laps.payload + w.payload) / (1 << 20);
    snprintf(cell[i][M_STUDY_NOR], sizeof(cell[0][0]), "%.1f KB/s; %.2f; %.1f", kbs(&w),
             (double)(laps.programmed + w.programmed) / (double)(laps.payload + w.payload),
             (double)(laps.erased + w.erased) / env.geo.erase_size / mib);
    fprintf(stderr, "  %s three streams, NOR: %s\n", st->name, cell[i][M_STUDY_NOR]);
    if (st->nor_only)
        return 0;
    memset(&g, 0, sizeof(g));
    sts_rng_seed(&g.rng, 40);
    if (device("emmc-stm32u5", 256ull << 20, 64))
        return -1;
    env.streams = 3;
    if (st->open(st->ctx, &env) || write_study(st, 4ull << 20, &g, &w))
        return -1;
    st->close(st->ctx);
    snprintf(cell[i][M_STUDY_EMMC], sizeof(cell[0][0]), "%.0f KB/s; %.2f", kbs(&w),
             (double)w.programmed / (double)w.payload);
    fprintf(stderr, "  %s three streams, eMMC: %s\n", st->name, cell[i][M_STUDY_EMMC]);
    return 0;
}

/* ---- durability: one power-cut sweep for every store -------------------- */
/* A 1 MiB `nor-spi`; 12-byte records (contents that follow from the stamp),
 * a sync after every 16th; the power goes during the device command a
 * seeded draw picks among all the run's commands (each store's run counted
 * first without a cut), the run going on until the chip was erased 1.5
 * times over after formatting, so cuts land in the store's recycling too.
 * Then the store is mounted as a logger boots and every record it returns
 * is checked: a record synced before the cut, from the oldest returned on,
 * that does not come back is lost - unless the store says it passed them
 * over as evicted (an eviction the cut stopped: the oldest gap, exactly
 * that many); a record that comes back other than as written (torn, out of
 * order, never appended) is wrong. */
#define CUT_SYNC_EVERY 16u
struct cut_check {
    uint64_t synced, appended, prev, got, lost, wrong; /* appended: the last tried */
    uint64_t first_gap, first_gap_lost; /* the oldest gap: records, synced ones */
};

static void check_one(void *arg, uint8_t stream, const uint8_t *rec, size_t len)
{
    struct cut_check *c = arg;
    uint8_t want[12];
    uint64_t ts = len == 12 ? peer_stamp_of(rec) : 0;
    if (ts)
        fill(want, 12, ts);
    if (stream || !ts || ts <= c->prev || ts > c->appended || memcmp(want, rec, 12)) {
        c->wrong++;
        return;
    }
    uint64_t top = ts - 1 < c->synced ? ts - 1 : c->synced;
    if (c->got && top > c->prev) /* a gap: what was synced in it is lost */
        c->lost += top - c->prev;
    if (c->got && ts > c->prev + 1 && !c->first_gap) {
        c->first_gap = ts - c->prev - 1;
        c->first_gap_lost = top > c->prev ? top - c->prev : 0;
    }
    c->prev = ts;
    c->got++;
}

/* One run; cut_op 0: none (counts the run's commands into *ops). */
static int cut_run(const struct peer_store *st, uint64_t cut_op, uint64_t *ops,
                   struct cut_check *c)
{
    const uint64_t cap = 1ull << 20;
    uint8_t rec[12];
    memset(c, 0, sizeof(*c));
    if (device("nor-spi", cap, 12) || st->open(st->ctx, &env))
        return -1;
    uint64_t op0 = sim.host_ops, e0 = dev.erased;
    if (cut_op) {
        struct sts_sim_faults f = {0};
        f.cut_after_ops = op0 + cut_op;
        sts_sim_set_faults(&sim, &f);
    }
    for (uint64_t ts = 1; !sim.off && 2 * (dev.erased - e0) < 3 * cap; ts++) {
        fill(rec, sizeof(rec), ts);
        c->appended = ts; /* (one whose append the cut stopped may come back whole) */
        int rc = st->append(st->ctx, 0, ts, rec, sizeof(rec));
        if (rc || sim.off)
            break;
        if (ts % CUT_SYNC_EVERY == 0) {
            rc = st->sync(st->ctx);
            if (rc || sim.off)
                break;
            c->synced = ts;
        }
    }
    *ops = sim.host_ops - op0;
    if (!cut_op) {
        st->close(st->ctx);
        return 0;
    }
    sts_sim_power_on(&sim); /* (a cut drawn past the run's end: none came) */
    return 0;
}

static int power_cuts(int i, const struct peer_store *st, unsigned cuts)
{
    uint64_t ops, got;
    struct cut_check c;
    if (cut_run(st, 0, &ops, &c) || !ops)
        return -1;
    struct sts_rng rng;
    sts_rng_seed(&rng, 16);
    unsigned lossy = 0, failed_mounts = 0;
    uint64_t lost = 0, wrong = 0;
    for (unsigned k = 0; k < cuts; k++) {
        uint64_t at = 1 + sts_rng_below(&rng, ops), n;
        if (cut_run(st, at, &n, &c))
            return -1;
        if (st->mount(st->ctx, &env)) { /* every synced record is out of reach */
            failed_mounts++;
            lossy += c.synced > 0;
            lost += c.synced;
            continue;
        }
        uint64_t evicted = 0;
        int rc = st->each(st->ctx, check_one, &c, &evicted);
        st->close(st->ctx);
        /* the oldest gap, when the store says those records were being
         * evicted (the records before it are what the eviction had not
         * reached yet), is not a loss */
        if (evicted && c.first_gap == evicted)
            c.lost -= c.first_gap_lost;
        got = c.prev; /* the newest record returned */
        if (rc || got < c.synced)
            c.lost += c.synced > got ? c.synced - got : 0;
        lossy += c.lost > 0;
        lost += c.lost;
        wrong += c.wrong;
        if (c.lost || c.wrong) /* what a store's author needs to look at it */
            fprintf(stderr, "  %s: the cut during command %llu of %llu: %llu synced records "
                    "lost (synced up to %llu, the newest back %llu), %llu wrong\n", st->name,
                    (unsigned long long)at, (unsigned long long)ops,
                    (unsigned long long)c.lost, (unsigned long long)c.synced,
                    (unsigned long long)got, (unsigned long long)c.wrong);
    }
    snprintf(cell[i][M_CUTS], sizeof(cell[0][0]), "%u of %u cuts (%llu records)", lossy, cuts,
             (unsigned long long)lost);
    snprintf(cell[i][M_CUTS_WRONG], sizeof(cell[0][0]), "%llu; %u mounts failed",
             (unsigned long long)wrong, failed_mounts);
    fprintf(stderr, "  %s power cuts: lost synced records in %s, wrong records %s\n", st->name,
            cell[i][M_CUTS], cell[i][M_CUTS_WRONG]);
    return 0;
}

/* A whole decimal number in [lo, hi], or -1: "x", "" and "3k" are refused
 * (they used to run 0 passes, or all of them). */
static int number_arg(const char *s, unsigned long long lo, unsigned long long hi,
                      unsigned long long *out)
{
    char *end = NULL;
    if (!s || *s < '0' || *s > '9')
        return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: sensorlog_peers [--passes N (1..100)] [--records N (>= 2000)] "
                    "[--cuts N] [--only sensorlog|\"sensorlog, 4 KiB RAM\"|littlefs|"
                    "\"littlefs, best\"|\"FlashDB TSDB\"|\"FlashDB TSDB, best\"] [--cpu N]\n");
    return 2;
}

int main(int argc, char **argv)
{
    unsigned passes = 3, cuts = 100;
    uint64_t records = 1000000, cpu_records = 0;
    const char *only = NULL;
    for (int a = 1; a < argc; a += 2) {
        const char *v = a + 1 < argc ? argv[a + 1] : NULL;
        unsigned long long n = 0;
        if (!strcmp(argv[a], "--passes") && !number_arg(v, 1, 100, &n))
            passes = (unsigned)n;
        else if (!strcmp(argv[a], "--records") && !number_arg(v, 2000, 1ull << 32, &n))
            records = n;
        else if (!strcmp(argv[a], "--only") && v &&
                 (!strcmp(v, "sensorlog") || !strcmp(v, "sensorlog, 4 KiB RAM") ||
                  !strcmp(v, "littlefs") ||
                  !strcmp(v, "littlefs, best") || !strcmp(v, "FlashDB TSDB") ||
                  !strcmp(v, "FlashDB TSDB, best")))
            only = v;
        else if (!strcmp(argv[a], "--cuts") && !number_arg(v, 1, 100000, &n))
            cuts = (unsigned)n;
        else if (!strcmp(argv[a], "--cpu") && !number_arg(v, 1, 1ull << 32, &n))
            cpu_records = n;
        else
            return usage();
    }
    /* littlefs twice: as issue 16 first configured it (4 KiB blocks, caches
     * of one program unit) and at its best for each medium (issue 40) */
    const struct peer_store *stores[N_STORES] = {peer_sensorlog, peer_sensorlog_small,
                                                 peer_littlefs, peer_littlefs_best,
                                                 peer_flashdb, peer_flashdb_best};
    const char *names[N_STORES] = {"sensorlog", "sensorlog, 4 KiB RAM", "littlefs",
                                   "littlefs, best", "FlashDB TSDB", "FlashDB TSDB, best"};
    const char *missing[N_STORES] = {"", "", "not built: give -DSTORSCOPE_LITTLEFS_DIR",
                                     "not built: give -DSTORSCOPE_LITTLEFS_DIR",
                                     "not built: give -DSTORSCOPE_FLASHDB_DIR",
                                     "not built: give -DSTORSCOPE_FLASHDB_DIR"};
    if (cpu_records) { /* N 12-byte records on the NOR, a sync each second: for callgrind */
        for (int i = 0; i < N_STORES; i++) {
            if (!stores[i] || (only && strcmp(only, names[i])))
                continue;
            uint64_t ts = 0;
            struct writing w;
            if (device("nor-spi", 16ull << 20, 12) || stores[i]->open(stores[i]->ctx, &env))
                return 1;
            peer_cpu_start();
            if (write_records(stores[i], 12, cpu_records * 12, 0, &ts, &w))
                return 1;
            stores[i]->close(stores[i]->ctx);
            printf("%s: %llu records\n", names[i], (unsigned long long)w.records);
        }
        free(arena);
        return 0;
    }
    int bad = 0;
    for (int i = 0; i < N_STORES; i++) {
        for (int m = 0; m < M_N; m++)
            snprintf(cell[i][m], sizeof(cell[0][0]), "%s", stores[i] ? "failed" : missing[i]);
        if (stores[i] && only && strcmp(only, names[i]))
            for (int m = 0; m < M_N; m++)
                snprintf(cell[i][m], sizeof(cell[0][0]), "not run (--only)");
        if (!stores[i] || (only && strcmp(only, names[i])))
            continue;
        fprintf(stderr, "%s ...\n", names[i]);
        int rc = nor_after_wraps(i, stores[i], passes);
        rc |= study_streams(i, stores[i], passes);
        rc |= nor_sync_each(i, stores[i]);
        rc |= power_cuts(i, stores[i], cuts);
        if (stores[i]->nor_only) {
            for (int m = M_EMMC_KBS; m < M_N; m++)
                if (m != M_RAM)
                    snprintf(cell[i][m], sizeof(cell[0][0]), "NOR only");
            continue;
        }
        rc |= emmc_speed(i, stores[i]);
        rc |= queries(i, stores[i], records);
        bad |= rc;
    }
    static const char *rows[M_N] = {
        NULL, "4 KiB sectors erased per MiB of payload there (wear; 12/64/256 B)",
        "erase commands per MiB of payload there (12/64/256 B)",
        "bytes written per payload byte, NOR (12/64/256 B)",
        "the study's three streams, jittered: the same NOR, KB/s; bytes written per payload byte; "
        "sectors erased per MiB",
        "sync after every 12-B record, 1 MiB NOR after it wrapped twice, KB/s",
        "records of 12 B it then holds (payload as a share of the chip)",
        "power cuts on a 1 MiB NOR (sync every 16 records): cuts that lost a synced record",
        "records returned that were not as written (torn, out of order); mounts that failed",
        "`emmc-stm32u5`, KB/s (12/64/256 B)",
        "the three streams on `emmc-stm32u5`, KB/s; bytes written per payload byte",
        "RAM as configured here, on the NOR", "RAM as configured here, on `emmc-stm32u5`",
        NULL, "latest 100 records",
    };
    printf("(power cuts: %u, each during a command drawn from all of a run's)\n\n", cuts);
    printf("| measure |");
    for (int i = 0; i < N_STORES; i++)
        printf(" %s |", names[i]);
    printf("\n| --- |");
    for (int i = 0; i < N_STORES; i++)
        printf(" --- |");
    printf("\n");
    for (int m = 0; m < M_N; m++) {
        char label[160];
        if (m == M_NOR_KBS)
            snprintf(label, sizeof(label),
                     "16 MiB `nor-spi`, after the log wrapped %u times, KB/s (12/64/256 B)", passes);
        else if (m == M_RANGE)
            snprintf(label, sizeof(label), "%llu records on eMMC: 1,000-record time range",
                     (unsigned long long)records);
        else
            snprintf(label, sizeof(label), "%s", rows[m]);
        printf("| %s |", label);
        for (int i = 0; i < N_STORES; i++)
            printf(" %s |", cell[i][m]);
        printf("\n");
    }
    printf("\nConfigurations:\n");
    for (int i = 0; i < N_STORES; i++)
        printf("- %s: %s\n", names[i], stores[i] ? stores[i]->config : missing[i]);
    free(arena);
    return bad ? 1 : 0;
}
