/* The workload suite on the MCU: suite `paper` (quick) and fsync on a
 * simulated emmc-stm32u5 in RAM, results printed as storscope-result/1 JSON
 * on the console. Time is the device model's virtual time plus the CPU time
 * the MCU spent, counted in instructions (QEMU -icount shift=0: one
 * instruction per ns of guest time, SysTick at 20 MHz = 50 instructions per
 * tick) and converted at STS_CPU_HZ (the study's 160 MHz). */
#include "board.h"

#include "storscope/error.h"
#include "storscope/extentfs.h"
#include "storscope/json.h"
#include "storscope/port.h"
#include "storscope/sim.h"
#include "storscope/suite.h"

#include <string.h>

#ifndef STS_CPU_HZ
#define STS_CPU_HZ 160000000ull
#endif
#define INSTR_PER_NS_OF_GUEST 1ull /* -icount shift=0 */
#define SIM_CAPACITY (64ull * 1024 * 1024)
#define ARENA_BYTES (1u * 1024u * 1024u)
#define IOBUF_BYTES (2u * 1024u * 1024u)

static __attribute__((section(".psram"))) uint64_t arena[ARENA_BYTES / 8];
static __attribute__((section(".psram"), aligned(4096))) uint8_t iobuf[IOBUF_BYTES];
static uint64_t hist[STS_CTX_LATS * STS_HIST_BUCKETS];

static struct sts_sim sim;
static struct sts_extentfs efs;
static struct sts_extentfs_file files[4];

/* Device time + CPU time on the MCU. The CPU time since the last reading is
 * folded into the model's clock: while the MCU computes, a command in flight
 * progresses, which is what lets the non-blocking path complete. */
static uint64_t last_cpu_ns;
static uint64_t mcu_now_ns(void *ctx)
{
    (void)ctx;
    uint64_t guest_ns = sts_clock_now(sts_port_clock());
    uint64_t instructions = guest_ns * INSTR_PER_NS_OF_GUEST;
    uint64_t cpu_ns = sts_ticks_to_ns(instructions, STS_CPU_HZ); /* x 1e9 overflowed at 18 s */
    sim.now_ns += cpu_ns - last_cpu_ns;
    last_cpu_ns = cpu_ns;
    return sim.now_ns;
}
static const struct sts_clock_ops mcu_clock_ops = {mcu_now_ns};

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
    t.clock.ops = &mcu_clock_ops;
    t.clock.ctx = 0;
    t.flags = STS_T_VIRTUAL_TIME;
    t.bd = &bd;
    sts_target_env(&t, STS_KV_S("device", p.name));
    sts_target_env(&t, STS_KV_S("clock", "virtual device time + MCU instructions at cpu_hz"));
    sts_target_env(&t, STS_KV_U("cpu_hz", STS_CPU_HZ));
    sts_target_env(&t, STS_KV_S("platform", "Cortex-M33 (QEMU mps2-an505, -icount shift=0)"));
    sts_target_env(&t, STS_KV_U("sim_capacity_bytes", p.capacity));
    sts_target_env(&t, STS_KV_S("filesystem", "extentfs"));

    const struct sts_test_def *tests[] = {sts_test_find("B0"), sts_test_find("B2"),
                                          sts_test_find("M1"), sts_test_find("fsync"),
                                          sts_test_find("nb")};
    struct sts_plan plan = {.tests = tests, .n_tests = 5, .suite_name = NULL,
                            .scale = STS_SCALE_QUICK, .seed = 1,
                            .duration_ns = 2000000000ull, .size_bytes = 4u << 20};
    struct sts_workspace ws = {iobuf, IOBUF_BYTES, hist, STS_HIST_BUCKETS, STS_HIST_SUB_BITS,
                               STS_HIST_MAX_EXP};
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
