/* A simulator profile fitted to measurements (issue 47, "calibrated from a
 * real card"). The model is fitted by running it: a first guess from the
 * figures by least squares (a read or write costs a command plus its
 * sector-rounded bytes over the bus; a long write waits for pages to be
 * programmed), then a pattern search that runs the model on the results'
 * tests at the results' scale, each fitted parameter up and down by a
 * factor, and keeps the best while the points' error falls (the factor
 * shrinks from 2x to 1.5 %). What the runs measure decides what is fitted:
 * B2 the read and write command and bus costs and the page program time
 * (long writes), M1 the cost of a read that does not continue the one
 * before, a point of B2's writes slower than both neighbours a size the
 * medium handles badly (dip); the rest stays the base profile's. */
#define _POSIX_C_SOURCE 200809L
#include "fit.h"
#include "cli.h"
#include "json_in.h"
#include "storscope/analysis.h"
#include "storscope/sim.h"
#include "storscope/units.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

enum { P_CMD_READ, P_READ_BW, P_READ_ACCESS, P_CMD_WRITE, P_WRITE_BW, P_PAGE_PROG, P_DIP_BYTES,
       P_DIP_PERCENT };

static const char *const fit_keys[FIT_N_PARAMS] = {"cmd_read",  "read_bw",   "read_access",
                                                   "cmd_write", "write_bw",  "page_prog",
                                                   "dip_bytes", "dip_percent"};

/* ---- the model, run --------------------------------------------------- */
static void model_spec(const struct fit_data *d, const struct fit_out *o, const double *x,
                       char *spec, size_t n)
{
    snprintf(spec, n, "sim:%s", d->base);
    char v[64];
    if (d->capacity[0]) {
        snprintf(v, sizeof(v), ",capacity=%s", d->capacity);
        sts_strlcat(spec, v, n);
    }
    sts_strlcat(spec, d->probe_opts, n);
    for (size_t i = 0; i < o->n; i++) {
        if (!o->p[i].fitted)
            continue;
        double val = x[i] < 0 ? 0 : x[i];
        snprintf(v, sizeof(v), ",%s=%.0f%s", o->p[i].key, val, o->p[i].is_time ? "ns" : "");
        sts_strlcat(spec, v, n);
    }
}

struct batch {
    const char *self, *dir;
    const struct fit_data *d;
    unsigned jobs;
    const char *tests; /* what the model runs: the search leaves B0 out (its sector
                          read-modify-writes are the base's, and it is the slowest) */
};

/* the groups of points a parameter moves: reads (B2's, M1) depend on the
 * read parameters only, writes on the write ones, so one model run judges a
 * move of each */
enum { G_ALL, G_READ, G_WRITE, N_GROUPS };

static pid_t spawn_one(const struct batch *b, const char *spec, size_t i)
{
    char out[1024]; /* (the scratch directory is at most 511 bytes) */
    snprintf(out, sizeof(out), "%s/%zu.json", b->dir, i);
    char *argv[] = {(char *)b->self, "run",   "-q",        "-t", (char *)spec, "--tests",
                    (char *)b->tests, "--scale", (char *)b->d->scale, "--seed", "1",
                    "-o",      out,     NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid = -1;
    int rc = posix_spawn(&pid, b->self, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    return rc ? -1 : pid;
}

/* The model's figure at each measured point (0 where it has none), from
 * run i's results: 0, or -1 when the run left none. */
static int model_points(const struct batch *b, size_t i, double *bps)
{
    char out[1024]; /* (the scratch directory is at most 511 bytes) */
    snprintf(out, sizeof(out), "%s/%zu.json", b->dir, i);
    FILE *f = fopen(out, "re");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = len > 0 ? malloc((size_t)len + 1) : NULL;
    size_t got = text ? fread(text, 1, (size_t)len, f) : 0;
    fclose(f);
    remove(out);
    if (!text)
        return -1;
    text[got] = '\0';
    cJSON *doc = cJSON_Parse(text);
    free(text);
    if (!doc)
        return -1;
    const struct fit_data *d = b->d;
    for (size_t k = 0; k < d->n; k++) {
        bps[k] = 0;
        const cJSON *t = cli_test(doc, d->pt[k].test), *p;
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(t, "points"))
        {
            const cJSON *name = cJSON_GetObjectItemCaseSensitive(p, "name");
            if (cJSON_IsString(name) && !strcmp(name->valuestring, d->pt[k].op) &&
                cli_num(cJSON_GetObjectItemCaseSensitive(p, "params"), "chunk_bytes") ==
                    d->pt[k].chunk) {
                bps[k] = cli_num(cJSON_GetObjectItemCaseSensitive(p, "runs"), "mean");
                break;
            }
        }
    }
    cJSON_Delete(doc);
    return 0;
}

/* root mean square of ln(model / measured) over the points of group g
 * that the batch's tests measure: a point the model has no figure for
 * counts as a factor of e^3 off */
static double error_of(const struct batch *b, const double *bps, int g)
{
    const struct fit_data *d = b->d;
    double sum = 0;
    unsigned m = 0;
    for (size_t k = 0; k < d->n; k++) {
        int write = !strcmp(d->pt[k].op, "write");
        if (!strstr(b->tests, d->pt[k].test) || (g == G_READ && write) || (g == G_WRITE && !write))
            continue;
        double e = bps[k] > 0 ? log(bps[k] / d->pt[k].bps) : 3.0;
        sum += e * e;
        m++;
    }
    return m ? sqrt(sum / m) : 0;
}

/* Runs the model at each of the k specs, `jobs` at once: each one's error
 * by group into errs (and its figures into bps_first for spec 0 when
 * asked): 0, or -1 when a run failed or was stopped (why in err). */
static int run_batch(const struct batch *b, char (*specs)[1024], size_t k,
                     double (*errs)[N_GROUPS], double *bps_first, char *err, size_t n)
{
    pid_t pids[64];
    size_t next = 0, running = 0;
    int failed = 0;
    double *bps = malloc(sizeof(double) * (b->d->n ? b->d->n : 1));
    if (!bps) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    while ((next < k && !failed) || running) {
        while (next < k && running < b->jobs && running < 64 && !failed) {
            pid_t pid = spawn_one(b, specs[next], next);
            if (pid < 0) {
                snprintf(err, n, "cannot run the model: %s", strerror(errno));
                failed = 1;
                break;
            }
            pids[running++] = pid;
            next++;
        }
        if (!running)
            break;
        int status;
        pid_t done = waitpid(-1, &status, 0);
        if (done < 0 && errno == EINTR) /* Ctrl-C: the runs still going end (130) first */
            continue;
        if (done < 0)
            break;
        for (size_t j = 0; j < running; j++)
            if (pids[j] == done) {
                pids[j] = pids[--running];
                break;
            }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            if (!failed)
                snprintf(err, n, "the model did not run (exit status %d)",
                         WIFEXITED(status) ? WEXITSTATUS(status) : -1);
            failed = 1;
        }
    }
    for (size_t i = 0; i < k && !failed; i++) {
        if (model_points(b, i, bps)) {
            snprintf(err, n, "the model's run %zu left no results", i);
            failed = 1;
            break;
        }
        for (int g = 0; g < N_GROUPS; g++)
            errs[i][g] = error_of(b, bps, g);
        if (i == 0 && bps_first)
            memcpy(bps_first, bps, sizeof(double) * b->d->n);
    }
    for (size_t i = 0; i < k; i++) { /* what a failed or stopped batch left */
        char out[1024]; /* (the scratch directory is at most 511 bytes) */
        snprintf(out, sizeof(out), "%s/%zu.json", b->dir, i);
        remove(out);
        sts_strlcat(out, ".partial", sizeof(out));
        remove(out);
    }
    free(bps);
    return failed ? -1 : 0;
}

/* ---- the first guess ---------------------------------------------------- */
/* Least squares of a command's time t = a + b x over the points of one
 * operation with chunk in [lo, hi], x the sector-rounded bytes: 0, or -1
 * when fewer than 3 points or no positive slope. */
static int line_fit(const struct fit_data *d, const char *test, const char *op, double lo,
                    double hi, double sector, double *a, double *b)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    unsigned m = 0;
    for (size_t k = 0; k < d->n; k++) {
        const struct fit_point *p = &d->pt[k];
        if (strcmp(p->test, test) || strcmp(p->op, op) || p->chunk < lo || p->chunk > hi)
            continue;
        double x = ceil(p->chunk / sector) * sector, y = p->chunk / p->bps;
        sx += x, sy += y, sxx += x * x, sxy += x * y, m++;
    }
    double den = m * sxx - sx * sx;
    if (m < 3 || !(den > 0))
        return -1;
    *b = (m * sxy - sx * sy) / den;
    *a = (sy - *b * sx) / m;
    return *b > 0 ? 0 : -1;
}

static double point_bps(const struct fit_data *d, const char *test, const char *op, double chunk)
{
    for (size_t k = 0; k < d->n; k++)
        if (!strcmp(d->pt[k].test, test) && !strcmp(d->pt[k].op, op) && d->pt[k].chunk == chunk)
            return d->pt[k].bps;
    return 0;
}

static void first_guess(const struct fit_data *d, const struct sts_sim_params *b,
                        struct fit_out *o, double *x)
{
    static const int is_time[FIT_N_PARAMS] = {1, 0, 1, 1, 0, 1, 0, 0};
    const double base[FIT_N_PARAMS] = {
        b->cmd_read_ns, (double)b->read_bw, b->read_access_ns, b->cmd_write_ns,
        (double)b->write_bw, b->page_prog_ns, b->dip_bytes, b->dip_percent};
    o->n = FIT_N_PARAMS;
    for (int i = 0; i < FIT_N_PARAMS; i++)
        o->p[i] = (struct fit_param){fit_keys[i], is_time[i], base[i], base[i], 0, NULL};
    double sector = b->sector_bytes, a, s;
    if (!line_fit(d, "B2", "read", sector, 1e18, sector, &a, &s)) {
        o->p[P_CMD_READ].value = a * 1e9 > 1e3 ? a * 1e9 : 1e3; /* (a in s, at least 1 us) */
        o->p[P_READ_BW].value = 1.0 / s;
    }
    o->p[P_CMD_READ].fitted = o->p[P_READ_BW].fitted = 1;
    o->p[P_CMD_READ].from = "B2 reads: each read's fixed cost";
    o->p[P_READ_BW].from = "B2 reads: bytes over time";
        if (!line_fit(d, "B2", "write", sector, 1e18, sector, &a, &s)) {
        /* per byte: the bus, then the page's program time spread over it */
        double bus = s - b->page_prog_ns * 1e-9 / b->page_bytes;
        if (bus > 0)
            o->p[P_WRITE_BW].value = 1.0 / bus;
        o->p[P_CMD_WRITE].value = a * 1e9 > 1e3 ? a * 1e9 : 1e3;
    }
    o->p[P_CMD_WRITE].fitted = o->p[P_WRITE_BW].fitted = 1;
    o->p[P_CMD_WRITE].from = "B2 writes: each write's fixed cost (less the base's flush, "
                             "which B2's pass ends with)";
    o->p[P_WRITE_BW].from = "B2 writes: bytes over time, with the base's page program time";
    /* a pass of B2 ends with a flush, so every page it wrote is programmed
     * inside its time: the bus and the programming add up, and only their
     * sum per byte is measured; the programming stays the base's */
    o->p[P_PAGE_PROG].from = "B2 measures it only together with write_bw, as their cost per "
                             "byte";
    /* M1: a random read's extra over a sequential one of the same size */
    double rand_c = 0, rand_bps = 0, seq_bps = 0;
    for (size_t k = 0; k < d->n; k++) {
        const struct fit_point *p = &d->pt[k];
        double seq = point_bps(d, "B0", "read", p->chunk);
        seq = seq > 0 ? seq : point_bps(d, "B2", "read", p->chunk);
        if (!strcmp(p->test, "M1") && seq > 0 && p->chunk > rand_c)
            rand_c = p->chunk, rand_bps = p->bps, seq_bps = seq;
    }
    if (rand_c > 0) {
        double extra = rand_c / rand_bps - rand_c / seq_bps;
        o->p[P_READ_ACCESS].value = extra > 1e-6 ? extra * 1e9 : 1e3;
        o->p[P_READ_ACCESS].fitted = 1;
        o->p[P_READ_ACCESS].from = "M1 against sequential reads of the same size";
    } else {
        o->p[P_READ_ACCESS].from = "the results have no M1";
    }
    /* a dip only where a point shows one (fit_run): none to start with,
     * whatever the base has */
    o->p[P_DIP_BYTES].value = o->p[P_DIP_PERCENT].value = 0;
    o->p[P_DIP_BYTES].fitted = o->p[P_DIP_PERCENT].fitted = 1;
    o->p[P_DIP_BYTES].from = o->p[P_DIP_PERCENT].from =
        "B2: no write slower than both neighbours and the model by 20 %: none";
    for (int i = 0; i < FIT_N_PARAMS; i++)
        x[i] = o->p[i].value;
}

/* ---- the search --------------------------------------------------------- */
/* The directions a group of g parameters moves in: each alone, and each
 * pair together and against each other (a longer write bus and a shorter
 * page program can give the same figures: the valley runs diagonally),
 * as +-1 per parameter; their count. */
static size_t directions(const int *members, size_t g, signed char (*dir)[FIT_N_PARAMS])
{
    size_t n = 0;
    for (size_t i = 0; i < g; i++)
        for (int s = -1; s <= 1; s += 2) {
            memset(dir[n], 0, FIT_N_PARAMS);
            dir[n++][members[i]] = (signed char)s;
        }
    for (size_t i = 0; i < g; i++)
        for (size_t j = i + 1; j < g; j++)
            for (int s = 0; s < 4; s++) {
                memset(dir[n], 0, FIT_N_PARAMS);
                dir[n][members[i]] = (signed char)(s & 1 ? -1 : 1);
                dir[n++][members[j]] = (signed char)(s & 2 ? -1 : 1);
            }
    return n;
}

#define FIT_MAX_DIRS (2 * FIT_N_PARAMS + 2 * FIT_N_PARAMS * FIT_N_PARAMS)

/* The pattern search over the parameters `move` marks (multiplicative
 * steps, the factor shrinking from 2x to 1.5 %): the reads' and the
 * writes' moves ride the same model runs, each group judged on its own
 * points; x is left at the best, best[] its errors. */
static int search(const struct batch *b, struct fit_out *o, const int *move, double *x,
                  double *best, void (*progress)(unsigned, double), char *err, size_t n)
{
    static const double steps[] = {2.0, 1.4, 1.15, 1.05, 1.015};
    static signed char dirs[2][FIT_MAX_DIRS][FIT_N_PARAMS];
    static char specs[FIT_MAX_DIRS][1024];
    static double errs[FIT_MAX_DIRS][N_GROUPS], cand[FIT_MAX_DIRS][FIT_N_PARAMS];
    int members[2][FIT_N_PARAMS];
    size_t g[2] = {0, 0}, nd[2];
    for (int i = 0; i < FIT_N_PARAMS; i++)
        if (move[i]) {
            int w = i >= P_CMD_WRITE; /* (the write parameters follow the read ones) */
            members[w][g[w]++] = i;
        }
    for (int w = 0; w < 2; w++)
        nd[w] = directions(members[w], g[w], dirs[w]);
    size_t k = nd[0] > nd[1] ? nd[0] : nd[1];
    for (size_t si = 0; si < sizeof(steps) / sizeof(steps[0]); si++) {
        double f = log(steps[si]);
        for (int round = 0; round < 12; round++) {
            for (size_t c = 0; c < k; c++) {
                memcpy(cand[c], x, sizeof(cand[c]));
                for (int w = 0; w < 2; w++)
                    for (int i = 0; c < nd[w] && i < FIT_N_PARAMS; i++)
                        if (dirs[w][c][i])
                            cand[c][i] = x[i] * exp(f * dirs[w][c][i]);
                for (int i = 0; i < FIT_N_PARAMS; i++)
                    cand[c][i] = cand[c][i] < 1 ? 1 : cand[c][i] > 1e12 ? 1e12 : cand[c][i];
                if (cand[c][P_DIP_PERCENT] > 1000)
                    cand[c][P_DIP_PERCENT] = 1000;
                model_spec(b->d, o, cand[c], specs[c], sizeof(specs[c]));
            }
            if (run_batch(b, specs, k, errs, NULL, err, n))
                return -1;
            o->evaluations += (unsigned)k;
            int moved = 0;
            for (int w = 0; w < 2; w++) {
                int grp = w ? G_WRITE : G_READ;
                size_t bi = k;
                for (size_t c = 0; c < nd[w]; c++)
                    if (errs[c][grp] < best[grp] * (1 - 1e-9) &&
                        (bi == k || errs[c][grp] < errs[bi][grp]))
                        bi = c;
                if (bi == k)
                    continue;
                for (int i = 0; i < FIT_N_PARAMS; i++)
                    if (dirs[w][bi][i])
                        x[i] = cand[bi][i];
                best[grp] = errs[bi][grp];
                moved = 1;
            }
            if (progress)
                progress(o->evaluations, 100 * (exp(sqrt((best[G_READ] * best[G_READ] +
                                                          best[G_WRITE] * best[G_WRITE]) / 2)) -
                                                 1));
            if (!moved)
                break;
        }
    }
    return 0;
}

/* A B2 write slower than the model and than both neighbours by 20 %: the
 * dip's size and percent into x (1), or 0 when there is none. */
static int find_dip(const struct fit_data *d, const double *model, double *x)
{
    int found = 0;
    double worst = 0;
    for (size_t k = 0; k < d->n; k++) {
        const struct fit_point *p = &d->pt[k];
        if (strcmp(p->test, "B2") || strcmp(p->op, "write") || !(model[k] > 0))
            continue;
        double lo = point_bps(d, "B2", "write", p->chunk / 2),
               hi = point_bps(d, "B2", "write", p->chunk * 2), slow = model[k] / p->bps;
        if (lo > 0 && hi > 0 && p->bps < 0.8 * lo && p->bps < 0.8 * hi && slow > 1.2 &&
            slow > worst) {
            worst = slow;
            x[P_DIP_BYTES] = p->chunk;
            x[P_DIP_PERCENT] = (slow - 1) * 100;
            found = 1;
        }
    }
    return found;
}

int fit_run(const char *self, struct fit_data *d, unsigned jobs, struct fit_out *o,
            void (*progress)(unsigned, double), char *err, size_t n)
{
    memset(o, 0, sizeof(*o));
    const struct sts_sim_params *bp = sts_sim_profile_find(d->base);
    const char *tmp = getenv("TMPDIR");
    char dir[512], search_tests[16];
    snprintf(dir, sizeof(dir), "%s/storscope-fit.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        snprintf(err, n, "cannot make a scratch directory in %s: %s", tmp && *tmp ? tmp : "/tmp",
                 strerror(errno));
        return -1;
    }
    snprintf(search_tests, sizeof(search_tests), "B2%s", strstr(d->tests, "M1") ? ",M1" : "");
    struct batch b = {self, dir, d, jobs ? jobs : 1, search_tests};
    struct batch all = b;
    all.tests = d->tests;
    double x[FIT_N_PARAMS], best[N_GROUPS], errs[1][N_GROUPS], *model = malloc(sizeof(double) * d->n);
    static char spec[1][1024];
    int move[FIT_N_PARAMS], rc = model ? 0 : -1;
    if (rc)
        snprintf(err, n, "out of memory");
    first_guess(d, bp, o, x);
    for (int i = 0; i < FIT_N_PARAMS; i++)
        move[i] = o->p[i].fitted && i != P_DIP_BYTES && i != P_DIP_PERCENT;
    /* the search from the first guess, then the model's figures */
    for (int pass = 0; pass < 2 && !rc; pass++) {
        model_spec(d, o, x, spec[0], sizeof(spec[0]));
        rc = run_batch(&b, spec, 1, errs, NULL, err, n);
        memcpy(best, errs[0], sizeof(best));
        o->evaluations++;
        if (!rc)
            rc = search(&b, o, move, x, best, progress, err, n);
        if (!rc) {
            model_spec(d, o, x, spec[0], sizeof(spec[0]));
            rc = run_batch(&all, spec, 1, errs, model, err, n);
            o->evaluations++;
        }
        /* a point the model cannot make slow enough, slower than both its
         * neighbours: a dip, and the search again with it */
        if (rc || pass || !find_dip(d, model, x))
            break;
        move[P_DIP_PERCENT] = 1;
        o->p[P_DIP_BYTES].from = o->p[P_DIP_PERCENT].from =
            "B2: a write slower than both neighbours by 20 % and than the model";
    }
    if (!rc) {
        for (size_t i = 0; i < o->n; i++)
            o->p[i].value = x[i];
        for (size_t k = 0; k < d->n; k++)
            d->pt[k].model_bps = model[k];
        o->rms_pct = 100 * (exp(errs[0][G_ALL]) - 1);
        model_spec(d, o, x, o->spec, sizeof(o->spec));
    }
    free(model);
    rmdir(dir);
    return rc;
}
