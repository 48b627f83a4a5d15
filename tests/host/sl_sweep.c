/* sensorlog's durability sweep: power cuts after every device command k
 * (and a second cut 1..40 commands into the recovery), single bit flips
 * and 8-bit bursts in a synced image, and transient read errors during
 * mount, on simulated NOR, NAND, eMMC and SD with their real page sizes
 * and the library's default chunk and segment sizes.
 *
 * The oracle is independent of the store: the harness keeps, per stream,
 * how many records were appended and how many were covered by the last
 * sl_sync() that returned SL_OK. A record carries its stream's
 * incarnation and its index, and its bytes and timestamp follow from them,
 * so a record returned from the wrong place, twice, or damaged is caught.
 * After remounting, every record covered by a sync must be there, once,
 * in order, unless it is older than the oldest record the log still holds
 * (the log recycles its oldest segment by design).
 *
 *   sensorlog_sweep [--cuts N] [--flips N] [--scale N] [--seed S] [--only NAME]
 *                   [--trial K SECOND] [-v]
 *
 * --cuts N: first cuts per configuration (each k in 1..N, at most the
 * workload's command count); --scale N: a workload N times as long (more
 * commands to cut); --flips N: flips and bursts per configuration;
 * --trial: one power-cut trial, to look at. Exit 0 when nothing synced was lost and no wrong data was
 * returned; the counts are printed either way. */
#include "sensorlog/sensorlog.h"
#include "sl_sweep.h"
#include "storscope/error.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct sweep_config configs[] = {
    {"nor-defaults", "nor-spi", 256u << 10, 0, 0, 0, 0, 900, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"nor-1k-chunks", "nor-spi", 128u << 10, 0, 1024, 8192, 0, 900, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* 2 MiB in 1 KiB chunks: the default segment (16 KiB) doubles to 128 KiB */
    {"nor-doubled-segments", "nor-spi", 2u << 20, 0, 1024, 0, 0, 7200, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* the pump erases 64 KiB blocks (SPI NOR's large erase): cuts inside one */
    {"nor-large-erase", "nor-spi", 1u << 20, 0, 1024, 64u << 10, 0, 900, 64u << 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* a log formatted over an old one: its segments must never come back */
    {"nor-reformatted", "nor-spi", 256u << 10, 0, 1024, 16u << 10, 0, 900, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"emmc-reformatted", "emmc-stm32u5", 2u << 20, 256u << 10, 0, 0, 0, 900, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"nand-defaults", "nand-slc", 1u << 20, 0, 0, 0, 0, 900, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"emmc-defaults", "emmc-stm32u5", 2u << 20, 256u << 10, 0, 0, 0, 900, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"emmc-nonblocking", "emmc-stm32u5", 2u << 20, 256u << 10, 0, 0, 1, 900, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"sd-defaults", "sd-consumer", 2u << 20, 256u << 10, 0, 0, 0, 900, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* erases suspended every 1 ms (SPI NOR erase suspend): cuts between the
     * slices, with writes in between, and in a suspended 64 KiB block */
    {"nor-sliced-erase", "nor-spi", 256u << 10, 0, 1024, 16u << 10, 0, 900, 0, 0, 1000000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"nor-large-sliced", "nor-spi", 512u << 10, 0, 1024, 64u << 10, 0, 1800, 64u << 10, 0, 5000000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* fixed-size records in bursts: runs, cut anywhere in them */
    {"nor-runs", "nor-spi", 256u << 10, 0, 0, 0, 0, 900, 0, 0, 0, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* a catalog of 3 pages, streams created and deleted at 35 % of steps:
     * segments fill with catalog updates and the updated pages are written
     * again every 29 catalog chunks, cut anywhere in that */
    {"nor-catalog-pages", "nor-spi", 256u << 10, 0, 1024, 64u << 10, 0, 900, 0, 0, 0, 0, 120, 35, 0, 0, 0, 0, 0, 0, 0, 0},
    /* the dirty world (issue 40): formatted over another filesystem's data
     * with blank blocks between; pages that fail to program for good, their
     * blocks retired when the log comes round; a reader in step with the
     * writer that the log wraps past */
    {.name = "nor-dirty", .profile = "nor-spi", .capacity = 256u << 10, .chunk = 1024,
     .segment = 16u << 10, .workload_steps = 900, .prefill_pct = 50},
    {.name = "nand-growing-bad", .profile = "nand-slc", .capacity = 1u << 20,
     .erase_bytes = 16u << 10, .workload_steps = 900, .prog_error_ppm = 4000},
    {.name = "nor-reader", .profile = "nor-spi", .capacity = 128u << 10, .chunk = 1024,
     .segment = 8192, .workload_steps = 900, .reader = 1},
    /* a sync after every record (issue 40): chunks go on in pieces, one a
     * page, cut anywhere in them; on NAND two 2 KiB pages a chunk; and a
     * reader following the writer through the pieces */
    {.name = "nor-sync-each", .profile = "nor-spi", .capacity = 256u << 10,
     .workload_steps = 900, .sync_each = 1},
    {.name = "nand-sync-each", .profile = "nand-slc", .capacity = 1u << 20,
     .erase_bytes = 16u << 10, .workload_steps = 900, .sync_each = 1},
    {.name = "nor-sync-reader", .profile = "nor-spi", .capacity = 128u << 10,
     .segment = 16u << 10, .workload_steps = 900, .reader = 1, .sync_each = 1},
    /* session 23: nor-spi has no ECC (a cut leaves bits, pieces a byte
     * apart); the page-rule path on a NOR that has it */
    {.name = "nor-ecc-sync-each", .profile = "nor-spi", .capacity = 256u << 10,
     .workload_steps = 900, .sync_each = 1, .ecc = 1},
    /* blocks that go bad without a word (littlefs's emulated PROGNOOP and
     * ERASENOOP): caught by reading back each program, then as above */
    {.name = "nand-silent-bad", .profile = "nand-slc", .capacity = 1u << 20,
     .erase_bytes = 16u << 10, .workload_steps = 900, .prog_error_ppm = 4000, .silent = 1,
     .verify = 1},
    {.name = "nor-silent-bad-sync-each", .profile = "nor-spi", .capacity = 256u << 10,
     .chunk = 1024, .segment = 16u << 10, .workload_steps = 900, .prog_error_ppm = 1000,
     .silent = 1, .verify = 1, .sync_each = 1},
    /* flash that erases to 0x00 (a program sets bits), seen through
     * sts_invertbd: cuts leave their bits half-way the other way */
    {.name = "nor-erases-to-zero", .profile = "nor-spi", .capacity = 256u << 10,
     .chunk = 1024, .segment = 16u << 10, .workload_steps = 900, .erases_to_zero = 1},
    {.name = "nor-erases-to-zero-sync-each", .profile = "nor-spi", .capacity = 256u << 10,
     .workload_steps = 900, .erases_to_zero = 1, .sync_each = 1},
    /* pieces that fail to program on NOR (session 30: segments retired with
     * their old headers were taken for live ones at mount, and a reader's
     * pass stopped at the first, 46 synced records unread) */
    {.name = "nor-failing-pieces", .profile = "nor-spi", .capacity = 256u << 10,
     .chunk = 1024, .segment = 16u << 10, .workload_steps = 900, .prog_error_ppm = 1000,
     .sync_each = 1},
};

/* ---- one power-cut trial -------------------------------------------------- */
static int cut_happened(const struct trial *t)
{
    return t->sim.off;
}

enum { TRIAL_OK, TRIAL_LOST, TRIAL_NO_CUT };
static uint32_t recovery_steps = 300, workload_scale = 1;

/* The trial's verdict, or a loss when the reader got what it should not. */
static int reader_verdict(struct trial *t, int verdict)
{
    if (!t->rwrong)
        return verdict;
    snprintf(t->why, sizeof(t->why), "%s", t->rwhy);
    return TRIAL_LOST;
}

static int mount(struct trial *t)
{
    t->rstarted = 0; /* an iterator does not outlive the mount it was made on */
    return sl_mount(&t->log, &t->cfg);
}

/* Runs the workload with a power cut during command k, then mounts (with a
 * second cut `second` commands into the recovery, 0 none), writes a
 * little, remounts and checks. */
static int cut_trial(struct trial *t, const struct sweep_config *c, uint64_t k, uint64_t second,
                     uint64_t *lost, uint64_t *wrong)
{
    struct sts_bd_ops ops;
    *lost = *wrong = 0;
    if (trial_init(t, c, 1))
        return snprintf(t->why, sizeof(t->why), "no memory"), TRIAL_LOST;
    hide_submit(t, &ops);
    int rc = sl_format(&t->log, &t->cfg);
    if (!rc && c->reformat) {
        /* an old log over the medium, then a format over it: the oracle
         * forgets the old records, so any of them read back is wrong */
        rc = workload(t, c->workload_steps);
        if (!rc)
            rc = sync_all(t);
        memset(t->inc, 0, sizeof(t->inc));
        t->n_inc = 0;
        for (uint64_t ts = 0; ts < t->ts; ts++)
            t->rec_inc[ts] = NO_INC; /* forgotten: read back, it is wrong */
        t->evicted_end = 0;
        t->slack = 0;
        if (!rc)
            rc = sl_format(&t->log, &t->cfg);
    }
    if (rc)
        return snprintf(t->why, sizeof(t->why), "format: %d", rc), TRIAL_LOST;
    struct sts_sim_faults f = {.cut_after_ops = t->sim.host_ops + k - 1};
    base_faults(c, &f);
    sts_sim_set_faults(&t->sim, &f);
    rc = workload(t, c->workload_steps * workload_scale);
    if (!cut_happened(t)) {
        if (rc)
            return snprintf(t->why, sizeof(t->why), "workload failed without a cut: %d", rc),
                   TRIAL_LOST;
        return reader_verdict(t, TRIAL_NO_CUT);
    }
    sts_sim_power_on(&t->sim);
    if (second) {
        struct sts_sim_faults f2 = {.cut_after_ops = t->sim.host_ops + second - 1};
        base_faults(c, &f2);
        sts_sim_set_faults(&t->sim, &f2);
    }
    rc = mount(t);
    if (!rc && !cut_happened(t)) {
        int bad = check(t, lost, wrong);
        if (cut_happened(t))
            goto final; /* cut while reading: what was read proves nothing */
        if (bad)
            return TRIAL_LOST;
        adopt_medium(t);
        /* the recovery: a new stream and more records, synced */
        rc = create(t);
        for (uint32_t j = 0; j < 30 && !rc; j++) {
            int i = pick_alive(t);
            rc = i < 0 ? SL_OK : append_one(t, (uint32_t)i);
        }
        if (!rc)
            rc = sync_all(t);
        if (!rc) /* on round the medium, through the segment the cut hit */
            rc = workload(t, recovery_steps);
    }
    if (rc && !cut_happened(t))
        return snprintf(t->why, sizeof(t->why), "recovery failed without a cut: %d", rc),
               TRIAL_LOST;
final:
    *lost = *wrong = 0;
    sts_sim_power_on(&t->sim);
    struct sts_sim_faults none = {0};
    base_faults(c, &none);
    sts_sim_set_faults(&t->sim, &none);
    rc = mount(t);
    if (rc) {
        for (uint32_t i = 0; i < t->n_inc; i++)
            *lost += t->inc[i].alive ? t->inc[i].durable : 0;
        snprintf(t->why, sizeof(t->why), "final mount: %d", rc);
        return *lost ? TRIAL_LOST : TRIAL_OK;
    }
    if (check(t, lost, wrong))
        return TRIAL_LOST;
    /* a mount that misjudged what it found (a half-erased segment taken for
     * erased, a torn one for free) shows only once writing goes on over it */
    adopt_medium(t);
    rc = workload(t, recovery_steps);
    if (!rc)
        rc = sync_all(t);
    if (!rc)
        rc = mount(t);
    if (rc)
        return snprintf(t->why, sizeof(t->why), "writing after recovery failed: %d", rc),
               TRIAL_LOST;
    if (check(t, lost, wrong)) {
        size_t n = strlen(t->why);
        snprintf(t->why + n, sizeof(t->why) - n, " (after writing on)");
        return TRIAL_LOST;
    }
    return reader_verdict(t, TRIAL_OK);
}

/* ---- bit flips and bursts ---------------------------------------------- */
/* Damages bits [bit, bit + width) of the stored page that holds byte addr,
 * as wear or a disturbed cell would: the model's store is changed in place. */
static int damage(struct trial *t, uint64_t addr, uint32_t width, uint8_t pattern)
{
    struct sts_sim *s = &t->sim;
    uint32_t pb = s->p.page_bytes, page = (uint32_t)(addr / pb);
    if (!s->store_map || !s->store_map[page])
        return 0; /* nothing stored there: reads return blank */
    uint8_t *p = s->store + (size_t)(s->store_map[page] - 1) * pb + addr % pb;
    if (width == 1)
        *p ^= (uint8_t)(1u << (pattern & 7));
    else
        *p ^= pattern ? pattern : 0xA5;
    return 1;
}

/* A synced log, one flip or burst, a mount and a read. Nothing wrong may
 * come back; what is lost must fit in one chunk and be reported. */
static int flip_trial(struct trial *t, const struct sweep_config *c, uint64_t seed, int burst,
                      uint64_t *lost, uint64_t *wrong, uint64_t *reported)
{
    struct sts_bd_ops ops;
    *lost = *wrong = *reported = 0;
    if (trial_init(t, c, 1))
        return TRIAL_LOST;
    hide_submit(t, &ops);
    if (sl_format(&t->log, &t->cfg) || workload(t, c->workload_steps / 3) || sync_all(t))
        return snprintf(t->why, sizeof(t->why), "clean run failed"), TRIAL_LOST;
    struct sts_rng rng;
    sts_rng_seed(&rng, seed);
    uint64_t addr;
    int tries = 0;
    do
        addr = sts_rng_below(&rng, c->capacity);
    while (!damage(t, addr, burst ? 8 : 1, (uint8_t)sts_rng_below(&rng, 256)) && ++tries < 1000);
    /* a damaged first chunk hides where the oldest segment starts */
    t->slack = (t->log.chunk - 48) / 7 + 1;
    int rc = mount(t);
    if (rc) {
        for (uint32_t i = 0; i < t->n_inc; i++)
            *lost += t->inc[i].alive ? t->inc[i].durable : 0;
        snprintf(t->why, sizeof(t->why), "mount after a flip at %" PRIu64 ": %d", addr, rc);
        return TRIAL_LOST;
    }
    check(t, lost, wrong);
    struct sl_stats st;
    sl_stats(&t->log, &st);
    /* (damage to the newest chunk's last piece looks like a power cut's
     * torn end in every byte: mount says it found one, torn_pieces) */
    *reported = st.corrupt_chunks + st.repaired + t->torn + st.torn_pieces;
    t->torn_pieces = st.torn_pieces;
    uint32_t per_chunk = (t->log.chunk - 48) / 8 + 1;
    if (*wrong || *lost > per_chunk || (*lost && !*reported)) {
        if (!t->why[0])
            snprintf(t->why, sizeof(t->why), "flip at %" PRIu64, addr);
        size_t n = strlen(t->why);
        snprintf(t->why + n, sizeof(t->why) - n, " (flip at %" PRIu64 ", reported %" PRIu64 ")",
                 addr, *reported);
        return TRIAL_LOST;
    }
    return TRIAL_OK;
}

/* Transient read errors while mounting: the mount may fail (and be
 * retried) but must never lead the writer to erase synced data. */
static int read_error_trial(struct trial *t, const struct sweep_config *c, uint64_t seed,
                            uint64_t *lost, uint64_t *wrong)
{
    struct sts_bd_ops ops;
    *lost = *wrong = 0;
    if (trial_init(t, c, seed))
        return TRIAL_LOST;
    hide_submit(t, &ops);
    if (sl_format(&t->log, &t->cfg) || workload(t, c->workload_steps / 2) || sync_all(t))
        return snprintf(t->why, sizeof(t->why), "clean run failed"), TRIAL_LOST;
    struct sts_sim_faults f = {.read_error_ppm = 100000 + (uint32_t)(seed % 5) * 100000};
    sts_sim_set_faults(&t->sim, &f);
    int rc = mount(t);
    struct sts_sim_faults none = {0};
    sts_sim_set_faults(&t->sim, &none);
    if (rc == SL_OK) { /* write on: the first segment opened must not be one with data */
        if (workload(t, 40) || sync_all(t))
            return snprintf(t->why, sizeof(t->why), "writing after the mount failed"),
                   TRIAL_LOST;
    }
    if (mount(t))
        return snprintf(t->why, sizeof(t->why), "clean remount failed"), TRIAL_LOST;
    return check(t, lost, wrong) ? TRIAL_LOST : TRIAL_OK;
}

/* ---- main ------------------------------------------------------------------ */
int main(int argc, char **argv)
{
    uint64_t cuts = 400, flips = 200, seed = 1;
    const char *only = NULL;
    uint64_t one_k = 0, one_second = 0;
    int verbose = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--cuts") && i + 1 < argc)
            cuts = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--flips") && i + 1 < argc)
            flips = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--scale") && i + 1 < argc)
            workload_scale = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--trial") && i + 2 < argc) {
            one_k = strtoull(argv[++i], NULL, 10);
            one_second = strtoull(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "-v"))
            verbose = 1;
        else {
            fprintf(stderr, "usage: %s [--cuts N] [--flips N] [--scale N] [--seed S] [--only CONFIG]\n"
                    "       [--trial K SECOND] [-v]\n",
                    argv[0]);
            return 2;
        }
    }
    int known = !only;
    for (size_t ci = 0; ci < sizeof(configs) / sizeof(configs[0]) && !known; ci++)
        known = !strcmp(only, configs[ci].name);
    if (!known) { /* a typo would otherwise sweep nothing and pass */
        fprintf(stderr, "%s: no configuration named '%s'; they are:", argv[0], only);
        for (size_t ci = 0; ci < sizeof(configs) / sizeof(configs[0]); ci++)
            fprintf(stderr, " %s", configs[ci].name);
        fprintf(stderr, "\n");
        return 2;
    }
    static struct trial t;
    uint64_t total_cuts = 0, total_lost_trials = 0, total_flips = 0, flip_bad = 0;
    uint64_t flip_lost_records = 0, flip_reported = 0, rerr_trials = 0, rerr_bad = 0;
    for (size_t ci = 0; ci < sizeof(configs) / sizeof(configs[0]); ci++) {
        const struct sweep_config *c = &configs[ci];
        if (only && strcmp(only, c->name))
            continue;
        uint64_t lost_trials = 0, n = 0, lost_records = 0, shown = 0;
        free(t.arena);
        t.arena = NULL;
        if (one_k) {
            uint64_t lost, wrong;
            int r = cut_trial(&t, c, one_k, one_second, &lost, &wrong);
            printf("%s: cut %" PRIu64 ", second %" PRIu64 ": %s %s\n", c->name, one_k, one_second,
                   r == TRIAL_OK ? "ok" : r == TRIAL_NO_CUT ? "no cut" : "LOST", t.why);
            total_lost_trials += r == TRIAL_LOST; /* the exit status says it too */
            continue;
        }
        for (uint64_t k = 1; k <= cuts; k++) {
            uint64_t lost, wrong;
            uint64_t second = 1 + (k * 7 + seed) % 40; /* 1 .. 40 */
            int r = cut_trial(&t, c, k, second, &lost, &wrong);
            if (r == TRIAL_NO_CUT)
                break; /* past the workload's last command */
            n++;
            if (r == TRIAL_LOST) {
                lost_trials++;
                lost_records += lost;
                if (verbose || shown++ < 3)
                    printf("  %s: cut after command %" PRIu64 ", second cut %" PRIu64 ": %s\n",
                           c->name, k, second, t.why);
            }
        }
        printf("%-18s power cuts: %6" PRIu64 " tried, %4" PRIu64 " lost synced data (%" PRIu64
               " records)\n", c->name, n, lost_trials, lost_records);
        if (c->reader)
            printf("%-18s reader: %" PRIu64 " records checked, %" PRIu64 " passes overtaken by "
                   "the writer\n", c->name, reader_records, reader_overtaken);
        total_cuts += n;
        total_lost_trials += lost_trials;
        uint64_t bad = 0, fl_lost = 0, fl_rep = 0, fl_bytes = 0, fl_torn = 0;
        for (uint64_t j = 0; j < flips; j++) {
            uint64_t lost, wrong, reported;
            int r = flip_trial(&t, c, seed * 1000003 + j, (int)(j & 1), &lost, &wrong, &reported);
            fl_lost += lost;
            fl_bytes += t.lost_bytes;
            fl_rep += reported != 0;
            fl_torn += lost && t.torn_pieces;
            if (r != TRIAL_OK) {
                bad++;
                if (verbose || bad <= 3)
                    printf("  %s: %s %" PRIu64 ": %s\n", c->name, j & 1 ? "burst" : "flip", j,
                           t.why);
            }
        }
        printf("%-18s flips/bursts: %5" PRIu64 " tried, %4" PRIu64 " beyond one chunk, "
               "unreported or wrong; %.2f records (%.0f B) lost per flip; %" PRIu64
               " reported; %" PRIu64 " of them as a torn last piece\n",
               c->name, flips, bad, flips ? (double)fl_lost / (double)flips : 0.0,
               flips ? (double)fl_bytes / (double)flips : 0.0, fl_rep, fl_torn);
        total_flips += flips;
        flip_bad += bad;
        flip_lost_records += fl_lost;
        flip_reported += fl_rep;
        uint64_t rbad = 0;
        for (uint64_t j = 0; j < 20; j++) {
            uint64_t lost, wrong;
            if (read_error_trial(&t, c, seed + j, &lost, &wrong) != TRIAL_OK) {
                rbad++;
                if (verbose || rbad <= 3)
                    printf("  %s: read errors %" PRIu64 ": %s\n", c->name, j, t.why);
            }
        }
        printf("%-18s read errors at mount: 20 tried, %" PRIu64 " lost synced data\n", c->name,
               rbad);
        rerr_trials += 20;
        rerr_bad += rbad;
    }
    printf("total: %" PRIu64 " power cuts, %" PRIu64 " lost synced data; %" PRIu64
           " flips/bursts, %" PRIu64 " failed (%" PRIu64 " records lost, %" PRIu64
           " reported); %" PRIu64 " read-error mounts, %" PRIu64 " lost\n",
           total_cuts, total_lost_trials, total_flips, flip_bad, flip_lost_records, flip_reported,
           rerr_trials, rerr_bad);
    return total_lost_trials || flip_bad || rerr_bad ? 1 : 0;
}
