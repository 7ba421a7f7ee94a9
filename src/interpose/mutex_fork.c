/*
 * fork and the pthread mutex.
 *
 * In a fork child only the forking thread is left.  A mutex it held at the fork
 * may have had parent threads waiting in its lock (a ticket taken, a queue node
 * linked, a passive set, a per-socket lock): an ordinary unlock would hand the
 * lock to one of them and the child would hang.  The owner word tells which
 * mutexes were held at a fork (its generation, mutex.h).  Under a lock that
 * records waiters (lp_cfg.fork_repair: every lock without LL_CAP_FORK_SAFE; acr,
 * the word locks, parkinglot and standby repair themselves, registry.h):
 *   - the unlock of such a mutex re-initialises its lock to free (inline: zeros,
 *     the free state of every inline lock; out-of-line: placed again in its
 *     object), and only then clears the owner word (release);
 *   - every acquisition first waits while the mutex is held from before the
 *     fork (only that unlock ends it), so no child thread joins the parent's
 *     waiters in the old state; a trylock answers EBUSY, a timed lock waits
 *     until its deadline.
 * Left behind per mutex held across a fork: the holder's queue node and what
 * the lock's init allocated (CLH's node, Anderson's slots, HMCS's records).  A
 * mutex another thread held (or was being handed) at the fork stays taken in
 * the child, as glibc's does.  In a process that never forked, this costs a
 * load of ll_fork_generation on the paths that are not inline fast paths (the
 * direct path tests it once: mutex.c, never_forked).  The test for a lock held
 * across a fork, lp_held_across_fork: mutex.h; out-of-line spinlocks keep an owner
 * word too and use it and the wait below (spin.c).
 */
#define _GNU_SOURCE
#include <string.h>
#include <time.h>

#include "mutex_internal.h"

/* Wait, polling, until the lock of owner is no longer held from before the fork: only its
 * holder's unlock ends that.  Mutexes and out-of-line spinlocks (spin.c). */
LL_COLD bool lp_await_fork_holder(ll_atomic_u64 *owner, const bool *repair, clockid_t clock, const struct timespec *abstime)
{
    uint64_t nap_ns = 1000, spin_until = ll_now_ns() + LP_DEFAULT_SPIN_NS;
    while (lp_held_across_fork(owner, repair)) {
        struct timespec now;
        if (abstime && (clock_gettime(clock, &now), !before(&now, abstime)))
            return false;
        lp_spin_or_nap(&nap_ns, spin_until, abstime ? ns_between(&now, abstime) : UINT64_MAX);
    }
    return true;
}

/* The unlock of a mutex held from before the fork (the owner word still says so). */
LL_COLD void lp_mutex_release_across_fork(lp_mutex *m)
{
    ll_wake_list deferred = m->deferred;
    m->deferred.head = NULL;
    lock_ref r = lock_of(m, NULL);
    if (r.prof)
        lp_profile_releasing(r.prof);
    if (lp_cfg.inline_state)
        memset(m->lock.state, 0, sizeof m->lock.state); /* no thread reads it until the store below */
    else if (r.ops != lp_cfg.ops)
        memset(r.state, 0, sizeof(ll_standby_lock)); /* the fallback (mutex_object.c): free */
    else
        (void)lp_mutex_place_lock(r.state); /* hmcs, anderson out of memory in the child: not handled */
    ll_store_release(&m->owner, 0); /* release: the re-initialised lock; pairs with held_across_fork's acquire */
    ll_wake_list_flush(&deferred);
}
