/* sensorlog: a flash log store for data loggers, built on what the
 * reference study found. Producers append records to RAM and never wait
 * for the device; a pump (an I/O task, or a super loop calling sl_pump())
 * writes only whole, program-unit-aligned chunks, one device operation per
 * call; segments are written in order and recycled circularly, so no
 * operation's cost depends on how many streams exist or how full the medium
 * is. The on-flash format is in docs/sensorlog-format.md.
 *
 * It needs nothing from storscope but the block-device interface
 * (storscope/device.h): no heap, no stdio, no OS; the caller provides every
 * buffer and, for calls from several tasks, the locks.
 *
 * Which call may run where (the contract the TSan tests hold it to:
 * tests/unit/test_sensorlog.c, every_call_from_its_own_task and
 * readers_in_other_tasks_get_their_records_or_overtaken):
 *
 *   interrupt         sl_append (cfg.lock masks the interrupt)
 *   producer tasks    sl_append, sl_sync_request (cfg.lock)
 *   the I/O task      sl_pump, sl_maintain, sl_sync
 *   any task          sl_stream_*, sl_iter_*, sl_stats, sl_sync: with
 *                     cfg.io_lock set (iterators with a buffer of their
 *                     own, sl_iter_set_buffer); without, the I/O task only
 *   one task, alone   sl_format, sl_mount (before any other call)
 *
 * Producers only ever wait for a copy into RAM under cfg.lock; readers and
 * stream changes may wait for one device operation under cfg.io_lock.
 *
 * What a reader in another task sees. One iterator belongs to one task at
 * a time (the library locks the log, not the iterator). sl_iter_set_buffer
 * takes cfg.io_lock: called after sl_iter_latest or sl_iter_from_*, when
 * the pump has meanwhile reused cfg.read_buf, it leaves the chunk to be
 * read again into the new buffer, never copies what the pump put there.
 * The writer goes on while a reader reads: records appended after the
 * iterator began are returned too, in log order. When the writer recycles
 * the segment an iterator is in (the log wrapped past the reader),
 * sl_iter_next returns SL_EOVERTAKEN (and again on each call) - never a
 * record of the segment's new contents; the reader goes on with
 * sl_iter_from_gseq(log, it, stream, it->gseq), from the oldest record
 * still there. A stream deleted and its slot given to a new stream ends an
 * iterator of the old one where the new one begins (SL_ENOENT): a reader
 * never gets another stream's records under the id it asked for. */
#ifndef SENSORLOG_H
#define SENSORLOG_H

#include <stddef.h>
#include <stdint.h>

#include "storscope/device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The newest format version, which sl_format() writes where a log can use
 * all of it (a NOR without ECC: short pieces); 5 where pages are smaller
 * than chunks, 4 elsewhere. 2 to 7 are read (docs/sensorlog-format.md). */
#define SL_FORMAT_VERSION 7
#define SL_NAME_MAX 15       /* stream name, bytes including the terminating NUL */
#define SL_MAX_STREAMS 65535 /* stream ids are two bytes; see sl_config.streams */
#define SL_MAX_PAGES 64      /* catalog pages (a page is one chunk of entries) */
#define SL_CATALOG_UPDATES 32 /* mount finds every catalog page among the newest
                                 SL_CATALOG_UPDATES + 1 catalog chunks of a segment
                                 (the writer rewrites every page in time); bounds
                                 what mount reads */
#define SL_MIN_BUFFER 64      /* bytes of cfg.buffer at the least */
#define SL_RECORD_RAM(len) (12u + (len)) /* bytes of cfg.buffer a record of len bytes takes */
#define SL_MANAGED_PAGE 16384 /* page assumed behind an FTL that does not report one */

/* Error codes: the same values as storscope's STS_E* (device errors pass
 * through), except SL_EFULL and SL_EOVERTAKEN, sensorlog's own, which collide with
 * none of them. */
enum {
    SL_OK = 0,
    SL_EIO = -1,      /* the device failed */
    SL_EINVAL = -2,   /* bad argument or configuration */
    SL_ENOENT = -3,   /* no such stream; no formatted log on the medium */
    SL_EEXIST = -4,   /* a stream with that name exists */
    SL_ENOSPC = -5,   /* every stream slot is taken */
    SL_ENOMEM = -6,   /* a caller-provided buffer is too small */
    SL_ECORRUPT = -9, /* the medium holds something sensorlog did not write */
    SL_EFULL = -32,   /* the RAM buffer is full (reject-newest policy) */
    SL_EOVERTAKEN = -33, /* sl_iter_next(): the writer recycled the segment the
                            iterator was in; it->gseq is the next record it would
                            have given (sl_iter_from_gseq from there goes on at the
                            oldest record still in the log) */
    SL_BUSY = 1,      /* sl_pump(): a device operation is in flight */
};

/* What append does when the RAM buffer cannot take a record. */
enum sl_full_policy {
    SL_REJECT_NEWEST = 0, /* return SL_EFULL; what is buffered stays */
    SL_DROP_OLDEST = 1,   /* discard the oldest buffered records to make room */
};

#define SL_SEG_BLANK 2 /* sl_seg_info.erased: blank at its start, to be verified */

/* Per segment, kept in RAM from sl_mount() on: lets reads find a time or a
 * sequence number without reading every header again. */
struct sl_seg_info {
    uint32_t seq;          /* segment sequence number; 0 = free (erased or never used) */
    uint32_t erase_count;
    uint64_t first_gseq;   /* sequence number of the segment's first record */
    uint64_t ts_start;     /* running maximum of timestamps when the segment opened */
    uint8_t erased;        /* 1: known erased (or trimmed), opened without an erase;
                              SL_SEG_BLANK: its first chunk reads blank, which does not
                              make it erased (a chip may hold another filesystem's data
                              behind it): read whole before use, erased if a byte is not
                              blank; 0: erased before use */
    uint8_t bad;           /* retired: an erase or a program failed there */
    uint8_t rebuilt;       /* mount: the header did not check, chunk 1 stood in for it */
    uint8_t version;       /* mount: the format version its header states (0 rebuilt) */
};

struct sl_config {
    /* The medium. The log uses [offset, offset + size) of the device. */
    struct sts_bd bd;
    uint64_t offset;        /* bytes; a multiple of the erase block */
    uint64_t size;          /* bytes; 0 = to the end of the device */
    /* Chunk: the unit of every write, a multiple of the device's program
     * unit. Larger chunks amortise per-command cost (the study's knee: 512 B
     * on its eMMC, 4 KiB on SD cards) and waste more of their place on each
     * sync (a sync writes only the program units it fills, but the next
     * chunk starts at the next chunk boundary) and need a larger staging
     * buffer. A multiple of page_bytes (below).
     * 0 = max(page, 4 KiB): 16 KiB on managed media unless told. */
    uint32_t chunk_bytes;
    /* Part: bytes of a data chunk's records covered by a CRC of their own,
     * with the records decodable from the part's start (format 4), so a
     * reader that a search positions inside a chunk reads and checks the
     * part it lands in and the next, not the whole chunk: on emmc-stm32u5
     * (16 KiB chunks) a facade's random 1 KiB read ~0.6 ms instead of 1.95
     * (bench/README.md). Each part costs 16 bytes of table after the chunk
     * header and a few bytes of record header (its first record repeats
     * nothing of the record before). A power of two from 256; 0 = 2 KiB
     * when chunks are 8 KiB or more, none below (a smaller chunk reads in
     * one command for about what a part would cost); chunk_bytes or more:
     * none. */
    uint32_t part_bytes;
    /* The unit a power cut may destroy around a write: the flash page
     * behind an FTL, the program page on raw flash. Every chunk is a whole
     * number of these, so writing a chunk never reprograms a page that holds
     * a chunk already synced. 0 = the page the device reports (geometry
     * page_size); if it reports none, the program unit on raw flash and
     * SL_MANAGED_PAGE on managed media (eMMC and SD do not say; 16 KiB
     * covers the pages of current parts); 1 on a NOR without ECC
     * (STS_BD_PROGRAM_BYTES: a cut tears only the bytes being programmed),
     * where writes are not rounded up either. Smaller means smaller chunks
     * and buffers, and a sync's piece closer to the one before; set it only
     * to a page size you know. */
    uint32_t page_bytes;
    /* Segment: the unit of erase and recycling, a multiple of the erase
     * block and of the chunk. Larger segments mean fewer headers to read at
     * mount but coarser retention (a whole segment is evicted at once).
     * 0 = max(erase block, 16 chunks), doubled until the log has at most
     * 64 segments, and on while a segment is under 128 chunks and the log
     * keeps 16 segments or more (a 16 MiB NOR: 512 KiB, 32 segments; 256
     * MiB of eMMC: 4 MiB, 64), so mount reads at most 64 headers and a
     * segment's header and catalog page, erased every lap like its data,
     * are 1/64 of it or less where the log is large enough (with 64-chunk
     * segments, 3 % more wear than the records need); a segment is then
     * 1/16 to 1/64 of the log, the unit the oldest data goes in. */
    uint32_t segment_bytes;
    /* Free-space floor: segments kept erased ahead of the writer. Erasing
     * happens in idle pumps, never in front of a write, as long as appends
     * leave the pump time; more segments = more headroom, less retention.
     * 0 = 1. */
    uint32_t free_segments;
    /* 0: sl_pump() erases ahead whenever it has nothing else to do. 1: it
     * never does; the caller spends its idle time with sl_maintain(), one
     * erase block per call (a writer with no idle time of its own, such as
     * a filesystem facade, erases after each operation about as many bytes
     * as the operation took, or it falls behind and the write that opens a
     * segment waits for all of its erase). */
    uint8_t manual_maintenance;
    /* Bytes one erase step of the pump (or sl_maintain) erases: the pump's
     * longest step, so what the RAM buffer must outlast. 0 = the device's
     * erase block (SPI NOR: a 4 KiB sector, 45 ms typical, 400 ms worst).
     * Set to the device's large erase (sts_bd_geometry.erase_large_size;
     * SPI NOR: a 64 KiB block, 150 ms typical, 2 s worst) to spend 5x
     * less device time erasing per byte: on NOR, where erasing is most of
     * the time a log takes, nearly twice the throughput, for a buffer that
     * covers the longer stall. A multiple of the erase block dividing the
     * segment, the offset aligned to it. sl_format() uses the large erase
     * whatever this says: nobody appends while it runs. */
    uint32_t erase_unit_bytes;
    /* Nanoseconds of device time one erase step may take, on a device that
     * can suspend an erase (sts_bd_ops.erase_for; SPI NOR): the step erases
     * that long, suspends, and the next erase step resumes, so writes go on
     * between the slices and the pump's longest step is this (plus the
     * suspend, 20 us on a W25Q) or one chunk's program, whichever is longer
     * - not a whole erase (45 ms typical, 400 ms worst for a NOR sector).
     * The RAM buffer then covers the slice instead of the erase: on NOR,
     * 2 ms instead of 400 ms is 200x less buffer. Each slice costs a
     * suspend; the erase also goes on only while the pump runs. 0 = erase
     * steps run to their end (also on devices that cannot suspend). */
    uint32_t erase_slice_ns;
    /* RAM for records between append and the device: at least the largest
     * stall times the data rate (measure it with storscope's L1). A record
     * takes SL_RECORD_RAM(len) bytes here; at least SL_MIN_BUFFER bytes. */
    uint8_t *buffer;
    size_t buffer_bytes;
    enum sl_full_policy full_policy;
    /* Staging for one chunk (chunk_bytes) and a read buffer (chunk_bytes);
     * both aligned as the device needs. */
    uint8_t *chunk_buf;
    uint8_t *read_buf;
    /* One entry per segment (size / segment_bytes entries). */
    struct sl_seg_info *segs;
    uint32_t n_segs;
    /* The catalog: one entry per stream the log may hold. It is kept in
     * pages of (chunk_bytes - 60) / 24 entries (168 with 4 KiB chunks); a
     * create or delete rewrites the one page its entry is in (one chunk),
     * and every segment opens with a copy of all pages. At most 64 pages
     * and 65,535 streams. */
    struct sl_stream_info *streams;
    uint32_t max_streams;
    /* Optional: called before the oldest segment is erased, with its first
     * and last sequence numbers, so it can be archived; the log is readable
     * in the callback. */
    void (*evict)(void *ctx, uint64_t first_gseq, uint64_t end_gseq);
    void *evict_ctx;
    /* Optional: appends from several tasks (or from an interrupt) need a
     * lock around the RAM buffer; it is held for a copy only. From an
     * interrupt, it must mask that interrupt. */
    void (*lock)(void *ctx);
    void (*unlock)(void *ctx);
    void *lock_ctx;
    /* Optional: streams, iterators and statistics from tasks other than
     * the one that pumps need a second lock (a mutex, never taken in an
     * interrupt); it is held for one pump step (one device operation) or
     * one iterator call, and producers never take it. */
    void (*io_lock)(void *ctx);
    void (*io_unlock)(void *ctx);
    void *io_lock_ctx;
    /* Optional: a clock (ns) for the worst append/pump statistics. */
    uint64_t (*now_ns)(void *ctx);
    void *clock_ctx;
    /* Optional: CRC-32C done elsewhere - a hardware CRC unit (an STM32's is
     * programmable to the Castagnoli polynomial 0x1EDC6F41) or a faster
     * table - computing exactly what sl_crc32c() computes (reflected,
     * initial and final XOR 0xFFFFFFFF; `crc` is a previous result to
     * continue from, 0 to start). NULL: sl_crc32c, a 4-bit table (64 bytes
     * of flash, two table steps a byte). Every chunk and header is
     * checksummed, so this is most of the store's CPU per byte. */
    uint32_t (*crc32c)(void *ctx, uint32_t crc, const void *data, size_t len);
    void *crc_ctx;
};

struct sl_stream_info {
    uint16_t id;               /* 1..65535 (its slot + 1); 0 = free slot */
    char name[SL_NAME_MAX];
    uint64_t created_gseq;     /* records before this belong to an older stream */
};

/* What a log counts as it runs, kept in struct sl_log (each field a count
 * or a maximum); sl_stats() returns them with what it works out on the
 * call, which the log does not keep (the RAM a small MCU has is counted:
 * docs/footprint.md). Listed once, for both structs. */
#define SL_COUNTERS                                                                        \
    uint64_t appended_records, appended_bytes, dropped_records, rejected_records;          \
    uint64_t programmed_bytes;     /* to the device, with headers and padding */           \
    /* what programmed_bytes holds besides the records' data (write                       \
     * amplification = 1 + these over appended_bytes, plus rewrites of                    \
     * failed programs): record headers (varints), data chunks' headers,                  \
     * the written but unused tail of data chunks (up to the program unit                 \
     * after a sync; the record that did not fit), and segment headers with               \
     * catalog chunks (each up to its program unit) */                                    \
    uint64_t record_header_bytes, chunk_header_bytes, padding_bytes, meta_bytes;           \
    uint64_t erases, evictions, syncs;                                                     \
    uint64_t dead_trims;           /* segments trimmed early: their streams were all       \
                                      deleted (managed media, sl_maintain) */              \
    uint64_t bad_segments, write_errors; /* retired segments; failed writes redone         \
                                            elsewhere */                                   \
    uint64_t read_errors;          /* chunk reads the device failed every retry of (a     \
                                      torn page, or a device that is failing) */          \
    uint64_t worst_append_ns, worst_pump_ns; /* with a clock configured */                 \
    /* What the CRCs caught since mount: chunks inside the log that did not               \
     * check, passed over by iterators - with parts, a part that did not                  \
     * (counted at each pass; their records are lost and nothing else, and                \
     * the chunk's other parts are read) - and a damaged last chunk of the                \
     * newest segment found by mount; headers and catalog pages rebuilt from              \
     * their redundant copy. Non-zero means the medium corrupted something. */            \
    uint64_t corrupt_chunks;                                                               \
    uint64_t repaired;                                                                     \
    /* 1 when mount found bytes written after the newest chunk's last piece               \
     * that checks: a piece a power cut tore as it was written (its records               \
     * were never synced) or a synced one the medium damaged. The two look                \
     * the same; either way that piece's records are lost. */                             \
    uint64_t torn_pieces;

struct sl_counters {
    SL_COUNTERS
};

struct sl_stats {
    SL_COUNTERS
    /* worked out by sl_stats() */
    uint64_t capacity_bytes;       /* bytes of chunks the log can hold */
    uint64_t free_bytes;           /* bytes that can be written before the oldest data goes */
    double write_amplification;    /* programmed / appended bytes */
    uint32_t erase_min, erase_max; /* erase counts over segments (wear spread) */
    uint64_t buffered_bytes;       /* in RAM now */
    /* Segments between the oldest and the newest whose header and its
     * stand-in (catalog page 0) both did not check at mount: their records
     * are lost; readers step over them (sl_iter.lost_segments). */
    uint64_t lost_segments;
};

/* One record as read back. */
struct sl_record {
    uint16_t stream;
    uint16_t len;       /* bytes of data: 0 .. sl_record_max() */
    uint64_t ts;        /* as appended, in the caller's unit */
    uint64_t gseq;      /* position in the log */
    const uint8_t *data;/* valid until the next call on the iterator (and, for an
                           iterator without a buffer of its own, the next pump) */
};

struct sl_log;

/* Reads stream records in log order. */
/* Where decoding a chunk's records stands: what a record may repeat of the
 * one before it (docs/sensorlog-format.md, "Data payload"). */
struct sl_rec_state {
    uint64_t step;     /* the last record's step from the one before it (records store
                          the change of step: a steady rate costs nothing) */
    uint32_t len;      /* the last record's length (a record of the same omits it) */
    uint16_t stream;   /* the last record's stream (a run repeats it) */
    uint16_t run_left; /* records of the current run still to come */
};

struct sl_iter {
    struct sl_log *log;
    uint16_t stream;       /* 0 = every stream */
    uint64_t created_gseq;
    uint32_t seg;          /* segment index being read */
    uint32_t chunk;        /* chunk index in it */
    uint32_t pos;          /* byte offset of the next record in read_buf */
    uint32_t piece;        /* offset of the loaded piece in its chunk (version 5) */
    int live;              /* the chunk was the writer's when read: pieces may follow */
    int passed_over;       /* the chunk before was passed over (damaged), counted: the
                              numbers missing before this one are its */
    uint32_t used, n_left; /* payload bytes, records left in the loaded chunk */
    uint32_t data_off;     /* where the loaded chunk's records start (after its part table) */
    uint32_t part;         /* its part bytes (0: no parts) */
    uint32_t avail;        /* payload bytes read and checked: a search lands in a part and
                              reads on from there, the rest of the chunk when it needs it */
    uint32_t part_end;     /* the next part boundary, where records start afresh */
    uint64_t ts_base;      /* the loaded chunk's */
    uint64_t gseq, ts_last;  /* next record's sequence number; the last one's timestamp */
    struct sl_rec_state rec; /* decoding the loaded chunk's records */
    uint64_t from_gseq, from_ts;
    uint32_t seg_seq, gen;  /* the loaded chunk's segment and the buffer's generation */
    int loaded;             /* 1: a chunk is in buf; 2: its position is kept, its bytes
                               are to be read again (set_buffer found read_buf reused) */
    int done;
    int partial;            /* the next chunk is read in parts too (a search landed in
                               the one before: a reader after a few records) */
    uint64_t skipped;       /* chunks inside the log, or parts of one, passed over:
                               their CRC failed (damage: their records are lost) */
    uint64_t torn;          /* last chunks of a segment that were written but do not
                               check: torn by a power cut (never synced), or damaged */
    uint64_t lost_segments; /* segments passed over whose header and stand-in were lost
                               (their records with them: lost_records of them) */
    uint64_t lost_records;
    uint64_t evicted;       /* records passed over at the oldest segment's end: an eviction
                               a power cut stopped had erased them (its header's block goes
                               last), the log's oldest, leaving by design - not lost, but
                               records the reader did not get between two it did */
    uint8_t *buf;           /* chunks are read here: cfg.read_buf, or the iterator's own */
    uint64_t seg_end_gseq;  /* after the last chunk read in this segment; 0 none yet */
    int end_counted;        /* this segment's end was counted in torn already */
    uint64_t piece_hdr[6];  /* the loaded piece's header, decoded (the next short piece
                               follows from it: version 6) */
};

struct sl_log {
    /* The fields the code reaches most often come first, the configuration
     * last: a Cortex-M reaches a field in the first 128 bytes (64 for
     * 16-bit ones) with a 2-byte instruction and one further on with a
     * 4-byte one. This order, measured field by field, keeps a logger's
     * sensorlog code small (docs/footprint.md: the 8 KiB goal and how far
     * each build is from it). */
    uint16_t version;            /* format version of the log on the medium (written into
                                    each segment header: a log keeps its version) */
    uint16_t cat_chunk;          /* latest catalog chunk in cur_seg */
    /* geometry */
    uint32_t chunk, chunks_per_seg, hdr_chunks, n_segs;
    uint32_t data_off;           /* where their records start: header, then part table */
    uint32_t piece_off;          /* where in chunk next_chunk the next data goes: a chunk a
                                    sync closed goes on there in a piece (version 5) */
    struct sl_seg_info *segs;    /* cfg.segs */
    /* catalog (cfg.streams, in pages of page_entries) */
    struct sl_stream_info *streams;
    uint32_t max_streams, page_entries, n_pages;
    uint32_t catalog_version;
    uint32_t cat_updates;        /* catalog chunks written in cur_seg since its header's
                                    copy or since the last rewrite of every page began */
    uint32_t touched_pages;      /* pages updated in cur_seg since its header's copy: the
                                    others' newest copy is that one (up to 14 pages) */
    uint32_t refresh_pages;      /* touched pages still to be written again (so mount's
                                    walk back finds them) before any update */
    uint32_t mirror_page;        /* page whose second copy is due; UINT32_MAX none */
    /* writer */
    uint32_t cur_seg;            /* segment being written; UINT32_MAX: none open */
    uint32_t next_chunk;         /* next chunk index in cur_seg */
    uint32_t seq;                /* sequence number of cur_seg */
    uint32_t staged, staged_records; /* bytes / records in chunk_buf's payload */
    uint32_t staged_data;        /* of staged: the records' data (the rest is their headers) */
    uint32_t staged_part_end;    /* the next part boundary: the first record at or past it
                                    starts afresh (repeats nothing); 0 in an empty chunk,
                                    UINT32_MAX past its first record without parts */
    uint32_t fail_streak;        /* device operations failed in a row */
    uint32_t read_gen;           /* bumped whenever read_buf is reused by the writer */
    uint32_t erasing;            /* segment being erased block by block; UINT32_MAX none */
    uint32_t erase_block;        /* one pump step erases this much (cfg.erase_unit_bytes) */
    uint8_t in_flight;           /* 0, or what the request in flight writes */
    uint8_t mounted;
    uint8_t sync_wanted;         /* (shared with producers, under cfg.lock) */
    uint8_t needs_erase;         /* raw flash: segments are erased before use */
    /* shared with producers, under cfg.lock: the RAM ring of encoded
     * records (tail, fill, head), the sync requests and sync_wanted above */
    size_t tail, fill;
    uint32_t sync_requests;      /* sync requests made */
    uint32_t syncs_done;         /* the newest request a completed flush answered */
    size_t head;                 /* where the ring's next record goes */
    uint64_t taken;              /* records that left the RAM buffer (staged or dropped) */
    uint64_t sync_target;        /* sync done once taken reaches this and all is flushed */
    /* writer, less often */
    uint32_t staged_plain_at;    /* offset of the last staged record's head when it was a
                                    plain repeat of the record before (one byte, no
                                    fields): the next such one turns it into a run;
                                    UINT32_MAX none */
    uint32_t staged_run_at;      /* offset of the open run's count byte; UINT32_MAX none */
    uint32_t staged_len_last;    /* the last staged record's length (the next may omit it) */
    uint16_t staged_stream_last; /* the last staged record's stream */
    uint8_t short_len;           /* the short piece in flight: its bytes besides its records
                                    (magic, varints, CRC: at most 25); 0: a chunk header's
                                    (here and piece_sum below fill what would be padding) */
    uint8_t carried;             /* the staged records are a carried short piece (version
                                    7): 1, or 2 when its first record has no head; what
                                    they went on from is in chunk_buf (SL_CARRY_AT) */
    uint64_t next_gseq, ts_max;
    uint64_t staged_gseq;        /* the first record number of the chunk being staged, over
                                    all its pieces (its record bound counts from it) */
    uint64_t staged_ts_base, staged_ts_last, staged_step_last;
    uint64_t dirty_pages;        /* pages changed since they were last written */
    uint32_t flight_page;        /* the page being written */
    uint32_t last_slot;
    uint32_t mount_end;          /* after mount, until the next segment opens: the end of
                                    cur_seg's data as mount found it (0: not known) */
    uint32_t open_target;        /* segment whose header is in flight */
    struct sts_bd_req req;
    /* the rest of the geometry */
    uint32_t seg_bytes;
    uint32_t piece_sum;          /* the last 4 bytes of the last piece written, where the
                                    next short piece's CRC goes on from (version 6) */
    uint64_t base;
    uint32_t piece_unit;         /* pieces start at multiples of this (the page); the
                                    chunk: a sync ends the chunk (parts, version < 5) */
    uint32_t part;               /* payload bytes a part of the data chunks written holds; 0
                                    none (version 3, or chunks too small to gain) */
    uint32_t prog_unit;          /* the device's program unit: a write is rounded up to it */
    uint32_t hdr_read;           /* bytes a search reads of a chunk: its header and part
                                    table, rounded up to the device's read unit */
    uint32_t read_unit;          /* the device's read unit (reads of parts align to it) */
    uint32_t erase_large;        /* the device's large erase where segments align to it; 0 none */
    uint32_t erase_off;          /* bytes of it erased so far */
    /* found again only when they change (sl_oldest, sl_maintain) */
    uint32_t oldest_memo;        /* the oldest live segment when last looked for, */
    uint32_t oldest_memo_seq;    /* and its number: while it holds it, nothing is older */
    uint32_t dead_version;       /* catalog_version + 1 when dead_below was found; 0 never */
    uint64_t dead_below;         /* records numbered below: every live stream's come after */
    uint64_t durable_below;      /* of those, the ones whose streams' deletes were flushed */
    struct sl_counters st;
    struct sl_config cfg;
};

/* The sizes sl_format() and sl_mount() would use for cfg (its zero fields
 * taken as defaults), so a caller can size chunk_buf, read_buf and segs
 * before it allocates them; SL_EINVAL when they do not fit the device.
 * Only cfg's bd, page_bytes, chunk_bytes, segment_bytes, offset and size
 * are read. */
struct sl_layout {
    uint32_t page_bytes, chunk_bytes, segment_bytes, erase_bytes;
    uint64_t segments;
    int raw; /* the device needs erasing (raw flash) */
};
int sl_layout(const struct sl_config *cfg, struct sl_layout *out);

/* All the RAM a log takes with cfg (0 when sl_layout refuses it), in bytes:
 *     sizeof(struct sl_log)                          the state (672 B on Cortex-M33:
 *                                                    docs/footprint.md measures it)
 *   + 2 x chunk_bytes                                chunk_buf and read_buf
 *   + segments x sizeof(struct sl_seg_info)          segs (32 B each)
 *   + max_streams x sizeof(struct sl_stream_info)    streams (32 B each)
 *   + buffer_bytes                                   the ring: 12 B + data a record
 * plus sizeof(struct sl_iter) (192 B) for each iterator a reader keeps, and
 * chunk_bytes more for each that has a buffer of its own. The ring is what
 * decides: it must hold the longest device stall times the appending rate
 * with 12 B a record. The study's three streams (imu 1 kHz x 12 B, ppg
 * 100 Hz x 24 B, env 1 Hz x 64 B) put 27.7 KB/s into it; a SPI NOR sector
 * erase of 45 ms needs 1.25 KB and its worst case (400 ms) 11 KB; a 64 KiB
 * block erase (erase_unit_bytes) 4.2 KB and 55 KB. With erase_slice_ns on
 * a NOR that suspends erases, the longest step is the slice or one chunk's
 * program (2 ms or 2.8 ms for 1 KiB: 80 B of the streams), whatever the
 * erase takes. The smallest configuration for the study's streams on NOR:
 * 1 KiB chunks, 16 segments, 3 streams, erase_slice_ns 2 ms and a 768 B
 * ring: under 4 KiB on a Cortex-M33 (docs/footprint.md), and no record
 * lost (tests/unit/test_sl_ram.c runs it for 200 s of the streams, three
 * times round the log, on the host and on the MCU). `storscope run --tests L1`
 * measures the stall on a device. */
size_t sl_ram_bytes(const struct sl_config *cfg);

/* Formats the region: reads every segment header, erases (raw) or trims
 * (managed) the first segment and writes its header and catalog, and
 * flushes, so a mount right after finds an empty log. The other segments
 * are erased by the pump as the log reaches them (format costs one segment's
 * erase, not the device's); on raw flash one whose header reads blank is
 * read through instead and erased only if a byte behind is not blank, so a
 * chip that held other data (a factory pattern, another filesystem) loses
 * nothing written after the format. Everything in the region is lost. */
int sl_format(struct sl_log *log, const struct sl_config *cfg);
/* Finds the log: reads every segment header and searches the end of the
 * newest segment in O(log n) reads. SL_ENOENT when no log is there. Writing
 * continues in a fresh segment (a torn chunk is never programmed over).
 * Reads that fail are retried; a header or catalog page that does not
 * check is rebuilt from its redundant copy (sl_stats: repaired), a data
 * chunk that does not check is passed over (corrupt_chunks). A segment is
 * erased later only when mount saw that it holds no data. */
int sl_mount(struct sl_log *log, const struct sl_config *cfg);

/* Streams: O(1) device operations whatever the count or fill (a catalog
 * chunk is written at the next pump). */
int sl_stream_create(struct sl_log *log, const char *name, uint16_t *id);
int sl_stream_open(struct sl_log *log, const char *name, uint16_t *id);
int sl_stream_delete(struct sl_log *log, uint16_t id);
const struct sl_stream_info *sl_stream_info(const struct sl_log *log, uint16_t id);

/* Copies a record into RAM; bounded time, never touches the device. Safe
 * from several tasks with cfg.lock set. ts is in whatever unit the caller
 * chooses (ms, us, ns, a counter): the log stores how much each record's
 * step from the one before it differs from the step before that, in as
 * few bytes as it needs (1 byte up to 63, 2 up to 8,191, ...; any 64-bit
 * value fits), so samples at a steady rate cost one header byte whatever
 * the clock's unit (none in a run of like records of one stream: a few
 * bytes a chunk), and gaps of days a few bytes, never a chunk. len is
 * 0 .. sl_record_max() (0: an event marker, whose data may be NULL; a run
 * of them costs no byte a record, and a chunk holds at most its size
 * less 52 of them):
 * SL_EINVAL beyond; SL_ENOMEM if the record could never fit cfg.buffer;
 * SL_ENOENT for a stream that is not in the catalog (id 0, a free slot, an
 * id past max_streams). */
int sl_append(struct sl_log *log, uint16_t stream, uint64_t ts, const void *data, size_t len);
/* The largest record a chunk holds: chunk_bytes - 68 (4,028 bytes with
 * 4 KiB chunks). */
uint32_t sl_record_max(const struct sl_log *log);

/* Does at most one device operation: SL_OK when there was nothing left to
 * do, SL_BUSY when work remains (call again), or an error. */
int sl_pump(struct sl_log *log);
/* One step of erasing ahead (one erase block): SL_BUSY while the floor is
 * not yet met, SL_OK when it is. On managed media, once the floor is met,
 * a step also trims the oldest segment when every record in it belongs to
 * deleted streams (one trim command, after a flush that makes the deletes
 * durable), so the device gets back what deleted streams held without
 * waiting for the writer to come round. */
int sl_maintain(struct sl_log *log);
/* Asks for everything appended so far to be made durable; the next pumps
 * write the partial chunk (its header and records, to the end of the
 * program unit they reach: one 256 B page on NOR for a few records) and
 * flush the device. */
void sl_sync_request(struct sl_log *log);
/* Pumps until everything appended before the call is durable. */
int sl_sync(struct sl_log *log);

/* Iterators: from a sequence number or a timestamp, found in O(log n)
 * device reads. From a timestamp: the first record whose timestamp is at or
 * after ts, and from there every record a full read returns, whatever its
 * timestamp - a clock may go back (an RTC reset) and no record after the
 * jump is hidden; the search follows the running maximum of timestamps. */
int sl_iter_from_gseq(struct sl_log *log, struct sl_iter *it, uint16_t stream, uint64_t gseq);
int sl_iter_from_ts(struct sl_log *log, struct sl_iter *it, uint16_t stream, uint64_t ts);
/* The latest n records of a stream (0: of every stream) on the medium,
 * oldest of them first; all of them when there are fewer. No search: the
 * newest chunk's place is in RAM, and the walk back reads only the chunks
 * those n records are in. */
int sl_iter_latest(struct sl_log *log, struct sl_iter *it, uint16_t stream, uint64_t n);
/* Gives the iterator a buffer of its own (chunk_bytes, aligned as the
 * device needs), after sl_iter_from_* or sl_iter_latest: a reader in
 * another task than the pump needs one, as the pump reuses cfg.read_buf
 * between the reader's calls. Without one, records stay valid until the
 * next sl_pump too. Takes cfg.io_lock. */
void sl_iter_set_buffer(struct sl_iter *it, uint8_t *buf);
/* SL_OK with *rec filled, SL_ENOENT at the end of what is on the medium,
 * SL_EOVERTAKEN when the writer recycled the segment under the iterator
 * (see "What a reader in another task sees" above). */
int sl_iter_next(struct sl_iter *it, struct sl_record *rec);

void sl_stats(const struct sl_log *log, struct sl_stats *out);

/* CRC-32C (Castagnoli) of the chunks; exposed for tools that read images. */
uint32_t sl_crc32c(uint32_t crc, const void *data, size_t len);

#ifdef __cplusplus
}
#endif
#endif
