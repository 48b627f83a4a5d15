/* Erase suspend on raw NOR, and what it buys sensorlog: a pump step bounded
 * by a slice of an erase instead of the whole erase, so the RAM buffer only
 * has to cover the slice - the study's three streams on NOR in 4 KiB. */
#include "sts_test.h"
#include "sensorlog/sensorlog.h"
#include "storscope/error.h"
#include "storscope/rng.h"
#include "storscope/sim.h"

#include "test_mem.h"

#include <string.h>

#define arena_a sts_test_sim_arena
static STS_TEST_BIG uint64_t arena_b[64 * 1024 / 8];

#define MS_NS 1000000ull
#define US_NS 1000ull

static struct sts_sim sim, twin;
static struct sts_bd bd, twin_bd;

static int nor(struct sts_sim *s, struct sts_bd *b, void *arena, size_t arena_bytes,
               uint64_t capacity, uint64_t keep)
{
    struct sts_sim_params p = *sts_sim_profile_find("nor-spi");
    p.capacity = capacity;
    return sts_sim_init(s, &p, 7, arena, arena_bytes, keep, b);
}

static int all_ff(struct sts_bd *b, uint64_t addr, uint32_t len)
{
    uint8_t buf[256];
    for (uint32_t off = 0; off < len; off += sizeof(buf)) {
        if (b->ops->read(b->ctx, addr + off, buf, sizeof(buf)))
            return 0;
        for (size_t i = 0; i < sizeof(buf); i++)
            if (buf[i] != 0xFF)
                return 0;
    }
    return 1;
}

/* ---- the model: an erase paid out in slices ----------------------------- */
static void erase_for_pays_the_erase_out_in_slices(void)
{
    /* the twin erases in one command; the same seed draws the same time */
    CHECK_EQ(nor(&twin, &twin_bd, arena_b, sizeof(arena_b), 1u << 20, 0), 0);
    CHECK_EQ(nor(&sim, &bd, arena_a, sizeof(arena_a), 1u << 20, 64u << 10), 0);
    CHECK(bd.ops->erase_for != NULL); /* nor-spi can suspend */
    uint64_t t0 = twin.now_ns;
    CHECK_EQ(twin_bd.ops->erase(twin_bd.ctx, 4096, 4096), 0);
    uint64_t whole = twin.now_ns - t0;
    CHECK(whole >= 45 * MS_NS);

    uint8_t page[256];
    memset(page, 0x5A, sizeof(page));
    CHECK_EQ(bd.ops->program(bd.ctx, 4096, page, sizeof(page)), 0);
    uint64_t in_erase = 0, calls = 0;
    int done = 0;
    while (!done) {
        uint64_t a = sim.now_ns;
        CHECK_EQ(bd.ops->erase_for(bd.ctx, 4096, 4096, MS_NS, &done), 0);
        in_erase += sim.now_ns - a;
        calls++;
        CHECK(sim.now_ns - a <= MS_NS + 20 * US_NS); /* never longer than a slice */
        if (done)
            break;
        /* suspended: the span is unreadable, the rest of the chip works */
        CHECK_EQ(bd.ops->read(bd.ctx, 4096, page, 16), STS_EIO);
        CHECK_EQ(bd.ops->program(bd.ctx, 8192 + (calls % 16) * 256, page, sizeof(page)), 0);
        CHECK(calls < 1000);
    }
    /* ceil(whole / 1 ms) slices, each but the last followed by a 20 us suspend */
    CHECK_EQ(calls, (whole + MS_NS - 1) / MS_NS);
    CHECK_EQ(in_erase, whole + (calls - 1) * 20 * US_NS);
    CHECK(all_ff(&bd, 4096, 4096));
    CHECK_EQ(bd.ops->read(bd.ctx, 8192, page, 16), 0);
    CHECK_EQ(page[0], 0x5A);
}

static void power_cut_during_a_suspended_erase_leaves_its_span_unfinished(void)
{
    CHECK_EQ(nor(&sim, &bd, arena_a, sizeof(arena_a), 1u << 20, 64u << 10), 0);
    int done = 0;
    CHECK_EQ(bd.ops->erase_for(bd.ctx, 0, 4096, MS_NS, &done), 0);
    CHECK_EQ(done, 0);
    sts_sim_power_cut(&sim);
    sts_sim_power_on(&sim);
    uint8_t b[16];
    /* half erased, read without an error (NOR has no ECC): it reads blank,
     * which no read can tell from erased - only the forgotten erase, done
     * again, makes it so */
    CHECK_EQ(bd.ops->read(bd.ctx, 0, b, sizeof(b)), 0);
    CHECK(all_ff(&bd, 0, 4096));
    CHECK(all_ff(&bd, 4096, 4096)); /* its neighbour too */
    /* with ECC (no_ecc=0) the span reads as an error until erased again */
    struct sts_sim_params p = *sts_sim_profile_find("nor-spi");
    p.capacity = 1u << 20;
    p.no_ecc = 0;
    CHECK_EQ(sts_sim_init(&twin, &p, 7, arena_b, sizeof(arena_b), 0, &twin_bd), 0);
    CHECK_EQ(twin_bd.ops->erase_for(twin_bd.ctx, 0, 4096, MS_NS, &done), 0);
    sts_sim_power_cut(&twin);
    sts_sim_power_on(&twin);
    CHECK_EQ(twin_bd.ops->read(twin_bd.ctx, 0, b, sizeof(b)), STS_EIO);
    CHECK_EQ(twin_bd.ops->read(twin_bd.ctx, 4096, b, sizeof(b)), 0);
    /* the chip forgot it: the same span starts a fresh erase, not a resume */
    uint64_t calls = 0;
    do {
        CHECK_EQ(bd.ops->erase_for(bd.ctx, 0, 4096, 10 * MS_NS, &done), 0);
        calls++;
    } while (!done);
    CHECK(calls >= 5); /* >= 45 ms again */
    CHECK(all_ff(&bd, 0, 4096));
}

static void another_erase_first_finishes_the_suspended_one(void)
{
    CHECK_EQ(nor(&twin, &twin_bd, arena_b, sizeof(arena_b), 1u << 20, 0), 0);
    CHECK_EQ(nor(&sim, &bd, arena_a, sizeof(arena_a), 1u << 20, 64u << 10), 0);
    uint64_t t0 = twin.now_ns;
    CHECK_EQ(twin_bd.ops->erase(twin_bd.ctx, 0, 4096), 0);
    CHECK_EQ(twin_bd.ops->erase(twin_bd.ctx, 8192, 4096), 0);
    uint64_t both = twin.now_ns - t0;
    int done = 0;
    t0 = sim.now_ns;
    CHECK_EQ(bd.ops->erase_for(bd.ctx, 0, 4096, MS_NS, &done), 0);
    CHECK_EQ(done, 0);
    CHECK_EQ(bd.ops->erase(bd.ctx, 8192, 4096), 0);
    /* both erases paid in full, plus the one suspend between */
    CHECK_EQ(sim.now_ns - t0, both + 20 * US_NS);
    CHECK(all_ff(&bd, 0, 4096));
    CHECK(all_ff(&bd, 8192, 4096));
    /* and a program into a suspended span waits for its erase too */
    CHECK_EQ(bd.ops->erase_for(bd.ctx, 0, 4096, MS_NS, &done), 0);
    CHECK_EQ(done, 0);
    uint8_t page[256];
    memset(page, 0x11, sizeof(page));
    CHECK_EQ(bd.ops->program(bd.ctx, 0, page, sizeof(page)), 0);
    CHECK_EQ(bd.ops->read(bd.ctx, 0, page, 16), 0);
    CHECK_EQ(page[15], 0x11);
    CHECK(all_ff(&bd, 256, 256));
}

/* ---- sensorlog: the study's three streams in 4 KiB ---------------------- */
/* The configuration sensorlog.h documents as the smallest for the study's
 * streams on NOR: 1 KiB chunks, 16 segments, 3 streams, a ring that covers
 * a 2 ms erase slice and a chunk's program with room to spare. */
#define CHUNK 1024u
#define N_SEGS 16u
#define RING 768u
#define SECONDS 200u
static struct sl_log lg;
static struct sl_config cfg;
static struct sl_seg_info segs[N_SEGS];
static struct sl_stream_info streams[3];
static uint8_t ring[RING] __attribute__((aligned(8)));
static uint8_t chunk_buf[CHUNK] __attribute__((aligned(8)));
static uint8_t read_buf[CHUNK] __attribute__((aligned(8)));

static uint64_t sim_now(void *ctx)
{
    return ((struct sts_sim *)ctx)->now_ns;
}

static int study_log(uint64_t capacity, uint32_t slice_ns)
{
    int rc = nor(&sim, &bd, arena_a, sizeof(arena_a), capacity, capacity);
    if (rc)
        return rc;
    memset(&cfg, 0, sizeof(cfg));
    cfg.bd = bd;
    cfg.chunk_bytes = CHUNK;
    cfg.segment_bytes = (uint32_t)(capacity / N_SEGS);
    cfg.erase_slice_ns = slice_ns;
    cfg.buffer = ring;
    cfg.buffer_bytes = sizeof(ring);
    cfg.chunk_buf = chunk_buf;
    cfg.read_buf = read_buf;
    cfg.segs = segs;
    cfg.n_segs = N_SEGS;
    cfg.streams = streams;
    cfg.max_streams = 3;
    cfg.now_ns = sim_now;
    cfg.clock_ctx = &sim;
    return sl_format(&lg, &cfg);
}

/* The study's streams (imu 1 kHz x 12 B, ppg 100 Hz x 24 B, env 1 Hz x
 * 64 B); record k of stream i holds bytes that follow from (i, k). */
static const uint32_t period_us[3] = {1000, 10000, 1000000};
static const uint16_t rec_len[3] = {12, 24, 64};

static void make(int i, uint64_t k, uint8_t *out)
{
    for (uint16_t b = 0; b < rec_len[i]; b++)
        out[b] = (uint8_t)(sts_mix64(((uint64_t)i << 40) ^ (k * 977u + b)) >> 16);
    memcpy(out, &k, 4); /* the index, so a read-back knows which record it has */
}

static uint16_t stream_id[3];

struct run {
    uint64_t appended, rejected;
};

/* Runs the streams for `seconds` of virtual time with an I/O task that
 * pumps whenever there is work and asks for a sync every second; records
 * due while a pump step runs are appended when it ends, as an interrupt
 * would have appended them during it: the ring holds the same. */
static int run_streams(uint32_t seconds, struct run *out)
{
    uint16_t *id = stream_id;
    const char *names[3] = {"imu", "ppg", "env"};
    for (int i = 0; i < 3; i++)
        if (sl_stream_create(&lg, names[i], &id[i]))
            return -1;
    uint64_t start = sim.now_ns, next[3] = {0, 0, 0}, k[3] = {0, 0, 0};
    uint64_t next_sync = 1000000000ull, end = (uint64_t)seconds * 1000000000ull;
    memset(out, 0, sizeof(*out));
    for (;;) {
        uint64_t now = sim.now_ns - start;
        int due = 0;
        for (int i = 0; i < 3; i++)
            while (next[i] <= now && next[i] < end) {
                uint8_t rec[64];
                make(i, k[i], rec);
                int rc = sl_append(&lg, id[i], next[i] / 1000, rec, rec_len[i]);
                if (rc == SL_EFULL)
                    out->rejected++;
                else if (rc)
                    return rc;
                else
                    out->appended++;
                k[i]++;
                next[i] += period_us[i] * 1000ull;
                due = 1;
            }
        if (now >= next_sync) {
            sl_sync_request(&lg);
            next_sync += 1000000000ull;
        }
        int rc = sl_pump(&lg);
        if (rc < 0)
            return rc;
        if (rc == SL_OK && !due) { /* idle: the device waits for the next record */
            uint64_t t = next_sync;
            for (int i = 0; i < 3; i++)
                t = next[i] < t ? next[i] : t;
            if (t >= end)
                break;
            sim.now_ns = start + t;
        }
    }
    return sl_sync(&lg);
}

/* Every stream reads back contiguous and intact up to its newest record. */
static int read_back_all(uint64_t *kept)
{
    *kept = 0;
    for (int s = 1; s <= 3; s++) {
        struct sl_iter it;
        struct sl_record r;
        if (sl_iter_from_gseq(&lg, &it, stream_id[s - 1], 0))
            return -1;
        uint64_t want = UINT64_MAX;
        while (sl_iter_next(&it, &r) == SL_OK) {
            uint32_t idx;
            uint8_t rec[64];
            memcpy(&idx, r.data, 4);
            if (want != UINT64_MAX && idx != want)
                return -2; /* a gap or a duplicate */
            make(s - 1, idx, rec);
            if (r.len != rec_len[s - 1] || memcmp(r.data, rec, r.len))
                return -3;
            want = idx + 1u;
            (*kept)++;
        }
        if (want != SECONDS * (s == 1 ? 1000u : s == 2 ? 100u : 1u))
            return -4; /* the newest record is not the last appended */
    }
    return 0;
}

static void sliced_erase_bounds_the_pump_step(void)
{
    /* the longest command besides an erase: one chunk's program, timed on
     * the model itself */
    CHECK_EQ(nor(&twin, &twin_bd, arena_b, sizeof(arena_b), 1u << 20, 0), 0);
    static uint8_t chunk[CHUNK];
    uint64_t t0 = twin.now_ns;
    CHECK_EQ(twin_bd.ops->program(twin_bd.ctx, 0, chunk, CHUNK), 0);
    uint64_t program_ns = twin.now_ns - t0;
    uint64_t slice_ns = 2 * MS_NS, bound = slice_ns + 20 * US_NS + 2 * US_NS;
    bound = program_ns > bound ? program_ns : bound;

    struct run r;
    struct sl_stats st;
    /* 20 s of the streams wrap a 256 KiB log at least once */
    CHECK_EQ(study_log(256u << 10, 0), 0); /* without slices, a step is a whole erase */
    CHECK_EQ(run_streams(20, &r), 0);
    sl_stats(&lg, &st);
    CHECK(st.worst_pump_ns >= 45 * MS_NS);

    CHECK_EQ(study_log(256u << 10, (uint32_t)slice_ns), 0);
    CHECK_EQ(run_streams(20, &r), 0);
    sl_stats(&lg, &st);
    CHECK(st.erases > 0);
    CHECK(st.worst_pump_ns <= bound);
}

static void study_streams_run_on_nor_in_4_kib_of_ram(void)
{
    CHECK_EQ(study_log(1u << 20, 2 * MS_NS), 0);
    /* 200 s of the three streams: ~3.5 MB through a 1 MiB log, three times round */
    struct run r;
    CHECK_EQ(run_streams(SECONDS, &r), 0);
    struct sl_stats st;
    sl_stats(&lg, &st);
    CHECK_EQ(r.rejected, 0);
    CHECK_EQ(st.dropped_records, 0);
    CHECK_EQ(r.appended, SECONDS * (1000u + 100u + 1u));
    CHECK(st.evictions >= 2 * N_SEGS); /* it wrapped twice */
    uint64_t kept;
    CHECK_EQ(read_back_all(&kept), 0);
    CHECK(kept > 30000u);
    /* every byte of RAM the log takes: on a 32-bit MCU within 4 KiB */
    size_t ram = sl_ram_bytes(&cfg);
    CHECK(ram > RING + 2 * CHUNK);
    if (sizeof(void *) == 4)
        CHECK(ram <= 4096);
}

const struct sts_test_case test_sl_ram_cases[] = {
    {"erase_for_pays_the_erase_out_in_slices", erase_for_pays_the_erase_out_in_slices},
    {"power_cut_during_a_suspended_erase_leaves_its_span_unfinished",
     power_cut_during_a_suspended_erase_leaves_its_span_unfinished},
    {"another_erase_first_finishes_the_suspended_one",
     another_erase_first_finishes_the_suspended_one},
    {"sliced_erase_bounds_the_pump_step", sliced_erase_bounds_the_pump_step},
    {"study_streams_run_on_nor_in_4_kib_of_ram", study_streams_run_on_nor_in_4_kib_of_ram},
    {NULL, NULL},
};
