/* The fixture the sensorlog tests share (test_sensorlog.c, test_sl_parts.c,
 * test_sl_tasks.c, test_sl_facade.c, test_sl_config.c): a simulated medium
 * behind a device shim that counts what reaches it, the log and its
 * caller-provided buffers, and records whose bytes follow from (stream, k)
 * so that one read back from the wrong place, or torn, does not check.
 * One test at a time uses it. */
#ifndef STS_TEST_SL_FIXTURE_H
#define STS_TEST_SL_FIXTURE_H

#include "sensorlog/sensorlog.h"
#include "storscope/device.h"
#include "storscope/sim.h"

#include <stddef.h>
#include <stdint.h>

#include "test_mem.h"

#define arena sts_test_sim_arena

/* ---- a device shim that counts what reaches the medium ------------------ */
struct counting {
    struct sts_bd inner;
    uint64_t reads, programs, erases, flushes, submits;
    uint64_t bytes_read, bytes_programmed;
    uint64_t read_max; /* the largest read command */
    int nonblocking; /* expose the inner device's submit/poll */
};
extern struct counting cnt;
extern uint64_t erase_len_lo, erase_len_hi; /* the smallest and largest erase command */
extern const struct sts_bd_ops counting_ops, counting_nb_ops; /* the latter with submit/poll */
/* reads + programs + erases + flushes so far */
uint64_t device_ops(void);

/* ---- the log and its buffers -------------------------------------------- */
#define N_SEGS 160
extern struct sts_sim sim;
extern struct sl_log lg;
extern struct sl_seg_info segs[N_SEGS];
extern uint8_t ring[8192];
extern uint8_t chunk_buf[4096];
extern uint8_t read_buf[4096];
extern struct sl_config cfg;
extern struct sl_stream_info streams[1024];
/* 1: the NOR reads a cut's pages as errors, as a chip with ECC does, and
 * programs whole pages (no_ecc=0); 0: the profile's own (nor-spi: bytes) */
extern int nor_with_ecc;

/* A medium of the profile, capacity bytes, behind the counting shim, and
 * cfg set up with the buffers above (erase_bytes: a small managed medium's
 * erase block, 0 the profile's; nonblocking: the shim exposes submit/poll) */
int medium(const char *profile, uint64_t capacity, uint32_t erase_bytes, int nonblocking);
/* A NOR log of 1 KiB chunks in segments of seg_bytes, formatted. */
int nor_log(uint64_t capacity, uint32_t seg_bytes);
/* Record k of a stream: its bytes follow from (stream, k), so a record read
 * back from the wrong place, or torn, does not check. */
size_t make_record(uint16_t stream, uint64_t k, uint8_t *out);
/* 1 when r is record k of its stream, whole */
int record_ok(const struct sl_record *r, uint64_t k);
/* Pumps until the log has nothing left to do: its last answer */
int pump_all(void);
/* Appends n records to each stream, timestamps in steps of 10. */
int append_rounds(const uint16_t *ids, int n_ids, uint64_t *next_k, uint64_t rounds,
                  uint64_t *ts);
/* Reads a stream from the start: records k0, k0+1, ... in order, intact. */
int read_back(uint16_t id, uint64_t k0, uint64_t expect_n);
/* Reads whatever the log still holds of a stream: 0 when the records run
 * contiguously and intact from *first to *last (n of them). */
int read_kept(uint16_t id, uint64_t *first, uint64_t *last, uint64_t *n);

#endif
