/*
 * What the files of the interposer's pthread mutex share (private to them; the rest of the
 * interposer sees mutex.h, which also has the mutex's layout):
 *
 *   mutex.c          the entry points pthread_mutex_{lock,trylock,timedlock,clocklock,unlock}
 *                    (and C11's): the inline word fast path and the direct path, which
 *                    must be compiled with them
 *   mutex_general.c  the general path: every mutex type, glibc's (passthrough) mutexes,
 *                    the profiler's hooks, misuse by unlock, the condition variables' lock
 *                    and unlock (lp_mutex_iface)
 *   mutex_object.c   the lock behind a mutex: pthread_mutex_init and _destroy, the
 *                    out-of-line object installed at first use, a copied mutex given its
 *                    own, the out-of-memory fallback lock
 *   mutex_timed.c    timed acquisition (timedlock, clocklock) and the polling waits
 *   mutex_fork.c     a mutex held across a fork, repaired in the child
 *   mutex_misuse.c   a relocking holder waits outside the lock; misuse said once
 *
 * Everything a fast path or the direct path calls is here as LL_INLINE, so that it is
 * compiled into the entry points as it was when they were one file; every function that
 * crosses files is a slow path, LL_COLD.
 */
#ifndef LOCKLAB_INTERPOSE_MUTEX_INTERNAL_H
#define LOCKLAB_INTERPOSE_MUTEX_INTERNAL_H

#include <pthread.h>
#include <time.h>

#include "config.h"
#include "locklab/standby.h"
#include "mutex.h"
#include "profile.h"
#include "proftable.h"

/* "normal", "recursive", ... for the profile (mutex_general.c). */
const char *lp_mutex_type_name(int32_t kind);

/* ---- the lock behind a mutex (mutex_object.c) ---------------------------------------- */

typedef struct lock_ref {
    void *state;
    ll_wait_policy *wp;
    const ll_lock_ops *ops; /* lp_cfg.ops, or the out-of-memory fallback's */
    lp_profile *prof;       /* NULL unless profiling */
} lock_ref;

/* First use of a mutex in out-of-line mode: install its object, once (LP_OBJ_FALLBACK when
 * none can be allocated: slab.h). */
LL_COLD void *lp_mutex_install_object(lp_mutex *m, void *pc);
/* m is a copy of another mutex (copied, below): give it an object of its own. */
LL_COLD void *lp_mutex_rebind_copy(lp_mutex *m, void *obj, void *pc);
/* The out-of-memory fallback lock of m (standby, inline beside the slot). */
LL_COLD lock_ref lp_mutex_fallback_ref(lp_mutex *m);
/* Place the configured lock (state and waiting policy) in an out-of-line object again;
 * false out of memory (a lock whose init allocates: hmcs, anderson). */
bool lp_mutex_place_lock(void *obj);

/* Is obj the object of m, or of the mutex m was copied from?  A mutex used and then copied
 * (a struct assignment, memcpy; undefined in POSIX, a separate mutex under glibc) carries
 * its original's object pointer: a thread holding the original would block the copy's
 * users, and lock both and deadlock on itself. */
LL_INLINE bool copied(lp_mutex *m, void *obj) { return lp_hdr(obj)->home != &m->lock.obj; }

/* The lock of m, its object installed (or a copy rebound) if it has none of its own yet. */
LL_INLINE lock_ref lock_of(lp_mutex *m, void *pc)
{
    lock_ref r;
    r.ops = lp_cfg.ops;
    if (lp_cfg.inline_state) {
        r.state = m->lock.state;
        r.wp = &lp_cfg.wp;
        r.prof = NULL;
        return r;
    }
    void *obj = ll_load_acquire(&m->lock.obj); /* acquire: pairs with lp_slab_install's release; initialised */
    if (LL_UNLIKELY((uintptr_t)obj <= LP_OBJ_FALLBACK) || LL_UNLIKELY(copied(m, obj))) { /* none yet, a copy, the fallback */
        if (obj == NULL)
            obj = lp_mutex_install_object(m, pc);
        else if (obj != (void *)LP_OBJ_FALLBACK)
            obj = lp_mutex_rebind_copy(m, obj, pc);
        if (obj == (void *)LP_OBJ_FALLBACK)
            return lp_mutex_fallback_ref(m);
    }
    lp_objhdr *h = lp_hdr(obj);
    r.state = obj;
    r.wp = &h->wp;
    r.prof = h->prof;
    return r;
}

/* The configured lock's verbs on a lock: acr's inline expert API when it is the
 * configured lock and lives inline (lp_cfg.acr_inline: no indirect call), else the registry's ops. */
LL_INLINE ll_acr_lock *acr_of(lp_mutex *m) { return (ll_acr_lock *)(void *)m->lock.state; }
LL_INLINE void ops_acquire(lock_ref r)
{
    if (lp_cfg.acr_inline)
        ll_acr_acquire((ll_acr_lock *)r.state, &lp_cfg.acr);
    else
        r.ops->acquire(r.state, r.wp);
}
LL_INLINE bool ops_try_acquire(lock_ref r)
{
    return lp_cfg.acr_inline ? ll_acr_try_acquire((ll_acr_lock *)r.state) : r.ops->try_acquire(r.state, r.wp);
}
LL_INLINE void ops_release(lock_ref r)
{
    if (lp_cfg.acr_inline)
        ll_acr_release((ll_acr_lock *)r.state);
    else
        r.ops->release(r.state, r.wp);
}

/* ---- the inline word contract (config.h; mutex.c asserts each inline lock keeps it) ---- */

LL_INLINE bool fast_kind(const lp_mutex *m) { return m->kind == PTHREAD_MUTEX_NORMAL || m->kind == PTHREAD_MUTEX_ADAPTIVE_NP; }

/* The entry points' test: the inlined fast path for a normal mutex (config.h, lp_fast), or
 * LP_FAST_NONE for every other kind or configuration. */
LL_INLINE uint32_t fast_path(const lp_mutex *m)
{
    uint32_t fast = ll_load_acquire(&lp_fast); /* acquire: pairs with the release store ending configure */
    return LL_LIKELY(m->kind == PTHREAD_MUTEX_NORMAL) ? fast : (uint32_t)LP_FAST_NONE;
}

/* The inline locks' two words: the lock word, 0 free and 1 held, and the waiter word, whose
 * bit 0 says a release must take the lock's own slow path. */
LL_INLINE ll_atomic_u32 *word_of(lp_mutex *m) { return (ll_atomic_u32 *)(void *)m->lock.state; }
LL_INLINE ll_atomic_u32 *waiter_word_of(lp_mutex *m) { return (ll_atomic_u32 *)(void *)(m->lock.state + 4); }
LL_INLINE ll_standby_lock *standby_of(lp_mutex *m) { return (ll_standby_lock *)(void *)m->lock.state; }
LL_INLINE bool word_try_acquire(lp_mutex *m)
{
    uint32_t free_ = 0;
    /* acquire: pairs with the store-release of the lock's release (inline or its own) */
    return ll_cas(word_of(m), &free_, 1, LL_ACQUIRE);
}

/* LOCKLAB_VERBOSE=1 (config.h, lp_seen): the first pthread mutex call (not C11's) past the
 * fast path marks pthread mutexes as used and opens the inline fast path (lp_fast_verbose). */
LL_INLINE void census(bool c11)
{
    if (LL_UNLIKELY(lp_cfg.verbose) && !c11 && !(ll_load_relaxed(&lp_seen) & LP_SEEN_MUTEX))
        lp_census_mutex();
}

/* ---- timed acquisition and polling waits (mutex_timed.c) ------------------------------ */

/* The timed lock of a normal or adaptive mutex: 0, ETIMEDOUT or EINVAL. */
int lp_mutex_lock_until(lp_mutex *m, void *pc, clockid_t clock, const struct timespec *abstime);

LL_INLINE bool before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}
LL_INLINE uint64_t ns_between(const struct timespec *from, const struct timespec *to)
{
    return (uint64_t)(to->tv_sec - from->tv_sec) * 1000000000u + (uint64_t)to->tv_nsec - (uint64_t)from->tv_nsec;
}
/* A polling wait's step: 64 PAUSEs until spin_until (ll_now_ns), then a sleep of *nap_ns (at
 * most left_ns), doubling *nap_ns up to 1 ms: a wait of a few microseconds does not pay a
 * sleep's timer slack (~50 us). */
void lp_spin_or_nap(uint64_t *nap_ns, uint64_t spin_until, uint64_t left_ns);

/* ---- fork (mutex_fork.c) --------------------------------------------------------------- */

/* In a fork child, under a lock that records waiters: is m held from before the fork? */
LL_INLINE bool held_across_fork(lp_mutex *m) { return lp_held_across_fork(&m->owner, &lp_cfg.fork_repair); }

/* The unlock of a mutex held from before the fork (the owner word still says so). */
LL_COLD void lp_mutex_release_across_fork(lp_mutex *m);

/* ---- misuse (mutex_misuse.c) ----------------------------------------------------------- */

/* Relocking thread: true once another thread unlocked m, false at abstime (NULL: never). */
LL_COLD bool lp_mutex_relock_wait(lp_mutex *m, clockid_t clock, const struct timespec *abstime);

/* ---- the general path (mutex_general.c) ------------------------------------------------ */

enum how { BLOCK, TRY, TIMED };

/* pthread_mutex_lock and _unlock past the fast paths (c11: called by C11's mtx_*, not
 * counted by LOCKLAB_VERBOSE's census).  Out of line: then the fast paths need no
 * stack frame. */
LL_COLD int lp_mutex_lock_general(pthread_mutex_t *pm, void *pc, bool c11);
LL_COLD int lp_mutex_unlock_general(pthread_mutex_t *pm, void *pc, bool c11);
/* Every lock operation of a mutex that is not normal or adaptive (and the timed ones). */
LL_COLD int lp_mutex_lock_slow(pthread_mutex_t *pm, void *pc, enum how how, clockid_t clock,
                               const struct timespec *abstime);
/* Release, then deliver the wake-ups condition variable signals deferred to this unlock. */
LL_COLD void lp_mutex_release_and_flush(lp_mutex *m);

/* A call on one of glibc's (passthrough) mutexes, for the profile. */
LL_INLINE void count_passthrough(pthread_mutex_t *pm, void *pc)
{
    if (LL_UNLIKELY(lp_profiling)) {
        lp_profile *p = lp_proftable_get(pm, "mutex", lp_mutex_type_name(((lp_mutex *)pm)->kind), true, pc);
        if (p)
            lp_profile_passthrough_op(p);
    }
}

/* One try of m's lock, for trylock past the fast paths (mutex.c) and the general path:
 * counted by the profiler, and failing while m is held from before a fork. */
LL_INLINE bool lock_try_acquire(lp_mutex *m, void *pc)
{
    lock_ref r = lock_of(m, pc);
    bool ok = !held_across_fork(m) && ops_try_acquire(r);
    if (LL_UNLIKELY(r.prof != NULL)) {
        if (ok)
            lp_profile_acquired(r.prof, false, 0);
        else
            lp_profile_trylock_failed(r.prof);
    }
    return ok;
}

#endif
