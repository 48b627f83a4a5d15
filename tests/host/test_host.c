/* Host-only tests (cmocka + cJSON): the JSON document field by field, JSON
 * after an interruption, the posix target's set-up and clean-up, and the
 * seam where filesystems meet block devices (fs_stack.h). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storscope/device.h"
#include "storscope/error.h"
#include "storscope/fs_stack.h"
#include "storscope/json.h"
#include "storscope/posix.h"
#include "storscope/suite.h"

#define BUF_BYTES (2u * 1024u * 1024u)

static uint8_t *iobuf;
static uint64_t hist[STS_CTX_LATS * STS_HIST_BUCKETS];

struct membuf {
    char *p;
    size_t len, cap;
};

static int mem_write(void *ctx, const char *s, size_t n)
{
    struct membuf *m = ctx;
    if (m->len + n + 1 > m->cap) {
        m->cap = (m->len + n + 1) * 2;
        m->p = realloc(m->p, m->cap);
        if (!m->p)
            return -1;
    }
    memcpy(m->p + m->len, s, n);
    m->len += n;
    m->p[m->len] = '\0';
    return 0;
}

/* Stops the run after a number of progress reports (a scripted Ctrl-C). */
struct stopper {
    volatile int *stop;
    int after;
};
static void stopper_progress(void *ctx, const struct sts_progress *pr)
{
    struct stopper *s = ctx;
    (void)pr;
    if (--s->after <= 0)
        *s->stop = 1;
}
static const struct sts_sink_ops stopper_ops = {.progress = stopper_progress};

static cJSON *run_to_json(const char *target_str, const char *ids, uint64_t duration_ns,
                          int stop_after_progress, int *rc_out)
{
    struct sts_target_spec spec;
    assert_int_equal(sts_target_spec_parse(target_str, &spec, NULL), 0);
    const struct sts_target_kind *kind =
        strcmp(spec.kind, "null") == 0 ? &sts_target_null : &sts_target_posix;
    struct sts_target t;
    memset(&t, 0, sizeof(t));
    char err[256];
    assert_int_equal(kind->open(&t, &spec, err, sizeof(err)), 0);

    const struct sts_test_def *tests[8];
    size_t n = 0;
    char list[64];
    snprintf(list, sizeof(list), "%s", ids);
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        tests[n++] = sts_test_find(tok);
    volatile int stop = 0;
    struct sts_plan plan = {.tests = tests, .n_tests = n, .scale = STS_SCALE_QUICK, .seed = 5,
                            .duration_ns = duration_ns, .size_bytes = 1 << 20, .stop = &stop};
    struct sts_workspace ws = {iobuf, BUF_BYTES, hist, STS_HIST_BUCKETS, STS_HIST_SUB_BITS,
                               STS_HIST_MAX_EXP, NULL, 0};
    struct membuf m = {0};
    struct sts_json_sink js;
    struct sts_sink sinks[2];
    sts_json_sink_init(&js, &sinks[0], mem_write, &m, NULL, 1);
    struct stopper st = {&stop, stop_after_progress};
    sinks[1] = (struct sts_sink){&stopper_ops, &st};
    struct sts_run_info ri = {.tool_version = STORSCOPE_VERSION, .target = target_str,
                              .target_kind = t.kind, .scale = "quick", .seed = 5,
                              .env = t.env, .n_env = t.n_env};
    *rc_out = sts_engine_run(&plan, &t, &ws, sinks, stop_after_progress ? 2 : 1, &ri);
    kind->close(&t);
    cJSON *doc = cJSON_Parse(m.p);
    if (!doc)
        fprintf(stderr, "unparsable JSON:\n%s\n", m.p);
    free(m.p);
    return doc;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    assert_non_null(v);
    assert_true(cJSON_IsNumber(v));
    return v->valuedouble;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    assert_non_null(v);
    assert_true(cJSON_IsString(v));
    return v->valuestring;
}

static const cJSON *obj(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    assert_non_null(v);
    return v;
}

static void json_fields_fsync_and_b0(void **state)
{
    (void)state;
    int rc;
    cJSON *d = run_to_json("null:", "fsync,B0", 50000000ull, 0, &rc);
    assert_int_equal(rc, 0);
    assert_non_null(d);
    assert_string_equal(str(d, "schema"), "storscope-result/1");
    assert_string_equal(str(obj(d, "tool"), "version"), STORSCOPE_VERSION);
    assert_string_equal(str(obj(d, "run"), "target"), "null:");
    assert_string_equal(str(obj(d, "run"), "target_kind"), "null");
    assert_int_equal((int)num(obj(d, "run"), "seed"), 5);
    assert_string_equal(str(d, "status"), "ok");
    assert_true(cJSON_IsFalse(obj(d, "interrupted")));
    assert_int_equal((int)num(d, "tests_ok"), 2);

    const cJSON *tests = obj(d, "tests");
    assert_int_equal(cJSON_GetArraySize(tests), 2);
    const cJSON *fs = cJSON_GetArrayItem(tests, 0);
    assert_string_equal(str(fs, "id"), "fsync");
    assert_string_equal(str(fs, "status"), "ok");
    double iops = num(fs, "iops");
    assert_true(iops > 1000.0);
    assert_int_equal((int)num(obj(fs, "params"), "block_bytes"), 4096);
    assert_int_equal((int)num(obj(fs, "params"), "duration_ns"), 50000000);
    const cJSON *p = cJSON_GetArrayItem(obj(fs, "points"), 0);
    const cJSON *metrics = obj(p, "metrics");
    double ops = num(metrics, "ops");
    assert_true(num(metrics, "elapsed_ns") >= 50000000.0);
    /* iops is ops over the elapsed time, both in base units */
    assert_true(fabs(iops - ops * 1e9 / num(metrics, "elapsed_ns")) < 1e-6 * iops);
    assert_true(fabs(num(metrics, "bytes") - ops * 4096) < 0.5);
    const cJSON *lat = obj(obj(p, "latency"), "write+flush");
    assert_true(num(lat, "count") == ops);
    const cJSON *pct = obj(lat, "percentiles_ns");
    assert_int_equal(cJSON_GetArraySize(pct), 17);
    static const char *keys[] = {"1", "5", "10", "20", "30", "40", "50", "60", "70", "80",
                                 "90", "95", "99", "99.5", "99.9", "99.95", "99.99"};
    double prev = 0;
    for (size_t i = 0; i < 17; i++) {
        double v = num(pct, keys[i]);
        assert_true(v >= prev);
        prev = v;
    }
    assert_true(num(lat, "min_ns") <= num(pct, "1"));
    assert_true(num(lat, "max_ns") >= num(pct, "99.99"));
    assert_non_null(obj(obj(p, "latency"), "flush"));

    const cJSON *b0 = cJSON_GetArrayItem(tests, 1);
    assert_string_equal(str(b0, "id"), "B0");
    const cJSON *points = obj(b0, "points");
    assert_int_equal(cJSON_GetArraySize(points), 22);
    for (int i = 0; i < 22; i++) {
        const cJSON *pt = cJSON_GetArrayItem(points, i);
        const cJSON *params = obj(pt, "params");
        assert_int_equal((int)num(params, "chunk_bytes"), 1 << (i / 2));
        assert_string_equal(str(pt, "name"), i % 2 ? "read" : "write");
        assert_true(num(obj(pt, "metrics"), "bytes_per_run") == num(params, "file_bytes"));
        const cJSON *runs = obj(pt, "runs");
        assert_string_equal(str(runs, "metric"), "bytes_per_second");
        assert_int_equal(cJSON_GetArraySize(obj(runs, "values")), 3);
        assert_int_equal((int)num(runs, "n"), 3);
        assert_true(num(runs, "min") <= num(runs, "mean") && num(runs, "mean") <= num(runs, "max"));
    }
    cJSON_Delete(d);
}

static void json_valid_after_interrupt(void **state)
{
    (void)state;
    int rc;
    /* B0 reports progress once per run: stop in the middle of it */
    cJSON *d = run_to_json("null:", "B0,fsync", 0, 10, &rc);
    assert_int_equal(rc, STS_EINTR);
    assert_non_null(d);
    assert_string_equal(str(d, "status"), "interrupted");
    assert_true(cJSON_IsTrue(obj(d, "interrupted")));
    const cJSON *tests = obj(d, "tests");
    assert_int_equal(cJSON_GetArraySize(tests), 1); /* fsync never started */
    const cJSON *b0 = cJSON_GetArrayItem(tests, 0);
    assert_string_equal(str(b0, "status"), "interrupted");
    int n = cJSON_GetArraySize(obj(b0, "points"));
    assert_true(n >= 2 && n < 22);
    cJSON_Delete(d);
}

static int dir_entries(const char *path)
{
    DIR *d = opendir(path);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

static void posix_target_cleans_up_and_verifies(void **state)
{
    (void)state;
    char dir[] = "/tmp/storscope-host-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char target[64];
    snprintf(target, sizeof(target), "posix:%s", dir);
    int rc;
    cJSON *d = run_to_json(target, "M1", 0, 0, &rc);
    assert_int_equal(rc, 0);
    const cJSON *env = obj(d, "environment");
    assert_non_null(cJSON_GetObjectItemCaseSensitive(env, "filesystem"));
    assert_non_null(cJSON_GetObjectItemCaseSensitive(env, "kernel"));
    cJSON_Delete(d);
    assert_int_equal(dir_entries(dir), 0); /* scratch directory removed */
    rmdir(dir);
}

static void posix_target_refuses_bad_dirs(void **state)
{
    (void)state;
    struct sts_target t;
    struct sts_target_spec spec;
    char err[256];
    memset(&t, 0, sizeof(t));
    sts_target_spec_parse("posix:/nonexistent/storscope", &spec, NULL);
    assert_int_equal(sts_target_posix.open(&t, &spec, err, sizeof(err)), STS_ENOENT);
    assert_non_null(strstr(err, "does not exist"));
    sts_target_spec_parse("posix:/etc/passwd", &spec, NULL);
    assert_int_equal(sts_target_posix.open(&t, &spec, err, sizeof(err)), STS_ENOTDIR);
    assert_non_null(strstr(err, "not a directory"));
    sts_target_spec_parse("posix:/tmp,turbo=1", &spec, NULL);
    assert_int_equal(sts_target_posix.open(&t, &spec, err, sizeof(err)), STS_EINVAL);
    assert_non_null(strstr(err, "turbo"));
    sts_target_spec_parse("posix:/tmp,direct=maybe", &spec, NULL);
    assert_int_equal(sts_target_posix.open(&t, &spec, err, sizeof(err)), STS_EINVAL);
}

/* ---- the seam: any filesystem on any block device, inside its region ---- */
#define MEDIUM_BYTES (8u << 20)
#define OLD_BYTE 0xA5 /* what the medium held before: outside the region it stays */

/* A file written, synced, read back and removed through t's filesystem. */
static void write_read_file(struct sts_target *t, const char *path, size_t bytes)
{
    const struct sts_fs *fs = &t->fs;
    sts_fh fh;
    size_t done = 0;
    for (size_t i = 0; i < bytes; i++)
        iobuf[i] = (uint8_t)(i * 7 + 1);
    assert_int_equal(fs->ops->open(fs->ctx, path, STS_O_RDWR | STS_O_CREAT | STS_O_TRUNC, &fh), 0);
    assert_int_equal(fs->ops->write(fs->ctx, fh, iobuf, bytes, &done), 0);
    assert_int_equal(done, bytes);
    assert_int_equal(fs->ops->sync(fs->ctx, fh, STS_SYNC_FULL), 0);
    assert_int_equal(fs->ops->close(fs->ctx, fh), 0);
    memset(iobuf, 0, bytes);
    assert_int_equal(fs->ops->open(fs->ctx, path, STS_O_RDONLY, &fh), 0);
    assert_int_equal(fs->ops->read(fs->ctx, fh, iobuf, bytes, &done), 0);
    assert_int_equal(done, bytes);
    for (size_t i = 0; i < bytes; i++)
        if (iobuf[i] != (uint8_t)(i * 7 + 1))
            fail_msg("%s: byte %zu read back as %u", path, i, iobuf[i]);
    assert_int_equal(fs->ops->close(fs->ctx, fh), 0);
}

/* The first byte outside [lo, hi) that is no longer the old data, or -1. */
static long touched_outside(const uint8_t *mem, size_t lo, size_t hi)
{
    for (size_t i = 0; i < MEDIUM_BYTES; i++)
        if ((i < lo || i >= hi) && mem[i] != OLD_BYTE)
            return (long)i;
    return -1;
}

static void fs_stack_stays_in_its_region(void **state)
{
    (void)state;
    uint8_t *mem = malloc(MEDIUM_BYTES);
    assert_non_null(mem);
    const size_t lo = 1u << 20, hi = 5u << 20;
    /* every filesystem this build stacks, each on a medium of old data */
    char names[128];
    snprintf(names, sizeof(names), "%s", sts_fs_stack_built());
    int stacked = 0;
    for (char *save = NULL, *n = strtok_r(names, " ", &save); n; n = strtok_r(NULL, " ", &save)) {
        memset(mem, OLD_BYTE, MEDIUM_BYTES);
        struct sts_ram_bd rb;
        struct sts_bd bd;
        sts_ram_bd_init(&rb, &bd, mem, MEDIUM_BYTES);
        char text[64], err[512];
        snprintf(text, sizeof(text), "ram:%s", n); /* n is "+NAME" */
        struct sts_target_spec spec;
        assert_int_equal(sts_target_spec_parse(text, &spec, NULL), 0);
        struct sts_target t;
        memset(&t, 0, sizeof(t));
        /* extentfs is bounded by end=, the log takes the device to its end */
        int whole_end = !strcmp(n, "+sensorlog");
        struct sts_fs_medium m = {.bd = bd, .base = lo, .end = whole_end ? 0 : hi,
                                  .shown = "ram:"};
        struct sts_fs_stack *s = NULL;
        int rc = sts_fs_stack_open(&s, &spec, &m, &t, err, sizeof(err));
        if (rc)
            fail_msg("%s: %s", n, err);
        assert_string_equal(sts_fs_stack_name(s), n + 1);
        /* what it offers is no more than the region (bare extents: all of it) */
        struct sts_statvfs vfs;
        assert_int_equal(t.fs.ops->statvfs(t.fs.ctx, &vfs), 0);
        uint64_t region = (whole_end ? MEDIUM_BYTES : hi) - lo;
        if (vfs.total_bytes > region || (!strcmp(n, "+extentfs") && vfs.total_bytes != region))
            fail_msg("%s offers %llu bytes in a region of %llu", n,
                     (unsigned long long)vfs.total_bytes, (unsigned long long)region);
        write_read_file(&t, "a.bin", 300000);
        write_read_file(&t, "b.bin", 4096);
        long at = touched_outside(mem, lo, whole_end ? MEDIUM_BYTES : hi);
        if (at >= 0)
            fail_msg("%s wrote byte %ld, outside its region [%zu, %zu)", n, at, lo, hi);
        sts_fs_stack_close(s);
        stacked++;
    }
    assert_true(stacked >= 2); /* extentfs and sensorlog are always built */
    if (!strstr(sts_fs_stack_built(), "+littlefs"))
        print_message("fs_stack_stays_in_its_region: littlefs, FatFs and FileX not checked: not "
                      "built here (their source at build time, docs/third-party-filesystems.md)\n");
    free(mem);
}

static void fs_stack_refuses_what_the_device_cannot_take(void **state)
{
    (void)state;
    uint8_t *mem = malloc(MEDIUM_BYTES);
    assert_non_null(mem);
    memset(mem, OLD_BYTE, MEDIUM_BYTES);
    struct sts_ram_bd rb;
    struct sts_bd bd;
    sts_ram_bd_init(&rb, &bd, mem, MEDIUM_BYTES);
    struct sts_target_spec spec;
    struct sts_target t;
    struct sts_fs_stack *s = NULL;
    char err[512];
    memset(&t, 0, sizeof(t));
    /* a log formats: never on a device opened read-only, and nothing written */
    struct sts_fs_medium m = {.bd = bd, .read_only = 1, .shown = "ram:"};
    sts_target_spec_parse("ram:+sensorlog", &spec, NULL);
    assert_int_equal(sts_fs_stack_open(&s, &spec, &m, &t, err, sizeof(err)), STS_EACCES);
    assert_non_null(strstr(err, "--allow-destructive"));
    assert_int_equal(touched_outside(mem, 0, 0), -1);
    /* bare extents on a read-only device read what it holds */
    sts_target_spec_parse("ram:", &spec, NULL);
    assert_int_equal(sts_fs_stack_open(&s, &spec, &m, &t, err, sizeof(err)), 0);
    assert_string_equal(sts_fs_stack_name(s), "extentfs");
    assert_int_equal(sts_fs_stack_flags(s), STS_T_NO_FS_METADATA);
    sts_fs_stack_close(s);
    memset(&t, 0, sizeof(t));
    /* a filesystem this build does not have is named, with what it has */
    m.read_only = 0;
    sts_target_spec_parse("ram:+ext9", &spec, NULL);
    assert_int_equal(sts_fs_stack_open(&s, &spec, &m, &t, err, sizeof(err)), STS_ENOTSUP);
    assert_non_null(strstr(err, "'+ext9' is not available in this build"));
    assert_non_null(strstr(err, "+extentfs +sensorlog"));
    /* options a filesystem does not take are refused, not ignored */
    sts_target_spec_parse("ram:+extentfs,turbo=1", &spec, NULL);
    assert_int_equal(sts_fs_stack_open(&s, &spec, &m, &t, err, sizeof(err)), STS_EINVAL);
    assert_non_null(strstr(err, "turbo"));
    /* a log is bounded by the device's end, not by size= */
    m.end = 4u << 20;
    sts_target_spec_parse("ram:+sensorlog", &spec, NULL);
    assert_int_equal(sts_fs_stack_open(&s, &spec, &m, &t, err, sizeof(err)), STS_EINVAL);
    assert_non_null(strstr(err, "size="));
    assert_int_equal(touched_outside(mem, 0, 0), -1);
    /* a device whose method table predates versions (or comes from a newer
     * library) is refused by name before any of its methods is called */
    struct sts_bd_ops old_ops = *bd.ops;
    old_ops.version = 0;
    old_ops.program = NULL; /* (called, it would crash the test) */
    old_ops.geometry = NULL;
    m.bd.ops = &old_ops;
    m.end = 0;
    sts_target_spec_parse("ram:+sensorlog", &spec, NULL);
    assert_int_equal(sts_fs_stack_open(&s, &spec, &m, &t, err, sizeof(err)), STS_EINVAL);
    assert_non_null(strstr(err, "ram:: device method table of version 0")); /* (shown: "ram:") */
    assert_non_null(strstr(err, "STS_BD_OPS_VERSION"));
    old_ops.version = STS_BD_OPS_VERSION + 1;
    assert_int_equal(sts_fs_stack_open(&s, &spec, &m, &t, err, sizeof(err)), STS_EINVAL);
    assert_non_null(strstr(err, "newer than this library"));
    assert_int_equal(touched_outside(mem, 0, 0), -1);
    free(mem);
}

int main(void)
{
    if (posix_memalign((void **)&iobuf, 4096, BUF_BYTES))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(json_fields_fsync_and_b0),
        cmocka_unit_test(json_valid_after_interrupt),
        cmocka_unit_test(posix_target_cleans_up_and_verifies),
        cmocka_unit_test(posix_target_refuses_bad_dirs),
        cmocka_unit_test(fs_stack_stays_in_its_region),
        cmocka_unit_test(fs_stack_refuses_what_the_device_cannot_take),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    free(iobuf);
    return failed;
}
