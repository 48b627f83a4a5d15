/* sensorlog as the harness drives it: one stream, its defaults for chunk
 * and segment, a 4 KiB ring, the pump run when the ring is full and by
 * sync (what an I/O task does when the producers outrun the device), and
 * the device's large erase where it has one (erase_unit_bytes: SPI NOR's
 * 64 KiB block; the price is a longer pump step, which a producer that
 * never waits does not see but its ring must cover). */
#include "peers.h"
#include "sensorlog/sensorlog.h"

#include <string.h>

static struct {
    struct sl_log log;
    struct sl_config cfg;
    uint16_t stream[3];
    const struct peer_env *env;
} s;

static uint8_t ring[4096], chunk_buf[16384], read_buf[16384];
static struct sl_seg_info segs[256];
static struct sl_stream_info streams[4];

static uint64_t clock_ns(void *ctx)
{
    const struct peer_env *env = ctx;
    return env->now_ns();
}

static const char *const stream_names[3] = {"rec", "ppg", "env"};

/* small: the smallest configuration sensorlog.h documents for the
 * study's streams on NOR (docs/footprint.md: 4 KiB of RAM on a Cortex-M33)
 * - 1 KiB chunks, 16 segments, 3 streams, a 768 B ring, erases suspended
 * every 2 ms (erase_slice_ns) so the ring covers a slice, not an erase -
 * with the chip's large erase (erase_unit_bytes), which costs no RAM when
 * sliced */
static void configure(const struct peer_env *env, int small)
{
    memset(&s, 0, sizeof(s));
    s.env = env;
    if (small) {
        s.cfg = (struct sl_config){.bd = env->bd, .buffer = ring, .buffer_bytes = 768,
                                   .chunk_bytes = 1024,
                                   .segment_bytes = (uint32_t)(env->geo.capacity / 16),
                                   .chunk_buf = chunk_buf, .read_buf = read_buf, .segs = segs,
                                   .n_segs = 16, .free_segments = 1, .streams = streams,
                                   .max_streams = 3, .now_ns = clock_ns, .clock_ctx = (void *)env,
                                   .erase_slice_ns = 2000000,
                                   .erase_unit_bytes = env->geo.erase_large_size};
        return;
    }
    s.cfg = (struct sl_config){.bd = env->bd, .buffer = ring, .buffer_bytes = sizeof(ring),
                               .chunk_buf = chunk_buf, .read_buf = read_buf, .segs = segs,
                               .n_segs = 256, .free_segments = 1, .streams = streams,
                               .max_streams = 4, .now_ns = clock_ns, .clock_ctx = (void *)env,
                               .erase_unit_bytes = env->geo.erase_large_size};
}

static int sl_open(void *ctx, const struct peer_env *env)
{
    configure(env, ctx != NULL);
    struct sl_layout lay;
    if (sl_layout(&s.cfg, &lay) || lay.chunk_bytes > sizeof(chunk_buf) || lay.segments > 256)
        return -1;
    int rc = sl_format(&s.log, &s.cfg);
    for (uint32_t i = 0; !rc && i < env->streams; i++)
        rc = sl_stream_create(&s.log, stream_names[i], &s.stream[i]);
    return rc;
}

static int sl_remount(void *ctx, const struct peer_env *env)
{
    configure(env, ctx != NULL);
    int rc = sl_mount(&s.log, &s.cfg);
    for (uint32_t i = 0; !rc && i < env->streams; i++)
        rc = sl_stream_open(&s.log, stream_names[i], &s.stream[i]);
    return rc;
}

static int sl_put(void *ctx, uint8_t stream, uint64_t ts, const void *data, size_t len)
{
    (void)ctx;
    int rc;
    while ((rc = sl_append(&s.log, s.stream[stream], ts, data, len)) == SL_EFULL) {
        rc = sl_pump(&s.log);
        if (rc < 0)
            return rc;
    }
    return rc;
}

static int sl_flush(void *ctx)
{
    (void)ctx;
    return sl_sync(&s.log);
}

static int read_n(struct sl_iter *it, uint64_t first_ts, uint32_t n, uint32_t *got)
{
    struct sl_record r;
    int rc;
    *got = 0;
    while (*got < n && (rc = sl_iter_next(it, &r)) == SL_OK) {
        if (first_ts != UINT64_MAX && peer_stamp_of(r.data) != (uint32_t)(first_ts + *got))
            return -1;
        ++*got;
    }
    return 0;
}

static int sl_range(void *ctx, uint64_t from, uint32_t n, uint32_t *got)
{
    (void)ctx;
    struct sl_iter it;
    int rc = sl_iter_from_ts(&s.log, &it, s.stream[0], from);
    return rc ? rc : read_n(&it, from, n, got);
}

static int sl_latest(void *ctx, uint32_t n, uint32_t *got)
{
    (void)ctx;
    struct sl_iter it;
    int rc = sl_iter_latest(&s.log, &it, s.stream[0], n);
    return rc ? rc : read_n(&it, UINT64_MAX, n, got);
}

/* Every stream's records in the order they were appended (stream 0 reads
 * them all, and tells them apart by the record's stream). */
static int sl_each(void *ctx, peer_record_fn fn, void *arg, uint64_t *evicted)
{
    (void)ctx;
    struct sl_iter it;
    struct sl_record r;
    int rc = sl_iter_from_gseq(&s.log, &it, 0, 0);
    while (!rc && (rc = sl_iter_next(&it, &r)) == SL_OK) {
        uint8_t stream = 0;
        while (stream + 1u < s.env->streams && s.stream[stream] != r.stream)
            stream++;
        fn(arg, stream, r.data, r.len);
    }
    *evicted = it.evicted;
    return rc == SL_ENOENT ? 0 : rc;
}

static size_t sl_ram(void *ctx)
{
    (void)ctx;
    return sl_ram_bytes(&s.cfg);
}

static void sl_close(void *ctx)
{
    (void)ctx;
}

static const struct peer_store store = {
    "sensorlog", sl_open, sl_remount, sl_put, sl_flush, sl_range, sl_latest, sl_each, sl_ram,
    sl_close, NULL,
    "defaults (chunk, segment), 4 KiB ring, 1 segment erased ahead, pumped when the ring is "
    "full; erase_unit_bytes = the device's large erase (NOR: 64 KiB blocks)",
    0,
};
const struct peer_store *const peer_sensorlog = &store;
static int small_marker;
static const struct peer_store small_store = {
    "sensorlog, 4 KiB RAM", sl_open, sl_remount, sl_put, sl_flush, sl_range, sl_latest, sl_each,
    sl_ram, sl_close, &small_marker,
    "1 KiB chunks, 16 segments, 3 streams, a 768 B ring, erases suspended every 2 ms "
    "(erase_slice_ns): the smallest configuration sensorlog.h documents for NOR (4,096 B on a "
    "Cortex-M33, docs/footprint.md), with erase_unit_bytes = the large erase",
    1,
};
const struct peer_store *const peer_sensorlog_small = &small_store;
