/*
 * pthread, pthread-adaptive — glibc's pthread_mutex_t, the baselines: the
 * default type (PTHREAD_MUTEX_NORMAL) and PTHREAD_MUTEX_ADAPTIVE_NP.  One
 * file for both: it is one algorithm (glibc's lowlevellock), the type only
 * decides whether a contended lock spins before it sleeps.
 *
 * Lock word (glibc lowlevellock): 0 = free, 1 = held, 2 = held with possible
 * sleepers; unlock wakes one sleeper with a futex only in state 2.
 *   pthread           a contended acquirer sleeps at once (futex wait on 2).
 *   pthread-adaptive  a contended acquirer first retries the CAS (a read loop
 *                     with PAUSE) up to min(glibc.pthread.mutex_spin_count
 *                     tunable, default 100, twice the mutex's running average
 *                     + 10) times, then sleeps as above; the average (__spins,
 *                     in the mutex) moves 1/8 of the way towards each wait's
 *                     spin count.  Source: glibc nptl/pthread_mutex_lock.c
 *                     (the PTHREAD_MUTEX_ADAPTIVE_NP case), glibc manual,
 *                     "Tunables" (glibc.pthread.mutex_spin_count).
 * Fairness: none — competitive succession (barging); a woken thread competes
 * with arrivals and may lose repeatedly.  (The adaptive spin makes barging by
 * running threads more likely, not less.)
 * Footprint: 40 bytes per lock (x86-64), nothing per waiting thread (the
 * kernel's futex queue holds sleepers).  Policies: their own (registered as
 * spin; locklab's policies do not apply: glibc decides how to wait).
 * The pthread_mutex_* calls below are glibc's in the library, glibc's through the
 * interposer's wrappers in liblocklab-preload.so, and a model of glibc's algorithm in
 * locklab-sim: platform_mutex.h says how each build renames them.
 */
#include "platform_mutex.h" /* <pthread.h>; in the interposer and the simulator, renames */

#include "locklab/registry.h"

LL_INIT_ADAPTER(pthread_mutex_init((pthread_mutex_t *)s, NULL))
static void destroy(void *s) { pthread_mutex_destroy((pthread_mutex_t *)s); }
static void acquire(void *s, ll_wait_policy *wp) { (void)wp; LL_PLATFORM_MUTEX_LOCK_INITED((pthread_mutex_t *)s); }
static bool try_acquire(void *s, ll_wait_policy *wp) { (void)wp; return pthread_mutex_trylock((pthread_mutex_t *)s) == 0; }
static void release(void *s, ll_wait_policy *wp) { (void)wp; LL_PLATFORM_MUTEX_UNLOCK_INITED((pthread_mutex_t *)s); }
/* Timed: glibc's own (its futex waiters are woken as any).  pthread_mutex_timedlock (on
 * CLOCK_REALTIME), not clocklock: sanitizers know only the former. */
static bool acquire_until(void *s, ll_wait_policy *wp, uint64_t deadline_ns)
{
    (void)wp;
    struct timespec until = ll_platform_realtime_of(deadline_ns);
    return pthread_mutex_timedlock((pthread_mutex_t *)s, &until) == 0;
}

/* The direct verbs (registry.h): glibc's lock then the owner store; glibc's unlock, a tail
 * call whose result is 0 (the interposer's unlock takes this path only for the holder). */
static LL_HOT int direct_acquire(void *s, ll_wait_policy *wp, ll_atomic_u64 *owner, uint64_t id)
{
    (void)wp;
    LL_PLATFORM_MUTEX_LOCK_INITED((pthread_mutex_t *)s);
    ll_store_release(owner, id); /* release: pairs with lp_owner_claim (registry.h, the direct verbs) */
    return 0;
}
static LL_HOT int direct_release(void *s, ll_wait_policy *wp)
{
    (void)wp;
    return LL_PLATFORM_MUTEX_UNLOCK_INITED((pthread_mutex_t *)s);
}

const ll_lock_ops ll_lock_pthread = {
    .name = "pthread", .source = "glibc (baseline)",
    .summary = "glibc pthread_mutex_t, futex-based, barging",
    .fairness = "none (barging)", .policies = LL_SPIN_ONLY, .caps = LL_CAP_PARKS_ITSELF,
    LL_OPS_STATE_IS(pthread_mutex_t), .init = init, .destroy = destroy, LL_OPS_VERBS,
};

/* The adaptive type: only the initialisation differs. */
static int init_adaptive(void *s, const uint64_t *p, char *err, size_t errlen)
{
    (void)p, (void)err, (void)errlen;
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
    pthread_mutex_init((pthread_mutex_t *)s, &attr);
    pthread_mutexattr_destroy(&attr);
    return 0;
}

const ll_lock_ops ll_lock_pthread_adaptive = {
    .name = "pthread-adaptive", .source = "glibc PTHREAD_MUTEX_ADAPTIVE_NP (baseline)",
    .summary = "glibc pthread_mutex_t of the adaptive type: spins up to glibc.pthread.mutex_spin_count before "
        "the futex",
    .fairness = "none (barging)", .policies = LL_SPIN_ONLY, .caps = LL_CAP_PARKS_ITSELF,
    LL_OPS_STATE_IS(pthread_mutex_t), .init = init_adaptive, .destroy = destroy, LL_OPS_VERBS,
};
