/* The seam where filesystems meet block devices (storscope/fs_stack.h): one
 * table of the filesystems this build has, each opened on whatever device a
 * target kind hands over. The rules that depend on the device, not on the
 * kind that opened it, live here: a filesystem that formats needs a
 * writable device, FAT rewrites sectors in place (an FTL below it, not raw
 * flash), bare extents cannot write raw NAND. */
#include "storscope/fs_stack.h"
#include "storscope/error.h"
#include "storscope/extentfs.h"
#include "storscope/sensorlog_fs.h"
#include "storscope/units.h"
#ifdef STORSCOPE_HAVE_LITTLEFS
#include "storscope/littlefs_fs.h"
#endif
#ifdef STORSCOPE_HAVE_FATFS
#include "storscope/fatfs_fs.h"
#endif
#ifdef STORSCOPE_HAVE_FILEX
#include "storscope/filex_fs.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXTENT_FILES 8 /* the workloads open at most a few at once */

struct sts_fs_stack {
    const struct fs_kind *kind;
    /* [base, end) of the medium as a device of its own, for filesystems
     * that format from address 0 */
    struct sts_bd under, window;
    uint64_t base, end;
    struct sts_extentfs efs;
    struct sts_extentfs_file files[EXTENT_FILES];
    struct sts_slfs_stack *slfs;
#ifdef STORSCOPE_HAVE_LITTLEFS
    struct sts_littlefs *lfs;
#endif
#ifdef STORSCOPE_HAVE_FATFS
    struct sts_fatfs *fat;
#endif
#ifdef STORSCOPE_HAVE_FILEX
    struct sts_filex *fx;
#endif
};

struct fs_kind {
    const char *name;
    unsigned flags;  /* STS_T_* it gives its target */
    int formats;     /* writes its own layout: needs a writable device */
    int in_place;    /* rewrites sectors in place: needs an FTL, not raw flash */
    int (*open)(struct sts_fs_stack *s, const struct sts_target_spec *spec,
                const struct sts_fs_medium *m, struct sts_target *t, char *err, size_t errlen);
    void (*close)(struct sts_fs_stack *s);
};

#if defined(STORSCOPE_HAVE_LITTLEFS) || defined(STORSCOPE_HAVE_FATFS) || \
    defined(STORSCOPE_HAVE_FILEX)
/* ---- the window: [base, end) seen from address 0 ------------------------ */
static int win_read(void *ctx, uint64_t a, void *b, size_t n)
{
    struct sts_fs_stack *s = ctx;
    if (a > s->end - s->base || n > s->end - s->base - a)
        return STS_ERANGE;
    return s->under.ops->read(s->under.ctx, s->base + a, b, n);
}
static int win_program(void *ctx, uint64_t a, const void *b, size_t n)
{
    struct sts_fs_stack *s = ctx;
    if (a > s->end - s->base || n > s->end - s->base - a)
        return STS_ERANGE;
    return s->under.ops->program(s->under.ctx, s->base + a, b, n);
}
static int win_erase(void *ctx, uint64_t a, uint64_t n)
{
    struct sts_fs_stack *s = ctx;
    if (a > s->end - s->base || n > s->end - s->base - a)
        return STS_ERANGE;
    return s->under.ops->erase(s->under.ctx, s->base + a, n);
}
static int win_flush(void *ctx)
{
    struct sts_fs_stack *s = ctx;
    return s->under.ops->flush(s->under.ctx);
}
static void win_geometry(void *ctx, struct sts_bd_geometry *g)
{
    struct sts_fs_stack *s = ctx;
    s->under.ops->geometry(s->under.ctx, g);
    g->capacity = s->end - s->base;
}
static const struct sts_bd_ops window_ops = {
    .version = STS_BD_OPS_VERSION, win_read, win_program, win_erase, win_flush, win_geometry, NULL,
    NULL, NULL
};

/* The medium's region as its own device: the device itself when the region
 * is all of it. */
static struct sts_bd region_of(struct sts_fs_stack *s)
{
    struct sts_bd_geometry g;
    memset(&g, 0, sizeof(g));
    s->under.ops->geometry(s->under.ctx, &g);
    if (!s->base && (!s->end || s->end == g.capacity))
        return s->under;
    if (!s->end)
        s->end = g.capacity;
    s->window.ops = &window_ops;
    s->window.ctx = s;
    return s->window;
}
#endif

/* ---- extentfs: files as bare extents ------------------------------------ */
static int extent_open(struct sts_fs_stack *s, const struct sts_target_spec *spec,
                       const struct sts_fs_medium *m, struct sts_target *t, char *err,
                       size_t errlen)
{
    (void)t;
    if (spec->n_fs_opts) {
        snprintf(err, errlen, "+extentfs: unknown option '%s' (it takes none)",
                 spec->fs_opts[0].key);
        return STS_EINVAL;
    }
    struct sts_bd_geometry g;
    memset(&g, 0, sizeof(g));
    m->bd.ops->geometry(m->bd.ctx, &g);
    if (g.flags & STS_BD_PROGRAM_ONCE) {
        /* Bare extents would need a bad-block table and whole-page writes,
         * which is a flash store's job: every figure would be an I/O error
         * or a number no raw-NAND user sees. NOR (byte-programmable, no
         * factory bad blocks) runs bare, paying an erase per block. */
        snprintf(err, errlen, "%s: raw NAND needs a store that skips its bad blocks and "
                              "writes whole pages; bare extents do neither. Measure it "
                              "through one: %s+sensorlog or %s+littlefs",
                 m->shown, m->shown, m->shown);
        return STS_EINVAL;
    }
    struct sts_extentfs_config cfg = {.bd = m->bd, .files = s->files, .n_files = EXTENT_FILES,
                                      .base = m->base, .existing_data = m->read_only};
    int rc = sts_extentfs_init(&s->efs, &cfg, &t->fs);
    if (!rc && m->end)
        s->efs.capacity = m->end;
    return rc;
}

/* ---- sensorlog: its files are streams (slfs_stack.c) -------------------- */
static int slfs_open(struct sts_fs_stack *s, const struct sts_target_spec *spec,
                     const struct sts_fs_medium *m, struct sts_target *t, char *err,
                     size_t errlen)
{
    if (m->end) { /* the log lays its segments up to the device's end */
        snprintf(err, errlen, "%s+sensorlog: size= bounds bare extents; the log takes the "
                              "device from offset= to its end", m->shown);
        return STS_EINVAL;
    }
    return sts_slfs_stack_open(&s->slfs, m->bd, spec, m->base, &t->fs, err, errlen);
}

static void slfs_close(struct sts_fs_stack *s)
{
    sts_slfs_stack_close(s->slfs);
    s->slfs = NULL;
}

#define STS_STR2(x) #x
#define STS_STR(x) STS_STR2(x)

#ifdef STORSCOPE_HAVE_LITTLEFS
/* The user's littlefs: block=, cache=, lookahead=, cycles=. */
static int lfs_open_on(struct sts_fs_stack *s, const struct sts_target_spec *spec,
                       const struct sts_fs_medium *m, struct sts_target *t, char *err,
                       size_t errlen)
{
    (void)m;
    struct sts_littlefs_config c = {.bd = region_of(s)};
    for (uint32_t i = 0; i < spec->n_fs_opts; i++) {
        const char *k = spec->fs_opts[i].key, *v = spec->fs_opts[i].value;
        uint64_t x = 0;
        int rc = sts_parse_size(v, &x);
        if (!rc && !strcmp(k, "block"))
            c.block_bytes = (uint32_t)x;
        else if (!rc && !strcmp(k, "cache"))
            c.cache_bytes = (uint32_t)x;
        else if (!rc && !strcmp(k, "lookahead"))
            c.lookahead_bytes = (uint32_t)x;
        else if (!rc && !strcmp(k, "cycles"))
            c.block_cycles = (int32_t)x;
        else {
            snprintf(err, errlen, "+littlefs: bad option '%s=%s' (block=, cache=, lookahead=, "
                                  "cycles=)", k, v);
            return STS_EINVAL;
        }
    }
    s->lfs = calloc(1, sizeof(*s->lfs));
    if (!s->lfs)
        return STS_ENOMEM;
    int rc = sts_littlefs_init(s->lfs, &c, &t->fs);
    if (rc) {
        snprintf(err, errlen, "+littlefs: cannot format this medium (%s)", sts_strerror(rc));
        free(s->lfs);
        s->lfs = NULL;
        return rc;
    }
    sts_target_env(t, STS_KV_S("littlefs_version", "2.x (LFS_VERSION " STS_STR(LFS_VERSION) ")"));
    sts_target_env(t, STS_KV_U("littlefs_block_bytes", s->lfs->cfg.block_bytes));
    sts_target_env(t, STS_KV_U("littlefs_cache_bytes", s->lfs->cfg.cache_bytes));
    sts_target_env(t, STS_KV_U("littlefs_lookahead_bytes", s->lfs->cfg.lookahead_bytes));
    sts_target_env(t, STS_KV_I("littlefs_block_cycles", s->lfs->cfg.block_cycles));
    return STS_OK;
}

static void lfs_close(struct sts_fs_stack *s)
{
    if (s->lfs) {
        sts_littlefs_deinit(s->lfs);
        free(s->lfs);
        s->lfs = NULL;
    }
}
#endif

#ifdef STORSCOPE_HAVE_FATFS
/* The user's FatFs: cluster=, fats=. */
static int fat_open_on(struct sts_fs_stack *s, const struct sts_target_spec *spec,
                       const struct sts_fs_medium *m, struct sts_target *t, char *err,
                       size_t errlen)
{
    (void)m;
    struct sts_fatfs_config c = {.bd = region_of(s)};
    for (uint32_t i = 0; i < spec->n_fs_opts; i++) {
        const char *k = spec->fs_opts[i].key, *v = spec->fs_opts[i].value;
        uint64_t x = 0;
        int rc = sts_parse_size(v, &x);
        if (!rc && !strcmp(k, "cluster"))
            c.cluster_bytes = (uint32_t)x;
        else if (!rc && !strcmp(k, "fats") && (x == 1 || x == 2))
            c.n_fats = (uint8_t)x;
        else {
            snprintf(err, errlen, "+fatfs: bad option '%s=%s' (cluster=, fats=1|2)", k, v);
            return STS_EINVAL;
        }
    }
    s->fat = calloc(1, sizeof(*s->fat));
    if (!s->fat)
        return STS_ENOMEM;
    int rc = sts_fatfs_init(s->fat, &c, &t->fs);
    if (rc) {
        snprintf(err, errlen, "+fatfs: cannot format this medium (%s)", sts_strerror(rc));
        free(s->fat);
        s->fat = NULL;
        return rc;
    }
    static const char *const types[] = {"?", "FAT12", "FAT16", "FAT32", "exFAT"};
    /* ff.h's revision ID (FF_DEFINED, e.g. 80386), not the "R0.15" the FatFs
     * site names: printing one as the other gave "R0.80386" */
    sts_target_env(t, STS_KV_U("fatfs_revision_id", FF_DEFINED));
    sts_target_env(t, STS_KV_S("fatfs_type", types[s->fat->fat_type < 5 ? s->fat->fat_type : 0]));
    sts_target_env(t, STS_KV_U("fatfs_cluster_bytes", s->fat->cluster_bytes));
    sts_target_env(t, STS_KV_U("fatfs_fats", c.n_fats ? c.n_fats : 1));
    sts_target_env(t, STS_KV_U("fatfs_sector_bytes", 512));
    return STS_OK;
}

static void fat_close(struct sts_fs_stack *s)
{
    if (s->fat) {
        sts_fatfs_deinit(s->fat);
        free(s->fat);
        s->fat = NULL;
    }
}
#endif

#ifdef STORSCOPE_HAVE_FILEX
/* The user's FileX: cluster=, cache= (bytes), root=, names=upper|asis. */
static int fx_open_on(struct sts_fs_stack *s, const struct sts_target_spec *spec,
                      const struct sts_fs_medium *m, struct sts_target *t, char *err,
                      size_t errlen)
{
    (void)m;
    struct sts_filex_config c = {.bd = region_of(s)};
    for (uint32_t i = 0; i < spec->n_fs_opts; i++) {
        const char *k = spec->fs_opts[i].key, *v = spec->fs_opts[i].value;
        if (sts_filex_option(&c, k, v)) {
            snprintf(err, errlen, "+filex: bad option '%s=%s' (cluster=512..64K, a power of "
                                  "two; cache=512..32K, a multiple of 512; root=ENTRIES; "
                                  "names=upper|asis; trim=on|off)", k, v);
            return STS_EINVAL;
        }
    }
    s->fx = calloc(1, sizeof(*s->fx));
    if (!s->fx)
        return STS_ENOMEM;
    int rc = sts_filex_init(s->fx, &c, &t->fs);
    if (rc) {
        snprintf(err, errlen, "+filex: cannot format this medium (%s)", sts_strerror(rc));
        free(s->fx);
        s->fx = NULL;
        return rc;
    }
    sts_target_env(t, STS_KV_S("filex_version", STS_STR(FILEX_MAJOR_VERSION) "." STS_STR(
                                                    FILEX_MINOR_VERSION) "." STS_STR(FILEX_PATCH_VERSION)));
    sts_target_env(t, STS_KV_S("filex_mode", "standalone"));
    sts_target_env(t, STS_KV_U("filex_cluster_bytes", s->fx->cluster_bytes));
    sts_target_env(t, STS_KV_U("filex_cache_bytes", s->fx->cfg.cache_bytes));
    sts_target_env(t, STS_KV_U("filex_root_entries", s->fx->cfg.root_entries));
    sts_target_env(t, STS_KV_S("filex_names", c.upper_names ? "upper" : "asis"));
    sts_target_env(t, STS_KV_U("filex_fats", 1));
    sts_target_env(t, STS_KV_B("filex_trim", c.trim));
    return STS_OK;
}

static void fx_close(struct sts_fs_stack *s)
{
    if (s->fx) {
        sts_filex_deinit(s->fx);
        free(s->fx);
        s->fx = NULL;
    }
}
#endif

/* The filesystems this build stacks: one row each. */
static const struct fs_kind kinds[] = {
    {"extentfs", STS_T_NO_FS_METADATA, 0, 0, extent_open, NULL},
    {"sensorlog", STS_T_APPEND_ONLY, 1, 0, slfs_open, slfs_close},
#ifdef STORSCOPE_HAVE_LITTLEFS
    {"littlefs", 0, 1, 0, lfs_open_on, lfs_close},
#endif
#ifdef STORSCOPE_HAVE_FATFS
    {"fatfs", 0, 1, 1, fat_open_on, fat_close},
#endif
#ifdef STORSCOPE_HAVE_FILEX
    {"filex", 0, 1, 1, fx_open_on, fx_close},
#endif
};
#define N_KINDS (sizeof(kinds) / sizeof(kinds[0]))

const char *sts_fs_stack_built(void)
{
    static char names[96];
    if (!names[0])
        for (size_t i = 0; i < N_KINDS; i++) {
            strncat(names, i ? " +" : "+", sizeof(names) - strlen(names) - 1);
            strncat(names, kinds[i].name, sizeof(names) - strlen(names) - 1);
        }
    return names;
}

int sts_fs_stack_open(struct sts_fs_stack **stack, const struct sts_target_spec *spec,
                      const struct sts_fs_medium *m, struct sts_target *t, char *err,
                      size_t errlen)
{
    const char *name = spec->fs[0] ? spec->fs : "extentfs";
    const struct fs_kind *k = NULL;
    char why[160];
    if (sts_bd_ops_check(m->bd.ops, why, sizeof(why))) {
        snprintf(err, errlen, "%s: %s", m->shown, why);
        return STS_EINVAL;
    }
    for (size_t i = 0; i < N_KINDS && !k; i++)
        k = !strcmp(kinds[i].name, name) ? &kinds[i] : NULL;
    if (!k) {
        snprintf(err, errlen, "%s: filesystem '+%s' is not available in this build (%s%s)",
                 m->shown, name, sts_fs_stack_built(),
                 N_KINDS > 2 ? "" : "; littlefs, FatFs and FileX need their source at build "
                                    "time, see docs/third-party-filesystems.md");
        return STS_ENOTSUP;
    }
    if (k->formats && m->read_only) {
        snprintf(err, errlen, "%s+%s formats the device's region as %s: it needs "
                              "--allow-destructive", m->shown, name, name);
        return STS_EACCES;
    }
    if (k->formats && m->data_dropped) {
        snprintf(err, errlen, "%s+%s: %s reads back the layout it writes, and data=0 keeps "
                              "no data: drop data=0 (or run +extentfs, which keeps its "
                              "metadata in RAM)", m->shown, name, name);
        return STS_EINVAL;
    }
    struct sts_bd_geometry g;
    memset(&g, 0, sizeof(g));
    m->bd.ops->geometry(m->bd.ctx, &g);
    if (k->in_place && (g.flags & STS_BD_NEEDS_ERASE)) {
        snprintf(err, errlen, "+%s: FAT rewrites sectors in place; a raw flash medium needs "
                              "an FTL under it (use a managed profile)", name);
        return STS_EINVAL;
    }
    struct sts_fs_stack *s = calloc(1, sizeof(*s));
    if (!s) {
        snprintf(err, errlen, "+%s: out of memory", name);
        return STS_ENOMEM;
    }
    s->kind = k;
    s->under = m->bd;
    s->base = m->base;
    s->end = m->end;
    err[0] = '\0';
    int rc = k->open(s, spec, m, t, err, errlen);
    if (rc) {
        if (!err[0])
            snprintf(err, errlen, "%s+%s: %s", m->shown, name, sts_strerror(rc));
        sts_fs_stack_close(s);
        return rc;
    }
    *stack = s;
    return STS_OK;
}

unsigned sts_fs_stack_flags(const struct sts_fs_stack *s)
{
    return s->kind->flags;
}

const char *sts_fs_stack_name(const struct sts_fs_stack *s)
{
    return s->kind->name;
}

void sts_fs_stack_record(const struct sts_fs_stack *s, struct sts_target *t)
{
    sts_target_env(t, STS_KV_S("filesystem", s->kind->name));
    if (s->slfs)
        sts_slfs_stack_record(s->slfs, t);
}

struct sts_slfs *sts_fs_stack_sensorlog(struct sts_fs_stack *s)
{
    return s && s->slfs ? sts_slfs_stack_fs(s->slfs) : NULL;
}

void sts_fs_stack_close(struct sts_fs_stack *s)
{
    if (!s)
        return;
    if (s->kind->close)
        s->kind->close(s);
    free(s);
}
