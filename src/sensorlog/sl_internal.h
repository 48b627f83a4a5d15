/* sensorlog internals: the on-flash layout (docs/sensorlog-format.md) and
 * what the write, mount and read files share. */
#ifndef SENSORLOG_INTERNAL_H
#define SENSORLOG_INTERNAL_H

#include "sensorlog/sensorlog.h"

#include <stddef.h>
#include <string.h>

/* Invariants the format relies on, checked in Debug builds (the tests,
 * ASan, TSan and the fuzzers define SL_DEBUG), as littlefs's LFS_ASSERT;
 * compiled out elsewhere, so a logger's 8 KiB writer carries none. Only
 * what the library's own state guarantees: never what a medium says. */
#ifdef SL_DEBUG
#include <assert.h>
#define SL_ASSERT(c) assert(c)
#else
#define SL_ASSERT(c) ((void)0)
#endif

/* ---- layout, version 1 ------------------------------------------------ */
#define SL_SEG_MAGIC 0x47534C53u   /* "SLSG" little-endian */
#define SL_CHUNK_MAGIC 0x4B43u     /* "CK" */
#define SL_SEG_HDR 56u             /* a segment header, without its CRC */
#define SL_CAT_ENTRY 24u           /* id (u16), name (14 bytes, NUL-padded), created_gseq */
#define SL_CAT_NAME 14u
#define SL_CAT_PAGE_HDR 8u         /* page number, entries, 4 spare */
#define SL_CHUNK_HDR 52u          /* fields, header CRC, chunk CRC */
#define SL_REC_HDR_MIN 1u          /* the head alone: same length, same step */
#define SL_REC_HDR_MAX 16u         /* head 3 + len 3 + step change 10 bytes of varint */
#define SL_RING_HDR SL_RECORD_RAM(0) /* in RAM: stream (u16), len (u16), ts (u64) */
#define SL_MIN_CHUNK 1024u         /* a catalog page holds 40 entries */
#define SL_NO_SEG 0xFFFFFFFFu
#define SL_READ_TRIES 6            /* a read error is retried: one is not evidence */
#define SL_CATALOG_DEPTH 2         /* segments back a damaged catalog page is looked for */
#define SL_NO_CAT 0xFFFFu
#define SL_NO_PAGE 0xFFFFFFFFu

/* Fuzzing builds (preset fuzz) take every CRC as matching, so the fuzzer
 * reaches what lies behind the checks - record parsing, catalog pages,
 * mount's arithmetic - instead of stopping at random checksums. Never
 * defined in a real build. */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define SL_CRC_MATCH(stored, computed) ((void)(stored), (void)(computed), 1)
#else
#define SL_CRC_MATCH(stored, computed) ((stored) == (computed))
#endif

enum { SL_CHUNK_DATA = 1, SL_CHUNK_CATALOG = 2 };
/* SL_FLAG_SHORT and SL_FLAG_LIKE are never on the medium: a decoded header
 * says with them that it is a short piece's (version 6), built from the
 * piece before, and that its first record has no head (version 7). */
enum { SL_FLAG_PADDED = 0x1, SL_FLAG_SHORT = 0x2, SL_FLAG_LIKE = 0x4 };

/* Parts (version 4): a data chunk's records in pieces of 2^(v + 7) bytes,
 * v in flags bits 4-7 (0: no parts), each with a CRC of its own in a table
 * between the header and the records, one entry a part: its CRC, where
 * its first record starts (SL_NO_ENTRY: none starts in it) and that
 * record's index in the chunk, and the running maximum of the timestamps
 * before that record. */
#define SL_VERSION_PARTS 4u
/* Pieces (version 5): a data chunk a sync closed early goes on after it,
 * from the next page boundary, as another chunk header and its records
 * (the piece) with the chunk's place (segment number, index): a record
 * synced alone costs a page, not a chunk. */
#define SL_VERSION_PIECES 5u
/* Short pieces (version 6): on a NOR without ECC, which programs any bytes,
 * a piece after a chunk's first is a byte of magic and flags, three varints
 * (payload bytes, records, the rise of the running maximum timestamp), the
 * records and a CRC-32C that goes on from the piece before's: it needs no
 * place, number or time of its own, all of which follow from the piece
 * before. A 12-byte record synced alone costs ~23 bytes instead of ~66. */
#define SL_VERSION_SHORT 6u
/* Carried short pieces (version 7): a short piece's first record goes on
 * from the record before it, the last of the piece before (its stream,
 * length and step), where version 6 started it afresh; and a piece of one
 * record says so in its magic byte instead of a varint. A 12-byte record
 * record says so in its magic byte instead of a varint, as does a first
 * record like the one before it, which then has no head at all. A 12-byte
 * record of a steady stream synced alone costs 19 bytes instead of 23. */
#define SL_VERSION_CARRY 7u
#define SL_SHORT_MAGIC 0x50u       /* "P"; bit 0: closed by a sync, as SL_FLAG_PADDED */
#define SL_SHORT_ONE 0x02u         /* bit 1 (version 7): one record, no count follows */
/* What a carried piece's first record went on from (sl_log.carried), kept
 * where the chunk buffer's header would go - unused while a short piece is
 * staged, whose header goes just before its records - so it costs no RAM:
 * the record before's stream (2 bytes), length (2) and step (8), from
 * byte 5. A piece's first record sets it. */
#define SL_CARRY_AT 5u
#define SL_SHORT_LIKE 0x04u        /* bit 2 (version 7): the first record is like the one
                                      before it (stream, length, step) and has no head */
#define SL_SHORT_MAX (1u + 3u + 3u + 10u + 4u) /* magic, three varints, the CRC */
/* Short pieces take about 580 bytes of a logger's code on a Cortex-M33,
 * which puts the raw-flash writer over 8 KiB (docs/footprint.md). A build
 * that must stay within it may leave them out with -DSL_SHORT=0: it writes
 * pieces with full chunk headers (version 5: a record synced alone costs
 * ~66 bytes, not ~23) and refuses a log written in version 6. */
#ifndef SL_SHORT
#define SL_SHORT SL_PIECES
#endif
/* Pieces take about 450 bytes of a logger's code on a Cortex-M33. A build
 * for managed media, whose chunk is one page (no room for a second piece),
 * may leave them out with -DSL_PIECES=0: it writes none, and reads a log
 * that has them only up to each chunk's first piece, so it refuses one
 * written in version 5 on a medium with pages smaller than its chunks. */
#ifndef SL_PIECES
#define SL_PIECES 1
#endif
#define SL_PIECE_OFF(log) (SL_PIECES ? (log)->piece_off : 0u)
/* Where a data chunk's records start: after its header, and its part table
 * when it has parts (a build without them knows it is the header alone) */
#define SL_DATA_OFF(log) (SL_PARTS ? (log)->data_off : SL_CHUNK_HDR)
/* The version a new log is written in: 5 where it may hold pieces (its
 * pages are smaller than its chunks, and it has no parts), else 4, which
 * every reader since parts reads - and a build without pieces reads no
 * other, so it refuses a log with pieces instead of losing them. */
#define sl_written_version(log)                                                         \
    (SL_PIECES && (log)->piece_unit < (log)->chunk                                      \
         ? (SL_SHORT && (log)->piece_unit == 1 ? SL_VERSION_CARRY : SL_VERSION_PIECES)  \
         : SL_VERSION_PARTS)
/* A short piece is written after a chunk's first piece in a log of version
 * 6 (pieces a byte apart). */
#define sl_short_pieces(log) (SL_SHORT && (log)->version >= SL_VERSION_SHORT)
/* Short pieces carry the decoder on from the piece before (version 7). */
#define sl_carries(log) (SL_SHORT && (log)->version >= SL_VERSION_CARRY)
#define SL_FLAG_PART_SHIFT 4
#define SL_PART_ENTRY 16u
#define SL_NO_ENTRY 0xFFFFu
/* Parts take about 450 bytes of the writer's code on a Cortex-M33 (and
 * 1.7 KB with the readers). A build that never meets them - raw NOR, whose
 * chunks are under 8 KiB, has none by default - may leave them out with
 * -DSL_PARTS=0: it writes none and takes a chunk that has them for one
 * it cannot check (docs/footprint.md measures both). */
#ifndef SL_PARTS
#define SL_PARTS 1
#endif
static inline uint32_t sl_flags_part(uint8_t flags)
{
    uint32_t v = (uint32_t)flags >> SL_FLAG_PART_SHIFT;
    return SL_PARTS && v ? 1u << (v + 7) : 0;
}

/* Decoded chunk header. */
/* In the order and at the offsets of the format's first 44 bytes (each
 * field naturally aligned, so no padding comes between them): on a
 * little-endian CPU a header is copied in and out whole. */
struct sl_chunk_hdr {
    uint16_t magic;
    uint8_t type, flags;
    uint16_t used, n_records;
    uint32_t seg_seq;
    uint16_t cat_chunk, index;
    uint64_t first_gseq, ts_base, ts_hi;
    uint32_t catalog_version;
};
#define SL_CHUNK_FIELDS 44u /* bytes of the fields above, before the two CRCs */
_Static_assert(offsetof(struct sl_chunk_hdr, catalog_version) + 4 == SL_CHUNK_FIELDS,
               "struct sl_chunk_hdr is the format's layout");

/* Decoded segment header, what of it varies between segments (the rest is
 * the log's geometry, checked against it); the catalog pages follow it as
 * chunks 1 .. n. */
struct sl_seg_hdr {
    uint32_t seq, erase_count;
    uint64_t first_gseq, ts_start;
    uint32_t version;
};

/* (a build may set it to 0 to take the byte-by-byte path a big-endian CPU
 * takes: tests/CMakeLists.txt runs the unit tests so, on a little-endian
 * host, against the same committed images) */
#ifndef SL_CPU_ORDER_IS_FORMAT
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SL_CPU_ORDER_IS_FORMAT 1
#else
#define SL_CPU_ORDER_IS_FORMAT 0
#endif
#endif

#if SL_CPU_ORDER_IS_FORMAT
/* The CPU's byte order is the format's: a field is one load or store
 * (unaligned where the CPU allows it, bytes where it does not), where a
 * loop of shifted bytes is tens of bytes of code a field on a 32-bit MCU
 * (loads as one: 130 bytes fewer in a logger, docs/footprint.md). */
static inline void sl_put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static inline void sl_put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void sl_put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static inline uint16_t sl_get16(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}
static inline uint32_t sl_get32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static inline uint64_t sl_get64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}
#else
static inline void sl_put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void sl_put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline void sl_put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint16_t sl_get16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint32_t sl_get32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}
static inline uint64_t sl_get64(const uint8_t *p)
{
    return (uint64_t)sl_get32(p) | ((uint64_t)sl_get32(p + 4) << 32);
}
#endif

/* Records are varints (LEB128: 7 bits a byte, low first, the top bit set
 * on every byte but the last); a timestamp is stored as the zigzag of its
 * difference from the record before it (the chunk's ts_base for the first),
 * so a delta of any size costs what it needs: 1 byte up to 63. */
/* (sl_append.c: one copy for the writer's files) */
size_t sl_put_varint(uint8_t *p, uint64_t v);
static inline size_t sl_varint_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}
/* Reads a varint in [*p, end); 0 and *p advanced, or -1 when it runs past
 * end or past 10 bytes (a chunk sensorlog did not write). */
static inline int sl_get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned shift = 0; *p < end && shift < 70; shift += 7) {
        uint8_t b = *(*p)++;
        x |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return 0;
        }
    }
    return -1;
}

/* A record's head: its stream, and which of the fields after it are
 * there. A record of the length of the record before it in the chunk has
 * no length field, one whose step equals the step before it no step field:
 * a stream of fixed-size samples at a steady rate pays one byte a record.
 * From version 3, a head of 0 (stream 0, which no record has) opens a run:
 * a count byte follows, and that many records, each of the stream, length
 * and step of the record before the run, follow with no header at all. */
enum { SL_REC_STEP_CHANGES = 1, SL_REC_LEN_FOLLOWS = 2, SL_REC_HEAD_SHIFT = 2 };
#define SL_REC_RUN 0u       /* the head that opens a run */
#define SL_RUN_MAX 255u     /* records in one run: its count is one byte */
#define SL_VERSION_RUNS 3u  /* the first format version with runs */

static inline uint64_t sl_zigzag(uint64_t delta)
{
    return (delta << 1) ^ (uint64_t)-(int64_t)(delta >> 63);
}
static inline uint64_t sl_unzigzag(uint64_t z)
{
    return (z >> 1) ^ (uint64_t)-(int64_t)(z & 1);
}

/* The two locks of the calling contract (sensorlog.h): lock guards the RAM
 * ring and what producers share with the pump; io_lock the device, the read
 * buffer, the segment table and the catalog. io_lock is taken first. */
void sl_lock(const struct sl_log *log);
void sl_unlock(const struct sl_log *log);
void sl_io_lock(const struct sl_log *log);
void sl_io_unlock(const struct sl_log *log);

/* ---- the RAM ring (sl_append.c) --------------------------------------- */
/* Records as stream (2), len (2), ts (8), data. The ring never leaves RAM:
 * its headers are in the CPU's own byte order, stored with memcpy (one
 * store each, no byte loops on the append path). */
static inline uint16_t sl_ring_u16(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}
static inline uint16_t sl_ring_hdr_stream(const uint8_t *hdr) { return sl_ring_u16(hdr); }
static inline uint16_t sl_ring_hdr_len(const uint8_t *hdr) { return sl_ring_u16(hdr + 2); }
/* A position n bytes on (n <= the ring's size): no division. */
static inline size_t sl_ring_at(const struct sl_log *log, size_t at, size_t n)
{
    at += n;
    return at >= log->cfg.buffer_bytes ? at - log->cfg.buffer_bytes : at;
}
void sl_ring_read(const struct sl_log *log, size_t at, void *dst, size_t n);
/* The configured clock (ns), or 0 without one. */
uint64_t sl_now(const struct sl_log *log);
/* Records from the ring into the chunk being staged: 1 when the chunk
 * cannot take the next record (it must be written). */
int sl_stage(struct sl_log *log);

/* ---- reading (sl_read.c), for where a read starts (sl_iter.c) --------- */
struct sl_rec_state; /* (sensorlog.h) */
/* The live segment after / before seg in log order; SL_NO_SEG at the end. */
uint32_t sl_next_seg(const struct sl_log *log, uint32_t seg);
uint32_t sl_prev_seg(const struct sl_log *log, uint32_t seg);
/* Chunks of seg that may hold data: chunks_per_seg but in the segment
 * being written. */
uint32_t sl_seg_end(const struct sl_log *log, uint32_t seg);
/* The iterator goes on in the chunk h describes. */
void sl_take_chunk(struct sl_iter *it, const struct sl_chunk_hdr *h);
/* Bytes [from, to) of the iterator's chunk, widened to the read unit. */
int sl_read_aligned(struct sl_log *log, const struct sl_iter *it, uint32_t from, uint32_t to);
/* The header (and part table) of the iterator's chunk into its buffer. */
int sl_hdr_to_buf(struct sl_log *log, struct sl_iter *it, int reuse, uint32_t lead,
                  struct sl_chunk_hdr *h);
/* The chunk's header and the parts to start in, by sequence or time: 1
 * when loaded, 0 when anything does not check (then read it whole). */
int sl_load_parts(struct sl_iter *it, int pick, int by_ts, uint64_t key);
/* Record decoding: the next record after *s, a part's fresh start, and
 * where decoding may resume after a damaged part. */
int sl_next_record(const uint8_t **p, const uint8_t *end, struct sl_rec_state *s);
int sl_part_start(uint32_t at, uint32_t part, uint32_t *part_end, struct sl_rec_state *s);
uint32_t sl_resume(const struct sl_log *log, const uint8_t *buf, uint32_t part, uint32_t used,
                   uint32_t at, uint32_t *first, uint32_t *index);
/* 1 when the chunk in buf has a header and table that check but a part
 * that does not, from the one holding offset `at` on (*checked: where its
 * payload stops checking). */
int sl_damaged_in_parts(struct sl_log *log, const uint8_t *buf, uint32_t seg, uint32_t chunk,
                        uint32_t at, struct sl_chunk_hdr *h, uint32_t *checked);

/* ---- shared between the files ---------------------------------------- */
/* The configured CRC-32C (cfg.crc32c), or the library's own. */
uint32_t sl_crc(const struct sl_log *log, uint32_t prev, const void *data, size_t len);
/* sl_stream_info without the lock (the caller holds io_lock). */
const struct sl_stream_info *sl_stream_find(const struct sl_log *log, uint16_t id);
int sl_geometry(struct sl_log *log, const struct sl_config *cfg);
void sl_move(uint8_t *dst, const uint8_t *src, uint32_t n);
uint64_t sl_div64(uint64_t n, uint64_t d, uint64_t *rem);
void sl_count(uint64_t *counter, uint32_t n);
uint64_t sl_bit(uint32_t k);
uint64_t sl_seg_addr(const struct sl_log *log, uint32_t seg);
uint64_t sl_chunk_addr(const struct sl_log *log, uint32_t seg, uint32_t chunk);

/* Encodes catalog page k at p (page number, entry count, 4 spare, one entry
 * per slot of the page); returns bytes. */
size_t sl_catalog_page_encode(const struct sl_log *log, uint32_t k, uint8_t *p);
/* Decodes a page into the catalog; SL_ECORRUPT when it makes no sense. */
int sl_catalog_page_decode(struct sl_log *log, const uint8_t *p, size_t len);

/* Fills buf (one chunk) with a segment header and its CRC. */
void sl_seg_hdr_encode(const struct sl_log *log, uint8_t *buf, const struct sl_seg_hdr *h);
/* SL_OK when buf holds a version-1 header of this geometry. */
int sl_seg_hdr_decode(const struct sl_log *log, const uint8_t *buf, struct sl_seg_hdr *h);

/* Bytes before a data chunk's records: the header, and the part table
 * when its parts hold `part` bytes (0: none). */
#if SL_PARTS
uint32_t sl_data_off(const struct sl_log *log, uint32_t part);
#else /* (no parts: the header alone, known where it is used) */
static inline uint32_t sl_data_off(const struct sl_log *log, uint32_t part)
{
    (void)log;
    (void)part;
    return SL_CHUNK_HDR;
}
#endif
/* Writes header fields, the part CRCs and the CRCs over the header and
 * payload[0, used) (with parts: over the header and the table). */
void sl_chunk_seal(const struct sl_log *log, uint8_t *buf, const struct sl_chunk_hdr *h);
/* SL_OK when buf holds an intact chunk written as chunk `index` of the
 * segment with sequence number seg_seq. */
int sl_chunk_check(const struct sl_log *log, const uint8_t *buf, uint32_t seg_seq,
                   uint32_t index, struct sl_chunk_hdr *h);
/* The header alone checked: its CRC, its place, and with parts the table
 * (the chunk CRC covers it), so buf needs the header and table only. */
int sl_chunk_hdr_check(const struct sl_log *log, const uint8_t *buf, uint32_t seg_seq,
                       uint32_t index, struct sl_chunk_hdr *h);
/* The CRCs of the parts (of `part` bytes) holding payload [from, to) of a
 * chunk of `used` payload bytes, from a part boundary: written into the
 * table (put), or checked against it. Returns where the parts stop
 * checking (the start of the first that does not), `to` when all do. */
uint32_t sl_part_sums(const struct sl_log *log, uint8_t *buf, uint32_t part, uint32_t used,
                      uint32_t from, uint32_t to, int put);
/* Reads bytes [from, from + len) of a chunk into buf + from, retrying read
 * errors (the reader widens a read to the device's read unit). */
int sl_read_at(struct sl_log *log, uint32_t seg, uint32_t chunk, uint8_t *buf, uint32_t from,
               uint32_t len);

/* Reads one chunk into log->cfg.read_buf, retrying read errors: a
 * transient one is not evidence of a torn or erased page. */
int sl_read_raw(struct sl_log *log, uint32_t seg, uint32_t chunk);
/* sl_read_raw, then checks the chunk. */
int sl_read_chunk(struct sl_log *log, uint32_t seg, uint32_t chunk, struct sl_chunk_hdr *h);
/* The same into another buffer of chunk bytes (an iterator's own). */
int sl_read_into(struct sl_log *log, uint32_t seg, uint32_t chunk, uint8_t *buf);
int sl_read_chunk_into(struct sl_log *log, uint32_t seg, uint32_t chunk, uint8_t *buf,
                       struct sl_chunk_hdr *h);
/* Reads only a chunk's header (as few bytes as the device reads at once)
 * into read_buf and checks it by its own CRC: what a search needs. SL_OK
 * when the header is intact and belongs at (seg, chunk); the payload is
 * not checked here (the chunk is, when an iterator loads it). */
int sl_read_chunk_hdr(struct sl_log *log, uint32_t seg, uint32_t chunk, struct sl_chunk_hdr *h);
/* Completes the device operation in flight, if any (what the pump started
 * on the non-blocking path), so the device and the read buffer are free. */
int sl_settle(struct sl_log *log);
/* 1 when buf holds a chunk that was written as chunk `index` of segment
 * seg_seq whatever its CRCs say: a chunk written and later damaged (or
 * torn), as opposed to one never written or an earlier lap's. Two of magic,
 * segment number, index and first record number (first_gseq, what the
 * chunk before it implies) must match, one of them a number. */
int sl_chunk_written(const uint8_t *buf, uint32_t seg_seq, uint32_t index, uint64_t first_gseq);
/* The piece after the one at *off whose header h checked, in buf holding
 * its chunk whole: the first header past h's payload that checks in the
 * same place and numbers its records on from h's or later (a damaged piece
 * between them is passed over), or the short piece right after h. SL_OK
 * with *off and *h the next piece's; SL_ECORRUPT when a short piece was
 * written after one that no longer checks (its records and those of the
 * ones after it, synced, are lost with it: mount numbers past them);
 * SL_TORN when none follows but bytes after h's piece were written. */
int sl_piece_next(const struct sl_log *log, const uint8_t *buf, uint32_t *off,
                  struct sl_chunk_hdr *h);
/* The piece at *off in buf (its chunk, whole) with its header in h, where
 * `at` is the offset of a piece found before: the chunk's first piece is
 * checked and its pieces followed to it. SL_OK, or SL_ENOENT when the
 * chunk no longer leads there. */
int sl_piece_at(const struct sl_log *log, const uint8_t *buf, uint32_t seg_seq, uint32_t index,
                uint32_t at, struct sl_chunk_hdr *h);
/* The most records one chunk can hold. */
uint32_t sl_chunk_max_records(const struct sl_log *log);
/* After format: opens the first segment, writes its catalog, flushes. */
int sl_open_first(struct sl_log *log);

/* What segment i's header (or its stand-in, catalog page 0) says, into
 * segs[i]: its sequence number and erase count, or free (erased when it
 * reads blank on raw flash). SL_ECORRUPT: a header of another format
 * version; SL_FOREIGN: of another geometry or catalog size, another log's
 * (segs[i] then reads as free). */
int sl_scan_segment(struct sl_log *log, uint32_t i);
/* Internal (never returned by the API): a header that is another log's. */
#define SL_FOREIGN 1
/* Internal: after a chunk's last piece that checks, bytes that are neither
 * erased nor padding - a piece a power cut tore as it was written (never
 * synced), or a synced one the medium damaged: they cannot be told apart,
 * and either way its records are lost. */
#define SL_TORN 2

/* 1 when the n bytes at p are all v. */
int sl_all_bytes(const uint8_t *p, uint32_t n, uint8_t v);

/* Erases (raw) or trims (managed) a segment and marks it free and erased;
 * an erase the device fails with SL_EIO retires the segment (bad block). */
int sl_erase_seg(struct sl_log *log, uint32_t seg);
/* One erase unit of it (what a pump step may do): SL_BUSY while more remain. */
int sl_erase_step(struct sl_log *log, uint32_t seg);
/* Retires segment s (a bad block): never written again, counted once. */
void sl_retire(struct sl_log *log, struct sl_seg_info *s);
/* The next segment after `seg` in circular order that is not retired. */
uint32_t sl_next_usable(const struct sl_log *log, uint32_t seg);

/* The oldest segment holding data; SL_NO_SEG when none does. */
uint32_t sl_oldest(struct sl_log *log);

#endif
