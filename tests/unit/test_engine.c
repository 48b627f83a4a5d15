/* The engine and every workload on an in-memory target with a virtual clock
 * (engine_fixture.c): deterministic, and the same on the host and the
 * firmware. */
#include "sts_test.h"
#include "storscope/error.h"
#include "storscope/extentfs.h"
#include "storscope/faultbd.h"
#include "storscope/faultfs.h"
#include "storscope/suite.h"
#include "test_mem.h"
#include "workload.h"

#include <string.h>

#include "engine_fixture.h"

static void b0_moves_the_requested_bytes_and_verifies(void)
{
    fixture(UINT64_MAX);
    CHECK_EQ(run_tests("B0", 1, 0, 0), 0);
    CHECK_EQ(cap.run_begins, 1);
    CHECK_EQ(cap.test_ends, 1);
    CHECK_EQ(cap.points, 22); /* 11 chunk sizes x (write, read) */
    CHECK_EQ(cap.skipped, 0);
    CHECK_EQ(cap.bytes_param_mismatch, 0);
    CHECK_EQ(cap.last_runs, 3);
    CHECK(cap.last_mean > 0);
    CHECK_STR(cap.last_point, "read");
    CHECK_EQ(cap.last_status, STS_TEST_OK);
    CHECK(no_files_left());
}

/* A workload that cannot remove its file (the removal fails) leaves it to
 * the engine, which removes it after the test (issue 42: an engine that no
 * longer did survived every test, because the workloads remove their files
 * themselves when they can). */
static void the_engine_removes_what_a_failed_test_left(void)
{
    fixture(UINT64_MAX);
    static struct sts_faultfs ff;
    struct sts_fs lower = target.fs;
    const struct sts_fault_config fc = {.fail_at = 1, .ops = STS_FOP_UNLINK}; /* once */
    sts_faultfs_init(&ff, &lower, &fc, &target.fs);
    CHECK(run_tests("B0", 0, 0, 0) != 0); /* the failed removal fails the test */
    CHECK_EQ(cap.last_status, STS_TEST_FAILED);
    CHECK(strstr(cap.last_error, "remove") != NULL);
    CHECK_EQ(ff.failed, 1);
    CHECK(ff.counted >= 2); /* the engine's own removal came after */
    CHECK(no_files_left());
}

static void corrupted_read_is_caught(void)
{
    /* one flipped bit in the middle of the first file's extent */
    fixture(100000);
    int rc = run_tests("B0", 1, 0, 0);
    CHECK(rc == STS_ECORRUPT);
    CHECK_EQ(cap.last_status, STS_TEST_FAILED);
    CHECK(strstr(cap.last_error, "offset 100000") != NULL);
    CHECK(no_files_left()); /* the engine removed what the test left */
    /* without --verify the same run passes: verification is what caught it */
    fixture(100000);
    CHECK_EQ(run_tests("B0", 0, 0, 0), 0);
}

static void misplaced_data_is_caught(void)
{
    /* right bytes, wrong place: offset-stamping catches a shifted read */
    uint8_t a[64], b[64];
    uint64_t bad = 0;
    sts_pattern_fill(a, 4096, sizeof(a), 9);
    CHECK_EQ(wl_pattern_check(a, 4096, sizeof(a), 9, &bad), 0);
    sts_pattern_fill(b, 4096 + 8, sizeof(b), 9);
    CHECK(wl_pattern_check(b, 4096, sizeof(b), 9, &bad) == STS_ECORRUPT);
    CHECK_EQ(bad, 4096);
}

static void fsync_counts_ops_in_virtual_time(void)
{
    fixture(UINT64_MAX);
    /* each op reads the clock twice (after write, after sync): 2 us per op */
    CHECK_EQ(run_tests("fsync", 1, 1000000, 1024 * 1024), 0);
    CHECK_EQ(cap.points, 1);
    CHECK_EQ(cap.lat_count, 500);
    CHECK_EQ(cap.lat_p50, 2000);
    CHECK_EQ(cap.lat2_p50, 1000);
    const struct sts_kv *iops = sts_kv_find(cap.summary, cap.n_summary, "iops");
    CHECK(iops != NULL);
    CHECK_REL(iops->v.d, 500000.0, 1e-9);
    CHECK(no_files_left());
}

/* Issue 44: on a virtual clock fsync stops after 100,000 operations when
 * the duration has not run out first: the figures are exact by then, and
 * a fast model (sim:ram, 10 million a virtual second) took the host 9 s
 * for 2 s of its time. Here 2 us an op over 1 s would be 500,000. */
static void fsync_on_a_virtual_clock_stops_at_enough_operations(void)
{
    fixture(UINT64_MAX);
    CHECK_EQ(run_tests("fsync", 0, 1000000000, 1024 * 1024), 0);
    CHECK_EQ(cap.lat_count, 100000);
    const struct sts_kv *iops = sts_kv_find(cap.summary, cap.n_summary, "iops");
    CHECK(iops != NULL);
    CHECK_REL(iops->v.d, 500000.0, 1e-9); /* the rate is the same */
    CHECK(no_files_left());
}

static void every_workload_runs_quick(void)
{
    fixture(UINT64_MAX);
    CHECK_EQ(run_tests("B1,B2,M1,seq", 1, 0, 1024 * 1024), 0);
    CHECK_EQ(cap.test_ends, 4);
    CHECK_EQ(cap.bytes_param_mismatch, 0);
    /* seq has no cache to read from on this target: that point is skipped */
    CHECK_EQ(cap.skipped, 1);
    CHECK(no_files_left());
}

static void stop_keeps_finished_points(void)
{
    fixture(UINT64_MAX);
    vc.stop = &stop_flag;
    vc.stop_after = 500; /* a few points into B2 */
    int rc = run_tests("B2,B0", 0, 0, 0);
    CHECK(rc == STS_EINTR);
    CHECK_EQ(cap.run_ends, 1);
    CHECK(cap.interrupted);
    CHECK_EQ(cap.test_ends, 1); /* B0 never started */
    CHECK_EQ(cap.last_status, STS_TEST_INTERRUPTED);
    CHECK(cap.points > 0);
    CHECK(no_files_left());
}

static void plan_scratch_is_largest_test(void)
{
    const struct sts_test_def *tests[] = {sts_test_find("b0"), sts_test_find("FSYNC")};
    CHECK(tests[0] && tests[1]);
    struct sts_plan plan = {.tests = tests, .n_tests = 2, .scale = STS_SCALE_FULL};
    CHECK_EQ(sts_plan_scratch_bytes(&plan), 500ull << 20);
    plan.size_bytes = 1 << 20;
    CHECK_EQ(sts_plan_scratch_bytes(&plan), 1 << 20);
    CHECK(sts_test_find("nope") == NULL);
    CHECK(sts_suite_find("paper") && sts_suite_find("paper")->n == 6);
}

/* Each S2 point carries the device work of its own operations: create's
 * reads are not create + open+close + delete, and the others not 0. */
static void s2_points_carry_their_own_device_counters(void)
{
    fixture(UINT64_MAX);
    memset(&cfs, 0, sizeof(cfs));
    target.fs = (struct sts_fs){&cfs_ops, NULL};
    target.counters = cfs_counters;
    CHECK_EQ(run_tests("S2", 0, 0, 0), 0);
    CHECK_EQ(cap.last_status, STS_TEST_OK);
    CHECK(cap.s2_points >= 6);
    CHECK_EQ(cap.s2_device_wrong, 0);
}


/* faultfs fails exactly the operations it is told to, and passes the rest
 * through: checked against the fake's own count of calls that reached it. */
static void faultfs_fails_the_kth_operation_only(void)
{
    struct sts_fs lower = {&cfs_ops, NULL}, fs;
    static struct sts_faultfs ff;
    char name[16] = "f0";
    for (int from = 0; from <= 1; from++) {
        memset(&cfs, 0, sizeof(cfs));
        struct sts_fault_config cfg = {.fail_at = 3, .from = from, .ops = STS_FOP_OPEN,
                                       .err = STS_ENOSPC};
        sts_faultfs_init(&ff, &lower, &cfg, &fs);
        int failed = 0;
        for (int i = 1; i <= 6; i++) {
            sts_fh fh;
            name[1] = (char)('0' + i);
            uint64_t before = cfs.reads;
            int rc = fs.ops->open(fs.ctx, name, STS_O_CREAT | STS_O_WRONLY, &fh);
            int should_fail = from ? i >= 3 : i == 3;
            CHECK_EQ(rc, should_fail ? STS_ENOSPC : STS_OK);
            CHECK_EQ(cfs.reads - before, should_fail ? 0u : 5u); /* failed: never reached it */
            failed += rc != 0;
            if (!rc) /* closes are not counted: only opens were chosen */
                CHECK_EQ(fs.ops->close(fs.ctx, fh), STS_OK);
        }
        CHECK_EQ(ff.failed, (size_t)failed);
        CHECK_EQ(ff.counted, 6);
        CHECK(fs.ops->advise == NULL); /* the fake has none: the decorator neither */
    }
}


/* However a run ends, every sink sees run_end: the JSON document is closed.
 * A workspace too small for the histograms made the engine return without it. */
static void engine_always_ends_the_run(void)
{
    fixture(UINT64_MAX);
    const struct sts_test_def *tests[] = {sts_test_find("B0")};
    struct sts_plan plan = {.tests = tests, .n_tests = 1, .scale = STS_SCALE_QUICK, .seed = 3,
                            .stop = &stop_flag};
    struct sts_workspace ws = {sts_test_iobuf, STS_TEST_IOBUF_BYTES, sts_test_hist,
                               8 /* buckets: far too few */, STS_HIST_SUB_BITS, STS_HIST_MAX_EXP, NULL, 0};
    struct sts_sink sink = {&cap_ops, &cap};
    struct sts_run_info ri = {.tool_version = STORSCOPE_VERSION, .target = "ram:"};
    CHECK_EQ(sts_engine_run(&plan, &target, &ws, &sink, 1, &ri), STS_ENOMEM);
    CHECK_EQ(cap.run_begins, 1);
    CHECK_EQ(cap.run_ends, 1);
    CHECK_EQ(cap.points, 0);
}


/* Written data does not repeat per chunk (issue 12.8): a compressing
 * filesystem or controller would flatter a file of one chunk written over
 * and over. After B0 and fsync without --verify, the file's 1 KiB (B0's
 * last write size) and 4 KiB (fsync) blocks are all different. */
static unsigned distinct_blocks(const uint8_t *mem, uint64_t bytes, uint64_t block)
{
    unsigned distinct = 0;
    for (uint64_t i = 0; i < bytes / block; i++) {
        int seen = 0;
        for (uint64_t j = 0; j < i && !seen; j++)
            seen = !memcmp(mem + i * block, mem + j * block, block);
        distinct += !seen;
    }
    return distinct;
}

static void written_data_is_not_one_chunk_repeated(void)
{
    fixture(UINT64_MAX);
    memset(ram, 0, RAM_BYTES);
    CHECK_EQ(run_tests("B0", 0, 0, 0), 0);
    /* quick B0: a 256 KiB file at the device's start, last written in 1 KiB chunks */
    CHECK_EQ(distinct_blocks(ram, 256 * 1024, 1024), 256);
    fixture(UINT64_MAX);
    memset(ram, 0, RAM_BYTES);
    CHECK_EQ(run_tests("fsync", 0, 20000000, 256 * 1024), 0);
    /* the blocks fsync wrote (not the zeros of blocks it never drew) differ */
    unsigned written = 0;
    static const uint8_t zero[4096];
    for (uint64_t b = 0; b < 64; b++)
        written += memcmp(ram + b * 4096, zero, 4096) != 0;
    CHECK(written > 8);
    CHECK_EQ(distinct_blocks(ram, 256 * 1024, 4096), written + (written < 64));
}

/* The device twin (issue 13.1): command k, and only it (or every one from
 * k), of the kinds chosen, fails with the error asked for and never reaches
 * the device; the others, submitted ones too, go through. Counted against a
 * RAM disk, whose bytes say what reached it. */
static struct sts_fault_config cfg_scratch;
static void faultbd_fails_the_kth_command_only(void)
{
    static uint8_t mem[8192], buf[512];
    struct sts_ram_bd fb_rb;
    struct sts_bd fb_ram, bd;
    sts_ram_bd_init(&fb_rb, &fb_ram, mem, sizeof(mem));
    static struct sts_faultbd fb;
    for (int from = 0; from <= 1; from++) {
        memset(mem, 0, sizeof(mem));
        struct sts_fault_config cfg = {.fail_at = 3, .from = from, .ops = STS_BOP_PROGRAM,
                                       .err = STS_ENOSPC};
        sts_faultbd_init(&fb, &fb_ram, &cfg, &bd);
        int failed = 0;
        for (uint32_t k = 1; k <= 6; k++) {
            memset(buf, (int)k, sizeof(buf));
            CHECK_EQ(bd.ops->read(bd.ctx, 0, buf, 16), 0); /* not counted: reads pass */
            memset(buf, (int)k, sizeof(buf));
            int rc = bd.ops->program(bd.ctx, (uint64_t)k * 512, buf, sizeof(buf));
            int should = from ? k >= 3 : k == 3;
            CHECK_EQ(rc, should ? STS_ENOSPC : 0);
            /* a failed program never reached the device */
            CHECK_EQ(mem[k * 512], should ? 0 : (uint8_t)k);
            failed += rc != 0;
        }
        CHECK_EQ(fb.counted, 6);
        CHECK_EQ(fb.failed, (size_t)failed);
        CHECK_EQ(bd.ops->flush(bd.ctx), 0);
        CHECK(bd.ops->submit == NULL); /* a blocking device stays blocking */
    }
    /* every kind, counted in order: read 1, program 2, erase 3, flush 4 */
    struct sts_fault_config all = {.fail_at = 3};
    sts_faultbd_init(&fb, &fb_ram, &all, &bd);
    CHECK_EQ(bd.ops->read(bd.ctx, 0, buf, 16), 0);
    CHECK_EQ(bd.ops->program(bd.ctx, 0, buf, 16), 0);
    CHECK_EQ(bd.ops->erase(bd.ctx, 0, 512), STS_EIO);
    CHECK_EQ(bd.ops->flush(bd.ctx), 0);
    CHECK_EQ(fb.counted, 4);
    /* fail_at = 0 counts and fails nothing */
    struct sts_fault_config count = {0};
    sts_faultbd_init(&fb, &fb_ram, &count, &bd);
    for (int i = 0; i < 5; i++)
        CHECK_EQ(bd.ops->flush(bd.ctx), 0);
    CHECK_EQ(fb.counted, 5);
    CHECK_EQ(fb.failed, 0);
    /* the options: taken out of the list, malformed ones named */
    struct sts_spec_opt opts[3] = {{"dev_fail_at", "7"}, {"seed", "2"}, {"dev_fail_op", "erase|flush"}};
    uint32_t n = 3;
    const char *why = NULL;
    CHECK_EQ(sts_faultbd_take_opts(opts, &n, &cfg_scratch, &why), 1);
    CHECK_EQ(n, 1);
    CHECK_STR(opts[0].key, "seed");
    CHECK_EQ(cfg_scratch.fail_at, 7);
    CHECK_EQ(cfg_scratch.ops, STS_BOP_ERASE | STS_BOP_FLUSH);
    struct sts_spec_opt bad[1] = {{"dev_fail_op", "write"}};
    n = 1;
    CHECK_EQ(sts_faultbd_take_opts(bad, &n, &cfg_scratch, &why), STS_EINVAL);
    CHECK(strstr(why, "read, program, erase or flush") != NULL);
    struct sts_spec_opt lone[1] = {{"dev_fail_from", "1"}};
    n = 1;
    CHECK_EQ(sts_faultbd_take_opts(lone, &n, &cfg_scratch, &why), STS_EINVAL);
    CHECK(strstr(why, "need dev_fail_at=K") != NULL);
}

/* Runs `ids` on a fresh fixture counting the reads and programs of exactly
 * `len` bytes per aligned address (read_count, prog_count); the last test's
 * status, or -1 when the engine failed. */
static int run_counting(const char *ids, int verify, uint64_t duration_ns, uint64_t size,
                        size_t len)
{
    fixture(UINT64_MAX);
    memset(read_count, 0, sizeof(read_count));
    memset(prog_count, 0, sizeof(prog_count));
    count_len = len;
    int rc = run_tests(ids, verify, duration_ns, size);
    count_len = 0;
    return rc ? -1 : cap.last_status;
}

/* Issue 12.11: rand draws block-aligned offsets without replacement, as
 * fio's random map does: element i of a seeded permutation. Checked by a
 * bitmap, for sizes that are and are not powers of two. */
static void rand_offsets_are_a_permutation(void)
{
    static uint8_t seen[70000];
    static const uint64_t ns[] = {1, 2, 3, 5, 8, 64, 1000, 4097, 65537};
    for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
        uint64_t n = ns[k], same = 0, in_order = 0;
        memset(seen, 0, sizeof(seen));
        for (uint64_t i = 0; i < n; i++) {
            uint64_t x = wl_perm_at(n, 7, i);
            CHECK(x < n);
            if (x < n)
                seen[x]++;
            same += x == wl_perm_at(n, 8, i);
            in_order += x == i;
        }
        for (uint64_t i = 0; i < n; i++)
            CHECK_EQ(seen[i], 1);
        if (n >= 64) { /* shuffled, and by the seed */
            CHECK(in_order < n / 8);
            CHECK(same < n / 8);
        }
    }
}

/* A 1 MiB file in 8 KiB blocks has 128 of them, fewer than the 256 requests
 * a quick point makes: every pass reads each block exactly once, so over 3
 * runs each block is read 3 times, and --verify checks the data. */
static void rand_reads_each_block_once_per_pass(void)
{
    CHECK_EQ(run_counting("rand", 1, 0, 1024 * 1024, 8192), STS_TEST_OK);
    CHECK_EQ(cap.points, 24); /* 12 block sizes x (randread, randwrite) */
    CHECK_EQ(cap.skipped, 0);
    unsigned blocks = 0;
    for (size_t i = 0; i < sizeof(read_count); i++) {
        if (read_count[i])
            CHECK_EQ(read_count[i], 3);
        blocks += read_count[i] != 0;
    }
    CHECK_EQ(blocks, 128);
    CHECK(no_files_left());
}

/* fio's psync engine passes the offset with the request (pread/pwrite), and
 * its clat times that call alone; rand's seek before a request is an lseek
 * of its own on a POSIX target, and was timed with the request. Here every
 * seek costs 1 ms of virtual time and the requests themselves one clock
 * step: the latencies must not contain the seek. */
static struct sts_fs seek_inner;
static struct sts_fs_ops wrapped_ops;
static int slow_seek(void *ctx, sts_fh fh, uint64_t off)
{
    (void)ctx;
    vc.t += 1000000;
    return seek_inner.ops->seek(seek_inner.ctx, fh, off);
}
static void rand_latency_leaves_the_seek_out(void)
{
    fixture(UINT64_MAX);
    seek_inner = target.fs;
    wrapped_ops = *target.fs.ops;
    wrapped_ops.seek = slow_seek;
    target.fs.ops = &wrapped_ops;
    CHECK_EQ(run_tests("rand", 0, 0, 1024 * 1024), 0);
    CHECK(cap.lat_count > 0);
    CHECK(cap.lat_p50 < 100000); /* one clock step, not the 1 ms seek */
    CHECK(no_files_left());
}

/* Issue 17: M1 reads at multiples of its chunk size by default (a 1 KiB
 * read through FileX at a byte offset is three device commands, at a 1 KiB
 * one a single command: the study's 1 KiB figure is one), at any byte with
 * --m1-offsets byte. A seek wrapper keeps the offset; the read after it
 * checks it against its own length. */
static uint64_t seek_at;
static unsigned reads_seen, reads_off_chunk;
static int seek_recording(void *ctx, sts_fh fh, uint64_t off)
{
    (void)ctx;
    seek_at = off;
    return seek_inner.ops->seek(seek_inner.ctx, fh, off);
}
static int read_checking(void *ctx, sts_fh fh, void *buf, size_t len, size_t *done)
{
    (void)ctx;
    reads_seen++;
    reads_off_chunk += seek_at % len != 0;
    seek_at += len;
    return seek_inner.ops->read(seek_inner.ctx, fh, buf, len, done);
}
static void m1_offsets_are_chunk_multiples_unless_asked(void)
{
    for (int byte = 0; byte <= 1; byte++) {
        fixture(UINT64_MAX);
        seek_inner = target.fs;
        wrapped_ops = *target.fs.ops;
        wrapped_ops.seek = seek_recording;
        wrapped_ops.read = read_checking;
        target.fs.ops = &wrapped_ops;
        reads_seen = reads_off_chunk = 0;
        engine_m1_byte_offsets = byte;
        CHECK_EQ(run_tests("M1", 0, 0, 0), 0);
        engine_m1_byte_offsets = 0;
        /* 11 chunk sizes x 200 reads x 3 runs at scale quick, and the reads
         * that lay the file out (sequential, at multiples of their size) */
        CHECK(reads_seen >= 11 * 200 * 3);
        if (byte) /* at any byte: all but 1 in 2..1024 of the sizes above 1 B miss */
            CHECK(reads_off_chunk > 10 * 200 * 3 / 2);
        else
            CHECK_EQ(reads_off_chunk, 0);
        CHECK(no_files_left());
    }
}

/* Issue 12.6: fio's randwrite keeps a random map, so each block of the
 * file is written once per pass; fsync drew offsets with replacement, and
 * on a file laid out unwritten (ext4's fallocate) its repeats landed on
 * converted extents and ran 15 % faster than fio. Over several passes of a
 * 64-block file, every block is written as often as any other, give or
 * take the pass in progress. */
static void fsync_writes_each_block_once_per_pass(void)
{
    CHECK_EQ(run_counting("fsync", 0, 2000000, 256 * 1024, 4096), STS_TEST_OK);
    unsigned blocks = 0, total = 0, lo = 255, hi = 0;
    for (size_t i = 0; i < sizeof(prog_count); i++) {
        if (!prog_count[i])
            continue;
        blocks++;
        total += prog_count[i];
        lo = prog_count[i] < lo ? prog_count[i] : lo;
        hi = prog_count[i] > hi ? prog_count[i] : hi;
    }
    CHECK(total >= 3 * 64); /* three passes at least, or the check says little */
    CHECK_EQ(blocks, 64);
    CHECK(hi - lo <= 1);
    CHECK(no_files_left());
}

/* Suite "all" holds every registered test once, and every suite's ids are
 * registered tests: a test added to the registry and not to the suite, or
 * a suite's count written by hand, would leave it out without a word
 * (issue 42). */
static void suite_all_holds_every_test(void)
{
    const struct sts_suite_def *all = sts_suite_find("all");
    CHECK(all != NULL);
    CHECK_EQ(all->n, sts_n_tests);
    for (size_t i = 0; i < sts_n_tests; i++) {
        size_t found = 0;
        for (size_t k = 0; k < all->n; k++)
            found += strcmp(all->test_ids[k], sts_tests[i]->id) == 0;
        CHECK_EQ(found, 1);
    }
    for (size_t s = 0; s < sts_n_suites; s++)
        for (size_t k = 0; k < sts_suites[s].n; k++)
            CHECK(sts_test_find(sts_suites[s].test_ids[k]) != NULL);
}

/* Adaptive repetition (issue 41): a point runs again while the standard
 * error of its mean exceeds 0.5 % of it. The cases are worked by hand:
 * runs alternating 99 and 101 have a standard deviation of sqrt(n/(n-1)),
 * so a standard error of 1/sqrt(n-1) %: 0.577 % at 4 runs (again), 0.447 %
 * at 6 (enough). */
static void a_point_runs_again_until_its_mean_is_known(void)
{
    struct sts_plan plan = {.scale = STS_SCALE_QUICK};
    struct sts_target model = {.flags = STS_T_VIRTUAL_TIME}, disk = {.flags = 0};
    struct sts_ctx c = {.plan = &plan, .target = &model};
    const double alt[6] = {99, 101, 99, 101, 99, 101}, same[3] = {100, 100, 100};
    CHECK_EQ(wl_run_again(&c, alt, 0, 3), 1); /* the runs asked for come first */
    CHECK_EQ(wl_run_again(&c, alt, 2, 3), 1);
    CHECK_EQ(wl_run_again(&c, same, 3, 3), 0); /* they agree: done */
    CHECK_EQ(wl_run_again(&c, alt, 4, 3), 1);  /* 0.577 % */
    CHECK_EQ(wl_run_again(&c, alt, 6, 3), 0);  /* 0.447 % */
    const double wide[3] = {90, 100, 110};
    CHECK_EQ(wl_run_again(&c, wide, 1, 1), 0); /* one run: no spread to judge */
    CHECK_EQ(wl_run_again(&c, wide, 3, 3), 1);
    double many[WL_MAX_RUNS];
    for (uint32_t i = 0; i < WL_MAX_RUNS; i++)
        many[i] = i % 2 ? 50 : 150;
    CHECK_EQ(wl_run_again(&c, many, WL_MAX_RUNS - 1, 3), 1);
    CHECK_EQ(wl_run_again(&c, many, WL_MAX_RUNS, 3), 0);
    /* a real device keeps the runs asked for (more narrow its intervals
     * without catching what changes between executions) */
    c.target = &disk;
    CHECK_EQ(wl_run_again(&c, wide, 3, 3), 0);
    CHECK_EQ(wl_run_again(&c, wide, 2, 3), 1);
    /* null: has no medium: no verdict rests on its spread */
    struct sts_target none = {.kind = "null"};
    c.target = &none;
    CHECK_EQ(wl_run_again(&c, wide, 3, 3), 0);
    /* --runs N is N runs, however they spread */
    plan.runs = 3;
    c.target = &model;
    CHECK_EQ(wl_run_again(&c, wide, 3, 3), 0);
}

const struct sts_test_case test_engine_cases[] = {
    {"the_engine_removes_what_a_failed_test_left", the_engine_removes_what_a_failed_test_left},
    {"suite_all_holds_every_test", suite_all_holds_every_test},
    {"fsync_writes_each_block_once_per_pass", fsync_writes_each_block_once_per_pass},
    {"rand_offsets_are_a_permutation", rand_offsets_are_a_permutation},
    {"rand_reads_each_block_once_per_pass", rand_reads_each_block_once_per_pass},
    {"rand_latency_leaves_the_seek_out", rand_latency_leaves_the_seek_out},
    {"m1_offsets_are_chunk_multiples_unless_asked", m1_offsets_are_chunk_multiples_unless_asked},
    {"s2_points_carry_their_own_device_counters", s2_points_carry_their_own_device_counters},
    {"faultfs_fails_the_kth_operation_only", faultfs_fails_the_kth_operation_only},
    {"faultbd_fails_the_kth_command_only", faultbd_fails_the_kth_command_only},
    {"engine_always_ends_the_run", engine_always_ends_the_run},
    {"written_data_is_not_one_chunk_repeated", written_data_is_not_one_chunk_repeated},
    {"b0_moves_the_requested_bytes_and_verifies", b0_moves_the_requested_bytes_and_verifies},
    {"corrupted_read_is_caught", corrupted_read_is_caught},
    {"misplaced_data_is_caught", misplaced_data_is_caught},
    {"fsync_counts_ops_in_virtual_time", fsync_counts_ops_in_virtual_time},
    {"fsync_on_a_virtual_clock_stops_at_enough_operations",
     fsync_on_a_virtual_clock_stops_at_enough_operations},
    {"every_workload_runs_quick", every_workload_runs_quick},
    {"stop_keeps_finished_points", stop_keeps_finished_points},
    {"plan_scratch_is_largest_test", plan_scratch_is_largest_test},
    {"a_point_runs_again_until_its_mean_is_known", a_point_runs_again_until_its_mean_is_known},
    {NULL, NULL},
};
