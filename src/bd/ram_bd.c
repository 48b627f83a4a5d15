#include "storscope/device.h"
#include "storscope/error.h"

#include <string.h>

static int ram_check(const struct sts_ram_bd *rb, uint64_t addr, uint64_t len)
{
    return (addr > rb->capacity || len > rb->capacity - addr) ? STS_ERANGE : STS_OK;
}

static int ram_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    struct sts_ram_bd *rb = ctx;
    int rc = ram_check(rb, addr, len);
    if (!rc)
        memcpy(buf, rb->mem + addr, len);
    return rc;
}

static int ram_program(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    struct sts_ram_bd *rb = ctx;
    int rc = ram_check(rb, addr, len);
    if (!rc)
        memcpy(rb->mem + addr, buf, len);
    return rc;
}

static int ram_erase(void *ctx, uint64_t addr, uint64_t len)
{
    struct sts_ram_bd *rb = ctx;
    int rc = ram_check(rb, addr, len);
    if (!rc)
        memset(rb->mem + addr, 0xff, (size_t)len);
    return rc;
}

static int ram_flush(void *ctx)
{
    (void)ctx;
    return STS_OK;
}

static void ram_geometry(void *ctx, struct sts_bd_geometry *g)
{
    struct sts_ram_bd *rb = ctx;
    g->capacity = rb->capacity;
    g->read_size = 1;
    g->prog_size = 1;
    g->erase_size = 0;
    g->flags = STS_BD_KEEPS_DATA;
}

static const struct sts_bd_ops ram_bd_ops = {
    .version = STS_BD_OPS_VERSION,
    .read = ram_read,
    .program = ram_program,
    .erase = ram_erase,
    .flush = ram_flush,
    .geometry = ram_geometry,
};

void sts_ram_bd_init(struct sts_ram_bd *rb, struct sts_bd *bd, uint8_t *mem, uint64_t capacity)
{
    rb->mem = mem;
    rb->capacity = capacity;
    bd->ops = &ram_bd_ops;
    bd->ctx = rb;
}
