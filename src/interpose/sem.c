/*
 * sem_{init,destroy,wait,trywait,timedwait,clockwait,post,getvalue} over
 * locklab's counting semaphores (include/locklab/sync.h, src/sync/sem.c):
 * an explicit waiter list, FIFO or mostly-LIFO with append probability
 * 1/append_one_in (LOCKLAB_SEM), the Malthusian paper's §6.11 buffer-pool
 * semaphore.  A post that finds a waiter hands its unit to that waiter.
 *
 * Layout: ll_sem is exactly a sem_t (32 bytes).  glibc's own semaphores --
 * process-shared ones (sem_init with pshared != 0, handed to glibc) and named
 * ones (sem_open, never through us) -- hold glibc's FUTEX_SHARED flag (128) in
 * the 32-bit word at offset 8 ("private"); ours hold append_one_in there,
 * which the interposer always sets explicitly (default 1000) and never to
 * 128 (LOCKLAB_SEM rejects append_one_in=128).  Every call checks that word
 * and passes glibc's semaphores to glibc untouched.
 *
 * Profiling (LOCKLAB_PROFILE): one record per semaphore (proftable.h): waits,
 * whether they blocked and for how long, failed trywaits; glibc's are counted per call.
 * sem_post, async-signal-safe, creates no record (a semaphore only ever posted has
 * none) and counts a glibc semaphore's post only in a record an earlier call created.
 *
 * Errors as POSIX: -1 with errno EINVAL (value > SEM_VALUE_MAX, bad abstime
 * or clock, checked first, as glibc does), EAGAIN (trywait), ETIMEDOUT,
 * EOVERFLOW (post at SEM_VALUE_MAX), EINTR (a signal handler interrupted the
 * sleep: one installed without SA_RESTART, or any for the timed waits, as
 * glibc; a post that raced with it is not lost: sync.h, LL_SYNC_EINTR).
 * sem_wait, sem_timedwait and sem_clockwait are cancellation points: a
 * pending request acts at entry, even if a unit is there (as glibc); one made
 * while blocked interrupts the sleep, and the waiter leaves the list or gives
 * back the unit a post had handed it (LL_SYNC_CANCEL).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>

#include "config.h"
#include "profile.h"
#include "proftable.h"
#include "real.h"
#include "../sync/waitlist.h" /* ll_sync_check_deadline */

#if defined(__x86_64__)
_Static_assert(sizeof(ll_sem) == sizeof(sem_t), "ll_sem must overlay sem_t exactly");
_Static_assert(__builtin_offsetof(ll_sem, append_one_in) == 8, "the glibc/locklab marker word is at offset 8");
#endif

LL_INLINE bool glibc_owned(sem_t *s) { return ((ll_sem *)s)->append_one_in == LP_GLIBC_SHARED_SEM; }

/* The profile record of s when profiling (NULL otherwise); glibc's: counts this call. */
static lp_profile *profile_of(sem_t *s, void *pc)
{
    return LL_LIKELY(!lp_profiling) ? NULL : lp_proftable_sync(s, "sem", glibc_owned(s), &lp_cfg.sem, pc);
}

/* The start of the entry points that take a record (fn: the entry point, pc: its caller):
 * the interposer configured, semaphores marked seen; s's profile record when profiling
 * (glibc's: counts this call), else NULL. */
LL_INLINE lp_profile *enter(sem_t *s, const char *fn, void *pc)
{
    lp_require_init(fn);
    lp_mark_seen(LP_SEEN_SEM);
    return profile_of(s, pc);
}

LL_INLINE int fail(int err)
{
    errno = err;
    return -1;
}

int sem_init(sem_t *s, int pshared, unsigned value)
{
    lp_require_init("sem_init");
    lp_mark_seen(LP_SEEN_SEM);
    if (pshared) {
        ll_faa(&lp_passthrough_sems, 1, LL_RELAXED); /* relaxed: a statistic */
        int rc = lp_real.sem_init(s, pshared, value);
        profile_of(s, __builtin_return_address(0));
        return rc;
    }
    if (value > SEM_VALUE_MAX)
        return fail(EINVAL);
    return ll_sem_init((ll_sem *)s, value, &lp_cfg.sem) == 0 ? 0 : fail(EINVAL);
}

int sem_destroy(sem_t *s)
{
    enter(s, "sem_destroy", __builtin_return_address(0)); /* counts glibc's */
    if (glibc_owned(s))
        return lp_real.sem_destroy(s);
    ll_sem_destroy((ll_sem *)s);
    return 0;
}

/* A wait; first a try, so that the profile can tell waits that blocked. */
static int sem_wait_until(lp_profile *p, sem_t *s, clockid_t clock, const struct timespec *abstime)
{
    /* POSIX need not check abstime when a unit is there; glibc checks it (and the clock) first,
     * before its cancellation point, and so do we: a program sees glibc's answer */
    int bad = ll_sync_check_deadline(clock, abstime);
    if (bad != 0)
        return fail(bad);
    pthread_testcancel(); /* a cancellation point, even when a unit is there (as glibc) */
    if (ll_sem_trywait((ll_sem *)s) == 0) {
        if (p)
            lp_profile_waited(p, false, 0);
        return 0;
    }
    uint64_t t0 = p ? ll_now_ns() : 0;
    int rc = ll_sem_wait_opts((ll_sem *)s, clock, abstime, LL_SYNC_EINTR | LL_SYNC_CANCEL);
    if (p)
        lp_profile_waited(p, true, ll_now_ns() - t0);
    return rc == 0 ? 0 : fail(rc);
}

int sem_wait(sem_t *s)
{
    lp_profile *p = enter(s, "sem_wait", __builtin_return_address(0));
    if (glibc_owned(s))
        return lp_real.sem_wait(s);
    return sem_wait_until(p, s, CLOCK_REALTIME, NULL);
}

int sem_timedwait(sem_t *s, const struct timespec *abstime)
{
    lp_profile *p = enter(s, "sem_timedwait", __builtin_return_address(0));
    if (glibc_owned(s))
        return lp_real.sem_timedwait(s, abstime);
    return sem_wait_until(p, s, CLOCK_REALTIME, abstime);
}

int sem_clockwait(sem_t *s, clockid_t clock, const struct timespec *abstime)
{
    lp_profile *p = enter(s, "sem_clockwait", __builtin_return_address(0));
    if (glibc_owned(s))
        return lp_real.sem_clockwait(s, clock, abstime);
    return sem_wait_until(p, s, clock, abstime);
}

int sem_trywait(sem_t *s)
{
    lp_profile *p = enter(s, "sem_trywait", __builtin_return_address(0));
    if (glibc_owned(s))
        return lp_real.sem_trywait(s);
    int rc = ll_sem_trywait((ll_sem *)s);
    if (p && rc != 0)
        lp_profile_trylock_failed(p);
    return rc == 0 ? 0 : fail(rc);
}

int sem_post(sem_t *s)
{
    lp_require_init("sem_post");
    lp_mark_seen(LP_SEEN_SEM);
    if (glibc_owned(s)) {
        /* Async-signal-safe (POSIX), so no profile_of: a handler's post must not create a
         * record (the arena's lock) nor wait for one that its interrupted thread is creating
         * (proftable.h).  Counted in the record sem_init or an earlier call made, if any. */
        lp_profile *p = LL_LIKELY(!lp_profiling) ? NULL : lp_proftable_find(s);
        if (p)
            lp_profile_passthrough_op(p);
        return lp_real.sem_post(s);
    }
    int rc = ll_sem_post((ll_sem *)s);
    return rc == 0 ? 0 : fail(rc);
}

int sem_getvalue(sem_t *s, int *value)
{
    enter(s, "sem_getvalue", __builtin_return_address(0)); /* counts glibc's */
    if (glibc_owned(s))
        return lp_real.sem_getvalue(s, value);
    *value = ll_sem_getvalue((ll_sem *)s);
    return 0;
}
