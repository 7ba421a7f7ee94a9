/* Parker slow path: announce sleep, re-check, block (optionally until a deadline).  Protocol in core.h. */
#include <errno.h>
#include <pthread.h>

#include "locklab/core.h"

bool ll_parker_park(ll_parker *self, ll_ready_fn ready, void *ctx)
{
    ll_store_relaxed(&self->state, LL_PARKER_SLEEP);
    ll_fence(LL_SEQ_CST); /* announce-before-check: pairs with the fence in ll_parker_unpark */
    if (!ready(ctx))
        ll_futex_wait(&self->state, LL_PARKER_SLEEP);
    ll_store_relaxed(&self->state, LL_PARKER_RUN);
    return ready(ctx);
}

/* One futex sleep of the parker, a cancellation point if asked (core.h: LL_PARK_CANCEL). */
static int sleep_once(ll_parker *self, clockid_t clock, const struct timespec *abstime, unsigned opts)
{
    if (!(opts & LL_PARK_CANCEL))
        return ll_futex_wait_until(&self->state, LL_PARKER_SLEEP, clock, abstime);
    /* glibc's way for its own waits: asynchronous cancellation for the syscall only.  Enabling it
     * acts on a pending request at once; a request made meanwhile interrupts the syscall with
     * SIGCANCEL, whose handler unwinds from there.  The window holds nothing but the syscall. */
    int old;
    pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old);
    int rc = ll_futex_wait_until(&self->state, LL_PARKER_SLEEP, clock, abstime);
    pthread_setcanceltype(old, &old);
    return rc;
}

int ll_parker_park_opts(ll_parker *self, ll_ready_fn ready, void *ctx, clockid_t clock, const struct timespec *abstime,
                        unsigned opts)
{
    for (;;) {
        int rc = 0;
        ll_store_relaxed(&self->state, LL_PARKER_SLEEP);
        ll_fence(LL_SEQ_CST); /* announce-before-check: pairs with the fence in ll_parker_unpark */
        if (!ready(ctx))
            rc = sleep_once(self, clock, abstime, opts);
        ll_store_relaxed(&self->state, LL_PARKER_RUN);
        if (ready(ctx))
            return 0;
        if (rc == ETIMEDOUT || rc == EINVAL)
            return ETIMEDOUT;
        if (rc == EINTR && (opts & LL_PARK_EINTR))
            return EINTR;
    }
}

bool ll_parker_park_deadline(ll_parker *self, ll_ready_fn ready, void *ctx, clockid_t clock,
                             const struct timespec *abstime)
{
    return ll_parker_park_opts(self, ready, ctx, clock, abstime, 0) == 0;
}
