#include "storscope/device.h"
#include "storscope/error.h"

static int null_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    struct sts_null_bd *nb = ctx;
    (void)buf; /* keeps no data: the buffer is left as it is */
    if (addr + len > nb->capacity)
        return STS_ERANGE;
    nb->commands++;
    return STS_OK;
}

static int null_program(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    struct sts_null_bd *nb = ctx;
    (void)buf;
    if (addr + len > nb->capacity)
        return STS_ERANGE;
    nb->commands++;
    return STS_OK;
}

static int null_erase(void *ctx, uint64_t addr, uint64_t len)
{
    struct sts_null_bd *nb = ctx;
    if (addr + len > nb->capacity)
        return STS_ERANGE;
    nb->commands++;
    return STS_OK;
}

static int null_flush(void *ctx)
{
    struct sts_null_bd *nb = ctx;
    nb->commands++;
    return STS_OK;
}

static void null_geometry(void *ctx, struct sts_bd_geometry *g)
{
    struct sts_null_bd *nb = ctx;
    g->capacity = nb->capacity;
    g->read_size = 1;
    g->prog_size = 1;
    g->erase_size = 0;
    g->flags = 0;
}

static const struct sts_bd_ops null_bd_ops = {
    .version = STS_BD_OPS_VERSION,
    .read = null_read,
    .program = null_program,
    .erase = null_erase,
    .flush = null_flush,
    .geometry = null_geometry,
};

void sts_null_bd_init(struct sts_null_bd *nb, struct sts_bd *bd, uint64_t capacity)
{
    nb->capacity = capacity;
    nb->commands = 0;
    bd->ops = &null_bd_ops;
    bd->ctx = nb;
}
