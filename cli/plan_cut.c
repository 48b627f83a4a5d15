/* storscope plan's power cuts (issue 47): each configuration on the front
 * runs again with the power cut at --power-cuts points of its writer's
 * run, to check what the plan says a cut takes. Every byte a sync covered
 * must come back once the store mounts again (the run's after-cut check),
 * and what the logger held unsynced at the cut must be within the
 * configuration's at-risk figure. The runs are virtual time, so a cut run
 * is the plan's own run up to the cut. Bare extents cannot be checked: no
 * store mounts after a cut to say what it kept. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "json_in.h"
#include "plan.h"
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

static void cut_file(const struct plan_pool *p, const struct plan_config *c, uint32_t k,
                     const char *ext, char *b, size_t n)
{
    snprintf(b, n, "%s/cut-%zu-%d-%u.%s", p->dir, (size_t)(c->run - p->runs), c->writer, k, ext);
}

void plan_cut_command(const struct plan_opts *o, const struct plan_spec *spec,
                      const struct plan_config *c, uint32_t k, char *b, size_t n)
{
    struct plan_run_args a;
    struct plan_opts shown = *o;
    shown.db = NULL;
    plan_run_argv(&shown, spec, c->run, c->worst_seed, c->cuts[k].after_commands, "storscope",
                  "cut.json", &a);
    plan_argv_text(a.argv, b, n);
}

/* A cut run read back: what L1 had when its storage failed in this
 * configuration's writer, and what the store kept. cut stays 0 when the
 * run has no such failure (the cut came in another writer's run, or never). */
static void read_cut(const char *path, const struct plan_config *c, struct plan_cut *cut)
{
    cJSON *doc = cli_load_results(path);
    if (!doc)
        return;
    const cJSON *kept = cJSON_GetObjectItemCaseSensitive(doc, "power_cut");
    const cJSON *t = cli_test(doc, "L1");
    const cJSON *points = t ? cJSON_GetObjectItemCaseSensitive(t, "points") : NULL;
    const cJSON *pt;
    cJSON_ArrayForEach(pt, points)
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(pt, "name");
        const cJSON *params = cJSON_GetObjectItemCaseSensitive(pt, "params");
        const cJSON *mode = cJSON_GetObjectItemCaseSensitive(params, "mode");
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(pt, "metrics");
        if (!kept || !m || !cJSON_IsString(name) || strcmp(name->valuestring, "at_failure") ||
            !cJSON_IsString(mode) || strcmp(mode->valuestring, plan_writers[c->writer]))
            continue;
        cut->cut = 1;
        cut->synced_kept = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(kept, "synced_data_kept"));
        cut->at_ns = sts_d2u64(cli_num(m, "failed_at_ns"));
        cut->kept_bytes = sts_d2u64(cli_num(m, "kept_bytes"));
        cut->durable_bytes = sts_d2u64(cli_num(m, "durable_bytes"));
        cut->at_risk_bytes = sts_d2u64(cli_num(m, "at_risk_bytes"));
    }
    cJSON_Delete(doc);
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

struct cut_job {
    struct plan_config *c;
    uint32_t k;
};

static pid_t spawn_cut(struct plan_pool *p, const struct cut_job *j)
{
    char out[PLAN_PATH], err[PLAN_PATH];
    cut_file(p, j->c, j->k, "json", out, sizeof(out));
    cut_file(p, j->c, j->k, "err", err, sizeof(err));
    struct plan_run_args a;
    plan_run_argv(p->o, p->spec, j->c->run, j->c->worst_seed, j->c->cuts[j->k].after_commands,
                  p->self, out, &a);
    /* (never archived: a run cut short is not the configuration's figures) */
    for (size_t i = 0; a.argv[i]; i++)
        if (!strncmp(a.argv[i], "--db", 4))
            a.argv[i] = NULL;
    return plan_spawn(p->self, a.argv, err);
}

/* Runs the jobs, o->jobs at once; -1 when Ctrl-C stopped them. */
static int run_jobs(struct plan_pool *p, struct cut_job *jobs, size_t n)
{
    pid_t pids[256];
    size_t which[256], running = 0, next = 0;
    uint32_t at_once = p->o->jobs ? p->o->jobs : 1;
    while (next < n || running) {
        while (!*p->stop && running < at_once && running < 256 && next < n) {
            pid_t pid = spawn_cut(p, &jobs[next]);
            if (pid < 0) { /* not run: the cut stays unmet, and is said so */
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
        char out[PLAN_PATH];
        cut_file(p, jobs[i].c, jobs[i].k, "json", out, sizeof(out));
        if (*p->stop != 1)
            read_cut(out, jobs[i].c, &jobs[i].c->cuts[jobs[i].k]);
    }
    return *p->stop == 1 ? -1 : 0;
}

int plan_cut_front(struct plan_pool *p, struct plan_config *cfg, size_t n)
{
    uint32_t cuts = p->o->power_cuts < PLAN_MAX_CUTS ? p->o->power_cuts : PLAN_MAX_CUTS;
    size_t todo = 0, checked = 0, failed = 0;
    for (size_t i = 0; i < n; i++)
        failed += cfg[i].cut_checked == -1;
    /* a medium that lost synced data in this many configurations is not
     * trusted with the rest unchecked, nor checked one front at a time */
    for (size_t i = 0; i < n && failed >= PLAN_CUT_FAILURES_MAX; i++)
        if (cfg[i].front && !cfg[i].cut_checked && checkable(&cfg[i])) {
            cfg[i].cut_checked = -4;
            checked++;
        }
    for (size_t i = 0; i < n; i++)
        todo += cfg[i].front && !cfg[i].cut_checked && checkable(&cfg[i]);
    struct cut_job *jobs = todo ? calloc(todo * cuts, sizeof(*jobs)) : NULL;
    size_t n_jobs = 0;
    for (size_t i = 0; i < n; i++) {
        struct plan_config *c = &cfg[i];
        if (!c->front || c->cut_checked)
            continue;
        checked++;
        if (!checkable(c) || !jobs) {
            c->cut_checked = checkable(c) ? -3 : -2;
            continue;
        }
        c->n_cuts = cuts;
        for (uint32_t k = 0; k < cuts; k++) {
            c->cuts[k] = (struct plan_cut){.after_commands = cut_point(c, k, cuts)};
            jobs[n_jobs++] = (struct cut_job){c, k};
        }
    }
    if (n_jobs && !p->o->quiet)
        fprintf(stderr, "storscope: plan: cutting the power %zu times in the runs of %zu "
                        "configurations on the front\n", n_jobs, n_jobs / cuts);
    int rc = n_jobs ? run_jobs(p, jobs, n_jobs) : 0;
    for (size_t j = 0; j < n_jobs; j += cuts)
        jobs[j].c->cut_checked = rc ? 0 : judge_cuts(jobs[j].c);
    free(jobs);
    return rc ? -1 : (int)checked;
}

void plan_cut_clean(const struct plan_pool *p, const struct plan_config *cfg, size_t n)
{
    static const char *const ext[] = {"json", "json.partial", "err"};
    for (size_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < cfg[i].n_cuts; k++)
            for (size_t e = 0; e < 3; e++) {
                char f[PLAN_PATH];
                cut_file(p, &cfg[i], k, ext[e], f, sizeof(f));
                (void)unlink(f);
            }
}
