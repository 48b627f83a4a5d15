/* storscope db's options: one table for its actions (cli_options.h), in
 * every build, so the man page and the completions list them whether or
 * not this build has the archive. */
#define _POSIX_C_SOURCE 200809L
#include "cli_options.h"
#include "db.h"

#include <stdlib.h>
#include <string.h>

static int hex(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

void db_hide_password(char *url)
{
    if (!url || (strncmp(url, "postgresql://", 13) && strncmp(url, "postgres://", 11)))
        return;
    char *auth = strstr(url, "://") + 3, *at = strchr(auth, '@'), *slash = strchr(auth, '/');
    if (!at || (slash && slash < at))
        return;
    char *colon = memchr(auth, ':', (size_t)(at - auth));
    if (!colon)
        return;
    /* the URL's %XX escapes undone: PGPASSWORD is the password itself */
    char *w = colon + 1;
    for (char *r = colon + 1; r < at; r++) {
        if (*r == '%' && r + 2 < at && hex(r[1]) >= 0 && hex(r[2]) >= 0) {
            *w++ = (char)(hex(r[1]) * 16 + hex(r[2]));
            r += 2;
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
    setenv("PGPASSWORD", colon + 1, 1);
    memmove(colon, at, strlen(at) + 1);
}

#define DO(f) CLI_AT(0, struct db_opts, f)
static const struct cli_opt db_opts_table[] = {
    {"db", 0, CLI_TEXT, "ARCHIVE",
     "the archive: sqlite:PATH or a path (default: $XDG_DATA_HOME/storscope/results.db, "
     "~/.local/share/storscope/results.db without it), or a PostgreSQL server's "
     "postgresql://[USER@]HOST[:PORT]/DB",
     DO(db)},
    {"target", 't', CLI_TEXT, "TEXT", "list, trend, export: runs whose target contains TEXT", DO(target)},
    {"card", 0, CLI_TEXT, "TEXT",
     "list, trend, export: runs on a card whose manufacturer, OEM, name or serial contains TEXT",
     DO(card)},
    {"test", 'T', CLI_TEXT, "ID", "list, trend, export: runs that measured this test (B0, fsync...)",
     DO(test)},
    {"since", 0, CLI_TEXT, "DATE",
     "list, trend, export: runs started at or after DATE (2026-12-01, or with a time: "
     "2026-12-01T08:00:00Z)",
     DO(since)},
    {"until", 0, CLI_TEXT, "DATE", "list, trend, export: runs started before DATE", DO(until)},
    {"csv", 0, CLI_FLAG, "", "export: comma-separated values, one row a point (the default)",
     DO(csv)},
    {"json", 0, CLI_FLAG, "", "show: the run's results document, as archived (for report)",
     DO(json)},
    {"output", 'o', CLI_FILE, "FILE",
     "export, show --json: write FILE instead of stdout; trend: also an HTML page with the "
     "figure drawn",
     DO(output)},
    {"format", 0, CLI_WORD, "text|md|html", "compare: the table as text, Markdown or HTML",
     DO(fmt), .hint = "text, md or html"},
    {"threshold", 0, CLI_NUMBER, "PCT", "compare: as compare --threshold", DO(threshold),
     .hint = "a percentage, e.g. 10"},
    {"probe", 0, CLI_FILE, "PROBE.json",
     "import: the runs were made on the card `storscope probe -o PROBE.json` named: they "
     "group by it (a run's own probe's card stays its)",
     DO(probe)},
    {"quiet", 'q', CLI_FLAG, "", "import: print nothing but errors", DO(quiet)},
};

const struct cli_command cli_db_command = {
    "db",
    "usage: storscope db import FILE...        archive results files\n"
    "       storscope db list [filters]        the archived runs\n"
    "       storscope db show ID [--json]      one run: its points, or its document\n"
    "       storscope db compare ID ID...      compare's table over archived runs\n"
    "       storscope db trend FIGURE [filters] compare's figure, run by run\n"
    "       storscope db export [--csv] [filters] [-o FILE]\n"
    "\n"
    "The results archive: every run kept in one database (SQLite), grouped by\n"
    "target and by the card a probe named. `storscope run --db` archives a run\n"
    "as it finishes. Each run is stored in one transaction: a killed import\n"
    "leaves it whole or absent; a file archived twice is one run. Several runs\n"
    "and readers may use the archive at once.\n"
    "\n",
    db_opts_table, sizeof(db_opts_table) / sizeof(db_opts_table[0]), NULL};

