/* The verbs of a one-word exchange lock (include/locklab/word_lock.h), shared
 * by tas and ttas: they differ only in their slow path, SLOW(l, wp), called
 * after a failed exchange and returning with the lock held.
 * LL_WORD_LOCK_DEFINE(ll_X, SLOW) defines ll_X_init, ll_X_acquire,
 * ll_X_try_acquire, ll_X_release, ll_X_is_locked and the registry adapter
 * (static acquire, try_acquire, release, acquire_until and the direct verbs).  Timed acquire: tries
 * with the spinning waiters' delays until the deadline; as barging as they are
 * (no bound on bypass, for anyone).
 * LL_WORD_LOCK_OPS(ll_X): the fields of ll_X's ll_lock_ops that follow from these verbs
 * (fairness, policies, caps, sizes and verbs), after its own name, source and summary. */
#ifndef LOCKLAB_SRC_WORD_LOCK_H
#define LOCKLAB_SRC_WORD_LOCK_H
#include "locklab/registry.h"
#include "locklab/word_lock.h"

#define LL_WORD_LOCK_DEFINE(P, SLOW)                                                                                \
    void P##_init(P##_lock *l) { ll_store_relaxed(&l->held, 0); /* relaxed: like pthread_mutex_init, publish the lock yourself */ } \
                                                                                                                    \
    void P##_acquire(P##_lock *l, ll_wait_policy *wp)                                                               \
    {                                                                                                               \
        if (LL_UNLIKELY(ll_xchg(&l->held, 1, LL_ACQUIRE) != 0)) /* acquire: pairs with P##_release's store */    \
            SLOW(l, wp);                                                                                            \
    }                                                                                                               \
                                                                                                                    \
    bool P##_try_acquire(P##_lock *l)                                                                               \
    {                                                                                                               \
        return ll_load_relaxed(&l->held) == 0 && ll_xchg(&l->held, 1, LL_ACQUIRE) == 0; /* acquire: pairs with P##_release */     \
    }                                                                                                               \
                                                                                                                    \
    void P##_release(P##_lock *l, ll_wait_policy *wp)                                                               \
    {                                                                                                               \
        (void)wp;                                                                                                   \
        ll_store_release(&l->held, 0); /* release: publish the critical section; pairs with the acquire xchg */   \
    }                                                                                                               \
                                                                                                                    \
    bool P##_is_locked(P##_lock *l) { return ll_load_acquire(&l->held) != 0; /* acquire: pairs with P##_release */ } \
                                                                                                                    \
    LL_LOCK_ADAPTER(P##_lock, P)                                                                                    \
    /* Timed: as the spinning waiters, tries with polite delays until the deadline (barging). */                   \
    static bool try_word(void *s) { return P##_try_acquire((P##_lock *)s); }                                        \
    static bool acquire_until(void *s, ll_wait_policy *wp, uint64_t deadline_ns)                                   \
    {                                                                                                               \
        return ll_spin_try_until(wp, try_word, s, deadline_ns);                                                     \
    }                                                                                                               \
    LL_DIRECT_VERBS()

/* Barging with no bound (every acquire is an exchange, whoever waited); spin and yield only
 * (no waiter list, so nobody to unpark); a word lock (registry.h, LL_CAP_WORD_LOCK), whose
 * one word a fork child frees with a store. */
#define LL_WORD_LOCK_OPS(P)                                                                                         \
    .fairness = "none (barging, unbounded bypass)", .policies = LL_SPIN_YIELD,                                      \
    .caps = LL_CAP_WORD_LOCK | LL_CAP_FORK_SAFE, LL_OPS_STATE_IS(P##_lock), LL_OPS_VERBS
#endif
