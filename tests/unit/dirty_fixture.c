/* The dirty-world tests' fixture: dirty_fixture.h says what it is. */
#include "dirty_fixture.h"
#include "storscope/error.h"
#include "storscope/rng.h"
#include "storscope/sim.h"

#include "sts_test.h"

#include <string.h>

struct sts_bd bd;

/* The log's configuration over device d: 4 KiB chunks, the test's buffers. */
void log_config(struct sts_bd d)
{
    memset(&cfg, 0, sizeof(cfg));
    cfg.bd = d;
    cfg.buffer = ring;
    cfg.buffer_bytes = 4096;
    cfg.chunk_bytes = 4096;
    cfg.chunk_buf = chunk_buf;
    cfg.read_buf = read_buf;
    cfg.segs = segs;
    cfg.n_segs = DIRTY_SEGS;
    cfg.streams = streams;
    cfg.max_streams = 16;
}

int dirty_medium(const char *profile, uint64_t capacity, uint32_t erase_bytes)
{
    struct sts_sim_params p = *sts_sim_profile_find(profile);
    p.capacity = capacity;
    p.bad_permille = 0;
    if (erase_bytes)
        p.erase_bytes = erase_bytes;
    if (sts_sim_arena_bytes(&p, capacity) > STS_TEST_IOBUF_BYTES)
        return STS_ENOMEM;
    int rc = sts_sim_init(&sim, &p, 7, sts_test_iobuf, STS_TEST_IOBUF_BYTES, capacity, &bd);
    log_config(bd);
    return rc;
}

/* Appends records first .. first+n-1 stamped ts0 + i, synced every `every`. */
int append_synced(uint16_t id, uint64_t first, uint64_t n, uint64_t ts0, uint32_t every)
{
    uint8_t buf[32];
    for (uint64_t k = first; k < first + n; k++) {
        size_t len = sts_test_rec_bytes(k, buf);
        int rc;
        while ((rc = sl_append(&lg, id, ts0 + (k - first), buf, len)) == SL_EFULL)
            if ((rc = sl_pump(&lg)) < 0)
                return rc;
        if (rc)
            return rc;
        if (every && (k + 1) % every == 0 && (rc = sl_sync(&lg)) != SL_OK)
            return rc;
    }
    return sl_sync(&lg);
}

/* Reads stream id from gseq 0: how many records came back, each intact
 * (its bytes follow from its sequence number, which is the record's index
 * in a log of one stream), in order and once; 0 at the first that is not. */
uint64_t read_all(uint16_t id)
{
    struct sl_iter it;
    struct sl_record r;
    uint8_t want[32];
    uint64_t n = 0, next = 0;
    if (sl_iter_from_gseq(&lg, &it, id, 0))
        return 0;
    while (sl_iter_next(&it, &r) == SL_OK) {
        if (r.gseq < next || r.len != sts_test_rec_bytes(r.gseq, want) || memcmp(r.data, want, r.len))
            return 0;
        next = r.gseq + 1;
        n++;
    }
    return n;
}

/* Programs bytes that follow from the address over [from, to) of a blank
 * NOR: what another filesystem leaves behind. */
int old_data(uint64_t from, uint64_t to)
{
    uint8_t page[256];
    for (uint64_t a = from; a < to; a += sizeof(page)) {
        for (size_t i = 0; i < sizeof(page); i++)
            page[i] = (uint8_t)(sts_mix64(a + i) >> 40) & 0x7F; /* never all 0xFF */
        int rc = bd.ops->program(bd.ctx, a, page, sizeof(page));
        if (rc)
            return rc;
    }
    return STS_OK;
}

void remount(void)
{
    sts_sim_power_cut(&sim); /* nothing the log did not sync survives */
    sts_sim_power_on(&sim);
}

/* A 256 KiB NOR of 1 KiB chunks in 16 KiB segments, formatted, with
 * stream "imu". */
int small_nor_log(uint16_t *id)
{
    int rc = dirty_medium("nor-spi", 256u << 10, 0);
    cfg.chunk_bytes = 1024;
    cfg.segment_bytes = 16u << 10;
    if (!rc)
        rc = sl_format(&lg, &cfg);
    return rc ? rc : sl_stream_create(&lg, "imu", id);
}

/* The oldest record still in the log: the smallest first record number of
 * a live segment. */
uint64_t oldest_gseq(void)
{
    uint64_t g = UINT64_MAX;
    /* the log's segments only: entries past them are an earlier test's */
    for (uint32_t i = 0; i < lg.n_segs; i++)
        if (segs[i].seq && segs[i].first_gseq < g)
            g = segs[i].first_gseq;
    return g;
}
