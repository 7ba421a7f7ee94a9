/*
 * pthread (rwlock) — glibc's pthread_rwlock_t, the baseline, of its default kind
 * (PTHREAD_RWLOCK_PREFER_READER_NP).
 *
 * glibc's algorithm (nptl/pthread_rwlock_common.c): one 32-bit __readers word
 * holds the reader count (<< 3) and the phase (read/write) and the
 * "writers waiting" bits; writers additionally share __writers and a
 * __wrphase_futex on which readers sleep.  A reader enters with one fetch_add on
 * __readers whenever the lock is in a read phase, even with writers waiting
 * (reader preference: a recursive read never deadlocks, and writers can starve
 * under a steady stream of overlapping readers).  Every reader writes the same
 * line: that is what BRAVO (rw_bravo.c, `bravo-pthread`) removes.
 * Fairness: reader preference; writers among themselves barge.
 * Footprint: 56 bytes per lock (x86-64), nothing per waiter (futex queues).
 * Policies: its own (registered as spin; glibc decides how to wait).
 * Timed: glibc's pthread_rwlock_timed{rd,wr}lock on CLOCK_REALTIME (sanitizers know
 * those, not the clock variants), the deadline converted from ll_now_ns's clock.
 * The pthread_rwlock_* calls below are glibc's in the library, glibc's through the
 * interposer's wrappers in liblocklab-preload.so, and a model of glibc's algorithm in
 * locklab-sim: platform_mutex.h says how each build renames them.
 */
#include "platform_mutex.h" /* <pthread.h>; in the interposer and the simulator, renames */

#include "locklab/rwlock.h"

static int init(void *s, const uint64_t *p, char *err, size_t errlen)
{
    (void)p, (void)err, (void)errlen;
    pthread_rwlock_init((pthread_rwlock_t *)s, NULL);
    return 0;
}
static void destroy(void *s) { pthread_rwlock_destroy((pthread_rwlock_t *)s); }

static uintptr_t read_acquire(void *s, ll_wait_policy *wp)
{
    (void)wp;
    pthread_rwlock_rdlock((pthread_rwlock_t *)s);
    return 0;
}
static bool read_try(void *s, ll_wait_policy *wp, uintptr_t *token)
{
    (void)wp;
    *token = 0;
    return pthread_rwlock_tryrdlock((pthread_rwlock_t *)s) == 0;
}
static bool read_acquire_until(void *s, ll_wait_policy *wp, uint64_t deadline_ns, uintptr_t *token)
{
    (void)wp;
    *token = 0;
    struct timespec until = ll_platform_realtime_of(deadline_ns);
    return pthread_rwlock_timedrdlock((pthread_rwlock_t *)s, &until) == 0;
}
static void read_release(void *s, ll_wait_policy *wp, uintptr_t token)
{
    (void)wp, (void)token;
    pthread_rwlock_unlock((pthread_rwlock_t *)s);
}
static void write_acquire(void *s, ll_wait_policy *wp)
{
    (void)wp;
    pthread_rwlock_wrlock((pthread_rwlock_t *)s);
}
static bool write_try(void *s, ll_wait_policy *wp)
{
    (void)wp;
    return pthread_rwlock_trywrlock((pthread_rwlock_t *)s) == 0;
}
static bool write_acquire_until(void *s, ll_wait_policy *wp, uint64_t deadline_ns)
{
    (void)wp;
    struct timespec until = ll_platform_realtime_of(deadline_ns);
    return pthread_rwlock_timedwrlock((pthread_rwlock_t *)s, &until) == 0;
}
static void write_release(void *s, ll_wait_policy *wp)
{
    (void)wp;
    pthread_rwlock_unlock((pthread_rwlock_t *)s);
}

static const ll_lock_ops desc = {
    .name = "pthread", .source = "glibc (baseline)",
    .summary = "glibc pthread_rwlock_t (default kind: prefer readers), futex-based",
    .fairness = "reader preference (writers can starve); writers barge", .policies = LL_SPIN_ONLY,
    .caps = LL_CAP_PARKS_ITSELF,
    .state_bytes = 64, .lock_bytes = sizeof(pthread_rwlock_t),
    .init = init, .destroy = destroy,
};

const ll_rwlock_ops ll_rwlock_pthread = LL_RWLOCK_OPS(&desc);
