/* parkinglot: a two-word lock (locked, parked) whose waiters park in a process-global
 * address-hashed table, as WebKit's WTF::Lock and Rust's parking_lot (src/locks/parkinglot.c).
 * Expert verbs: init, acquire, try_acquire, release, is_locked (docs/design.md, "Expert
 * headers"); wp is ignored (the lock parks itself). */
#ifndef LOCKLAB_PARKINGLOT_H
#define LOCKLAB_PARKINGLOT_H
#include "two_word.h"
#include "wait.h"
LL_API_BEGIN
/* 8 bytes, all zeros = free; nothing else per lock.  locked: 1 held, 0 free.  parked: 1 if
 * some thread may be parked in the table under this lock's address (parkinglot.c). */
typedef struct ll_parkinglot_lock {
    ll_atomic_u32 locked;
    ll_atomic_u32 parked;
} ll_parkinglot_lock;
#define LL_PARKINGLOT_INITIALIZER { LL_ATOMIC_INIT(0), LL_ATOMIC_INIT(0) }
/* Spin rounds before parking, as parking_lot's SpinWait: rounds 1..3 PAUSE 2, 4, 8 times,
 * the others yield the CPU (WTF::Lock yields 40 times). */
#define LL_PARKINGLOT_SPINS 10
/* A waiter parked this long (since its first park) is handed the lock directly
 * (parking_lot's "fair unlock" timeout: 0.5 ms on average). */
#define LL_PARKINGLOT_FAIR_NS 500000u
/* A parked waiter's first nap: it then checks that the lock is still held (else a release
 * missed it: parkinglot.c, "Release"), and naps twice as long each time, up to the max. */
#define LL_PARKINGLOT_NAP_NS 1000000u
#define LL_PARKINGLOT_NAP_MAX_NS 128000000u

/* init: as LL_PARKINGLOT_INITIALIZER (relaxed: like pthread_mutex_init, publish the lock yourself). */
LL_INLINE void ll_parkinglot_init(ll_parkinglot_lock *l)
{
    ll_store_relaxed(&l->locked, 0);
    ll_store_relaxed(&l->parked, 0);
}
void ll_parkinglot_acquire_slow(ll_parkinglot_lock *l);
/* Timed acquire: true if we own the lock, false if deadline_ns (ll_now_ns clock) passed first. */
bool ll_parkinglot_acquire_until(ll_parkinglot_lock *l, uint64_t deadline_ns);
void ll_parkinglot_release_slow(ll_parkinglot_lock *l);

LL_INLINE void ll_parkinglot_acquire(ll_parkinglot_lock *l, ll_wait_policy *wp)
{
    (void)wp;
    if (LL_UNLIKELY(!ll_two_word_lock_fast(&l->locked)))
        ll_parkinglot_acquire_slow(l);
}
bool ll_parkinglot_try_acquire(ll_parkinglot_lock *l);
LL_INLINE void ll_parkinglot_release(ll_parkinglot_lock *l, ll_wait_policy *wp)
{
    (void)wp;
    if (LL_UNLIKELY(!ll_two_word_unlock_fast(&l->locked, &l->parked, ~0u)))
        ll_parkinglot_release_slow(l);
}
LL_INLINE bool ll_parkinglot_is_locked(ll_parkinglot_lock *l) { return ll_two_word_is_locked(&l->locked); }
LL_API_END
#endif
