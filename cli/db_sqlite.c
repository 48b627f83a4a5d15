/* The archive on SQLite (Debian's libsqlite3), the embedded default: one
 * file, write-ahead logging so that several runs and a reader share it,
 * each run stored in one transaction. */
#define _POSIX_C_SOURCE 200809L
#include "db.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A writer waits this long for another to finish its transaction before
 * giving up (a run's is milliseconds; an import of thousands, seconds). */
#define BUSY_TIMEOUT_MS 60000

/* Version 1. A later version adds a step to `migrations` that takes an
 * archive from the one before to it; each runs in the opening transaction. */
static const char *const schema_v1 =
    "CREATE TABLE storscope_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE runs("
    " id INTEGER PRIMARY KEY, digest TEXT NOT NULL UNIQUE, imported_at TEXT NOT NULL,"
    " started_at TEXT, tool_version TEXT, target TEXT NOT NULL, target_kind TEXT,"
    " suite TEXT, scale TEXT, seed INTEGER, status TEXT NOT NULL,"
    " tests_ok INTEGER, tests_failed INTEGER, card_manufacturer TEXT, card_oem TEXT,"
    " card_name TEXT, card_serial TEXT, fitted_profile TEXT, document TEXT NOT NULL);"
    "CREATE INDEX runs_target ON runs(target);"
    "CREATE INDEX runs_started ON runs(started_at);"
    "CREATE TABLE points("
    " run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, test_id TEXT NOT NULL,"
    " seq INTEGER NOT NULL, name TEXT, params TEXT, mean REAL, sd REAL, unit TEXT,"
    " p50_ns REAL, p99_ns REAL, max_ns REAL, PRIMARY KEY(run_id, seq));";

/* [v]: what takes an archive of version v to v + 1; version 0 is an empty
 * file. A later version appends its step; every one runs in the
 * transaction that opens the archive, then the version is set. */
static const char *const migrations[DB_SCHEMA_VERSION] = {schema_v1};

struct lite {
    sqlite3 *db;
};

static void say(char *err, size_t n, const char *what, sqlite3 *db)
{
    snprintf(err, n, "%s: %s", what, db ? sqlite3_errmsg(db) : "out of memory");
}

static int exec(sqlite3 *db, const char *sql, char *err, size_t n)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK)
        return DB_OK;
    snprintf(err, n, "%s", msg ? msg : sqlite3_errmsg(db));
    sqlite3_free(msg);
    return DB_ERR;
}

/* The archive's version: 0 for an empty file, -1 for a database that is
 * not a storscope archive (tables, none of them ours), -2 on error. */
static int schema_version(sqlite3 *db, char *err, size_t n)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT count(*), sum(name = 'storscope_meta') FROM sqlite_master"
                               " WHERE type = 'table'", -1, &st, NULL) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW) {
        say(err, n, "cannot read it", db);
        sqlite3_finalize(st);
        return -2;
    }
    int tables = sqlite3_column_int(st, 0), ours = sqlite3_column_int(st, 1);
    sqlite3_finalize(st);
    if (!tables)
        return 0;
    if (!ours)
        return -1;
    int v = -1;
    if (sqlite3_prepare_v2(db, "SELECT value FROM storscope_meta WHERE key = 'schema_version'",
                           -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = atoi((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return v > 0 ? v : -1;
}

/* Creates or migrates the schema, in one transaction taken before reading
 * the version: two storscopes opening a new archive at once make it once. */
static int settle_schema(sqlite3 *db, const char *where, char *err, size_t n)
{
    if (exec(db, "BEGIN IMMEDIATE", err, n))
        return DB_ERR;
    int v = schema_version(db, err, n);
    int rc = DB_OK;
    if (v == -1) {
        snprintf(err, n, "%s is an SQLite database but not a storscope archive (no "
                         "storscope_meta table): nothing written to it", where);
        rc = DB_ERR;
    } else if (v == -2) {
        rc = DB_ERR;
    } else if (v > DB_SCHEMA_VERSION) {
        snprintf(err, n, "%s is an archive of schema version %d, made by a newer storscope "
                         "(this one reads up to %d): nothing written to it", where, v,
                 DB_SCHEMA_VERSION);
        rc = DB_ERR;
    } else if (v < DB_SCHEMA_VERSION) {
        for (int from = v; rc == DB_OK && from < DB_SCHEMA_VERSION; from++)
            rc = exec(db, migrations[from], err, n);
        char sql[112];
        snprintf(sql, sizeof(sql), "INSERT OR REPLACE INTO storscope_meta VALUES("
                                   "'schema_version', '%d')", DB_SCHEMA_VERSION);
        if (rc == DB_OK)
            rc = exec(db, sql, err, n);
    }
    char ignored[256];
    exec(db, rc == DB_OK ? "COMMIT" : "ROLLBACK", rc == DB_OK ? err : ignored,
         rc == DB_OK ? n : sizeof(ignored));
    return rc;
}

static void *lite_open(const char *where, int create, char *err, size_t n)
{
    sqlite3 *db = NULL;
    int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(where, &db, flags, NULL) != SQLITE_OK) {
        if (!create && sqlite3_errcode(db) == SQLITE_CANTOPEN)
            snprintf(err, n, "there is no archive at %s (storscope db import or run --db "
                             "makes one)", where);
        else
            say(err, n, where, db);
        sqlite3_close(db);
        return NULL;
    }
    sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS);
    char why[256];
    /* what the file is, before anything is written to it: switching to WAL
     * rewrites the header of another program's database too */
    int v = exec(db, "PRAGMA foreign_keys = ON", why, sizeof(why)) ? -2
                                                                     : schema_version(db, why,
                                                                                      sizeof(why));
    if (v == -1)
        snprintf(why, sizeof(why), "%s is an SQLite database but not a storscope archive (no "
                                   "storscope_meta table): nothing written to it", where);
    else if (v > DB_SCHEMA_VERSION)
        snprintf(why, sizeof(why), "%s is an archive of schema version %d, made by a newer "
                                   "storscope (this one reads up to %d): nothing written to it",
                 where, v, DB_SCHEMA_VERSION);
    /* WAL: readers do not wait for a writer, and a writer killed mid-run
     * leaves the last committed state (its transaction is never seen) */
    if (v < 0 || v > DB_SCHEMA_VERSION || exec(db, "PRAGMA journal_mode = WAL", why, sizeof(why)) ||
        settle_schema(db, where, why, sizeof(why))) {
        if (strstr(why, "not a database") || strstr(why, "file is not"))
            snprintf(err, n, "%s is not an SQLite database (a foreign or damaged file): "
                             "nothing written to it", where);
        else
            snprintf(err, n, "%s", why);
        sqlite3_close(db);
        return NULL;
    }
    struct lite *l = calloc(1, sizeof(*l));
    if (!l) {
        snprintf(err, n, "out of memory");
        sqlite3_close(db);
        return NULL;
    }
    l->db = db;
    return l;
}

static void lite_close(void *ctx)
{
    struct lite *l = ctx;
    if (!l)
        return;
    sqlite3_close(l->db);
    free(l);
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
    if (s && *s)
        sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

static void bind_real(sqlite3_stmt *st, int i, double v)
{
    if (isfinite(v))
        sqlite3_bind_double(st, i, v);
    else
        sqlite3_bind_null(st, i);
}

static int put_points(sqlite3 *db, int64_t id, const struct db_point *pts, size_t n_pts,
                      char *err, size_t n)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "INSERT INTO points VALUES(?,?,?,?,?,?,?,?,?,?,?)", -1, &st,
                           NULL) != SQLITE_OK) {
        say(err, n, "cannot store the points", db);
        return DB_ERR;
    }
    int rc = DB_OK;
    for (size_t i = 0; i < n_pts && rc == DB_OK; i++) {
        const struct db_point *p = &pts[i];
        sqlite3_bind_int64(st, 1, id);
        bind_text(st, 2, p->test_id);
        sqlite3_bind_int64(st, 3, p->seq);
        bind_text(st, 4, p->name);
        bind_text(st, 5, p->params);
        bind_real(st, 6, p->mean);
        bind_real(st, 7, p->sd);
        bind_text(st, 8, p->unit);
        bind_real(st, 9, p->p50_ns);
        bind_real(st, 10, p->p99_ns);
        bind_real(st, 11, p->max_ns);
        if (sqlite3_step(st) != SQLITE_DONE) {
            say(err, n, "cannot store a point", db);
            rc = DB_ERR;
        }
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc;
}

static int lite_put(void *ctx, struct db_run *r, const struct db_point *pts, size_t n_pts,
                    const char *document, char *err, size_t n)
{
    sqlite3 *db = ((struct lite *)ctx)->db;
    if (exec(db, "BEGIN IMMEDIATE", err, n))
        return DB_ERR;
    sqlite3_stmt *st = NULL;
    int rc = DB_OK;
    if (sqlite3_prepare_v2(db, "INSERT INTO runs(digest, imported_at, started_at, tool_version,"
                               " target, target_kind, suite, scale, seed, status, tests_ok,"
                               " tests_failed, card_manufacturer, card_oem, card_name,"
                               " card_serial, fitted_profile, document)"
                               " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
                               " ON CONFLICT(digest) DO NOTHING",
                           -1, &st, NULL) != SQLITE_OK) {
        say(err, n, "cannot store the run", db);
        rc = DB_ERR;
    } else {
        const char *text[] = {r->digest,     r->imported_at, r->started_at, r->tool_version,
                              r->target,     r->target_kind, r->suite,      r->scale};
        for (int i = 0; i < 8; i++)
            bind_text(st, i + 1, text[i]);
        sqlite3_bind_int64(st, 9, r->seed);
        bind_text(st, 10, r->status);
        sqlite3_bind_int64(st, 11, r->tests_ok);
        sqlite3_bind_int64(st, 12, r->tests_failed);
        bind_text(st, 13, r->card_manufacturer);
        bind_text(st, 14, r->card_oem);
        bind_text(st, 15, r->card_name);
        bind_text(st, 16, r->card_serial);
        bind_text(st, 17, r->fitted_profile);
        sqlite3_bind_text(st, 18, document, -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE) {
            say(err, n, "cannot store the run", db);
            rc = DB_ERR;
        } else if (!sqlite3_changes(db)) {
            rc = DB_DUPLICATE;
        } else {
            r->id = sqlite3_last_insert_rowid(db);
            rc = put_points(db, r->id, pts, n_pts, err, n);
        }
    }
    sqlite3_finalize(st);
    if (rc == DB_ERR) {
        char ignored[256];
        exec(db, "ROLLBACK", ignored, sizeof(ignored));
        return DB_ERR;
    }
    if (rc == DB_DUPLICATE) {
        exec(db, "ROLLBACK", err, n);
        return DB_DUPLICATE;
    }
    return exec(db, "COMMIT", err, n);
}

/* A query's end: its statement finalized, and DB_ERR with `what` when
 * its last step was neither a row nor the end. */
static int query_done(sqlite3 *db, sqlite3_stmt *st, int step, const char *what, char *err,
                      size_t n)
{
    int rc = DB_OK;
    if (step != SQLITE_ROW && step != SQLITE_DONE) {
        say(err, n, what, db);
        rc = DB_ERR;
    }
    sqlite3_finalize(st);
    return rc;
}

static void column_text(sqlite3_stmt *st, int i, char *out, size_t n)
{
    const unsigned char *s = sqlite3_column_text(st, i);
    snprintf(out, n, "%s", s ? (const char *)s : "");
}

static int lite_list(void *ctx, const struct db_filter *f,
                     int (*each)(void *arg, const struct db_run *r), void *arg, char *err,
                     size_t n)
{
    sqlite3 *db = ((struct lite *)ctx)->db;
    sqlite3_stmt *st = NULL;
    /* ?1..?6: each NULL matches all */
    if (sqlite3_prepare_v2(
            db,
            "SELECT id, digest, imported_at, started_at, tool_version, target, target_kind,"
            " suite, scale, seed, status, tests_ok, tests_failed, card_manufacturer, card_oem,"
            " card_name, card_serial, fitted_profile FROM runs r"
            " WHERE (?1 IS NULL OR instr(target, ?1) > 0)"
            " AND (?2 IS NULL OR instr(coalesce(card_manufacturer, '') || ' ' ||"
            "  coalesce(card_oem, '') || ' ' || coalesce(card_name, '') || ' ' ||"
            "  coalesce(card_serial, ''), ?2) > 0)"
            " AND (?3 IS NULL OR EXISTS (SELECT 1 FROM points p WHERE p.run_id = r.id"
            "  AND p.test_id = ?3))"
            " AND (?4 IS NULL OR coalesce(started_at, imported_at) >= ?4)"
            " AND (?5 IS NULL OR coalesce(started_at, imported_at) < ?5)"
            " AND (?6 = 0 OR id = ?6)"
            " ORDER BY id",
            -1, &st, NULL) != SQLITE_OK) {
        say(err, n, "cannot list the runs", db);
        return DB_ERR;
    }
    bind_text(st, 1, f ? f->target : NULL);
    bind_text(st, 2, f ? f->card : NULL);
    bind_text(st, 3, f ? f->test : NULL);
    bind_text(st, 4, f ? f->since : NULL);
    bind_text(st, 5, f ? f->until : NULL);
    sqlite3_bind_int64(st, 6, f ? f->id : 0);
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        struct db_run r;
        memset(&r, 0, sizeof(r));
        r.id = sqlite3_column_int64(st, 0);
        column_text(st, 1, r.digest, sizeof(r.digest));
        column_text(st, 2, r.imported_at, sizeof(r.imported_at));
        column_text(st, 3, r.started_at, sizeof(r.started_at));
        column_text(st, 4, r.tool_version, sizeof(r.tool_version));
        column_text(st, 5, r.target, sizeof(r.target));
        column_text(st, 6, r.target_kind, sizeof(r.target_kind));
        column_text(st, 7, r.suite, sizeof(r.suite));
        column_text(st, 8, r.scale, sizeof(r.scale));
        r.seed = sqlite3_column_int64(st, 9);
        column_text(st, 10, r.status, sizeof(r.status));
        r.tests_ok = sqlite3_column_int64(st, 11);
        r.tests_failed = sqlite3_column_int64(st, 12);
        column_text(st, 13, r.card_manufacturer, sizeof(r.card_manufacturer));
        column_text(st, 14, r.card_oem, sizeof(r.card_oem));
        column_text(st, 15, r.card_name, sizeof(r.card_name));
        column_text(st, 16, r.card_serial, sizeof(r.card_serial));
        column_text(st, 17, r.fitted_profile, sizeof(r.fitted_profile));
        if (each(arg, &r))
            break;
    }
    return query_done(db, st, step, "cannot list the runs", err, n);
}

static int lite_document(void *ctx, int64_t id, char **doc, char *err, size_t n)
{
    sqlite3 *db = ((struct lite *)ctx)->db;
    sqlite3_stmt *st = NULL;
    *doc = NULL;
    if (sqlite3_prepare_v2(db, "SELECT document FROM runs WHERE id = ?", -1, &st, NULL) !=
        SQLITE_OK) {
        say(err, n, "cannot read the run", db);
        return DB_ERR;
    }
    sqlite3_bind_int64(st, 1, id);
    int rc = DB_OK, step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        const char *text = (const char *)sqlite3_column_text(st, 0);
        *doc = strdup(text ? text : "");
        if (!*doc) {
            snprintf(err, n, "out of memory");
            rc = DB_ERR;
        }
    } else if (step == SQLITE_DONE) {
        snprintf(err, n, "no run %lld in the archive", (long long)id);
        rc = DB_ERR;
    } else {
        say(err, n, "cannot read the run", db);
        rc = DB_ERR;
    }
    sqlite3_finalize(st);
    return rc;
}

static double column_real(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static int lite_points(void *ctx, int64_t id, int (*each)(void *arg, const struct db_point *p),
                       void *arg, char *err, size_t n)
{
    sqlite3 *db = ((struct lite *)ctx)->db;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT test_id, seq, name, params, mean, sd, unit, p50_ns,"
                               " p99_ns, max_ns FROM points WHERE run_id = ? ORDER BY seq",
                           -1, &st, NULL) != SQLITE_OK) {
        say(err, n, "cannot read the points", db);
        return DB_ERR;
    }
    sqlite3_bind_int64(st, 1, id);
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        struct db_point p;
        memset(&p, 0, sizeof(p));
        column_text(st, 0, p.test_id, sizeof(p.test_id));
        p.seq = sqlite3_column_int64(st, 1);
        column_text(st, 2, p.name, sizeof(p.name));
        column_text(st, 3, p.params, sizeof(p.params));
        p.mean = column_real(st, 4);
        p.sd = column_real(st, 5);
        column_text(st, 6, p.unit, sizeof(p.unit));
        p.p50_ns = column_real(st, 7);
        p.p99_ns = column_real(st, 8);
        p.max_ns = column_real(st, 9);
        if (each(arg, &p))
            break;
    }
    return query_done(db, st, step, "cannot read the points", err, n);
}

const struct db_ops db_sqlite_ops = {"sqlite",  lite_open, lite_close, lite_put,
                                     lite_list, lite_document, lite_points};
