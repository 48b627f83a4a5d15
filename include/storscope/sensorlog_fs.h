/* sensorlog as a storscope filesystem, so every workload can run on it
 * (target `sim:PROFILE+sensorlog`). A file is a stream; its bytes are the
 * payloads of the stream's records (up to 255 bytes each), stamped with a
 * byte clock that counts every byte appended through the facade, so a
 * positioned read is a search by timestamp: O(log n) device reads, not a
 * scan (for a file written in at most 32 stretches between other files'
 * writes; beyond that, reads past the 32nd stretch scan it). Reading bytes
 * the circular log has already evicted fails with STS_ERANGE. Files are append-only: a write must start at the end of the file
 * (targets say so with STS_T_APPEND_ONLY and workloads that rewrite in
 * place skip those points). Directories are name prefixes. The file table
 * lives in caller-provided RAM, as extentfs's does; the data is sensorlog's
 * and survives a remount, the names of a facade do not. */
#ifndef STORSCOPE_SENSORLOG_FS_H
#define STORSCOPE_SENSORLOG_FS_H

#include "sensorlog/sensorlog.h"
#include "storscope/fs.h"
#include "storscope/invertbd.h"
#include "storscope/verifybd.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STS_SLFS_RUNS 32    /* stretches of a file between other files' writes */
#define STS_SLFS_HANDLES 16
#define STS_SLFS_RECORD_MAX 255u /* bytes of a file in one record: writes are cut into these */
/* the least cfg.log.buffer_bytes: one record of the largest size */
#define STS_SLFS_MIN_BUFFER SL_RECORD_RAM(STS_SLFS_RECORD_MAX)

/* One stretch of a file written without another file's records between:
 * its bytes lie at byte-clock times ts0 .. ts0 + len. */
struct sts_slfs_run {
    uint64_t ts0, off0, len;
};

struct sts_slfs_file {
    char name[SL_NAME_MAX];  /* "" = free entry */
    uint16_t id;             /* its stream */
    uint64_t size;           /* bytes */
    uint32_t n_runs;
    int fragmented;          /* more stretches than runs[] holds: past the last one,
                                a positioned read scans that stretch's records */
    struct sts_slfs_run runs[STS_SLFS_RUNS];
    /* what a power cut may not take: the bytes made durable by the last
     * sync (synced), the byte-clock time just past the last of them
     * (synced_end) and the CRC-32C of all of them (synced_crc; crc is that
     * of every byte appended so far) */
    uint64_t synced, synced_end;
    uint32_t crc, synced_crc;
    int deleting;            /* its delete failed: gone to every operation, but it may
                                still be on the medium (a cut may or may not have taken it) */
};

struct sts_slfs_config {
    struct sl_config log;          /* the medium and sensorlog's buffers */
    struct sts_slfs_file *files;   /* caller-provided file table */
    uint32_t n_files;
};

struct sts_slfs {
    struct sl_log log;
    struct sts_slfs_config cfg;
    uint64_t byte_clock;           /* payload bytes appended: the next record's timestamp */
    uint32_t last_file;            /* file of the last record appended */
    int unsynced;                  /* records may be in RAM: reads sync first */
    int io_failed;                 /* the medium failed the last operation that reached it
                                      (a delete begun then never reached it) */
    uint64_t paced;                /* chunk slots the log had taken when the facade last
                                      erased ahead for them */
    uint32_t paced_seq;            /* the log's segment number then */
    uint64_t carried;              /* bytes of segments' header and catalog copies not yet
                                      matched by erasing ahead */
    struct {
        int used;
        uint32_t file;
        uint64_t pos;
    } handles[STS_SLFS_HANDLES];
    /* sequential reads continue an iterator instead of searching again */
    struct sl_iter it;
    struct sl_record rec;
    uint32_t it_file;
    uint64_t it_pos, rec_off;      /* file offset the iterator is at; bytes used of rec */
    int it_valid;
    uint64_t evicted_end; /* the end (sequence number) of the newest segment the log
                             evicted: what a reader passes over below it after a cut
                             was evicted, not lost (the check after a cut) */
};

/* Formats the medium and opens the facade. */
int sts_slfs_init(struct sts_slfs *fs, const struct sts_slfs_config *cfg, struct sts_fs *out);

/* After a power cut (the medium is back on): mounts the log again and
 * checks that every file still holds what its last sync made durable - its
 * stream under its name, records up to its last synced byte, and, when
 * nothing of it was evicted, the same bytes (CRC). STS_OK, or
 * STS_ECORRUPT with `why` naming the first file that lost data; the counts
 * say what was checked. On STS_OK `why` says how many records the reader
 * passed over at the oldest segment's end (an eviction the cut stopped,
 * which erases a segment from its end: evicted, not lost), or is empty. The facade is not usable for writing afterwards. */
int sts_slfs_check_after_cut(struct sts_slfs *fs, uint32_t *files, uint64_t *bytes, char *why,
                             size_t why_len);

/* Host: what stands between sensorlog and a flash chip: an inverter
 * where the geometry says the chip erases to 0x00 (sensorlog looks for
 * 0xFF blanks: invertbd.h), then, with `verify`, a read-back of every
 * program (a chip can fail one without a word: verifybd.h). *bd becomes
 * the top of the stack; buffers of buf_bytes each are allocated.
 * STS_ENOMEM when one cannot be had (nothing is stacked then). Used by
 * +sensorlog and by `storscope log`. */
struct sts_flash_guard {
    struct sts_invertbd invert;
    struct sts_verifybd verify;
    uint8_t *invert_buf, *verify_buf; /* NULL: not stacked */
};
int sts_flash_guard_stack(struct sts_flash_guard *g, struct sts_bd *bd, size_t buf_bytes,
                          int verify);
void sts_flash_guard_free(struct sts_flash_guard *g);

/* Host: sensorlog stacked on bd from `base` on, with the memory and the
 * defaults a logger would give it and the options of spec's +sensorlog
 * (chunk=, segment=, buffer=, erase_unit=): what sim: and raw: targets
 * open for +sensorlog (src/fs/slfs_stack.c). Formats the region. On
 * failure err names the problem and nothing is left allocated. */
struct sts_slfs_stack;
struct sts_target_spec;
int sts_slfs_stack_open(struct sts_slfs_stack **stack, struct sts_bd bd,
                        const struct sts_target_spec *spec, uint64_t base, struct sts_fs *out,
                        char *err, size_t errlen);
struct sts_slfs *sts_slfs_stack_fs(struct sts_slfs_stack *stack);
/* Records the log's geometry in the target's environment (sensorlog_*). */
struct sts_target;
void sts_slfs_stack_record(struct sts_slfs_stack *stack, struct sts_target *t);
void sts_slfs_stack_close(struct sts_slfs_stack *stack);

#ifdef __cplusplus
}
#endif
#endif
