/* Parker slow path: announce sleep, re-check, block (optionally until a deadline).  Protocol in core.h. */
#include <errno.h>

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

bool ll_parker_park_deadline(ll_parker *self, ll_ready_fn ready, void *ctx, clockid_t clock,
                             const struct timespec *abstime)
{
    for (;;) {
        int rc = 0;
        ll_store_relaxed(&self->state, LL_PARKER_SLEEP);
        ll_fence(LL_SEQ_CST); /* announce-before-check: pairs with the fence in ll_parker_unpark */
        if (!ready(ctx))
            rc = ll_futex_wait_until(&self->state, LL_PARKER_SLEEP, clock, abstime);
        ll_store_relaxed(&self->state, LL_PARKER_RUN);
        if (ready(ctx))
            return true;
        if (rc == ETIMEDOUT || rc == EINVAL)
            return false;
    }
}
