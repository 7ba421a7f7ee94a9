/* acr: barging lock with CPU-aware concurrency restriction, the interposer's default (src/locks/acr.c). */
#ifndef LOCKLAB_ACR_H
#define LOCKLAB_ACR_H
#include "mcs.h"
LL_API_BEGIN

/* 16 bytes, all zeros = free: fits inside a pthread_mutex_t (the interposer's inline mode). */
typedef struct ll_acr_lock {
    ll_atomic_u32 locked; /* 1 held, 0 free */
    ll_atomic_u32 state;  /* SLEEPING, IMPATIENT, GRANTED, DAMP, spinners, GEN (acr.c); the standby sleeps on it */
    ll_atomic_ptr tail;   /* the passive queue (MCS nodes, FIFO); its head is the standby */
} ll_acr_lock;
#define LL_ACR_INITIALIZER { LL_ATOMIC_INIT(0), LL_ATOMIC_INIT(0), LL_ATOMIC_INIT(NULL) }
enum { LL_ACR_SLEEPING = 1u };
/* The bits of state that say a thread waits (SLEEPING, IMPATIENT, GRANTED, the spinner count);
 * the others are the lock's memory (its spin damping, the fork generation).  acr.c has the table. */
#define LL_ACR_WAITER_BITS 0x0000ff07u

/* Tunables, shared by every lock of one configuration (they are not in the 16 bytes). */
typedef struct ll_acr_params {
    uint64_t spin_ns;      /* arrival spin budget; also the standby's spin before it sleeps */
    uint64_t patience_ns;  /* a sleeping standby bypassed this long is handed the lock */
    uint32_t max_spinners; /* arrivals that may spin at once; more join the passive queue */
} ll_acr_params;
/* About one futex wake-up here (Karlin et al.: spinning as long as blocking costs is
 * 2-competitive); the lock damps it where spinning fails (acr.c, DAMP). */
#define LL_ACR_DEFAULT_SPIN_NS 20000u
/* Long against a wake-up (tens of us), so direct handoffs to a sleeping standby (a wake-up
 * inside the critical path, which under oversubscription can wait for a CPU) stay rare;
 * 1 ms cost 0.66x glibc on sysbench threads, 10 ms 0.9x (docs/performance.md). */
#define LL_ACR_DEFAULT_PATIENCE_NS 10000000u
/* spinners = 0: the CPUs this process may use minus one (the holder's), at least 1. */
void ll_acr_params_init(ll_acr_params *p, uint64_t spin_ns, uint64_t patience_ns, uint32_t spinners);

void ll_acr_init(ll_acr_lock *l);
void ll_acr_acquire_slow(ll_acr_lock *l, const ll_acr_params *p);
/* Timed acquire: false if ll_now_ns() reached deadline_ns first (the waiter leaves the
 * spinners, the passive queue or the standby role without a trace). */
bool ll_acr_acquire_until(ll_acr_lock *l, const ll_acr_params *p, uint64_t deadline_ns);
void ll_acr_release_slow(ll_acr_lock *l, uint32_t state);

LL_INLINE bool ll_acr_try_acquire(ll_acr_lock *l)
{
    uint32_t free_ = 0;
    /* acquire: pairs with the releasing store-release of locked (ll_acr_release, release_slow) */
    return ll_load_relaxed(&l->locked) == 0 && ll_cas(&l->locked, &free_, 1, LL_ACQUIRE);
}

LL_INLINE void ll_acr_acquire(ll_acr_lock *l, const ll_acr_params *p)
{
    uint32_t free_ = 0;
    if (LL_UNLIKELY(!ll_cas(&l->locked, &free_, 1, LL_ACQUIRE))) /* acquire: pairs with the releasing store */
        ll_acr_acquire_slow(l, p);
}

/* One load and one store: the standby's announcement is read before the lock is
 * freed, so nothing of the lock is touched after the store (it may be destroyed). */
LL_INLINE void ll_acr_release(ll_acr_lock *l)
{
    /* relaxed: the store-release below keeps this load before it; a standby that
     * announces after this load is covered by its timed sleep (acr.c) */
    uint32_t s = ll_load_relaxed(&l->state);
    if (LL_UNLIKELY(s & LL_ACR_SLEEPING))
        ll_acr_release_slow(l, s);
    else
        ll_store_release(&l->locked, 0); /* release: publishes the critical section to the next acquiring CAS */
}

LL_INLINE bool ll_acr_is_locked(ll_acr_lock *l)
{
    return ll_load_relaxed(&l->locked) != 0; /* relaxed: a snapshot */
}

LL_API_END
#endif
