/* The fixture of the dirty-world sensorlog tests (test_sl_dirty.c,
 * test_sl_damage.c), on sl_fixture.h's log and buffers: a medium whose
 * device is `bd` (so a test can put a layer between the log and it), a log
 * of 4 KiB chunks in at most DIRTY_SEGS segments, records whose bytes
 * follow from their sequence number (sts_test_rec_bytes), old data, and
 * power cuts. */
#ifndef STS_TEST_DIRTY_FIXTURE_H
#define STS_TEST_DIRTY_FIXTURE_H

#include "sl_fixture.h"

#define DIRTY_SEGS 64
extern struct sts_bd bd; /* the medium's device */

/* The log's configuration over device d: 4 KiB chunks, the test's buffers. */
void log_config(struct sts_bd d);
/* A medium of the profile (erase_bytes: its erase block, 0 the profile's),
 * seeded 7, in sts_test_iobuf; cfg for a log on it */
int dirty_medium(const char *profile, uint64_t capacity, uint32_t erase_bytes);
/* Appends records first .. first+n-1 stamped ts0 + i, synced every `every`. */
int append_synced(uint16_t id, uint64_t first, uint64_t n, uint64_t ts0, uint32_t every);
/* Reads stream id from gseq 0: how many records came back, each intact
 * (its bytes follow from its sequence number, which is the record's index
 * in a log of one stream), in order and once; 0 at the first that is not. */
uint64_t read_all(uint16_t id);
/* Programs bytes that follow from the address over [from, to) of a blank
 * NOR: what another filesystem leaves behind. */
int old_data(uint64_t from, uint64_t to);
/* A power cut and the power back: nothing the log did not sync survives */
void remount(void);
/* A 256 KiB NOR of 1 KiB chunks in 16 KiB segments, formatted, with
 * stream "imu". */
int small_nor_log(uint16_t *id);
/* The oldest record still in the log: the smallest first record number of
 * a live segment. */
uint64_t oldest_gseq(void);

#endif
