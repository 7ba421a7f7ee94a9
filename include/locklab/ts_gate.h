/* The test-and-set gate of the barging locks with a queue behind them (fissile, shfl):
 * a TS word that arrivals may take on their fast path, and an `impatient` flag by
 * which the queue's head (the standby), once it has waited its patience, stops the
 * barging.  The standby's side is src/locks/ts_standby.h. */
#ifndef LOCKLAB_TS_GATE_H
#define LOCKLAB_TS_GATE_H
#include "wait.h"
LL_API_BEGIN
typedef struct ll_ts_gate {
    ll_atomic_u32 locked;    /* 0 free, 1 held.  Acquire: CAS 0 -> 1; release: store 0 */
    ll_atomic_u32 impatient; /* 1: the standby waited its patience: arrivals must not barge */
} ll_ts_gate;
#define LL_TS_GATE_INITIALIZER { LL_ATOMIC_INIT(0), LL_ATOMIC_INIT(0) }
/* init: as the initialiser (relaxed: like pthread_mutex_init, publish the lock yourself). */
LL_INLINE void ll_ts_gate_init(ll_ts_gate *g)
{
    ll_store_relaxed(&g->locked, 0);
    ll_store_relaxed(&g->impatient, 0);
}
/* An arrival's (or a try-acquire's) one attempt: barge, unless the standby is impatient
 * (then a try-acquire fails even if the word is free for an instant: the standby is about
 * to take it, and a loop of try-acquires must not starve it). */
LL_INLINE bool ll_ts_gate_try(ll_ts_gate *g)
{
    uint32_t free_ = 0;
    /* relaxed: impatient orders no data, it only gates barging (an arrival that read 0 just
     * before it was raised barges once more: the bound counts it); acquire: pairs with the
     * releasing store in ll_ts_gate_release */
    return ll_load_relaxed(&g->impatient) == 0 && ll_load_relaxed(&g->locked) == 0 &&
           ll_cas(&g->locked, &free_, 1, LL_ACQUIRE);
}
LL_INLINE void ll_ts_gate_release(ll_ts_gate *g)
{
    ll_store_release(&g->locked, 0); /* release: the critical section to the next acquiring CAS */
}
LL_INLINE bool ll_ts_gate_is_locked(ll_ts_gate *g)
{
    return ll_load_acquire(&g->locked) != 0; /* acquire: as a successful try */
}

/* The expert fast paths of a lock P##_lock that has a gate `gate` in front of its slow path
 * P##_acquire_slow (fissile, shfl): P##_try_acquire, P##_acquire, P##_release and
 * P##_is_locked are the gate's (the slow path's holder takes the gate too). */
#define LL_TS_GATE_FAST_PATHS(P)                                                                  \
    LL_INLINE bool P##_try_acquire(P##_lock *l) { return ll_ts_gate_try(&l->gate); }              \
    LL_INLINE void P##_acquire(P##_lock *l, ll_wait_policy *wp)                                   \
    {                                                                                             \
        if (LL_UNLIKELY(!ll_ts_gate_try(&l->gate)))                                               \
            P##_acquire_slow(l, wp);                                                              \
    }                                                                                             \
    LL_INLINE void P##_release(P##_lock *l, ll_wait_policy *wp)                                   \
    {                                                                                             \
        (void)wp;                                                                                 \
        ll_ts_gate_release(&l->gate);                                                             \
    }                                                                                             \
    LL_INLINE bool P##_is_locked(P##_lock *l) { return ll_ts_gate_is_locked(&l->gate); }
LL_API_END
#endif
