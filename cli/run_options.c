/* storscope run's command line: its option table (cli_options.h), from
 * which its help, man page and completions come. */
#include "run_options.h"
#include "cli.h"
#include "storscope/suite.h"
#include "storscope/units.h"

#include "cli_options.h"

#include <string.h>

#define O(f) CLI_AT(0, struct run_opts, f)
#define P(f) CLI_AT(1, struct sts_plan, f)
_Static_assert(sizeof(enum sts_scale) == sizeof(int), "--scale takes its word's index");
_Static_assert(STS_SCALE_QUICK == 0 && STS_SCALE_FULL == 1, "--scale's words are in order");

static const struct cli_opt run_opts[] = {
    {"target", 't', CLI_TARGET, "SPEC",
     "where to measure (default: sim:emmc-stm32u5, the study's "
     "medium simulated; capacity=1G of it on a 32-bit host); "
     "e.g. posix:/mnt/sdcard, sim:sd-consumer; in general "
     "KIND:ARG[,key=value...], see `storscope list targets`",
     O(target)},
    {"suite", 's', CLI_SUITE, "NAME", "a suite of tests (default: paper), see `storscope list suites`",
     O(suite)},
    {"tests", 'T', CLI_TESTS, "LIST", "comma-separated tests instead of a suite (e.g. B0,fsync)",
     O(tests)},
    {"scale", 0, CLI_WORD, "quick|full",
     "quick shrinks sizes and runs; full uses the study's values (default: quick)", P(scale),
     .hint = "choose quick or full"},
    {"runs", 'r', CLI_COUNT, "N",
     "repetitions per point, exactly (default: per test and "
     "scale; on a noisy model at least 5, then more while a "
     "point's runs disagree, up to 64; a real device's "
     "sweeps at least 5, in rounds over their points)",
     P(runs), .min = 1, .max = 64, .hint = "a whole number from 1 to 64"},
    {"duration", 'd', CLI_TIME, "TIME", "length of time-based tests (fsync, L1): 30s, 2m, 500ms",
     P(duration_ns), .min = 1, .hint = "e.g. 30s, 2m, 500ms, 1h"},
    {"size", 0, CLI_SIZE, "SIZE", "file size of fsync, seq, rand and M2: 500M, 1G (K/M/G = 1024^n)",
     P(size_bytes), .min = 1, .hint = "e.g. 4096, 64K, 500M, 2G"},
    {"capacity", 0, CLI_SIZE, "SIZE",
     "M2: size of the filesystem set aside to be filled (posix: "
     "targets; M2 refuses a larger one and runs only with it)",
     P(capacity_bytes), .min = 1, .hint = "e.g. 64M, 4G"},
    {"interval", 0, CLI_TIME, "TIME",
     "M2: time between lifecycles (default: 30m in virtual time, back to back in real time)",
     P(interval_ns), .min = 1, .hint = "e.g. 30m, 10s"},
    {"floor", 0, CLI_COUNT, "PERCENT", "M2: stop above this much free space (default: 5)",
     P(floor_permille), .times = 10, .min = 1, .max = 99,
     .hint = "a whole percentage from 1 to 99"},
    {"latency-threshold", 0, CLI_TIME, "TIME", "M2: create/open latency to stay under (200ms)",
     P(threshold_ns), .min = 1, .hint = "e.g. 200ms"},
    {"streams", 0, CLI_TEXT, "SPEC", "L1: NAME:HZxBYTES[:burst=N],... (default imu:1000x12,ppg:100x24,env:1x64; burst=N: N records at once, every N periods)",
     P(streams)},
    {"deadline", 0, CLI_TIME, "TIME", "L1: a record durable later than this is late (default: 2s)",
     P(deadline_ns), .min = 1, .hint = "e.g. 2s, 500ms"},
    {"buffer", 0, CLI_SIZE, "SIZE", "L1: RAM for records not yet written (default: 64K)",
     P(buffer_bytes), .min = 256, .hint = "at least 256 bytes, e.g. 64K"},
    {"sync-every", 0, CLI_TIME, "TIME", "L1: how often everything is made durable (default: 1s)",
     P(sync_interval_ns), .min = 1, .hint = "e.g. 1s, 100ms"},
    {"writer", 0, CLI_WORD, "all|direct|mutex|iotask",
     "L1: run only this writer (default: all three, each on the medium the one before left)",
     P(l1_writer), .hint = "choose all, direct, mutex or iotask"},
    {"bisect", 0, CLI_FLAG, "", "L1: also find the highest lossless rate per mode", P(bisect)},
    {"tasks", 0, CLI_FLAG, "",
     "L1: producers and writers as real threads (real time only; "
     "default: one event loop, which virtual time needs)",
     P(tasks)},
    {"priority", 0, CLI_COUNT, "N",
     "S1: run the storage-side tasks at real-time priority N "
     "(SCHED_FIFO 1..99; the load tasks stay normal)",
     P(rt_priority), .min = 1, .max = 99, .hint = "a real-time priority from 1 to 99"},
    {"seed", 0, CLI_COUNT, "N", "seed of offsets and data patterns (default: 1)", P(seed),
     .hint = "a whole number"},
    {"verify", 0, CLI_FLAG, "", "check every read against the offset-stamped pattern", P(verify)},
    {"overwrite", 0, CLI_FLAG, "",
     "fsync: write the file before timing (fio --overwrite=1); "
     "default: allocate it unwritten, fio's default layout",
     P(overwrite)},
    {"m1-offsets", 0, CLI_WORD, "chunk|byte",
     "M1: random offsets at multiples of the chunk size "
     "(default, as the study's figures imply) or at any byte",
     P(m1_byte_offsets), .hint = "choose byte or chunk"},
    {"output", 'o', CLI_FILE, "FILE",
     "write the JSON results (storscope-result/1) to FILE (they "
     "grow in FILE.partial, renamed to FILE when the run ends; "
     "a FIFO or device is written in place, a link followed)",
     O(output)},
    {"csv", 0, CLI_DIR, "DIR", "write one CSV per test into DIR", O(csv)},
    {"tables", 0, CLI_FLAG, "",
     "also print every point's row and the findings (the default "
     "is one line per test, then the guidelines)",
     O(tables)},
    {"quiet", 'q', CLI_FLAG, "", "nothing on stdout, no progress line", O(quiet)},
    {"allow-destructive", 0, CLI_FLAG, "",
     "let raw: and mtd: targets write (destroys the data on them)", O(allow_destructive)},
    {"fio-json", 0, CLI_FILE, "FILE", "also write the fsync result in fio's JSON shape",
     O(fio_json)},
    {"probe", 0, CLI_FILE, "FILE",
     "what `storscope probe -o FILE` measured on this device: its "
     "page, allocation unit and open AUs join the guidelines",
     O(probe)},
    {"db", 0, CLI_OPTIONAL, "ARCHIVE",
     "archive the results as the run ends (storscope db): in the default archive, or "
     "--db=ARCHIVE (sqlite:PATH, postgresql://...); with --probe, on the card it names",
     O(db)},
};

_Static_assert(sizeof(run_opts) / sizeof(run_opts[0]) <= CLI_MAX_OPTS,
               "cli_parse takes CLI_MAX_OPTS options a command");

const struct cli_command cli_run_command = {
    "run", "usage: storscope run [options]\n\n", run_opts, sizeof(run_opts) / sizeof(run_opts[0]),
    "\nCtrl-C stops the run: finished points stay in the JSON, scratch files are\n"
    "removed.\n"};

int run_parse_options(int argc, char **argv, struct run_opts *o, struct sts_plan *plan)
{
    void *const into[] = {o, plan};
    const char *given[CLI_MAX_OPTS];
    int first = cli_parse(&cli_run_command, argc, argv, into, given);
    if (first == CLI_HELP_SHOWN)
        return 1;
    if (first < 0)
        return -1;
    o->size = cli_given(&cli_run_command, given, "size");
    if (first < argc) {
        cli_error("unexpected argument '%s'", argv[first]);
        return -1;
    }
    if (o->suite && o->tests) {
        cli_error("give --suite or --tests, not both");
        return -1;
    }
    return 0;
}
