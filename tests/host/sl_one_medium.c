/* sensorlog built for one kind of medium (docs/footprint.md): linked against
 * a sensorlog built with -DSL_PARTS=0 (raw flash: short pieces on a NOR
 * without ECC, version 7), -DSL_PARTS=0 -DSL_SHORT=0 (pieces with full
 * headers, version 5) or -DSL_PIECES=0 (managed media, version 4), it
 * formats a 1 MiB NOR log, syncs each of 100 records, remounts and reads
 * every record back; it must write its version, and a build must refuse a
 * log that says the version after its own (a format it cannot read)
 * instead of losing records.
 *   sl_one_medium short|pieces|no-pieces */
#include "sensorlog/sensorlog.h"
#include "storscope/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct sts_sim sim;
static struct sts_bd bd;
static struct sl_log lg;
static struct sl_config cfg;
static struct sl_seg_info segs[64];
static struct sl_stream_info streams[4];
static uint8_t ring[1024], chunk_buf[4096], read_buf[4096];

static int fail(const char *what)
{
    fprintf(stderr, "sl_one_medium: %s\n", what);
    return 1;
}

/* The version the segment headers on the medium say (the first found). */
static int medium_version(void)
{
    for (uint64_t at = 0; at < (1u << 20); at += 64u << 10) {
        uint8_t h[8];
        if (!bd.ops->read(bd.ctx, at, h, sizeof(h)) && !memcmp(h, "SLSG", 4))
            return h[4] | h[5] << 8;
    }
    return -1;
}

int main(int argc, char **argv)
{
    static const char *const modes[] = {"no-pieces", "pieces", "short"};
    int version = 0;
    for (int i = 0; argc == 2 && i < 3; i++)
        if (!strcmp(argv[1], modes[i]))
            version = 4 + i + (i == 2); /* (short pieces: version 7, which carries them) */
    if (!version)
        return fail("usage: sl_one_medium short|pieces|no-pieces");
    struct sts_sim_params p = *sts_sim_profile_find("nor-spi");
    p.capacity = 1u << 20;
    p.bad_permille = 0;
    size_t arena = sts_sim_arena_bytes(&p, p.capacity);
    uint8_t *mem = malloc(arena);
    if (!mem || sts_sim_init(&sim, &p, 3, mem, arena, p.capacity, &bd))
        return fail("no simulated NOR");
    cfg = (struct sl_config){.bd = bd, .buffer = ring, .buffer_bytes = sizeof(ring),
                             .chunk_bytes = 4096, .segment_bytes = 64u << 10,
                             .chunk_buf = chunk_buf, .read_buf = read_buf, .segs = segs,
                             .n_segs = 64, .streams = streams, .max_streams = 4};
    uint16_t id;
    if (sl_format(&lg, &cfg) || sl_stream_create(&lg, "imu", &id))
        return fail("format");
    for (uint32_t k = 0; k < 100; k++) {
        uint8_t rec[12];
        memset(rec, (int)k, sizeof(rec));
        if (sl_append(&lg, id, k, rec, sizeof(rec)) || sl_sync(&lg))
            return fail("append and sync");
    }
    int v = medium_version();
    if (v != version) {
        fprintf(stderr, "sl_one_medium %s: the log says version %d, not %d\n", argv[1], v,
                version);
        return 1;
    }
    if (sl_mount(&lg, &cfg) || sl_stream_open(&lg, "imu", &id))
        return fail("mount");
    struct sl_iter it;
    struct sl_record r;
    uint32_t n = 0;
    if (sl_iter_from_gseq(&lg, &it, id, 0))
        return fail("iterator");
    while (sl_iter_next(&it, &r) == SL_OK)
        if (r.ts != n++ || r.len != 12 || r.data[0] != (uint8_t)(r.ts))
            return fail("a record read back wrong");
    if (n != 100)
        return fail("records missing after the remount");
    if (version < 7) { /* a header saying the next version (CRC made good) is refused */
        uint8_t h[60];
        if (bd.ops->read(bd.ctx, 0, h, sizeof(h)) || memcmp(h, "SLSG", 4))
            return fail("segment 0 has no header");
        h[4] = (uint8_t)(version + 1);
        uint32_t sum = sl_crc32c(0, h, 56);
        for (int i = 0; i < 4; i++)
            h[56 + i] = (uint8_t)(sum >> (8 * i));
        uint8_t block[4096];
        if (bd.ops->read(bd.ctx, 0, block, sizeof(block)))
            return fail("read");
        memcpy(block, h, sizeof(h));
        if (bd.ops->erase(bd.ctx, 0, sizeof(block)) ||
            bd.ops->program(bd.ctx, 0, block, sizeof(block)))
            return fail("rewrite");
        if (sl_mount(&lg, &cfg) != SL_ECORRUPT)
            return fail("a log of the next version was not refused");
    }
    printf("sl_one_medium %s: 100 synced records read back, version %d%s\n", argv[1], v,
           version < 7 ? "; a log of the next version refused" : "");
    free(mem);
    return 0;
}
