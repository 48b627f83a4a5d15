/* Bounded FIFO over the port's primitives: two counting semaphores (free
 * slots, queued items) give the blocking and the bounded behaviour, a mutex
 * guards the ring. Works on preemptive and cooperative ports alike. */
#include "storscope/error.h"
#include "storscope/port.h"

#include <string.h>

int sts_queue_init(struct sts_queue *q, const struct sts_port_ops *port, void *storage,
                   uint32_t item_bytes, uint32_t capacity)
{
    if (!storage || !item_bytes || !capacity)
        return STS_EINVAL;
    q->items = storage;
    q->item_bytes = item_bytes;
    q->capacity = capacity;
    q->head = q->count = 0;
    int rc = port->mutex_init(&q->lock);
    if (!rc)
        rc = port->sem_init(&q->slots, capacity);
    if (!rc)
        rc = port->sem_init(&q->filled, 0);
    return rc;
}

static int take(const struct sts_port_ops *port, struct sts_sem *s, int block)
{
    return port->sem_wait(s, block ? STS_WAIT_FOREVER : 0);
}

int sts_queue_send(struct sts_queue *q, const struct sts_port_ops *port, const void *item,
                   int block)
{
    int rc = take(port, &q->slots, block);
    if (rc)
        return rc;
    port->mutex_lock(&q->lock);
    uint32_t tail = (q->head + q->count) % q->capacity;
    memcpy(q->items + (size_t)tail * q->item_bytes, item, q->item_bytes);
    q->count++;
    port->mutex_unlock(&q->lock);
    port->sem_post(&q->filled);
    return STS_OK;
}

int sts_queue_recv(struct sts_queue *q, const struct sts_port_ops *port, void *item, int block)
{
    int rc = take(port, &q->filled, block);
    if (rc)
        return rc;
    port->mutex_lock(&q->lock);
    memcpy(item, q->items + (size_t)q->head * q->item_bytes, q->item_bytes);
    q->head = (q->head + 1) % q->capacity;
    q->count--;
    port->mutex_unlock(&q->lock);
    port->sem_post(&q->slots);
    return STS_OK;
}

void sts_queue_destroy(struct sts_queue *q, const struct sts_port_ops *port)
{
    port->sem_destroy(&q->slots);
    port->sem_destroy(&q->filled);
    port->mutex_destroy(&q->lock);
}
