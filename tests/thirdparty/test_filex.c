/* The FileX adapter on a simulated eMMC (adapter_check.h), set up as the
 * study's. Built only with -DSTORSCOPE_FILEX_DIR. */
#include "adapter_check.h"
#include "storscope/filex_fs.h"
#include "storscope/sim.h"

#include <stdlib.h>

/* A device that records the order of its writing commands (p program, e
 * erase/trim, f flush) over the model, for the trims' place among them. */
static struct sts_bd rec_inner;
static char rec_log[4096];
static size_t rec_n;
static void rec(char c)
{
    if (rec_n + 1 < sizeof(rec_log))
        rec_log[rec_n++] = c;
}
static int rec_read(void *ctx, uint64_t a, void *b, size_t n)
{
    (void)ctx;
    return rec_inner.ops->read(rec_inner.ctx, a, b, n);
}
static int rec_program(void *ctx, uint64_t a, const void *b, size_t n)
{
    (void)ctx;
    rec('p');
    return rec_inner.ops->program(rec_inner.ctx, a, b, n);
}
static int rec_erase(void *ctx, uint64_t a, uint64_t n)
{
    (void)ctx;
    rec('e');
    return rec_inner.ops->erase(rec_inner.ctx, a, n);
}
static int rec_flush(void *ctx)
{
    (void)ctx;
    rec('f');
    return rec_inner.ops->flush(rec_inner.ctx);
}
static void rec_geometry(void *ctx, struct sts_bd_geometry *g)
{
    (void)ctx;
    rec_inner.ops->geometry(rec_inner.ctx, g);
}
static const struct sts_bd_ops rec_ops = {.version = STS_BD_OPS_VERSION, .read = rec_read,
                                          .program = rec_program, .erase = rec_erase,
                                          .flush = rec_flush, .geometry = rec_geometry};

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
                {"names", "lower", 0},  {"trim", "on", 1},      {"trim", "yes", 0}};
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
    /* trim=on (issue 46, defect 1): what FileX frees - a deleted file, a
     * truncated one, a removed directory - is trimmed on the device, so its
     * FTL holds the live files only (the deleted file's pages, less the two
     * it may share at its ends); what FileX hands out again reads back what
     * was written into it, and the file kept is untouched */
    unsigned long held[2] = {0, 0};
    static uint8_t pat[65536], back[65536];
    for (int trim = 0; trim <= 1 && !rc; trim++) {
        struct sts_filex_config c = {.bd = bd, .trim = (uint8_t)trim};
        if (sts_sim_init(&sim, &p, 1, arena, arena_bytes, p.capacity, &bd))
            return 1;
        c.bd = bd;
        EXPECT(sts_filex_init(&f, &c, &fs) == STS_OK);
        static const char *const names[] = {"keep", "gone", "again", "again"};
        static const size_t sizes[] = {256u << 10, 4u << 20, 1u << 20, 1u << 20};
        for (int k = 0; k < 4; k++) {
            sts_fh fh;
            size_t done;
            EXPECT(fs.ops->open(fs.ctx, names[k], STS_O_WRONLY | STS_O_CREAT | STS_O_TRUNC,
                                &fh) == STS_OK);
            for (size_t off = 0; off < sizes[k]; off += sizeof(pat)) {
                for (size_t i = 0; i < sizeof(pat); i++)
                    pat[i] = (uint8_t)(k * 67 + (off + i) * 13 + (off + i) / 4099);
                EXPECT(fs.ops->write(fs.ctx, fh, pat, sizeof(pat), &done) == STS_OK);
            }
            EXPECT(fs.ops->close(fs.ctx, fh) == STS_OK);
            if (k == 1)
                EXPECT(fs.ops->unlink(fs.ctx, "gone") == STS_OK);
        }
        for (uint32_t lp = 0; lp < sim.n_lpages; lp++)
            held[trim] += sim.l2p[lp] != 0;
        EXPECT(fs.ops->mkdir(fs.ctx, "e") == STS_OK);
        EXPECT(fs.ops->rmdir(fs.ctx, "e") == STS_OK);
        for (int k = 0; k < 4; k += 3) { /* "keep", and "again" as last written */
            sts_fh fh;
            size_t done;
            EXPECT(fs.ops->open(fs.ctx, names[k], STS_O_RDONLY, &fh) == STS_OK);
            for (size_t off = 0; off < sizes[k]; off += sizeof(pat)) {
                for (size_t i = 0; i < sizeof(pat); i++)
                    pat[i] = (uint8_t)(k * 67 + (off + i) * 13 + (off + i) / 4099);
                EXPECT(fs.ops->read(fs.ctx, fh, back, sizeof(back), &done) == STS_OK &&
                       done == sizeof(back) && !memcmp(pat, back, sizeof(back)));
            }
            EXPECT(fs.ops->close(fs.ctx, fh) == STS_OK);
        }
        sts_filex_deinit(&f);
    }
    printf("FileX trim: the FTL holds %lu pages without trim, %lu with\n", held[0], held[1]);
    /* the trims come after the flush that made the delete durable, never
     * between FileX's metadata writes and it: a power cut there would keep
     * the file with its data trimmed. Each trim is preceded by a flush or
     * by another trim of the same batch. */
    if (!rc) {
        if (sts_sim_init(&sim, &p, 1, arena, arena_bytes, p.capacity, &rec_inner))
            return 1;
        struct sts_filex_config c = {.bd = {&rec_ops, NULL}, .trim = 1};
        EXPECT(sts_filex_init(&f, &c, &fs) == STS_OK);
        sts_fh fh;
        size_t done;
        EXPECT(fs.ops->open(fs.ctx, "gone", STS_O_WRONLY | STS_O_CREAT, &fh) == STS_OK);
        for (int k = 0; k < 32; k++)
            EXPECT(fs.ops->write(fs.ctx, fh, pat, sizeof(pat), &done) == STS_OK);
        EXPECT(fs.ops->close(fs.ctx, fh) == STS_OK);
        rec_n = 0;
        EXPECT(fs.ops->unlink(fs.ctx, "gone") == STS_OK);
        rec_log[rec_n] = '\0';
        int trims = 0;
        for (size_t i = 0; i < rec_n; i++)
            if (rec_log[i] == 'e') {
                trims++;
                EXPECT(i > 0 && (rec_log[i - 1] == 'f' || rec_log[i - 1] == 'e'));
            }
        EXPECT(trims >= 1 && strchr(rec_log, 'p') && strchr(rec_log, 'p') < strchr(rec_log, 'f'));
        printf("FileX trim: a delete's commands %s\n", rec_log);
        sts_filex_deinit(&f);
    }
    /* the deleted file's 4 MiB and the truncated 1 MiB, in 16 KiB pages */
    EXPECT(held[0] >= held[1] + (5u << 20) / p.page_bytes - 4);
    free(arena);
    /* one walk each (the lookup fails at the directory-name test), plus
     * the same reads of the parent on both sides: the difference is the
     * long-name entries, 64 x 32 B = 4 sectors */
    printf("FileX names: a missing name looked up among 64 files in %lu device reads as "
           "given, %lu upper-case\n", walked[0], walked[1]);
    EXPECT(walked[1] >= 4 && walked[0] - walked[1] == 64 * 32 / 512);
    return rc || adapter_failures ? 1 : 0;
}
