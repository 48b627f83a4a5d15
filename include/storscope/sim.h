/* Simulated storage media: a device model is one row of parameters (a
 * profile) plus the code in src/bd/sim.c shared by all rows. Time is
 * virtual: every command advances the model's clock by what it would have
 * cost, so runs are deterministic for a seed and far faster than real time.
 *
 * Managed media (eMMC, SD, SSD) run a page-mapped FTL over a modelled pool
 * of erase blocks: writes consume free pages, and garbage collection, whose
 * cost is the valid data it must copy, reclaims blocks when the pool runs
 * low. Raw flash (NOR, NAND) enforces erase-before-program. No allocation:
 * the caller lends one arena (see sts_sim_arena_bytes). */
#ifndef STORSCOPE_SIM_H
#define STORSCOPE_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "storscope/clock.h"
#include "storscope/device.h"
#include "storscope/rng.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STS_SIM_MAX_OPEN_AUS 16

/* 0 leaves the energy model out (the currents below, the time each command
 * class keeps the device busy): a firmware sets 0 (the arm-none-eabi
 * toolchain file), whose 32 KiB engine budget has no room for it and whose
 * board's own current is what a meter measures there. */
#ifndef STS_SIM_ENERGY
#define STS_SIM_ENERGY 1
#endif
enum sts_sim_energy_class { STS_SIM_E_READ, STS_SIM_E_PROGRAM, STS_SIM_E_ERASE, STS_SIM_E_CLASSES };

struct sts_sim_params {
    const char *name;         /* profile name, e.g. "sd-consumer" */
    const char *summary;      /* one line: what it models */

    /* Geometry */
    uint64_t capacity;        /* bytes the host sees */
    uint32_t sector_bytes;    /* host transfer unit; smaller or unaligned writes pay a
                                 read-modify-write of the sector */
    uint32_t page_bytes;      /* program unit, and the FTL's mapping unit; writes that
                                 cover a page partly pay a page read first */
    uint32_t erase_bytes;     /* erase block, a multiple of page_bytes */
    uint8_t managed;          /* 1: FTL, overwrite allowed, erase = trim;
                                 0: raw flash, erase before program */
    uint8_t prog_ands;        /* raw only: programming a programmed area ANDs the bits
                                 (NOR) instead of failing (NAND) */
    uint8_t plp;              /* power-loss protection: a flush need not program the cache */
    uint8_t no_ecc;           /* raw only: a program or erase a power cut stopped leaves
                                 its bits half-way and reads back without an error (NOR);
                                 0: its pages read as errors (ECC cannot correct them) */

    /* Spare space and background work (managed) */
    uint32_t op_permille;     /* over-provisioning: spare blocks per mille of capacity;
                                 more spare = cheaper GC, less usable medium */
    uint32_t gc_low_blocks;   /* GC runs when fewer free blocks remain */
    uint32_t wl_every;        /* static wear levelling: every N erases, move the coldest
                                 block holding data (0 = off); source of rare long stalls */

    /* Timing, nanoseconds (32 bits: a command's time is under 4.29 s) or bytes/s */
    uint32_t cmd_read_ns;     /* per read command */
    uint32_t cmd_write_ns;    /* per write command */
    uint32_t read_access_ns;  /* a read that does not continue the previous one */
    uint64_t read_bw;         /* bus bandwidth device -> host, bytes/s */
    uint64_t write_bw;        /* bus bandwidth host -> device, bytes/s */
    uint32_t page_read_ns;    /* array read of one page (tR): RMW and GC copies */
    uint32_t read_page_cross_ns; /* managed: extra for a read spanning two pages, once
                                    per read (what flashbench -a times); 0 = none */
    uint32_t read_unit_cross_ns; /* managed: extra again for one spanning two AUs (au_bytes,
                                    else erase blocks); 0 = none */
    uint32_t page_prog_ns;    /* page program (tPROG), effective over the device's dies */
    uint32_t byte_prog_ns;    /* raw: a program of part of a page takes this for its
                                 first byte and byte_prog_next_ns for each after it, up to
                                 page_prog_ns (NOR: tBP1, tBP2); 0 = a page's time always */
    uint32_t byte_prog_next_ns;
    uint32_t erase_ns;        /* block erase (tBERS), typical */
    uint32_t erase_tail_x100; /* Pareto shape of the erase time x100 (heavy tail; smaller
                                 = heavier); 0 = every erase takes erase_ns */
    uint32_t erase_tail_cap;  /* longest erase, in multiples of erase_ns */
    uint32_t erase_large_bytes; /* raw: a larger erase the chip does faster per byte, a
                                   multiple of erase_bytes (SPI NOR's 64 KiB block erase,
                                   D8h, beside its 4 KiB sector erase); 0 = none. An
                                   aligned erase covering it costs erase_large_ns once */
    uint32_t erase_large_ns;  /* its typical time; the same tail (shape, cap) applies */
    uint32_t erase_suspend_ns; /* raw: the chip can suspend an erase (erase_for) and takes
                                  this long to (SPI NOR tSUS); 0 = it cannot */
    uint64_t au_bytes;        /* managed: allocation unit, the span the controller keeps
                                 open for writing (an SD card's AU: 4 MiB); 0 = none */
    uint32_t open_aus;        /* AUs written in turn without a merge (at most
                                 STS_SIM_MAX_OPEN_AUS); writing another closes the least
                                 recently written, paying the copy of its unwritten pages
                                 (page_read + page_prog each); 0 = no limit */
    uint8_t erases_to_zero;   /* raw only: an erased byte reads 0x00 and a program sets
                                 bits (MCU flash such as some STM32L0/L1 and Renesas RA
                                 parts; Zephyr's NVS erase_value); 0: 0xFF, a program
                                 clears bits. Geometry flag STS_BD_ERASES_TO_ZERO. (It
                                 sits in open_aus's padding: a profile row keeps its size) */
    uint64_t cache_bytes;     /* volatile write cache; 0 = write-through */
    uint32_t flush_ns;        /* fixed cost of a flush command */
    uint32_t dip_bytes;       /* a transfer size that is anomalously slow (0 = none) */
    uint32_t dip_percent;     /* extra time for transfers of that size, percent */
    uint32_t cpu_ns;          /* per-call CPU cost charged to every command (mimics a
                                 driver/filesystem on a slow MCU); default 0 */
    uint32_t poll_ns;         /* non-blocking path: time one poll() call takes (the
                                 caller's state-machine step); 0 means 1 us */

    /* Usage */
    uint32_t fill_permille;   /* cold data already on the medium when a run starts, per mille
                                 of capacity (a card holding an OS image and old logs);
                                 static wear levelling moves it; target option fill= overrides */

    /* Reliability */
    uint32_t endurance;       /* erase cycles before a block goes bad (0 = unlimited) */
    uint32_t bad_permille;    /* raw: blocks bad from the factory */

#if STS_SIM_ENERGY
    /* Energy (docs/device-models.md, "Energy"): the supply and the current the
     * device draws while a command of each class runs (a flush and a trim
     * count as programs: a flush programs what the cache holds) and while it
     * waits between commands (standby, /CS high on SPI NOR). From the
     * profile's datasheet where one is cited, else 0: not modelled, and no
     * energy is reported. The host's CPU is not in it. */
    uint32_t supply_mv;       /* supply voltage, millivolts; 0 = no energy model */
    uint32_t read_na;         /* current during a read, nanoamps */
    uint32_t program_na;      /* during a program, flush or trim */
    uint32_t erase_na;        /* during an erase */
    uint32_t idle_na;         /* between commands (standby) */
#endif
};

/* Noise, as real devices have it, drawn from the seed (its own stream:
 * other draws, and so a noiseless run, are unchanged). All 0 = none, the
 * default: a profile's figures are then exact. Like faults, a condition of
 * the run, not a row of the profile. */
/* 0 leaves the noise out of the model (a firmware: the noise tests the
 * host's analysis, and leaves out libm's log, exp and cos with it; the
 * arm-none-eabi toolchain file sets 0): sts_sim_set_noise then takes the
 * numbers and the model stays noiseless. */
#ifndef STS_SIM_NOISE
#define STS_SIM_NOISE 1
#endif
/* 0 leaves out the model's lies, which test a store on the host: silent
 * failures (faults' `silent`) and flash that erases to 0x00 (a profile's
 * `erases_to_zero`). A firmware sets 0 (the arm-none-eabi toolchain file:
 * the 32 KiB engine budget, docs/footprint.md); the model then takes the
 * settings and stays honest - an injected error is reported, erased bytes
 * read 0xFF. */
#ifndef STS_SIM_DIRTY
#define STS_SIM_DIRTY 1
#endif
/* 0 keeps every page the model holds whole. 1 (a host's default; the
 * arm-none-eabi toolchain file sets 0) keeps a page that has gone cold as
 * runs of the workloads' pattern, of one byte and literal bytes when that
 * is smaller (sim/store.c), on a 64-bit host in pages of 2 KiB or more:
 * the same bytes read back, the same virtual time, a fraction of the
 * memory for what a log store keeps until it wraps. */
#ifndef STS_SIM_PACK
#define STS_SIM_PACK 1
#endif
/* 0 leaves out sts_bd_ops.idle (a wait's polls taken at once). A firmware
 * sets 0 (the arm-none-eabi toolchain file): there the MCU's own time runs
 * the model's clock and its polls are measured, not skipped - and the
 * 32 KiB engine budget has no room for it. */
#ifndef STS_SIM_IDLE
#define STS_SIM_IDLE 1
#endif
#define STS_SIM_PACK_CLASSES 17 /* 32 B .. 8 KiB */
#define STS_SIM_HOT_PAGES 64u
#define STS_SIM_PACK_FROM (32ull << 20) /* below it a run keeps its pages whole */
#define STS_SIM_RELEASE_MIN (8u << 20)  /* slots freed at the end before they are handed back */
struct sts_sim_noise {
    uint32_t cv_permille;        /* each command's time times a lognormal factor of mean 1
                                    and this coefficient of variation (100 = 0.1), at most
                                    10,000; target option noise=CV */
    uint32_t stall_rate_millihz; /* background stalls (a shared VM disk, a card's own
                                    housekeeping) per 1000 s of device time, at random
                                    times; the command running then waits stall_ns */
    uint64_t stall_ns;           /* target option stalls=RATE:DURATION (RATE per second) */
    uint32_t bimodal_permille;   /* this share of commands runs bimodal_x100 / 100 times
                                    slower (what a virtual disk does); target option
                                    bimodal=P:FACTOR */
    uint32_t bimodal_x100;       /* 100 or more */
    uint32_t drift_cv_permille;  /* slow and fast spells (a host whose load changes, a
                                    clock that throttles): every drift_period_ns of device
                                    time the speed is drawn again, a lognormal factor of
                                    mean 1 and this CV that every command of the spell
                                    pays. Unlike noise=, a spell slows a whole measurement
                                    alike, so its own repetitions cannot see it; target
                                    option drift=CV:PERIOD */
    uint64_t drift_period_ns;
};

/* Operation accounting, cumulative since init. */
struct sts_sim_counters {
    uint64_t reads, programs, erases, flushes, trims;     /* host commands */
    uint64_t bytes_read, bytes_written;                   /* host bytes */
    uint64_t pages_programmed;                            /* incl. GC and WL copies */
    uint64_t gc_runs, gc_pages_copied, wl_moves;
    uint64_t au_merges;                                   /* AUs closed to open another */
    uint64_t blocks_erased;                               /* incl. GC */
    uint64_t stalls;                                      /* commands that ran GC or WL */
    uint64_t injected_errors, power_cuts, pages_lost;
    uint64_t busy_ns;                                     /* modelled device time */
#if STS_SIM_ENERGY
    uint64_t busy_class_ns[STS_SIM_E_CLASSES];            /* busy_ns by command class */
    uint64_t seen_ns;     /* (in a *last of sts_sim_counters_kv: the clock then) */
#endif
};

/* Fault injection. A power cut interrupts one command: what it was writing
 * is torn, the write cache's unflushed pages are lost, and the device is off
 * (every command fails with STS_EIO) until sts_sim_power_on(). Lost and torn
 * pages read back as STS_EIO, never as other data, until rewritten (managed)
 * or erased (raw); everything flushed before the cut reads back intact. */
struct sts_sim_faults {
    uint64_t cut_after_ops;   /* cut during host command N+1 (0 = never) */
    uint64_t cut_at_ns;       /* cut during the command running at this virtual time (0 = never) */
    uint32_t read_error_ppm;  /* per command, chance of an I/O error, parts per million */
    uint32_t prog_error_ppm;
    uint32_t erase_error_ppm;
    uint8_t permanent;        /* errors stick: the page (managed) or block (raw) goes bad */
    uint8_t silent;           /* an injected program or erase error reports success and
                                 changes nothing (the bytes stay as they were); with
                                 `permanent` on raw flash, the block then does that for
                                 every program and erase (littlefs's emulated bad blocks,
                                 PROGNOOP/ERASENOOP): only reading back shows it */
    uint64_t error_lo, error_hi; /* errors only for commands touching [lo, hi); hi 0 = anywhere */
};

struct sts_sim_block {
    uint32_t prev, next;  /* full blocks: list of blocks with the same valid count;
                             free blocks: FIFO of free blocks (next only) */
    uint32_t valid;       /* valid pages (managed) */
    uint32_t erases;      /* erase count */
    uint32_t next_page;   /* write pointer (managed); pages below are programmed */
    uint8_t state;        /* free, open, full, bad */
};

struct sts_sim {
    struct sts_sim_params p;
    struct sts_rng rng;
    uint64_t now_ns;              /* virtual time */
    struct sts_sim_counters n;
    /* geometry derived at init */
    uint32_t pages_per_block, n_blocks, n_lpages, n_ppages;
    /* FTL (managed) */
    uint32_t *l2p;                /* logical page -> physical page + 1 (0 = unmapped) */
    uint32_t *p2l;                /* physical page -> logical page + 1 (0 = invalid/free) */
    struct sts_sim_block *blocks;
    uint32_t *by_valid;           /* head of the list of full blocks with v valid pages */
    uint32_t free_head, free_tail;
    uint32_t free_blocks, open_block, erases_since_wl;
    int in_gc;
    /* write cache: which logical pages are dirty, and their order */
    uint8_t *dirty;               /* bitmap over logical pages */
    uint32_t *cache_fifo, cache_cap, cache_head, cache_len;
    /* raw flash: programmed bitmap over (physical) pages */
    uint8_t *programmed;
    /* data: sparse page store (NULL map: data not kept) */
    uint32_t *store_map;          /* page -> slot + 1 */
    uint32_t *store_owner;        /* slot -> page */
    uint8_t *store;               /* slots of page_bytes */
    uint32_t store_slots, store_used;
#if STS_SIM_PACK
    /* packed pages (sim/store.c): a store_map entry with the top bit set
     * is a class (bits 26-30) and an index in it; pack_on from
     * sts_sim_set_pack */
    uint64_t pack_seed;
    int pack_on;
    uint32_t pack_classes;
    uint32_t pack_bytes[STS_SIM_PACK_CLASSES], pack_used[STS_SIM_PACK_CLASSES];
    uint32_t *pack_owner[STS_SIM_PACK_CLASSES];
    uint8_t *pack_slots[STS_SIM_PACK_CLASSES];
    uint32_t *hot, hot_head, hot_n; /* the pages written last stay raw */
    uint8_t *hot_bits, *pack_tried; /* written lately; would not pack (until written) */
    uint32_t pack_cursor;         /* the raw slot the sweep looks at next */
    uint64_t pack_from;           /* bytes held whole before packing starts */
    uint8_t *pack_ops, *pack_buf; /* a page's runs unpacked; a page being packed */
    void *pack_zc, *pack_zd;      /* zstd's contexts, in the arena (or NULL) */
    /* memory the store no longer holds pages in, handed back to the host
     * (sim_target.c: madvise) once it spans STS_SIM_RELEASE_MIN; NULL: kept.
     * store_hw and pack_hw: slots used at most since the last hand-back */
    void (*release)(void *ctx, void *addr, size_t len);
    void *release_ctx;
    uint32_t store_hw, pack_hw[STS_SIM_PACK_CLASSES];
#endif
    uint64_t last_read_end;
    /* faults */
    struct sts_sim_faults f;
    uint64_t host_ops;            /* host commands so far, for cut_after_ops */
#if STS_SIM_ENERGY
    uint8_t energy_class;         /* the class the command running now is charged to */
#endif
    int off;                      /* powered off by a cut */
    int lying;                    /* the command admitted now fails silently (faults'
                                     silent, or a block gone bad that way): it takes its
                                     time and changes no data */
    uint8_t *torn;                /* bitmap over store pages: reads fail until rewritten */
    const uint8_t *programming;   /* the data of the program admit() is gating */
    /* non-blocking path: one request in flight */
    struct sts_bd_req *inflight;
    uint64_t inflight_done_ns;    /* virtual time the request completes */
    /* noise (sts_sim_set_noise): its own random stream, and when the next
     * background stall comes */
    struct sts_sim_noise noise;
    struct sts_rng noise_rng;
    uint64_t next_stall_ns;
    uint64_t drift_until_ns;      /* the current spell ends (0: none drawn yet) */
    float drift_factor;           /* and its speed factor */
    /* a suspended erase (erase_for): its span and the device time it still needs */
    uint64_t susp_addr, susp_len, susp_left_ns;
    /* open allocation units: which, pages written since opened, last use */
    uint64_t au_open[STS_SIM_MAX_OPEN_AUS], au_used[STS_SIM_MAX_OPEN_AUS];
    uint64_t au_last[STS_SIM_MAX_OPEN_AUS], au_tick;
    uint32_t au_n;
    struct sts_bd_ops ops;        /* what this model offers (erase_for only if it suspends) */
};

void sts_sim_set_faults(struct sts_sim *s, const struct sts_sim_faults *f);
/* Makes the model noisy from now on (all 0: noiseless again). */
void sts_sim_set_noise(struct sts_sim *s, const struct sts_sim_noise *n);
/* Host: noise=CV, stalls=RATE:DURATION, bimodal=P:FACTOR into *n (decimals
 * as "0.1" or "10%"); STS_ENOENT for another key, STS_EINVAL for a value
 * out of its range, with *why saying what each takes. */
int sts_sim_noise_parse(struct sts_sim_noise *n, const char *key, const char *value,
                        const char **why);
#if STS_SIM_PACK
/* Packs cold pages from now on (on 0: pages already packed stay so),
 * finding the workloads' pattern under `seed` (the run's --seed:
 * sts_pattern_fill), once the model holds more than pack_from bytes of
 * pages whole (STS_SIM_PACK_FROM; a test may lower it). */
void sts_sim_set_pack(struct sts_sim *s, int on, uint64_t seed);
/* The arena a model that can pack its pages needs (sts_sim_arena_bytes
 * and room for them; mapped without reserve, a host touches only what the
 * pages held take). Given less, the model keeps every page whole. */
size_t sts_sim_arena_bytes_packed(const struct sts_sim_params *p, uint64_t keep_bytes);
/* Bytes of host memory the pages held take (raw and packed). */
uint64_t sts_sim_store_bytes(const struct sts_sim *s);
#endif
/* Cuts power now (between commands): the unflushed cache is lost. */
void sts_sim_power_cut(struct sts_sim *s);
void sts_sim_power_on(struct sts_sim *s);

/* Bytes of arena needed for a profile; keep_bytes is how much data the
 * model should be able to hold (0: keep no data; reads return zeros). */
size_t sts_sim_arena_bytes(const struct sts_sim_params *p, uint64_t keep_bytes);
/* (SIZE_MAX when it does not fit a size_t: a 32-bit host cannot hold it) */
/* Checks a parameter row; on failure *why names the bad field. */
int sts_sim_check(const struct sts_sim_params *p, const char **why);
int sts_sim_init(struct sts_sim *s, const struct sts_sim_params *p, uint64_t seed, void *arena,
                 size_t arena_bytes, uint64_t keep_bytes, struct sts_bd *bd);
/* The same over an arena that is already all zeros (fresh anonymous memory
 * on a host): nothing of it is written at set-up but the block table, so
 * the operating system backs only what the workload touches - a 1 TiB
 * model costs its block table plus what is written to it. */
int sts_sim_init_zeroed(struct sts_sim *s, const struct sts_sim_params *p, uint64_t seed,
                        void *arena, size_t arena_bytes, uint64_t keep_bytes, struct sts_bd *bd);
/* The counters since *last as a point's "device" key-values (operations,
 * bytes, gc_runs, write amplification, the blocks' erase spread), then
 * *last = now: a target's counters() on the host and on an MCU image. */
struct sts_kv;
size_t sts_sim_counters_kv(const struct sts_sim *s, struct sts_sim_counters *last,
                           struct sts_kv *out, size_t max);
#if STS_SIM_ENERGY
/* The energy the device drew since *last (its counters and clock then),
 * nanojoules; 0 without an energy model (supply_mv 0). */
uint64_t sts_sim_energy_nj(const struct sts_sim *s, const struct sts_sim_counters *last);
#endif
/* The model's virtual clock. */
void sts_sim_clock(struct sts_sim *s, struct sts_clock *clock);
/* Marks `permille` of the capacity as written (random data, whole pages,
 * from the start), as if a filesystem had been filled: for aging tests. */
int sts_sim_prefill(struct sts_sim *s, uint32_t permille);

/* Host: old data on the model before a run (target option prefill=):
 * spec is "random" (seeded bytes), "pattern" (each 32-bit word its own
 * address) or an image file's path, then ":PERCENT" for the share of erase
 * blocks that hold it (default 100; the others stay blank, as another
 * filesystem leaves free blocks). Written through bd with the model's
 * clock, counters and command count put back: set-up, not the run.
 * On failure err names the problem. */
int sts_sim_prefill_old(struct sts_sim *s, const struct sts_bd *bd, const char *spec,
                        uint64_t seed, char *err, size_t errlen);

/* Target kind "sim:" (host: allocates the model's memory). */
struct sts_target_kind;
extern const struct sts_target_kind sts_target_sim;

/* ---- profiles -------------------------------------------------------- */
extern const struct sts_sim_params sts_sim_profiles[];
extern const size_t sts_n_sim_profiles;
const struct sts_sim_params *sts_sim_profile_find(const char *name);
/* Sets one parameter by its name ("capacity", "page_bytes", "erase_ns"...)
 * from text; sizes take K/M/G, times ns/us/ms/s. */
int sts_sim_param_set(struct sts_sim_params *p, const char *key, const char *value);

#ifdef __cplusplus
}
#endif
#endif
