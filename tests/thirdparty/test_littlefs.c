/* The littlefs adapter on a simulated NOR flash (adapter_check.h). Built
 * only with -DSTORSCOPE_LITTLEFS_DIR. */
#include "adapter_check.h"
#include "storscope/littlefs_fs.h"
#include "storscope/sim.h"

#include <stdlib.h>

int main(void)
{
    struct sts_sim_params p = *sts_sim_profile_find("nor-spi");
    p.capacity = 4u << 20;
    size_t arena_bytes = sts_sim_arena_bytes(&p, p.capacity);
    void *arena = malloc(arena_bytes);
    static struct sts_sim sim;
    static struct sts_littlefs l;
    struct sts_bd bd;
    struct sts_fs fs;
    if (!arena || sts_sim_init(&sim, &p, 1, arena, arena_bytes, p.capacity, &bd))
        return 1;
    struct sts_littlefs_config cfg = {.bd = bd};
    EXPECT(sts_littlefs_init(&l, &cfg, &fs) == STS_OK);
    /* littlefs may keep a metadata pair or two once the directory is gone */
    int rc = adapter_failures ? 1 : check_adapter("littlefs", fs, 2 * l.lc.block_size);
    sts_littlefs_deinit(&l);
    free(arena);
    return rc;
}
