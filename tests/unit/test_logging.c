/* L1 on a filesystem that stalls on a known schedule, in virtual time: the
 * reported worst stall and buffer need must match the schedule, an
 * overload must show as loss, and the modes must differ as designed. */
#include "sts_test.h"
#include "storscope/error.h"
#include "storscope/port.h"
#include "storscope/suite.h"
#include "test_mem.h"
#include "workload.h"

#include <string.h>

/* ---- stallfs: costs only, no data --------------------------------------- */
struct stallfs {
    uint64_t t, write_ns, sync_ns, stall_ns;
    unsigned stall_every, syncs, open_files, files;
    int real_time;       /* costs are slept on the port's clock, not added to t */
    unsigned fail_sync;  /* this sync (1-based) fails with STS_EIO; 0 = none */
    unsigned stop_after; /* real time: asks the run to stop after this many writes */
    unsigned writes;
    uint64_t bytes, unaligned_writes;
    uint64_t run_bytes, max_run_bytes; /* written since the files were last all closed */
};
static struct stallfs sfs;

static int sfs_open(void *ctx, const char *path, int flags, sts_fh *out)
{
    (void)ctx;
    (void)path;
    (void)flags;
    if (!sfs.open_files)
        sfs.run_bytes = 0;
    sfs.open_files++;
    sfs.files++;
    *out = (sts_fh)sfs.files;
    return STS_OK;
}
static int sfs_close(void *ctx, sts_fh fh)
{
    (void)ctx;
    (void)fh;
    sfs.open_files--;
    return STS_OK;
}
static volatile int stop_flag;
static void sfs_cost(uint64_t ns)
{
    if (sfs.real_time && ns)
        sts_port()->sleep_ns(ns);
    else
        sfs.t += ns;
}
static int sfs_write(void *ctx, sts_fh fh, const void *buf, size_t len, size_t *done)
{
    (void)ctx;
    (void)fh;
    (void)buf;
    sfs_cost(sfs.write_ns);
    if (++sfs.writes == sfs.stop_after) /* from a writer task: another thread */
        __atomic_store_n(&stop_flag, 1, __ATOMIC_RELAXED);
    sfs.bytes += len;
    sfs.run_bytes += len;
    sfs.max_run_bytes = sfs.run_bytes > sfs.max_run_bytes ? sfs.run_bytes : sfs.max_run_bytes;
    if (len % 4096)
        sfs.unaligned_writes++;
    *done = len;
    return STS_OK;
}
static int sfs_sync(void *ctx, sts_fh fh, enum sts_sync_kind kind)
{
    (void)ctx;
    (void)fh;
    (void)kind;
    sfs.syncs++;
    sfs_cost(sfs.stall_every && sfs.syncs % sfs.stall_every == 0 ? sfs.stall_ns : sfs.sync_ns);
    return sfs.syncs == sfs.fail_sync ? STS_EIO : STS_OK;
}
static int sfs_unlink(void *ctx, const char *path)
{
    (void)ctx;
    (void)path;
    sfs.files--;
    return STS_OK;
}
static const struct sts_fs_ops sfs_ops = {
    .version = STS_FS_OPS_VERSION,
    .open = sfs_open, .close = sfs_close, .write = sfs_write, .sync = sfs_sync,
    .unlink = sfs_unlink,
};
static uint64_t sfs_now(void *ctx)
{
    (void)ctx;
    return sfs.t;
}
static const struct sts_clock_ops sfs_clock = {sfs_now};

/* ---- what the run reported, per mode ------------------------------------ */
enum { DIRECT, MUTEX, IOTASK };
struct mode_result {
    int seen;
    uint64_t produced, lost, late, stall, need, written, syncs, at_risk;
    uint64_t hour, hour_lost, hour_stall; /* its worst hour */
};
/* the point a run the storage failed leaves: what it had then */
static struct {
    int seen;
    uint64_t at_ns, produced, lost, durable, kept_bytes, durable_bytes, at_risk;
} failure;
static struct mode_result res[3], best[3];
static double best_scale[3];
static int best_capped[3];

static double m(const struct sts_point *p, const char *k)
{
    return sts_kv_number(sts_kv_find(p->metrics, p->n_metrics, k));
}
/* a metric only some runs have (the worst hour: not with real tasks) */
static double m_or_0(const struct sts_point *p, const char *k)
{
    const struct sts_kv *kv = sts_kv_find(p->metrics, p->n_metrics, k);
    return kv ? sts_kv_number(kv) : 0;
}
static int cap_point(void *ctx, const struct sts_test_info *ti, const struct sts_point *p)
{
    (void)ctx;
    (void)ti;
    if (p->skipped)
        return 0;
    if (!strcmp(p->name, "at_failure")) {
        failure.seen = 1;
        failure.at_ns = (uint64_t)m(p, "failed_at_ns");
        failure.produced = (uint64_t)m(p, "records_produced");
        failure.lost = (uint64_t)m(p, "records_lost");
        failure.durable = (uint64_t)m(p, "records_durable");
        failure.kept_bytes = (uint64_t)m(p, "kept_bytes");
        failure.durable_bytes = (uint64_t)m(p, "durable_bytes");
        failure.at_risk = (uint64_t)m(p, "at_risk_bytes");
        return 0;
    }
    const char *mode = sts_kv_find(p->params, p->n_params, "mode")->v.s;
    int i = !strcmp(mode, "direct") ? DIRECT : !strcmp(mode, "mutex") ? MUTEX : IOTASK;
    int is_best = !strcmp(p->name, "max_lossless");
    struct mode_result *r = is_best ? &best[i] : &res[i];
    *r = (struct mode_result){1,
                              (uint64_t)m(p, "records_produced"),
                              (uint64_t)m(p, "records_lost"),
                              (uint64_t)m(p, "records_late"),
                              (uint64_t)m(p, "worst_stall_ns"),
                              (uint64_t)m(p, "required_buffer_bytes"),
                              (uint64_t)m(p, "bytes_written"),
                              (uint64_t)m(p, "sync_calls"),
                              (uint64_t)m(p, "at_risk_peak_bytes"),
                              (uint64_t)m_or_0(p, "worst_hour_index"),
                              (uint64_t)m_or_0(p, "worst_hour_records_lost"),
                              (uint64_t)m_or_0(p, "worst_hour_stall_ns")};
    if (is_best) {
        best_scale[i] = sts_kv_number(sts_kv_find(p->params, p->n_params, "rate_scale"));
        const struct sts_kv *cap = sts_kv_find(p->metrics, p->n_metrics, "capped_by_space");
        best_capped[i] = cap && cap->v.b;
    }
    return 0;
}
static unsigned status;
static char end_error[160];
static int cap_end(void *ctx, const struct sts_test_end *te)
{
    (void)ctx;
    status = te->status;
    end_error[0] = '\0';
    if (te->error)
        strncat(end_error, te->error, sizeof(end_error) - 1);
    return 0;
}
static const struct sts_sink_ops cap_ops = {.point = cap_point, .test_end = cap_end};

static uint64_t run_size; /* --size: the most one run may write (0 = default) */
static const struct sts_sink_ops *lost_sink_ops; /* instead of cap_ops when set */
static int run_tasks;     /* --tasks, on the port's clock in real time */
static int run_l1(const char *streams, uint64_t duration_ns, uint64_t buffer, int bisect,
                  uint64_t sync_ns)
{
    memset(res, 0, sizeof(res));
    memset(best, 0, sizeof(best));
    memset(&failure, 0, sizeof(failure));
    static struct sts_target t;
    memset(&t, 0, sizeof(t));
    t.kind = "stall";
    t.fs = (struct sts_fs){&sfs_ops, NULL};
    t.clock = (struct sts_clock){&sfs_clock, NULL};
    t.flags = STS_T_VIRTUAL_TIME;
    if (run_tasks) {
        t.clock = *sts_port_clock();
        t.flags = 0;
    }
    const struct sts_test_def *tests[] = {sts_test_find("L1")};
    struct sts_plan plan = {.tests = tests, .n_tests = 1, .seed = 1, .duration_ns = duration_ns,
                            .streams = streams, .buffer_bytes = buffer, .bisect = bisect,
                            .sync_interval_ns = sync_ns, .size_bytes = run_size,
                            .tasks = run_tasks, .stop = &stop_flag};
    stop_flag = 0;
    struct sts_workspace ws = {sts_test_iobuf, STS_TEST_IOBUF_BYTES, sts_test_hist,
                               STS_HIST_BUCKETS, STS_HIST_SUB_BITS, STS_HIST_MAX_EXP, NULL, 0};
    struct sts_sink sink = {lost_sink_ops ? lost_sink_ops : &cap_ops, NULL};
    struct sts_run_info ri = {.tool_version = STORSCOPE_VERSION, .target = "stall:"};
    return sts_engine_run(&plan, &t, &ws, &sink, 1, &ri);
}

static void stallfs_reset(uint64_t write_ns, uint64_t stall_ns, unsigned every)
{
    memset(&sfs, 0, sizeof(sfs));
    sfs.write_ns = write_ns;
    sfs.sync_ns = 1000000;
    sfs.stall_ns = stall_ns;
    sfs.stall_every = every;
}

/* 1 kHz x 16 B for 5 s, one sync per second; every 4th sync takes 300 ms:
 * 300 records (4800 B) pile up behind it, and nothing else stalls as long. */
static void worst_stall_and_buffer_match_the_schedule(void)
{
    stallfs_reset(10000, 300000000, 4);
    CHECK_EQ(run_l1("s:1000x16", 5000000000ull, 0, 0, 0), 0);
    CHECK_EQ(status, STS_TEST_OK);
    for (int i = DIRECT; i <= MUTEX; i++) {
        CHECK(res[i].seen);
        CHECK_EQ(res[i].produced, 5000);
        CHECK_EQ(res[i].lost, 0);
        CHECK_EQ(res[i].late, 0);
        CHECK_EQ(res[i].stall, 300000000);
        CHECK(res[i].need >= 300 * 16 && res[i].need <= 302 * 16);
        CHECK_EQ(res[i].written, 5000 * 16);
        CHECK_EQ(res[i].syncs, 5); /* one per second, the last one at the end */
    }
    /* what a cut takes at worst: just before the 300 ms sync ends, every
     * record since the sync before it began (4.3 s - 3.0 s: 1,300 of 16 B;
     * the 1 ms syncs end with 1,001) - not the interval's 1,000 */
    for (int i = DIRECT; i <= IOTASK; i++)
        CHECK(res[i].at_risk >= 1299 * 16 && res[i].at_risk <= 1302 * 16);
    /* iotask: one file, one sync per second, only whole aligned chunks */
    CHECK_EQ(res[IOTASK].syncs, 5);
    CHECK_EQ(res[IOTASK].lost, 0);
    CHECK(res[IOTASK].written % 4096 == 0);
    CHECK(res[IOTASK].written >= 5000 * 20);
    CHECK_EQ(sfs.unaligned_writes, 5000 * 2); /* the record-sized writes of direct and mutex */
    CHECK_EQ(sfs.open_files, 0);
    CHECK_EQ(sfs.files, 0);
}

/* Three hours at 1 Hz, a sync a second, the 5,000th and 10,000th syncs of
 * the direct writer's run taking 3 s (at 5,000 s and 10,000 s: hours 1 and
 * 2): each makes the records behind it later than the 2 s deadline. Its
 * worst hour is the first of the two (a tie goes to the earlier), holding
 * half the late records and the 3 s stall; hour 0 has neither. */
static void the_worst_hour_is_the_one_its_losses_gather_in(void)
{
    stallfs_reset(0, 3000000000ull, 5000);
    CHECK_EQ(run_l1("s:1x16", 3 * 3600000000000ull, 0, 0, 0), 0);
    CHECK_EQ(res[DIRECT].produced, 3 * 3600);
    CHECK(res[DIRECT].late >= 2);
    CHECK_EQ(res[DIRECT].late % 2, 0);
    CHECK_EQ(res[DIRECT].hour, 1);
    CHECK_EQ(res[DIRECT].hour_lost, res[DIRECT].late / 2);
    CHECK_EQ(res[DIRECT].hour_stall, 3000000000ull);
    CHECK_EQ(res[DIRECT].stall, 3000000000ull);
}

/* A stall longer than the deadline makes the records behind it late. */
static void a_stall_past_the_deadline_makes_records_late(void)
{
    stallfs_reset(10000, 2500000000ull, 2);
    CHECK_EQ(run_l1("s:100x16", 4000000000ull, 0, 0, 0), 0);
    CHECK(res[DIRECT].late > 0);
    CHECK_EQ(res[DIRECT].lost, 0);
    CHECK(res[DIRECT].stall >= 2500000000ull);
}

/* 200 kHz of 16 B records, 10 us per write call: record-by-record writing
 * cannot keep up (100 k calls/s), 4 KiB chunks can (about 1,000 calls/s). */
static void a_rate_above_capacity_is_lossy(void)
{
    stallfs_reset(10000, 1000000, 0);
    CHECK_EQ(run_l1("s:200000x16", 200000000ull, 0, 0, 0), 0);
    CHECK(res[DIRECT].lost > 0);
    CHECK(res[MUTEX].lost > 0);
    CHECK_EQ(res[IOTASK].lost, 0);
    CHECK(res[DIRECT].need <= 64 * 1024);
}

/* Which stream lost them: a 200 kHz stream beside a 10 Hz one, 10 us per
 * write call. In mutex mode each stream has its own FIFO, so the slow
 * stream's never fills and every lost record is the fast stream's; every
 * point names each stream's losses, and they add up to its total. */
static uint64_t lost_of[3][2];
static int lost_point(void *ctx, const struct sts_test_info *ti, const struct sts_point *p)
{
    cap_point(ctx, ti, p);
    if (p->skipped)
        return 0;
    if (!strcmp(p->name, "at_failure")) /* cap_point took it */
        return 0;
    const char *mode = sts_kv_find(p->params, p->n_params, "mode")->v.s;
    int i = !strcmp(mode, "direct") ? DIRECT : !strcmp(mode, "mutex") ? MUTEX : IOTASK;
    const struct sts_kv *a = sts_kv_find(p->metrics, p->n_metrics, "records_lost_fast");
    const struct sts_kv *b = sts_kv_find(p->metrics, p->n_metrics, "records_lost_slow");
    lost_of[i][0] = a ? a->v.u : UINT64_MAX;
    lost_of[i][1] = b ? b->v.u : UINT64_MAX;
    return 0;
}
static void lost_records_are_named_by_stream(void)
{
    stallfs_reset(10000, 1000000, 0);
    static const struct sts_sink_ops ops = {.point = lost_point, .test_end = cap_end};
    lost_sink_ops = &ops;
    CHECK_EQ(run_l1("fast:200000x16,slow:10x16", 200000000ull, 0, 0, 0), 0);
    lost_sink_ops = NULL;
    CHECK(res[MUTEX].lost > 0);
    CHECK_EQ(lost_of[MUTEX][1], 0);
    CHECK_EQ(lost_of[MUTEX][0], res[MUTEX].lost);
    for (int i = DIRECT; i <= IOTASK; i++)
        CHECK_EQ(lost_of[i][0] + lost_of[i][1], res[i].lost);
    CHECK_EQ(lost_of[IOTASK][0], 0);
}

/* Bursts: 1 kHz x 16 B arriving 50 at a time (a sensor's FIFO read out
 * every 50 ms), 10 us a write, 1 s: the 1,000 records arrive in 20 bursts,
 * the last at 999 ms. Each burst is in RAM at once, so the backlog reaches
 * 50 x 16 B where the same stream sampled one by one never holds two
 * records; and a FIFO of 49 records (784 B) takes 49 of each burst: 20
 * lost, one a burst, where the steady stream loses none in it. */
static void a_burst_arrives_at_once(void)
{
    stallfs_reset(10000, 0, 0);
    CHECK_EQ(run_l1("s:1000x16", 1000000000ull, 0, 0, 0), 0);
    CHECK_EQ(res[DIRECT].produced, 1000);
    CHECK(res[DIRECT].need <= 2 * 16);
    stallfs_reset(10000, 0, 0);
    CHECK_EQ(run_l1("s:1000x16:burst=50", 1000000000ull, 0, 0, 0), 0);
    CHECK_EQ(status, STS_TEST_OK);
    for (int i = DIRECT; i <= MUTEX; i++) {
        CHECK_EQ(res[i].produced, 1000);
        CHECK_EQ(res[i].lost, 0);
        CHECK(res[i].need >= 50 * 16 && res[i].need <= 51 * 16);
    }
    stallfs_reset(10000, 0, 0);
    CHECK_EQ(run_l1("s:1000x16", 1000000000ull, 49 * 16, 0, 0), 0);
    CHECK_EQ(res[DIRECT].lost, 0);
    stallfs_reset(10000, 0, 0);
    CHECK_EQ(run_l1("s:1000x16:burst=50", 1000000000ull, 49 * 16, 0, 0), 0);
    CHECK_EQ(res[DIRECT].produced, 1000);
    CHECK_EQ(res[DIRECT].lost, 20);
    /* a burst the run ends before never arrives: 1,000 records sampled in
     * 1 s, 30 a burst, 33 whole bursts by 990 ms, the 34th due at 1,019 ms */
    stallfs_reset(10000, 0, 0);
    CHECK_EQ(run_l1("s:1000x16:burst=30", 1000000000ull, 0, 0, 0), 0);
    CHECK_EQ(res[DIRECT].produced, 33 * 30);
}

/* Bisection: 100 Hz x 16 B, 100 us per write, 20 ms per sync every 250 ms,
 * 16 KiB of RAM, 1 s. direct saturates near 94x (a record write per 100 us,
 * less three syncs) plus what the buffer absorbs in 1 s (10x); iotask when
 * 16 KiB no longer holds the 20-byte records arriving during a sync and
 * the padded chunk before it (20.1 ms): 16384 / 20 / 0.0201 / 100 = 407x. */
static void bisection_finds_the_highest_lossless_rate(void)
{
    stallfs_reset(100000, 0, 0);
    sfs.sync_ns = 20000000;
    CHECK_EQ(run_l1("s:100x16", 1000000000ull, 16384, 1, 250000000), 0);
    CHECK(best[DIRECT].seen && best[IOTASK].seen);
    CHECK(best_scale[DIRECT] > 95 && best_scale[DIRECT] < 112);
    CHECK_EQ(best[DIRECT].lost, 0);
    CHECK_EQ(best[DIRECT].late, 0);
    CHECK(best_scale[IOTASK] > 380 && best_scale[IOTASK] < 410);
    CHECK_EQ(best[IOTASK].lost, 0);
}


/* --bisect never writes more in one run than the space checked before the
 * run (--size here, 256 KiB): the same device as above sustains ~407x in
 * iotask mode, whose 512x probe wrote 800 KB. The search stops at the last
 * rate whose double would not fit, and says it was capped. */
static void bisection_stays_inside_the_space_allowed(void)
{
    stallfs_reset(100000, 0, 0);
    sfs.sync_ns = 20000000;
    run_size = 256 * 1024;
    CHECK_EQ(run_l1("s:100x16", 1000000000ull, 16384, 1, 250000000), 0);
    run_size = 0;
    CHECK_EQ(status, STS_TEST_OK);
    CHECK(sfs.max_run_bytes <= 256 * 1024);
    CHECK(best[IOTASK].seen);
    CHECK(best_scale[IOTASK] >= 64 && best_scale[IOTASK] < 407);
    CHECK(best_capped[IOTASK]);
    CHECK(!best_capped[DIRECT]); /* direct saturated first, under the cap */
}

/* ---- real tasks (--tasks): producers and writers on the port's threads -- */

/* Runs L1 with tasks in real time; 0 when the port cannot (then the test
 * must say so: not applicable, with the reason). */
static int tasks_supported(void)
{
    return (sts_port()->caps & STS_PORT_PREEMPTIVE) != 0;
}
static int run_l1_tasks(const char *streams, uint64_t duration_ns, uint64_t buffer,
                        uint64_t sync_ns)
{
    run_tasks = 1;
    sfs.real_time = 1;
    int rc = run_l1(streams, duration_ns, buffer, 0, sync_ns);
    run_tasks = 0;
    return rc;
}

/* 1 kHz x 16 B and 100 Hz x 24 B for 0.6 s, a sync asked for every 100 ms,
 * every 3rd sync stalls 60 ms: each producer task counts every record of its
 * schedule (600 + 60), none is lost in 64 KiB, every record reaches the
 * file once (direct and mutex write exactly the payload), and a writer
 * blocked in the stall leaves the records produced meanwhile waiting in RAM
 * (>= 50 of the 1 kHz stream's 16 B records). */
static void real_tasks_account_for_every_record(void)
{
    stallfs_reset(0, 60000000, 3);
    sfs.sync_ns = 1000000;
    int rc = run_l1_tasks("a:1000x16,b:100x24", 600000000ull, 0, 100000000);
    if (!tasks_supported()) {
        CHECK_EQ(rc, 0);
        CHECK_EQ(status, STS_TEST_NOT_APPLICABLE);
        CHECK(strstr(end_error, "preemptive") != NULL);
        return;
    }
    CHECK_EQ(rc, 0);
    CHECK_EQ(status, STS_TEST_OK);
    for (int i = DIRECT; i <= IOTASK; i++) {
        CHECK(res[i].seen);
        CHECK_EQ(res[i].produced, 660);
        CHECK_EQ(res[i].lost, 0);
        CHECK_EQ(res[i].late, 0);
        CHECK(res[i].stall >= 60000000);
        /* (the third sync is the one that stalls; how many more fit in
         * 0.6 s is the host's scheduling: under ThreadSanitizer on a busy
         * 2-core machine the writer task made 5, not 6) */
        CHECK(res[i].syncs >= 3);
    }
    CHECK_EQ(res[DIRECT].written, 600 * 16 + 60 * 24);
    CHECK_EQ(res[MUTEX].written, 600 * 16 + 60 * 24);
    CHECK(res[DIRECT].need >= 50 * 16);
    CHECK(res[IOTASK].written % 4096 == 0);
    CHECK(res[IOTASK].written >= 600 * 20 + 60 * 28);
    CHECK_EQ(sfs.open_files, 0);
    CHECK_EQ(sfs.files, 0);
}

/* A sync that fails ends the run with tasks as without: the test fails
 * naming the sync, every task ends (no hang), and the files are gone. */
static void real_tasks_end_on_a_failed_sync(void)
{
    if (!tasks_supported())
        return; /* not applicable there: real_tasks_account_for_every_record checks it */
    stallfs_reset(0, 0, 0);
    sfs.sync_ns = 1000000;
    sfs.fail_sync = 2;
    CHECK(run_l1_tasks("a:1000x16,b:100x24", 400000000ull, 0, 50000000) == STS_EIO);
    CHECK_EQ(status, STS_TEST_FAILED);
    CHECK(strstr(end_error, "sync") != NULL);
    CHECK_EQ(sfs.open_files, 0);
    CHECK_EQ(sfs.files, 0);
}

/* A storage failure (a power cut ends a run so) leaves a point with what
 * the run had then. 1 kHz x 16 B, writes free, a sync every 50 ms taking
 * 1 ms, the third failing: at 50 ms record 50 has arrived but waits behind
 * the sync, which makes records 0-49 durable at 51 ms; the second makes
 * 50-99 durable at 101 ms; the third starts at 150 ms and fails at 151 ms.
 * By then records 0-150 were taken in (record 151 arrives at 151 ms, not
 * yet taken): 100 durable, 51 kept and not, and one arrived: 52 at risk. */
static void a_failed_sync_leaves_what_the_run_had(void)
{
    stallfs_reset(0, 0, 0);
    sfs.fail_sync = 3;
    CHECK(run_l1("a:1000x16", 1000000000ull, 0, 0, 50000000) == STS_EIO);
    CHECK_EQ(status, STS_TEST_FAILED);
    CHECK(failure.seen);
    CHECK_EQ(failure.at_ns, 151000000);
    CHECK_EQ(failure.produced, 151);
    CHECK_EQ(failure.lost, 0);
    CHECK_EQ(failure.durable, 100);
    CHECK_EQ(failure.kept_bytes, 151 * 16);
    CHECK_EQ(failure.durable_bytes, 100 * 16);
    CHECK_EQ(failure.at_risk, 52 * 16);
    CHECK_EQ(sfs.open_files, 0);
}

/* Ctrl-C during a run with tasks: it stops within a sync interval,
 * interrupted, and removes its files. */
static void real_tasks_stop_when_asked(void)
{
    if (!tasks_supported())
        return; /* as above */
    stallfs_reset(0, 0, 0);
    sfs.sync_ns = 1000000;
    sfs.stop_after = 200;
    CHECK(run_l1_tasks("a:1000x16", 5000000000ull, 0, 100000000) == STS_EINTR);
    CHECK_EQ(status, STS_TEST_INTERRUPTED);
    CHECK(sfs.writes < 1500); /* stopped near the 200th write, not after 5 s of them */
    CHECK_EQ(sfs.open_files, 0);
    CHECK_EQ(sfs.files, 0);
}

const struct sts_test_case test_logging_cases[] = {
    {"real_tasks_account_for_every_record", real_tasks_account_for_every_record},
    {"real_tasks_end_on_a_failed_sync", real_tasks_end_on_a_failed_sync},
    {"real_tasks_stop_when_asked", real_tasks_stop_when_asked},
    {"a_failed_sync_leaves_what_the_run_had", a_failed_sync_leaves_what_the_run_had},
    {"the_worst_hour_is_the_one_its_losses_gather_in",
     the_worst_hour_is_the_one_its_losses_gather_in},
    {"worst_stall_and_buffer_match_the_schedule", worst_stall_and_buffer_match_the_schedule},
    {"a_stall_past_the_deadline_makes_records_late", a_stall_past_the_deadline_makes_records_late},
    {"a_rate_above_capacity_is_lossy", a_rate_above_capacity_is_lossy},
    {"a_burst_arrives_at_once", a_burst_arrives_at_once},
    {"lost_records_are_named_by_stream", lost_records_are_named_by_stream},
    {"bisection_finds_the_highest_lossless_rate", bisection_finds_the_highest_lossless_rate},
    {"bisection_stays_inside_the_space_allowed", bisection_stays_inside_the_space_allowed},
    {NULL, NULL},
};
