/* fissile: Dice & Kogan's Fissile lock, a test-and-set fast path in front of a CNA slow path
 * (src/locks/fissile.c).  Expert verbs: init, acquire, try_acquire, release, is_locked
 * (docs/design.md, "Expert headers"); the slow path takes its CNA node from the per-thread cache. */
#ifndef LOCKLAB_FISSILE_H
#define LOCKLAB_FISSILE_H
#include "cna.h"
#ifdef __cplusplus
extern "C" {
#endif
typedef struct ll_fissile_lock {
    ll_atomic_u32 locked;    /* the outer test-and-set lock: 0 free, 1 held */
    ll_atomic_u32 impatient; /* 1: the standby waited patience_ns; arrivals must not barge */
    ll_cna_lock inner;       /* the slow path's queue; its holder is the standby */
    uint64_t patience_ns;    /* spec key patience_ns; read-only after init */
} ll_fissile_lock;
/* The standby's patience before it stops the barging (the paper bounds bypass by a
 * tunable; 1 ms: long against a handover, short against a scheduling quantum). */
#define LL_FISSILE_DEFAULT_PATIENCE_NS 1000000u
#define LL_FISSILE_INITIALIZER { LL_ATOMIC_INIT(0), LL_ATOMIC_INIT(0), LL_CNA_INITIALIZER, LL_FISSILE_DEFAULT_PATIENCE_NS }
void ll_fissile_init(ll_fissile_lock *l, uint64_t patience_ns);
void ll_fissile_acquire_slow(ll_fissile_lock *l, ll_wait_policy *wp);

/* Barge: only while the standby is patient. */
LL_INLINE bool ll_fissile_try_acquire(ll_fissile_lock *l)
{
    uint32_t free_ = 0;
    /* relaxed: impatient is a hint (fissile.c: the bound); acquire: pairs with the
     * releasing store of locked in ll_fissile_release */
    return ll_load_relaxed(&l->impatient) == 0 && ll_load_relaxed(&l->locked) == 0 &&
           ll_cas(&l->locked, &free_, 1, LL_ACQUIRE);
}
LL_INLINE void ll_fissile_acquire(ll_fissile_lock *l, ll_wait_policy *wp)
{
    uint32_t free_ = 0;
    /* relaxed and acquire: as in ll_fissile_try_acquire */
    if (LL_UNLIKELY(ll_load_relaxed(&l->impatient) != 0 || !ll_cas(&l->locked, &free_, 1, LL_ACQUIRE)))
        ll_fissile_acquire_slow(l, wp);
}
LL_INLINE void ll_fissile_release(ll_fissile_lock *l, ll_wait_policy *wp)
{
    (void)wp;
    ll_store_release(&l->locked, 0); /* release: the critical section to the next acquiring CAS */
}
LL_INLINE bool ll_fissile_is_locked(ll_fissile_lock *l)
{
    return ll_load_acquire(&l->locked) != 0; /* acquire: as a successful try_acquire */
}
#ifdef __cplusplus
}
#endif
#endif
