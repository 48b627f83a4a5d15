/* Part of the device model (src/bd/sim.c includes it): device time: the noise options (noise=, stalls=, bimodal=, drift=) and what a command's time is charged to.
 * The model's parts are one translation unit, so their static functions
 * inline across them as they did in one file; the Cortex-M33 engine
 * budget (scripts/footprint.sh) counts on it. Not compiled on its own. */
/* ---- commands ------------------------------------------------------------ */
#if STS_SIM_NOISE
/* A uniform draw in (0, 1]. */
static double unit_draw(struct sts_rng *r)
{
    return ((double)(sts_rng_next(r) >> 11) + 1.0) / 9007199254740992.0;
}

/* When the background stall after `now` comes: exponential gaps, a Poisson
 * process of stall_rate_millihz per 1000 s. */
static uint64_t next_stall(struct sts_sim *s, uint64_t now)
{
    double gap_s = -log(unit_draw(&s->noise_rng)) * 1000.0 / (double)s->noise.stall_rate_millihz;
    return now + (uint64_t)(gap_s * 1e9) + 1;
}

/* A lognormal factor of mean 1 and coefficient of variation cv_permille / 1000. */
static double lognormal(struct sts_rng *r, uint32_t cv_permille)
{
    double cv = cv_permille / 1000.0, var = log(1.0 + cv * cv);
    double z = sqrt(-2.0 * log(unit_draw(r))) * cos(6.283185307179586 * unit_draw(r)); /* Box-Muller */
    return exp(sqrt(var) * z - var / 2.0);
}

/* A command's time t with the device's noise: a lognormal factor (mean 1,
 * the given CV), the spell's speed, the slow mode of a bimodal device, and
 * a background stall when one came due. Noiseless devices draw nothing. */
static uint64_t noisy(struct sts_sim *s, uint64_t t)
{
    const struct sts_sim_noise *p = &s->noise;
    if (p->cv_permille && t)
        t = (uint64_t)((double)t * lognormal(&s->noise_rng, p->cv_permille));
    if (p->drift_cv_permille && p->drift_period_ns && t) {
        /* the command's work goes at each spell's speed while that spell
         * lasts: a command taking its start's factor alone would let the
         * commands shorter than a spell see fast spells more often than
         * slow ones (more of them start there) and the longer not, and
         * bend the curve by chunk size */
        double work = (double)t, took = 0;
        for (;;) {
            uint64_t at = s->now_ns + (uint64_t)took;
            if (at >= s->drift_until_ns) { /* a new spell, on the period's grid */
                s->drift_factor = (float)lognormal(&s->noise_rng, p->drift_cv_permille);
                s->drift_until_ns = (at / p->drift_period_ns + 1) * p->drift_period_ns;
            }
            double left = (double)(s->drift_until_ns - at), f = s->drift_factor;
            if (work * f <= left) {
                took += work * f;
                break;
            }
            took += left;
            work -= left / f;
        }
        t = (uint64_t)took;
    }
    if (p->bimodal_permille && sts_rng_below(&s->noise_rng, 1000) < p->bimodal_permille)
        t = t * p->bimodal_x100 / 100;
    if (p->stall_rate_millihz && p->stall_ns) {
        if (!s->next_stall_ns)
            s->next_stall_ns = next_stall(s, s->now_ns);
        if (s->now_ns + t >= s->next_stall_ns) { /* it came while this command ran */
            t += p->stall_ns;
            s->n.stalls++;
            s->next_stall_ns = next_stall(s, s->now_ns + t);
        }
    }
    return t;
}

#else
/* a firmware's model is noiseless (STS_SIM_NOISE, sim.h) */
static uint64_t noisy(struct sts_sim *s, uint64_t t)
{
    (void)s;
    return t;
}
#endif

/* The class of current the next charge() is drawn at (STS_SIM_ENERGY). */
#if STS_SIM_ENERGY
#define DRAWS(s, class) ((s)->energy_class = (uint8_t)(class))
#else
#define DRAWS(s, class) ((void)0)
#endif

/* len: the size of a write (the anomaly is a write-path one), else 0 */
static void charge(struct sts_sim *s, uint64_t t, size_t len, int stalled)
{
    t = noisy(s, t);
    if (s->p.dip_bytes && len == s->p.dip_bytes)
        t += t * s->p.dip_percent / 100;
    s->n.busy_ns += t;
#if STS_SIM_ENERGY
    s->n.busy_class_ns[s->energy_class] += t;
#endif
    s->now_ns += t + s->p.cpu_ns;
    if (stalled)
        s->n.stalls++;
}
