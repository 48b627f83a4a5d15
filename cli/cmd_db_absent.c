/* storscope db and run --db in a build without SQLite: each says how to
 * have them, and nothing is written. */
#include "cli.h"
#include "db.h"

int cmd_db(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_error("this storscope was built without the results archive: install Debian's "
              "libsqlite3-dev (scripts/deps.sh) and build again");
    return EXIT_USAGE;
}

int db_store_file(const char *value, const char *path, int quiet, const char *probe)
{
    (void)value;
    (void)quiet;
    (void)probe;
    cli_error("%s not archived: this storscope was built without the results archive "
              "(install Debian's libsqlite3-dev and build again)", path);
    return -1;
}

int db_check(const char *value)
{
    (void)value;
    cli_error("--db: this storscope was built without the results archive (install Debian's "
              "libsqlite3-dev and build again)");
    return -1;
}

void *db_open_named(const char *value, int create, const struct db_ops **ops, char *where,
                    size_t where_len)
{
    (void)value;
    (void)create;
    (void)ops;
    (void)where;
    (void)where_len;
    cli_error("--db: this storscope was built without the results archive (install Debian's "
              "libsqlite3-dev and build again)");
    return NULL;
}
