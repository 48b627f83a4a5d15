/* The archive on PostgreSQL (Debian's libpq), for a team: the same schema
 * and the same guarantees as db_sqlite.c - each run in one transaction, a
 * document archived twice one run, a database that is not an archive or
 * an archive of a newer version refused before anything is written. */
#define _POSIX_C_SOURCE 200809L
#include "db.h"

#include <libpq-fe.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the schema's version 1, as db_sqlite.c's, in PostgreSQL's words */
static const char *const schema_v1 =
    "CREATE TABLE storscope_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE runs("
    " id BIGSERIAL PRIMARY KEY, digest TEXT NOT NULL UNIQUE, imported_at TEXT NOT NULL,"
    " started_at TEXT, tool_version TEXT, target TEXT NOT NULL, target_kind TEXT,"
    " suite TEXT, scale TEXT, seed BIGINT, status TEXT NOT NULL,"
    " tests_ok BIGINT, tests_failed BIGINT, card_manufacturer TEXT, card_oem TEXT,"
    " card_name TEXT, card_serial TEXT, fitted_profile TEXT, document TEXT NOT NULL);"
    "CREATE INDEX runs_target ON runs(target);"
    "CREATE INDEX runs_started ON runs(started_at);"
    "CREATE TABLE points("
    " run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, test_id TEXT NOT NULL,"
    " seq BIGINT NOT NULL, name TEXT, params TEXT, mean DOUBLE PRECISION,"
    " sd DOUBLE PRECISION, unit TEXT, p50_ns DOUBLE PRECISION, p99_ns DOUBLE PRECISION,"
    " max_ns DOUBLE PRECISION, PRIMARY KEY(run_id, seq));";

static const char *const migrations[DB_SCHEMA_VERSION] = {schema_v1};

/* one key for storscope's advisory lock: openers of a new archive make it
 * once, one after the other */
#define SCHEMA_LOCK "7306228375127470675"

static void say(char *err, size_t n, const char *what, PGconn *c)
{
    char msg[240];
    snprintf(msg, sizeof(msg), "%s", c ? PQerrorMessage(c) : "out of memory");
    msg[strcspn(msg, "\n")] = '\0';
    snprintf(err, n, "%s: %.160s", what, msg); /* (bounded: err holds 256) */
}

/* Runs sql (no parameters); DB_OK when it did what it should. */
static int exec(PGconn *c, const char *sql, char *err, size_t n)
{
    PGresult *r = PQexec(c, sql);
    int ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
    PQclear(r);
    if (!ok)
        say(err, n, "the archive refused a command", c);
    return ok ? DB_OK : DB_ERR;
}

static int scalar_int(PGconn *c, const char *sql, long *out)
{
    PGresult *r = PQexec(c, sql);
    int ok = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1;
    if (ok)
        *out = PQgetisnull(r, 0, 0) ? -1 : atol(PQgetvalue(r, 0, 0));
    PQclear(r);
    return ok ? 0 : -1;
}

/* 0 empty of storscope's tables, -1 tables of storscope's names that are
 * not an archive, -2 an error, else the archive's version. */
static int schema_version(PGconn *c, char *err, size_t n)
{
    long meta = 0, named = 0, v = -1;
    if (scalar_int(c, "SELECT count(*) FROM information_schema.tables WHERE table_schema ="
                      " current_schema() AND table_name = 'storscope_meta'", &meta) ||
        scalar_int(c, "SELECT count(*) FROM information_schema.tables WHERE table_schema ="
                      " current_schema() AND table_name IN ('runs', 'points')", &named)) {
        say(err, n, "cannot read it", c);
        return -2;
    }
    if (!meta)
        return named ? -1 : 0;
    if (scalar_int(c, "SELECT value::int FROM storscope_meta WHERE key = 'schema_version'", &v)) {
        say(err, n, "cannot read its version", c);
        return -2;
    }
    return v > 0 ? (int)v : -1;
}

static void *pg_open(const char *where, int create, char *err, size_t n)
{
    PGconn *c = PQconnectdb(where);
    if (PQstatus(c) != CONNECTION_OK) {
        say(err, n, "cannot connect", c);
        PQfinish(c);
        return NULL;
    }
    PQsetNoticeProcessor(c, NULL, NULL); /* "relation exists" notices are not ours to print */
    int rc = exec(c, "BEGIN", err, n);
    if (rc == DB_OK)
        rc = exec(c, "SELECT pg_advisory_xact_lock(" SCHEMA_LOCK ")", err, n);
    int v = rc == DB_OK ? schema_version(c, err, n) : -2;
    if (v == -1) {
        snprintf(err, n, "the database holds tables named runs or points that are not a "
                         "storscope archive (no storscope_meta): nothing written to it");
        rc = DB_ERR;
    } else if (v == -2) {
        rc = DB_ERR;
    } else if (v > DB_SCHEMA_VERSION) {
        snprintf(err, n, "an archive of schema version %d, made by a newer storscope (this "
                         "one reads up to %d): nothing written to it", v, DB_SCHEMA_VERSION);
        rc = DB_ERR;
    } else if (v == 0 && !create) {
        snprintf(err, n, "there is no archive in this database (storscope db import or run "
                         "--db makes one)");
        rc = DB_ERR;
    } else if (v < DB_SCHEMA_VERSION) {
        for (int from = v; rc == DB_OK && from < DB_SCHEMA_VERSION; from++)
            rc = exec(c, migrations[from], err, n);
        char sql[160];
        snprintf(sql, sizeof(sql), "INSERT INTO storscope_meta VALUES('schema_version', '%d')"
                                   " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                 DB_SCHEMA_VERSION);
        if (rc == DB_OK)
            rc = exec(c, sql, err, n);
    }
    char ignored[256];
    if (rc == DB_OK)
        rc = exec(c, "COMMIT", err, n);
    else
        exec(c, "ROLLBACK", ignored, sizeof(ignored));
    if (rc != DB_OK) {
        PQfinish(c);
        return NULL;
    }
    return c;
}

static void pg_close(void *ctx)
{
    if (ctx)
        PQfinish(ctx);
}

/* a parameter's text: NULL for an empty string or a number that is not */
static const char *text_or_null(const char *s)
{
    return s && *s ? s : NULL;
}

static const char *real_text(char *b, size_t n, double v)
{
    if (!isfinite(v))
        return NULL;
    snprintf(b, n, "%.17g", v);
    return b;
}

static int put_points(PGconn *c, const char *id, const struct db_point *pts, size_t n_pts,
                      char *err, size_t n)
{
    for (size_t i = 0; i < n_pts; i++) {
        const struct db_point *p = &pts[i];
        char seq[24], mean[32], sd[32], p50[32], p99[32], max[32];
        snprintf(seq, sizeof(seq), "%lld", (long long)p->seq);
        const char *v[11] = {id,
                             p->test_id,
                             seq,
                             text_or_null(p->name),
                             text_or_null(p->params),
                             real_text(mean, sizeof(mean), p->mean),
                             real_text(sd, sizeof(sd), p->sd),
                             text_or_null(p->unit),
                             real_text(p50, sizeof(p50), p->p50_ns),
                             real_text(p99, sizeof(p99), p->p99_ns),
                             real_text(max, sizeof(max), p->max_ns)};
        PGresult *r = PQexecParams(c, "INSERT INTO points VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,"
                                      "$10,$11)", 11, NULL, v, NULL, NULL, 0);
        int ok = PQresultStatus(r) == PGRES_COMMAND_OK;
        PQclear(r);
        if (!ok) {
            say(err, n, "cannot store a point", c);
            return DB_ERR;
        }
    }
    return DB_OK;
}

static int pg_put(void *ctx, struct db_run *run, const struct db_point *pts, size_t n_pts,
                  const char *document, char *err, size_t n)
{
    PGconn *c = ctx;
    if (exec(c, "BEGIN", err, n))
        return DB_ERR;
    char seed[24], ok_[24], failed[24];
    snprintf(seed, sizeof(seed), "%lld", (long long)run->seed);
    snprintf(ok_, sizeof(ok_), "%lld", (long long)run->tests_ok);
    snprintf(failed, sizeof(failed), "%lld", (long long)run->tests_failed);
    const char *v[18] = {run->digest,
                         run->imported_at,
                         text_or_null(run->started_at),
                         text_or_null(run->tool_version),
                         run->target,
                         text_or_null(run->target_kind),
                         text_or_null(run->suite),
                         text_or_null(run->scale),
                         seed,
                         run->status,
                         ok_,
                         failed,
                         text_or_null(run->card_manufacturer),
                         text_or_null(run->card_oem),
                         text_or_null(run->card_name),
                         text_or_null(run->card_serial),
                         text_or_null(run->fitted_profile),
                         document};
    PGresult *r = PQexecParams(
        c,
        "INSERT INTO runs(digest, imported_at, started_at, tool_version, target, target_kind,"
        " suite, scale, seed, status, tests_ok, tests_failed, card_manufacturer, card_oem,"
        " card_name, card_serial, fitted_profile, document)"
        " VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18)"
        " ON CONFLICT(digest) DO NOTHING RETURNING id",
        18, NULL, v, NULL, NULL, 0);
    int rc = DB_OK;
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        say(err, n, "cannot store the run", c);
        rc = DB_ERR;
    } else if (PQntuples(r) == 0) {
        rc = DB_DUPLICATE;
    } else {
        run->id = atoll(PQgetvalue(r, 0, 0));
        rc = put_points(c, PQgetvalue(r, 0, 0), pts, n_pts, err, n);
    }
    PQclear(r);
    char ignored[256];
    if (rc != DB_OK) {
        exec(c, "ROLLBACK", ignored, sizeof(ignored));
        return rc;
    }
    return exec(c, "COMMIT", err, n);
}

static void field(PGresult *r, int row, int col, char *out, size_t n)
{
    snprintf(out, n, "%s", PQgetisnull(r, row, col) ? "" : PQgetvalue(r, row, col));
}

static int pg_list(void *ctx, const struct db_filter *f,
                   int (*each)(void *arg, const struct db_run *r), void *arg, char *err,
                   size_t n)
{
    PGconn *c = ctx;
    char id[24];
    snprintf(id, sizeof(id), "%lld", (long long)(f ? f->id : 0));
    const char *v[6] = {f ? text_or_null(f->target) : NULL, f ? text_or_null(f->card) : NULL,
                        f ? text_or_null(f->test) : NULL,   f ? text_or_null(f->since) : NULL,
                        f ? text_or_null(f->until) : NULL,  id};
    PGresult *r = PQexecParams(
        c,
        "SELECT id, digest, imported_at, started_at, tool_version, target, target_kind, suite,"
        " scale, seed, status, tests_ok, tests_failed, card_manufacturer, card_oem, card_name,"
        " card_serial, fitted_profile FROM runs r"
        " WHERE ($1::text IS NULL OR strpos(target, $1) > 0)"
        " AND ($2::text IS NULL OR strpos(coalesce(card_manufacturer, '') || ' ' ||"
        "  coalesce(card_oem, '') || ' ' || coalesce(card_name, '') || ' ' ||"
        "  coalesce(card_serial, ''), $2) > 0)"
        " AND ($3::text IS NULL OR EXISTS (SELECT 1 FROM points p WHERE p.run_id = r.id"
        "  AND p.test_id = $3))"
        " AND ($4::text IS NULL OR coalesce(started_at, imported_at) >= $4)"
        " AND ($5::text IS NULL OR coalesce(started_at, imported_at) < $5)"
        " AND ($6::bigint = 0 OR id = $6::bigint)"
        " ORDER BY id",
        6, NULL, v, NULL, NULL, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        say(err, n, "cannot list the runs", c);
        PQclear(r);
        return DB_ERR;
    }
    for (int i = 0; i < PQntuples(r); i++) {
        struct db_run run;
        memset(&run, 0, sizeof(run));
        run.id = atoll(PQgetvalue(r, i, 0));
        field(r, i, 1, run.digest, sizeof(run.digest));
        field(r, i, 2, run.imported_at, sizeof(run.imported_at));
        field(r, i, 3, run.started_at, sizeof(run.started_at));
        field(r, i, 4, run.tool_version, sizeof(run.tool_version));
        field(r, i, 5, run.target, sizeof(run.target));
        field(r, i, 6, run.target_kind, sizeof(run.target_kind));
        field(r, i, 7, run.suite, sizeof(run.suite));
        field(r, i, 8, run.scale, sizeof(run.scale));
        run.seed = atoll(PQgetvalue(r, i, 9));
        field(r, i, 10, run.status, sizeof(run.status));
        run.tests_ok = atoll(PQgetvalue(r, i, 11));
        run.tests_failed = atoll(PQgetvalue(r, i, 12));
        field(r, i, 13, run.card_manufacturer, sizeof(run.card_manufacturer));
        field(r, i, 14, run.card_oem, sizeof(run.card_oem));
        field(r, i, 15, run.card_name, sizeof(run.card_name));
        field(r, i, 16, run.card_serial, sizeof(run.card_serial));
        field(r, i, 17, run.fitted_profile, sizeof(run.fitted_profile));
        if (each(arg, &run))
            break;
    }
    PQclear(r);
    return DB_OK;
}

static int pg_document(void *ctx, int64_t id, char **doc, char *err, size_t n)
{
    PGconn *c = ctx;
    char ids[24];
    snprintf(ids, sizeof(ids), "%lld", (long long)id);
    const char *v[1] = {ids};
    *doc = NULL;
    PGresult *r = PQexecParams(c, "SELECT document FROM runs WHERE id = $1", 1, NULL, v, NULL,
                               NULL, 0);
    int rc = DB_OK;
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        say(err, n, "cannot read the run", c);
        rc = DB_ERR;
    } else if (!PQntuples(r)) {
        snprintf(err, n, "no run %lld in the archive", (long long)id);
        rc = DB_ERR;
    } else if (!(*doc = strdup(PQgetvalue(r, 0, 0)))) {
        snprintf(err, n, "out of memory");
        rc = DB_ERR;
    }
    PQclear(r);
    return rc;
}

static double real_field(PGresult *r, int row, int col)
{
    return PQgetisnull(r, row, col) ? NAN : strtod(PQgetvalue(r, row, col), NULL);
}

static int pg_points(void *ctx, int64_t id, int (*each)(void *arg, const struct db_point *p),
                     void *arg, char *err, size_t n)
{
    PGconn *c = ctx;
    char ids[24];
    snprintf(ids, sizeof(ids), "%lld", (long long)id);
    const char *v[1] = {ids};
    PGresult *r = PQexecParams(c, "SELECT test_id, seq, name, params, mean, sd, unit, p50_ns,"
                                  " p99_ns, max_ns FROM points WHERE run_id = $1"
                                  " ORDER BY seq",
                               1, NULL, v, NULL, NULL, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        say(err, n, "cannot read the points", c);
        PQclear(r);
        return DB_ERR;
    }
    for (int i = 0; i < PQntuples(r); i++) {
        struct db_point p;
        memset(&p, 0, sizeof(p));
        field(r, i, 0, p.test_id, sizeof(p.test_id));
        p.seq = atoll(PQgetvalue(r, i, 1));
        field(r, i, 2, p.name, sizeof(p.name));
        field(r, i, 3, p.params, sizeof(p.params));
        p.mean = real_field(r, i, 4);
        p.sd = real_field(r, i, 5);
        field(r, i, 6, p.unit, sizeof(p.unit));
        p.p50_ns = real_field(r, i, 7);
        p.p99_ns = real_field(r, i, 8);
        p.max_ns = real_field(r, i, 9);
        if (each(arg, &p))
            break;
    }
    PQclear(r);
    return DB_OK;
}

const struct db_ops db_pg_ops = {"postgresql", pg_open,     pg_close, pg_put,
                                 pg_list,      pg_document, pg_points};
