/* The target options that make a model noisy (noise=, stalls=, bimodal=),
 * read on the host: the portable simulator takes the numbers only
 * (sts_sim_set_noise), so a firmware pays for no parser. */
#include "storscope/error.h"
#include "storscope/sim.h"
#include "storscope/units.h"

#include <string.h>

/* A decimal ("0.1", "2", "2.5", "10%") times scale, rounded down, into
 * *out; the text ends at `end` (NULL: at its NUL). */
static int parse_scaled(const char *s, const char *end, uint64_t scale, uint64_t *out)
{
    uint64_t v = 0, div = 1;
    int digits = 0, dot = 0;
    if (!end)
        end = s + strlen(s);
    if (end > s && end[-1] == '%') {
        end--;
        div = 100;
    }
    for (; s < end; s++) {
        if (*s == '.' && !dot) {
            dot = 1;
            continue;
        }
        if (*s < '0' || *s > '9' || v > UINT64_MAX / 100 / scale || div > 1000000000ull)
            return STS_EINVAL;
        v = v * 10 + (uint64_t)(*s - '0');
        digits++;
        div *= dot ? 10 : 1;
    }
    if (!digits)
        return STS_EINVAL;
    *out = v * scale / div;
    return STS_OK;
}

int sts_sim_noise_parse(struct sts_sim_noise *n, const char *key, const char *value,
                        const char **why)
{
    const char *colon = strchr(value, ':');
    uint64_t a = 0, b = 0;
    if (!strcmp(key, "noise")) {
        *why = "noise= takes a coefficient of variation from 0 to 10 (0.1, or 10%)";
        if (parse_scaled(value, NULL, 1000, &a) || a > 10000)
            return STS_EINVAL;
        n->cv_permille = (uint32_t)a;
        return STS_OK;
    }
    if (!strcmp(key, "stalls")) {
        *why = "stalls= takes RATE:DURATION, stalls a second and how long each lasts "
               "(0.5:100ms)";
        if (!colon || parse_scaled(value, colon, 1000, &a) || a > UINT32_MAX ||
            sts_parse_duration(colon + 1, &b) || (a && !b))
            return STS_EINVAL;
        n->stall_rate_millihz = (uint32_t)a;
        n->stall_ns = b;
        return STS_OK;
    }
    if (!strcmp(key, "bimodal")) {
        *why = "bimodal= takes P:FACTOR, the share of commands (0 to 1, or a percent) and "
               "how many times slower they are (1 to 1000) (0.05:10)";
        if (!colon || parse_scaled(value, colon, 1000, &a) || a > 1000 ||
            parse_scaled(colon + 1, NULL, 100, &b) || b < 100 || b > 100000)
            return STS_EINVAL;
        n->bimodal_permille = (uint32_t)a;
        n->bimodal_x100 = (uint32_t)b;
        return STS_OK;
    }
    if (!strcmp(key, "drift")) {
        *why = "drift= takes CV:PERIOD, the spread of the device's speed from spell to spell "
               "(0 to 10, or a percent) and how long a spell lasts (0.2:50ms)";
        if (!colon || parse_scaled(value, colon, 1000, &a) || a > 10000 ||
            sts_parse_duration(colon + 1, &b) || (a && !b))
            return STS_EINVAL;
        n->drift_cv_permille = (uint32_t)a;
        n->drift_period_ns = b;
        return STS_OK;
    }
    return STS_ENOENT;
}
