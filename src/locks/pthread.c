/*
 * pthread — glibc's pthread_mutex_t (PTHREAD_MUTEX_NORMAL), the baseline.
 *
 * Lock word (glibc lowlevellock): 0 = free, 1 = held, 2 = held with possible
 * sleepers; unlock wakes one sleeper with a futex only in state 2.
 * Fairness: none — competitive succession (barging); a woken thread competes
 * with arrivals and may lose repeatedly.
 * Footprint: 40 bytes per lock (x86-64), nothing per waiting thread (the
 * kernel's futex queue holds sleepers).  Policies: its own (spin briefly is
 * not used for NORMAL mutexes: it parks at once).
 */
#include <pthread.h>
#include <time.h>

#include "locklab/registry.h"

LL_INIT_ADAPTER(pthread_mutex_init((pthread_mutex_t *)s, NULL))
static void destroy(void *s) { pthread_mutex_destroy((pthread_mutex_t *)s); }
static void acquire(void *s, ll_wait_policy *wp) { (void)wp; pthread_mutex_lock((pthread_mutex_t *)s); }
static bool try_acquire(void *s, ll_wait_policy *wp) { (void)wp; return pthread_mutex_trylock((pthread_mutex_t *)s) == 0; }
static void release(void *s, ll_wait_policy *wp) { (void)wp; pthread_mutex_unlock((pthread_mutex_t *)s); }
/* Timed: glibc's own (its futex waiters are woken as any).  pthread_mutex_timedlock (on
 * CLOCK_REALTIME), not clocklock: sanitizers know only the former. */
static bool acquire_until(void *s, ll_wait_policy *wp, uint64_t deadline_ns)
{
    (void)wp;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    uint64_t now = ll_now_ns(), left = deadline_ns > now ? deadline_ns - now : 0;
    uint64_t ns = (uint64_t)until.tv_nsec + left % 1000000000u;
    until.tv_sec += (time_t)(left / 1000000000u + ns / 1000000000u);
    until.tv_nsec = (long)(ns % 1000000000u);
    return pthread_mutex_timedlock((pthread_mutex_t *)s, &until) == 0;
}

const ll_lock_ops ll_lock_pthread = {
    "pthread", "glibc (baseline)", "glibc pthread_mutex_t, futex-based, barging",
    "none (barging)", LL_SPIN_ONLY, NULL, sizeof(pthread_mutex_t), sizeof(pthread_mutex_t), 0,
    init, destroy, acquire, try_acquire, release, acquire_until,
};
