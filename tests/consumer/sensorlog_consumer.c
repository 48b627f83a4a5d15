/* A logger outside the tree that links sensorlog alone (pkg-config
 * sensorlog, or storscope::sensorlog): its own RAM "NOR" block device,
 * format, append, sync, mount again, read back. */
#include <sensorlog/sensorlog.h>
#include <stdio.h>
#include <string.h>

#define CAP (256u * 1024u)
#define ERASE 4096u
static unsigned char flash[CAP];

static int rd(void *ctx, uint64_t a, void *b, size_t n)
{
    (void)ctx;
    memcpy(b, flash + a, n);
    return 0;
}
static int prog(void *ctx, uint64_t a, const void *b, size_t n)
{
    (void)ctx;
    const unsigned char *p = b;
    for (size_t i = 0; i < n; i++)
        flash[a + i] &= p[i]; /* NOR: programming only clears bits */
    return 0;
}
static int erase(void *ctx, uint64_t a, uint64_t n)
{
    (void)ctx;
    memset(flash + a, 0xFF, (size_t)n);
    return 0;
}
static int flush(void *ctx)
{
    (void)ctx;
    return 0;
}
static void geometry(void *ctx, struct sts_bd_geometry *g)
{
    (void)ctx;
    memset(g, 0, sizeof(*g));
    g->capacity = CAP;
    g->prog_size = 256;
    g->erase_size = ERASE;
    g->flags = STS_BD_NEEDS_ERASE;
}
static const struct sts_bd_ops ops = {
    .version = STS_BD_OPS_VERSION, rd, prog, erase, flush, geometry, NULL, NULL, NULL
};

int main(void)
{
    static unsigned char ring[2048], chunk[1024], rbuf[1024];
    static struct sl_seg_info segs[64];
    static struct sl_stream_info streams[8];
    static struct sl_log log;
    struct sl_config cfg = {.bd = {&ops, NULL}, .chunk_bytes = 1024, .segment_bytes = ERASE,
                            .buffer = ring, .buffer_bytes = sizeof(ring), .chunk_buf = chunk,
                            .read_buf = rbuf, .segs = segs, .n_segs = 64, .streams = streams,
                            .max_streams = 8};
    uint16_t id;
    if (sl_format(&log, &cfg) || sl_stream_create(&log, "temp", &id))
        return 1;
    for (uint32_t k = 0; k < 1000; k++) {
        int rc = sl_append(&log, id, k * 1000000ull, &k, sizeof(k));
        while (rc == SL_EFULL) {
            while ((rc = sl_pump(&log)) == SL_BUSY)
                ;
            rc = rc ? rc : sl_append(&log, id, k * 1000000ull, &k, sizeof(k));
        }
        if (rc)
            return 2;
    }
    if (sl_sync(&log) || sl_mount(&log, &cfg) || sl_stream_open(&log, "temp", &id))
        return 3;
    struct sl_iter it;
    struct sl_record r;
    uint32_t n = 0, k;
    if (sl_iter_from_ts(&log, &it, id, 0))
        return 4;
    while (sl_iter_next(&it, &r) == SL_OK) {
        memcpy(&k, r.data, sizeof(k));
        if (r.len != sizeof(k) || k != n || r.ts != n * 1000000ull)
            return 5;
        n++;
    }
    printf("sensorlog consumer: %u records back after a remount\n", (unsigned)n);
    return n == 1000 ? 0 : 6;
}
