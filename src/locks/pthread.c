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
#define _GNU_SOURCE /* pthread_mutex_clocklock */
#include <pthread.h>

#include "locklab/registry.h"

LL_INIT_ADAPTER(pthread_mutex_init((pthread_mutex_t *)s, NULL))
static void destroy(void *s) { pthread_mutex_destroy((pthread_mutex_t *)s); }
static void acquire(void *s, ll_wait_policy *wp) { (void)wp; pthread_mutex_lock((pthread_mutex_t *)s); }
static bool try_acquire(void *s, ll_wait_policy *wp) { (void)wp; return pthread_mutex_trylock((pthread_mutex_t *)s) == 0; }
static void release(void *s, ll_wait_policy *wp) { (void)wp; pthread_mutex_unlock((pthread_mutex_t *)s); }
/* Timed: glibc's own (its futex waiters are woken as any). */
static bool acquire_until(void *s, ll_wait_policy *wp, uint64_t deadline_ns)
{
    (void)wp;
    struct timespec until = {(time_t)(deadline_ns / 1000000000u), (long)(deadline_ns % 1000000000u)};
    return pthread_mutex_clocklock((pthread_mutex_t *)s, CLOCK_MONOTONIC, &until) == 0; /* ll_now_ns's clock */
}

const ll_lock_ops ll_lock_pthread = {
    "pthread", "glibc (baseline)", "glibc pthread_mutex_t, futex-based, barging",
    "none (barging)", LL_SPIN_ONLY, NULL, sizeof(pthread_mutex_t), sizeof(pthread_mutex_t), 0,
    init, destroy, acquire, try_acquire, release, acquire_until,
};
