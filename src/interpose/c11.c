/*
 * C11 <threads.h>: mtx_{init,destroy,lock,timedlock,trylock,unlock} and
 * cnd_{init,destroy,signal,broadcast,wait,timedwait} on the interposer's
 * pthread mutexes and condition variables (mutex.c, cond.c), so a C11 program
 * runs on LOCKLAB_LOCK / LOCKLAB_COND and shows in the profile.
 *
 * Why they must be interposed themselves: glibc (2.28+; in libc.so.6 since 2.34,
 * versions GLIBC_2.28 and GLIBC_2.34) implements each as a call of its *internal*
 * __pthread_mutex_lock, __pthread_cond_wait, ... aliases, bound inside libc.so.6,
 * which never reach an LD_PRELOAD library: without these, a C11 program's locks
 * stay glibc's and its profile shows no acquisition.
 *
 * Layout: glibc's mtx_t and cnd_t are unions of the same size and alignment as
 * pthread_mutex_t (40 bytes) and pthread_cond_t (48 bytes), and its C11 functions
 * cast one to the other; so do we (the asserts below), so an mtx_t is laid out as
 * our pthread mutex (mutex.h) and a cnd_t as our condition variable (cond.c).
 * C11 has no static initialiser: every mtx_t and cnd_t goes through mtx_init /
 * cnd_init, which are never glibc's (no process-shared or robust C11 objects).
 *
 * Semantics, as glibc 2.36's (thrd_err_map): mtx_plain | mtx_recursive and
 * mtx_timed | mtx_recursive are a recursive mutex, every other type a normal one
 * (relock by the owner deadlocks, which C11 leaves undefined; glibc accepts an
 * invalid type too, so do we).  Return values:
 * 0 -> thrd_success, EBUSY -> thrd_busy, ETIMEDOUT -> thrd_timedout,
 * ENOMEM -> thrd_nomem, any other error -> thrd_error.  mtx_timedlock and
 * cnd_timedwait take a CLOCK_REALTIME (TIME_UTC) deadline.
 *
 * LOCKLAB_VERBOSE's census counts them as "C11 mtx" / "C11 cnd" (config.h, lp_seen),
 * apart from pthread mutexes and condition variables.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <threads.h>

#include "config.h"
#include "mutex.h"

_Static_assert(sizeof(mtx_t) == sizeof(pthread_mutex_t) && _Alignof(mtx_t) == _Alignof(pthread_mutex_t),
               "glibc's mtx_t is a pthread_mutex_t");
_Static_assert(sizeof(cnd_t) == sizeof(pthread_cond_t) && _Alignof(cnd_t) == _Alignof(pthread_cond_t),
               "glibc's cnd_t is a pthread_cond_t");

/* glibc's thrd_err_map. */
LL_INLINE int thrd_result(int err)
{
    switch (err) {
    case 0:
        return thrd_success;
    case EBUSY:
        return thrd_busy;
    case ETIMEDOUT:
        return thrd_timedout;
    case ENOMEM:
        return thrd_nomem;
    default:
        return thrd_error;
    }
}

int mtx_init(mtx_t *mutex, int type)
{
    /* glibc 2.36: exactly these two are recursive, every other type (an invalid one too,
     * which it accepts) a normal mutex */
    int kind = type == (mtx_plain | mtx_recursive) || type == (mtx_timed | mtx_recursive) ? PTHREAD_MUTEX_RECURSIVE
                                                                                         : PTHREAD_MUTEX_NORMAL;
    bool ready = lp_ensure_init(); /* false while configuring (config.h): a private mutex needs no configuration */
    if (ready)
        lp_mark_seen(LP_SEEN_MTX);
    return lp_mutex_init_private((pthread_mutex_t *)mutex, kind, ready) == ENOMEM
               ? thrd_nomem
               : thrd_success;
}

void mtx_destroy(mtx_t *mutex) { (void)pthread_mutex_destroy((pthread_mutex_t *)mutex); }

int mtx_lock(mtx_t *mutex) { return thrd_result(lp_mutex_lock_at((pthread_mutex_t *)mutex, __builtin_return_address(0))); }

int mtx_trylock(mtx_t *mutex)
{
    return thrd_result(lp_mutex_trylock_at((pthread_mutex_t *)mutex, __builtin_return_address(0)));
}

int mtx_timedlock(mtx_t *restrict mutex, const struct timespec *restrict time_point)
{
    return thrd_result(lp_mutex_timedlock_at((pthread_mutex_t *)mutex, time_point, __builtin_return_address(0)));
}

int mtx_unlock(mtx_t *mutex)
{
    return thrd_result(lp_mutex_unlock_at((pthread_mutex_t *)mutex, __builtin_return_address(0)));
}

int cnd_init(cnd_t *cond)
{
    if (lp_ensure_init()) /* false while configuring (config.h): as mtx_init */
        lp_mark_seen(LP_SEEN_CND);
    lp_cond_init_private((pthread_cond_t *)cond, CLOCK_REALTIME);
    return thrd_success;
}

void cnd_destroy(cnd_t *cond) { (void)lp_cond_destroy_at((pthread_cond_t *)cond, __builtin_return_address(0)); }

int cnd_signal(cnd_t *cond) { return thrd_result(lp_cond_wake_at((pthread_cond_t *)cond, false, __builtin_return_address(0))); }

int cnd_broadcast(cnd_t *cond)
{
    return thrd_result(lp_cond_wake_at((pthread_cond_t *)cond, true, __builtin_return_address(0)));
}

int cnd_wait(cnd_t *cond, mtx_t *mutex)
{
    return thrd_result(
        lp_cond_wait_at((pthread_cond_t *)cond, (pthread_mutex_t *)mutex, NULL, __builtin_return_address(0)));
}

int cnd_timedwait(cnd_t *restrict cond, mtx_t *restrict mutex, const struct timespec *restrict time_point)
{
    return thrd_result(
        lp_cond_wait_at((pthread_cond_t *)cond, (pthread_mutex_t *)mutex, time_point, __builtin_return_address(0)));
}
