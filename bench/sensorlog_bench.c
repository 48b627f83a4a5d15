/* sensorlog on simulated media, in virtual time: the study's three streams
 * (imu 1 kHz x 12 B, ppg 100 Hz x 24 B, env 1 Hz x 64 B) logged for a
 * minute with a sync every second, by a pump that runs whenever the RAM
 * buffer fills and once per millisecond tick. Printed per medium: how long
 * the producers were blocked (never: append does not touch the device), the
 * longest single pump step, write amplification, erase spread, and what a
 * mount and a search by timestamp cost in device reads and virtual time.
 *
 * usage: sensorlog_bench [SECONDS]      (build: cmake --build --preset release) */
#define _POSIX_C_SOURCE 200809L
#include "sensorlog/sensorlog.h"
#include "storscope/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct counted {
    struct sts_bd inner;
    uint64_t reads;
};

static int c_read(void *ctx, uint64_t a, void *b, size_t n)
{
    struct counted *c = ctx;
    c->reads++;
    return c->inner.ops->read(c->inner.ctx, a, b, n);
}
static int c_program(void *ctx, uint64_t a, const void *b, size_t n)
{
    struct counted *c = ctx;
    return c->inner.ops->program(c->inner.ctx, a, b, n);
}
static int c_erase(void *ctx, uint64_t a, uint64_t n)
{
    struct counted *c = ctx;
    return c->inner.ops->erase(c->inner.ctx, a, n);
}
static int c_flush(void *ctx)
{
    struct counted *c = ctx;
    return c->inner.ops->flush(c->inner.ctx);
}
static void c_geometry(void *ctx, struct sts_bd_geometry *g)
{
    struct counted *c = ctx;
    c->inner.ops->geometry(c->inner.ctx, g);
}
static const struct sts_bd_ops counted_ops = {
    .version = STS_BD_OPS_VERSION, c_read, c_program, c_erase, c_flush, c_geometry, NULL, NULL,
    NULL
};

static uint64_t sim_now(void *ctx)
{
    return ((struct sts_sim *)ctx)->now_ns;
}

static uint64_t wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The write amplification taken apart, a row per run, printed after the
 * main table: bytes programmed per byte appended, by what they are. */
static char wa_rows[8][256];
static int n_wa_rows;

static void wa_row(const char *profile, uint64_t capacity, uint64_t seconds,
                   const struct sl_stats *st)
{
    double a = st->appended_bytes ? (double)st->appended_bytes : 1.0;
    if (n_wa_rows < 8)
        snprintf(wa_rows[n_wa_rows++], sizeof(wa_rows[0]),
                 "| %s, %llu MiB, %llu s | %.2f | 1.00 | %.3f | %.3f | %.3f | %.3f |", profile,
                 (unsigned long long)(capacity >> 20), (unsigned long long)seconds,
                 st->write_amplification, (double)st->record_header_bytes / a,
                 (double)st->chunk_header_bytes / a, (double)st->padding_bytes / a,
                 (double)st->meta_bytes / a);
}

static int bench(const char *profile, uint64_t capacity, uint32_t segment_bytes, uint64_t seconds)
{
    struct sts_sim_params p = *sts_sim_profile_find(profile);
    p.capacity = capacity;
    p.bad_permille = 0;
    uint64_t keep = 16ull << 20; /* a minute of these streams is under 1 MB */
    size_t arena_bytes = sts_sim_arena_bytes(&p, keep);
    void *arena = malloc(arena_bytes);
    static struct sts_sim sim;
    static struct counted dev;
    if (!arena || sts_sim_init(&sim, &p, 1, arena, arena_bytes, keep, &dev.inner)) {
        fprintf(stderr, "%s: cannot build the model\n", profile);
        free(arena);
        return 1;
    }
    static uint8_t ring[16384], chunk[16384], readb[16384];
    static struct sl_seg_info segs[4096];
    static struct sl_log log;
    static struct sl_stream_info streams[16];
    struct sl_config cfg = {.bd = {&counted_ops, &dev}, .buffer = ring,
                            .buffer_bytes = sizeof(ring), .chunk_buf = chunk,
                            .read_buf = readb, .segs = segs, .n_segs = 4096,
                            .segment_bytes = segment_bytes, .free_segments = 2,
                            .streams = streams, .max_streams = 16,
                            .now_ns = sim_now, .clock_ctx = &sim};
    int rc = sl_format(&log, &cfg);
    uint16_t imu = 0, ppg = 0, env = 0;
    if (!rc)
        rc = sl_stream_create(&log, "imu", &imu);
    if (!rc)
        rc = sl_stream_create(&log, "ppg", &ppg);
    if (!rc)
        rc = sl_stream_create(&log, "env", &env);
    uint8_t rec[64] = {0};
    uint64_t worst_append_wall = 0, full = 0, append_wall = 0, appends = 0;
    /* virtual time advances with the device; the ms tick is the sampling
     * clock, starting once the format (seconds of erases on NOR) is done */
    uint64_t start = sim.now_ns;
    for (uint64_t ms = 0; !rc && ms < seconds * 1000; ms++) {
        uint64_t ts = ms * 1000000ull, due = start + ts;
        if (sim.now_ns < due)
            sim.now_ns = due; /* idle until the next sample */
        uint64_t t0 = wall_ns();
        rc = sl_append(&log, imu, ts, rec, 12);
        if (!rc && ms % 10 == 0)
            rc = sl_append(&log, ppg, ts, rec, 24);
        if (!rc && ms % 1000 == 0)
            rc = sl_append(&log, env, ts, rec, 64);
        uint64_t dt = wall_ns() - t0;
        if (ms >= 1000) { /* after the first second: page faults on first use are not appends */
            worst_append_wall = dt > worst_append_wall ? dt : worst_append_wall;
            append_wall += dt;
            appends++;
        }
        if (rc == SL_EFULL) {
            full++;
            rc = 0;
        }
        /* the I/O task's turn: pump until the device has had this ms */
        while (!rc && sim.now_ns < due + 1000000ull) {
            rc = sl_pump(&log);
            if (rc == SL_BUSY)
                rc = 0;
            else if (!rc)
                break;
        }
        if (!rc && ms % 1000 == 999)
            sl_sync_request(&log);
    }
    if (!rc)
        rc = sl_sync(&log);
    struct sl_stats st;
    sl_stats(&log, &st);
    if (getenv("SL_BENCH_DEBUG"))
        fprintf(stderr, "%s: appended %llu B, programmed %llu B, erases %llu, syncs %llu, "
                        "write errors %llu, bad %llu, evictions %llu\n", profile,
                (unsigned long long)st.appended_bytes, (unsigned long long)st.programmed_bytes,
                (unsigned long long)st.erases, (unsigned long long)st.syncs,
                (unsigned long long)st.write_errors, (unsigned long long)st.bad_segments,
                (unsigned long long)st.evictions);
    uint64_t r0 = dev.reads, t0 = sim.now_ns;
    if (!rc)
        rc = sl_mount(&log, &cfg);
    uint64_t mount_reads = dev.reads - r0, mount_ns = sim.now_ns - t0;
    struct sl_iter it;
    struct sl_record r;
    r0 = dev.reads;
    t0 = sim.now_ns;
    if (!rc)
        rc = sl_iter_from_ts(&log, &it, imu, seconds * 1000000000ull / 2);
    if (!rc)
        rc = sl_iter_next(&it, &r);
    uint64_t search_reads = dev.reads - r0, search_ns = sim.now_ns - t0;
    /* the latest 100 imu records, read out: no search (sl_iter_latest) */
    r0 = dev.reads;
    t0 = sim.now_ns;
    uint64_t got = 0;
    if (!rc)
        rc = sl_iter_latest(&log, &it, imu, 100);
    while (!rc && sl_iter_next(&it, &r) == SL_OK)
        got++;
    uint64_t latest_reads = dev.reads - r0, latest_ns = sim.now_ns - t0;
    if (!rc && got != 100)
        rc = SL_ECORRUPT;
    if (rc) {
        fprintf(stderr, "%s: sensorlog failed (%d)\n", profile, rc);
        free(arena);
        return 1;
    }
    wa_row(profile, capacity, seconds, &st); /* only a run that worked has figures */
    printf("| %s, %llu MiB, %llu s | %u KiB / %u KiB | %llu | %.0f ns / %.1f us | %.2f ms | %.2f | %u..%u | %llu | "
           "%llu (%.1f ms) | %llu (%.2f ms) | %llu (%.2f ms) |\n",
           profile, (unsigned long long)(capacity >> 20), (unsigned long long)seconds,
           log.chunk / 1024, log.seg_bytes / 1024, (unsigned long long)full,
           appends ? (double)append_wall / (double)appends : 0.0, worst_append_wall / 1e3,
           (double)st.worst_pump_ns / 1e6, st.write_amplification, st.erase_min, st.erase_max,
           (unsigned long long)log.n_segs, (unsigned long long)mount_reads, mount_ns / 1e6,
           (unsigned long long)search_reads, search_ns / 1e6, (unsigned long long)latest_reads,
           latest_ns / 1e6);
    free(arena);
    return 0;
}

int main(int argc, char **argv)
{
    uint64_t seconds = 60;
    if (argc > 1) { /* "--help" or "1m" used to run 0 s and print failures as figures */
        char *end = NULL;
        unsigned long long v = strtoull(argv[1], &end, 10);
        if (argc > 2 || argv[1][0] < '0' || argv[1][0] > '9' || *end || v == 0 || v > 86400) {
            fprintf(stderr, "usage: sensorlog_bench [SECONDS]   (1 .. 86400 of virtual time; "
                            "default 60)\n");
            return 2;
        }
        seconds = v;
    }
    printf("| medium, size, run | chunk / segment | appends refused | samples' append time, mean / worst (host CPU) | worst pump step "
           "(virtual) | write ampl. | erases/segment | segments | mount: reads (time) | "
           "search by time: reads (time) | latest 100 records: reads (time) |\n"
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    int bad = 0;
    bad |= bench("nor-spi", 16ull << 20, 0, seconds);
    bad |= bench("nor-spi", 4ull << 20, 0, seconds * 10); /* laps: erases in pump steps */
    bad |= bench("nand-slc", 64ull << 20, 0, seconds);
    bad |= bench("emmc-stm32u5", 256ull << 20, 0, seconds);
    bad |= bench("emmc-stm32u5", 256ull << 20, 1u << 20, seconds); /* fewer headers */
    bad |= bench("sd-consumer", 256ull << 20, 1u << 20, seconds);
    printf("\nWrite amplification taken apart (bytes programmed per byte appended):\n\n"
           "| medium, size, run | write ampl. | data | record headers | chunk headers | padding "
           "(syncs, records that did not fit) | segment headers + catalog |\n"
           "| --- | --- | --- | --- | --- | --- | --- |\n");
    for (int i = 0; i < n_wa_rows; i++)
        printf("%s\n", wa_rows[i]);
    return bad;
}
