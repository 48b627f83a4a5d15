/* The FatFs adapter on a simulated eMMC (adapter_check.h), and its one
 * disk layer. Built only with -DSTORSCOPE_FATFS_DIR. */
#include "adapter_check.h"
#include "storscope/fatfs_fs.h"
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
    static struct sts_fatfs f, second;
    struct sts_bd bd;
    struct sts_fs fs, fs2;
    if (!arena || sts_sim_init(&sim, &p, 1, arena, arena_bytes, p.capacity, &bd))
        return 1;
    struct sts_fatfs_config cfg = {.bd = bd, .cluster_bytes = 4096};
    EXPECT(sts_fatfs_init(&f, &cfg, &fs) == STS_OK);
    EXPECT(f.cluster_bytes == 4096);
    EXPECT(sts_fatfs_init(&second, &cfg, &fs2) == STS_EBUSY); /* one disk layer */
    int rc = adapter_failures ? 1 : check_adapter("FatFs", fs, 0);
    sts_fatfs_deinit(&f);
    free(arena);
    return rc;
}
