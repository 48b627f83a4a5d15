/* sensorlog's durability sweep (sl_sweep.c): its configurations, a trial's
 * state and the oracle's, and the steps sl_sweep_trial.c gives it - a
 * trial's medium, the workload, and the check against the oracle. */
#ifndef STS_SL_SWEEP_H
#define STS_SL_SWEEP_H

#include "sensorlog/sensorlog.h"
#include "storscope/invertbd.h"
#include "storscope/rng.h"
#include "storscope/sim.h"
#include "storscope/verifybd.h"

#include <stdint.h>

#define MAX_STREAMS 8   /* catalog slots: small, so slots are reused */
#define MAX_SLOTS 128   /* the most a configuration asks for */
#define MAX_INC 4096    /* stream incarnations in one trial */
#define MAX_RECORDS (1u << 20)
#define NO_INC 0xFFFFu /* a record the oracle forgot */

struct sweep_config {
    const char *name;
    const char *profile;
    uint64_t capacity;
    uint32_t erase_bytes;  /* 0: the profile's */
    uint32_t chunk, segment; /* 0: the library's defaults */
    int nonblocking;       /* use the device's submit/poll */
    uint32_t workload_steps;
    uint32_t erase_unit;   /* cfg.erase_unit_bytes: 0 = the erase block */
    int reformat;          /* an old log is written, then formatted over (format
                              leaves its segments to be erased lazily) first */
    uint32_t erase_slice_ns; /* cfg.erase_slice_ns: erases suspended between slices */
    uint32_t record_len;   /* every record this long, in bursts of one stream (format 3's
                              runs form); 0: 8 .. 48 bytes, streams at random */
    uint32_t max_streams;  /* catalog slots; 0: MAX_STREAMS (one page) */
    uint32_t catalog_pct;  /* percent of steps that create or delete a stream; 0: 7 */
    uint32_t prefill_pct;  /* old data (seeded random bytes) in this percent of the
                              erase blocks before the first format; 0 none */
    uint32_t prog_error_ppm; /* programs that fail for good (the block grows bad: it
                                takes no more programs or erases, what it held reads) */
    int reader;            /* a reader with a buffer of its own goes through the log
                              between the workload's steps, checking every record */
    int sync_each;         /* a sync after every record appended: on pages smaller than a
                              chunk, each goes on in a piece (format 5) */
    int ecc;               /* a NOR with ECC (no_ecc=0): a cut page reads as an error, and
                              pieces go a page apart, not a byte */
    int silent;            /* prog_error_ppm's failures say nothing: the program and later
                              ones and erases in that block report success, change nothing */
    int verify;            /* the log's device reads back every program (sts_verifybd) */
    int erases_to_zero;    /* flash that erases to 0x00, under sts_invertbd */
};

/* Media small enough that the workload recycles every segment several
 * times within the commands swept. */

/* ---- the oracle -------------------------------------------------------- */
struct inc {               /* one incarnation of a stream name */
    char name[12];
    uint64_t appended;     /* records appended so far (k = 0 .. appended - 1) */
    uint64_t durable;      /* records covered by the last successful sync */
    uint64_t durable_then; /* `appended` when the current sync was asked for */
    int alive;             /* created and not deleted, as far as the harness knows */
    int deleted_unsynced;  /* deleted after the last sync: may or may not be gone */
    uint16_t id;
};

struct trial {
    const struct sweep_config *c;
    struct sts_sim sim;
    void *arena;
    struct sts_bd bd;
    struct sl_config cfg;
    struct sl_log log;
    struct sl_seg_info *segs;
    struct sl_stream_info streams[MAX_SLOTS];
    uint8_t *ring, *chunk_buf, *read_buf;
    struct inc inc[MAX_INC];
    uint32_t n_inc;
    uint16_t *rec_inc;     /* by timestamp: the record's incarnation and index */
    uint32_t *rec_k;
    uint64_t evicted_end;  /* largest end of an evicted range (the evict hook) */
    uint64_t slack;        /* sequence numbers a damaged chunk may hide at the front */
    uint64_t lost_bytes;   /* the last check: bytes of the synced records missing */
    uint64_t torn;         /* the last check's iterator: chunks torn or damaged at segment ends */
    uint64_t torn_pieces;  /* the last flip's mount: a torn last piece found (sl_stats) */
    uint64_t ts;           /* global append counter: every record's timestamp */
    struct sts_rng rng;
    char why[200];
    uint32_t last_pick; /* the stream pick_alive chose last */
    /* the reader (configuration `reader`): an iterator with a buffer of
     * its own, read between the workload's steps */
    struct sl_iter rit;
    uint8_t *rbuf;
    struct sts_verifybd vbd; /* configuration `verify` */
    uint8_t vbuf[4096];
    struct sts_invertbd ibd; /* configuration `erases_to_zero` */
    uint8_t ibuf[64u << 10];
    int rstarted;
    uint64_t rwrong;
    uint64_t rnext, rlosses; /* the gseq expected next; skipped + torn when it was set */
    char rwhy[200];          /* what the reader got first that it should not have */
};

struct seen {
    uint64_t first, next; /* records k in [first, next) were read, some maybe not */
    int any;
};
/* what each incarnation's records read back were (the last check) */
extern struct seen seen[MAX_INC];

/* by timestamp: the record was read back; missing, but evicted; the
 * sequence number it was read with */
extern uint8_t *got, *evicted;
extern uint64_t *gseq_at;
/* What the readers of every trial saw: records checked, passes the log
 * wrapped past (SL_EOVERTAKEN) */
extern uint64_t reader_records, reader_overtaken;

/* The faults a configuration's medium has all along (a power cut adds to
 * them). */
void base_faults(const struct sweep_config *c, struct sts_sim_faults *f);
int trial_init(struct trial *t, const struct sweep_config *c, uint64_t seed);
void hide_submit(struct trial *t, struct sts_bd_ops *ops);
int pick_alive(struct trial *t);
int create(struct trial *t);
int append_one(struct trial *t, uint32_t i);
int sync_all(struct trial *t);
/* Random appends, syncs, creates, deletes and pumps; stops at the first
 * error (the power cut). */
int workload(struct trial *t, uint32_t steps);
/* Reads everything back and checks it against the oracle: 0, or -1 with
 * t->why set; *lost counts synced records that are missing, *wrong records
 * returned that were never appended there (or twice, or out of order). */
int check(struct trial *t, uint64_t *lost, uint64_t *wrong);
/* After a mount that checked: the oracle forgets what the cut lost (records
 * never synced, creates and deletes never made durable) so the recovery's
 * records continue each stream. */
void adopt_medium(struct trial *t);

#endif
