/* standby: a two-word barging lock with one spinning waiter (the standby) and the other
 * waiters parked in an address-hashed table, after a spin of up to 10 us on more than two CPUs
 * where that measurably runs the lock faster (src/locks/standby.c).  The interposer's
 * default.  Expert API, the verbs every lock has (LL_LOCK_VERBS; wp is unused: the lock does
 * its own waiting): the fast paths inline, the slow paths out of line. */
#ifndef LOCKLAB_STANDBY_H
#define LOCKLAB_STANDBY_H
#include "two_word.h"
#include "wait.h"
LL_API_BEGIN
/* 8 bytes, all zeros = free; nothing else per lock.  locked: 1 held, 0 free.  state: the
 * waiters' bits (standby.c); bit 0 (LL_STANDBY_ACT) set = a release must run
 * ll_standby_release_slow. */
typedef struct ll_standby_lock {
    ll_atomic_u32 locked;
    ll_atomic_u32 state;
} ll_standby_lock;
#define LL_STANDBY_INITIALIZER { LL_ATOMIC_INIT(0), LL_ATOMIC_INIT(0) }
#define LL_STANDBY_ACT 1u
#define LL_STANDBY_PARKED 4u /* state: waiters may be parked (a hint) */

/* Tunables (standby.c says why each is what it is); each may be overridden at build time
 * (-DLL_STANDBY_ROTATE_NS=0 ...: docs/performance.md, "What each part buys"). */
#ifndef LL_STANDBY_ARRIVAL_ROUNDS
#define LL_STANDBY_ARRIVAL_ROUNDS 3u    /* an arrival's spin before it yields or parks: 2, 4, 8 PAUSEs */
#endif
#ifndef LL_STANDBY_ARRIVAL_YIELDS
#define LL_STANDBY_ARRIVAL_YIELDS 7u    /* then, on a small machine, it yields before it parks: up to this many yields, ... */
#endif
#ifndef LL_STANDBY_YIELD_IDLE_NS
#define LL_STANDBY_YIELD_IDLE_NS 20000u /* ... counting a yield back within this (its CPU had nothing else to run) as
                                         * 1/128 of one, for at most BUDGET_NS in all, ... */
#endif
#ifndef LL_STANDBY_YIELD_BUSY_NS
#define LL_STANDBY_YIELD_BUSY_NS 200000u /* ... parking after a yield this long (others wanted the CPU), ... */
#endif
#ifndef LL_STANDBY_YIELD_CPUS
#define LL_STANDBY_YIELD_CPUS 2u        /* ... where its affinity allows at most this many CPUs (0: never yields) */
#endif
#ifndef LL_STANDBY_PAUSE_NS
#define LL_STANDBY_PAUSE_NS 2000u       /* the standby PAUSEs this long, then yields between looks */
#endif
#ifndef LL_STANDBY_PATIENCE_NS
#define LL_STANDBY_PATIENCE_NS 100000u  /* then releases hand the standby the lock */
#endif
#ifndef LL_STANDBY_BUDGET_NS
#define LL_STANDBY_BUDGET_NS 200000u    /* then the standby gives the role up and parks (and a small machine's arrival
                                         * stops yielding) */
#endif
#ifndef LL_STANDBY_FAIR_NS
#define LL_STANDBY_FAIR_NS 4000000u     /* a waiter parked this long is handed the lock (bucket timer, mean this) */
#endif
#ifndef LL_STANDBY_ROTATE_NS
#define LL_STANDBY_ROTATE_NS 30000u     /* arrivals take the role from the parked for this long after a wake */
#endif
#ifndef LL_STANDBY_TENURE_NS
#define LL_STANDBY_TENURE_NS 100000u    /* a thread back from parking this long yields the role to the parked */
#endif
#ifndef LL_STANDBY_NUMA_NS
#define LL_STANDBY_NUMA_NS 2000000u     /* a parked waiter on another socket waits at most this long for the role */
#endif
#ifndef LL_STANDBY_TURN_OPS
#define LL_STANDBY_TURN_OPS 2000u       /* a thread's turn: then, if others are parked, it parks at the back (0: no turns) */
#endif
#ifndef LL_STANDBY_TURN_NS
#define LL_STANDBY_TURN_NS 1000000u     /* ... or a turn this long, whichever ends first (0: no time bound) */
#endif
#ifndef LL_STANDBY_TURN_WAIT_NS
#define LL_STANDBY_TURN_WAIT_NS 10000000u /* ... it parks, if the eldest parked waiter has waited this long (else a new
                                           * turn begins; 0: it always parks) */
#endif
#ifndef LL_STANDBY_WOKEN_YIELDS
#define LL_STANDBY_WOKEN_YIELDS 7u      /* ll_standby_acquire_woken: yielding rounds before the slow path */
#endif
#ifndef LL_STANDBY_RACE_NS
#define LL_STANDBY_RACE_NS 2000u        /* a parked waiter looks at the lock this long after announcing itself, ... */
#endif
#ifndef LL_STANDBY_NAP_NS
#define LL_STANDBY_NAP_NS 16000000u     /* ... then sleeps: its first nap (doubling to NAP_MAX_NS) */
#endif
#ifndef LL_STANDBY_NAP_MAX_NS
#define LL_STANDBY_NAP_MAX_NS 128000000u
#endif
#ifndef LL_STANDBY_NAP_LOOK
#define LL_STANDBY_NAP_LOOK 16u         /* PAUSEs between a nap's two looks at the lock (0: one look; a named standby keeps
                                         * every napper asleep).  About 0.05-0.7 us on x86; where PAUSE is shorter (aarch64's
                                         * yield) the two looks come closer together */
#endif
#ifndef LL_STANDBY_WIDE_NS
#define LL_STANDBY_WIDE_NS 10000u       /* wide waiting: an arrival spins on the lock this long before it parks (0: never) */
#endif
#ifndef LL_STANDBY_CAS_POLL
#define LL_STANDBY_CAS_POLL 1u          /* the standby polls the lock by bare CAS (0: a load, then a CAS) */
#endif
#ifndef LL_STANDBY_EPOCH_NS
#define LL_STANDBY_EPOCH_NS 1000000u    /* the waiting mode controller measures the lock's rate over epochs this long */
#endif

/* init: as LL_STANDBY_INITIALIZER (relaxed: like pthread_mutex_init, publish the lock yourself). */
LL_INLINE void ll_standby_init(ll_standby_lock *l)
{
    ll_store_relaxed(&l->locked, 0);
    ll_store_relaxed(&l->state, 0);
}
void ll_standby_acquire_slow(ll_standby_lock *l);
/* Timed acquire: true if we own the lock, false if deadline_ns (ll_now_ns clock) passed first. */
bool ll_standby_acquire_until(ll_standby_lock *l, uint64_t deadline_ns);
/* The slow path without the small machines' yields (standby.c, "Small machines"): arrivals
 * park after their short spin on any machine, so none takes the lock ahead of the parked
 * waiters by yielding.  For waiters whose order matters more than their CPU: rw_gate's,
 * which wait in a standby lock for a writer.  deadline_ns: LL_NO_DEADLINE, or as above. */
bool ll_standby_acquire_ordered_until(ll_standby_lock *l, uint64_t deadline_ns);
void ll_standby_release_slow(ll_standby_lock *l);
bool ll_standby_try_acquire(ll_standby_lock *l);
/* Acquire for a thread just woken from a condition variable (the interposer's relock after
 * pthread_cond_wait): one of a herd, or signalled by a holder about to unlock, so it first
 * tries the lock between up to LL_STANDBY_WOKEN_YIELDS yields (parkinglot's SpinWait)
 * before the ordinary slow path would park it after a short spin: each woken thread would otherwise
 * cost a second wake-up (standby.c, "Condition variables"). */
void ll_standby_acquire_woken(ll_standby_lock *l);
/* The caller holds l and its turn is over (ll_standby_turn_ends): release l, swap places with
 * the eldest waiter parked on it if that one has waited LL_STANDBY_TURN_WAIT_NS (standby.c,
 * "Turns"), then acquire l again. */
void ll_standby_requeue(ll_standby_lock *l);
/* The same for a lock taken by ll_standby_acquire_ordered: acquire again by its slow path. */
void ll_standby_requeue_ordered(ll_standby_lock *l);

/* The calling thread's turn since it last parked on a standby lock (the slow path restarts
 * it): the acquisitions it made by the fast path while others were parked, and the time it
 * spent making them (standby.c, "Turns"). */
typedef struct ll_standby_turn_count {
    uint32_t acquisitions;
    uint32_t counted; /* acquisitions of counted_for not yet added to its waiting mode controller's count */
    uint64_t used_ns; /* the turn's time so far */
    uint64_t seen_ns; /* ll_now_ns at the turn's last look at the clock; 0: none yet */
    ll_standby_lock *counted_for; /* (standby.c, "Wide waiting"; only its address is used: it may be gone) */
} ll_standby_turn_count;
LL_THREAD_ELEMENT_EXTERN(ll_standby_turn_count, ll_standby_turn)
/* The acquisitions of a lock made while others wait are counted per thread for the lock's
 * waiting mode controller (standby.c, "Wide waiting"), and added to it LL_STANDBY_CTL_FLUSH or
 * more at a time when the thread next waits, or inside the critical section once
 * LL_STANDBY_CTL_FORCE have gathered. */
#ifndef LL_STANDBY_CTL_FLUSH
#define LL_STANDBY_CTL_FLUSH 16u
#endif
#ifndef LL_STANDBY_CTL_FORCE
#define LL_STANDBY_CTL_FORCE 1024u
#endif
/* Count one fast-path acquisition of l made while others were parked, for its turn and its
 * controller: true when it ends the caller's turn.  Out of line: the fast path that does not
 * reach it keeps its registers free. */
bool ll_standby_turn_tick(ll_standby_lock *l);
/* After a fast-path acquisition of l: true when it ends the caller's turn (then ll_standby_requeue). */
LL_INLINE bool ll_standby_turn_ends(ll_standby_lock *l)
{
    /* relaxed: a hint */
    return LL_UNLIKELY(ll_load_relaxed(&l->state) & LL_STANDBY_PARKED) && ll_standby_turn_tick(l);
}

LL_INLINE void ll_standby_acquire(ll_standby_lock *l, ll_wait_policy *wp)
{
    (void)wp; /* its own waiting (standby.c) */
    if (LL_UNLIKELY(!ll_two_word_lock_fast(&l->locked)))
        ll_standby_acquire_slow(l);
    else if (LL_UNLIKELY(ll_standby_turn_ends(l)))
        ll_standby_requeue(l);
}
/* As ll_standby_acquire, with the ordered slow path (above). */
LL_INLINE void ll_standby_acquire_ordered(ll_standby_lock *l)
{
    if (LL_UNLIKELY(!ll_two_word_lock_fast(&l->locked)))
        ll_standby_acquire_ordered_until(l, LL_NO_DEADLINE);
    else if (LL_UNLIKELY(ll_standby_turn_ends(l)))
        ll_standby_requeue_ordered(l);
}
LL_INLINE void ll_standby_release(ll_standby_lock *l, ll_wait_policy *wp)
{
    (void)wp;
    if (LL_UNLIKELY(!ll_two_word_unlock_fast(&l->locked, &l->state, LL_STANDBY_ACT)))
        ll_standby_release_slow(l);
}
LL_INLINE bool ll_standby_is_locked(ll_standby_lock *l) { return ll_two_word_is_locked(&l->locked); }
LL_API_END
#endif
