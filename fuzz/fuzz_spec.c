/* libFuzzer: the command line's value parsers on any bytes. The first line
 * is a target string (sts_target_spec_parse); for sim: its options go
 * through the simulator's key=value overrides and its parameter check. The
 * other lines each go to the size, duration, number, bool and scale
 * parsers. Run: scripts/fuzz.sh (corpus in fuzz/corpus/spec). */
#include "storscope/sim.h"
#include "storscope/suite.h"
#include "storscope/target.h"
#include "storscope/units.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char text[4096];
    size = size < sizeof(text) - 1 ? size : sizeof(text) - 1;
    memcpy(text, data, size);
    text[size] = '\0';
    char *line = text, *next = strchr(text, '\n');
    if (next)
        *next++ = '\0';
    static struct sts_target_spec spec;
    const char *why = NULL;
    if (sts_target_spec_parse(line, &spec, &why) == 0 && !strcmp(spec.kind, "sim")) {
        const struct sts_sim_params *base = sts_sim_profile_find(spec.arg);
        struct sts_sim_params p = base ? *base : sts_sim_profiles[0];
        for (uint32_t i = 0; i < spec.n_opts; i++)
            (void)sts_sim_param_set(&p, spec.opts[i].key, spec.opts[i].value);
        (void)sts_sim_check(&p, &why);
        if (!sts_sim_check(&p, NULL))
            (void)sts_sim_arena_bytes(&p, p.capacity);
    }
    while (next) {
        line = next;
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        uint64_t v;
        int b;
        enum sts_scale sc;
        (void)sts_parse_size(line, &v);
        (void)sts_parse_duration(line, &v);
        (void)sts_parse_u64(line, &v);
        (void)sts_parse_bool(line, &b);
        (void)sts_scale_parse(line, &sc);
    }
    return 0;
}
