/* The fast paths of the two-word store-release locks (parkinglot, standby): a word
 * `locked` (0 free, 1 held) and a word of the waiters' bits.  Acquire: CAS locked
 * 0 -> 1, else the lock's slow path.  Release: if no waiter bit asks for more, a
 * store of 0 to locked, and nothing of the lock is touched after it (it may be
 * destroyed at once); else the lock's release_slow, which frees it. */
#ifndef LOCKLAB_TWO_WORD_H
#define LOCKLAB_TWO_WORD_H
#include "atomics.h"
LL_API_BEGIN
/* True if we took the free lock. */
LL_INLINE bool ll_two_word_lock_fast(ll_atomic_u32 *locked)
{
    uint32_t free_ = 0;
    /* acquire: pairs with the releasing store (ll_two_word_unlock_fast, the lock's release_slow) */
    return ll_cas(locked, &free_, 1, LL_ACQUIRE);
}
/* True if the lock is freed; false if a bit of `slow` is set in *waiters: then the caller
 * runs its release_slow. */
LL_INLINE bool ll_two_word_unlock_fast(ll_atomic_u32 *locked, ll_atomic_u32 *waiters, uint32_t slow)
{
    /* relaxed: the waiters' word (the store-release below keeps this load before it); an
     * announcement we miss here is found by its waiter's nap (parkinglot.c, "Release"), or
     * first look (standby.c, "Memory orders") */
    if (LL_UNLIKELY(ll_load_relaxed(waiters) & slow))
        return false;
    /* release: the critical section to the next acquiring CAS.  A store, not an RMW */
    ll_store_release(locked, 0);
    return true;
}
/* Held?  acquire: as a successful try_acquire. */
LL_INLINE bool ll_two_word_is_locked(ll_atomic_u32 *locked) { return ll_load_acquire(locked) != 0; }
LL_API_END
#endif
