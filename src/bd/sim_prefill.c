/* Old data on a simulated medium before a run (target option prefill=):
 * chips arrive with a factory test pattern, and cards and flash that were
 * in service hold another filesystem's data, often with blank blocks in
 * between. A store that takes "blank here" for "erased everywhere" loses
 * what it writes over such a medium; the model can start that way, from
 * the seed, so formats over dirty media are tested like clean ones. */
#include "storscope/error.h"
#include "storscope/sim.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* KIND[:PERCENT] into its parts; 0, or -1 when PERCENT is not 1..100. A
 * path may hold ':' - only a last part of digits is taken for the percent. */
static int split(const char *spec, char *kind, size_t n, uint32_t *percent)
{
    const char *colon = strrchr(spec, ':');
    size_t len = strlen(spec);
    *percent = 100;
    if (colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
        unsigned long v = strtoul(colon + 1, NULL, 10);
        if (v < 1 || v > 100 || strlen(colon + 1) > 3)
            return -1;
        *percent = (uint32_t)v;
        len = (size_t)(colon - spec);
    }
    if (len >= n)
        len = n - 1;
    memcpy(kind, spec, len);
    kind[len] = '\0';
    return 0;
}

/* Page bytes of the old data at addr: seeded random bytes, a test pattern
 * (each 32-bit word its own address, a classic factory pattern that is
 * never all 0xFF), or the image's bytes (0xFF past its end: erased). */
static int old_page(int kind, FILE *image, uint64_t addr, uint8_t *buf, uint32_t n,
                    struct sts_rng *rng)
{
    if (kind == 'r') {
        for (uint32_t i = 0; i < n; i += 8) {
            uint64_t v = sts_rng_next(rng);
            memcpy(buf + i, &v, n - i < 8 ? n - i : 8);
        }
    } else if (kind == 'p') {
        for (uint32_t i = 0; i < n; i += 4) {
            uint32_t w = (uint32_t)(addr + i);
            memcpy(buf + i, &w, n - i < 4 ? n - i : 4);
        }
    } else {
        memset(buf, 0xFF, n);
        if (fseek(image, (long)addr, SEEK_SET) || (fread(buf, 1, n, image) == 0 && ferror(image)))
            return STS_EIO;
    }
    return STS_OK;
}

int sts_sim_prefill_old(struct sts_sim *s, const struct sts_bd *bd, const char *spec,
                        uint64_t seed, char *err, size_t errlen)
{
    char kind_s[256];
    uint32_t percent;
    if (split(spec, kind_s, sizeof(kind_s), &percent)) {
        snprintf(err, errlen, "prefill=%s: the part after ':' is the percent of erase blocks "
                              "holding old data, 1..100", spec);
        return STS_EINVAL;
    }
    int kind = !strcmp(kind_s, "random") ? 'r' : !strcmp(kind_s, "pattern") ? 'p' : 'i';
    FILE *image = NULL;
    uint64_t end = s->p.capacity;
    if (kind == 'i') {
        image = fopen(kind_s, "rb");
        if (!image) {
            snprintf(err, errlen, "prefill=%s: not random, pattern or a readable image file "
                                  "(%s)", kind_s, strerror(errno));
            return STS_EINVAL;
        }
        if (fseek(image, 0, SEEK_END) == 0) {
            long len = ftell(image);
            end = len >= 0 && (uint64_t)len < end ? (uint64_t)len : end;
        }
    }
    uint32_t page = s->p.page_bytes, block = s->p.erase_bytes;
    uint8_t *buf = malloc(page);
    if (!buf) {
        if (image)
            fclose(image);
        snprintf(err, errlen, "prefill: out of memory");
        return STS_ENOMEM;
    }
    /* set-up, not the run: the clock, the counters and the command count
     * (cut_after=) start from zero after it */
    uint64_t t0 = s->now_ns, ops0 = s->host_ops;
    struct sts_rng rng;
    sts_rng_seed(&rng, sts_mix64(seed ^ 0x6f6c6420646174ull)); /* "old dat" */
    int rc = STS_OK;
    for (uint64_t b = 0; b * block < end && !rc; b++) {
        if (sts_rng_below(&rng, 100) >= percent)
            continue; /* left blank, as another filesystem leaves free blocks */
        for (uint64_t a = b * block; a < (b + 1) * block && a < end && !rc; a += page) {
            rc = old_page(kind, image, a, buf, page, &rng);
            if (!rc) {
                rc = bd->ops->program(bd->ctx, a, buf, page);
                rc = rc == STS_EIO ? STS_OK : rc; /* a factory bad block takes nothing */
            }
        }
    }
    free(buf);
    if (image)
        fclose(image);
    s->now_ns = t0;
    s->host_ops = ops0;
    memset(&s->n, 0, sizeof(s->n));
    if (rc)
        snprintf(err, errlen, "prefill=%s: %s", spec, sts_strerror(rc));
    return rc;
}
