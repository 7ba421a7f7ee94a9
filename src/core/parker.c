/* Parker slow path: announce sleep, re-check, block.  Protocol in core.h. */
#include "locklab/core.h"

uint32_t ll_parker_park_while_eq(ll_parker *self, ll_atomic_u32 *word, uint32_t busy)
{
    for (;;) {
        ll_store_relaxed(&self->state, LL_PARKER_SLEEP);
        ll_fence(LL_SEQ_CST); /* announce-before-check: pairs with the fence in ll_parker_unpark */
        uint32_t v = ll_load_acquire(word); /* pairs with the releaser's publishing store */
        if (v != busy) {
            ll_store_relaxed(&self->state, LL_PARKER_RUN);
            return v;
        }
        ll_futex_wait(&self->state, LL_PARKER_SLEEP);
    }
}
