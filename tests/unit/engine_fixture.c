/* The engine tests' fixture: engine_fixture.h says what it is. */
#include "engine_fixture.h"
#include "sts_test.h"
#include "storscope/error.h"
#include "storscope/faultbd.h"
#include "storscope/faultfs.h"
#include "storscope/suite.h"
#include "test_mem.h"
#include "workload.h"

#include <string.h>

STS_TEST_BIG uint8_t ram[RAM_BYTES];

/* ---- virtual clock: every read advances time by `step` ns ------------- */
static uint64_t vclock_now(void *ctx)
{
    struct vclock *v = ctx;
    v->calls++;
    if (v->stop && v->stop_after && v->calls >= v->stop_after)
        *v->stop = 1;
    return v->t += v->step;
}
static const struct sts_clock_ops vclock_ops = {vclock_now};

/* ---- a block device that corrupts one byte of every read covering it --- */
/* reads of exactly count_len bytes, per aligned address (rand's blocks) */
size_t count_len;
uint8_t read_count[RAM_BYTES / 8192];
static int cbd_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    struct corrupt_bd *c = ctx;
    if (count_len && len == count_len && addr % len == 0 && addr / len < sizeof(read_count))
        read_count[addr / len]++;
    int rc = c->inner.ops->read(c->inner.ctx, addr, buf, len);
    if (!rc && c->bad_addr >= addr && c->bad_addr < addr + len)
        ((uint8_t *)buf)[c->bad_addr - addr] ^= 0x40;
    return rc;
}
/* programs of exactly count_len bytes, likewise (fsync's blocks) */
uint8_t prog_count[RAM_BYTES / 4096];
static int cbd_program(void *ctx, uint64_t a, const void *b, size_t n)
{
    struct corrupt_bd *c = ctx;
    if (count_len && n == count_len && a % n == 0 && a / n < sizeof(prog_count))
        prog_count[a / n]++;
    return c->inner.ops->program(c->inner.ctx, a, b, n);
}
static int cbd_erase(void *ctx, uint64_t a, uint64_t n)
{
    struct corrupt_bd *c = ctx;
    return c->inner.ops->erase(c->inner.ctx, a, n);
}
static int cbd_flush(void *ctx)
{
    struct corrupt_bd *c = ctx;
    return c->inner.ops->flush(c->inner.ctx);
}
static void cbd_geometry(void *ctx, struct sts_bd_geometry *g)
{
    struct corrupt_bd *c = ctx;
    c->inner.ops->geometry(c->inner.ctx, g);
}
static const struct sts_bd_ops corrupt_ops = {
    .version = STS_BD_OPS_VERSION, cbd_read, cbd_program, cbd_erase, cbd_flush, cbd_geometry, NULL,
    NULL, NULL
};

/* ---- a sink that remembers what it saw --------------------------------- */

/* ---- a filesystem whose device reads per operation are known ------------
 * create (open with O_CREAT) costs 5 reads, any other open 1, close 1,
 * unlink 3: an S2 point's reads per file are 6 (create), 2 (open+close) and
 * 3 (delete), exactly, whatever ran before it. */
struct counted_fs cfs;
static int cfs_find(const char *path)
{
    for (int i = 0; i < CFS_FILES; i++)
        if (!strcmp(cfs.names[i], path))
            return i;
    return -1;
}
static int cfs_open(void *ctx, const char *path, int flags, sts_fh *out)
{
    (void)ctx;
    int i = cfs_find(path);
    cfs.reads += flags & STS_O_CREAT ? 5 : 1;
    if (i < 0 && (flags & STS_O_CREAT))
        for (i = 0; i < CFS_FILES && cfs.names[i][0]; i++)
            ;
    if (i < 0 || i >= CFS_FILES)
        return i < 0 ? STS_ENOENT : STS_ENOSPC;
    sts_strlcpy(cfs.names[i], path, sizeof(cfs.names[i]));
    *out = (sts_fh)i;
    return STS_OK;
}
static int cfs_close(void *ctx, sts_fh fh)
{
    (void)ctx, (void)fh;
    cfs.reads += 1;
    return STS_OK;
}
static int cfs_unlink(void *ctx, const char *path)
{
    (void)ctx;
    int i = cfs_find(path);
    cfs.reads += 3;
    if (i < 0)
        return STS_ENOENT;
    cfs.names[i][0] = '\0';
    return STS_OK;
}
static int cfs_dir(void *ctx, const char *path)
{
    (void)ctx, (void)path;
    cfs.reads += 7; /* directories are set-up: no point's */
    return STS_OK;
}
static int cfs_statvfs(void *ctx, struct sts_statvfs *st)
{
    (void)ctx;
    *st = (struct sts_statvfs){1u << 30, 1u << 30, 4096};
    return STS_OK;
}
const struct sts_fs_ops cfs_ops = {
    .version = STS_FS_OPS_VERSION, .open = cfs_open, .close = cfs_close, .unlink = cfs_unlink,
    .mkdir = cfs_dir, .rmdir = cfs_dir, .statvfs = cfs_statvfs
};
size_t cfs_counters(struct sts_target *t, struct sts_kv *out, size_t max)
{
    (void)t;
    if (!max)
        return 0;
    out[0] = STS_KV_U("reads", cfs.reads - cfs.reported);
    cfs.reported = cfs.reads;
    return 1;
}
static int cap_run_begin(void *ctx, const struct sts_run_info *ri)
{
    (void)ri;
    ((struct capture *)ctx)->run_begins++;
    return 0;
}
static int cap_test_begin(void *ctx, const struct sts_test_info *ti)
{
    (void)ti;
    ((struct capture *)ctx)->test_begins++;
    return 0;
}
static int cap_point(void *ctx, const struct sts_test_info *ti, const struct sts_point *p)
{
    struct capture *c = ctx;
    c->points++;
    if (p->skipped) {
        c->skipped++;
        return 0;
    }
    c->last_runs = p->n_runs;
    c->last_mean = p->run_stats.mean;
    const struct sts_kv *n_files = sts_kv_find(p->params, p->n_params, "files");
    const struct sts_kv *reads = sts_kv_find(p->device, p->n_device, "reads");
    if (n_files && !strcmp(ti->id, "S2")) {
        uint64_t per = !strcmp(p->name, "create") ? 6 : !strcmp(p->name, "open_close") ? 2 : 3;
        c->s2_points++;
        if (!reads || reads->v.u != per * (uint64_t)sts_kv_number(n_files) * p->n_runs)
            c->s2_device_wrong++;
    }
    sts_strlcpy(c->last_point, p->name, sizeof(c->last_point));
    const struct sts_kv *b = sts_kv_find(p->metrics, p->n_metrics, "bytes_per_run");
    const struct sts_kv *f = sts_kv_find(p->params, p->n_params, "file_bytes");
    const struct sts_kv *it = sts_kv_find(p->params, p->n_params, "iterations");
    const struct sts_kv *ch = sts_kv_find(p->params, p->n_params, "chunk_bytes");
    if (b && f && it && ch && sts_kv_number(it) * sts_kv_number(ch) != sts_kv_number(b))
        c->bytes_param_mismatch++;
    if (p->n_lat) {
        c->lat_count = p->lat[0].lat->w.n;
        c->lat_p50 = sts_hist_percentile(&p->lat[0].lat->h, 50);
        if (p->n_lat > 1)
            c->lat2_p50 = sts_hist_percentile(&p->lat[1].lat->h, 50);
    }
    return 0;
}
static int cap_test_end(void *ctx, const struct sts_test_end *te)
{
    struct capture *c = ctx;
    c->test_ends++;
    c->last_status = te->status;
    sts_strlcpy(c->last_error, te->error ? te->error : "", sizeof(c->last_error));
    c->n_summary = te->n_summary < 8 ? te->n_summary : 8;
    memcpy(c->summary, te->summary, c->n_summary * sizeof(c->summary[0]));
    return 0;
}
static int cap_run_end(void *ctx, const struct sts_run_end *re)
{
    struct capture *c = ctx;
    c->run_ends++;
    c->interrupted = re->interrupted;
    return 0;
}
const struct sts_sink_ops cap_ops = {cap_run_begin, cap_test_begin, cap_point,
                                            cap_test_end, cap_run_end, NULL};

/* ---- fixture ------------------------------------------------------------ */
static struct sts_ram_bd rb;
static struct corrupt_bd cbd;
static struct sts_extentfs efs;
struct sts_extentfs_file files[4];
struct sts_target target;
struct vclock vc;
struct capture cap;
volatile int stop_flag;

void fixture(uint64_t bad_addr)
{
    memset(&target, 0, sizeof(target));
    memset(&cap, 0, sizeof(cap));
    memset(&vc, 0, sizeof(vc));
    stop_flag = 0;
    vc.step = 1000;
    sts_ram_bd_init(&rb, &cbd.inner, ram, RAM_BYTES);
    cbd.bad_addr = bad_addr;
    struct sts_extentfs_config cfg = {.bd = {&corrupt_ops, &cbd}, .files = files, .n_files = 4};
    sts_extentfs_init(&efs, &cfg, &target.fs);
    target.kind = "ram";
    target.clock.ops = &vclock_ops;
    target.clock.ctx = &vc;
    target.flags = STS_T_KEEPS_DATA | STS_T_VIRTUAL_TIME;
}

int engine_m1_byte_offsets;
int run_tests(const char *ids, int verify, uint64_t duration_ns, uint64_t size)
{
    const struct sts_test_def *tests[8];
    size_t n = 0;
    char buf[64];
    sts_strlcpy(buf, ids, sizeof(buf));
    for (char *p = buf, *tok = buf; ; p++) {
        if (*p == ',' || *p == '\0') {
            int end = *p == '\0';
            *p = '\0';
            tests[n++] = sts_test_find(tok);
            if (end)
                break;
            tok = p + 1;
        }
    }
    struct sts_plan plan = {
        .tests = tests, .n_tests = n, .scale = STS_SCALE_QUICK, .seed = 3,
        .verify = verify, .duration_ns = duration_ns, .size_bytes = size, .stop = &stop_flag,
        .m1_byte_offsets = engine_m1_byte_offsets,
    };
    struct sts_workspace ws = {sts_test_iobuf, STS_TEST_IOBUF_BYTES, sts_test_hist,
                               STS_HIST_BUCKETS, STS_HIST_SUB_BITS, STS_HIST_MAX_EXP, NULL, 0};
    struct sts_sink sink = {&cap_ops, &cap};
    struct sts_run_info ri = {.tool_version = STORSCOPE_VERSION, .target = "ram:"};
    return sts_engine_run(&plan, &target, &ws, &sink, 1, &ri);
}

int no_files_left(void)
{
    for (unsigned i = 0; i < 4; i++)
        if (files[i].name[0])
            return 0;
    return 1;
}
