/* What storscope plan says: the head, the recommendation, the ranked
 * table, each store's best, and the JSON (storscope-plan/1,
 * docs/storscope-plan.schema.json). */
#include "cli.h"
#include "plan.h"
#include "storscope/output.h"
#include "storscope/suite.h"
#include "storscope/units.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "4.5 y", or "36.2 d" under a year, "5.3 h" under a day */
static void fmt_lifetime(char *b, size_t n, double years)
{
    if (years >= 1)
        snprintf(b, n, "%.1f y", years);
    else if (years * 365 >= 1)
        snprintf(b, n, "%.1f d", years * 365);
    else
        snprintf(b, n, "%.1f h", years * 365 * 24);
}

/* "records_lost_by_stream": {"imu": 0, ...} */
static void add_lost(const struct plan_spec *spec, const uint64_t *lost, cJSON *to)
{
    cJSON *by = cJSON_AddObjectToObject(to, "records_lost_by_stream");
    for (uint32_t i = 0; i < spec->n; i++)
        cJSON_AddNumberToObject(by, spec->s[i].name, (double)lost[i]);
}

void plan_print_config(FILE *f, const struct plan_config *c)
{
    char buf[24], sync[24], ram[24], peak[24], store[24], stall[24], risk[24];
    sts_fmt_bytes(buf, sizeof(buf), c->run->buffer_bytes);
    sts_fmt_ns(sync, sizeof(sync), (double)c->run->sync_ns);
    sts_fmt_bytes(ram, sizeof(ram), c->ram);
    sts_fmt_bytes(peak, sizeof(peak), c->backlog_peak);
    sts_fmt_bytes(store, sizeof(store), c->store_ram);
    sts_fmt_ns(stall, sizeof(stall), (double)c->worst_stall);
    sts_fmt_bytes(risk, sizeof(risk), c->at_risk_bytes);
    fprintf(f, "%s, %s writer, %s buffer, sync every %s\n", c->run->store, plan_writers[c->writer],
            buf, sync);
    fprintf(f, "  %llu of %llu records lost, RAM %s (the buffer %s, its peak %s; the store "
               "%s), worst stall %s, a power cut takes at most %s (measured: the records "
               "still in RAM or not yet synced just before a sync ends)",
            (unsigned long long)(c->lost + c->late), (unsigned long long)c->produced, ram, buf,
            peak, store, stall, risk);
    if (c->lifetime_years >= 0) {
        char lasts[24];
        fmt_lifetime(lasts, sizeof(lasts), c->lifetime_years);
        fprintf(f, ", the medium's first block worn out in %s (%.2f erases a block a day)",
                lasts, c->erases_per_block_day);
    }
    if (c->energy_day_j >= 0) {
        fprintf(f, ", the medium draws %.3g J a day (%.3g mW on average)", c->energy_day_j,
                c->energy_day_j / 86.4);
        if (c->battery_days >= 0)
            fprintf(f, ": the battery lasts %.0f days for the medium alone", c->battery_days);
    }
    if (c->repeats_done > 1)
        fprintf(f, "; the worst of %u seeds (lossless with %u; the longest stall with seed %llu)",
                c->repeats_done, c->seeds_lossless, (unsigned long long)c->worst_seed);
    fputc('\n', f);
    plan_print_day(f, c);
    plan_print_cuts(f, c);
}

/* What the configuration's longer run found, a line. */
void plan_print_day(FILE *f, const struct plan_config *c)
{
    const struct plan_day *d = &c->day;
    char stall[24], hour_stall[24];
    sts_fmt_ns(stall, sizeof(stall), (double)d->worst_stall);
    sts_fmt_ns(hour_stall, sizeof(hour_stall), (double)d->hour_stall);
    if (c->day_checked == 1 || c->day_checked == -1)
        fprintf(f, "  alone for longer: %llu of %llu records lost or late%s, worst stall %s; its "
                   "worst hour (hour %llu): %llu lost or late, worst stall %s\n",
                (unsigned long long)(d->lost + d->late), (unsigned long long)d->produced,
                c->day_checked == 1 ? "" : " - it does not fit", stall,
                (unsigned long long)d->hour, (unsigned long long)d->hour_lost, hour_stall);
    else if (c->day_checked == -3)
        fprintf(f, "  alone for longer: its run did not finish - it does not fit: %s\n",
                c->day.why);
}

/* What the power cuts in its run found, a line. */
void plan_print_cuts(FILE *f, const struct plan_config *c)
{
    uint32_t met = 0;
    uint64_t most = 0;
    for (uint32_t k = 0; k < c->n_cuts; k++)
        if (c->cuts[k].cut) {
            met++;
            most = c->cuts[k].at_risk_bytes > most ? c->cuts[k].at_risk_bytes : most;
        }
    char took[24];
    sts_fmt_bytes(took, sizeof(took), most);
    switch (c->cut_checked) {
    case 1:
        fprintf(f, "  power cut %u times in its run: every synced byte came back, and a cut took "
                   "at most %s\n", met, took);
        break;
    case -1:
        fprintf(f, "  power cut %u times in its run: FAILED - a cut lost synced data or took more "
                   "than its figure (up to %s)\n", met, took);
        break;
    case -2:
        fputs("  power cuts: not checked (bare extents: no store mounts after a cut to say what "
              "it kept)\n", f);
        break;
    case -3:
        fputs("  power cuts: not checked (no cut landed in its writer's run)\n", f);
        break;
    case -4:
        fprintf(f, "  power cuts: not checked after %d other configurations' cuts lost synced "
                   "data on this medium (so it does not fit either)\n", PLAN_CUT_FAILURES_MAX);
        break;
    default: break; /* not on the front, or --power-cuts 0 */
    }
}

void plan_print_table(FILE *f, const struct plan_config *c, size_t n, size_t shown)
{
    int w = 5; /* the store column as wide as its longest name shown */
    for (size_t i = 0; i < n && i < shown; i++)
        w = (int)strlen(c[i].run->store) > w ? (int)strlen(c[i].run->store) : w;
    fprintf(f, "\n%4s  %-*s %-6s %9s %9s %9s %9s %11s %9s %9s %9s  %s\n", "rank", w, "store",
            "writer", "buffer", "sync", "lost", "RAM", "worst stall", "at risk", "lasts", "J/day",
            "front");
    for (size_t i = 0; i < n && i < shown; i++) {
        char buf[24], sync[24], ram[24], stall[24], risk[24];
        sts_fmt_bytes(buf, sizeof(buf), c[i].run->buffer_bytes);
        sts_fmt_ns(sync, sizeof(sync), (double)c[i].run->sync_ns);
        sts_fmt_bytes(ram, sizeof(ram), c[i].ram);
        sts_fmt_ns(stall, sizeof(stall), (double)c[i].worst_stall);
        sts_fmt_bytes(risk, sizeof(risk), c[i].at_risk_bytes);
        if (!c[i].done) {
            fprintf(f, "%4zu  %-*s %-6s %9s %9s  (did not run)\n", i + 1, w, c[i].run->store,
                    plan_writers[c[i].writer], buf, sync);
            continue;
        }
        char lasts[24] = "-", joules[24] = "-";
        if (c[i].lifetime_years >= 0)
            fmt_lifetime(lasts, sizeof(lasts), c[i].lifetime_years);
        if (c[i].energy_day_j >= 0)
            snprintf(joules, sizeof(joules), "%.3g", c[i].energy_day_j);
        fprintf(f, "%4zu  %-*s %-6s %9s %9s %9llu %9s %11s %9s %9s %9s  %s\n", i + 1, w,
                c[i].run->store, plan_writers[c[i].writer], buf, sync,
                (unsigned long long)(c[i].lost + c[i].late), ram, stall, risk, lasts, joules,
                c[i].front ? "*" : c[i].fits ? "" : "-");
    }
    if (n > shown)
        fprintf(f, "(the first %zu of %zu; -o FILE holds them all)\n", shown, n);
    fputs("lasts: years to the first worn block at the run's wear (even wear; -: the medium's\n"
          "endurance is not limited); J/day: the energy the medium draws in a day at the run's\n"
          "rate (-: no currents for this medium: docs/device-models.md, \"Energy\"); front *: no\n"
          "other fitting configuration is as good in RAM, worst stall, data at risk and energy\n"
          "and better in one; -: does not fit (loses records, needs more RAM, or wears out\n"
          "sooner than --lifetime)\n",
          f);
}

struct named_u64 {
    const char *name;
    uint64_t value;
};
static void add_numbers(cJSON *to, const struct named_u64 *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cJSON_AddNumberToObject(to, v[i].name, (double)v[i].value);
}

/* "day": the longer run alone, when it was made (docs/plan.md). */
static void add_day(const struct plan_opts *o, const struct plan_spec *spec,
                    const struct plan_config *c, cJSON *j)
{
    if (!c->day_checked)
        return;
    cJSON *d = cJSON_AddObjectToObject(j, "day");
    char cmd[1024];
    plan_day_command(o, spec, c, cmd, sizeof(cmd));
    cJSON_AddNumberToObject(d, "duration_ns", (double)o->confirm_ns);
    cJSON_AddBoolToObject(d, "ran", c->day_checked != -3);
    if (c->day_checked != -3) {
        const struct named_u64 v[] = {{"records_produced", c->day.produced},
                                      {"records_lost", c->day.lost},
                                      {"records_late", c->day.late},
                                      {"worst_stall_ns", c->day.worst_stall}};
        add_numbers(d, v, sizeof(v) / sizeof(v[0]));
        add_lost(spec, c->day.lost_by_stream, d);
        cJSON *h = cJSON_AddObjectToObject(d, "worst_hour");
        const struct named_u64 hv[] = {{"index", c->day.hour},
                                       {"records_lost", c->day.hour_lost},
                                       {"worst_stall_ns", c->day.hour_stall}};
        add_numbers(h, hv, sizeof(hv) / sizeof(hv[0]));
        cJSON_AddBoolToObject(d, "lossless", c->day_checked == 1);
    } else {
        cJSON_AddStringToObject(d, "error", c->day.why);
    }
    cJSON_AddStringToObject(d, "command", cmd);
}

/* "power_cuts": checked (true, false, or null when not), and each cut. */
static void add_cuts(const struct plan_opts *o, const struct plan_spec *spec,
                     const struct plan_config *c, cJSON *j)
{
    if (c->cut_checked == 1 || c->cut_checked == -1)
        cJSON_AddBoolToObject(j, "power_cuts_held", c->cut_checked == 1);
    else
        cJSON_AddNullToObject(j, "power_cuts_held");
    if (!c->n_cuts)
        return;
    cJSON *a = cJSON_AddArrayToObject(j, "power_cuts");
    for (uint32_t k = 0; k < c->n_cuts; k++) {
        const struct plan_cut *cut = &c->cuts[k];
        cJSON *x = cJSON_CreateObject();
        char cmd[1024];
        plan_cut_command(o, spec, c, k, cmd, sizeof(cmd));
        cJSON_AddNumberToObject(x, "after_commands", (double)cut->after_commands);
        cJSON_AddBoolToObject(x, "cut", cut->cut);
        if (cut->cut) {
            const struct named_u64 v[] = {{"at_ns", cut->at_ns},
                                          {"kept_bytes", cut->kept_bytes},
                                          {"durable_bytes", cut->durable_bytes},
                                          {"at_risk_bytes", cut->at_risk_bytes}};
            add_numbers(x, v, sizeof(v) / sizeof(v[0]));
            cJSON_AddBoolToObject(x, "synced_data_kept", cut->synced_kept);
        }
        cJSON_AddStringToObject(x, "command", cmd);
        cJSON_AddItemToArray(a, x);
    }
}

static cJSON *config_json(const struct plan_opts *o, const struct plan_spec *spec,
                          const struct plan_config *c, size_t rank)
{
    cJSON *j = cJSON_CreateObject();
    char cmd[1024];
    plan_command_text(o, spec, c->run, c->repeats_done ? c->worst_seed : o->seed, cmd,
                      sizeof(cmd));
    cJSON_AddNumberToObject(j, "rank", (double)rank);
    cJSON_AddStringToObject(j, "store", c->run->store);
    cJSON_AddStringToObject(j, "target", c->run->target);
    cJSON_AddStringToObject(j, "writer", plan_writers[c->writer]);
    cJSON_AddNumberToObject(j, "buffer_bytes", (double)c->run->buffer_bytes);
    cJSON_AddNumberToObject(j, "sync_interval_ns", (double)c->run->sync_ns);
    cJSON_AddBoolToObject(j, "ran", c->done);
    if (c->done) {
        const struct named_u64 figures[] = {
            {"records_produced", c->produced}, {"records_lost", c->lost},
            {"records_late", c->late},         {"backlog_peak_bytes", c->backlog_peak},
            {"store_ram_bytes", c->store_ram}, {"ram_bytes", c->ram},
            {"worst_stall_ns", c->worst_stall}, {"at_risk_bytes", c->at_risk_bytes},
            {"bytes_written", c->written},
        };
        add_numbers(j, figures, sizeof(figures) / sizeof(figures[0]));
        add_lost(spec, c->lost_by_stream, j);
        cJSON_AddNumberToObject(j, "erases_per_block_per_day", c->erases_per_block_day);
        if (c->lifetime_years >= 0)
            cJSON_AddNumberToObject(j, "lifetime_years", c->lifetime_years);
        else
            cJSON_AddNullToObject(j, "lifetime_years");
        if (c->energy_day_j >= 0) {
            cJSON_AddNumberToObject(j, "energy_nj", (double)c->energy_nj);
            cJSON_AddNumberToObject(j, "energy_per_day_j", c->energy_day_j);
        } else {
            cJSON_AddNullToObject(j, "energy_nj");
            cJSON_AddNullToObject(j, "energy_per_day_j");
        }
        if (c->battery_days >= 0)
            cJSON_AddNumberToObject(j, "battery_days", c->battery_days);
        else
            cJSON_AddNullToObject(j, "battery_days");
        cJSON_AddNumberToObject(j, "seeds_run", c->repeats_done);
        cJSON_AddNumberToObject(j, "seeds_lossless", c->seeds_lossless);
        cJSON_AddNumberToObject(j, "worst_seed", (double)c->worst_seed);
        cJSON_AddBoolToObject(j, "lossless", c->lossless);
        cJSON_AddBoolToObject(j, "fits", c->fits);
        cJSON_AddBoolToObject(j, "front", c->front);
        add_day(o, spec, c, j);
        add_cuts(o, spec, c, j);
    }
    cJSON_AddStringToObject(j, "command", cmd);
    return j;
}

int plan_write_json(const struct plan_opts *o, const struct plan_spec *spec,
                      const struct plan_config *c, size_t n, size_t runs, int interrupted)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "schema", "storscope-plan/1");
    cJSON *tool = cJSON_AddObjectToObject(doc, "tool");
    cJSON_AddStringToObject(tool, "name", "storscope");
    cJSON_AddStringToObject(tool, "version", STORSCOPE_VERSION);
    cJSON *sp = cJSON_AddObjectToObject(doc, "spec");
    cJSON *ss = cJSON_AddArrayToObject(sp, "streams");
    for (uint32_t i = 0; i < spec->n; i++) {
        cJSON *s = cJSON_CreateObject();
        cJSON_AddStringToObject(s, "name", spec->s[i].name);
        cJSON_AddNumberToObject(s, "rate_hz", spec->s[i].rate_hz);
        cJSON_AddNumberToObject(s, "record_bytes", spec->s[i].record_bytes);
        cJSON_AddNumberToObject(s, "burst", spec->s[i].burst);
        cJSON_AddItemToArray(ss, s);
    }
    cJSON_AddNumberToObject(sp, "payload_bytes_per_second", spec->payload_bps);
    cJSON_AddStringToObject(sp, "medium", o->medium);
    if (o->medium_from) { /* what the medium was made from: a device's results, fitted */
        cJSON *from = cJSON_AddObjectToObject(sp, "medium_from");
        cJSON_AddStringToObject(from, "file", o->medium_from);
        cJSON_AddStringToObject(from, "kind", o->medium_fit_rms > 0 ? "fitted" : "profile");
        if (o->medium_fit_rms > 0)
            cJSON_AddNumberToObject(from, "fit_rms_error_percent", o->medium_fit_rms);
    }
    const struct named_u64 asked[] = {
        {"medium_capacity_bytes", spec->capacity_bytes}, {"ram_bytes", o->ram_bytes},
        {"lose_at_most_ns", o->lose_ns}, {"duration_ns", o->duration_ns}, {"seed", o->seed},
        {"lifetime_ns", o->lifetime_ns}, {"medium_endurance", spec->endurance},
        {"medium_erase_bytes", spec->erase_bytes}, {"confirm_for_ns", o->confirm_ns},
        {"power_cuts", o->power_cuts},
    };
    add_numbers(sp, asked, sizeof(asked) / sizeof(asked[0]));
    cJSON_AddNumberToObject(doc, "runs", (double)runs);
    cJSON_AddNumberToObject(doc, "repeats", o->repeat);
    cJSON_AddBoolToObject(sp, "medium_noisy", spec->noisy);
    cJSON_AddBoolToObject(sp, "medium_energy_modelled", spec->energy_modelled);
    if (o->battery_j > 0)
        cJSON_AddNumberToObject(sp, "battery_j", o->battery_j);
    else
        cJSON_AddNullToObject(sp, "battery_j");
    cJSON_AddBoolToObject(doc, "interrupted", interrupted);
    if (n && c[0].fits)
        cJSON_AddNumberToObject(doc, "recommended", 1);
    else
        cJSON_AddNullToObject(doc, "recommended");
    cJSON *arr = cJSON_AddArrayToObject(doc, "configurations");
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(arr, config_json(o, spec, &c[i], i + 1));
    char *text = cJSON_Print(doc);
    cJSON_Delete(doc);
    struct cli_out out;
    int rc = -1;
    if (text && !cli_out_open(&out, "-o", o->output)) {
        (void)cli_out_write(&out, text, strlen(text));
        (void)cli_out_write(&out, "\n", 1);
        rc = cli_out_close(&out, 1);
    }
    free(text);
    return rc;
}

/* Per store: how many fit, the best rank, or what the smallest lossless
 * configuration needs (c is ranked). */
void plan_print_stores(FILE *f, const struct plan_config *c, size_t n)
{
    fputc('\n', f);
    for (size_t i = 0; i < n; i++) {
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(c[j].run->store, c[i].run->store);
        if (seen)
            continue;
        size_t fit = 0, all = 0, ran = 0, lossless = SIZE_MAX;
        for (size_t j = i; j < n; j++)
            if (!strcmp(c[j].run->store, c[i].run->store)) {
                all++;
                ran += (size_t)c[j].done;
                fit += (size_t)c[j].fits;
                if (lossless == SIZE_MAX && c[j].done && c[j].lossless)
                    lossless = j;
            }
        fprintf(f, "%s: %zu of %zu fit", c[i].run->store, fit, all);
        if (fit)
            fprintf(f, ", the best at rank %zu\n", i + 1);
        else if (lossless != SIZE_MAX) {
            char need[24];
            sts_fmt_bytes(need, sizeof(need), c[lossless].ram);
            fprintf(f, "; the smallest lossless one needs %s of RAM (rank %zu)\n", need,
                    lossless + 1);
        } else
            fputs(ran ? "; none is lossless\n" : "; none ran (the runs' error is above)\n", f);
    }
}

/* Nothing fits: what the smallest lossless configuration needs, or the
 * fewest records any lost. */
void plan_say_nothing_fits(const struct plan_opts *o, const struct plan_spec *spec,
                           const struct plan_config *c, size_t n)
{
    char ram[24], need[24];
    sts_fmt_bytes(ram, sizeof(ram), o->ram_bytes);
    /* first what no RAM or buffer mends: the medium lost synced data */
    size_t cut_lost = 0, first = n;
    for (size_t i = 0; i < n; i++)
        if (c[i].cut_checked == -1) {
            cut_lost++;
            first = first < n ? first : i;
        }
    if (first < n) {
        cli_error("no configuration fits: power cuts in the runs of %zu configurations lost data "
                  "a sync had made durable on this medium (the first at rank %zu); it does not keep "
                  "what it acknowledges", cut_lost, first + 1);
        return;
    }
    size_t day_lost = 0;
    first = n;
    for (size_t i = 0; i < n; i++)
        if (c[i].day_checked == -1 || c[i].day_checked == -3) {
            day_lost++;
            first = first < n ? first : i;
        }
    if (first < n) {
        char conf[24];
        sts_fmt_ns(conf, sizeof(conf), (double)o->confirm_ns);
        cli_error("no configuration fits: %zu that fit the sweep's run lost records (or did not "
                  "finish) run alone for %s (the first at rank %zu)", day_lost, conf, first + 1);
        return;
    }
    double allowed = spec->payload_bps * (double)o->lose_ns / 1e9;
    /* lossless within the RAM, what a cut takes within the loss allowed:
     * only --lifetime left */
    size_t longest = n, least_risk = n;
    for (size_t i = 0; i < n; i++) {
        if (!c[i].done || !c[i].lossless || c[i].ram > o->ram_bytes)
            continue;
        if (least_risk == n || c[i].at_risk_bytes < c[least_risk].at_risk_bytes)
            least_risk = i;
        if ((double)c[i].at_risk_bytes <= allowed &&
            (longest == n || c[i].lifetime_years > c[longest].lifetime_years))
            longest = i;
    }
    if (longest < n) {
        char asked[24], lasts[24];
        fmt_lifetime(asked, sizeof(asked), (double)o->lifetime_ns / 86400e9 / 365.0);
        fmt_lifetime(lasts, sizeof(lasts), c[longest].lifetime_years);
        cli_error("no configuration lasts %s on this medium; the longest-lasting lossless one "
                  "within %s wears a block out in %s (rank %zu)", asked, ram, lasts, longest + 1);
        return;
    }
    if (least_risk < n) {
        char risk[24], lose[24];
        sts_fmt_bytes(risk, sizeof(risk), c[least_risk].at_risk_bytes);
        sts_fmt_ns(lose, sizeof(lose), (double)o->lose_ns);
        cli_error("no configuration keeps a power cut to %s of records; the lossless one within "
                  "%s that risks least can lose %s (rank %zu)", lose, ram, risk, least_risk + 1);
        return;
    }
    for (size_t i = 0; i < n; i++)
        if (c[i].done && c[i].lossless) { /* ranked by RAM among the lossless */
            sts_fmt_bytes(need, sizeof(need), c[i].ram);
            cli_error("no configuration fits %s; the smallest lossless one needs %s "
                      "(rank %zu)", ram, need, i + 1);
            return;
        }
    for (size_t i = 0; i < n; i++)
        if (c[i].done) {
            char by[200] = "";
            for (uint32_t k = 0; k < spec->n; k++) /* which streams lost them */
                snprintf(by + strlen(by), sizeof(by) - strlen(by), "; %s %llu", spec->s[k].name,
                         (unsigned long long)c[i].lost_by_stream[k]);
            cli_error("no configuration is lossless on this medium; the best lost %llu "
                      "records (rank %zu%s)", (unsigned long long)(c[i].lost + c[i].late), i + 1,
                      by);
            return;
        }
    cli_error("no configuration ran");
}

void plan_print_head(const struct plan_opts *o, const struct plan_spec *spec, size_t runs)
{
    char ram[24], lose[24], dur[24];
    sts_fmt_bytes(ram, sizeof(ram), o->ram_bytes);
    sts_fmt_ns(lose, sizeof(lose), (double)o->lose_ns);
    sts_fmt_ns(dur, sizeof(dur), (double)o->duration_ns);
    printf("plan for %u stream%s (", spec->n, spec->n == 1 ? "" : "s");
    for (uint32_t i = 0; i < spec->n; i++) {
        printf("%s%s %u Hz x %u B", i ? ", " : "", spec->s[i].name, spec->s[i].rate_hz,
               spec->s[i].record_bytes);
        if (spec->s[i].burst > 1)
            printf(" in bursts of %u", spec->s[i].burst);
    }
    char rate[24];
    sts_fmt_rate(rate, sizeof(rate), spec->payload_bps);
    printf(": %s) on %s, RAM %s, at most %s lost at a power cut\n", rate, o->medium, ram, lose);
    if (o->medium_from && o->medium_fit_rms > 0)
        printf("the medium fitted to %s (within %.1f %% rms of its points: storscope fit)\n",
               o->medium_from, o->medium_fit_rms);
    else if (o->medium_from)
        printf("the medium is the profile %s\n", o->medium_from);
    printf("%zu runs of %s simulated each, 3 writers a run: %zu configurations\n", runs, dur,
           3 * runs);
    if (o->repeat > 1)
        printf("each run with %u seeds (%s), judged on the worst of them: a configuration "
               "fits only if it fits with every seed\n", o->repeat,
               spec->noisy ? "the medium is noisy: its figures change with the seed"
                           : "--repeat");
    char alone[24];
    sts_fmt_ns(alone, sizeof(alone), (double)o->confirm_ns);
    if (o->confirm_ns || o->power_cuts)
        printf("then the front: each configuration %s%s%s%u power cut%s in its run\n",
               o->confirm_ns ? "run alone for " : "", o->confirm_ns ? alone : "",
               o->confirm_ns ? " and " : "", o->power_cuts, o->power_cuts == 1 ? "" : "s");
}
