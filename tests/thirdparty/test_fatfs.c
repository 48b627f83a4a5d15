/* The FatFs adapter on a simulated eMMC: data written reads back at any
 * offset, removed files are gone and their clusters return, and FatFs's
 * results come out as storscope's codes. Built only with -DSTORSCOPE_FATFS_DIR. */
#include "storscope/error.h"
#include "storscope/fatfs_fs.h"
#include "storscope/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define EXPECT(cond)                                                                     \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);         \
            failures++;                                                                  \
        }                                                                                \
    } while (0)

int main(void)
{
    struct sts_sim_params p = *sts_sim_profile_find("emmc-stm32u5");
    p.capacity = 64u << 20;
    p.erase_bytes = 1u << 20;
    size_t arena_bytes = sts_sim_arena_bytes(&p, p.capacity);
    void *arena = malloc(arena_bytes);
    static struct sts_sim sim;
    struct sts_bd bd;
    if (!arena || sts_sim_init(&sim, &p, 1, arena, arena_bytes, p.capacity, &bd)) {
        fprintf(stderr, "cannot build the model\n");
        return 1;
    }
    static struct sts_fatfs f, second;
    struct sts_fatfs_config cfg = {.bd = bd, .cluster_bytes = 4096};
    struct sts_fs fs, fs2;
    EXPECT(sts_fatfs_init(&f, &cfg, &fs) == STS_OK);
    EXPECT(f.cluster_bytes == 4096);
    EXPECT(sts_fatfs_init(&second, &cfg, &fs2) == STS_EBUSY); /* one disk layer */
    const struct sts_fs_ops *o = fs.ops;
    sts_fh fh;
    EXPECT(o->open(fs.ctx, "missing", STS_O_RDONLY, &fh) == STS_ENOENT);
    EXPECT(o->open(fs.ctx, "nodir/x", STS_O_WRONLY | STS_O_CREAT, &fh) == STS_ENOENT);
    EXPECT(o->mkdir(fs.ctx, "d") == STS_OK);
    EXPECT(o->mkdir(fs.ctx, "d") == STS_EEXIST);
    struct sts_statvfs before, with_file, after;
    EXPECT(o->statvfs(fs.ctx, &before) == STS_OK);
    EXPECT(o->open(fs.ctx, "d/a_long_file_name.bin", STS_O_WRONLY | STS_O_CREAT | STS_O_TRUNC,
                   &fh) == STS_OK);
    static uint8_t buf[100000], got[100000];
    for (size_t i = 0; i < sizeof(buf); i++)
        buf[i] = (uint8_t)(i * 31 + 7);
    size_t done = 0;
    EXPECT(o->write(fs.ctx, fh, buf, sizeof(buf), &done) == STS_OK && done == sizeof(buf));
    EXPECT(o->sync(fs.ctx, fh, STS_SYNC_FULL) == STS_OK);
    EXPECT(o->close(fs.ctx, fh) == STS_OK);
    EXPECT(o->rmdir(fs.ctx, "d") == STS_EBUSY); /* not empty */
    struct sts_stat st;
    EXPECT(o->stat(fs.ctx, "d/a_long_file_name.bin", &st) == STS_OK && st.size == sizeof(buf));
    EXPECT(o->stat(fs.ctx, "d", &st) == STS_OK && st.is_dir);
    EXPECT(o->open(fs.ctx, "d/a_long_file_name.bin", STS_O_RDONLY, &fh) == STS_OK);
    EXPECT(o->seek(fs.ctx, fh, 54321) == STS_OK);
    EXPECT(o->read(fs.ctx, fh, got, 1000, &done) == STS_OK && done == 1000);
    EXPECT(memcmp(got, buf + 54321, 1000) == 0);
    EXPECT(o->seek(fs.ctx, fh, 0) == STS_OK);
    EXPECT(o->read(fs.ctx, fh, got, sizeof(got), &done) == STS_OK && done == sizeof(got));
    EXPECT(memcmp(got, buf, sizeof(buf)) == 0);
    EXPECT(o->close(fs.ctx, fh) == STS_OK);
    EXPECT(o->close(fs.ctx, fh) == STS_EINVAL);
    EXPECT(o->statvfs(fs.ctx, &with_file) == STS_OK &&
           with_file.free_bytes + sizeof(buf) <= before.free_bytes);
    EXPECT(o->unlink(fs.ctx, "d/a_long_file_name.bin") == STS_OK);
    EXPECT(o->unlink(fs.ctx, "d/a_long_file_name.bin") == STS_ENOENT);
    EXPECT(o->rmdir(fs.ctx, "d") == STS_OK);
    EXPECT(o->statvfs(fs.ctx, &after) == STS_OK && after.free_bytes == before.free_bytes + 4096);
    sts_fatfs_deinit(&f);
    free(arena);
    printf("FatFs adapter: %s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
