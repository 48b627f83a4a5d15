/* The model's counters as a run's points carry them ("device" in the
 * results): what the host target and the MCU images report alike, so a
 * report can tell what the medium did during each point (its garbage
 * collection above all) wherever the run was made. A file of its own, not
 * part of sim.c: a firmware that reports no counters links none of it. */
#include "storscope/result.h"
#include "storscope/sim.h"

#include <stdint.h>

#if STS_SIM_ENERGY
/* Charge is current x time, energy charge x voltage: each class's busy time
 * at its current, and the time since *last that the device was not busy at
 * the standby current (the caller's own time, a wait, a sleep). */
uint64_t sts_sim_energy_nj(const struct sts_sim *s, const struct sts_sim_counters *last)
{
    const struct sts_sim_params *p = &s->p;
    const uint32_t na[STS_SIM_E_CLASSES] = {p->read_na, p->program_na, p->erase_na};
    double nas_busy = 0; /* nanoamp-nanoseconds */
    for (int c = 0; c < STS_SIM_E_CLASSES; c++)
        nas_busy += (double)na[c] * (double)(s->n.busy_class_ns[c] - last->busy_class_ns[c]);
    uint64_t elapsed = s->now_ns - last->seen_ns, busy = s->n.busy_ns - last->busy_ns;
    /* (a command submitted without waiting may end after now: no idle then) */
    double idle = elapsed > busy ? (double)(elapsed - busy) : 0.0;
    double nas = nas_busy + (double)p->idle_na * idle;
    /* mV x nA x ns = 1e-3 V x 1e-9 A x 1e-9 s = 1e-21 J = 1e-12 nJ */
    return (uint64_t)((double)p->supply_mv * nas * 1e-12 + 0.5);
}
#endif

size_t sts_sim_counters_kv(const struct sts_sim *s, struct sts_sim_counters *last,
                           struct sts_kv *out, size_t max)
{
    const struct sts_sim_counters *n = &s->n, *l = last;
    size_t k = 0;
#define D(name, field) \
    if (k < max) out[k++] = STS_KV_U(name, n->field - l->field)
    D("reads", reads);
    D("programs", programs);
    D("erases", erases);
    D("trims", trims);
    D("flushes", flushes);
    D("bytes_read", bytes_read);
    D("bytes_written", bytes_written);
    D("pages_programmed", pages_programmed);
    D("gc_runs", gc_runs);
    D("gc_pages_copied", gc_pages_copied);
    D("wear_level_moves", wl_moves);
    D("blocks_erased", blocks_erased);
    D("stalls", stalls);
    D("device_busy_ns", busy_ns);
    D("injected_errors", injected_errors);
    D("power_cuts", power_cuts);
    D("pages_lost", pages_lost);
#undef D
    uint64_t host = n->bytes_written - l->bytes_written;
    uint64_t flash = (n->pages_programmed - l->pages_programmed) * s->p.page_bytes;
    if (k < max)
        out[k++] = STS_KV_D("write_amplification", host ? (double)flash / (double)host : 0.0);
    uint32_t lo = UINT32_MAX, hi = 0;
    for (uint32_t b = 0; b < s->n_blocks; b++) {
        uint32_t e = s->blocks[b].erases;
        lo = e < lo ? e : lo;
        hi = e > hi ? e : hi;
    }
    if (k + 1 < max) {
        out[k++] = STS_KV_U("erase_count_min", lo);
        out[k++] = STS_KV_U("erase_count_max", hi);
    }
#if STS_SIM_ENERGY
    if (s->p.supply_mv && k < max)
        out[k++] = STS_KV_U("energy_nj", sts_sim_energy_nj(s, l));
#endif
    *last = *n;
#if STS_SIM_ENERGY
    last->seen_ns = s->now_ns;
#endif
    return k;
}
