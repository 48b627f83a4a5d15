/* libFuzzer: any bytes as the medium under sl_mount, then every way of
 * reading it (all streams from the start, one stream, by time, the latest
 * records) and a write and sync on top: nothing may crash, hang or read
 * outside its buffers, whatever the image holds. 64 KiB of RAM medium in
 * 1 KiB chunks and 4 KiB segments; bytes past the input read as erased.
 * Run: scripts/fuzz.sh (corpus in fuzz/corpus/sensorlog). */
#include "sensorlog/sensorlog.h"
#include "storscope/device.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MEDIUM (64u * 1024u)
#define CHUNK 1024u
#define SEGS (MEDIUM / 4096u)

static uint8_t medium[MEDIUM], ring[4096], chunk_buf[CHUNK], read_buf[CHUNK];
static struct sl_seg_info segs[SEGS];
static struct sl_stream_info streams[32];

static void read_all(struct sl_log *log, struct sl_iter *it)
{
    struct sl_record r;
    for (int i = 0; i < 100000 && sl_iter_next(it, &r) == SL_OK; i++)
        if (r.len > sl_record_max(log))
            __builtin_trap(); /* a record longer than a chunk holds */
}

static struct sts_ram_bd rb;
static struct sl_config cfg;
static struct sl_log log;

static void configure(void)
{
    cfg = (struct sl_config){.chunk_bytes = CHUNK, .page_bytes = CHUNK, .segment_bytes = 4096,
                             .buffer = ring, .buffer_bytes = sizeof(ring), .chunk_buf = chunk_buf,
                             .read_buf = read_buf, .segs = segs, .n_segs = SEGS,
                             .streams = streams, .max_streams = 32};
    sts_ram_bd_init(&rb, &cfg.bd, medium, MEDIUM);
}

/* STORSCOPE_FUZZ_WRITE_SEED=FILE: writes a seed image of this geometry (3
 * streams, a few hundred records, wrapped once, then bursts of like
 * records: format 3's runs) and exits; the committed corpus was made so
 * (three-streams-wrapped.img by the version-2 library, before the bursts;
 * three-streams-runs.img as it is now). */
/* The seed writer's record: appended (dropped when the RAM ring is full),
 * pumped until the device is idle, then synced when asked. */
static int seed_record(uint16_t id, uint64_t ts, const uint8_t *rec, size_t len, int sync)
{
    int rc = sl_append(&log, id, ts, rec, len);
    if (rc == SL_EFULL)
        rc = 0;
    while (!rc && (rc = sl_pump(&log)) == SL_BUSY)
        rc = 0;
    return !rc && sync ? sl_sync(&log) : rc;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *seed = getenv("STORSCOPE_FUZZ_WRITE_SEED");
    if (!seed)
        return 0;
    memset(medium, 0xFF, MEDIUM);
    configure();
    uint16_t id[3];
    int rc = sl_format(&log, &cfg);
    rc = rc ? rc : sl_stream_create(&log, "imu", &id[0]);
    rc = rc ? rc : sl_stream_create(&log, "ppg", &id[1]);
    rc = rc ? rc : sl_stream_create(&log, "env", &id[2]);
    uint8_t rec[24];
    for (uint32_t i = 0; i < 4000 && !rc; i++) {
        memset(rec, (int)i, sizeof(rec));
        rc = seed_record(id[i % 3], 1000ull * i, rec, 4 + i % 20, i % 97 == 0);
    }
    /* bursts of one stream at a steady rate and size (runs), one of them
     * longer than a 1 KiB chunk holds, then short ones between streams */
    for (uint32_t i = 0; i < 600 && !rc; i++) {
        memset(rec, (int)i, sizeof(rec));
        uint32_t burst = i < 200 ? 200 : 3 + i % 5;
        rc = seed_record(id[(i / burst) % 3], 4000000ull + 10ull * i, rec, 12, i % 150 == 149);
    }
    rc = rc ? rc : sl_sync(&log);
    FILE *f = fopen(seed, "wb");
    if (rc || !f || fwrite(medium, 1, MEDIUM, f) != MEDIUM || fclose(f)) {
        fprintf(stderr, "cannot write the seed image %s (%d)\n", seed, rc);
        exit(1);
    }
    exit(0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size = size < MEDIUM ? size : MEDIUM;
    memcpy(medium, data, size);
    memset(medium + size, 0xFF, MEDIUM - size);
    configure();
    if (sl_mount(&log, &cfg) != SL_OK)
        return 0;
    struct sl_iter it;
    if (sl_iter_from_gseq(&log, &it, 0, 0) == SL_OK)
        read_all(&log, &it);
    for (uint16_t id = 1; id <= 3; id++) {
        if (sl_iter_from_gseq(&log, &it, id, 0) == SL_OK)
            read_all(&log, &it);
        if (sl_iter_latest(&log, &it, id, 7) == SL_OK)
            read_all(&log, &it);
    }
    if (sl_iter_from_ts(&log, &it, 0, size > 8 ? (uint64_t)data[size - 1] << 8 : 0) == SL_OK)
        read_all(&log, &it);
    uint16_t id;
    if (sl_stream_create(&log, "fz", &id) == SL_OK || sl_stream_open(&log, "fz", &id) == SL_OK) {
        static const uint8_t rec[12] = {1, 2, 3};
        if (sl_append(&log, id, 12345, rec, sizeof(rec)) == SL_OK)
            (void)sl_sync(&log);
    }
    return 0;
}
