/*
 * ttas — test-and-test-and-set lock, "spin on read".
 * Source: Anderson, Lazowska, Levy 1989 (thread-management-alternatives.txt §4).
 *
 * Lock word (held):   0 = free, 1 = held.
 * Acquire: one xchg; on failure spin reading the word in the local cache
 * until it reads 0, then xchg again.  A release still sends every spinner to
 * the bus at once (the "quiescence" storm the paper describes).
 *
 * Fairness: none — unbounded bypass.
 * Footprint: 4 bytes per lock, nothing per waiting thread.
 * Policies: spin, yield.
 */
#include "locklab/registry.h"
#include "locklab/ttas.h"

LL_COLD static void ttas_acquire_slow(ll_ttas_lock *l, ll_wait_policy *wp)
{
    uint32_t steps = 0;
    do {
        while (ll_load_relaxed(&l->held) != 0) /* relaxed: only a hint; the xchg orders */
            ll_wait_relax(wp, &steps);
    } while (ll_xchg(&l->held, 1, LL_ACQUIRE) != 0); /* acquire: see the previous holder's writes */
}

void ll_ttas_init(ll_ttas_lock *l) { ll_store_relaxed(&l->held, 0); /* relaxed: like pthread_mutex_init, publish the lock yourself */ }

void ll_ttas_acquire(ll_ttas_lock *l, ll_wait_policy *wp)
{
    if (LL_UNLIKELY(ll_xchg(&l->held, 1, LL_ACQUIRE) != 0)) /* acquire: see the previous holder's writes */
        ttas_acquire_slow(l, wp);
}

bool ll_ttas_try_acquire(ll_ttas_lock *l)
{
    return ll_load_relaxed(&l->held) == 0 && ll_xchg(&l->held, 1, LL_ACQUIRE) == 0; /* acquire: as above */
}

void ll_ttas_release(ll_ttas_lock *l, ll_wait_policy *wp)
{
    (void)wp;
    ll_store_release(&l->held, 0); /* release: publish the critical section */
}

bool ll_ttas_is_locked(ll_ttas_lock *l) { return ll_load_acquire(&l->held) != 0; /* acquire: as a successful try_acquire */ }

LL_LOCK_ADAPTER(ll_ttas_lock, ll_ttas)

const ll_lock_ops ll_lock_ttas = {
    "ttas", "Anderson, Lazowska, Levy 1989 §4 (spin on read)", "test-and-test-and-set, spinning on a plain read",
    "none (barging, unbounded bypass)", LL_SPIN_YIELD, NULL, sizeof(ll_ttas_lock), sizeof(ll_ttas_lock), 0,
    NULL, NULL, acquire, try_acquire, release,
};
