/* S1 on an RTOS (issue 18): storage throughput with 0..4 CPU-load tasks,
 * on the simulated emmc-stm32u5 under extentfs, in the MCU's real time.
 * Each device command holds the device for its modelled duration, and the
 * task that issued it blocks until the board's timer interrupt says it is
 * done (sts_port_wait_until on an RTOS port), as behind the SDMMC's DMA
 * completion on the study's board; meanwhile the load tasks have the CPU.
 * Time is the MCU's at 160 MHz (clock_an505_timers.c). Results print as
 * storscope-result/1 JSON on the console. S1_STORAGE_PRIORITY above 0 runs
 * the storage side above the load (the guideline's I/O task). S1_FILEX:
 * the user's FileX instead of extentfs (with ThreadX, the study's stack),
 * on an 8 MiB model that keeps its data.
 * With RTOS_L1 the same image runs L1 instead, on the same paced device:
 * RTOS_L1=1 with real tasks (a producer task per stream above the writers,
 * which run above the main task), RTOS_L1=0 with L1's one event loop, for
 * the comparison firmware/run_l1.sh prints. */
#include "board.h"

#include "storscope/error.h"
#include "storscope/extentfs.h"
#ifdef S1_FILEX
#include "storscope/filex_fs.h"
#endif
#include "storscope/json.h"
#include "storscope/port.h"
#include "storscope/sim.h"
#include "storscope/suite.h"

#include <string.h>

#ifndef RTOS_L1_STREAMS
#define RTOS_L1_STREAMS NULL /* L1's default: the study's three streams */
#endif
#ifndef S1_STORAGE_PRIORITY
#define S1_STORAGE_PRIORITY 0
#endif
#ifdef S1_FILEX
#define SIM_CAPACITY (8ull * 1024 * 1024)
#define SIM_KEEPS SIM_CAPACITY
#define ARENA_BYTES (12u * 1024u * 1024u)
#else
#define SIM_CAPACITY (64ull * 1024 * 1024)
#define SIM_KEEPS 0
#define ARENA_BYTES (1u * 1024u * 1024u)
#endif
#define IOBUF_BYTES (2u * 1024u * 1024u)

static __attribute__((section(".psram"))) uint64_t arena[ARENA_BYTES / 8];
static __attribute__((section(".psram"), aligned(4096))) uint8_t iobuf[IOBUF_BYTES];
static uint64_t hist[STS_CTX_LATS * STS_HIST_BUCKETS];

static struct sts_sim sim;
static struct sts_bd sim_bd;
#ifdef S1_FILEX
static struct sts_filex fx;
#else
static struct sts_extentfs efs;
static struct sts_extentfs_file files[4];
#endif
static struct sts_mutex device_lock;

/* One command at a time, each held for the model's time on the port
 * clock: tasks that share the device queue behind each other. */
#define PACED(call)                                                         \
    const struct sts_port_ops *port = sts_port();                           \
    port->mutex_lock(&device_lock);                                         \
    uint64_t v0 = sim.now_ns, w0 = sts_clock_now(sts_port_clock());         \
    int rc = call;                                                          \
    sts_port_wait_until(w0 + (sim.now_ns - v0));                            \
    port->mutex_unlock(&device_lock);                                       \
    return rc
static int paced_read(void *ctx, uint64_t a, void *b, size_t n)
{
    (void)ctx;
    PACED(sim_bd.ops->read(sim_bd.ctx, a, b, n));
}
static int paced_program(void *ctx, uint64_t a, const void *b, size_t n)
{
    (void)ctx;
    PACED(sim_bd.ops->program(sim_bd.ctx, a, b, n));
}
static int paced_erase(void *ctx, uint64_t a, uint64_t n)
{
    (void)ctx;
    PACED(sim_bd.ops->erase(sim_bd.ctx, a, n));
}
static int paced_flush(void *ctx)
{
    (void)ctx;
    PACED(sim_bd.ops->flush(sim_bd.ctx));
}
#undef PACED
static void paced_geometry(void *ctx, struct sts_bd_geometry *g)
{
    (void)ctx;
    sim_bd.ops->geometry(sim_bd.ctx, g);
}
static const struct sts_bd_ops paced_ops = {
    .version = STS_BD_OPS_VERSION, paced_read, paced_program, paced_erase, paced_flush,
    paced_geometry, NULL, NULL, NULL
};

int main(void)
{
    struct sts_sim_params p = *sts_sim_profile_find("emmc-stm32u5");
    p.capacity = SIM_CAPACITY;
#ifdef S1_FILEX
    p.erase_bytes = 256u * 1024u; /* a small model: erase blocks that fit it */
#endif
    if (sts_sim_init(&sim, &p, 1, arena, sizeof(arena), SIM_KEEPS, &sim_bd))
        return 2;
    if (sts_port()->mutex_init(&device_lock))
        return 2;
    struct sts_bd bd = {&paced_ops, NULL};
    struct sts_target t;
    memset(&t, 0, sizeof(t));
#ifdef S1_FILEX
    struct sts_filex_config cfg = {.bd = bd};
    if (sts_filex_init(&fx, &cfg, &t.fs))
        return 3;
    const char *fs_name = "filex", *target = "sim:emmc-stm32u5,capacity=8M+filex";
#else
    struct sts_extentfs_config cfg = {.bd = bd, .files = files, .n_files = 4};
    if (sts_extentfs_init(&efs, &cfg, &t.fs))
        return 2;
    const char *fs_name = "extentfs", *target = "sim:emmc-stm32u5,capacity=64M,data=0";
#endif
    t.kind = "sim";
    t.clock = *sts_port_clock();
    t.flags = 0; /* real time: the port clock, the device paced against it */
    t.bd = &bd;
    sts_target_env(&t, STS_KV_S("device", p.name));
    sts_target_env(&t, STS_KV_S("clock", "MCU time at cpu_hz (QEMU -icount shift=0), device "
                                         "commands paced on it"));
    sts_target_env(&t, STS_KV_U("cpu_hz", 160000000u));
    sts_target_env(&t, STS_KV_S("platform", "Cortex-M33 (QEMU mps2-an505, -icount shift=0)"));
    sts_target_env(&t, STS_KV_S("rtos", sts_port()->name));
    sts_target_env(&t, STS_KV_S("filesystem", fs_name));
#ifdef RTOS_L1
    const struct sts_test_def *tests[] = {sts_test_find("L1")};
    struct sts_plan plan = {.tests = tests, .n_tests = 1, .scale = STS_SCALE_QUICK, .seed = 1,
                            .rt_priority = 1, .tasks = RTOS_L1, .streams = RTOS_L1_STREAMS};
#else
    const struct sts_test_def *tests[] = {sts_test_find("S1")};
    struct sts_plan plan = {.tests = tests, .n_tests = 1, .scale = STS_SCALE_QUICK, .seed = 1,
                            .rt_priority = S1_STORAGE_PRIORITY};
#endif
    struct sts_workspace ws = {iobuf, IOBUF_BYTES, hist, STS_HIST_BUCKETS, STS_HIST_SUB_BITS,
                               STS_HIST_MAX_EXP, NULL, 0};
    struct sts_json_sink js;
    struct sts_sink sink;
    sts_json_sink_init(&js, &sink, board_sink_write, 0, 0, 1);
    struct sts_run_info ri = {
        .tool_version = STORSCOPE_VERSION, .target = target,
        .target_kind = "sim", .suite = NULL, .scale = "quick", .seed = 1,
        .env = t.env, .n_env = t.n_env,
    };
    int rc = sts_engine_run(&plan, &t, &ws, &sink, 1, &ri);
    return rc ? 1 : 0;
}
