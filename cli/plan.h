/* storscope plan: a logger's storage decided by simulation (issue 47).
 * plan_spec.c reads what the logger needs (its streams, its medium) and
 * lays out the configurations to judge; cmd_plan.c runs each as an L1 run
 * of this same program, judges and ranks them. */
#ifndef STORSCOPE_CLI_PLAN_H
#define STORSCOPE_CLI_PLAN_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define PLAN_MAX_STREAMS 8
#define PLAN_MAX_RUNS 512
#define PLAN_PATH 512 /* a run's file: the runs' directory (under TMPDIR) and "N.json" */

struct plan_stream {
    char name[12];
    uint32_t rate_hz, record_bytes;
    uint32_t burst; /* records that arrive at once, every burst periods (1: steady) */
};

/* What the command line asked for. */
struct plan_opts {
    char *streams;        /* "imu:1000Hz:12B,..." */
    char *medium;         /* a sim: profile and its parameters, no +FS */
    uint64_t ram_bytes;   /* RAM the logger can give its storage */
    uint64_t lose_ns;     /* the data a power cut may take, as time */
    uint64_t duration_ns; /* simulated time each configuration runs */
    char *lifetime;       /* --lifetime as given: "5y" */
    uint64_t lifetime_ns; /* the years the medium must last (0: not judged) */
    uint32_t jobs;        /* runs at once (0: one per CPU) */
    uint64_t seed;        /* the first run's; repeats take seed + 1, seed + 2... */
    uint32_t repeat;      /* seeds each configuration runs with (0: 1, or 3 on a noisy
                             medium, whose figures change with the seed) */
    char *output;
    int quiet;
    const char *medium_from;  /* the results or profile file --medium named (NULL: none) */
    double medium_fit_rms;    /* a fitted medium's error over its points, % (0: not fitted) */
    /* beyond one machine (plan_shard.c, issue 48) */
    const char *db;           /* --db: each run archived there as well ("": the default) */
    char *shard_text;         /* --shard K/N as given */
    uint32_t shard, shards;   /* this process runs the runs K-1, K-1+N, ... (0 of 0: all) */
    char *shard_dir;          /* --shard-dir: the runs' results kept there (a directory every
                                 node sees), not in a temporary one */
    char *collect;            /* --collect DIR|JOB: rank the runs the shards left, run none */
    int slurm;                /* --slurm: submit the shards as a Slurm array job */
    char *partition;          /* --partition: its Slurm partition */
    uint32_t array_max;       /* --array-max: its tasks at once (0: Slurm's choice) */
    uint32_t power_cuts;      /* --power-cuts: cuts each configuration on the front is
                                 checked with (plan_front.c); 0: none */
    char *battery;            /* --battery as given: "2000mAh@3.7V" */
    double battery_j;         /* its energy, joules (0: not given) */
    char *confirm_for;        /* --confirm-for as given: "1d", "0" */
    uint64_t confirm_ns;      /* --confirm-for: each configuration on the front runs alone
                                 this long, a day by default (plan_front.c); 0: not */
};

struct plan_spec {
    struct plan_stream s[PLAN_MAX_STREAMS];
    uint32_t n;
    char l1_streams[256];    /* the same streams as L1's --streams takes them */
    double payload_bps;      /* bytes per second of records, all streams */
    double records_per_s;    /* records per second, all streams */
    uint64_t capacity_bytes; /* the medium's */
    int suspends_erases;     /* the medium can suspend an erase (SPI NOR) */
    uint32_t endurance;      /* erases a block takes before it wears out (0: unlimited) */
    uint32_t erase_bytes;    /* the medium's erase block */
    int noisy;               /* the medium has noise=, stalls=, bimodal= or drift= */
    int energy_modelled;     /* the medium has currents (a datasheet's, or given): its runs
                                report the energy it drew */
};

/* One L1 run: a store on the medium, L1's buffer and sync interval. Each
 * gives three configurations, one per writer (direct, mutex, iotask). */
struct plan_run {
    char target[200];      /* sim:...[+sensorlog,...] */
    char store[80];        /* "bare extents" or "sensorlog, 2K ring, 64M segments" */
    uint64_t buffer_bytes; /* L1 --buffer: records waiting to be written */
    uint64_t sync_ns;      /* L1 --sync-every */
};

/* Reads --streams and --medium into spec; NULL, or what is wrong. */
const char *plan_spec_read(const struct plan_opts *o, struct plan_spec *spec, char *why,
                           size_t why_len);

/* The runs to make, at most max; their number. */
size_t plan_runs(const struct plan_opts *o, const struct plan_spec *spec, struct plan_run *runs,
                 size_t max);

/* ---- plan_pool.c: the runs, several at once ---- */

extern const char *const plan_writers[3]; /* "direct", "mutex", "iotask" */

#define PLAN_MAX_CUTS 8
#define PLAN_CUT_FAILURES_MAX 8 /* configurations whose cuts lost synced data: then stop */

/* One power cut in a configuration's run (plan_front.c): what the run had
 * when the device went off, and what the store kept. */
struct plan_cut {
    uint64_t after_commands; /* the cut came during device command after_commands + 1 */
    int cut;                 /* the run met it (0: it ended first, or did not run) */
    int synced_kept;         /* the store read back every byte its last syncs covered */
    uint64_t at_ns;          /* the run's time when its storage failed */
    uint64_t kept_bytes;     /* records the logger had kept by then, payload bytes */
    uint64_t durable_bytes;  /* of them, made durable by a sync that finished */
    uint64_t at_risk_bytes;  /* kept and not durable: the most the cut took */
};

/* A configuration on the front run alone for --confirm-for (plan_front.c):
 * its writer's figures over the longer run and its worst hour. */
struct plan_day {
    uint64_t produced, lost, late, worst_stall;
    uint64_t hour, hour_lost, hour_stall; /* its worst hour: the most records lost or late,
                                              else the longest stall */
    uint64_t lost_by_stream[PLAN_MAX_STREAMS]; /* lost, in the spec's streams' order */
    char why[160]; /* a run that did not finish: the first line it wrote on stderr */
};

/* One configuration: a run's store, buffer and sync, and one writer. */
struct plan_config {
    const struct plan_run *run;
    int writer; /* index into plan_writers */
    int done;   /* its run finished */
    uint64_t produced, lost, late, backlog_peak, store_ram, ram, worst_stall, written;
    uint64_t lost_by_stream[PLAN_MAX_STREAMS]; /* lost, in the spec's streams' order */
    uint64_t at_risk_bytes; /* the most payload kept but not yet durable at any moment (L1) */
    uint64_t commands_from, commands; /* the device commands before the writer's run
                                         began (the medium's set-up included) and in it:
                                         where a cut lands in it */
    uint64_t erased_blocks, device_bytes; /* the run's erases, bytes programmed */
    /* over the seeds it ran with: the figures above are the worst of them
     * (the fewest records produced, the most lost, the longest stall...) */
    uint32_t repeats_done, seeds_lossless;
    uint64_t worst_seed; /* the seed of its longest stall: the run to measure again */
    double erases_per_block_day, lifetime_years; /* lifetime < 0: endurance unlimited */
    uint64_t energy_nj;     /* what the medium drew over the writer's run (0: no model) */
    double energy_day_j;    /* that over a day, joules; < 0: the medium has no energy model */
    double battery_days;    /* --battery over energy_day_j; < 0: not given or not modelled */
    int lossless, fits, front;
    /* the longer run: 0 not yet, 1 lossless over it, -1 lost or late records
     * (it does not fit), -3 it failed (nor does it) */
    int day_checked;
    struct plan_day day;
    /* power cuts (plan_front.c): checked: 0 not yet, 1 every cut kept what was
     * synced and took no more than at_risk_bytes, -1 one did not (it does
     * not fit), -2 cannot be checked (no store mounts after a cut), -3 no
     * cut landed in its writer's run, -4 not checked after
     * PLAN_CUT_FAILURES_MAX others failed (it does not fit either) */
    int cut_checked;
    uint32_t n_cuts;
    struct plan_cut cuts[PLAN_MAX_CUTS];
};

struct plan_pool {
    const struct plan_opts *o;
    const struct plan_spec *spec;
    const struct plan_run *runs;
    size_t n;                       /* runs, each made o->repeat times */
    struct plan_config *cfg;        /* 3 a run, in the runs' order */
    volatile sig_atomic_t *stop;    /* set to 1 by Ctrl-C; 2: the first run failed */
    char dir[PLAN_PATH - 64], self[4096]; /* the runs' files; this program */
    char failed_first[480];         /* the first run that failed, and why */
    size_t failed;
};

/* Runs every run, o->jobs at once (the first alone: a medium its
 * parameters make unusable fails it, and the plan stops there); 0, or -1
 * when Ctrl-C stopped it. */
int plan_pool_run(struct plan_pool *p);
/* Runs (each seed's) that finished or failed. */
size_t plan_pool_done(const struct plan_pool *p);
/* Removes the runs' files and their directory. */
void plan_pool_clean(const struct plan_pool *p);
/* --collect: each run's results file the shards left in p->dir read as if
 * the run had just finished; the runs with none, as failed runs are. */
void plan_pool_collect(struct plan_pool *p);

/* ---- plan_front.c: the front's checks: a longer run, power cuts ---- */

/* Runs each configuration on the front not checked yet (cfg, n: all of
 * them) alone for o->confirm_ns and cuts the power o->power_cuts times in
 * its run, o->jobs at once, and sets day_checked and cut_checked; the
 * number checked, or -1 when Ctrl-C stopped it. */
int plan_check_front(struct plan_pool *p, struct plan_config *cfg, size_t n);
/* Removes those runs' files. */
void plan_front_clean(const struct plan_pool *p, const struct plan_config *cfg, size_t n);
/* The `storscope run` of c with its k-th cut, as a shell command. */
void plan_cut_command(const struct plan_opts *o, const struct plan_spec *spec,
                      const struct plan_config *c, uint32_t k, char *b, size_t n);
/* The `storscope run` of c alone for --confirm-for, as a shell command. */
void plan_day_command(const struct plan_opts *o, const struct plan_spec *spec,
                      const struct plan_config *c, char *b, size_t n);

/* Each stream's records lost, from an L1 point's metrics (records_lost_NAME),
 * in the spec's order. */
struct cJSON;
void plan_read_lost(const struct plan_spec *spec, const struct cJSON *metrics, uint64_t *lost);

/* ---- plan_pool.c: one run's command line (plan_front.c builds on it) ---- */

struct plan_run_args {
    char buf[24], sync[24], dur[24], seed[24], size[24], db[600], target[240];
    char *argv[32];
};
/* How a run differs from the plan's own: 0s and -1 for none. */
struct plan_run_how {
    uint64_t cut_after;   /* the power goes during device command cut_after + 1 */
    uint64_t duration_ns; /* instead of --duration */
    int writer;           /* only this writer (plan_writers) */
};
void plan_run_argv(const struct plan_opts *o, const struct plan_spec *spec,
                   const struct plan_run *r, uint64_t seed, const struct plan_run_how *how,
                   const char *self, const char *out, struct plan_run_args *a);
/* Starts self with argv, stdout to /dev/null, stderr into the file err:
 * its pid, or -1. */
pid_t plan_spawn(const char *self, char *const *argv, const char *err);
/* Waits for one of the *running children (pids, each doing job which[k])
 * to end and takes it out of both; on Ctrl-C asks each to stop and waits
 * on. 0 with its job, or -1 (none running, or an error). */
int plan_wait(pid_t *pids, size_t *which, size_t *running, int *status, size_t *job);
/* argv as a shell command, quoted where a shell needs it */
void plan_argv_text(char *const *argv, char *b, size_t n);

/* ---- plan_shard.c: shards, their directory, Slurm ---- */

/* Reads --shard, --shard-dir, --collect and --slurm's options, checks they
 * go together; -1 after saying why. */
int plan_shard_opts(struct plan_opts *o);
/* The directory --collect names (a directory, or a Slurm job's id that
 * --slurm recorded) into dir; -1 after saying why. */
int plan_collect_dir(const char *what, char *dir, size_t n);
/* Checks that dir holds (or, with write, records) this plan's runs: its
 * plan.txt lists every run's command; -1 after saying why. */
int plan_shard_check(const struct plan_opts *o, const struct plan_spec *spec,
                     const struct plan_run *runs, size_t n, const char *dir, int write);
/* Writes the array job and submits it (sbatch); EXIT_* . */
int plan_slurm_submit(const struct plan_opts *o, const struct plan_spec *spec,
                      const struct plan_run *runs, size_t n, int argc, char **argv,
                      const char *self);
/* The `storscope run` that measures r again with seed, as a shell command. */
void plan_command_text(const struct plan_opts *o, const struct plan_spec *spec,
                       const struct plan_run *r, uint64_t seed, char *b, size_t n);

/* ---- plan_out.c: what the plan says ---- */

void plan_print_head(const struct plan_opts *o, const struct plan_spec *spec, size_t runs);
void plan_print_config(FILE *f, const struct plan_config *c);
void plan_print_cuts(FILE *f, const struct plan_config *c);
void plan_print_day(FILE *f, const struct plan_config *c);
void plan_print_table(FILE *f, const struct plan_config *c, size_t n, size_t shown);
void plan_print_stores(FILE *f, const struct plan_config *c, size_t n);
void plan_say_nothing_fits(const struct plan_opts *o, const struct plan_spec *spec,
                           const struct plan_config *c, size_t n);
int plan_write_json(const struct plan_opts *o, const struct plan_spec *spec,
                    const struct plan_config *c, size_t n, size_t runs, int interrupted);

#endif
