/* storscope fit: a simulator profile fitted to a device's measurements
 * (fit.c), for `storscope fit` (cmd_fit.c) and `plan --medium RESULTS.json`. */
#ifndef STORSCOPE_CLI_FIT_H
#define STORSCOPE_CLI_FIT_H

#include <stddef.h>
#include <stdint.h>

#define FIT_MAX_POINTS 160
#define FIT_N_PARAMS 8
/* a fit further off its points than this (rms, %) does not describe the device */
#define FIT_POOR_PCT 25

/* one measured point: test, operation, chunk and mean throughput */
struct fit_point {
    char test[4], op[12];
    double chunk, bps;
    double model_bps; /* the fitted model's figure (after fit_run) */
};

struct fit_data {
    struct fit_point pt[FIT_MAX_POINTS];
    size_t n;
    char tests[16];      /* "B0,B2,M1": what the model runs */
    char scale[8];       /* the results' scale */
    char target[256];    /* what the results measured */
    char base[32];       /* the profile to start from and keep what is not fitted */
    char capacity[24];   /* a sim: target's capacity= (the volume the figures need), or "" */
    char probe_opts[96]; /* ",page_bytes=...,au=...,open_aus=..." from a probe, or "" */
};

/* a parameter of the profile: its key (the target option), value, the
 * base's, whether it was fitted and from what (or why not) */
struct fit_param {
    const char *key;
    int is_time; /* ns, else bytes/s (dip_bytes: bytes; dip_percent: percent) */
    double value, base;
    int fitted;
    const char *from;
};

struct fit_out {
    struct fit_param p[FIT_N_PARAMS];
    size_t n;
    double rms_pct;       /* root mean square of each point's error, % */
    unsigned evaluations; /* model runs it took */
    char spec[1024];      /* the fitted model as a target: sim:BASE,KEY=VALUE... */
};

/* The measured points of a results file (B2, and B0 and M1 where it has
 * them), and its base profile (base: the caller's, or NULL for the one the
 * results name or imply): 0, or -1 with why in err. */
int fit_load(const char *results, const char *base, struct fit_data *d, char *err, size_t n);
/* A probe's answers (page, allocation unit, open AUs) join the profile: 0,
 * or -1 with why. */
int fit_load_probe(const char *probe, struct fit_data *d, char *err, size_t n);
/* Fits the profile by running the model (`self run ...`, `jobs` at once)
 * and moving each parameter while the points' error falls: 0, or -1 with
 * why in err (a model run that failed). progress: called after each round
 * (NULL: none). */
int fit_run(const char *self, struct fit_data *d, unsigned jobs, struct fit_out *out,
            void (*progress)(unsigned evaluations, double rms_pct), char *err, size_t n);
/* The profile file (sim:@FILE reads it): 0, or -1 with why. */
int fit_write_profile(const char *path, const struct fit_data *d, const struct fit_out *o,
                      char *err, size_t n);

#endif
