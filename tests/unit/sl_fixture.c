/* The sensorlog tests' shared fixture: sl_fixture.h says what it is. */
#include "sl_fixture.h"
#include "storscope/error.h"
#include "storscope/rng.h"

#include <string.h>

/* ---- a device shim that counts what reaches the medium ------------------ */
struct counting cnt;

static int c_read(void *ctx, uint64_t a, void *b, size_t n)
{
    (void)ctx;
    cnt.reads++;
    cnt.bytes_read += n;
    cnt.read_max = n > cnt.read_max ? n : cnt.read_max;
    return cnt.inner.ops->read(cnt.inner.ctx, a, b, n);
}
static int c_program(void *ctx, uint64_t a, const void *b, size_t n)
{
    (void)ctx;
    cnt.programs++;
    cnt.bytes_programmed += n;
    return cnt.inner.ops->program(cnt.inner.ctx, a, b, n);
}
uint64_t erase_len_lo, erase_len_hi; /* the smallest and largest erase command */
static int c_erase(void *ctx, uint64_t a, uint64_t n)
{
    (void)ctx;
    cnt.erases++;
    erase_len_lo = n < erase_len_lo ? n : erase_len_lo;
    erase_len_hi = n > erase_len_hi ? n : erase_len_hi;
    return cnt.inner.ops->erase(cnt.inner.ctx, a, n);
}
static int c_flush(void *ctx)
{
    (void)ctx;
    cnt.flushes++;
    return cnt.inner.ops->flush(cnt.inner.ctx);
}
static void c_geometry(void *ctx, struct sts_bd_geometry *g)
{
    (void)ctx;
    cnt.inner.ops->geometry(cnt.inner.ctx, g);
}
static int c_submit(void *ctx, struct sts_bd_req *req)
{
    (void)ctx;
    cnt.submits++;
    if (req->op == STS_BD_PROGRAM)
        cnt.programs++;
    return cnt.inner.ops->submit(cnt.inner.ctx, req);
}
static int c_poll(void *ctx, struct sts_bd_req **done)
{
    (void)ctx;
    return cnt.inner.ops->poll(cnt.inner.ctx, done);
}
const struct sts_bd_ops counting_ops = {
    .version = STS_BD_OPS_VERSION, c_read, c_program, c_erase, c_flush, c_geometry, NULL, NULL,
    NULL
};
const struct sts_bd_ops counting_nb_ops = {
    .version = STS_BD_OPS_VERSION, c_read, c_program, c_erase, c_flush, c_geometry, c_submit,
    c_poll, NULL
};
uint64_t device_ops(void)
{
    return cnt.reads + cnt.programs + cnt.erases + cnt.flushes;
}

/* ---- fixture ------------------------------------------------------------ */
struct sts_sim sim;
struct sl_log lg;
struct sl_seg_info segs[N_SEGS];
uint8_t ring[8192];
uint8_t chunk_buf[4096] __attribute__((aligned(8)));
uint8_t read_buf[4096] __attribute__((aligned(8)));
struct sl_config cfg;
struct sl_stream_info streams[1024];

int nor_with_ecc;

int medium(const char *profile, uint64_t capacity, uint32_t erase_bytes, int nonblocking)
{
    struct sts_sim_params p = *sts_sim_profile_find(profile);
    p.capacity = capacity;
    if (nor_with_ecc)
        p.no_ecc = 0;
    if (erase_bytes) { /* a small managed medium: erase blocks that fit */
        p.erase_bytes = erase_bytes;
        p.page_bytes = 4096;
        p.cache_bytes = 16384;
    }
    p.bad_permille = 0;
    if (sts_sim_arena_bytes(&p, capacity) > sizeof(arena))
        return STS_ENOMEM;
    memset(&cnt, 0, sizeof(cnt));
    int rc = sts_sim_init(&sim, &p, 1, arena, sizeof(arena), capacity, &cnt.inner);
    cnt.nonblocking = nonblocking;
    memset(&cfg, 0, sizeof(cfg));
    cfg.bd = (struct sts_bd){nonblocking ? &counting_nb_ops : &counting_ops, &cnt};
    cfg.buffer = ring;
    cfg.buffer_bytes = sizeof(ring);
    cfg.chunk_buf = chunk_buf;
    cfg.read_buf = read_buf;
    cfg.segs = segs;
    cfg.n_segs = N_SEGS;
    cfg.streams = streams;
    cfg.max_streams = 40; /* one catalog page of a 1 KiB chunk */
    return rc;
}

/* A NOR log of 1 KiB chunks in segments of seg_bytes, formatted. */
int nor_log(uint64_t capacity, uint32_t seg_bytes)
{
    int rc = medium("nor-spi", capacity, 0, 0);
    cfg.chunk_bytes = 1024;
    cfg.segment_bytes = seg_bytes;
    return rc ? rc : sl_format(&lg, &cfg);
}

/* Record k of a stream: its bytes follow from (stream, k), so a record read
 * back from the wrong place, or torn, does not check. */
size_t make_record(uint16_t stream, uint64_t k, uint8_t *out)
{
    size_t len = 4 + (size_t)(sts_mix64(stream * 1000003ull + k) % 29);
    for (size_t i = 0; i < len; i++)
        out[i] = (uint8_t)(sts_mix64(k * 131 + i + stream) >> 8);
    return len;
}

int record_ok(const struct sl_record *r, uint64_t k)
{
    uint8_t want[64];
    size_t len = make_record(r->stream, k, want);
    return r->len == len && memcmp(r->data, want, len) == 0;
}

int pump_all(void)
{
    int rc;
    while ((rc = sl_pump(&lg)) == SL_BUSY)
        ;
    return rc;
}

/* Appends n records to each stream, timestamps in steps of 10. */
int append_rounds(const uint16_t *ids, int n_ids, uint64_t *next_k, uint64_t rounds,
                         uint64_t *ts)
{
    uint8_t buf[64];
    for (uint64_t r = 0; r < rounds; r++)
        for (int i = 0; i < n_ids; i++) {
            size_t len = make_record(ids[i], next_k[i], buf);
            int rc = sl_append(&lg, ids[i], *ts, buf, len);
            if (rc == SL_EFULL) { /* the pump's turn, as an I/O task would take it */
                rc = pump_all();
                if (!rc)
                    rc = sl_append(&lg, ids[i], *ts, buf, len);
            }
            if (rc)
                return rc;
            next_k[i]++;
            *ts += 10;
        }
    return SL_OK;
}

/* Reads a stream from the start: records k0, k0+1, ... in order, intact. */
int read_back(uint16_t id, uint64_t k0, uint64_t expect_n)
{
    struct sl_iter it;
    struct sl_record r;
    if (sl_iter_from_gseq(&lg, &it, id, 0))
        return -1;
    uint64_t n = 0, k = k0;
    while (sl_iter_next(&it, &r) == SL_OK) {
        if (r.stream != id || !record_ok(&r, k))
            return -2;
        n++;
        k++;
    }
    return n == expect_n ? 0 : -3;
}

/* Reads whatever the log still holds of a stream: 0 when the records run
 * contiguously and intact from *first to *last (n of them). */
int read_kept(uint16_t id, uint64_t *first, uint64_t *last, uint64_t *n)
{
    struct sl_iter it;
    struct sl_record r;
    if (sl_iter_from_gseq(&lg, &it, id, 0) || sl_iter_next(&it, &r) || !record_ok(&r, r.gseq))
        return -1;
    *first = *last = r.gseq;
    *n = 1;
    while (sl_iter_next(&it, &r) == SL_OK) {
        if (r.gseq != *last + 1 || !record_ok(&r, r.gseq))
            return -2;
        *last = r.gseq;
        (*n)++;
    }
    return 0;
}
