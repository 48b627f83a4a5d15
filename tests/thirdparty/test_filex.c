/* The FileX adapter on a simulated eMMC (adapter_check.h), set up as the
 * study's. Built only with -DSTORSCOPE_FILEX_DIR. */
#include "adapter_check.h"
#include "storscope/filex_fs.h"
#include "storscope/sim.h"

#include <stdlib.h>

int main(void)
{
    struct sts_sim_params p = *sts_sim_profile_find("emmc-stm32u5");
    p.capacity = 64u << 20;
    p.erase_bytes = 1u << 20;
    size_t arena_bytes = sts_sim_arena_bytes(&p, p.capacity);
    void *arena = malloc(arena_bytes);
    static struct sts_sim sim;
    static struct sts_filex f;
    struct sts_bd bd;
    struct sts_fs fs;
    if (!arena || sts_sim_init(&sim, &p, 1, arena, arena_bytes, p.capacity, &bd))
        return 1;
    struct sts_filex_config cfg = {.bd = bd};
    EXPECT(sts_filex_init(&f, &cfg, &fs) == STS_OK);
    EXPECT(f.cluster_bytes == 4096 && f.cfg.cache_bytes == 512); /* the study's setup */
    int rc = adapter_failures ? 1 : check_adapter("FileX", fs, 0);
    sts_filex_deinit(&f);
    free(arena);
    return rc;
}
