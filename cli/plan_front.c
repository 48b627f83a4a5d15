/* storscope plan's checks of its front (issue 47), made on the
 * configurations worth weighing only: each runs alone for --confirm-for (a
 * simulated day by default) - a stall rarer than the sweep's hour shows
 * there, and the hour the losses gather in - and its sweep run is run again
 * with the power cut at --power-cuts points inside its writer's run. Every
 * byte a sync covered must come back once the store mounts again (the
 * run's after-cut check), and what the logger held unsynced at the cut
 * must be within the configuration's at-risk figure. The runs are virtual
 * time, so a cut run is the plan's own run up to the cut. Bare extents'
 * cuts cannot be checked: no store mounts after a cut to say what it kept. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "json_in.h"
#include "plan.h"
#include "storscope/output.h"
#include "storscope/units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int checkable(const struct plan_config *c)
{
    return strstr(c->run->target, "+sensorlog") != NULL;
}

/* The k-th of n cuts: evenly inside the writer's run, never at its edges. */
static uint64_t cut_point(const struct plan_config *c, uint32_t k, uint32_t n)
{
    return c->commands_from + c->commands * (k + 1) / (n + 1);
}

#define DAY_JOB UINT32_MAX /* a job's k: the longer run, not a cut */

static void job_file(const struct plan_pool *p, const struct plan_config *c, uint32_t k,
                     const char *ext, char *b, size_t n)
{
    size_t run = (size_t)(c->run - p->runs);
    if (k == DAY_JOB)
        snprintf(b, n, "%s/day-%zu-%d.%s", p->dir, run, c->writer, ext);
    else
        snprintf(b, n, "%s/cut-%zu-%d-%u.%s", p->dir, run, c->writer, k, ext);
}

static struct plan_run_how how_of(const struct plan_opts *o, const struct plan_config *c,
                                  uint32_t k)
{
    if (k == DAY_JOB)
        return (struct plan_run_how){0, o->confirm_ns, c->writer};
    return (struct plan_run_how){c->cuts[k].after_commands, 0, -1};
}

static void command(const struct plan_opts *o, const struct plan_spec *spec,
                    const struct plan_config *c, uint32_t k, char *b, size_t n)
{
    struct plan_run_args a;
    struct plan_opts shown = *o;
    shown.db = NULL;
    struct plan_run_how how = how_of(o, c, k);
    plan_run_argv(&shown, spec, c->run, c->worst_seed, &how, "storscope",
                  k == DAY_JOB ? "day.json" : "cut.json", &a);
    plan_argv_text(a.argv, b, n);
}

void plan_cut_command(const struct plan_opts *o, const struct plan_spec *spec,
                      const struct plan_config *c, uint32_t k, char *b, size_t n)
{
    command(o, spec, c, k, b, n);
}

void plan_day_command(const struct plan_opts *o, const struct plan_spec *spec,
                      const struct plan_config *c, char *b, size_t n)
{
    command(o, spec, c, DAY_JOB, b, n);
}

/* A point of L1 named `name` for c's writer, or NULL. */
static const cJSON *writer_point(const cJSON *doc, const struct plan_config *c, const char *name)
{
    const cJSON *t = cli_test(doc, "L1");
    const cJSON *points = t ? cJSON_GetObjectItemCaseSensitive(t, "points") : NULL;
    const cJSON *pt;
    cJSON_ArrayForEach(pt, points)
    {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(pt, "name");
        const cJSON *params = cJSON_GetObjectItemCaseSensitive(pt, "params");
        const cJSON *mode = cJSON_GetObjectItemCaseSensitive(params, "mode");
        if (cJSON_IsString(n) && !strcmp(n->valuestring, name) && cJSON_IsString(mode) &&
            !strcmp(mode->valuestring, plan_writers[c->writer]))
            return pt;
    }
    return NULL;
}

/* A cut run read back: what L1 had when its storage failed in this
 * configuration's writer, and what the store kept. cut stays 0 when the
 * run has no such failure (the cut came in another writer's run, or never). */
static void read_cut(const cJSON *doc, const struct plan_config *c, struct plan_cut *cut)
{
    const cJSON *kept = cJSON_GetObjectItemCaseSensitive(doc, "power_cut");
    const cJSON *pt = writer_point(doc, c, "at_failure");
    const cJSON *m = pt ? cJSON_GetObjectItemCaseSensitive(pt, "metrics") : NULL;
    if (!kept || !m)
        return;
    cut->cut = 1;
    cut->synced_kept = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(kept, "synced_data_kept"));
    cut->at_ns = sts_d2u64(cli_num(m, "failed_at_ns"));
    cut->kept_bytes = sts_d2u64(cli_num(m, "kept_bytes"));
    cut->durable_bytes = sts_d2u64(cli_num(m, "durable_bytes"));
    cut->at_risk_bytes = sts_d2u64(cli_num(m, "at_risk_bytes"));
}

/* The longer run read back: 1 lossless, -1 records lost or late, -3 it
 * did not finish. */
static int read_day(const struct plan_spec *spec, const cJSON *doc, struct plan_config *c)
{
    const cJSON *pt = writer_point(doc, c, "sustained");
    const cJSON *m = pt ? cJSON_GetObjectItemCaseSensitive(pt, "metrics") : NULL;
    if (!m)
        return -3;
    struct plan_day *d = &c->day;
    const struct {
        const char *key;
        uint64_t *to;
    } fields[] = {{"records_produced", &d->produced},     {"records_lost", &d->lost},
                  {"records_late", &d->late},             {"worst_stall_ns", &d->worst_stall},
                  {"worst_hour_index", &d->hour},         {"worst_hour_records_lost", &d->hour_lost},
                  {"worst_hour_stall_ns", &d->hour_stall}};
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
        *fields[i].to = sts_d2u64(cli_num(m, fields[i].key));
    plan_read_lost(spec, m, d->lost_by_stream);
    return d->produced && !d->lost && !d->late ? 1 : -1;
}

/* 1: every cut that landed kept what was synced and took no more than the
 * figure; -1: one did not; -3: none landed in the writer's run. */
static int judge_cuts(const struct plan_config *c)
{
    uint32_t met = 0;
    int held = 1;
    for (uint32_t k = 0; k < c->n_cuts; k++) {
        const struct plan_cut *cut = &c->cuts[k];
        if (!cut->cut)
            continue;
        met++;
        if (!cut->synced_kept || cut->at_risk_bytes > c->at_risk_bytes)
            held = 0;
    }
    return !met ? -3 : held ? 1 : -1;
}

struct front_job {
    struct plan_config *c;
    uint32_t k; /* a cut, or DAY_JOB */
};

static pid_t spawn_job(struct plan_pool *p, const struct front_job *j)
{
    char out[PLAN_PATH], err[PLAN_PATH];
    job_file(p, j->c, j->k, "json", out, sizeof(out));
    job_file(p, j->c, j->k, "err", err, sizeof(err));
    struct plan_run_args a;
    struct plan_opts o = *p->o;
    o.db = NULL; /* never archived: not the configuration's sweep figures */
    struct plan_run_how how = how_of(p->o, j->c, j->k);
    plan_run_argv(&o, p->spec, j->c->run, j->c->worst_seed, &how, p->self, out, &a);
    return plan_spawn(p->self, a.argv, err);
}

static void finish_job(struct plan_pool *p, const struct front_job *j)
{
    char out[PLAN_PATH];
    job_file(p, j->c, j->k, "json", out, sizeof(out));
    /* (a run that failed before it began wrote none: its stderr says why) */
    cJSON *doc = *p->stop == 1 || access(out, R_OK) ? NULL : cli_load_results(out);
    if (j->k == DAY_JOB)
        j->c->day_checked = doc ? read_day(p->spec, doc, j->c) : -3;
    if (j->k == DAY_JOB && j->c->day_checked == -3) {
        char err[PLAN_PATH];
        job_file(p, j->c, j->k, "err", err, sizeof(err));
        FILE *f = fopen(err, "re");
        char line[200] = "";
        if (!f || !fgets(line, sizeof(line), f))
            snprintf(line, sizeof(line), "it said nothing");
        if (f)
            fclose(f);
        line[strcspn(line, "\n")] = '\0';
        snprintf(j->c->day.why, sizeof(j->c->day.why), "%.150s",
                 strncmp(line, "storscope: ", 11) ? line : line + 11);
    }
    else if (doc)
        read_cut(doc, j->c, &j->c->cuts[j->k]);
    cJSON_Delete(doc);
}

/* Runs the jobs, o->jobs at once; -1 when Ctrl-C stopped them. */
static int run_jobs(struct plan_pool *p, struct front_job *jobs, size_t n)
{
    pid_t pids[256];
    size_t which[256], running = 0, next = 0;
    uint32_t at_once = p->o->jobs ? p->o->jobs : 1;
    while (next < n || running) {
        while (!*p->stop && running < at_once && running < 256 && next < n) {
            pid_t pid = spawn_job(p, &jobs[next]);
            if (pid < 0) { /* not run: a cut stays unmet, a longer run failed */
                if (jobs[next].k == DAY_JOB)
                    jobs[next].c->day_checked = -3;
                next++;
                continue;
            }
            pids[running] = pid;
            which[running++] = next++;
        }
        int status = 0;
        size_t i;
        if (plan_wait(pids, which, &running, &status, &i)) /* none running, or an error */
            break;
        finish_job(p, &jobs[i]);
    }
    return *p->stop == 1 ? -1 : 0;
}

/* The front's configurations not checked yet, and their jobs. */
static size_t plan_jobs(struct plan_pool *p, struct plan_config *cfg, size_t n,
                        struct front_job *jobs, size_t *checked)
{
    const struct plan_opts *o = p->o;
    uint32_t cuts = o->power_cuts < PLAN_MAX_CUTS ? o->power_cuts : PLAN_MAX_CUTS;
    size_t failed = 0, n_jobs = 0;
    for (size_t i = 0; i < n; i++)
        failed += cfg[i].cut_checked == -1;
    for (size_t i = 0; i < n; i++) {
        struct plan_config *c = &cfg[i];
        int day = o->confirm_ns && !c->day_checked;
        int cut = cuts && !c->cut_checked;
        if (!c->front || (!day && !cut))
            continue;
        ++*checked;
        if (day && jobs)
            jobs[n_jobs++] = (struct front_job){c, DAY_JOB};
        if (!cut)
            continue;
        /* a medium that lost synced data in this many configurations is
         * not trusted with the rest unchecked, nor checked a front at a time */
        if (!checkable(c) || failed >= PLAN_CUT_FAILURES_MAX) {
            c->cut_checked = !checkable(c) ? -2 : -4;
            continue;
        }
        c->n_cuts = cuts;
        for (uint32_t k = 0; k < cuts; k++) {
            c->cuts[k] = (struct plan_cut){.after_commands = cut_point(c, k, cuts)};
            if (jobs)
                jobs[n_jobs++] = (struct front_job){c, k};
        }
    }
    return n_jobs;
}

int plan_check_front(struct plan_pool *p, struct plan_config *cfg, size_t n)
{
    size_t checked = 0, most = 0;
    for (size_t i = 0; i < n; i++)
        most += cfg[i].front ? 1 + PLAN_MAX_CUTS : 0;
    struct front_job *jobs = most ? calloc(most, sizeof(*jobs)) : NULL;
    if (most && !jobs)
        return -1;
    size_t n_jobs = plan_jobs(p, cfg, n, jobs, &checked);
    size_t days = 0;
    for (size_t j = 0; j < n_jobs; j++)
        days += jobs[j].k == DAY_JOB;
    if (n_jobs && !p->o->quiet) {
        char alone[24], what[96] = "";
        sts_fmt_ns(alone, sizeof(alone), (double)p->o->confirm_ns);
        if (days)
            snprintf(what, sizeof(what), "%zu run%s alone for %s%s", days, days == 1 ? "" : "s",
                     alone, n_jobs > days ? ", " : "");
        if (n_jobs > days)
            snprintf(what + strlen(what), sizeof(what) - strlen(what), "%zu power cut%s",
                     n_jobs - days, n_jobs - days == 1 ? "" : "s");
        fprintf(stderr, "storscope: plan: checking %zu configuration%s on the front: %s\n",
                checked, checked == 1 ? "" : "s", what);
    }
    int rc = n_jobs ? run_jobs(p, jobs, n_jobs) : 0;
    for (size_t j = 0; j < n_jobs; j++) {
        struct plan_config *c = jobs[j].c;
        if (jobs[j].k != DAY_JOB && (j + 1 == n_jobs || jobs[j + 1].c != c)) /* its last cut */
            c->cut_checked = rc ? 0 : judge_cuts(c);
        if (rc && jobs[j].k == DAY_JOB)
            c->day_checked = 0;
    }
    free(jobs);
    return rc ? -1 : (int)checked;
}

void plan_front_clean(const struct plan_pool *p, const struct plan_config *cfg, size_t n)
{
    static const char *const ext[] = {"json", "json.partial", "err"};
    for (size_t i = 0; i < n; i++)
        for (uint32_t k = 0; k <= cfg[i].n_cuts; k++)
            for (size_t e = 0; e < 3; e++) {
                char f[PLAN_PATH];
                /* k == n_cuts: its longer run's files, if it had one */
                job_file(p, &cfg[i], k == cfg[i].n_cuts ? DAY_JOB : k, ext[e], f, sizeof(f));
                (void)unlink(f);
            }
}
