/* The simulator's data store (issue 43): cold pages packed as runs of the
 * workloads' pattern read back byte for byte. */
#include "sts_test.h"
#include "storscope/error.h"
#include "storscope/extentfs.h"
#include "storscope/json.h"
#include "storscope/sim.h"
#include "storscope/suite.h"

#include "test_mem.h"

#include <math.h>
#include <string.h>

#include "sim_fixture.h"

/* ---- the data store's packed pages ------------------------------------- */
/* A page that has gone cold is kept as runs of the workloads' pattern, of
 * one byte, and literal bytes (through LZ4 where built): pages as a log
 * store leaves them must read back byte for byte, after being unpacked
 * by a write or dropped by a trim, in the same virtual time as a model
 * that keeps them whole, in a fraction of the memory. The reference is
 * each page as this test made it, kept by regenerating it. */
#define PACK_PAGES 160u
#define PACK_SEED 0x5eedull
#if STS_SIM_PACK
static STS_TEST_BIG uint64_t pack_arena[40u * MIB / 8];
#define PACK_ARENA pack_arena
#else
#define PACK_ARENA arena64
#endif

/* Page i: 0..95 in four kinds by i % 4 - a log's records (3 bytes of
 * header, then the pattern going on, now and then from elsewhere), half
 * a page of 0xFF and then pattern and a tail of noise, noise or the
 * pattern under another seed, a table of names (no run: zstd takes the
 * page itself); 96.. noise, so that every earlier page goes cold. */
static void pack_ref_page(uint32_t i, uint8_t *pg, uint32_t pb)
{
    struct sts_rng r;
    sts_rng_seed(&r, 1000 + i);
    uint32_t kind = i < 96 ? i % 4 : 2;
    if (kind == 0) {
        uint64_t off = sts_rng_below(&r, 1u << 20);
        for (uint32_t at = 0; at < pb;) {
            for (int k = 0; k < 3 && at < pb; k++)
                pg[at++] = (uint8_t)sts_rng_next(&r);
            uint32_t n = 20 + (uint32_t)sts_rng_below(&r, 600);
            n = n < pb - at ? n : pb - at;
            sts_pattern_fill(pg + at, off, n, PACK_SEED);
            at += n;
            off += n + (sts_rng_below(&r, 4) ? 0 : sts_rng_below(&r, 5000));
        }
    } else if (kind == 1) {
        memset(pg, 0xFF, pb / 2);
        sts_pattern_fill(pg + pb / 2, 8ull * i + 3, pb / 2 - 100, PACK_SEED);
        for (uint32_t at = pb - 100; at < pb; at++)
            pg[at] = (uint8_t)sts_rng_next(&r);
    } else if (kind == 2 && i / 4 % 2) {
        sts_pattern_fill(pg, 0, pb, PACK_SEED + 1);
    } else if (kind == 2) {
        for (uint32_t at = 0; at < pb; at++)
            pg[at] = (uint8_t)sts_rng_next(&r);
    } else {
        for (uint32_t at = 0; at + 20 <= pb; at += 20) {
            memset(pg + at, 0, 20);
            pg[at] = 'm';
            for (int d = 7, n = (int)(at / 20); d >= 1; d--, n /= 10)
                pg[at + d] = (uint8_t)('0' + n % 10);
            for (int k = 12; k < 16; k++)
                pg[at + k] = (uint8_t)sts_rng_next(&r);
        }
        memset(pg + pb - pb % 20, 0, pb % 20);
    }
}

/* [off, off + len) as the test wrote it, after page 0's sector 3 was
 * written again (patched) and page 1 trimmed (changed). */
static void pack_ref(uint64_t off, size_t len, uint8_t *out, uint32_t pb, int changed)
{
    for (size_t done = 0; done < len;) {
        uint32_t page = (uint32_t)((off + done) / pb), in = (uint32_t)((off + done) % pb);
        size_t n = pb - in < len - done ? pb - in : len - done;
        pack_ref_page(page, pg_b, pb);
        if (changed && page == 0)
            memset(pg_b + 3 * 512, 0xA5, 512);
        if (changed && page == 1)
            memset(pg_b, 0, pb);
        memcpy(out + done, pg_b + in, n);
        done += n;
    }
}

static int pack_reads_match(struct sts_bd *bd, uint32_t pb, int changed, uint64_t seed,
                            uint64_t *sum)
{
    struct sts_rng r;
    sts_rng_seed(&r, seed);
    uint8_t *got = sts_test_iobuf, *want = sts_test_iobuf + STS_TEST_IOBUF_BYTES / 2;
    int bad = 0;
    for (int k = 0; k < 300; k++) {
        size_t len = 1 + (size_t)sts_rng_below(&r, 40000);
        uint64_t off = sts_rng_below(&r, (uint64_t)PACK_PAGES * pb - len);
        if (k < 4) { /* whole pages too: the first, the trimmed one, a noisy one */
            off = (uint64_t)(k == 3 ? 100 : k) * pb;
            len = pb;
        }
        if (bd->ops->read(bd->ctx, off, got, len))
            return -1;
        pack_ref(off, len, want, pb, changed);
        bad += memcmp(got, want, len) != 0;
        for (size_t i = 0; i < len; i += 61)
            *sum = *sum * 31 + got[i];
    }
    return bad;
}

/* Writes the pages (even ones a sector at a time, odd ones whole), reads
 * them back, writes into one and trims another, reads again. */
static void pack_workload(int pack, uint64_t from, uint64_t *now_ns, uint64_t *sum,
                          uint64_t *raw_pages, uint64_t *held_bytes)
{
    struct sts_sim_params p = *sts_sim_profile_find("emmc-stm32u5");
    p.capacity = 16 * MIB;
    uint32_t pb = p.page_bytes;
    uint64_t keep = (uint64_t)PACK_PAGES * pb;
#if STS_SIM_PACK
    CHECK(sts_sim_arena_bytes_packed(&p, keep) <= sizeof(PACK_ARENA));
#else
    CHECK(sts_sim_arena_bytes(&p, keep) <= sizeof(PACK_ARENA));
#endif
    CHECK_EQ(sts_sim_init(&st.sim, &p, 3, PACK_ARENA, sizeof(PACK_ARENA), keep, &st.bd), 0);
#if STS_SIM_PACK
    sts_sim_set_pack(&st.sim, pack, PACK_SEED);
    st.sim.pack_from = from;
#else
    (void)pack;
    (void)from;
#endif
    struct sts_bd *bd = &st.bd;
    for (uint32_t i = 0; i < PACK_PAGES; i++) {
        pack_ref_page(i, pg_a, pb);
        for (uint32_t at = 0; at < pb; at += i % 2 ? pb : 512)
            CHECK_EQ(bd->ops->program(bd->ctx, (uint64_t)i * pb + at, pg_a + at,
                                      i % 2 ? pb : 512), 0);
    }
    *raw_pages = st.sim.store_used;
#if STS_SIM_PACK
    *held_bytes = sts_sim_store_bytes(&st.sim);
#else
    *held_bytes = (uint64_t)st.sim.store_used * pb;
#endif
    *sum = 0;
    CHECK_EQ(pack_reads_match(bd, pb, 0, 11, sum), 0);
    memset(pg_a, 0xA5, 512);
    CHECK_EQ(bd->ops->program(bd->ctx, 3 * 512, pg_a, 512), 0); /* into packed page 0 */
    CHECK_EQ(bd->ops->erase(bd->ctx, pb, pb), 0);               /* trims page 1 */
    CHECK_EQ(pack_reads_match(bd, pb, 1, 12, sum), 0);
    *now_ns = st.sim.now_ns;
}

static void cold_pages_pack_and_read_back_the_same(void)
{
    uint32_t pb = sts_sim_profile_find("emmc-stm32u5")->page_bytes;
    uint64_t now_packed, sum_packed, raw, held;
    pack_workload(1, 0, &now_packed, &sum_packed, &raw, &held);
    /* the noise and the other seed's pattern (pages 2 mod 4 below 96, and
     * 96..159) stay whole, and so do the name tables where no zstd packs
     * them; the 48 log and half-blank pages take an eighth of their bytes
     * at most, a name table half */
#if STS_SIM_PACK
    if (st.sim.pack_buf) {
        int zstd = st.sim.pack_zc != NULL;
        uint64_t whole = 24 + (PACK_PAGES - 96) + (zstd ? 0 : 24);
        CHECK_EQ(raw, whole);
        CHECK(held > whole * pb &&
              held - whole * pb <= 48ull * pb / 8 + (zstd ? 24ull * pb / 2 : 0));
    } else {
        CHECK_EQ(raw, PACK_PAGES); /* a 32-bit host keeps its pages whole */
    }
#else
    CHECK_EQ(raw, PACK_PAGES); /* a firmware's model keeps its pages whole */
#endif
    /* packing from 80 pages held whole on: the 16 that left the last 64
     * written before it are packed as the writes go on (the sweep), and
     * the model ends the same */
    uint64_t now_late, sum_late, raw_late, held_late;
    pack_workload(1, 80ull * pb, &now_late, &sum_late, &raw_late, &held_late);
    CHECK_EQ(raw_late, raw);
    CHECK_EQ(held_late, held);
    CHECK_EQ(sum_late, sum_packed);
    uint64_t now_whole, sum_whole, raw_whole, held_whole;
    pack_workload(0, 0, &now_whole, &sum_whole, &raw_whole, &held_whole);
    CHECK_EQ(raw_whole, PACK_PAGES);
    CHECK_EQ(held_whole, (uint64_t)PACK_PAGES * pb);
    CHECK_EQ(now_packed, now_whole); /* the same virtual time */
    CHECK_EQ(sum_packed, sum_whole);
}

#if STS_SIM_PACK
/* What the host is handed back: ranges it zeroes, as madvise(DONTNEED)
 * makes the kernel do, so a range that held a live page reads wrong. */
static uint64_t released_bytes;
static unsigned released_calls;
static uint8_t *released_lo, *released_hi;
static void zero_it(void *ctx, void *addr, size_t len)
{
    (void)ctx;
    memset(addr, 0, len);
    released_bytes += len;
    released_calls++;
    uint8_t *a = addr;
    released_lo = !released_lo || a < released_lo ? a : released_lo;
    released_hi = a + len > released_hi ? a + len : released_hi;
}

static int pages_hold(struct sts_bd *bd, uint32_t from, uint32_t to, uint32_t pb)
{
    for (uint32_t i = from; i < to; i++) {
        if (bd->ops->read(bd->ctx, (uint64_t)i * pb, rd, pb))
            return 0;
        for (uint32_t k = 0; k < pb; k += 512)
            if (rd[k] != (uint8_t)(i * 7 + k / 512) || rd[pb - 1] != (uint8_t)i)
                return 0;
    }
    return 1;
}

static void fill_pages(struct sts_bd *bd, uint32_t from, uint32_t to, uint32_t pb)
{
    for (uint32_t i = from; i < to; i++) {
        for (uint32_t k = 0; k < pb; k++)
            pg_a[k] = k % 512 ? (uint8_t)sts_mix64(i * 131ull + k) : (uint8_t)(i * 7 + k / 512);
        pg_a[pb - 1] = (uint8_t)i;
        CHECK_EQ(bd->ops->program(bd->ctx, (uint64_t)i * pb, pg_a, pb), 0);
    }
}
#endif

/* Issue 43: pages trimmed hand their memory back once 8 MiB of slots at
 * the store's end are free (a test's deleted files no longer weigh on the
 * next one), never a live page's: 16 MiB written whole, the last 8 MiB
 * trimmed - their slots are handed back, none of the kept pages' (the
 * slots right below), which still read back; written again, the trimmed
 * pages hold what is written; 4 MiB trimmed is under the threshold: kept. */
static void trimmed_pages_hand_their_memory_back(void)
{
#if STS_SIM_PACK
    struct sts_sim_params p = *sts_sim_profile_find("emmc-stm32u5");
    p.capacity = 16 * MIB;
    p.cache_bytes = 0;
    uint32_t pb = p.page_bytes, n = (uint32_t)(p.capacity / pb);
    CHECK(sts_sim_arena_bytes(&p, p.capacity) <= sizeof(PACK_ARENA));
    CHECK_EQ(sts_sim_init(&st.sim, &p, 3, PACK_ARENA, sizeof(PACK_ARENA), p.capacity, &st.bd), 0);
    sts_sim_set_pack(&st.sim, 0, PACK_SEED); /* whole pages: the raw slots */
    st.sim.release = zero_it;
    released_bytes = released_calls = 0;
    released_lo = released_hi = NULL;
    struct sts_bd *bd = &st.bd;
    fill_pages(bd, 0, n, pb);
    CHECK_EQ(st.sim.store_used, n);
    CHECK_EQ(released_calls, 0); /* nothing freed yet */
    uint32_t keep = n / 2;       /* the first 8 MiB: live right below what is handed back */
    CHECK_EQ(bd->ops->erase(bd->ctx, (uint64_t)keep * pb, (uint64_t)(n - keep) * pb), 0);
    CHECK_EQ(st.sim.store_used, keep);
    /* slots are handed back 8 MiB at a time as they come free (less a
     * 64 KiB alignment): once, as the last page goes */
    CHECK_EQ(released_calls, 1);
    CHECK(released_bytes >= STS_SIM_RELEASE_MIN - (64u << 10) &&
          released_bytes <= STS_SIM_RELEASE_MIN);
    CHECK(released_lo >= st.sim.store + (size_t)keep * pb);
    CHECK(released_hi <= st.sim.store + (size_t)n * pb);
    CHECK(pages_hold(bd, 0, keep, pb));
    fill_pages(bd, keep, n, pb); /* the handed-back memory takes pages again */
    CHECK(pages_hold(bd, 0, n, pb));
    unsigned calls = released_calls;
    CHECK_EQ(bd->ops->erase(bd->ctx, (uint64_t)(n - n / 4) * pb, (uint64_t)(n / 4) * pb), 0);
    CHECK_EQ(released_calls, calls); /* 4 MiB: under STS_SIM_RELEASE_MIN */
    CHECK(pages_hold(bd, 0, n - n / 4, pb));
    st.sim.release = NULL;
#endif
}

const struct sts_test_case test_sim_store_cases[] = {
    {"cold_pages_pack_and_read_back_the_same", cold_pages_pack_and_read_back_the_same},
    {"trimmed_pages_hand_their_memory_back", trimmed_pages_hand_their_memory_back},
    {NULL, NULL},
};
