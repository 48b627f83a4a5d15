/* storscope plan beyond one machine (issue 48): the runs split into
 * shards (--shard K/N), each shard's results kept in a directory every
 * node sees (--shard-dir), the plan made from them after (--collect) as a
 * local run makes it, and the shards submitted as one Slurm array job
 * (--slurm). The directory's plan.txt lists every run's command, so a
 * shard or a collect of another plan is refused, not mixed in. */
#define _DEFAULT_SOURCE
#include "cli.h"
#include "plan.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PLAN_TXT "plan.txt"

static int make_dir(const char *dir)
{
    if (!mkdir(dir, 0755) || errno == EEXIST) {
        struct stat st;
        if (!stat(dir, &st) && S_ISDIR(st.st_mode))
            return 0;
        errno = ENOTDIR;
    }
    return -1;
}

int plan_shard_opts(struct plan_opts *o)
{
    if (o->shard_text) {
        char *end = NULL;
        unsigned long k = strtoul(o->shard_text, &end, 10), n = 0;
        if (end && *end == '/')
            n = strtoul(end + 1, &end, 10);
        if (!end || *end || !n || !k || k > n || n > 100000) {
            cli_error("bad --shard '%s' (K/N: this process runs the Kth of N shards, "
                      "1 <= K <= N)", o->shard_text);
            return -1;
        }
        o->shard = (uint32_t)k;
        o->shards = (uint32_t)n;
    }
    int modes = !!o->shard_text + !!o->collect + !!o->slurm;
    if (modes > 1) {
        cli_error("--shard, --collect and --slurm each make another kind of plan: give one");
        return -1;
    }
    if ((o->shard_text || o->slurm) && !o->shard_dir) {
        cli_error("%s needs --shard-dir DIR, a directory every shard can write and the "
                  "collect can read", o->slurm ? "--slurm" : "--shard");
        return -1;
    }
    if (o->collect && o->shard_dir) {
        cli_error("--collect names the shards' directory itself: no --shard-dir beside it");
        return -1;
    }
    if ((o->shard_text || o->slurm) && o->output) {
        cli_error("-o: a %s ranks nothing; --collect writes the plan", o->slurm ? "submission"
                                                                               : "shard");
        return -1;
    }
    if ((o->partition || o->array_max) && !o->slurm) {
        cli_error("--partition and --array-max go with --slurm");
        return -1;
    }
    if (o->shard_dir && make_dir(o->shard_dir)) {
        cli_error("--shard-dir %s: %s", o->shard_dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* where --slurm records a job's directory, for --collect JOB */
static int job_file(const char *job, char *b, size_t n)
{
    const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    char dir[PLAN_PATH];
    if (xdg && *xdg == '/')
        snprintf(dir, sizeof(dir), "%s/storscope/jobs", xdg);
    else if (home && *home)
        snprintf(dir, sizeof(dir), "%s/.local/share/storscope/jobs", home);
    else
        return -1;
    for (char *s = dir + 1; *s; s++) /* mkdir -p */
        if (*s == '/') {
            *s = '\0';
            (void)mkdir(dir, 0700);
            *s = '/';
        }
    if (make_dir(dir))
        return -1;
    return (size_t)snprintf(b, n, "%s/%s", dir, job) < n ? 0 : -1;
}

int plan_collect_dir(const char *what, char *dir, size_t n)
{
    struct stat st;
    if (!stat(what, &st) && S_ISDIR(st.st_mode)) {
        snprintf(dir, n, "%s", what);
        return 0;
    }
    size_t digits = strspn(what, "0123456789");
    char path[PLAN_PATH];
    FILE *f = NULL;
    if (digits && !what[digits] && !job_file(what, path, sizeof(path)))
        f = fopen(path, "re");
    if (!f || !fgets(dir, (int)n, f)) {
        cli_error("--collect %s: no such directory%s", what,
                  digits && !what[digits] ? ", and no job of that number was submitted from "
                                            "this account (storscope plan --slurm)" : "");
        if (f)
            fclose(f);
        return -1;
    }
    fclose(f);
    dir[strcspn(dir, "\n")] = '\0';
    return 0;
}

/* every run's command, one a line, in the runs' order */
static char *plan_text(const struct plan_opts *o, const struct plan_spec *spec,
                       const struct plan_run *runs, size_t n, size_t *len)
{
    size_t cap = 1024 * (n * o->repeat + 1), at = 0;
    char *b = malloc(cap);
    for (size_t i = 0; b && i < n * o->repeat; i++) {
        char cmd[1024];
        plan_command_text(o, spec, &runs[i / o->repeat], o->seed + i % o->repeat, cmd,
                          sizeof(cmd));
        at += (size_t)snprintf(b + at, cap - at, "%zu %s\n", i, cmd);
    }
    *len = at;
    return b;
}

int plan_shard_check(const struct plan_opts *o, const struct plan_spec *spec,
                     const struct plan_run *runs, size_t n, const char *dir, int write)
{
    size_t len;
    char *mine = plan_text(o, spec, runs, n, &len), path[PLAN_PATH];
    snprintf(path, sizeof(path), "%s/" PLAN_TXT, dir);
    if (!mine) {
        cli_error("plan: out of memory");
        return -1;
    }
    FILE *f = fopen(path, "re");
    int rc = 0;
    if (f) { /* another shard (or the submission) wrote it: it must be this plan's */
        char *theirs = malloc(len + 2);
        size_t got = theirs ? fread(theirs, 1, len + 1, f) : 0;
        fclose(f);
        if (!theirs || got != len || memcmp(theirs, mine, len)) {
            cli_error("%s holds the runs of another plan (its " PLAN_TXT " is not this plan's: "
                      "the same --streams, --medium, --ram and other options are needed)", dir);
            rc = -1;
        }
        free(theirs);
    } else if (!write) {
        cli_error("--collect: %s holds no plan's runs (no " PLAN_TXT ")", dir);
        rc = -1;
    } else {
        /* a shard writes it under another name and renames it: shards
         * starting at once never read one half-written */
        char tmp[PLAN_PATH + 32];
        snprintf(tmp, sizeof(tmp), "%s.%ld", path, (long)getpid());
        f = fopen(tmp, "we");
        if (!f || fwrite(mine, 1, len, f) != len || fclose(f) || rename(tmp, path)) {
            cli_error("--shard-dir %s: cannot write " PLAN_TXT ": %s", dir, strerror(errno));
            rc = -1;
        }
    }
    free(mine);
    return rc;
}

/* ' quoted for sh */
static void sh_quote(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++)
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    fputc('\'', f);
}

/* the options the shards do not take: the submission's own, the output */
static int dropped(const char *a, int *skip_next)
{
    static const char *const with_value[] = {"--partition", "--array-max", "--output", "-o",
                                             "--shard-dir", "--jobs", "-j"};
    *skip_next = 0;
    if (!strcmp(a, "--slurm") || !strcmp(a, "-q") || !strcmp(a, "--quiet"))
        return 1;
    for (size_t i = 0; i < sizeof(with_value) / sizeof(with_value[0]); i++) {
        size_t n = strlen(with_value[i]);
        if (!strcmp(a, with_value[i])) {
            *skip_next = 1;
            return 1;
        }
        if (!strncmp(a, with_value[i], n) && (a[n] == '=' || (n == 2 && a[n])))
            return 1;
    }
    return 0;
}

int plan_slurm_submit(const struct plan_opts *o, const struct plan_spec *spec,
                      const struct plan_run *runs, size_t n, int argc, char **argv,
                      const char *self)
{
    size_t tasks = n * o->repeat;
    if (plan_shard_check(o, spec, runs, n, o->shard_dir, 1))
        return EXIT_USAGE;
    char script[PLAN_PATH + 16], dir[PLAN_PATH];
    if (!realpath(o->shard_dir, dir)) {
        cli_error("--shard-dir %s: %s", o->shard_dir, strerror(errno));
        return EXIT_USAGE;
    }
    snprintf(script, sizeof(script), "%s/job.sh", dir);
    FILE *f = fopen(script, "we");
    if (!f) {
        cli_error("cannot write %s: %s", script, strerror(errno));
        return EXIT_USAGE;
    }
    /* one run a task: Slurm places them; --array-max bounds how many at once */
    fprintf(f, "#!/bin/sh\n# storscope plan's shards, one run each (storscope plan --slurm)\n"
               "#SBATCH --job-name=storscope-plan\n#SBATCH --array=1-%zu", tasks);
    if (o->array_max)
        fprintf(f, "%%%u", o->array_max);
    fprintf(f, "\n#SBATCH --cpus-per-task=1\n#SBATCH --output=%s/slurm-%%A_%%a.out\n", dir);
    if (o->partition)
        fprintf(f, "#SBATCH --partition=%s\n", o->partition);
    fputs("exec ", f);
    sh_quote(f, self);
    fputs(" plan", f);
    for (int i = 1; i < argc; i++) {
        int skip;
        if (dropped(argv[i], &skip)) {
            i += skip;
            continue;
        }
        fputc(' ', f);
        sh_quote(f, argv[i]);
    }
    fprintf(f, " -q -j 1 --shard \"$SLURM_ARRAY_TASK_ID/%zu\" --shard-dir ", tasks);
    sh_quote(f, dir);
    fputc('\n', f);
    if (fclose(f)) {
        cli_error("cannot write %s: %s", script, strerror(errno));
        return EXIT_USAGE;
    }
    char cmd[PLAN_PATH + 64], job[64] = "";
    snprintf(cmd, sizeof(cmd), "sbatch --parsable '%s'", script);
    FILE *p = popen(cmd, "r");
    int ok = p && fgets(job, sizeof(job), p) != NULL;
    int status = p ? pclose(p) : -1;
    job[strcspn(job, ";\n")] = '\0'; /* "JOB" or "JOB;CLUSTER" */
    if (!ok || status || !*job || !isdigit((unsigned char)job[0])) {
        cli_error("sbatch did not take the job (%s): is Slurm's sbatch on PATH, and its "
                  "controller up?", status == -1 || WEXITSTATUS(status) == 127
                                        ? "sbatch not found" : "it said why above");
        return EXIT_USAGE;
    }
    char path[PLAN_PATH];
    f = !job_file(job, path, sizeof(path)) ? fopen(path, "we") : NULL;
    if (!f || fprintf(f, "%s\n", dir) < 0 || fclose(f))
        fprintf(stderr, "storscope: warning: cannot record job %s's directory: collect it "
                        "with --collect %s\n", job, dir);
    printf("submitted Slurm job %s: %zu runs, one a task, results in %s\n"
           "when it has ended: storscope plan ... --collect %s (the same options)\n",
           job, tasks, dir, job);
    return EXIT_OK;
}
