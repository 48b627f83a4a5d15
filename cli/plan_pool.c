/* storscope plan's runs: each an L1 run of this same program, spawned
 * (so `storscope run` with the printed command gives the same figures),
 * several at once, its results file read back for its three writers. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "json_in.h"
#include "plan.h"
#include "storscope/units.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

const char *const plan_writers[3] = {"direct", "mutex", "iotask"};

/* "250ms", "1s", "64K": exact, as `storscope run` reads them back. */
static void fmt_time_arg(char *b, size_t n, uint64_t ns)
{
    if (ns % 1000000000ull == 0)
        snprintf(b, n, "%llus", (unsigned long long)(ns / 1000000000ull));
    else if (ns % 1000000ull == 0)
        snprintf(b, n, "%llums", (unsigned long long)(ns / 1000000ull));
    else if (ns % 1000ull == 0)
        snprintf(b, n, "%lluus", (unsigned long long)(ns / 1000ull));
    else
        snprintf(b, n, "%lluns", (unsigned long long)ns);
}
static void fmt_size_arg(char *b, size_t n, uint64_t v)
{
    if (v >= 1024 && v % 1024 == 0)
        snprintf(b, n, "%lluK", (unsigned long long)(v / 1024));
    else
        snprintf(b, n, "%llu", (unsigned long long)v);
}

/* The `storscope run` that measures a run (its strings point into a). */
void plan_run_argv(const struct plan_opts *o, const struct plan_spec *spec,
                   const struct plan_run *r, uint64_t seed, const struct plan_run_how *how,
                   const char *self, const char *out, struct plan_run_args *a)
{
    static const struct plan_run_how plain = {0, 0, -1};
    how = how ? how : &plain;
    uint64_t duration = how->duration_ns ? how->duration_ns : o->duration_ns;
    fmt_size_arg(a->buf, sizeof(a->buf), r->buffer_bytes);
    fmt_time_arg(a->sync, sizeof(a->sync), r->sync_ns);
    fmt_time_arg(a->dur, sizeof(a->dur), duration);
    snprintf(a->seed, sizeof(a->seed), "%llu", (unsigned long long)seed);
    /* (--db last: the command a person is shown ends before it) */
    snprintf(a->db, sizeof(a->db), "--db=%s", o->db ? o->db : "");
    const char *target = r->target;
    if (how->cut_after) { /* the medium's parameter, before the store's '+' */
        size_t medium = strcspn(r->target, "+");
        snprintf(a->target, sizeof(a->target), "%.*s,cut_after=%llu%s", (int)medium, r->target,
                 (unsigned long long)how->cut_after, r->target + medium);
        target = a->target;
    }
    const char *v[32] = {self, "run", "-q", "-t", target, "--tests", "L1", "--streams",
                         spec->l1_streams, "--buffer", a->buf, "--sync-every", a->sync, "-d",
                         a->dur, "--seed", a->seed};
    size_t i = 17;
    if (how->writer >= 0) {
        v[i++] = "--writer";
        v[i++] = plan_writers[how->writer];
    }
    if (how->duration_ns) {
        /* the most a run that long may write: L1's own room, 128 KiB a
         * second, would refuse a day on most media; the records, and for
         * the I/O task their headers and a padded chunk at each sync */
        double s = (double)duration / 1e9, syncs = (double)duration / (double)r->sync_ns + 1;
        double bytes = s * spec->payload_bps + (1 << 20);
        if (how->writer != 0 && how->writer != 1) /* not direct or mutex alone */
            bytes += s * 4.0 * spec->records_per_s + syncs * 4096;
        fmt_size_arg(a->size, sizeof(a->size), ((uint64_t)bytes + 1023) / 1024 * 1024);
        v[i++] = "--size";
        v[i++] = a->size;
    }
    v[i++] = "-o";
    v[i++] = out;
    if (o->db)
        v[i++] = a->db;
    v[i] = NULL;
    for (i = 0; v[i]; i++)
        a->argv[i] = (char *)(uintptr_t)v[i];
    a->argv[i] = NULL;
}

void plan_argv_text(char *const *argv, char *b, size_t n)
{
    b[0] = '\0';
    for (size_t i = 0; argv[i]; i++) {
        if (i)
            sts_strlcat(b, " ", n);
        int quote = strchr(argv[i], ',') || strchr(argv[i], '+');
        if (quote)
            sts_strlcat(b, "'", n);
        sts_strlcat(b, argv[i], n);
        if (quote)
            sts_strlcat(b, "'", n);
    }
}

void plan_command_text(const struct plan_opts *o, const struct plan_spec *spec,
                       const struct plan_run *r, uint64_t seed, char *b, size_t n)
{
    struct plan_run_args a;
    struct plan_opts shown = *o;
    shown.db = NULL; /* the command measures the run again; where it was archived is not it */
    plan_run_argv(&shown, spec, r, seed, NULL, "storscope", "l1.json", &a);
    plan_argv_text(a.argv, b, n);
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

void plan_read_lost(const struct plan_spec *spec, const cJSON *m, uint64_t *lost)
{
    for (uint32_t i = 0; i < spec->n; i++) {
        char key[sizeof(spec->s[i].name) + 16];
        snprintf(key, sizeof(key), "records_lost_%s", spec->s[i].name);
        lost[i] = sts_d2u64(cli_num(m, key));
    }
}

/* A seed's figures x into a configuration's c: the first as they are, the
 * others as the worst of them. */
static void merge(struct plan_config *c, const struct plan_config *x, uint64_t seed)
{
    if (!c->repeats_done++) {
        uint32_t r = c->repeats_done;
        *c = *x;
        c->repeats_done = r;
        c->seeds_lossless = x->lossless;
        c->worst_seed = seed;
        return;
    }
    c->seeds_lossless += (uint32_t)x->lossless;
    /* (seeds finish in any order: on a tie the smaller seed, so -j does not
     * change which run the plan names) */
    if (x->worst_stall > c->worst_stall || (x->worst_stall == c->worst_stall && seed < c->worst_seed))
        c->worst_seed = seed;
    c->produced = x->produced < c->produced ? x->produced : c->produced;
    c->lost = max_u64(c->lost, x->lost);
    for (uint32_t i = 0; i < PLAN_MAX_STREAMS; i++)
        c->lost_by_stream[i] = max_u64(c->lost_by_stream[i], x->lost_by_stream[i]);
    c->late = max_u64(c->late, x->late);
    c->backlog_peak = max_u64(c->backlog_peak, x->backlog_peak);
    c->worst_stall = max_u64(c->worst_stall, x->worst_stall);
    c->written = max_u64(c->written, x->written);
    c->erased_blocks = max_u64(c->erased_blocks, x->erased_blocks);
    c->device_bytes = max_u64(c->device_bytes, x->device_bytes);
    c->energy_nj = max_u64(c->energy_nj, x->energy_nj);
    c->store_ram = max_u64(c->store_ram, x->store_ram);
    c->ram = max_u64(c->ram, x->ram);
    c->at_risk_bytes = max_u64(c->at_risk_bytes, x->at_risk_bytes);
    c->lossless = c->lossless && x->lossless;
}

/* A point's device commands as a cut counts them (sim's power gate): the
 * points' counts run from the test's start, each since the last. */
static uint64_t cut_commands(const cJSON *dev)
{
    return sts_d2u64(cli_num(dev, "reads") + cli_num(dev, "programs") + cli_num(dev, "erases") +
                     cli_num(dev, "trims") + cli_num(dev, "flushes"));
}

/* A finished run's three writers, from its results file, into c (its
 * seed's figures merged with the seeds' before). */
static int collect(const char *path, const struct plan_spec *spec, const struct plan_run *r,
                   uint64_t seed, struct plan_config *c, char *why, size_t len)
{
    cJSON *doc = cli_load_results(path);
    if (!doc) {
        snprintf(why, len, "its results file could not be read");
        return -1;
    }
    const cJSON *t = cli_test(doc, "L1");
    const cJSON *st = t ? cJSON_GetObjectItemCaseSensitive(t, "status") : NULL;
    if (!cJSON_IsString(st) || strcmp(st->valuestring, "ok")) {
        const cJSON *err = t ? cJSON_GetObjectItemCaseSensitive(t, "error") : NULL;
        snprintf(why, len, "L1 %s: %s", cJSON_IsString(st) ? st->valuestring : "missing",
                 cJSON_IsString(err) ? err->valuestring : "no reason given");
        cJSON_Delete(doc);
        return -1;
    }
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(doc, "environment");
    uint64_t store_ram = sts_d2u64(cli_num(env, "sensorlog_ram_bytes"));
    const cJSON *p;
    int seen = 0;
    uint64_t before = sts_d2u64(cli_num(env, "sim_commands_at_open"));
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(t, "points"))
    {
        const cJSON *params = cJSON_GetObjectItemCaseSensitive(p, "params");
        const cJSON *mode = cJSON_GetObjectItemCaseSensitive(params, "mode");
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(p, "metrics");
        for (int w = 0; w < 3 && cJSON_IsString(mode) && m; w++) {
            if (strcmp(mode->valuestring, plan_writers[w]))
                continue;
            struct plan_config one = {.run = c[w].run, .writer = w}, *x = &one;
            x->produced = sts_d2u64(cli_num(m, "records_produced"));
            x->lost = sts_d2u64(cli_num(m, "records_lost"));
            plan_read_lost(spec, m, x->lost_by_stream);
            x->late = sts_d2u64(cli_num(m, "records_late"));
            x->backlog_peak = sts_d2u64(cli_num(m, "required_buffer_bytes"));
            x->worst_stall = sts_d2u64(cli_num(m, "worst_stall_ns"));
            x->written = sts_d2u64(cli_num(m, "bytes_written"));
            const cJSON *dev = cJSON_GetObjectItemCaseSensitive(p, "device");
            x->erased_blocks = sts_d2u64(cli_num(dev, "blocks_erased"));
            x->commands = cut_commands(dev);
            x->commands_from = before;
            x->at_risk_bytes = sts_d2u64(cli_num(m, "at_risk_peak_bytes"));
            x->device_bytes = sts_d2u64(cli_num(dev, "bytes_written"));
            x->energy_nj = sts_d2u64(cli_num(dev, "energy_nj"));
            x->store_ram = store_ram;
            x->ram = r->buffer_bytes + store_ram;
            x->lossless = x->produced > 0 && !x->lost && !x->late;
            x->done = 1;
            merge(&c[w], x, seed);
            seen |= 1 << w;
        }
        before += cut_commands(cJSON_GetObjectItemCaseSensitive(p, "device"));
    }
    cJSON_Delete(doc);
    if (seen != 7) {
        snprintf(why, len, "L1 gave no point for every writer");
        return -1;
    }
    return 0;
}

static void run_file(const struct plan_pool *p, size_t i, const char *ext, char *b, size_t n)
{
    snprintf(b, n, "%s/%zu.%s", p->dir, i, ext);
}

pid_t plan_spawn(const char *self, char *const *argv, const char *err)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid = -1;
    int rc = posix_spawn(&pid, self, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    return rc ? -1 : pid;
}

int plan_wait(pid_t *pids, size_t *which, size_t *running, int *status, size_t *job)
{
    while (*running) {
        pid_t pid = waitpid(-1, status, 0);
        if (pid < 0 && errno != EINTR)
            return -1;
        if (pid < 0) { /* Ctrl-C: each asked to stop, keeping nothing */
            for (size_t k = 0; k < *running; k++)
                kill(pids[k], SIGINT);
            continue;
        }
        for (size_t k = 0; k < *running; k++)
            if (pids[k] == pid) {
                *job = which[k];
                --*running;
                pids[k] = pids[*running];
                which[k] = which[*running];
                return 0;
            }
    }
    return -1;
}

static pid_t spawn_run(struct plan_pool *p, size_t i)
{
    char out[PLAN_PATH], err[PLAN_PATH];
    run_file(p, i, "json", out, sizeof(out));
    run_file(p, i, "err", err, sizeof(err));
    struct plan_run_args a;
    uint32_t rep = p->o->repeat;
    plan_run_argv(p->o, p->spec, &p->runs[i / rep], p->o->seed + i % rep, NULL, p->self, out,
                  &a);
    return plan_spawn(p->self, a.argv, err);
}

/* The first line the run wrote on stderr, or its exit status. */
static void run_error(const struct plan_pool *p, size_t i, int status, char *b, size_t n)
{
    char err[PLAN_PATH];
    run_file(p, i, "err", err, sizeof(err));
    FILE *f = fopen(err, "re");
    b[0] = '\0';
    if (f) {
        char line[400];
        if (fgets(line, sizeof(line), f)) {
            line[strcspn(line, "\n")] = '\0';
            const char *msg = strncmp(line, "storscope: ", 11) ? line : line + 11;
            snprintf(b, n, "%.200s", msg);
        }
        fclose(f);
    }
    if (!b[0])
        snprintf(b, n, "exit status %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

static void finished(struct plan_pool *p, size_t i, int status)
{
    char out[PLAN_PATH], why[240];
    run_file(p, i, "json", out, sizeof(out));
    int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    uint32_t rep = p->o->repeat;
    if (ok && !collect(out, p->spec, &p->runs[i / rep], p->o->seed + i % rep,
                       &p->cfg[3 * (i / rep)], why, sizeof(why)))
        return;
    if (*p->stop == 1) /* stopped by Ctrl-C: not a failure of the configuration */
        return;
    if (!ok) /* (else collect said why) */
        run_error(p, i, status, why, sizeof(why));
    if (!p->failed++)
        snprintf(p->failed_first, sizeof(p->failed_first), "%s: %s", p->runs[i / rep].target, why);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* On a terminal, one line rewritten after each run; into a log (CI, a
 * pipe), a line at each tenth of the runs. */
static void progress(const struct plan_pool *p, size_t done, double t0)
{
    int tty = isatty(2);
    size_t total = p->n * p->o->repeat;
    if (p->o->shards) /* this shard's */
        total = total / p->o->shards + (p->o->shard - 1 < total % p->o->shards);
    if (p->o->quiet || (!tty && done * 10 / total == (done - 1) * 10 / total))
        return;
    double el = now_s() - t0, eta = done ? el / (double)done * (double)(total - done) : 0;
    fprintf(stderr, "%splan: %zu of %zu runs, %.0f s, about %.0f s left%s", tty ? "\r" : "",
            done, total, el, eta, tty ? "   " : "\n");
    if (tty && done == total)
        fputc('\n', stderr);
}

/* --shard K/N: run i is this process's when i mod N is K - 1 */
static int mine(const struct plan_pool *p, size_t i)
{
    return !p->o->shards || i % p->o->shards == p->o->shard - 1;
}

void plan_pool_collect(struct plan_pool *p)
{
    size_t total = p->n * p->o->repeat;
    for (size_t i = 0; i < total; i++) {
        char out[PLAN_PATH];
        run_file(p, i, "json", out, sizeof(out));
        if (!access(out, R_OK)) {
            finished(p, i, 0); /* exit status 0: its results file is there */
            continue;
        }
        char why[240];
        run_error(p, i, -1, why, sizeof(why));
        if (!strncmp(why, "exit status", 11))
            snprintf(why, sizeof(why), "no results in %.160s (did its shard run?)", p->dir);
        if (!p->failed++)
            snprintf(p->failed_first, sizeof(p->failed_first), "%s: %s",
                     p->runs[i / p->o->repeat].target, why);
    }
}

int plan_pool_run(struct plan_pool *p)
{
    pid_t pids[256];
    size_t which[256], running = 0, next = 0, done = 0;
    /* the first run alone: a medium its parameters make unusable fails it,
     * and the plan stops there instead of failing every run */
    uint32_t jobs = 1;
    double t0 = now_s();
    size_t total = p->n * p->o->repeat;
    while (next < total && !mine(p, next))
        next++;
    while (next < total || running) {
        while (!*p->stop && running < jobs && next < total) {
            pid_t pid = spawn_run(p, next);
            if (pid < 0) {
                if (!p->failed++)
                    snprintf(p->failed_first, sizeof(p->failed_first), "cannot start %.300s: %s",
                             p->self, strerror(errno));
                *p->stop = 2;
                break;
            }
            pids[running] = pid;
            which[running++] = next++;
            while (next < total && !mine(p, next))
                next++;
        }
        int status = 0;
        size_t i;
        if (plan_wait(pids, which, &running, &status, &i)) /* none running, or an error */
            break;
        finished(p, i, status);
        progress(p, ++done, t0);
        if (done == 1 && p->failed) /* the first run failed: so would the rest */
            *p->stop = 2;
        jobs = p->o->jobs;
    }
    if (*p->stop == 1 && !p->o->quiet && isatty(2))
        fputc('\n', stderr);
    return *p->stop == 1 ? -1 : 0;
}

size_t plan_pool_done(const struct plan_pool *p)
{
    size_t k = p->failed;
    for (size_t i = 0; i < p->n; i++)
        k += p->cfg[3 * i].repeats_done;
    return k;
}

void plan_pool_clean(const struct plan_pool *p)
{
    char f[PLAN_PATH];
    for (size_t i = 0; i < p->n * p->o->repeat; i++) {
        run_file(p, i, "json", f, sizeof(f));
        (void)unlink(f);
        run_file(p, i, "json.partial", f, sizeof(f));
        (void)unlink(f);
        run_file(p, i, "err", f, sizeof(f));
        (void)unlink(f);
    }
    (void)rmdir(p->dir);
}
