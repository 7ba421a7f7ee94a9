/* The verbs of a one-word exchange lock (include/locklab/word_lock.h), shared
 * by tas and ttas: they differ only in their slow path, SLOW(l, wp), called
 * after a failed exchange and returning with the lock held.
 * LL_WORD_LOCK_DEFINE(ll_X, SLOW) defines ll_X_init, ll_X_acquire,
 * ll_X_try_acquire, ll_X_release, ll_X_is_locked and the registry adapter
 * (static acquire, try_acquire, release). */
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
    LL_LOCK_ADAPTER(P##_lock, P)
#endif
