/* Parker slow path: announce sleep, re-check, block.  Protocol in core.h. */
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
