/*
 * The entry points pthread_mutex_{lock,trylock,timedlock,clocklock,unlock} (and C11's mtx_*
 * through the _at forms, c11.c) over the lock chosen by LOCKLAB_LOCK, and the two fast paths
 * of a normal mutex that are compiled into them:
 *
 *   - the inline word path (lp_fast LP_FAST_ACR, _WORD, _PARKINGLOT, _STANDBY: config.h, "the
 *     inline word contract"): one CAS to lock, one load and one store to unlock, the lock's
 *     own slow path only when the CAS fails or the waiter word says so;
 *   - the direct path (LP_FAST_OPS, LP_FAST_OPS_INLINE, below): the lock's own verbs through
 *     its registry entry, after one test for everything the general path must see.
 *
 * Everything else (other mutex types, profiling, a thread's first call, a fork in the
 * process's history, misuse, the timed calls) goes out of line to the general path,
 * mutex_general.c.  The files of the mutex and what each does: mutex_internal.h; the
 * mutex's layout over glibc's: mutex.h; what the paths cost: docs/interposer.md, "Cost of
 * the uncontended pair".  Paper context: the Malthusian paper ran all its application
 * experiments by interposing these functions (§6.10, §6.11).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "locklab/parkinglot.h"
#include "mutex_internal.h"

__thread uint64_t lp_self_tid __attribute__((tls_model("initial-exec")));
__thread uint64_t lp_direct_tid __attribute__((tls_model("initial-exec")));
static ll_atomic_u64 last_tid;

uint64_t lp_self_id_assign(void)
{
    lp_self_tid = ll_faa(&last_tid, 1, LL_RELAXED) + 1; /* relaxed: only uniqueness matters (the RMW gives it) */
    return lp_self_tid;
}

/* ---- the inline word path ------------------------------------------------------------ */

_Static_assert(offsetof(ll_acr_lock, locked) == 0 && offsetof(ll_acr_lock, state) == 4 && LL_ACR_SLEEPING == 1u,
               "acr keeps the inline word contract (config.h)");
_Static_assert(offsetof(ll_parkinglot_lock, locked) == 0 && offsetof(ll_parkinglot_lock, parked) == 4,
               "parkinglot keeps the inline word contract (config.h)");
_Static_assert(offsetof(ll_standby_lock, locked) == 0 && offsetof(ll_standby_lock, state) == 4 && LL_STANDBY_ACT == 1u,
               "standby keeps the inline word contract (config.h)");
LL_INLINE ll_parkinglot_lock *parkinglot_of(lp_mutex *m) { return (ll_parkinglot_lock *)(void *)m->lock.state; }

/* The inline fast path's CAS failed: the lock's own acquire, then the owner. */
static LL_COLD int lock_inline_contended(lp_mutex *m, uint32_t fast)
{
    if (LL_UNLIKELY(lp_mutex_held_by_me(m))) { /* a relock (mutex_misuse.c): wait outside the lock */
        lp_mutex_relock_wait(m, CLOCK_MONOTONIC, NULL);
        if (word_try_acquire(m))
            goto held;
    }
    if (fast == LP_FAST_STANDBY) {
        ll_standby_acquire_slow(standby_of(m));
    } else if (fast == LP_FAST_PARKINGLOT) {
        ll_parkinglot_acquire_slow(parkinglot_of(m));
    } else if (fast == LP_FAST_ACR) {
        ll_acr_acquire_slow(acr_of(m), &lp_cfg.acr);
    } else {
        lp_note_spinning_thread();
        lp_cfg.ops->acquire(m->lock.state, &lp_cfg.wp);
    }
held:
    ll_store_release(&m->owner, lp_self_id()); /* release: pairs with lp_owner_claim's acquire (mutex.h) */
    return 0;
}

/* A fast-path acquisition found bit 2 of the waiter word set (config.h): for standby, waiters
 * are parked, and this acquisition counts towards the end of the thread's turn (standby.h,
 * ll_standby_turn_ends); the one that ends it requeues: the thread releases the lock, parks at
 * the back of its waiters (once the eldest has waited LL_STANDBY_TURN_WAIT_NS; else it competes
 * again at once), and acquires it again when woken. */
static LL_COLD void lock_inline_parked(lp_mutex *m, uint32_t fast)
{
    if (fast == LP_FAST_STANDBY && ll_standby_turn_tick(standby_of(m)))
        ll_standby_requeue(standby_of(m));
}

/* The inline fast path's release found work: deferred wake-ups, or a waiter word saying the lock's
 * own release must run (it re-reads the word: a waiter may have left meanwhile). */
static LL_COLD int unlock_inline_contended(lp_mutex *m, uint32_t fast)
{
    if (m->deferred.head != NULL) /* holder-only field */
        lp_mutex_release_and_flush(m);
    else if (fast == LP_FAST_STANDBY)
        ll_standby_release(standby_of(m), &lp_cfg.wp);
    else if (fast == LP_FAST_PARKINGLOT)
        ll_parkinglot_release(parkinglot_of(m), &lp_cfg.wp);
    else if (fast == LP_FAST_ACR)
        ll_acr_release(acr_of(m));
    else
        ll_store_release(word_of(m), 0); /* release: the critical section; pairs with the acquiring CAS/xchg */
    return 0;
}

/* ---- the direct path (LP_FAST_OPS, LP_FAST_OPS_INLINE) --------------------------------------
 * A lock with no inline word (every lock but the inline kinds of config.h), not profiled: the
 * entry points call its verbs straight (lp_cfg.direct_acquire, direct_release), after the one
 * test that covers what the general path checks and can be true here: a thread that has not
 * yet blocked in a lock on the general path (no lp_direct_tid: that path sets it, after the
 * head count of a lock that never parks has seen the thread), any fork in the process's
 * history (the fork repair's checks need the generation), a relock (the owner word is ours),
 * deferred wake-ups at unlock, a mutex with no object yet, a copy of another mutex, the
 * out-of-memory fallback.
 * Each of those, and an unlock by a thread that does not hold the mutex, goes to the general
 * path, which decides as before.  The configuration (lock placement, kind, census) was settled
 * when lp_fast became LP_FAST_OPS or LP_FAST_OPS_INLINE, which says where the state lives. */
/* The configured lock's state and waiting policy, as lock_of finds them, or false when the
 * mutex has no object yet, runs on the out-of-memory fallback or (if lock) is a copy (the
 * general path's cases).  An unlock skips the copy check: its mutex's lock got its own
 * object at the lock that this unlock ends.  inline_state: lp_fast is LP_FAST_OPS_INLINE. */
LL_INLINE bool direct_state(lp_mutex *m, bool inline_state, void **state, ll_wait_policy **wp, bool lock)
{
    if (inline_state) {
        *state = m->lock.state;
        *wp = &lp_cfg.wp;
        return true;
    }
    void *obj = ll_load_acquire(&m->lock.obj); /* acquire: pairs with lp_slab_install's release; initialised */
    if (LL_UNLIKELY((uintptr_t)obj <= LP_OBJ_FALLBACK) || (lock && LL_UNLIKELY(copied(m, obj))))
        return false;
    *state = obj;
    *wp = &lp_hdr(obj)->wp;
    return true;
}

/* A process that never forked (and is not forking now): the direct path's condition, read
 * without ll_fork_generation_now's call (a call would keep the arguments in saved registers). */
LL_INLINE bool never_forked(void)
{
    return ll_load_relaxed(&ll_fork_generation) == 0; /* relaxed: changes only around a fork */
}

/* pthread_mutex_lock on the direct path; fast: LP_FAST_OPS or LP_FAST_OPS_INLINE. */
static __attribute__((noinline)) LL_HOT int lock_direct(pthread_mutex_t *pm, void *pc, bool c11, uint32_t fast)
{
    lp_mutex *m = (lp_mutex *)pm;
    uint64_t id = lp_direct_tid; /* lp_self_tid, once the general path has seen this thread lock */
    uint64_t owner = ll_load_relaxed(&m->owner); /* relaxed: only this thread ever stores its own id */
    if (LL_UNLIKELY(id == 0 || !never_forked() || ((owner ^ id) & LP_OWNER_ID_MASK) == 0))
        return lp_mutex_lock_general(pm, pc, c11);
    void *state;
    ll_wait_policy *wp;
    if (!direct_state(m, fast == LP_FAST_OPS_INLINE, &state, &wp, true))
        return lp_mutex_lock_general(pm, pc, c11); /* it installs the object (first lock, a copy) */
    return lp_cfg.direct_acquire(state, wp, &m->owner, id); /* generation 0 in the owner word */
}

/* The direct path's unlock (above). */
static __attribute__((noinline)) LL_HOT int unlock_direct(pthread_mutex_t *pm, void *pc, bool c11, uint32_t fast)
{
    lp_mutex *m = (lp_mutex *)pm;
    uint64_t id = lp_self_tid;
    /* relaxed: only this thread ever stores its own id; deferred is a holder-only field */
    if (LL_UNLIKELY(id == 0 || !never_forked() || ll_load_relaxed(&m->owner) != id || m->deferred.head != NULL))
        return lp_mutex_unlock_general(pm, pc, c11);
    void *state;
    ll_wait_policy *wp;
    if (!direct_state(m, fast == LP_FAST_OPS_INLINE, &state, &wp, false))
        return lp_mutex_unlock_general(pm, pc, c11); /* the out-of-memory fallback */
    ll_store_relaxed(&m->owner, 0); /* relaxed: the lock's release orders it before the next owner's store */
    return lp_cfg.direct_release(state, wp);
}

/* ---- the entry points ------------------------------------------------------------------ */

/* The application's return address for the profile: C11's, passed on by c11.c (c11_pc), or
 * that of the pthread entry point this is inlined into, read only on the paths that use it
 * (an argument read at entry would cost the fast path a load). */
#define CALLER_PC() (c11 ? c11_pc : __builtin_return_address(0))

/* The first step of pthread_mutex_lock and _unlock once fast is read: their GENERAL path for
 * LP_FAST_NONE, their DIRECT one for LP_FAST_OPS and LP_FAST_OPS_INLINE; past it, the inline
 * word locks' path. */
#define RETURN_UNLESS_INLINE(GENERAL, DIRECT)                   \
    do {                                                        \
        if (LL_UNLIKELY(fast == LP_FAST_NONE))                  \
            return GENERAL(pm, CALLER_PC(), c11);               \
        if (fast >= LP_FAST_OPS)                                \
            return DIRECT(pm, CALLER_PC(), c11, fast);          \
    } while (0)

/* pthread_mutex_lock's body; c11: called by mtx_lock (c11.c), which is not a pthread mutex use
 * for LOCKLAB_VERBOSE's census (config.h, lp_seen). */
LL_INLINE int mutex_lock(pthread_mutex_t *pm, void *c11_pc, bool c11)
{
    lp_mutex *m = (lp_mutex *)pm;
    uint32_t fast = fast_path(m);
    RETURN_UNLESS_INLINE(lp_mutex_lock_general, lock_direct);
    ll_rmw_lead(word_of(m)); /* the CAS may follow the last unlock's RMW-free release: atomics.h */
    if (LL_UNLIKELY(!word_try_acquire(m)))
        return lock_inline_contended(m, fast);
    if (LL_UNLIKELY(ll_load_relaxed(waiter_word_of(m)) & LL_STANDBY_PARKED)) /* relaxed: a hint */
        lock_inline_parked(m, fast);
    ll_store_release(&m->owner, lp_self_id()); /* release: pairs with lp_owner_claim's acquire (mutex.h) */
    return 0;
}

LL_HOT int pthread_mutex_lock(pthread_mutex_t *pm) { return mutex_lock(pm, NULL, false); }
int lp_mutex_lock_at(pthread_mutex_t *pm, void *pc) { return mutex_lock(pm, pc, true); }

LL_INLINE int mutex_trylock(pthread_mutex_t *pm, void *c11_pc, bool c11)
{
    lp_mutex *m = (lp_mutex *)pm;
    uint32_t fast = fast_path(m);
    if (fast >= LP_FAST_OPS && LL_LIKELY(never_forked())) { /* the direct path (above) */
        void *state;
        ll_wait_policy *wp;
        if (!direct_state(m, fast == LP_FAST_OPS_INLINE, &state, &wp, true))
            goto general; /* no object yet, a copy, the fallback */
        if (!lp_cfg.ops->try_acquire(state, wp))
            return EBUSY;
        ll_store_release(&m->owner, lp_self_id()); /* release: pairs with lp_owner_claim's acquire (mutex.h) */
        return 0;
    }
    if (LL_LIKELY(fast != LP_FAST_NONE && fast < LP_FAST_OPS)) {
        /* the inline word contract's try, as acr's and parkinglot's own: relaxed: a held word
         * fails without taking its line; the CAS validates a free one */
        if (ll_load_relaxed(word_of(m)) != 0 || !word_try_acquire(m))
            return EBUSY;
        ll_store_release(&m->owner, lp_self_id()); /* release: pairs with lp_owner_claim's acquire (mutex.h) */
        return 0;
    }
general:
    if (LL_UNLIKELY(!lp_ensure_init()))
        return 0; /* called while configuring: exclusive without the lock (config.h) */
    census(c11);
    if (LL_LIKELY(fast_kind(m))) {
        if (!lock_try_acquire(m, CALLER_PC()))
            return EBUSY;
        ll_store_release(&m->owner, lp_owner_tag()); /* release: pairs with lp_owner_claim's acquire (mutex.h) */
        return 0;
    }
    return lp_mutex_lock_slow(pm, CALLER_PC(), TRY, CLOCK_REALTIME, NULL);
}
int pthread_mutex_trylock(pthread_mutex_t *pm) { return mutex_trylock(pm, NULL, false); }
int lp_mutex_trylock_at(pthread_mutex_t *pm, void *pc) { return mutex_trylock(pm, pc, true); }

LL_INLINE int mutex_unlock(pthread_mutex_t *pm, void *c11_pc, bool c11)
{
    lp_mutex *m = (lp_mutex *)pm;
    uint32_t fast = fast_path(m);
    RETURN_UNLESS_INLINE(lp_mutex_unlock_general, unlock_direct);
    ll_store_relaxed(&m->owner, 0); /* relaxed: the lock's release orders it before the next owner's store */
    /* relaxed: the waiter word as each inline lock's own release reads it (acr.h, two_word.h:
     * a waiter that announces after this load is found by its timed sleep) */
    if (LL_UNLIKELY((m->deferred.head != NULL) | (ll_load_relaxed(waiter_word_of(m)) & 1u)))
        return unlock_inline_contended(m, fast);
    ll_store_release(word_of(m), 0); /* release: the critical section; pairs with the acquiring CAS */
    return 0;
}
LL_HOT int pthread_mutex_unlock(pthread_mutex_t *pm) { return mutex_unlock(pm, NULL, false); }
int lp_mutex_unlock_at(pthread_mutex_t *pm, void *pc) { return mutex_unlock(pm, pc, true); }

/* The timed calls: no fast path (mutex_timed.c). */
static int clocklock(pthread_mutex_t *pm, void *pc, clockid_t clock, const struct timespec *abstime, bool c11)
{
    if (LL_UNLIKELY(!lp_ensure_init()))
        return 0; /* called while configuring: exclusive without the lock (config.h) */
    census(c11);
    if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC)
        return EINVAL;
    return lp_mutex_lock_slow(pm, pc, TIMED, clock, abstime);
}

int pthread_mutex_clocklock(pthread_mutex_t *pm, clockid_t clock, const struct timespec *abstime)
{
    return clocklock(pm, __builtin_return_address(0), clock, abstime, false);
}

int pthread_mutex_timedlock(pthread_mutex_t *pm, const struct timespec *abstime)
{
    return clocklock(pm, __builtin_return_address(0), CLOCK_REALTIME, abstime, false);
}
int lp_mutex_timedlock_at(pthread_mutex_t *pm, const struct timespec *abstime, void *pc)
{
    return clocklock(pm, pc, CLOCK_REALTIME, abstime, true);
}

/* The historic aliases glibc still exports (GLIBC_2.2.5); old binaries may call them (init and
 * destroy: mutex_object.c). */
int __pthread_mutex_lock(pthread_mutex_t *) __attribute__((alias("pthread_mutex_lock"), copy(pthread_mutex_lock)));
int __pthread_mutex_trylock(pthread_mutex_t *) __attribute__((alias("pthread_mutex_trylock"), copy(pthread_mutex_trylock)));
int __pthread_mutex_unlock(pthread_mutex_t *) __attribute__((alias("pthread_mutex_unlock"), copy(pthread_mutex_unlock)));
