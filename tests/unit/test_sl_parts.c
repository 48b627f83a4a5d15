/* sensorlog's parts (format 4): a search reads the part it lands in, a
 * damaged part loses its own records and nothing else, and a version 3
 * log is written on without parts. */
#include "sts_test.h"
#include "sensorlog/sensorlog.h"
#include "storscope/error.h"
#include "storscope/rng.h"
#include "storscope/port.h"
#include "storscope/sensorlog_fs.h"
#include "storscope/sim.h"
#include "storscope/suite.h"

#include "test_mem.h"

#include <string.h>

#include "sl_fixture.h"

/* ---- parts (format 4) -------------------------------------------------------- */
/* The oracle of part_log's workload: record i's stream slot, length and
 * timestamp. Lengths from 1 to 600 (some span several 512 B parts), runs of
 * a fixed-size stream (which must not cross a part boundary), and steps
 * that change, stay, or jump by 2^40. */
#define PART_RECS 2400
static struct {
    uint8_t slot;
    uint16_t len;
    uint64_t ts;
} part_rec[PART_RECS];
static uint16_t part_ids[3];

static void part_bytes_of(uint32_t i, uint8_t *out, uint32_t len)
{
    for (uint32_t b = 0; b < len; b++)
        out[b] = (uint8_t)(sts_mix64(i * 7919ull + b / 8) >> (b % 8 * 8));
}

static int part_rec_ok(const struct sl_record *r)
{
    static uint8_t want[600];
    if (r->gseq >= PART_RECS)
        return 0;
    uint32_t i = (uint32_t)r->gseq;
    part_bytes_of(i, want, part_rec[i].len);
    return r->stream == part_ids[part_rec[i].slot] && r->len == part_rec[i].len &&
           r->ts == part_rec[i].ts && memcmp(r->data, want, r->len) == 0;
}

/* A managed medium with 4 KiB chunks in parts of 512 bytes, holding the
 * workload above, synced now and then. */
static void part_log(void)
{
    CHECK_EQ(medium("emmc-stm32u5", 1024 * 1024, 65536, 0), 0);
    cfg.part_bytes = 512;
    CHECK_EQ(sl_format(&lg, &cfg), 0);
    CHECK_EQ(lg.part, 512);
    static const char *names[3] = {"imu", "ppg", "env"};
    for (int s = 0; s < 3; s++)
        CHECK_EQ(sl_stream_create(&lg, names[s], &part_ids[s]), 0);
    static uint8_t data[600];
    uint64_t ts = 1000, step = 3;
    for (uint32_t i = 0; i < PART_RECS; i++) {
        uint64_t x = sts_mix64(i + 77);
        int steady = (i / 200) % 2 == 0; /* stretches of one fixed-size stream: runs */
        uint8_t slot = steady ? 0 : (uint8_t)(x % 3);
        uint16_t len = steady ? 12 : (uint16_t)(x >> 8 & 15) == 0 ? (uint16_t)(513 + x % 88)
                                                                     : (uint16_t)(1 + (x >> 16) % 300);
        if (!steady && (x >> 24 & 63) == 0)
            step = (x >> 30 & 1) ? 1ull << 40 : step + 1;
        ts += steady ? 3 : step;
        part_rec[i].slot = slot;
        part_rec[i].len = len;
        part_rec[i].ts = ts;
        part_bytes_of(i, data, len);
        int rc = sl_append(&lg, part_ids[slot], ts, data, len);
        if (rc == SL_EFULL && !(rc = pump_all()))
            rc = sl_append(&lg, part_ids[slot], ts, data, len);
        CHECK_EQ(rc, 0);
        if (x % 97 == 0)
            CHECK_EQ(sl_sync(&lg), 0);
    }
    CHECK_EQ(sl_sync(&lg), 0);
}

/* A search lands in the part its target is in and reads that part and the
 * next, not the chunk: 4 KiB chunks, 512 B parts. Every record reads back
 * exactly from the log's start, from its own sequence number and from its
 * own timestamp, and reading on from a start crosses parts and chunks. */
static void a_search_reads_the_part_it_lands_in_not_the_chunk(void)
{
    part_log();
    struct sl_iter it;
    struct sl_record r;
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, 0, 0), 0);
    for (uint32_t i = 0; i < PART_RECS; i++) {
        CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
        CHECK_EQ(r.gseq, i);
        CHECK(part_rec_ok(&r));
    }
    CHECK_EQ(sl_iter_next(&it, &r), SL_ENOENT);
    CHECK_EQ(it.skipped + it.torn, 0);
    uint64_t most = 0, total = 0, n = 0;
    for (uint32_t i = 0; i < PART_RECS; i += 7, n++) {
        uint64_t before = cnt.bytes_read;
        cnt.read_max = 0;
        CHECK_EQ(sl_iter_from_gseq(&lg, &it, 0, i), 0);
        CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
        most = cnt.read_max > most ? cnt.read_max : most;
        total += cnt.bytes_read - before;
        CHECK_EQ(r.gseq, i);
        CHECK(part_rec_ok(&r));
        for (int k = 0; k < 40 && i + 1 + (uint32_t)k < PART_RECS; k++) { /* reading on */
            CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
            CHECK_EQ(r.gseq, i + 1 + (uint32_t)k);
            CHECK(part_rec_ok(&r));
        }
        /* by time: the first record of its stream at or after its stamp */
        uint8_t slot = part_rec[i].slot;
        CHECK_EQ(sl_iter_from_ts(&lg, &it, part_ids[slot], part_rec[i].ts), 0);
        CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
        uint32_t want = 0;
        while (part_rec[want].slot != slot || part_rec[want].ts < part_rec[i].ts)
            want++;
        CHECK_EQ(r.gseq, want);
        CHECK(part_rec_ok(&r));
    }
    /* a search and its first record: header reads of 512 bytes (its table
     * is in it) and two parts of 512 (1,536 bytes with the device's 512 B
     * read unit), never a whole chunk of 4,096; 2.6 KB in all (the
     * workload's chunks hold 13 to 300 records: a search by number guesses
     * well in neither) */
    CHECK(most <= 1536);
    CHECK(total / n < 3072);
}

/* A damaged part loses the records that start in it (and one that runs
 * into it from the part before), counted, and nothing else: the parts after
 * it in its chunk are read on from where their table entries say a record
 * starts (before, it lost the rest of its chunk). A search landing before
 * it in the same chunk reads past it too, one landing after it reads on
 * from there, and no record comes back wrong. */
static void a_damaged_part_loses_its_own_records_and_nothing_else(void)
{
    part_log();
    /* a data chunk in the first segment, three parts in: one byte flipped */
    uint32_t chunk = lg.hdr_chunks + 6 + 4; /* after the catalog chunks of three creates */
    uint8_t hdr[64];
    CHECK_EQ(cnt.inner.ops->read(cnt.inner.ctx, (uint64_t)chunk * 4096, hdr, sizeof(hdr)), 0);
    CHECK_EQ(hdr[2], 1);                        /* a data chunk */
    CHECK_EQ(hdr[3] >> 4, 2);                   /* parts of 2^(2 + 7) bytes */
    uint16_t used = (uint16_t)(hdr[4] | hdr[5] << 8), nrec = (uint16_t)(hdr[6] | hdr[7] << 8);
    uint64_t first = 0;
    memcpy(&first, hdr + 16, 8);
    CHECK(used > 4 * 512);
    /* the part table (entries of 16 bytes after the 52-byte header: CRC,
     * where the first record starting in the part is, its index, 0xFFFF
     * for none): the damage goes in the first part from 3 on where a
     * record starts; in3 .. in_next are the records starting in it */
    uint8_t table[8 * 16];
    CHECK_EQ(cnt.inner.ops->read(cnt.inner.ctx, (uint64_t)chunk * 4096 + 52, table, sizeof(table)),
             0);
#define ENTRY16(k, at) ((uint32_t)(table[(k) * 16 + (at)] | table[(k) * 16 + (at) + 1] << 8))
    uint32_t k = 3;
    while (k < 7 && ENTRY16(k, 4) == 0xFFFF)
        k++;
    CHECK(k < 7 && (k + 1) * 512 < used);
    uint32_t next = k + 1;
    while (next < 8 && next * 512 < used && ENTRY16(next, 4) == 0xFFFF)
        next++;
    uint32_t in3 = ENTRY16(k, 6), in4 = next < 8 && next * 512 < used ? ENTRY16(next, 6) : nrec;
#undef ENTRY16
    CHECK(in3 > 0 && in3 < in4 && in4 <= nrec);
    CHECK_EQ(sts_test_flip(&sim, (uint64_t)chunk * 4096 + 52 + 8 * 16 + k * 512 + 100, 0x10), 0);
    static uint8_t seen[PART_RECS];
    memset(seen, 0, sizeof(seen));
    uint64_t found = 0;
    struct sl_iter it;
    struct sl_record r;
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, 0, 0), 0);
    while (sl_iter_next(&it, &r) == SL_OK) {
        CHECK(part_rec_ok(&r));
        CHECK(!seen[r.gseq]);
        seen[r.gseq] = 1;
        found++;
    }
    CHECK_EQ(it.skipped, 1); /* read whole, the chunk does not check */
    /* missing: those that start in part k, maybe the one before them, no other */
    for (uint64_t g = 0; g < PART_RECS; g++)
        if (g < first + in3 - 1 || g >= first + in4)
            CHECK(seen[g]);
        else if (g >= first + in3)
            CHECK(!seen[g]);
    CHECK(found >= PART_RECS - (in4 - in3) - 1 && found <= PART_RECS - (in4 - in3));
    /* "latest n" counts what the forward read gives: exactly the newest n
     * of the records seen above, across the damaged chunk too */
    uint64_t from_chunk = 0, from_damage = 0; /* seen from the chunk's first, its part k's */
    for (uint64_t g = first; g < PART_RECS; g++) {
        from_chunk += seen[g];
        from_damage += g >= first + in3 - 1 ? seen[g] : 0;
    }
    const uint64_t ns[] = {1, 7, 300, from_damage - 1, from_damage + 1, from_chunk,
                           from_chunk + 3, PART_RECS};
    for (size_t t = 0; t < sizeof(ns) / sizeof(ns[0]); t++) {
        uint64_t want = ns[t] < found ? ns[t] : found, g = PART_RECS, n = 0;
        while (n < want) /* the want-th newest seen */
            n += seen[--g];
        CHECK_EQ(sl_iter_latest(&lg, &it, 0, ns[t]), 0);
        n = 0;
        while (sl_iter_next(&it, &r) == SL_OK) {
            CHECK(part_rec_ok(&r));
            while (g < PART_RECS && !seen[g])
                g++;
            CHECK_EQ(r.gseq, g);
            g++;
            n++;
        }
        CHECK_EQ(n, want);
    }
    /* positioned in part 0 of that chunk: its records up to the damage */
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, 0, first), 0);
    uint64_t got = 0;
    while (sl_iter_next(&it, &r) == SL_OK && r.gseq < first + nrec) {
        CHECK(part_rec_ok(&r));
        got++;
    }
    CHECK(got > 0 && got < nrec);
    CHECK(got >= nrec - (in4 - in3) - 1); /* and on past the damage */
    CHECK_EQ(it.skipped, 1);
    CHECK(part_rec_ok(&r)); /* and on into the next chunk */
    /* positioned after it: from the part after the damaged one */
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, 0, first + nrec - 1), 0);
    CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
    CHECK_EQ(r.gseq, first + nrec - 1);
    CHECK(part_rec_ok(&r));
    CHECK_EQ(it.skipped, 0);
}

/* "Latest n" on parts: the newest chunk, closed early by a sync, is read
 * as far as it is used, and the chunk after the one the start is in is
 * read in parts - so the latest few records of a 4 KiB chunk holding a
 * sync's few cost a header and a sector, not the chunk. Every n, of every
 * stream and of all, gives exactly the oracle's newest n, in order. */
static void latest_n_reads_what_the_newest_chunk_holds(void)
{
    part_log();
    static const uint32_t ns[] = {1, 2, 5, 47, 100, 333, 1000, PART_RECS + 5};
    for (int slot = -1; slot < 3; slot++)
        for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
            struct sl_iter it;
            struct sl_record r;
            uint16_t id = slot < 0 ? 0 : part_ids[slot];
            CHECK_EQ(sl_iter_latest(&lg, &it, id, ns[k]), 0);
            uint32_t want = PART_RECS, left = ns[k]; /* back to the oracle's n-th newest */
            while (want > 0 && left > 0) {
                want--;
                if (slot < 0 || part_rec[want].slot == slot)
                    left--;
            }
            for (; want < PART_RECS; want++) {
                if (slot >= 0 && part_rec[want].slot != slot)
                    continue;
                CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
                CHECK_EQ(r.gseq, want);
                CHECK(part_rec_ok(&r));
            }
            CHECK_EQ(sl_iter_next(&it, &r), SL_ENOENT);
        }
    /* a sync's few records in the newest chunk: the latest two cost its
     * header read and the sector the records are in */
    static uint8_t data[20];
    for (uint32_t i = 0; i < 3; i++)
        CHECK_EQ(sl_append(&lg, part_ids[1], (1ull << 50) + i, data, sizeof(data)), 0);
    CHECK_EQ(sl_sync(&lg), 0);
    uint64_t before = cnt.bytes_read;
    cnt.read_max = 0;
    struct sl_iter it;
    struct sl_record r;
    CHECK_EQ(sl_iter_latest(&lg, &it, part_ids[1], 2), 0);
    CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
    CHECK_EQ(r.ts, (1ull << 50) + 1);
    CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
    CHECK_EQ(r.ts, (1ull << 50) + 2);
    CHECK_EQ(sl_iter_next(&it, &r), SL_ENOENT);
    uint64_t reads0 = cnt.reads; (void)reads0;
    CHECK_EQ(cnt.bytes_read - before, 512); /* the header's sector holds them: one read */
    CHECK(cnt.read_max < 4096);
}

/* A log found in version 3 is written on in version 3: no parts, whatever
 * the configuration says, so the firmware that wrote it can read it. The
 * segment headers of part_log's log are rewritten to say 3 (with their CRC),
 * as a version-3 library would have written them. */
static void a_version_3_log_is_written_on_without_parts(void)
{
    part_log();
    for (uint32_t seg = 0; seg < lg.n_segs; seg++) {
        uint64_t at = (uint64_t)seg * lg.seg_bytes;
        uint8_t h[60], want[60];
        CHECK_EQ(cnt.inner.ops->read(cnt.inner.ctx, at, h, sizeof(h)), 0);
        if (memcmp(h, "SLSG", 4))
            continue; /* free */
        CHECK_EQ(h[4], 4); /* managed media: chunks of one page, parts, no pieces */
        memcpy(want, h, sizeof(want));
        want[4] = 3;
        uint32_t sum = sl_crc32c(0, want, 56);
        for (int b = 0; b < 4; b++)
            want[56 + b] = (uint8_t)(sum >> (8 * b));
        for (int b = 0; b < 60; b++)
            if (want[b] != h[b])
                CHECK_EQ(sts_test_flip(&sim, at + (uint64_t)b, (uint8_t)(want[b] ^ h[b])), 0);
    }
    CHECK_EQ(sl_mount(&lg, &cfg), 0);
    CHECK_EQ(lg.version, 3);
    CHECK_EQ(lg.part, 0);
    uint64_t first = lg.next_gseq;
    uint32_t seg = lg.cur_seg, chunk = lg.next_chunk;
    static uint8_t data[300];
    for (uint32_t i = 0; i < 100; i++) {
        part_bytes_of(PART_RECS + i, data, 300);
        int rc = sl_append(&lg, part_ids[0], 1ull << 50 | i, data, 300);
        if (rc == SL_EFULL && !(rc = pump_all()))
            rc = sl_append(&lg, part_ids[0], 1ull << 50 | i, data, 300);
        CHECK_EQ(rc, 0);
    }
    CHECK_EQ(sl_sync(&lg), 0);
    CHECK(lg.cur_seg != seg || lg.next_chunk > chunk);
    /* the chunks written since: flags without a part, records at offset 52 */
    uint32_t data_chunks = 0;
    for (uint32_t c = lg.hdr_chunks; c < lg.next_chunk; c++) {
        uint8_t h[64];
        CHECK_EQ(cnt.inner.ops->read(cnt.inner.ctx, (uint64_t)lg.cur_seg * lg.seg_bytes +
                                                        (uint64_t)c * 4096, h, sizeof(h)), 0);
        if (h[2] != 1)
            continue;
        data_chunks++;
        CHECK_EQ(h[3] >> 4, 0);
    }
    CHECK(data_chunks >= 7); /* 30 KB of records in 4 KiB chunks, one segment */
    struct sl_iter it;
    struct sl_record r;
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, 0, first), 0);
    for (uint32_t i = 0; i < 100; i++) {
        CHECK_EQ(sl_iter_next(&it, &r), SL_OK);
        part_bytes_of(PART_RECS + i, data, 300);
        CHECK(r.ts == (1ull << 50 | i) && r.len == 300 && !memcmp(r.data, data, 300));
    }
    CHECK_EQ(sl_iter_next(&it, &r), SL_ENOENT);
}

/* A steady stream is found where its timestamps say it should be: the
 * first header read is a guess between the segment's start and the next
 * one's (both in RAM), the next steps to the neighbour; bisection alone
 * took log2(64) = 6 reads. By sequence number the same. */
/* The first record of stream id at or after ts `want` (by_ts), or at
 * sequence number `want`, into *r; *most grows to the reads the search took. */
static int search(uint16_t id, int by_ts, uint64_t want, struct sl_record *r, uint64_t *most)
{
    struct sl_iter it;
    uint64_t reads = cnt.reads;
    int rc = by_ts ? sl_iter_from_ts(&lg, &it, id, want) : sl_iter_from_gseq(&lg, &it, id, want);
    uint64_t n = cnt.reads - reads;
    *most = n > *most ? n : *most;
    return rc ? rc : sl_iter_next(&it, r);
}

static void a_steady_stream_is_found_in_three_header_reads(void)
{
    CHECK_EQ(nor_log(1024 * 1024, 64 * 1024), 0); /* 64 chunks a segment */
    uint16_t id;
    CHECK_EQ(sl_stream_create(&lg, "imu", &id), 0);
    uint64_t k = 0, ts = 1;
    CHECK_EQ(append_rounds(&id, 1, &k, 8000, &ts), 0); /* several segments */
    CHECK_EQ(sl_sync(&lg), 0);
    uint64_t most = 0, searches = 0;
    struct sl_record r;
    for (uint64_t want = 1; want < ts; want += 331, searches++) {
        uint64_t at = want + (10 - (want - 1) % 10) % 10; /* stamps 1, 11, 21, ... */
        CHECK_EQ(search(id, 1, want, &r, &most), SL_OK);
        CHECK_EQ(r.ts, at);
        CHECK_EQ(search(id, 0, r.gseq, &r, &most), SL_OK);
        CHECK_EQ(r.ts, at);
    }
    CHECK(searches > 200);
    CHECK(most <= 3);
    /* after a mount the newest segment's data ends where mount found it,
     * not at the segment's end: the guess must know */
    CHECK_EQ(sl_mount(&lg, &cfg), 0);
    most = 0;
    for (uint64_t want = ts - 5000; want < ts; want += 97) {
        CHECK_EQ(search(id, 1, want, &r, &most), SL_OK);
        CHECK_EQ(r.ts, want + (10 - (want - 1) % 10) % 10);
    }
    CHECK(most <= 3);

    /* a clock that jumps (a day, in the middle of a segment) misleads the
     * guess: the search still finds every record, in at most twice
     * bisection's reads */
    CHECK_EQ(nor_log(1024 * 1024, 64 * 1024), 0);
    CHECK_EQ(sl_stream_create(&lg, "imu", &id), 0);
    k = 0;
    ts = 1;
    CHECK_EQ(append_rounds(&id, 1, &k, 1200, &ts), 0);
    uint64_t jump_at = ts;
    ts += 86400000000ull;
    CHECK_EQ(append_rounds(&id, 1, &k, 1200, &ts), 0);
    CHECK_EQ(sl_sync(&lg), 0);
    most = 0;
    for (uint64_t i = 0; i < 2400; i += 37) {
        uint64_t want = i < 1200 ? 1 + 10 * i : jump_at + 86400000000ull + 10 * (i - 1200);
        CHECK_EQ(search(id, 1, want, &r, &most), SL_OK);
        CHECK_EQ(r.ts, want);
        CHECK(record_ok(&r, i));
    }
    CHECK(most <= 2 * 6 + 1);
}

static void searches_by_time_and_sequence_read_log_n_chunks(void)
{
    CHECK_EQ(nor_log(1024 * 1024, 65536), 0);
    uint16_t ids[2];
    CHECK_EQ(sl_stream_create(&lg, "a", &ids[0]), 0);
    CHECK_EQ(sl_stream_create(&lg, "b", &ids[1]), 0);
    uint64_t k[2] = {0}, ts = 100;
    CHECK_EQ(append_rounds(ids, 2, k, 12000, &ts), 0); /* ts 100 .. 240090 */
    CHECK_EQ(sl_sync(&lg), 0);
    struct sl_iter it;
    struct sl_record r;
    uint64_t before = cnt.reads;
    CHECK_EQ(sl_iter_from_ts(&lg, &it, ids[1], 150005), 0);
    CHECK_EQ(sl_iter_next(&it, &r), 0);
    /* 64 chunks per segment: 6 bisection steps, then the chunk itself */
    CHECK(cnt.reads - before <= 8);
    CHECK_EQ(r.ts, 150010); /* b's records sit at 110, 130, ...: first >= 150005 */
    CHECK(record_ok(&r, (150010 - 110) / 20));
    before = cnt.reads;
    CHECK_EQ(sl_iter_from_gseq(&lg, &it, 0, 20001), 0);
    CHECK_EQ(sl_iter_next(&it, &r), 0);
    CHECK(cnt.reads - before <= 8);
    CHECK_EQ(r.gseq, 20001);
    CHECK_EQ(r.stream, ids[1]);
    CHECK(record_ok(&r, 10000));
    /* past the end: nothing, and no error */
    CHECK_EQ(sl_iter_from_ts(&lg, &it, ids[0], 10000000), 0);
    CHECK_EQ(sl_iter_next(&it, &r), SL_ENOENT);
}

/* Power cut during every one of the first device commands after a sync
 * point: what was synced before the cut reads back intact, nothing else
 * reads back wrong, and the log mounts and goes on. */
static void power_cuts_lose_nothing_synced(void)
{
    for (uint64_t cut = 1; cut <= 60; cut += 3) {
        CHECK_EQ(nor_log(256 * 1024, 8192), 0);
        uint16_t id;
        CHECK_EQ(sl_stream_create(&lg, "imu", &id), 0);
        uint64_t k = 0, ts = 1;
        CHECK_EQ(append_rounds(&id, 1, &k, 200, &ts), 0);
        CHECK_EQ(sl_sync(&lg), 0);
        uint64_t synced = k;
        struct sts_sim_faults f = {.cut_after_ops = sim.host_ops + cut};
        sts_sim_set_faults(&sim, &f);
        int rc = append_rounds(&id, 1, &k, 3000, &ts); /* ~60 KB: ~70 commands */
        if (!rc)
            rc = sl_sync(&lg);
        CHECK_EQ((uint64_t)(int64_t)rc, (uint64_t)(int64_t)SL_EIO); /* the cut came */
        sts_sim_power_on(&sim);
        struct sts_sim_faults none = {0};
        sts_sim_set_faults(&sim, &none);
        CHECK_EQ(sl_mount(&lg, &cfg), 0);
        CHECK_EQ(sl_stream_open(&lg, "imu", &id), 0);
        struct sl_iter it;
        struct sl_record r;
        CHECK_EQ(sl_iter_from_gseq(&lg, &it, id, 0), 0);
        uint64_t n = 0;
        while (sl_iter_next(&it, &r) == SL_OK) {
            CHECK_EQ(r.gseq, n);
            CHECK(record_ok(&r, n));
            n++;
        }
        CHECK(n >= synced);
        /* and the log takes new records after the last one that survived */
        uint64_t k2 = n;
        CHECK_EQ(append_rounds(&id, 1, &k2, 20, &ts), 0);
        CHECK_EQ(sl_sync(&lg), 0);
        CHECK_EQ(read_back(id, 0, n + 20), 0);
    }
}

static void managed_media_and_the_nonblocking_path(void)
{
    CHECK_EQ(medium("emmc-stm32u5", 1024 * 1024, 65536, 1), 0);
    CHECK_EQ(sl_format(&lg, &cfg), 0); /* defaults: 4 KiB chunks, 64 KiB segments */
    uint16_t id;
    CHECK_EQ(sl_stream_create(&lg, "imu", &id), 0);
    uint64_t k = 0, ts = 1;
    CHECK_EQ(append_rounds(&id, 1, &k, 20000, &ts), 0); /* ~0.5 MB: wraps the 1 MiB? no: half */
    CHECK_EQ(sl_sync(&lg), 0);
    CHECK(cnt.submits > 0);            /* programs went through submit/poll */
    CHECK_EQ(cnt.programs, cnt.submits);
    CHECK_EQ(read_back(id, 0, 20000), 0);
    CHECK_EQ(sl_mount(&lg, &cfg), 0);
    CHECK_EQ(read_back(id, 0, 20000), 0);
}

static void streams_cost_the_same_however_many_there_are(void)
{
    CHECK_EQ(nor_log(512 * 1024, 8192), 0);
    char name[8] = "s00";
    uint16_t id = 0;
    uint64_t cost[2] = {0};
    uint32_t max = lg.max_streams; /* what a 1 KiB chunk's catalog holds */
    CHECK_EQ(max, (1024 - 56) / 24);
    for (uint32_t i = 0; i < max; i++) {
        name[1] = (char)('0' + i / 10);
        name[2] = (char)('0' + i % 10);
        CHECK_EQ(pump_all(), 0);
        uint64_t before = device_ops();
        CHECK_EQ(sl_stream_create(&lg, name, &id), 0);
        CHECK_EQ(device_ops(), before); /* create itself: RAM only */
        CHECK_EQ(pump_all(), 0);
        if (i == 1 || i == max - 1)
            cost[i == 1 ? 0 : 1] = device_ops() - before;
    }
    CHECK_EQ(cost[0], cost[1]); /* one catalog chunk, 2 streams or 40 */
    CHECK_EQ(cost[0], 2);       /* written twice: a damaged copy loses no name */
    CHECK_EQ(sl_stream_create(&lg, "one-too-many", &id), SL_ENOSPC);
    CHECK_EQ(sl_stream_delete(&lg, id), 0);
    CHECK_EQ(sl_stream_create(&lg, "one-too-many", &id), 0);
    CHECK_EQ(sl_stream_create(&lg, "a-name-far-too-long", &id), SL_EINVAL);
}

const struct sts_test_case test_sl_parts_cases[] = {
    {"a_steady_stream_is_found_in_three_header_reads",
     a_steady_stream_is_found_in_three_header_reads},
    {"a_search_reads_the_part_it_lands_in_not_the_chunk",
     a_search_reads_the_part_it_lands_in_not_the_chunk},
    {"a_damaged_part_loses_its_own_records_and_nothing_else",
     a_damaged_part_loses_its_own_records_and_nothing_else},
    {"a_version_3_log_is_written_on_without_parts", a_version_3_log_is_written_on_without_parts},
    {"latest_n_reads_what_the_newest_chunk_holds", latest_n_reads_what_the_newest_chunk_holds},
    {"searches_by_time_and_sequence_read_log_n_chunks",
     searches_by_time_and_sequence_read_log_n_chunks},
    {"power_cuts_lose_nothing_synced", power_cuts_lose_nothing_synced},
    {"managed_media_and_the_nonblocking_path", managed_media_and_the_nonblocking_path},
    {"streams_cost_the_same_however_many_there_are", streams_cost_the_same_however_many_there_are},
    {NULL, NULL},
};
