/* sensorlog from several tasks: appends from many producers, every call
 * from the context the header allows, and readers in other tasks while
 * the log wraps (issue 40). */
#include "sts_test.h"
#include "sensorlog/sensorlog.h"
#include "storscope/error.h"
#include "storscope/rng.h"
#include "storscope/port.h"
#include "storscope/sensorlog_fs.h"
#include "storscope/sim.h"
#include "storscope/suite.h"

#include "test_mem.h"

#include <string.h>

#include "sl_fixture.h"

/* ---- appends from several tasks at once ---------------------------------- */
struct producer {
    struct sts_task task;
    uint16_t id;
    uint64_t k, n;
    uint64_t sync_every; /* records between sync requests; 0 none */
    int rc;
};
static struct sts_mutex ring_lock;
static volatile int producers_left;

static void port_lock(void *ctx)
{
    sts_port()->mutex_lock(ctx);
}
static void port_unlock(void *ctx)
{
    sts_port()->mutex_unlock(ctx);
}

/* Every task of these tests gives the others a turn at the end of a step.
 * Spinning instead starves the one waiting for a lock on FreeRTOS, whose
 * mutexes are not handed to a waiter: a task preempted inside a lock it
 * takes in a loop (a producer in sl_append, a reader in sl_iter_next)
 * keeps the pump blocked a whole round of time slices, again and again
 * (ThreadX hands a mutex over; pthreads are fair enough). */
static int again(void)
{
    sts_port()->yield();
    return STS_STEP_AGAIN;
}

static int produce_step(void *arg)
{
    struct producer *p = arg;
    uint8_t buf[64];
    for (int i = 0; i < 8 && p->k < p->n; i++) {
        size_t len = make_record(p->id, p->k, buf);
        int rc = sl_append(&lg, p->id, p->k, buf, len);
        if (rc == SL_EFULL)
            return again(); /* the pump task will make room */
        if (rc) {
            p->rc = rc;
            break;
        }
        p->k++;
        if (p->sync_every && p->k % p->sync_every == 0)
            sl_sync_request(&lg);
    }
    if (p->k < p->n && !p->rc)
        return again();
    __atomic_sub_fetch(&producers_left, 1, __ATOMIC_ACQ_REL);
    return STS_STEP_DONE;
}

static int pump_rc;
static int pump_step(void *arg)
{
    (void)arg;
    int rc = sl_pump(&lg);
    if (rc < 0) {
        pump_rc = rc;
        return STS_STEP_DONE;
    }
    return __atomic_load_n(&producers_left, __ATOMIC_ACQUIRE) || rc == SL_BUSY ? again()
                                                                               : STS_STEP_DONE;
}

/* Three producer tasks append while a pump task writes (threads on POSIX,
 * the super loop on the bare-metal port): every stream's records come back
 * whole and in order. ThreadSanitizer runs this in CI. */
static void appends_from_several_tasks(void)
{
    const struct sts_port_ops *port = sts_port();
    CHECK_EQ(nor_log(512 * 1024, 8192), 0);
    CHECK_EQ(port->mutex_init(&ring_lock), 0);
    lg.cfg.lock = port_lock;
    lg.cfg.unlock = port_unlock;
    lg.cfg.lock_ctx = &ring_lock;
    static struct producer prod[3];
    static const char *const names[3] = {"imu", "ppg", "env"};
    producers_left = 3;
    pump_rc = 0;
    for (int i = 0; i < 3; i++) {
        prod[i] = (struct producer){.n = 3000};
        CHECK_EQ(sl_stream_create(&lg, names[i], &prod[i].id), 0);
    }
    struct sts_task pump_task;
    for (int i = 0; i < 3; i++)
        CHECK_EQ(port->task_start(&prod[i].task, produce_step, &prod[i], sts_test_task_attr(i)), 0);
    CHECK_EQ(port->task_start(&pump_task, pump_step, NULL, sts_test_task_attr(3)), 0);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(port->task_join(&prod[i].task), 0);
    CHECK_EQ(port->task_join(&pump_task), 0);
    CHECK_EQ(pump_rc, 0);
    CHECK_EQ(sl_sync(&lg), 0);
    port->mutex_destroy(&ring_lock);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(prod[i].rc, 0);
        CHECK_EQ(read_back(prod[i].id, 0, 3000), 0);
    }
}

/* ---- every call from the context the header allows ------------------------ */
static struct sts_mutex io_mutex;
static struct producer *others_prod;

struct reader {
    struct sts_task task;
    struct sl_iter it;
    uint8_t buf[1024] __attribute__((aligned(8)));
    int started, final_pass;
    uint64_t last[3], seen, passes;
    int rc;
};

/* Reads the whole log again and again while producers append: every
 * record in its stream's order, intact, from the start. */
static int read_step(void *arg)
{
    struct reader *r = arg;
    if (!r->started) {
        r->final_pass = !__atomic_load_n(&producers_left, __ATOMIC_ACQUIRE);
        r->rc = sl_iter_from_gseq(&lg, &r->it, 0, 0);
        if (r->rc)
            return STS_STEP_DONE;
        sl_iter_set_buffer(&r->it, r->buf); /* the pump reuses read_buf meanwhile */
        r->started = 1;
        for (int i = 0; i < 3; i++)
            r->last[i] = UINT64_MAX; /* the first expected is record 0 */
    }
    for (int n = 0; n < 16; n++) {
        struct sl_record rec;
        int rc = sl_iter_next(&r->it, &rec);
        if (rc == SL_ENOENT) {
            r->passes++;
            r->started = 0;
            return r->final_pass ? STS_STEP_DONE : again();
        }
        int i = 0;
        while (i < 3 && others_prod[i].id != rec.stream)
            i++;
        if (rc || i == 3 || rec.ts != r->last[i] + 1 || !record_ok(&rec, rec.ts)) {
            r->rc = rc ? rc : -100 - i;
            return STS_STEP_DONE;
        }
        r->last[i] = rec.ts;
        r->seen++;
    }
    return again();
}

/* Both locks of the calling contract, as port mutexes (io_lock: every call
 * from a task other than the pump's). */
static int both_locks_on(void)
{
    const struct sts_port_ops *port = sts_port();
    int rc = port->mutex_init(&ring_lock);
    if (!rc)
        rc = port->mutex_init(&io_mutex);
    lg.cfg.lock = port_lock;
    lg.cfg.unlock = port_unlock;
    lg.cfg.lock_ctx = &ring_lock;
    lg.cfg.io_lock = port_lock;
    lg.cfg.io_unlock = port_unlock;
    lg.cfg.io_lock_ctx = &io_mutex;
    return rc;
}

static void both_locks_off(void)
{
    lg.cfg.lock = lg.cfg.unlock = lg.cfg.io_lock = lg.cfg.io_unlock = NULL;
    sts_port()->mutex_destroy(&ring_lock);
    sts_port()->mutex_destroy(&io_mutex);
}

struct cataloguer {
    struct sts_task task;
    uint64_t most; /* records the producers append in all */
    uint64_t rounds, last_appended, next_change;
    int rc;
};

/* Statistics are read all along, and a stream comes and goes every 500
 * records appended (as often as that: every change costs the pump two
 * catalog chunks, which go before data, so a change on every step would
 * starve the producers). */
static int catalog_step(void *arg)
{
    struct cataloguer *c = arg;
    uint16_t id, imu;
    struct sl_stats st;
    int rc = 0;
    sl_stats(&lg, &st);
    if (st.appended_records < c->last_appended || st.appended_records > c->most)
        rc = -200; /* a torn or stale counter */
    c->last_appended = st.appended_records;
    if (!rc && st.appended_records >= c->next_change) {
        c->next_change += 500;
        rc = sl_stream_create(&lg, "tmp", &id);
        if (!rc)
            rc = sl_stream_open(&lg, "imu", &imu);
        if (!rc)
            rc = sl_stream_delete(&lg, id);
        c->rounds++;
    }
    if (rc) {
        c->rc = rc;
        return STS_STEP_DONE;
    }
    return __atomic_load_n(&producers_left, __ATOMIC_ACQUIRE) ? again() : STS_STEP_DONE;
}

/* Producers that also ask for syncs, the pump, a reader and a task changing
 * streams and reading statistics, all at once (threads on POSIX: TSan
 * checks the contract of sensorlog.h in CI; the super loop on bare metal).
 * Every record comes back, in order, to the reader and after. */
static void every_call_from_its_own_task(void)
{
    const struct sts_port_ops *port = sts_port();
    CHECK_EQ(nor_log(512 * 1024, 8192), 0);
    CHECK_EQ(both_locks_on(), 0);
    static struct producer prod[3];
    static struct reader rd;
    static struct cataloguer cat;
    static const char *const names[3] = {"imu", "ppg", "env"};
    others_prod = prod;
    producers_left = 3;
    pump_rc = 0;
    memset(&rd, 0, sizeof(rd));
    memset(&cat, 0, sizeof(cat));
    cat.most = 3 * 3000;
    for (int i = 0; i < 3; i++) {
        prod[i] = (struct producer){.n = 3000, .sync_every = 250};
        CHECK_EQ(sl_stream_create(&lg, names[i], &prod[i].id), 0);
    }
    struct sts_task pump_task;
    for (int i = 0; i < 3; i++)
        CHECK_EQ(port->task_start(&prod[i].task, produce_step, &prod[i], sts_test_task_attr(i)), 0);
    CHECK_EQ(port->task_start(&pump_task, pump_step, NULL, sts_test_task_attr(3)), 0);
    CHECK_EQ(port->task_start(&rd.task, read_step, &rd, sts_test_task_attr(4)), 0);
    CHECK_EQ(port->task_start(&cat.task, catalog_step, &cat, sts_test_task_attr(5)), 0);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(port->task_join(&prod[i].task), 0);
    CHECK_EQ(port->task_join(&pump_task), 0);
    CHECK_EQ(port->task_join(&cat.task), 0);
    CHECK_EQ(sl_sync(&lg), 0);
    CHECK_EQ(port->task_join(&rd.task), 0);
    CHECK_EQ(pump_rc, 0);
    CHECK_EQ(rd.rc, 0);
    CHECK_EQ(cat.rc, 0);
    CHECK(rd.passes >= 1 && cat.rounds >= 1);
    struct sl_stats st;
    sl_stats(&lg, &st);
    CHECK_EQ(st.appended_records, 9000);
    CHECK(st.syncs >= 1);
    both_locks_off();
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(prod[i].rc, 0);
        CHECK_EQ(read_back(prod[i].id, 0, 3000), 0);
    }
}

/* ---- readers in other tasks while the log wraps (issue 40) -------------- */
/* A reader of the latest records of one stream (stream != 0), or of the
 * whole log from its oldest record (stream 0): each pass starts a search,
 * lets the other tasks run (the pump may reuse read_buf meanwhile), gives
 * the iterator its own buffer and reads to the end. Every record it gets is
 * its stream's, intact, and the one after the last it got of that stream;
 * SL_EOVERTAKEN (the writer recycled the segment it was in) starts a new
 * pass. */
struct latest_reader {
    struct sts_task task;
    uint16_t stream;
    struct sl_iter it;
    uint8_t buf[1024] __attribute__((aligned(8)));
    int in_pass, final_pass;
    uint64_t last[3], records, passes, overtaken;
    int rc;
};
static struct producer *latest_prod;

static int latest_read_step(void *arg)
{
    struct latest_reader *r = arg;
    if (!r->in_pass) {
        r->final_pass = !__atomic_load_n(&producers_left, __ATOMIC_ACQUIRE);
        r->rc = r->stream ? sl_iter_latest(&lg, &r->it, r->stream, 50)
                          : sl_iter_from_gseq(&lg, &r->it, 0, 0);
        if (r->rc)
            return STS_STEP_DONE;
        sts_port()->yield(); /* the pump's turn between the search and the buffer */
        sl_iter_set_buffer(&r->it, r->buf);
        for (int i = 0; i < 3; i++)
            r->last[i] = UINT64_MAX; /* the first of a stream: any record */
        r->in_pass = 1;
    }
    for (int n = 0; n < 16; n++) {
        struct sl_record rec;
        int rc = sl_iter_next(&r->it, &rec);
        if (rc == SL_ENOENT || rc == SL_EOVERTAKEN) {
            r->overtaken += rc == SL_EOVERTAKEN;
            r->passes++;
            r->in_pass = 0;
            return r->final_pass && rc == SL_ENOENT ? STS_STEP_DONE : again();
        }
        int i = 0;
        while (i < 3 && latest_prod[i].id != rec.stream)
            i++;
        if (rc || i == 3 || (r->stream && rec.stream != r->stream) ||
            (r->last[i] != UINT64_MAX && rec.ts != r->last[i] + 1) || !record_ok(&rec, rec.ts)) {
            r->rc = rc ? rc : -100 - i;
            return STS_STEP_DONE;
        }
        r->last[i] = rec.ts;
        r->records++;
    }
    return again();
}

/* Producers, the pump, two readers of the latest records and one of the
 * whole log, and a task creating and deleting streams, on a log that wraps
 * twice: no reader ever gets a record that is not the one it asked for
 * (with the search's chunk copied out of read_buf after the pump reused
 * it, readers got other records: issue 40 counted 788 in 4.75 M reads). */
static void readers_in_other_tasks_get_their_records_or_overtaken(void)
{
    const struct sts_port_ops *port = sts_port();
    CHECK_EQ(nor_log(128 * 1024, 8192), 0);
    CHECK_EQ(both_locks_on(), 0);
    static struct producer prod[3];
    static struct latest_reader rd[3];
    static struct cataloguer cat;
    static const char *const names[3] = {"imu", "ppg", "env"};
    latest_prod = prod;
    producers_left = 3;
    pump_rc = 0;
    memset(&cat, 0, sizeof(cat));
    cat.most = 3 * 6000;
    for (int i = 0; i < 3; i++) {
        prod[i] = (struct producer){.n = 6000, .sync_every = 500};
        CHECK_EQ(sl_stream_create(&lg, names[i], &prod[i].id), 0);
    }
    struct sts_task pump_task;
    for (int i = 0; i < 3; i++) {
        memset(&rd[i], 0, sizeof(rd[i]));
        rd[i].stream = i < 2 ? prod[i].id : 0;
    }
    for (int i = 0; i < 3; i++)
        CHECK_EQ(port->task_start(&prod[i].task, produce_step, &prod[i], sts_test_task_attr(i)), 0);
    CHECK_EQ(port->task_start(&pump_task, pump_step, NULL, sts_test_task_attr(3)), 0);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(port->task_start(&rd[i].task, latest_read_step, &rd[i], sts_test_task_attr(4 + i)),
                 0);
    CHECK_EQ(port->task_start(&cat.task, catalog_step, &cat, sts_test_task_attr(7)), 0);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(port->task_join(&prod[i].task), 0);
    CHECK_EQ(port->task_join(&pump_task), 0);
    CHECK_EQ(port->task_join(&cat.task), 0);
    CHECK_EQ(sl_sync(&lg), 0);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(port->task_join(&rd[i].task), 0);
    both_locks_off();
    CHECK_EQ(pump_rc, 0);
    CHECK_EQ(cat.rc, 0);
    struct sl_stats st;
    sl_stats(&lg, &st);
    CHECK(st.evictions >= 2 * 15); /* the log wrapped twice: segments were recycled */
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(prod[i].rc, 0);
        CHECK_EQ(rd[i].rc, 0);
        CHECK(rd[i].passes >= 1 && rd[i].records >= 1);
    }
}

/* A sync while records keep coming: it closes the chunk at what was appended
 * before it and completes, instead of writing a chunk per new record (a
 * bug the NOR benchmark found: write amplification 21). */
static void sync_completes_while_records_keep_coming(void)
{
    CHECK_EQ(nor_log(512 * 1024, 8192), 0);
    uint16_t id;
    uint8_t buf[64];
    CHECK_EQ(sl_stream_create(&lg, "imu", &id), 0);
    uint64_t k = 0;
    for (; k < 30; k++)
        CHECK_EQ(sl_append(&lg, id, k, buf, make_record(id, k, buf)), 0);
    sl_sync_request(&lg);
    uint64_t programs = cnt.programs, pumps = 0, flushes = cnt.flushes;
    while (lg.sync_wanted && pumps < 1000) {
        CHECK_EQ(sl_append(&lg, id, k, buf, make_record(id, k, buf)), 0); /* one per pump */
        k++;
        int rc = sl_pump(&lg);
        CHECK(rc >= 0);
        pumps++;
    }
    CHECK(!lg.sync_wanted);
    /* the catalog chunk (twice), then the 30 records: no chunk per record */
    CHECK(cnt.programs - programs <= 3);
    CHECK_EQ(cnt.flushes - flushes, 1);
    CHECK_EQ(sl_sync(&lg), 0);
    CHECK_EQ(read_back(id, 0, k), 0);
}

/* A catalog of several pages: creates and deletes rewrite one page each,
 * a segment takes at most 32 of them, and mount rebuilds the catalog from
 * the newest segment's pages and updates. */
static void catalog_pages_survive_mount(void)
{
    CHECK_EQ(medium("nor-spi", 512 * 1024, 0, 0), 0);
    cfg.chunk_bytes = 1024;      /* 40 entries a page */
    cfg.segment_bytes = 16384;   /* 16 chunks: a header and 5 pages, then data */
    cfg.max_streams = 200;
    CHECK_EQ(sl_format(&lg, &cfg), 0);
    CHECK_EQ(lg.n_pages, 5);
    char name[8] = "s000";
    uint16_t ids[150];
    for (int i = 0; i < 150; i++) {
        name[1] = (char)('0' + i / 100);
        name[2] = (char)('0' + i / 10 % 10);
        name[3] = (char)('0' + i % 10);
        uint64_t before = cnt.programs;
        CHECK_EQ(sl_stream_create(&lg, name, &ids[i]), 0);
        CHECK_EQ(pump_all(), 0);
        /* one page chunk, written twice; every 32 updates a fresh segment:
         * header and 5 pages (and the erases ahead the idle pump does, not
         * counted here) */
        uint64_t programs = cnt.programs - before;
        CHECK(programs == 2 || programs == 1 + 5 || programs == 2 + 1 + 5);
    }
    for (int i = 0; i < 150; i += 3)
        CHECK_EQ(sl_stream_delete(&lg, ids[i]), 0);
    uint64_t k = 0, ts = 1;
    CHECK_EQ(append_rounds(&ids[149], 1, &k, 100, &ts), 0);
    CHECK_EQ(sl_sync(&lg), 0);
    uint64_t before = cnt.reads;
    CHECK_EQ(sl_mount(&lg, &cfg), 0);
    /* headers, 5 pages, the bisection, the last chunk and at most 32 updates */
    CHECK(cnt.reads - before <= 32 + 5 + 5 + 1 + 32);
    for (int i = 0; i < 150; i++) {
        name[1] = (char)('0' + i / 100);
        name[2] = (char)('0' + i / 10 % 10);
        name[3] = (char)('0' + i % 10);
        uint16_t id = 0;
        if (i % 3 == 0) {
            CHECK_EQ(sl_stream_open(&lg, name, &id), SL_ENOENT);
        } else {
            CHECK_EQ(sl_stream_open(&lg, name, &id), 0);
            CHECK_EQ(id, ids[i]);
        }
    }
    CHECK_EQ(read_back(ids[149], 0, 100), 0);
}

/* Raw NAND with factory bad blocks and program failures: bad blocks are
 * retired, failed writes are redone in the next segment, and every record
 * still reads back in order. */
static void bad_blocks_and_failed_programs_on_nand(void)
{
    struct sts_sim_params p = *sts_sim_profile_find("nand-slc");
    p.capacity = 1024 * 1024;
    p.erase_bytes = 16384;
    p.bad_permille = 100;
    CHECK(sts_sim_arena_bytes(&p, p.capacity) <= sizeof(arena));
    memset(&cnt, 0, sizeof(cnt));
    CHECK_EQ(sts_sim_init(&sim, &p, 3, arena, sizeof(arena), p.capacity, &cnt.inner), 0);
    memset(&cfg, 0, sizeof(cfg));
    cfg = (struct sl_config){.bd = {&counting_ops, &cnt}, .chunk_bytes = 2048,
                             .segment_bytes = 16384, .buffer = ring,
                             .buffer_bytes = sizeof(ring), .chunk_buf = chunk_buf,
                             .read_buf = read_buf, .segs = segs, .n_segs = N_SEGS,
                             .streams = streams, .max_streams = 64};
    CHECK_EQ(sl_format(&lg, &cfg), 0);
    struct sl_stats st;
    uint16_t id;
    CHECK_EQ(sl_stream_create(&lg, "imu", &id), 0);
    struct sts_sim_faults f = {.prog_error_ppm = 20000}; /* 2 % of programs fail */
    sts_sim_set_faults(&sim, &f);
    uint64_t k = 0, ts = 1;
    CHECK_EQ(append_rounds(&id, 1, &k, 40000, &ts), 0); /* ~0.8 MB: wraps */
    CHECK_EQ(sl_sync(&lg), 0);
    sl_stats(&lg, &st);
    CHECK(st.write_errors > 0);
    CHECK(st.bad_segments > 0); /* the seed gives this medium some: found as it wraps */
    uint64_t first, g, n;
    CHECK_EQ(read_kept(id, &first, &g, &n), 0);
    CHECK_EQ(g, k - 1); /* nothing lost at the end, contiguous from the oldest kept */
    CHECK(n > 10000);
    /* and mount finds the same */
    struct sts_sim_faults none = {0};
    sts_sim_set_faults(&sim, &none);
    CHECK_EQ(sl_mount(&lg, &cfg), 0);
    uint64_t first2, last2, n2;
    CHECK_EQ(read_kept(id, &first2, &last2, &n2), 0);
    CHECK_EQ(first2, first);
    CHECK_EQ(last2, g);
    CHECK_EQ(n2, n);
}

const struct sts_test_case test_sl_tasks_cases[] = {
    {"appends_from_several_tasks", appends_from_several_tasks},
    {"every_call_from_its_own_task", every_call_from_its_own_task},
    {"readers_in_other_tasks_get_their_records_or_overtaken",
     readers_in_other_tasks_get_their_records_or_overtaken},
    {"bad_blocks_and_failed_programs_on_nand", bad_blocks_and_failed_programs_on_nand},
    {"sync_completes_while_records_keep_coming", sync_completes_while_records_keep_coming},
    {"catalog_pages_survive_mount", catalog_pages_survive_mount},
    {NULL, NULL},
};
