/* The results archive (issue 48): runs kept in a database, one schema for
 * every engine. An engine is a method table over a context (db_sqlite.c:
 * SQLite, the embedded default); cmd_db.c holds the commands, which speak
 * to the archive through this interface only. A run is stored in one
 * transaction: a killed import leaves it whole or absent. */
#ifndef STORSCOPE_CLI_DB_H
#define STORSCOPE_CLI_DB_H

#include <stddef.h>
#include <stdint.h>

/* The schema this storscope writes: runs, their tests and points, and the
 * document each came from. An archive made by a newer storscope is
 * refused, an older one is brought up to this version in a transaction. */
#define DB_SCHEMA_VERSION 1

enum { DB_OK = 0, DB_ERR = -1, DB_DUPLICATE = 1 };

/* What a run says about itself, read from its document (db_meta_read). */
struct db_run {
    int64_t id;              /* the archive's number for it (0 before it is stored) */
    char digest[65];         /* SHA-256 of the document's bytes, hex: the same file twice is
                                one run */
    char imported_at[32];    /* UTC, ISO 8601 */
    char started_at[32];     /* the run's own start, "" when the document has none */
    char tool_version[32];
    char target[256], target_kind[24], suite[32], scale[16];
    int64_t seed;
    char status[24];          /* ok, failed, interrupted... as the document says */
    int64_t tests_ok, tests_failed;
    /* the card, where a probe named it (SD CID, eMMC CID via the kernel):
     * runs group by card */
    char card_manufacturer[24], card_oem[24], card_name[24], card_serial[24];
    char fitted_profile[64]; /* sim:@FILE when the target was a fitted profile */
};

/* One measured point of a run, flattened for queries and CSV. */
struct db_point {
    char test_id[24];
    int64_t seq;            /* its place among the run's points, from 0 */
    char name[64];          /* "write", "open_close" */
    char params[512];       /* its parameters as JSON text */
    double mean, sd;        /* runs.mean and runs.sd (NAN when absent) */
    char unit[24];          /* runs.unit ("bytes/s", "ns") */
    double p50_ns, p99_ns, max_ns; /* its latency (NAN when absent) */
};

/* What `db list` and the others select: each NULL or "" matches all. */
struct db_filter {
    int64_t id;         /* this run only (0: any) */
    const char *target; /* substring of the target */
    const char *card;   /* substring of the card's manufacturer, OEM, name or serial */
    const char *test;   /* runs holding this test */
    const char *since, *until; /* started (or imported) at or after / before, ISO 8601 */
};

struct db_ops {
    const char *engine; /* "sqlite" */
    /* Opens the archive at `where` (a path for SQLite), migrating it to
     * DB_SCHEMA_VERSION; with `create`, making it when there is none (a
     * reader does not: an archive that is not there is said so). NULL and
     * a message in err on failure. */
    void *(*open)(const char *where, int create, char *err, size_t n);
    void (*close)(void *ctx);
    /* Stores run, its points and its document in one transaction; sets
     * run->id. DB_DUPLICATE (nothing written) when its digest is there. */
    int (*put)(void *ctx, struct db_run *run, const struct db_point *pts, size_t n_pts,
               const char *document, char *err, size_t n);
    /* Calls each for every run matching f, oldest first; stops early when
     * each returns non-zero. */
    int (*list)(void *ctx, const struct db_filter *f,
                int (*each)(void *arg, const struct db_run *r), void *arg, char *err, size_t n);
    /* The document of run id (malloc'd, the caller frees): DB_OK, DB_ERR
     * (err says why; "no run N" when there is none). */
    int (*document)(void *ctx, int64_t id, char **doc, char *err, size_t n);
    /* Calls each for every point of run id, in order. */
    int (*points)(void *ctx, int64_t id, int (*each)(void *arg, const struct db_point *p),
                  void *arg, char *err, size_t n);
};

extern const struct db_ops db_sqlite_ops, db_pg_ops;

/* The archive a --db value names: "" or NULL the default
 * ($XDG_DATA_HOME/storscope/results.db, else ~/.local/share/...),
 * "sqlite:PATH", a path, or a PostgreSQL URL (postgresql://...). Sets *ops and where (the engine's own form);
 * DB_ERR with the reason in err when the value names no engine this
 * storscope has. */
int db_locate(const char *value, const struct db_ops **ops, char *where, size_t where_len,
              char *err, size_t n);

struct cJSON;
/* A results document's run and points; DB_ERR with why when it is not a
 * storscope-result/1 document (a foreign or damaged file). pts is
 * malloc'd (*n_pts of them; the caller frees). */
int db_read_run(const struct cJSON *doc, const char *text, size_t len, struct db_run *run,
                struct db_point **pts, size_t *n_pts, char *err, size_t n);

/* The archive `value` names, opened (made, with create): NULL after
 * saying why. where receives its engine's name for it. */
void *db_open_named(const char *value, int create, const struct db_ops **ops, char *where,
                    size_t where_len);

/* Whether the archive `value` names can be opened (and made): 0, or -1
 * after saying why. */
int db_check(const char *value);

/* Stores the results file at path in the open archive ctx (`where` names
 * it in messages), on the card a probe's document names (card, NULL: the
 * run's own, when it is a probe's): 0 stored, 1 already there, -1 refused or failed (said
 * on stderr, nothing stored). */
int db_store(const struct db_ops *ops, void *ctx, const char *where, const char *path,
             int quiet, const struct cJSON *card);

/* Stores the results file at path in the archive `value` names (run
 * --db, db import): 0 stored, 1 already there, -1 refused or failed (said
 * on stderr, nothing stored). */
int db_store_file(const char *value, const char *path, int quiet, const char *probe);

/* A password in a postgresql:// URL moves to libpq's PGPASSWORD (which
 * children inherit) and out of the URL, in place: no message, no child's
 * command line shows it. */
void db_hide_password(char *url);

/* The probe results at path (storscope probe -o), whose card runs are
 * archived on: NULL after saying why, or when it names no card. */
struct cJSON *db_load_card(const char *path);

/* storscope db's options (db_options.c: the table, cmd_db.c: the actions) */
struct db_opts {
    char *db, *target, *card, *test, *since, *until, *output, *probe;
    int csv, json, quiet, fmt;
    double threshold;
};
/* The runs o's filters select. */
void db_filter_of(const struct db_opts *o, struct db_filter *f);
/* Two connections to o's archive (never made): one lists the runs while
 * the other reads each run's document or points (an engine need not nest
 * its queries). -1 after saying why. */
int db_open_two(const struct db_opts *o, const struct db_ops **ops, char *where,
                size_t where_len, void **lister, void **reader);
/* db trend FIGURE (db_trend.c): EXIT_* */
int db_trend(const struct db_opts *o, int n, char **args);

#endif
