/* Memory for probe --preserve: every block a destructive probe overwrites
 * is kept until it is put back. A probe writes about capacity / 256 or at
 * least 16 MiB (the capacity check's samples), up to 16 MiB more on a
 * counterfeit with a cache, and up to ~100 MiB more (the open-AU streams),
 * so a 64 GiB card needs over 256 MiB: in RAM up to that, beyond it a
 * temporary file (unlinked at once, so nothing is left behind) mapped in,
 * on a filesystem that has room for it and storscope's reserve besides. */
#define _GNU_SOURCE
#include "cli.h"
#include "storscope/probe.h"
#include "storscope/units.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define UNDO_RAM_BYTES (256ull << 20)

uint64_t cli_undo_need(uint64_t capacity)
{
    /* the capacity check's dense prefix (1/256 of the capacity, at least
     * STS_PROBE_CACHE_MAX up to a quarter of it) and, on a counterfeit with
     * a controller cache, the place rewritten to push it out (saved once) */
    uint64_t prefix = capacity / 256, quarter = capacity / 4;
    if (prefix < STS_PROBE_CACHE_MAX)
        prefix = STS_PROBE_CACHE_MAX < quarter ? STS_PROBE_CACHE_MAX : quarter;
    uint64_t samples = prefix + STS_PROBE_CACHE_MAX;
    uint64_t need = samples + samples / 4096 * 12 + (112ull << 20); /* + entry tails, AU streams */
    return (need + (1u << 20) - 1) & ~((uint64_t)(1u << 20) - 1);
}

int cli_undo_alloc(struct cli_undo_mem *m, uint64_t capacity, char *err, size_t n)
{
    memset(m, 0, sizeof(*m));
    m->bytes = cli_undo_need(capacity);
    if (m->bytes <= UNDO_RAM_BYTES) {
        m->mem = malloc(m->bytes);
        if (!m->mem)
            snprintf(err, n, "cannot have %llu MiB of memory for the blocks to put back",
                     (unsigned long long)(m->bytes >> 20));
        return m->mem ? 0 : -1;
    }
    const char *dir = getenv("TMPDIR");
    dir = dir && *dir ? dir : "/var/tmp"; /* on disk where /tmp is RAM */
    struct statvfs vs;
    char need[32], have[32], keep[32];
    if (statvfs(dir, &vs)) {
        snprintf(err, n, "cannot use %s for the %llu MiB of blocks to put back: %s", dir,
                 (unsigned long long)(m->bytes >> 20), strerror(errno));
        return -1;
    }
    uint64_t avail = (uint64_t)vs.f_bavail * vs.f_frsize;
    uint64_t reserve = cli_space_reserve((uint64_t)vs.f_blocks * vs.f_frsize);
    if (avail < m->bytes + reserve) {
        sts_fmt_bytes(need, sizeof(need), m->bytes);
        sts_fmt_bytes(have, sizeof(have), avail);
        sts_fmt_bytes(keep, sizeof(keep), reserve);
        snprintf(err, n, "the blocks to put back need %s in %s, which has %s free and "
                         "storscope leaves %s of it; set TMPDIR to a filesystem with room",
                 need, dir, have, keep);
        return -1;
    }
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600); /* no name: never left behind */
    if (fd < 0 || ftruncate(fd, (off_t)m->bytes)) {
        snprintf(err, n, "cannot make a temporary file in %s for the blocks to put back: %s",
                 dir, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    void *p = mmap(NULL, (size_t)m->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd); /* the mapping keeps the file */
    if (p == MAP_FAILED) {
        snprintf(err, n, "cannot map the temporary file for the blocks to put back: %s",
                 strerror(errno));
        return -1;
    }
    m->mem = p;
    m->mapped = 1;
    return 0;
}

void cli_undo_free(struct cli_undo_mem *m)
{
    if (m->mapped && m->mem)
        munmap(m->mem, (size_t)m->bytes);
    else
        free(m->mem);
    m->mem = NULL;
}
