/* The archive's engine-free part: which archive a --db value names, what a
 * results document says about its run and points, and storing a file. */
#define _POSIX_C_SOURCE 200809L
#include "db.h"
#include "cli.h"
#include "json_in.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* mkdir -p for the default archive's directory */
static int make_dirs(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        int rc = mkdir(path, 0700);
        *p = '/';
        if (rc && errno != EEXIST)
            return -1;
    }
    return mkdir(path, 0700) && errno != EEXIST ? -1 : 0;
}

int db_locate(const char *value, const struct db_ops **ops, char *where, size_t where_len,
              char *err, size_t n)
{
    *ops = &db_sqlite_ops;
    if (value && (!strncmp(value, "postgresql://", 13) || !strncmp(value, "postgres://", 11))) {
#ifdef STORSCOPE_HAVE_LIBPQ
        *ops = &db_pg_ops;
        if ((size_t)snprintf(where, where_len, "%s", value) >= where_len) {
            snprintf(err, n, "--db: the URL is too long");
            return DB_ERR;
        }
        db_hide_password(where);
        return DB_OK;
#else
        snprintf(err, n, "--db '%s': this storscope was built without PostgreSQL's client "
                         "library (install Debian's libpq-dev and build again)", value);
        return DB_ERR;
#endif
    }
    if (value && *value) {
        const char *path = !strncmp(value, "sqlite:", 7) ? value + 7 : value;
        if (strstr(value, "://")) {
            snprintf(err, n, "--db '%s': not an archive storscope knows (sqlite:PATH, a path, "
                             "or postgresql://...)", value);
            return DB_ERR;
        }
        if (!*path) {
            snprintf(err, n, "--db '%s': sqlite: needs a path (sqlite:PATH)", value);
            return DB_ERR;
        }
        if ((size_t)snprintf(where, where_len, "%s", path) >= where_len) {
            snprintf(err, n, "--db: the path is too long");
            return DB_ERR;
        }
        return DB_OK;
    }
    /* the XDG base directories: data goes under $XDG_DATA_HOME, by default
     * ~/.local/share */
    const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    char dir[4096];
    if (xdg && *xdg == '/')
        snprintf(dir, sizeof(dir), "%s/storscope", xdg);
    else if (home && *home)
        snprintf(dir, sizeof(dir), "%s/.local/share/storscope", home);
    else {
        snprintf(err, n, "no archive given and neither XDG_DATA_HOME nor HOME is set: give "
                         "--db sqlite:PATH");
        return DB_ERR;
    }
    if (make_dirs(dir)) {
        snprintf(err, n, "cannot make the archive's directory %s: %s", dir, strerror(errno));
        return DB_ERR;
    }
    if ((size_t)snprintf(where, where_len, "%s/results.db", dir) >= where_len) {
        snprintf(err, n, "the archive's path is too long");
        return DB_ERR;
    }
    return DB_OK;
}

/* FNV-1a over the bytes, 64 bits, twice with different bases: a file
 * archived twice is found by it (not a security digest: nothing is
 * trusted on it). */
static void digest(const char *text, size_t len, char out[65])
{
    uint64_t h[2] = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull};
    for (size_t i = 0; i < len; i++)
        for (int k = 0; k < 2; k++)
            h[k] = (h[k] ^ (unsigned char)text[i]) * 0x100000001b3ull;
    snprintf(out, 65, "%016llx%016llx%016llx", (unsigned long long)h[0],
             (unsigned long long)h[1], (unsigned long long)len);
}

static void copy_str(char *out, size_t n, const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    snprintf(out, n, "%s", cJSON_IsString(v) && v->valuestring ? v->valuestring : "");
}

static double num_or_nan(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* The card a probe named: the SD CID's or the kernel's eMMC fields. */
static void card_of(const cJSON *doc, struct db_run *r)
{
    const cJSON *probe = cJSON_GetObjectItemCaseSensitive(doc, "probe");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(probe, "identity");
    if (!cJSON_IsObject(id))
        return;
    /* SD: the CID's numbers; eMMC: the kernel's text (probe_identity.c) */
    const cJSON *mid = cJSON_GetObjectItemCaseSensitive(id, "manfid");
    if (cJSON_IsNumber(mid))
        snprintf(r->card_manufacturer, sizeof(r->card_manufacturer), "0x%02x",
                 (unsigned)mid->valuedouble);
    else
        copy_str(r->card_manufacturer, sizeof(r->card_manufacturer), id, "manfid_text");
    copy_str(r->card_oem, sizeof(r->card_oem), id, "oemid");
    copy_str(r->card_name, sizeof(r->card_name), id, "name");
    const cJSON *serial = cJSON_GetObjectItemCaseSensitive(id, "serial");
    if (cJSON_IsNumber(serial))
        snprintf(r->card_serial, sizeof(r->card_serial), "0x%08llx",
                 (unsigned long long)serial->valuedouble);
}

/* The first latency series' median, 99th percentile and maximum. */
static void latency_of(const cJSON *pt, struct db_point *p)
{
    p->p50_ns = p->p99_ns = p->max_ns = NAN;
    const cJSON *lat = cJSON_GetObjectItemCaseSensitive(pt, "latency");
    const cJSON *first = cJSON_IsObject(lat) ? lat->child : NULL;
    if (!cJSON_IsObject(first))
        return;
    const cJSON *pct = cJSON_GetObjectItemCaseSensitive(first, "percentiles_ns");
    p->p50_ns = num_or_nan(pct, "50");
    p->p99_ns = num_or_nan(pct, "99");
    p->max_ns = num_or_nan(first, "max_ns");
}

int db_read_run(const cJSON *doc, const char *text, size_t len, struct db_run *r,
                struct db_point **pts, size_t *n_pts, char *err, size_t n)
{
    memset(r, 0, sizeof(*r));
    *pts = NULL;
    *n_pts = 0;
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
    const cJSON *run = cJSON_GetObjectItemCaseSensitive(doc, "run");
    const cJSON *tests = cJSON_GetObjectItemCaseSensitive(doc, "tests");
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, "storscope-result/1") ||
        !cJSON_IsObject(run) || !cJSON_IsArray(tests)) {
        snprintf(err, n, "not a storscope-result/1 document (a plan, a fio file or another "
                         "program's JSON is not archived)");
        return DB_ERR;
    }
    digest(text, len, r->digest);
    time_t now = time(NULL);
    struct tm tm;
    strftime(r->imported_at, sizeof(r->imported_at), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    copy_str(r->started_at, sizeof(r->started_at), run, "started_at");
    copy_str(r->tool_version, sizeof(r->tool_version),
             cJSON_GetObjectItemCaseSensitive(doc, "tool"), "version");
    copy_str(r->target, sizeof(r->target), run, "target");
    copy_str(r->target_kind, sizeof(r->target_kind), run, "target_kind");
    copy_str(r->suite, sizeof(r->suite), run, "suite");
    copy_str(r->scale, sizeof(r->scale), run, "scale");
    copy_str(r->status, sizeof(r->status), doc, "status");
    double seed = num_or_nan(run, "seed");
    r->seed = isfinite(seed) ? (int64_t)seed : 0;
    r->tests_ok = (int64_t)cli_num(doc, "tests_ok");
    r->tests_failed = (int64_t)cli_num(doc, "tests_failed");
    if (!strncmp(r->target, "sim:@", 5))
        snprintf(r->fitted_profile, sizeof(r->fitted_profile), "%.*s",
                 (int)strcspn(r->target + 5, ",+"), r->target + 5);
    card_of(doc, r);
    size_t count = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, tests)
        count += (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(t, "points"));
    if (count && !(*pts = calloc(count, sizeof(**pts)))) {
        snprintf(err, n, "out of memory");
        return DB_ERR;
    }
    int64_t seq = 0;
    cJSON_ArrayForEach(t, tests) {
        const cJSON *pt;
        cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(t, "points")) {
            struct db_point *p = &(*pts)[(*n_pts)++];
            copy_str(p->test_id, sizeof(p->test_id), t, "id");
            p->seq = seq++;
            copy_str(p->name, sizeof(p->name), pt, "name");
            char *params = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(pt, "params"));
            snprintf(p->params, sizeof(p->params), "%s", params ? params : "");
            free(params);
            const cJSON *runs = cJSON_GetObjectItemCaseSensitive(pt, "runs");
            p->mean = num_or_nan(runs, "mean");
            p->sd = num_or_nan(runs, "sd");
            copy_str(p->unit, sizeof(p->unit), runs, "metric");
            latency_of(pt, p);
        }
    }
    return DB_OK;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            char *more = realloc(buf, cap ? cap * 2 : 65536);
            if (!more)
                break;
            buf = more;
            cap = cap ? cap * 2 : 65536;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (!got)
            break;
    }
    int bad = ferror(f) || !buf || n == cap;
    fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

void *db_open_named(const char *value, int create, const struct db_ops **ops, char *where,
                    size_t where_len)
{
    char err[512];
    if (db_locate(value, ops, where, where_len, err, sizeof(err))) {
        cli_error("%s", err);
        return NULL;
    }
    void *ctx = (*ops)->open(where, create, err, sizeof(err));
    if (!ctx)
        cli_error("archive %s: %s", where, err);
    return ctx;
}

int db_check(const char *value)
{
    const struct db_ops *ops;
    char where[4096];
    void *ctx = db_open_named(value, 1, &ops, where, sizeof(where));
    if (!ctx)
        return -1;
    ops->close(ctx);
    return 0;
}

struct cJSON *db_load_card(const char *path)
{
    cJSON *doc = cli_load_results(path);
    if (!doc)
        return NULL;
    struct db_run r;
    memset(&r, 0, sizeof(r));
    card_of(doc, &r);
    if (!*r.card_name && !*r.card_serial && !*r.card_manufacturer) {
        cli_error("--probe %s names no card (a probe of a card whose registers the system "
                  "shows: an SD or eMMC, not an image or a USB reader)", path);
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}

int db_store(const struct db_ops *ops, void *ctx, const char *where, const char *path,
             int quiet, const struct cJSON *card)
{
    cJSON *doc = cli_load_results(path); /* says why it is refused */
    if (!doc)
        return -1;
    size_t len = 0;
    char *text = read_all(path, &len);
    struct db_run run;
    struct db_point *pts = NULL;
    size_t n_pts = 0;
    char err[512];
    int rc = -1;
    if (!text) {
        cli_error("cannot read %s: %s", path, strerror(errno));
    } else if (db_read_run(doc, text, len, &run, &pts, &n_pts, err, sizeof(err))) {
        cli_error("%s: %s: nothing archived", path, err);
    } else {
        if (card && !*run.card_name && !*run.card_serial && !*run.card_manufacturer)
            card_of(card, &run);
        int put = ops->put(ctx, &run, pts, n_pts, text, err, sizeof(err));
        if (put == DB_ERR) {
            cli_error("archive %s: %s: %s: nothing archived", where, path, err);
        } else if (put == DB_DUPLICATE) {
            if (!quiet)
                printf("%s: already in %s\n", path, where);
            rc = 1;
        } else {
            if (!quiet)
                printf("%s: run %lld in %s\n", path, (long long)run.id, where);
            rc = 0;
        }
    }
    free(pts);
    free(text);
    cJSON_Delete(doc);
    return rc;
}

int db_store_file(const char *value, const char *path, int quiet, const char *probe)
{
    const struct db_ops *ops;
    char where[4096];
    cJSON *card = probe ? db_load_card(probe) : NULL;
    void *ctx = db_open_named(value, 1, &ops, where, sizeof(where));
    int rc = -1;
    if (ctx && (!probe || card))
        rc = db_store(ops, ctx, where, path, quiet, card);
    if (ctx)
        ops->close(ctx);
    cJSON_Delete(card);
    return rc;
}
