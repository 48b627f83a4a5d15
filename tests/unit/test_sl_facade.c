/* sensorlog as a storscope filesystem (the facade, sensorlog_fs): files
 * that append and read anywhere, evicted starts, cuts, and the workloads
 * run on it. */
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

/* ---- the facade: sensorlog as a storscope filesystem ---------------------- */
static struct sts_slfs slfs;
static struct sts_slfs_file slfs_files[64];

static int facade(struct sts_fs *fs)
{
    int rc = medium("emmc-stm32u5", 1024 * 1024, 65536, 0);
    if (rc)
        return rc;
    struct sts_slfs_config fc = {.log = cfg, .files = slfs_files, .n_files = 64};
    fc.log.chunk_bytes = 4096;
    fc.log.segment_bytes = 65536;
    return sts_slfs_init(&slfs, &fc, fs);
}

/* The facade cuts writes into records of up to STS_SLFS_RECORD_MAX bytes; a
 * RAM buffer that cannot hold one is refused at init, before the medium is
 * touched (it was taken, and the first long write failed with STS_ENOMEM). */
static void facade_refuses_a_buffer_too_small_for_a_record(void)
{
    struct sts_fs fs;
    CHECK_EQ(medium("emmc-stm32u5", 1024 * 1024, 65536, 0), 0);
    struct sts_slfs_config fc = {.log = cfg, .files = slfs_files, .n_files = 64};
    fc.log.chunk_bytes = 4096;
    fc.log.segment_bytes = 65536;
    fc.log.buffer_bytes = 12 + 254; /* a ring header (12 B) and one byte short of a record */
    CHECK_EQ(sts_slfs_init(&slfs, &fc, &fs), STS_EINVAL);
    CHECK_EQ(cnt.programs + cnt.erases, 0);
    fc.log.buffer_bytes = 12 + 255;
    CHECK_EQ(sts_slfs_init(&slfs, &fc, &fs), 0);
    const struct sts_fs_ops *o = fs.ops;
    sts_fh a;
    uint8_t buf[2000], got[2000];
    size_t done;
    for (int i = 0; i < 2000; i++)
        buf[i] = (uint8_t)(i * 31 + 7);
    CHECK_EQ(o->open(fs.ctx, "a", STS_O_WRONLY | STS_O_CREAT | STS_O_TRUNC, &a), 0);
    CHECK_EQ(o->write(fs.ctx, a, buf, sizeof(buf), &done), 0); /* eight records, one at a time */
    CHECK_EQ(done, sizeof(buf));
    CHECK_EQ(o->sync(fs.ctx, a, STS_SYNC_DATA), 0);
    CHECK_EQ(o->seek(fs.ctx, a, 0), 0);
    CHECK_EQ(o->read(fs.ctx, a, got, sizeof(got), &done), 0);
    CHECK_EQ(done, sizeof(got));
    CHECK(!memcmp(buf, got, sizeof(got)));
    CHECK_EQ(o->close(fs.ctx, a), 0);
}

static void facade_files_append_and_read_anywhere(void)
{
    struct sts_fs fs;
    CHECK_EQ(facade(&fs), 0);
    const struct sts_fs_ops *o = fs.ops;
    sts_fh a, b;
    CHECK_EQ(o->mkdir(fs.ctx, "d"), 0);
    CHECK_EQ(o->open(fs.ctx, "d/a", STS_O_WRONLY | STS_O_CREAT | STS_O_TRUNC, &a), 0);
    CHECK_EQ(o->open(fs.ctx, "b", STS_O_WRONLY | STS_O_CREAT | STS_O_TRUNC, &b), 0);
    /* two files written in turns: each keeps its bytes in order */
    uint8_t buf[1000], got[1000];
    size_t done;
    for (int round = 0; round < 40; round++) { /* 40 stretches: past 32 the last is scanned */
        for (int i = 0; i < 1000; i++)
            buf[i] = (uint8_t)(round * 7 + i);
        CHECK_EQ(o->write(fs.ctx, a, buf, 1000, &done), 0);
        CHECK_EQ(done, 1000);
        CHECK_EQ(o->write(fs.ctx, b, buf, 300, &done), 0);
    }
    CHECK_EQ(o->seek(fs.ctx, a, 10), 0);
    CHECK_EQ(o->write(fs.ctx, a, buf, 10, &done), STS_ENOTSUP); /* append-only */
    CHECK_EQ(o->sync(fs.ctx, a, STS_SYNC_DATA), 0);
    struct sts_stat st;
    CHECK_EQ(o->stat(fs.ctx, "d/a", &st), 0);
    CHECK_EQ(st.size, 40000);
    CHECK_EQ(o->stat(fs.ctx, "d", &st), 0);
    CHECK(st.is_dir);
    CHECK_EQ(o->close(fs.ctx, a), 0);
    CHECK_EQ(o->open(fs.ctx, "d/a", STS_O_RDONLY, &a), 0);
    /* positioned reads anywhere, including across records and runs */
    static const uint64_t offs[] = {0, 1, 254, 255, 999, 1000, 20123, 39990};
    for (size_t k = 0; k < sizeof(offs) / sizeof(offs[0]); k++) {
        uint64_t before = cnt.reads;
        CHECK_EQ(o->seek(fs.ctx, a, offs[k]), 0);
        CHECK_EQ(o->read(fs.ctx, a, got, 10, &done), 0);
        CHECK_EQ(done, offs[k] + 10 > 40000 ? 40000 - offs[k] : 10);
        for (size_t i = 0; i < done; i++) {
            uint64_t at = offs[k] + i;
            CHECK_EQ(got[i], (uint8_t)((at / 1000) * 7 + at % 1000));
        }
        if (offs[k] < 32000) /* the first 32 stretches are indexed */
            /* a search, not a scan: a bisection, plus a look past the end
             * of a segment's data (a damaged chunk is told from the end by
             * the chunk after it) */
            CHECK(cnt.reads - before <= 9);
    }
    /* sequential read of the whole file */
    CHECK_EQ(o->seek(fs.ctx, a, 0), 0);
    uint64_t total = 0;
    while (o->read(fs.ctx, a, got, 777, &done) == 0 && done) {
        for (size_t i = 0; i < done; i++) {
            uint64_t at = total + i;
            CHECK_EQ(got[i], (uint8_t)((at / 1000) * 7 + at % 1000));
        }
        total += done;
    }
    CHECK_EQ(total, 40000);
    CHECK_EQ(o->close(fs.ctx, a), 0);
    CHECK_EQ(o->close(fs.ctx, b), 0);
    CHECK_EQ(o->unlink(fs.ctx, "d/a"), 0);
    CHECK_EQ(o->open(fs.ctx, "d/a", STS_O_RDONLY, &a), STS_ENOENT);
    CHECK_EQ(o->open(fs.ctx, "a-name-too-long-for-it", STS_O_RDONLY | STS_O_CREAT, &a),
             STS_EINVAL);
    struct sts_statvfs sv;
    CHECK_EQ(o->statvfs(fs.ctx, &sv), 0);
    /* what the files hold, about 5 bytes of record header per 255: b is left */
    CHECK_EQ(sv.total_bytes - sv.free_bytes, 40 * 300 + (40 * 300 + 254) / 255 * 5);
}

/* A file whose start the circular log has wrapped past: a read there says
 * so (STS_EEVICTED, "evicted: ..."), not "out of range" - what B0 printed
 * on a 4 MiB NOR whose 64 KiB segments were mostly catalog copies. The end
 * of the file still reads. */
static void facade_read_of_an_evicted_start_says_evicted(void)
{
    struct sts_fs fs;
    CHECK_EQ(facade(&fs), 0);
    const struct sts_fs_ops *o = fs.ops;
    sts_fh a;
    uint8_t buf[1000], got[10];
    size_t done;
    for (int i = 0; i < 1000; i++)
        buf[i] = (uint8_t)i;
    CHECK_EQ(o->open(fs.ctx, "a", STS_O_WRONLY | STS_O_CREAT | STS_O_TRUNC, &a), 0);
    for (int round = 0; round < 2000; round++) { /* 2 MB into a 1 MiB log: it wraps */
        CHECK_EQ(o->write(fs.ctx, a, buf, sizeof(buf), &done), 0);
        CHECK_EQ(done, sizeof(buf));
    }
    CHECK_EQ(o->sync(fs.ctx, a, STS_SYNC_DATA), 0);
    CHECK_EQ(o->seek(fs.ctx, a, 0), 0);
    CHECK_EQ(o->read(fs.ctx, a, got, sizeof(got), &done), STS_EEVICTED);
    CHECK(strstr(sts_strerror(STS_EEVICTED), "evicted") != NULL);
    CHECK_EQ(o->seek(fs.ctx, a, 2000000 - 10), 0);
    CHECK_EQ(o->read(fs.ctx, a, got, sizeof(got), &done), 0);
    CHECK_EQ(done, 10);
    CHECK_EQ(got[0], (uint8_t)990);
    CHECK_EQ(o->close(fs.ctx, a), 0);
}

/* A file written in pieces of every size 1..600 reads back at every offset
 * (positioned reads used to fail with STS_ECORRUPT unless the file had been
 * written in multiples of 255 bytes: a record was assumed to be 255 long).
 * Offsets are visited in a stride, so each read positions afresh. */
static void facade_reads_any_offset_of_a_file_written_in_pieces(void)
{
    struct sts_fs fs;
    CHECK_EQ(facade(&fs), 0);
    const struct sts_fs_ops *o = fs.ops;
    sts_fh a, b;
    CHECK_EQ(o->open(fs.ctx, "a", STS_O_WRONLY | STS_O_CREAT | STS_O_TRUNC, &a), 0);
    CHECK_EQ(o->open(fs.ctx, "b", STS_O_WRONLY | STS_O_CREAT | STS_O_TRUNC, &b), 0);
    static uint8_t buf[600];
    uint64_t size = 0;
    size_t done;
    for (uint32_t piece = 1; piece <= 600; piece++) {
        for (uint32_t i = 0; i < piece; i++)
            buf[i] = (uint8_t)(sts_mix64(size + i) >> 13);
        CHECK_EQ(o->write(fs.ctx, a, buf, piece, &done), 0);
        size += piece;
        if (piece % 97 == 0) /* now and then another file's bytes in between */
            CHECK_EQ(o->write(fs.ctx, b, buf, 5, &done), 0);
    }
    CHECK_EQ(size, 600u * 601u / 2u);
    CHECK_EQ(o->sync(fs.ctx, a, STS_SYNC_DATA), 0);
    CHECK_EQ(o->close(fs.ctx, a), 0);
    CHECK_EQ(o->open(fs.ctx, "a", STS_O_RDONLY, &a), 0);
    /* every offset of the first 2,000 bytes (pieces 1..62), then the first,
     * middle and last byte of every piece; each read positions afresh */
    uint64_t bad_at = UINT64_MAX, piece_start = 0;
    int bad_rc = 0;
    for (uint64_t at = 0; at < size && bad_at == UINT64_MAX;) {
        uint8_t got[3];
        CHECK_EQ(o->seek(fs.ctx, a, at), 0);
        int rc = o->read(fs.ctx, a, got, sizeof(got), &done);
        int ok = rc == 0 && done == (size - at < 3 ? size - at : 3);
        for (size_t i = 0; ok && i < done; i++)
            ok = got[i] == (uint8_t)(sts_mix64(at + i) >> 13);
        if (!ok) {
            bad_at = at;
            bad_rc = rc;
        }
        if (at < 2000) {
            at++;
            continue;
        }
        /* the piece holding `at`: pieces 1, 2, ... start at k(k-1)/2 */
        uint64_t k = 1;
        while ((k + 1) * k / 2 <= at)
            k++;
        piece_start = k * (k - 1) / 2;
        uint64_t mid = piece_start + k / 2, last = piece_start + k - 1;
        at = at < mid ? mid : at < last ? last : last + 1;
    }
    CHECK_EQ(bad_rc, 0);
    CHECK_EQ(bad_at, UINT64_MAX); /* names the first offset that read wrong */
    CHECK_EQ(o->close(fs.ctx, a), 0);
    CHECK_EQ(o->close(fs.ctx, b), 0);
}

/* The engine's workloads on the facade, with every read verified. */
/* Issue 13.2: after a power cut the facade mounts the log again and looks
 * for every byte its last sync made durable. The check must pass after a
 * cut, and must fail - naming the file - when synced bytes are gone. */
static long find_bytes(const uint8_t *hay, size_t n, const uint8_t *needle, size_t k)
{
    for (size_t i = 0; i + k <= n; i++)
        if (!memcmp(hay + i, needle, k))
            return (long)i;
    return -1;
}

/* Power cut and back on, then the facade's check after a cut. */
static int cut_and_check(uint32_t *files, uint64_t *bytes, char *why, size_t n)
{
    sts_sim_power_cut(&sim);
    sts_sim_power_on(&sim);
    return sts_slfs_check_after_cut(&slfs, files, bytes, why, n);
}

static void facade_checks_what_a_cut_may_not_take(void)
{
    struct sts_fs fs;
    CHECK_EQ(facade(&fs), 0);
    sts_fh a, b;
    static uint8_t data[20000];
    for (size_t i = 0; i < sizeof(data); i++)
        data[i] = (uint8_t)(sts_mix64(i) >> 9);
    size_t done;
    CHECK_EQ(fs.ops->open(fs.ctx, "a", STS_O_WRONLY | STS_O_CREAT, &a), 0);
    CHECK_EQ(fs.ops->open(fs.ctx, "b", STS_O_WRONLY | STS_O_CREAT, &b), 0);
    CHECK_EQ(fs.ops->write(fs.ctx, a, data, 7000, &done), 0);
    CHECK_EQ(fs.ops->write(fs.ctx, b, data + 7000, 5000, &done), 0);
    CHECK_EQ(fs.ops->sync(fs.ctx, a, STS_SYNC_DATA), 0);
    CHECK_EQ(fs.ops->write(fs.ctx, a, data + 12000, 8000, &done), 0); /* never synced */
    uint32_t files;
    uint64_t bytes;
    char why[160];
    CHECK_EQ(cut_and_check(&files, &bytes, why, sizeof(why)), 0);
    CHECK_EQ(files, 2);
    CHECK_EQ(bytes, 12000); /* what the sync covered, not the 8000 after it */
    /* the same medium with one synced byte of file b changed: b's chunk no
     * longer checks, its records are passed over and its end is missing */
    uint64_t at = 0;
    uint8_t probe[4096];
    for (; at < 1024 * 1024; at += 4096) /* the chunk holding b's bytes (torn pages fail) */
        if (!cnt.inner.ops->read(cnt.inner.ctx, at, probe, sizeof(probe)) &&
            find_bytes(probe, sizeof(probe), data + 7000 + 255 * 8 + 10, 64) >= 0)
            break;
    CHECK(at < 1024 * 1024);
    if (at >= 1024 * 1024)
        return;
    probe[find_bytes(probe, sizeof(probe), data + 7000 + 255 * 8 + 10, 64)] ^= 0x10;
    uint32_t pb = sim.p.page_bytes;
    for (uint32_t i = 0; i < sizeof(probe); i++) { /* behind the model's back */
        uint32_t page = (uint32_t)((at + i) / pb);
        sim.store[(size_t)(sim.store_map[page] - 1) * pb + (at + i) % pb] = probe[i];
    }
    CHECK_EQ(sts_slfs_check_after_cut(&slfs, &files, &bytes, why, sizeof(why)), STS_ECORRUPT);
    CHECK(!strncmp(why, "file b: ", 8));
}

/* A chunk lost from the middle of a file (no eviction: the log is far
 * from full) is a loss the check names as such, where the reader passing
 * over the oldest segment's end (an eviction the cut stopped) is not: the
 * check tells the two apart by the reader's own count of what it passed
 * over there (CLI test DirtyMedia's eviction cut for that side). */
/* n bytes of data written to a new file `name` and synced. */
static void write_synced(struct sts_fs *fs, const char *name, const uint8_t *data, size_t n)
{
    sts_fh fh;
    size_t done;
    CHECK_EQ(fs->ops->open(fs->ctx, name, STS_O_WRONLY | STS_O_CREAT, &fh), 0);
    CHECK_EQ(fs->ops->write(fs->ctx, fh, data, n, &done), 0);
    CHECK_EQ(fs->ops->sync(fs->ctx, fh, STS_SYNC_DATA), 0);
}

static void a_chunk_lost_mid_file_is_missing_from_its_middle(void)
{
    struct sts_fs fs;
    CHECK_EQ(facade(&fs), 0);
    static uint8_t data[24000];
    for (size_t i = 0; i < sizeof(data); i++)
        data[i] = (uint8_t)(sts_mix64(i * 7 + 3) >> 11);
    write_synced(&fs, "a", data, sizeof(data));
    uint32_t files;
    uint64_t bytes;
    char why[160];
    CHECK_EQ(cut_and_check(&files, &bytes, why, sizeof(why)), 0);
    CHECK_EQ(bytes, sizeof(data));
    CHECK_EQ(why[0], '\0'); /* nothing passed over */
    /* a byte changed in the chunk holding offset 12,000 (of six): its
     * records are passed over, those before and after it read back */
    uint64_t at = 0;
    uint8_t probe[4096];
    const uint8_t *mark = data + 12000;
    for (; at < 1024 * 1024; at += 4096)
        if (!cnt.inner.ops->read(cnt.inner.ctx, at, probe, sizeof(probe)) &&
            find_bytes(probe, sizeof(probe), mark, 64) >= 0)
            break;
    CHECK(at < 1024 * 1024);
    if (at >= 1024 * 1024)
        return;
    probe[find_bytes(probe, sizeof(probe), mark, 64)] ^= 0x10;
    uint32_t pb = sim.p.page_bytes;
    for (uint32_t i = 0; i < sizeof(probe); i++) { /* behind the model's back */
        uint32_t page = (uint32_t)((at + i) / pb);
        sim.store[(size_t)(sim.store_map[page] - 1) * pb + (at + i) % pb] = probe[i];
    }
    CHECK_EQ(sts_slfs_check_after_cut(&slfs, &files, &bytes, why, sizeof(why)), STS_ECORRUPT);
    CHECK_STR(why, "file a: synced bytes are missing from its middle");
}

/* The facade on 1 MiB of NOR in 64 KiB segments (nothing evicted while it
 * holds less), and `bytes` of a pattern written to `name` and synced. */
static uint8_t nor_data[100000];
static void nor_facade_with(struct sts_fs *fs, const char *name, size_t bytes)
{
    CHECK_EQ(medium("nor-spi", 1024 * 1024, 0, 0), 0);
    struct sts_slfs_config fc = {.log = cfg, .files = slfs_files, .n_files = 64};
    fc.log.segment_bytes = 65536;
    CHECK_EQ(sts_slfs_init(&slfs, &fc, fs), 0);
    for (size_t i = 0; i < sizeof(nor_data); i++)
        nor_data[i] = (uint8_t)(sts_mix64(i * 5 + 1) >> 17);
    write_synced(fs, name, nor_data, bytes);
}

/* The reader counts a blank end of the oldest segment as evicted: that is
 * what an eviction a cut stopped leaves (a segment is erased from its end).
 * A medium that lost that end of a segment the log never evicted looks
 * the same to the reader; the facade knows which segments the log evicted
 * (its evict hook), and the check names this one a loss. */
static void an_oldest_segments_end_lost_unevicted_is_a_loss(void)
{
    struct sts_fs fs;
    nor_facade_with(&fs, "a", sizeof(nor_data));
    uint32_t files;
    uint64_t bytes;
    char why[160];
    CHECK_EQ(cut_and_check(&files, &bytes, why, sizeof(why)), 0);
    CHECK_EQ(bytes, sizeof(nor_data));
    CHECK_EQ(slfs.evicted_end, 0); /* 1 MiB holds it: nothing evicted */
    /* the first segment's last 4 KiB sector erased behind the log's back:
     * its records (of this file: the first segment is its oldest) read blank */
    uint64_t seg0 = slfs.log.base;
    CHECK_EQ(cnt.inner.ops->erase(cnt.inner.ctx, seg0 + 65536 - 4096, 4096), 0);
    CHECK_EQ(sts_slfs_check_after_cut(&slfs, &files, &bytes, why, sizeof(why)), STS_ECORRUPT);
    CHECK_STR(why, "file a: synced bytes are missing from its middle");
}

/* A file whose records were all in segments the medium lost, not ones the
 * log evicted: the check took it for one the circular log had evicted
 * whole (the log's oldest record is newer than its last synced byte) and
 * passed. Only what the log evicted is excused. */
static void a_file_whose_segment_the_medium_lost_is_not_evicted_whole(void)
{
    struct sts_fs fs;
    nor_facade_with(&fs, "a", 20000);
    write_synced(&fs, "b", nor_data, sizeof(nor_data));
    uint32_t files;
    uint64_t bytes;
    char why[160];
    CHECK_EQ(cut_and_check(&files, &bytes, why, sizeof(why)), 0);
    CHECK_EQ(files, 2);
    CHECK_EQ(slfs.evicted_end, 0);
    /* the first segment, which holds all of a, erased behind the log's back */
    CHECK_EQ(cnt.inner.ops->erase(cnt.inner.ctx, slfs.log.base, 65536), 0);
    CHECK_EQ(sts_slfs_check_after_cut(&slfs, &files, &bytes, why, sizeof(why)), STS_ECORRUPT);
    CHECK(!strncmp(why, "file a: ", 8));
}

/* Issue 43: a log store keeps a deleted file's records until its writer
 * comes round, which on a large medium is never; the paper suite's tests
 * each left their files live on the device behind them (gigabytes in the
 * model, and pages the FTL's garbage collection copies). Counted by the
 * device: logical pages its FTL maps, not what the log thinks it holds. */
static uint32_t pages_held(void)
{
    uint32_t n = 0;
    for (uint32_t p = 0; p < sim.n_lpages; p++)
        n += sim.l2p[p] != 0;
    return n;
}

/* A file of `bytes` in 4 KiB writes of a pattern, synced and closed. */
static int write_file(struct sts_fs *fs, const char *name, size_t bytes, int sync)
{
    static uint8_t block[4096];
    sts_fh f;
    size_t done;
    int rc = fs->ops->open(fs->ctx, name, STS_O_WRONLY | STS_O_CREAT | STS_O_TRUNC, &f);
    for (size_t off = 0; !rc && off < bytes; off += sizeof(block)) {
        for (size_t i = 0; i < sizeof(block); i++)
            block[i] = (uint8_t)(sts_mix64(off + i) >> 7);
        rc = fs->ops->write(fs->ctx, f, block, sizeof(block), &done);
    }
    if (!rc && sync)
        rc = fs->ops->sync(fs->ctx, f, STS_SYNC_DATA);
    return rc ? rc : fs->ops->close(fs->ctx, f);
}

static int reads_back(struct sts_fs *fs, const char *name, size_t bytes)
{
    static uint8_t got[4096];
    sts_fh f;
    size_t done;
    int rc = fs->ops->open(fs->ctx, name, STS_O_RDONLY, &f);
    for (size_t off = 0; !rc && off < bytes; off += sizeof(got)) {
        rc = fs->ops->read(fs->ctx, f, got, sizeof(got), &done);
        for (size_t i = 0; !rc && i < sizeof(got); i++)
            rc = done != sizeof(got) || got[i] != (uint8_t)(sts_mix64(off + i) >> 7);
    }
    return rc ? rc : fs->ops->close(fs->ctx, f);
}

/* A logger's idle loop: maintenance until it has nothing left to do. */
static void idle_through(struct sts_fs *fs)
{
    int rc, steps = 0;
    while ((rc = fs->ops->idle(fs->ctx)) == 1 && ++steps < 10000)
        ;
    CHECK_EQ(rc, 0);
}

static void deleted_files_give_their_pages_back_to_the_medium(void)
{
    struct sts_fs fs;
    CHECK_EQ(facade(&fs), 0); /* 16 segments of 64 KiB, 16 pages each */
    CHECK_EQ(write_file(&fs, "old", 400 * 1024, 1), 0);
    CHECK_EQ(write_file(&fs, "keep", 8 * 1024, 1), 0);
    uint32_t before = pages_held();
    CHECK(before >= 100); /* old's 100 pages and more */
    CHECK_EQ(fs.ops->unlink(fs.ctx, "old"), 0);
    /* the logger's idle loop then: with no write after the delete, its
     * catalog chunk is still in the device's cache, and a cut now must not
     * bring "old" back with its records gone */
    idle_through(&fs);
    uint32_t after = pages_held();
    struct sl_stats st;
    sl_stats(&slfs.log, &st);
    /* what may stay: the writer's segment and the one before it (32
     * pages), which hold keep's 2 pages: nothing of old's 100 beyond them */
    CHECK(after <= 32);
    CHECK(st.dead_trims >= 5);
    CHECK_EQ(reads_back(&fs, "keep", 8 * 1024), 0);
    sts_fh gone;
    CHECK_EQ(fs.ops->open(fs.ctx, "old", STS_O_RDONLY, &gone), STS_ENOENT);
    uint32_t files;
    uint64_t bytes;
    char why[160];
    CHECK_EQ(cut_and_check(&files, &bytes, why, sizeof(why)), 0);
    CHECK_EQ(bytes, 8 * 1024); /* keep's */
    uint16_t id;
    CHECK_EQ(sl_stream_open(&slfs.log, "old", &id), SL_ENOENT); /* its delete was made durable */
}

/* A trim is advice: one the device fails must not fail the delete or the
 * writes after it (it failed the unlink with EIO); the segment waits,
 * free, for the writer's own trim. */
static void a_trim_the_device_fails_fails_nothing(void)
{
    struct sts_fs fs;
    CHECK_EQ(facade(&fs), 0);
    CHECK_EQ(write_file(&fs, "old", 400 * 1024, 1), 0);
    CHECK_EQ(write_file(&fs, "keep", 8 * 1024, 1), 0);
    struct sts_sim_faults f = {.erase_error_ppm = 1000000, .error_lo = 0, .error_hi = 65536};
    sts_sim_set_faults(&sim, &f); /* every erase of the first segment fails */
    CHECK_EQ(fs.ops->unlink(fs.ctx, "old"), 0);
    CHECK_EQ(write_file(&fs, "new", 6 * 4096, 1), 0);
    idle_through(&fs);
    struct sl_stats st;
    sl_stats(&slfs.log, &st);
    CHECK(st.dead_trims >= 4);      /* the others went */
    CHECK(pages_held() <= 32 + 16); /* the first segment's 16 pages wait */
    CHECK(pages_held() > 32);
    CHECK_EQ(reads_back(&fs, "keep", 8 * 1024), 0);
    CHECK_EQ(reads_back(&fs, "new", 6 * 4096), 0);
}

/* Only what is at the log's tail and wholly dead goes: a deleted file
 * written after a live one leaves the live one's records alone. */
static void a_live_files_records_are_never_trimmed(void)
{
    struct sts_fs fs;
    CHECK_EQ(facade(&fs), 0);
    CHECK_EQ(write_file(&fs, "first", 200 * 1024, 1), 0);
    CHECK_EQ(write_file(&fs, "second", 200 * 1024, 1), 0);
    CHECK_EQ(fs.ops->unlink(fs.ctx, "second"), 0);
    CHECK_EQ(write_file(&fs, "third", 6 * 4096, 1), 0);
    struct sl_stats st;
    sl_stats(&slfs.log, &st);
    CHECK_EQ(st.dead_trims, 0);
    CHECK(pages_held() >= 50 + 6); /* first's 50 pages and third's */
    CHECK_EQ(reads_back(&fs, "first", 200 * 1024), 0);
    CHECK_EQ(fs.ops->unlink(fs.ctx, "first"), 0); /* now the tail is dead through second's */
    CHECK_EQ(write_file(&fs, "fourth", 4 * 4096, 1), 0);
    idle_through(&fs);
    sl_stats(&slfs.log, &st);
    CHECK(st.dead_trims >= 5);
    CHECK(pages_held() <= 32);
    CHECK_EQ(reads_back(&fs, "third", 6 * 4096), 0);
    CHECK_EQ(reads_back(&fs, "fourth", 4 * 4096), 0);
}

static void workloads_run_on_the_facade(void)
{
    static struct sts_target t;
    memset(&t, 0, sizeof(t));
    CHECK_EQ(facade(&t.fs), 0);
    sts_sim_clock(&sim, &t.clock);
    t.kind = "sensorlog";
    t.flags = STS_T_KEEPS_DATA | STS_T_VIRTUAL_TIME | STS_T_APPEND_ONLY;
    /* what fits a 1 MiB medium: dd-style seq (its --size), L1, and fsync */
    const struct sts_test_def *tests[] = {sts_test_find("seq"), sts_test_find("L1"),
                                          sts_test_find("fsync")};
    struct sts_plan plan = {.tests = tests, .n_tests = 3, .seed = 9, .verify = 1,
                            .size_bytes = 64 * 1024, .runs = 1, .duration_ns = 500000000};
    struct sts_workspace ws = {sts_test_iobuf, STS_TEST_IOBUF_BYTES, sts_test_hist,
                               STS_HIST_BUCKETS, STS_HIST_SUB_BITS, STS_HIST_MAX_EXP, NULL, 0};
    struct sts_run_info ri = {.tool_version = STORSCOPE_VERSION, .target = "sensorlog:"};
    /* fsync cannot run (it rewrites in place): the run reports it, nothing fails */
    CHECK_EQ(sts_engine_run(&plan, &t, &ws, NULL, 0, &ri), 0);
    struct sl_stats st;
    sl_stats(&slfs.log, &st);
    CHECK(st.programmed_bytes > 64 * 1024); /* at least seq's file went through it */
}

const struct sts_test_case test_sl_facade_cases[] = {
    {"facade_files_append_and_read_anywhere", facade_files_append_and_read_anywhere},
    {"facade_read_of_an_evicted_start_says_evicted", facade_read_of_an_evicted_start_says_evicted},
    {"facade_refuses_a_buffer_too_small_for_a_record",
     facade_refuses_a_buffer_too_small_for_a_record},
    {"facade_checks_what_a_cut_may_not_take", facade_checks_what_a_cut_may_not_take},
    {"a_chunk_lost_mid_file_is_missing_from_its_middle", a_chunk_lost_mid_file_is_missing_from_its_middle},
    {"an_oldest_segments_end_lost_unevicted_is_a_loss", an_oldest_segments_end_lost_unevicted_is_a_loss},
    {"a_file_whose_segment_the_medium_lost_is_not_evicted_whole",
     a_file_whose_segment_the_medium_lost_is_not_evicted_whole},
    {"workloads_run_on_the_facade", workloads_run_on_the_facade},
    {"deleted_files_give_their_pages_back_to_the_medium",
     deleted_files_give_their_pages_back_to_the_medium},
    {"a_live_files_records_are_never_trimmed", a_live_files_records_are_never_trimmed},
    {"a_trim_the_device_fails_fails_nothing", a_trim_the_device_fails_fails_nothing},
    {"facade_reads_any_offset_of_a_file_written_in_pieces",
     facade_reads_any_offset_of_a_file_written_in_pieces},
    {NULL, NULL},
};
