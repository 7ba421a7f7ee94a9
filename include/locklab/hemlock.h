/* hemlock: Dice & Kogan's Hemlock, one word per lock (+ a gate word for timed waiters) and one grant
 * word per thread (src/locks/hemlock.c).
 * Expert verbs: init, acquire, try_acquire, release, is_locked (docs/design.md, "Expert headers");
 * no node to pass: each thread's grant word is its own (thread-local), shared by every lock it holds,
 * so a lock must be released by the thread (pthread) that acquired it, as POSIX requires of a mutex. */
#ifndef LOCKLAB_HEMLOCK_H
#define LOCKLAB_HEMLOCK_H
#include "wait.h"
LL_API_BEGIN
/* The whole lock (16 bytes): the tail, NULL (free) or the element of the last thread to arrive
 * (bit 0 set: a timed waiter sleeps until the queue drains); the gate, closed (bit 1) while a
 * timed waiter drains the queue; drained, the wait word that timed waiter sleeps on
 * (hemlock.c, "Timed acquire"). */
typedef struct ll_hemlock_lock {
    ll_atomic_ptr tail;
    ll_atomic_u32 gate;
    ll_atomic_u32 drained;
} ll_hemlock_lock;
#define LL_HEMLOCK_INITIALIZER { LL_ATOMIC_INIT(NULL), LL_ATOMIC_INIT(0), LL_ATOMIC_INIT(0) }
/* init: as LL_HEMLOCK_INITIALIZER (relaxed: like pthread_mutex_init, publish the lock yourself). */
LL_INLINE void ll_hemlock_init(ll_hemlock_lock *l)
{
    ll_store_relaxed(&l->tail, NULL);
    ll_store_relaxed(&l->gate, 0);
    ll_store_relaxed(&l->drained, 0);
}
LL_LOCK_VERBS(ll_hemlock, ll_hemlock_lock);
/* Timed acquire: true if we own the lock, false if deadline_ns (ll_now_ns clock) passed first. */
bool ll_hemlock_acquire_until(ll_hemlock_lock *l, ll_wait_policy *wp, uint64_t deadline_ns);
LL_API_END
#endif
