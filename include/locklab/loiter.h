/* loiter: outer TAS lock + inner MCS lock holding the "standby" thread, Dice's LOITER (src/locks/loiter.c). */
#ifndef LOCKLAB_LOITER_H
#define LOCKLAB_LOITER_H
#include "mcs.h"
LL_API_BEGIN
typedef struct ll_loiter_lock {
    /* line 1: the outer lock, touched by every acquisition */
    LL_ALIGNED(LL_CACHELINE) ll_atomic_u32 word; /* LOCKED | SLEEPING | IMPATIENT | GRANTED | spinners << 4 */
    uint32_t max_spinners; /* arrivals beyond this many concurrent spinners go straight to the inner lock */
    LL_SHARED_PLAIN(uint32_t) bypasses; /* holder-only: releases that left a sleeping standby asleep */
    LL_SHARED_PLAIN(ll_mcs_node *) holder; /* holder-only: the holder's inner node if it came through the slow path, else NULL */
    uint64_t spin_ns;      /* arrival spin budget (and the standby's and inner waiters' stp budget) */
    uint64_t patience_ns;  /* after this long as standby, ask for direct handoff */
    /* line 2: the slow path (inner MCS lock and the standby) */
    LL_ALIGNED(LL_CACHELINE) ll_mcs_lock inner;
    ll_atomic_ptr standby;  /* the standby's parker; meaningful while SLEEPING is set */
    ll_atomic_u64 deadline; /* when the standby becomes impatient (ll_now_ns) */
    ll_wait_policy inner_wp; /* spin-then-park, for the inner lock and the standby */
} ll_loiter_lock;
#define LL_LOITER_DEFAULT_PATIENCE_NS 1000000u
#define LL_LOITER_DEFAULT_SPINNERS 2u
/* No static initialiser: the default spin budget is measured at first use.
 * spin_ns = 0: the measured park/unpark cost (ll_park_cost_ns). */
void ll_loiter_init(ll_loiter_lock *l, uint64_t spin_ns, uint64_t patience_ns, uint32_t max_spinners);
void ll_loiter_acquire(ll_loiter_lock *l);
bool ll_loiter_try_acquire(ll_loiter_lock *l);
/* Timed acquire: false if ll_now_ns() reached deadline_ns first (loiter.c, "Timed acquire"). */
bool ll_loiter_acquire_until(ll_loiter_lock *l, uint64_t deadline_ns);
void ll_loiter_release(ll_loiter_lock *l);
bool ll_loiter_is_locked(ll_loiter_lock *l); /* a snapshot: the outer lock's LOCKED bit */
LL_API_END
#endif
