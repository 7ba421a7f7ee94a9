/*
 * tas — test-and-set lock, "spin on xchgb".
 * Source: Anderson, Lazowska, Levy 1989 (thread-management-alternatives.txt §4).
 *
 * Lock word (held):   0 = free, 1 = held.
 * Acquire: xchg(held, 1) until it returns 0.  Release: store 0.
 * Every failed xchg takes the line exclusive, so spinners slow the holder.
 *
 * Fairness: none — probabilistic, unbounded bypass (starvation possible).
 * Footprint: 4 bytes per lock, nothing per waiting thread.
 * Policies: spin, yield (no waiter list, so nobody to unpark).
 */
#include "locklab/registry.h"
#include "locklab/tas.h"

LL_COLD static void tas_acquire_slow(ll_tas_lock *l, ll_wait_policy *wp)
{
    uint32_t steps = 0;
    do
        ll_wait_relax(wp, &steps);
    while (ll_xchg(&l->held, 1, LL_ACQUIRE) != 0); /* acquire: see the previous holder's writes */
}

void ll_tas_init(ll_tas_lock *l) { ll_store_relaxed(&l->held, 0); /* relaxed: like pthread_mutex_init, publish the lock yourself */ }

void ll_tas_acquire(ll_tas_lock *l, ll_wait_policy *wp)
{
    if (LL_UNLIKELY(ll_xchg(&l->held, 1, LL_ACQUIRE) != 0)) /* acquire: see the previous holder's writes */
        tas_acquire_slow(l, wp);
}

bool ll_tas_try_acquire(ll_tas_lock *l)
{
    return ll_load_relaxed(&l->held) == 0 && ll_xchg(&l->held, 1, LL_ACQUIRE) == 0; /* acquire: as above */
}

void ll_tas_release(ll_tas_lock *l, ll_wait_policy *wp)
{
    (void)wp;
    ll_store_release(&l->held, 0); /* release: publish the critical section */
}

bool ll_tas_is_locked(ll_tas_lock *l) { return ll_load_acquire(&l->held) != 0; /* acquire: as a successful try_acquire */ }

LL_LOCK_ADAPTER(ll_tas_lock, ll_tas)

const ll_lock_ops ll_lock_tas = {
    "tas", "Anderson, Lazowska, Levy 1989 §4 (spin on xchg)", "test-and-set, spinning on the atomic exchange",
    "none (barging, unbounded bypass)", LL_SPIN_YIELD, NULL, sizeof(ll_tas_lock), sizeof(ll_tas_lock), 0,
    NULL, NULL, acquire, try_acquire, release,
};
