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
    /* options FAT or the adapter cannot take are refused as options, not
     * found out by a format that fails (cluster=1M came back as an I/O
     * error, cache=100 as "cannot format this medium") */
    static const struct {
        const char *key, *value;
        int ok;
    } opts[] = {{"cluster", "512", 1}, {"cluster", "64K", 1}, {"cluster", "3", 0},
                {"cluster", "1536", 0}, {"cluster", "128K", 0}, {"cluster", "1M", 0},
                {"cache", "512", 1},    {"cache", "32K", 1},    {"cache", "100", 0},
                {"cache", "64K", 0},    {"cache", "0", 0},      {"names", "upper", 1},
                {"names", "lower", 0}};
    for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
        struct sts_filex_config o = {.bd = bd};
        int rc = sts_filex_option(&o, opts[i].key, opts[i].value);
        if ((rc == 0) != opts[i].ok) {
            printf("FAIL: option %s=%s: %d\n", opts[i].key, opts[i].value, rc);
            adapter_failures++;
        }
    }
    EXPECT(sts_filex_init(&f, &cfg, &fs) == STS_OK);
    EXPECT(f.cluster_bytes == 4096 && f.cfg.cache_bytes == 512); /* the study's setup */
    int rc = adapter_failures ? 1 : check_adapter("FileX", fs, 0);
    sts_filex_deinit(&f);
    /* names=upper: a lower-case 8.3-sized name takes one directory entry
     * (its short one), as given it takes two (a long-name entry too); the
     * files are found under either case, as FAT finds them. With FileX's
     * one-sector cache, looking up a name that is not there reads every
     * directory sector from the device: twice as many as given (64 x 2
     * entries x 32 B: 8 sectors) as upper-case (4). (A name just created
     * would come from FileX's last-found cache without a read.) */
    unsigned long walked[2];
    for (int upper = 0; upper <= 1 && !rc; upper++) {
        struct sts_filex_config c = {.bd = bd, .upper_names = (uint8_t)upper};
        if (sts_sim_init(&sim, &p, 1, arena, arena_bytes, p.capacity, &bd))
            return 1;
        c.bd = bd;
        EXPECT(sts_filex_init(&f, &c, &fs) == STS_OK);
        EXPECT(fs.ops->mkdir(fs.ctx, "d") == STS_OK);
        char name[16] = "d/f00000";
        sts_fh fh;
        for (int i = 0; i < 64; i++) {
            name[6] = (char)('0' + i / 10);
            name[7] = (char)('0' + i % 10);
            EXPECT(fs.ops->open(fs.ctx, name, STS_O_WRONLY | STS_O_CREAT, &fh) == STS_OK);
            EXPECT(fs.ops->close(fs.ctx, fh) == STS_OK);
        }
        uint64_t before = sim.n.reads;
        struct sts_stat st;
        EXPECT(fs.ops->stat(fs.ctx, "d/x00063", &st) == STS_ENOENT);
        walked[upper] = (unsigned long)(sim.n.reads - before);
        EXPECT(fs.ops->stat(fs.ctx, "D/F00063", &st) == STS_OK); /* FAT: any case */
        EXPECT(fs.ops->stat(fs.ctx, "d/f00007", &st) == STS_OK);
        sts_filex_deinit(&f);
    }
    free(arena);
    /* one walk each (the lookup fails at the directory-name test), plus
     * the same reads of the parent on both sides: the difference is the
     * long-name entries, 64 x 32 B = 4 sectors */
    printf("FileX names: a missing name looked up among 64 files in %lu device reads as "
           "given, %lu upper-case\n", walked[0], walked[1]);
    EXPECT(walked[1] >= 4 && walked[0] - walked[1] == 64 * 32 / 512);
    return rc || adapter_failures ? 1 : 0;
}
