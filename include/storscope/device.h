/* Block-device interface: raw media and device models. Addresses and sizes
 * are bytes; a device states the granularity it works best at in its
 * geometry, and models may accept (and charge for) finer-grained I/O. */
#ifndef STORSCOPE_DEVICE_H
#define STORSCOPE_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum sts_bd_flags {
    STS_BD_KEEPS_DATA = 0x1,  /* reads return what was programmed */
    STS_BD_NEEDS_ERASE = 0x2, /* raw flash: erase before program */
    STS_BD_PROGRAM_ONCE = 0x4, /* raw NAND: a page takes one program between erases,
                                  so writes must cover whole pages (prog_size) */
    STS_BD_PROGRAM_BYTES = 0x8, /* raw NOR without ECC: a program may be any bytes
                                   anywhere, again over programmed ones (bits AND), and a
                                   power cut leaves only the bytes it was programming
                                   half-done: it destroys no page around them (prog_size
                                   and page_size are then what a program of a whole page
                                   costs its time for, not units a write must keep to) */
    STS_BD_ERASES_TO_ZERO = 0x10, /* raw flash that erases to 0x00: a program sets bits
                                     (a store that looks for 0xFF blanks stacks
                                     sts_invertbd over it: storscope/invertbd.h) */
};

struct sts_bd_geometry {
    uint64_t capacity;    /* bytes */
    uint32_t read_size;   /* smallest efficient read, bytes */
    uint32_t prog_size;   /* program unit (page or sector), bytes */
    uint32_t erase_size;  /* erase block (or trim granule), bytes */
    uint32_t flags;       /* enum sts_bd_flags */
    /* The flash page behind the interface, bytes, when the device knows it
     * (0 = not known; callers zero the struct first). A power cut during a
     * write may destroy the whole aligned page around it, data programmed
     * into that page earlier included: an FTL programs pages, not sectors. */
    uint32_t page_size;
    /* A larger erase the device does faster per byte, bytes, a multiple of
     * erase_size (SPI NOR: 64 KiB blocks in ~150 ms against 4 KiB sectors
     * in ~45 ms); an aligned erase() of it costs one such command. 0 =
     * none. Callers that erase whole aligned spans of it go faster. */
    uint32_t erase_large_size;
};

/* A request on the non-blocking path. */
struct sts_bd_req {
    int op;          /* STS_BD_READ or STS_BD_PROGRAM */
    uint64_t addr;   /* bytes */
    void *buf;
    size_t len;
    int result;      /* set on completion: STS_OK or an error */
};
enum { STS_BD_READ = 1, STS_BD_PROGRAM = 2 };

/* The method table's layout, first field of every table (as SQLite's
 * iVersion and fio's FIO_IOOPS_VERSION): methods added later go at the end
 * under a new number, and a caller uses one only in a table that states
 * that number or more. A table of version 0 (written before tables had a
 * version) or of a newer library is refused where a device is opened
 * (sts_bd_ops_check). */
#define STS_BD_OPS_VERSION 2u /* 2: idle */

struct sts_bd_ops {
    uint32_t version; /* STS_BD_OPS_VERSION this table was written for */
    int (*read)(void *ctx, uint64_t addr, void *buf, size_t len);
    int (*program)(void *ctx, uint64_t addr, const void *buf, size_t len);
    /* Erase on raw flash, trim/discard on managed media. */
    int (*erase)(void *ctx, uint64_t addr, uint64_t len);
    /* Make everything programmed so far durable (write-cache flush). */
    int (*flush)(void *ctx);
    void (*geometry)(void *ctx, struct sts_bd_geometry *geo);
    /* Optional non-blocking path, the shape of fio's queue/getevents and of a
     * DMA-driven SDMMC: submit() starts a command and returns at once
     * (STS_EBUSY while one is in flight); poll() does a bounded amount of
     * work and returns 1 with *done set when a request completed, 0 while it
     * is still running. NULL when the device only blocks. */
    int (*submit)(void *ctx, struct sts_bd_req *req);
    int (*poll)(void *ctx, struct sts_bd_req **done);
    /* Optional, raw flash that can suspend an erase (SPI NOR's erase
     * suspend/resume, 75h/7Ah): erases [addr, addr + len), erase_size
     * aligned, for at most budget_ns of device time, then suspends it and
     * returns with *done = 0; the same span again resumes it, and *done = 1
     * once it is erased. Until then the span reads as torn (STS_EIO) and
     * a power cut leaves it so. While one is suspended, reads and programs
     * outside it run at once; an erase of another span, or a program into
     * this one, first resumes it to the end. So a caller never waits for a
     * whole erase in one call: its longest command is budget_ns plus the
     * suspend latency. NULL when the device cannot. */
    int (*erase_for)(void *ctx, uint64_t addr, uint64_t len, uint64_t budget_ns, int *done);
    /* Optional, version 2 on: the caller has nothing to do but poll() until
     * the request in flight completes. The device may take the time of
     * every poll but the one that completes it at once, so that poll
     * returns it when polling all along would have: a virtual-time model
     * jumps its clock instead of being polled a poll_ns at a time (300 000
     * calls for a 300 ms erase at 1 us). Nothing when no request is in
     * flight. NULL on a real device: polling is what it needs. */
    void (*idle)(void *ctx);
};

struct sts_bd {
    const struct sts_bd_ops *ops;
    void *ctx;
};

/* STS_OK, or STS_EINVAL for a table this library cannot call (no table, a
 * version of 0 or newer than STS_BD_OPS_VERSION), with why in err. */
int sts_bd_ops_check(const struct sts_bd_ops *ops, char *err, size_t errlen);

/* The null device: accepts every command, keeps no data, takes no time.
 * Used to measure the engine's own overhead through the real method tables. */
struct sts_null_bd {
    uint64_t capacity;
    uint64_t commands; /* commands served, for tests */
};
void sts_null_bd_init(struct sts_null_bd *nb, struct sts_bd *bd, uint64_t capacity);

/* A RAM disk over caller-provided memory: keeps data, takes no time. */
struct sts_ram_bd {
    uint8_t *mem;
    uint64_t capacity;
};
void sts_ram_bd_init(struct sts_ram_bd *rb, struct sts_bd *bd, uint8_t *mem, uint64_t capacity);

#ifdef __cplusplus
}
#endif
#endif
