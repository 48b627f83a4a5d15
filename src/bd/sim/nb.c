/* Part of the device model (src/bd/sim.c includes it): the non-blocking path: submit and poll.
 * The model's parts are one translation unit, so their static functions
 * inline across them as they did in one file; the Cortex-M33 engine
 * budget (scripts/footprint.sh) counts on it. Not compiled on its own. */
/* Non-blocking path. submit() runs the command in the model at once (data
 * moves now) but rewinds the clock: the caller is not kept waiting; the
 * command completes at the virtual time it would have taken. Each poll()
 * costs poll_ns of the caller's time. */
static int sim_submit(void *ctx, struct sts_bd_req *req)
{
    struct sts_sim *s = ctx;
    if (s->inflight)
        return STS_EBUSY;
    uint64_t start = s->now_ns;
    if (req->op == STS_BD_READ)
        req->result = sim_read(s, req->addr, req->buf, req->len);
    else if (req->op == STS_BD_PROGRAM)
        req->result = sim_program(s, req->addr, req->buf, req->len);
    else
        return STS_EINVAL;
    s->inflight_done_ns = s->now_ns;
    s->now_ns = start + s->p.cpu_ns; /* only the submission itself */
    s->inflight = req;
    return STS_OK;
}

static int sim_poll(void *ctx, struct sts_bd_req **done)
{
    struct sts_sim *s = ctx;
    *done = NULL;
    s->now_ns += s->p.poll_ns ? s->p.poll_ns : 1000;
    if (!s->inflight || s->now_ns < s->inflight_done_ns)
        return 0;
    *done = s->inflight;
    s->inflight = NULL;
    return 1;
}

#if STS_SIM_IDLE
/* The caller only polls until the command in flight completes: the polls
 * that would not complete it, at once (sts_bd_ops.idle). The poll that
 * completes it is the first at or past its end, as in sim_poll. */
static void sim_idle(void *ctx)
{
    struct sts_sim *s = ctx;
    uint64_t step = s->p.poll_ns ? s->p.poll_ns : 1000;
    if (!s->inflight || s->now_ns + step >= s->inflight_done_ns)
        return;
    uint64_t polls = (s->inflight_done_ns - s->now_ns + step - 1) / step;
    s->now_ns += (polls - 1) * step;
}
#else
#define sim_idle NULL /* (STS_SIM_IDLE, sim.h) */
#endif
