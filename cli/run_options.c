/* storscope run's command line: its help and its parser. */
#define _GNU_SOURCE
#include "run_options.h"
#include "cli.h"
#include "storscope/suite.h"
#include "storscope/units.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void run_usage(FILE *f)
{
    fputs("usage: storscope run [options]\n"
          "\n"
          "  -t, --target SPEC     where to measure (default: sim:emmc-stm32u5, the study's\n"
          "                        medium simulated; capacity=1G of it on a 32-bit host);\n"
          "                        e.g. posix:/mnt/sdcard, sim:sd-consumer\n"
          "                        KIND:ARG[,key=value...], see `storscope list targets`\n"
          "  -s, --suite NAME      a suite of tests (default: paper), see `storscope list suites`\n"
          "  -T, --tests LIST      comma-separated tests instead of a suite (e.g. B0,fsync)\n"
          "      --scale quick|full  quick shrinks sizes and runs; full uses the study's values\n"
          "                        (default: quick)\n"
          "  -r, --runs N          repetitions per point, exactly (default: per test and\n"
          "                        scale; on a noisy model at least 5, then more while a\n"
          "                        point's runs disagree, up to 64; a real device's\n"
          "                        sweeps at least 5, in rounds over their points)\n"
          "  -d, --duration TIME   length of time-based tests (fsync, L1): 30s, 2m, 500ms\n"
          "      --size SIZE       file size of fsync, seq, rand and M2: 500M, 1G (K/M/G = 1024^n)\n"
          "      --capacity SIZE   M2: size of the filesystem set aside to be filled (posix:\n"
          "                        targets; M2 refuses a larger one and runs only with it)\n"
          "      --interval TIME   M2: time between lifecycles (default: 30m in virtual time,\n"
          "                        back to back in real time)\n"
          "      --floor PERCENT   M2: stop above this much free space (default: 5)\n"
          "      --latency-threshold TIME  M2: create/open latency to stay under (200ms)\n"
          "      --streams SPEC    L1: NAME:HZxBYTES,... (default imu:1000x12,ppg:100x24,env:1x64)\n"
          "      --deadline TIME   L1: a record durable later than this is late (default: 2s)\n"
          "      --buffer SIZE     L1: RAM for records not yet written (default: 64K)\n"
          "      --sync-every TIME L1: how often everything is made durable (default: 1s)\n"
          "      --bisect          L1: also find the highest lossless rate per mode\n"
          "      --tasks           L1: producers and writers as real threads (real time only;\n"
          "                        default: one event loop, which virtual time needs)\n"
          "      --priority N      S1: run the storage-side tasks at real-time priority N\n"
          "                        (SCHED_FIFO 1..99; the load tasks stay normal)\n"
          "      --seed N          seed of offsets and data patterns (default: 1)\n"
          "      --verify          check every read against the offset-stamped pattern\n"
          "      --overwrite       fsync: write the file before timing (fio --overwrite=1);\n"
          "                        default: allocate it unwritten, fio's default layout\n"
          "      --m1-offsets chunk|byte  M1: random offsets at multiples of the chunk size\n"
          "                        (default, as the study's figures imply) or at any byte\n"
          "  -o, --output FILE     write the JSON results (storscope-result/1) to FILE (they\n"
          "                        grow in FILE.partial, renamed to FILE when the run ends;\n"
          "                        a FIFO or device is written in place, a link followed)\n"
          "      --csv DIR         write one CSV per test into DIR\n"
          "      --tables          also print every point's row and the findings (the default\n"
          "                        is one line per test, then the guidelines)\n"
          "  -q, --quiet           nothing on stdout, no progress line\n"
          "      --allow-destructive  let raw: and mtd: targets write (destroys the data on\n"
          "                        them)\n"
          "      --fio-json FILE   also write the fsync result in fio's JSON shape\n"
          "      --probe FILE      what `storscope probe -o FILE` measured on this device: its\n"
          "                        page, allocation unit and open AUs join the guidelines\n"
          "  -h, --help            this text\n"
          "\n"
          "Ctrl-C stops the run: finished points stay in the JSON, scratch files are removed.\n",
          f);
}


int run_parse_options(int argc, char **argv, struct run_opts *o, struct sts_plan *plan)
{
    static const struct option longopts[] = {
        {"target", required_argument, NULL, 't'},
        {"suite", required_argument, NULL, 's'},
        {"tests", required_argument, NULL, 'T'},
        {"scale", required_argument, NULL, 'S'},
        {"runs", required_argument, NULL, 'r'},
        {"duration", required_argument, NULL, 'd'},
        {"size", required_argument, NULL, 'z'},
        {"seed", required_argument, NULL, 'e'},
        {"verify", no_argument, NULL, 'v'},
        {"overwrite", no_argument, NULL, 'W'},
        {"m1-offsets", required_argument, NULL, 'O'},
        {"output", required_argument, NULL, 'o'},
        {"csv", required_argument, NULL, 'c'},
        {"quiet", no_argument, NULL, 'q'},
        {"tables", no_argument, NULL, 'V'},
        {"allow-destructive", no_argument, NULL, 'A'},
        {"fio-json", required_argument, NULL, 'F'},
        {"capacity", required_argument, NULL, 'C'},
        {"interval", required_argument, NULL, 'I'},
        {"floor", required_argument, NULL, 'L'},
        {"latency-threshold", required_argument, NULL, 'H'},
        {"streams", required_argument, NULL, 'X'},
        {"deadline", required_argument, NULL, 'D'},
        {"buffer", required_argument, NULL, 'B'},
        {"sync-every", required_argument, NULL, 'Y'},
        {"bisect", no_argument, NULL, 'b'},
        {"tasks", no_argument, NULL, 'k'},
        {"probe", required_argument, NULL, 'p'},
        {"priority", required_argument, NULL, 'P'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    opterr = 0;
    optind = 1;
    int ch;
    uint64_t v;
    while ((ch = getopt_long(argc, argv, ":t:s:T:r:d:o:qh", longopts, NULL)) != -1) {
        switch (ch) {
        case 't': o->target = optarg; break;
        case 's': o->suite = optarg; break;
        case 'T': o->tests = optarg; break;
        case 'o': o->output = optarg; break;
        case 'c': o->csv = optarg; break;
        case 'q': o->quiet = 1; break;
        case 'V': o->tables = 1; break;
        case 'A': o->allow_destructive = 1; break;
        case 'F': o->fio_json = optarg; break;
        case 'p': o->probe = optarg; break;
        case 'v': plan->verify = 1; break;
        case 'W': plan->overwrite = 1; break;
        case 'O':
            if (strcmp(optarg, "byte") && strcmp(optarg, "chunk")) {
                cli_error("bad --m1-offsets '%s' (choose byte or chunk)", optarg);
                return -1;
            }
            plan->m1_byte_offsets = !strcmp(optarg, "byte");
            break;
        case 'S':
            if (sts_scale_parse(optarg, &plan->scale)) {
                cli_error("bad --scale '%s' (choose quick or full)", optarg);
                return -1;
            }
            break;
        case 'r':
            if (sts_parse_u64(optarg, &v) || v == 0 || v > 64) {
                cli_error("bad --runs '%s' (a whole number from 1 to 64)", optarg);
                return -1;
            }
            plan->runs = (uint32_t)v;
            break;
        case 'd':
            if (sts_parse_duration(optarg, &plan->duration_ns) || plan->duration_ns == 0) {
                cli_error("bad --duration '%s' (e.g. 30s, 2m, 500ms, 1h)", optarg);
                return -1;
            }
            break;
        case 'z':
            if (sts_parse_size(optarg, &plan->size_bytes) || plan->size_bytes == 0) {
                cli_error("bad --size '%s' (e.g. 4096, 64K, 500M, 2G)", optarg);
                return -1;
            }
            o->size = optarg;
            break;
        case 'e':
            if (sts_parse_u64(optarg, &plan->seed)) {
                cli_error("bad --seed '%s' (a whole number)", optarg);
                return -1;
            }
            break;
        case 'C':
            if (sts_parse_size(optarg, &plan->capacity_bytes) || plan->capacity_bytes == 0) {
                cli_error("bad --capacity '%s' (e.g. 64M, 4G)", optarg);
                return -1;
            }
            break;
        case 'I':
            if (sts_parse_duration(optarg, &plan->interval_ns) || plan->interval_ns == 0) {
                cli_error("bad --interval '%s' (e.g. 30m, 10s)", optarg);
                return -1;
            }
            break;
        case 'L':
            if (sts_parse_u64(optarg, &v) || v == 0 || v >= 100) {
                cli_error("bad --floor '%s' (a whole percentage from 1 to 99)", optarg);
                return -1;
            }
            plan->floor_permille = (uint32_t)v * 10;
            break;
        case 'H':
            if (sts_parse_duration(optarg, &plan->threshold_ns) || plan->threshold_ns == 0) {
                cli_error("bad --latency-threshold '%s' (e.g. 200ms)", optarg);
                return -1;
            }
            break;
        case 'X': plan->streams = optarg; break;
        case 'b': plan->bisect = 1; break;
        case 'k': plan->tasks = 1; break;
        case 'P':
            if (sts_parse_u64(optarg, &v) || v == 0 || v > 99) {
                cli_error("bad --priority '%s' (a real-time priority from 1 to 99)", optarg);
                return -1;
            }
            plan->rt_priority = (uint32_t)v;
            break;
        case 'D':
            if (sts_parse_duration(optarg, &plan->deadline_ns) || plan->deadline_ns == 0) {
                cli_error("bad --deadline '%s' (e.g. 2s, 500ms)", optarg);
                return -1;
            }
            break;
        case 'Y':
            if (sts_parse_duration(optarg, &plan->sync_interval_ns) || plan->sync_interval_ns == 0) {
                cli_error("bad --sync-every '%s' (e.g. 1s, 100ms)", optarg);
                return -1;
            }
            break;
        case 'B':
            if (sts_parse_size(optarg, &plan->buffer_bytes) || plan->buffer_bytes < 256) {
                cli_error("bad --buffer '%s' (at least 256 bytes, e.g. 64K)", optarg);
                return -1;
            }
            break;
        case 'h': run_usage(stdout); return 1;
        case ':': cli_error("option '%s' needs a value", argv[optind - 1]); return -1;
        default: cli_error("unknown option '%s'", argv[optind - 1]); return -1;
        }
    }
    if (optind < argc) {
        cli_error("unexpected argument '%s'", argv[optind]);
        return -1;
    }
    if (o->suite && o->tests) {
        cli_error("give --suite or --tests, not both");
        return -1;
    }
    return 0;
}
