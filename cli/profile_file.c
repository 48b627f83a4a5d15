/* A simulator profile kept in a file (what `storscope fit -o` writes):
 * `sim:@card.profile[,OPTION=VALUE...][+FS...]` is read here, before the
 * target is parsed, into `sim:BASE,KEY=VALUE,...` - so the simulator never
 * reads files, and a results file names the parameters it ran with.
 *
 * The file: `#` comments, blank lines, `base=PROFILE` (a built-in profile:
 * what the file does not set), then `KEY=VALUE` lines of the profile's
 * parameters (docs/device-models.md), the same text the target takes. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "storscope/error.h"
#include "storscope/sim.h"
#include "storscope/units.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

/* 1 when `s` is a KEY or a VALUE the target string can carry as one
 * option: no separators of the target syntax, no spaces */
static int plain(const char *s, int key)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (key ? !(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_')
                : (*s == ',' || *s == '+' || *s == '=' || isspace((unsigned char)*s)))
            return 0;
    return 1;
}

/* The options the file sets, as ",KEY=VALUE..." into opts, and its base
 * profile: 0, or -1 with why in err. */
static int read_profile(const char *path, char *base, size_t base_n, char *opts, size_t opts_n,
                        char *err, size_t errlen)
{
    FILE *f = fopen(path, "re");
    if (!f) {
        snprintf(err, errlen, "cannot read the profile %s: %s", path, strerror(errno));
        return -1;
    }
    char line[512];
    unsigned no = 0;
    int rc = 0, prc;
    /* each parameter is set on a copy of a profile, so a key or value the
     * simulator would refuse is named here with its file and line */
    struct sts_sim_params scratch = sts_sim_profiles[0];
    base[0] = opts[0] = '\0';
    while (!rc && fgets(line, sizeof(line), f)) {
        no++;
        size_t len = strcspn(line, "\r\n");
        if (line[len] == '\0' && !feof(f)) {
            snprintf(err, errlen, "%s:%u: a line longer than %zu bytes", path, no,
                     sizeof(line) - 2);
            rc = -1;
            break;
        }
        line[len] = '\0';
        char *s = line + strspn(line, " \t");
        if (!*s || *s == '#')
            continue;
        char *eq = strchr(s, '=');
        if (eq)
            *eq = '\0';
        const char *value = eq ? eq + 1 : "";
        if (!eq || !plain(s, 1) || !plain(value, 0)) {
            snprintf(err, errlen, "%s:%u: expected KEY=VALUE (a profile parameter, e.g. "
                                  "cmd_read=155us), or base=PROFILE", path, no);
            rc = -1;
        } else if (!strcmp(s, "base")) {
            if (!sts_sim_profile_find(value)) {
                snprintf(err, errlen, "%s:%u: no profile '%s' (storscope list devices)", path,
                         no, value);
                rc = -1;
            }
            sts_strlcpy(base, value, base_n);
        } else if ((prc = sts_sim_param_set(&scratch, s, value)) != STS_OK) {
            if (prc == STS_ENOENT)
                snprintf(err, errlen, "%s:%u: no profile parameter '%s' "
                                      "(docs/device-models.md)", path, no, s);
            else
                snprintf(err, errlen, "%s:%u: bad value '%s' for '%s'", path, no, value, s);
            rc = -1;
        } else if (strlen(opts) + strlen(s) + strlen(value) + 3 > opts_n) {
            snprintf(err, errlen, "%s:%u: more parameters than a target can carry", path, no);
            rc = -1;
        } else {
            sts_strlcat(opts, ",", opts_n);
            sts_strlcat(opts, s, opts_n);
            sts_strlcat(opts, "=", opts_n);
            sts_strlcat(opts, value, opts_n);
        }
    }
    if (!rc && ferror(f)) {
        snprintf(err, errlen, "cannot read the profile %s: %s", path, strerror(errno));
        rc = -1;
    }
    fclose(f);
    if (!rc && !base[0]) {
        snprintf(err, errlen, "%s: no base=PROFILE line (the built-in profile it changes)", path);
        rc = -1;
    }
    return rc;
}

int cli_profile_expand(const char *spec, char *out, size_t n, char *err, size_t errlen)
{
    if (strncmp(spec, "sim:@", 5)) {
        if (strlen(spec) >= n) {
            snprintf(err, errlen, "a target of more than %zu bytes", n - 1);
            return -1;
        }
        sts_strlcpy(out, spec, n);
        return 0;
    }
    /* the path ends where the target's own syntax goes on */
    const char *path0 = spec + 5;
    size_t plen = strcspn(path0, ",+");
    char path[1024], base[64], opts[1024];
    if (!plen || plen >= sizeof(path)) {
        snprintf(err, errlen, "sim:@ takes a profile file's path (storscope fit -o FILE)");
        return -1;
    }
    memcpy(path, path0, plen);
    path[plen] = '\0';
    if (read_profile(path, base, sizeof(base), opts, sizeof(opts), err, errlen))
        return -1;
    int w = snprintf(out, n, "sim:%s%s%s", base, opts, path0 + plen);
    if (w < 0 || (size_t)w >= n) {
        snprintf(err, errlen, "%s: the target it makes is longer than %zu bytes", path, n - 1);
        return -1;
    }
    return 0;
}
