/* The paper suite on the user's own FileX on the MCU: FileX (standalone,
 * the study's configuration) over a simulated emmc-stm32u5 that keeps its
 * data, B0, B1, B2, M1, S2 and M2 at scale quick, results as
 * storscope-result/1 JSON on the console. Time is the device's plus the
 * MCU's own at 160 MHz (mcu_clock.c), so FileX's CPU time per call counts
 * as it did on the study's board - what a host run cannot hold at 1 B.
 * Built only when CMake is given -DSTORSCOPE_FILEX_DIR; the same adapter a
 * firmware uses over its board's block device. */
#include "board.h"
#include "mcu_clock.h"

#include "storscope/error.h"
#include "storscope/filex_fs.h"
#include "storscope/json.h"
#include "storscope/port.h"
#include "storscope/sim.h"
#include "storscope/suite.h"

#include <string.h>

#define SIM_CAPACITY (8ull * 1024 * 1024)
#define ARENA_BYTES (12u * 1024u * 1024u)
#define IOBUF_BYTES (2u * 1024u * 1024u) /* B1 and B2 up to 2 MiB chunks */

static __attribute__((section(".psram"))) uint64_t arena[ARENA_BYTES / 8];
static __attribute__((section(".psram"), aligned(4096))) uint8_t iobuf[IOBUF_BYTES];
static uint64_t hist[STS_CTX_LATS * STS_HIST_BUCKETS];
static struct sts_sim sim;
static struct sts_filex fx;
static struct sts_sim_counters counted;

/* the model's counters per point, as the host's sim: target gives them: a
 * report then tells a dip the medium's garbage collection made from one
 * the chunk size makes (issue 46) */
static size_t sim_counters(struct sts_target *t, struct sts_kv *out, size_t max)
{
    (void)t;
    return sts_sim_counters_kv(&sim, &counted, out, max);
}

#ifdef STS_FILEX_STUDY
/* Model parameters from the command line (QEMU: -semihosting-config
 * arg=study,arg=cmd_write=175us), as --params in bench/study.py: a
 * calibration tried on the MCU without rebuilding the image; fx_cluster=,
 * fx_names= (any of +filex's options behind fx_) set FileX up as +filex
 * does on the host. The words applied, comma-joined, go to `applied` for the
 * results' environment. */
static int apply_cmdline_params(struct sts_sim_params *p, struct sts_filex_config *fxc,
                                char *applied, size_t n)
{
    static char line[256];
    applied[0] = '\0';
    if (board_cmdline(line, sizeof(line)))
        return 0; /* none given */
    char *word = strchr(line, ' '); /* past the program's name */
    while (word) {
        *word++ = '\0';
        char *next = strchr(word, ' ');
        if (next)
            *next = '\0';
        char *eq = strchr(word, '=');
        if (*word) {
            if (!eq)
                goto bad;
            *eq = '\0';
            int rc = !strncmp(word, "fx_", 3) ? sts_filex_option(fxc, word + 3, eq + 1)
                                               : sts_sim_param_set(p, word, eq + 1);
            *eq = '=';
            if (rc)
                goto bad;
            sts_strlcat(applied, *applied ? "," : "", n);
            sts_strlcat(applied, word, n);
        }
        word = next;
    }
    return 0;
bad:
    board_puts("storscope-study-filex: bad model parameter '");
    board_puts(word);
    board_puts("'\n");
    return -1;
}
#endif

int main(void)
{
    struct sts_sim_params p = *sts_sim_profile_find("emmc-stm32u5");
    p.capacity = SIM_CAPACITY;
    p.erase_bytes = 256u * 1024u; /* a small model: erase blocks that fit it */
    struct sts_filex_config cfg = {.bd = {0}};
#ifdef STS_FILEX_STUDY
    /* the study's 4 GiB card never fills in B0 (110 MiB written); this
     * 8 MiB model did at once, and B0's writes measured its garbage
     * collection (issue 46, defect 1): trimming what FileX frees keeps the
     * FTL holding only the files, as the large card's does. fx_trim=off
     * puts the study's driver back */
    cfg.trim = 1;
    static char params[256];
    if (apply_cmdline_params(&p, &cfg, params, sizeof(params)))
        return 4;
#endif
    struct sts_bd bd;
    struct sts_target t;
    memset(&t, 0, sizeof(t));
    if (sts_sim_arena_bytes(&p, SIM_CAPACITY) > sizeof(arena) ||
        sts_sim_init(&sim, &p, 1, arena, sizeof(arena), SIM_CAPACITY, &bd))
        return 2;
    cfg.bd = bd;
    if (sts_filex_init(&fx, &cfg, &t.fs))
        return 3;
    t.kind = "sim";
    t.clock = mcu_clock(&sim);
    t.flags = STS_T_VIRTUAL_TIME | STS_T_KEEPS_DATA;
    t.bd = &bd;
    t.counters = sim_counters;
    counted = sim.n;
    sts_target_env(&t, STS_KV_S("device", p.name));
    sts_target_env(&t, STS_KV_S("platform", "Cortex-M33 (QEMU mps2-an505, -icount shift=0)"));
    sts_target_env(&t, STS_KV_S("clock", "virtual device time + MCU instructions at cpu_hz"));
    sts_target_env(&t, STS_KV_U("cpu_hz", STS_CPU_HZ));
    sts_target_env(&t, STS_KV_U("sim_capacity_bytes", p.capacity));
    sts_target_env(&t, STS_KV_S("filesystem", "filex"));
    sts_target_env(&t, STS_KV_U("filex_cluster_bytes", fx.cluster_bytes));
    sts_target_env(&t, STS_KV_U("filex_cache_bytes", fx.cfg.cache_bytes));
    sts_target_env(&t, STS_KV_S("filex_names", fx.cfg.upper_names ? "upper" : "asis"));
    sts_target_env(&t, STS_KV_B("filex_trim", fx.cfg.trim));
#ifdef STS_FILEX_THREADX
    /* the study's stack: FileX under ThreadX takes its media mutex on
     * every call (rtos.cmake), the tick's interrupt runs beside it */
    sts_target_env(&t, STS_KV_S("filex_threads", "threadx"));
#else
    sts_target_env(&t, STS_KV_S("filex_threads", "single (FX_SINGLE_THREAD)"));
#endif
#ifdef STS_FILEX_STUDY
    sts_target_env(&t, STS_KV_S("sim_params", params));

    /* bench/study.py's cells where the MCU's CPU counts: B0, M1 and S2 at
     * the study's full scale and 10 runs (B1 and B2 are the device's at the
     * sizes the study publishes, and M2 needs the full-size medium) */
    const struct sts_test_def *tests[] = {sts_test_find("B0"), sts_test_find("M1"),
                                          sts_test_find("S2")};
    struct sts_plan plan = {.tests = tests, .n_tests = 3, .scale = STS_SCALE_FULL, .seed = 1};
#define SUITE_NAME NULL
#define SCALE_NAME "full"
#else
    const struct sts_test_def *tests[] = {sts_test_find("B0"), sts_test_find("B1"),
                                          sts_test_find("B2"), sts_test_find("M1"),
                                          sts_test_find("S2"), sts_test_find("M2")};
    struct sts_plan plan = {.tests = tests, .n_tests = 6, .suite_name = "paper",
                            .scale = STS_SCALE_QUICK, .seed = 1, .runs = 1};
#define SUITE_NAME "paper"
#define SCALE_NAME "quick"
#endif
    /* not verified: checking every byte would count as MCU time in every
     * figure (the host runs of +filex verify; this image is for timing) */
    struct sts_workspace ws = {iobuf, IOBUF_BYTES, hist, STS_HIST_BUCKETS, STS_HIST_SUB_BITS,
                               STS_HIST_MAX_EXP, NULL, 0};
    struct sts_json_sink js;
    struct sts_sink sink;
    sts_json_sink_init(&js, &sink, board_sink_write, 0, 0, 1);
    struct sts_run_info ri = {
        .tool_version = STORSCOPE_VERSION, .target = "sim:emmc-stm32u5,capacity=8M+filex",
        .target_kind = "sim", .suite = SUITE_NAME, .scale = SCALE_NAME, .seed = 1,
        .env = t.env, .n_env = t.n_env,
    };
    int rc = sts_engine_run(&plan, &t, &ws, &sink, 1, &ri);
    sts_filex_deinit(&fx);
    return rc ? 1 : 0;
}
