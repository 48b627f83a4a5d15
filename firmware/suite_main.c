/* The workload suite on the MCU: suite `paper` (quick) and fsync on a
 * simulated emmc-stm32u5 in RAM, results printed as storscope-result/1 JSON
 * on the console. Time is the device model's virtual time plus the CPU time
 * the MCU spent, counted in instructions (QEMU -icount shift=0: one
 * instruction per ns of guest time, SysTick at 20 MHz = 50 instructions per
 * tick) and converted at STS_CPU_HZ (the study's 160 MHz). */
#include "board.h"
#include "mcu_clock.h"

#include "storscope/error.h"
#include "storscope/extentfs.h"
#include "storscope/json.h"
#include "storscope/port.h"
#include "storscope/sim.h"
#include "storscope/suite.h"

#include <string.h>

#define SIM_CAPACITY (64ull * 1024 * 1024)
#define ARENA_BYTES (1u * 1024u * 1024u)
#define IOBUF_BYTES (2u * 1024u * 1024u)

static __attribute__((section(".psram"))) uint64_t arena[ARENA_BYTES / 8];
static __attribute__((section(".psram"), aligned(4096))) uint8_t iobuf[IOBUF_BYTES];
static uint64_t hist[STS_CTX_LATS * STS_HIST_BUCKETS];

static struct sts_sim sim;
static struct sts_extentfs efs;
static struct sts_extentfs_file files[4];

/* ---- the engine's own cost on this MCU (issue 12.10) ----------------------
 * B0 once on a device that takes no time (null: under extentfs), timed by
 * the MCU's instructions alone: what a call costs storscope itself - the
 * engine, the method tables, extentfs, the histograms - so a small-chunk
 * figure of the real run can be read against it. */
static uint64_t cpu_now_ns(void *ctx)
{
    (void)ctx;
    return mcu_cpu_ns();
}
static const struct sts_clock_ops cpu_clock_ops = {cpu_now_ns};

static double engine_ns[2][2]; /* [write, read][1 B, 512 B]: ns a call */
static int cost_point(void *ctx, const struct sts_test_info *ti, const struct sts_point *p)
{
    (void)ctx;
    (void)ti;
    const struct sts_kv *c = sts_kv_find(p->params, p->n_params, "chunk_bytes");
    double chunk = c ? sts_kv_number(c) : 0;
    int op = !strcmp(p->name, "write") ? 0 : !strcmp(p->name, "read") ? 1 : -1;
    int at = chunk == 1 ? 0 : chunk == 512 ? 1 : -1;
    if (op >= 0 && at >= 0 && !p->skipped && p->run_stats.mean > 0)
        engine_ns[op][at] = 1e9 * chunk / p->run_stats.mean; /* bytes/s -> ns a call */
    return 0;
}
static const struct sts_sink_ops cost_ops = {.point = cost_point};

static int measure_engine(struct sts_workspace *ws)
{
    static struct sts_null_bd nb;
    static struct sts_extentfs nefs;
    static struct sts_extentfs_file nfiles[2];
    static struct sts_target nt;
    struct sts_bd bd;
    sts_null_bd_init(&nb, &bd, SIM_CAPACITY);
    struct sts_extentfs_config cfg = {.bd = bd, .files = nfiles, .n_files = 2};
    if (sts_extentfs_init(&nefs, &cfg, &nt.fs))
        return 2;
    nt.kind = "null";
    nt.clock.ops = &cpu_clock_ops;
    nt.flags = STS_T_VIRTUAL_TIME;
    const struct sts_test_def *b0[] = {sts_test_find("B0")};
    struct sts_plan plan = {.tests = b0, .n_tests = 1, .scale = STS_SCALE_QUICK, .seed = 1,
                            .runs = 1, .size_bytes = 16u << 10};
    struct sts_sink sink = {&cost_ops, NULL};
    struct sts_run_info ri = {.tool_version = STORSCOPE_VERSION, .target = "null:"};
    return sts_engine_run(&plan, &nt, ws, &sink, 1, &ri);
}

int main(void)
{
    struct sts_sim_params p = *sts_sim_profile_find("emmc-stm32u5");
    p.capacity = SIM_CAPACITY;
    p.poll_ns = 1; /* a poll's cost is what the MCU's instructions measure */
    struct sts_bd bd;
    struct sts_target t;
    memset(&t, 0, sizeof(t));
    if (sts_sim_init(&sim, &p, 1, arena, sizeof(arena), 0, &bd))
        return 2;
    struct sts_extentfs_config cfg = {.bd = bd, .files = files, .n_files = 4};
    if (sts_extentfs_init(&efs, &cfg, &t.fs))
        return 2;
    t.kind = "sim";
    t.clock = mcu_clock(&sim);
    t.flags = STS_T_VIRTUAL_TIME;
    t.bd = &bd;
    sts_target_env(&t, STS_KV_S("device", p.name));
    sts_target_env(&t, STS_KV_S("clock", "virtual device time + MCU instructions at cpu_hz"));
    sts_target_env(&t, STS_KV_U("cpu_hz", STS_CPU_HZ));
    sts_target_env(&t, STS_KV_S("platform", "Cortex-M33 (QEMU mps2-an505, -icount shift=0)"));
    sts_target_env(&t, STS_KV_U("sim_capacity_bytes", p.capacity));
    sts_target_env(&t, STS_KV_S("filesystem", "extentfs"));

    struct sts_workspace cost_ws = {iobuf, IOBUF_BYTES, hist, STS_HIST_BUCKETS, STS_HIST_SUB_BITS,
                                    STS_HIST_MAX_EXP, NULL, 0};
    if (measure_engine(&cost_ws))
        return 2;
    /* ns, as every time in the results (rounded: the run is deterministic) */
    sts_target_env(&t, STS_KV_U("engine_write_call_1_byte_ns", (uint64_t)engine_ns[0][0]));
    sts_target_env(&t, STS_KV_U("engine_write_call_512_bytes_ns", (uint64_t)engine_ns[0][1]));
    sts_target_env(&t, STS_KV_U("engine_read_call_1_byte_ns", (uint64_t)engine_ns[1][0]));
    sts_target_env(&t, STS_KV_U("engine_read_call_512_bytes_ns", (uint64_t)engine_ns[1][1]));
    const struct sts_test_def *tests[] = {sts_test_find("B0"), sts_test_find("B2"),
                                          sts_test_find("M1"), sts_test_find("fsync"),
                                          sts_test_find("nb")};
    struct sts_plan plan = {.tests = tests, .n_tests = 5, .suite_name = NULL,
                            .scale = STS_SCALE_QUICK, .seed = 1,
                            .duration_ns = 2000000000ull, .size_bytes = 4u << 20};
    struct sts_workspace ws = {iobuf, IOBUF_BYTES, hist, STS_HIST_BUCKETS, STS_HIST_SUB_BITS,
                               STS_HIST_MAX_EXP, NULL, 0};
    struct sts_json_sink js;
    struct sts_sink sink;
    sts_json_sink_init(&js, &sink, board_sink_write, 0, 0, 1);
    struct sts_run_info ri = {
        .tool_version = STORSCOPE_VERSION, .target = "sim:emmc-stm32u5,capacity=64M,data=0",
        .target_kind = "sim", .suite = NULL, .scale = "quick", .seed = 1,
        .env = t.env, .n_env = t.n_env,
    };
    int rc = sts_engine_run(&plan, &t, &ws, &sink, 1, &ri);
    return rc ? 1 : 0;
}
