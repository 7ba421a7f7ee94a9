/* reciprocating: Dice & Kogan's Reciprocating Lock, constant-time arrival and release,
 * one wait element per thread (src/locks/reciprocating.c).
 * Expert verbs: init, acquire, try_acquire, release, is_locked (docs/design.md, "Expert headers");
 * no node to pass: each thread's wait element is its own (thread-local). */
#ifndef LOCKLAB_RECIPROCATING_H
#define LOCKLAB_RECIPROCATING_H
#include "wait.h"
LL_API_BEGIN
typedef struct ll_reciprocating_lock {
    ll_atomic_ptr arrivals; /* NULL free; LOCKED_EMPTY (1) held, nobody arrived; else the arrival stack's top */
    LL_SHARED_PLAIN(void *) succ; /* holder only: who gets the lock after us in our entry segment (NULL: nobody) */
    LL_SHARED_PLAIN(void *) eos;  /* holder only: the end-of-segment marker, LOCKED_EMPTY or an element */
} ll_reciprocating_lock;
#define LL_RECIPROCATING_INITIALIZER { LL_ATOMIC_INIT(NULL), LL_SHARED_PLAIN_INIT(NULL), LL_SHARED_PLAIN_INIT(NULL) }
/* init: as LL_RECIPROCATING_INITIALIZER (relaxed: like pthread_mutex_init, publish the lock yourself). */
LL_INLINE void ll_reciprocating_init(ll_reciprocating_lock *l)
{
    ll_store_relaxed(&l->arrivals, NULL);
    ll_plain_store(&l->succ, NULL);
    ll_plain_store(&l->eos, NULL);
}
LL_LOCK_VERBS(ll_reciprocating, ll_reciprocating_lock);
/* Timed acquire: true if we own the lock, false if deadline_ns (ll_now_ns clock) passed first. */
bool ll_reciprocating_acquire_until(ll_reciprocating_lock *l, ll_wait_policy *wp, uint64_t deadline_ns);
LL_API_END
#endif
