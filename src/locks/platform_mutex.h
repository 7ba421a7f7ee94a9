/*
 * The platform's own mutex and rwlock, glibc's pthread_mutex_* and pthread_rwlock_*, as the
 * baselines that wrap them call them (src/locks/pthread.c, src/locks/rw_pthread.c: included
 * instead of <pthread.h>).  Those sources are compiled into three programs, and in two of them
 * the pthread names must mean something else; the build says which with a define:
 *
 *   build                     define          the names call
 *   ------------------------  --------------  ---------------------------------------------
 *   liblocklab, locklab-check  (none)          glibc's functions (Relacy's under its backend)
 *   liblocklab-preload.so     LL_PRELOAD      glibc's functions through the interposer's
 *                             (CMakeLists.txt)  wrappers or its table of them
 *                                              (src/interpose/glibc_mutex.h), never the
 *                                              interposer's own pthread_mutex_lock, which is
 *                                              built on top of these locks
 *   locklab-sim               LL_BACKEND_SIM  models of glibc's algorithms written against
 *                             (sim/)           the atomics layer (sim/pthread_shim.h)
 *
 * Each of those headers renames the calls (the list: platform_rename.h; pthread_mutex_lock -> lp_real_mutex_lock,
 * llsim_mutex_lock, ...; the simulator's clock_gettime too), so the code that uses them reads
 * as plain pthread code.  Include it only where glibc's own functions are meant: a pthread_mutex
 * call anywhere else in a source compiled into the interposer is the interposer's own.
 */
#ifndef LOCKLAB_LOCKS_PLATFORM_MUTEX_H
#define LOCKLAB_LOCKS_PLATFORM_MUTEX_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* PTHREAD_MUTEX_ADAPTIVE_NP */
#endif
#include <pthread.h>
#include <time.h>

#if defined(LL_BACKEND_SIM)
#include "../../sim/pthread_shim.h"
#elif defined(LL_PRELOAD)
#include "../interpose/glibc_mutex.h"
#endif

#include "locklab/core.h"

/* pthread_mutex_lock and _unlock of a mutex that pthread_mutex_init initialised: the same
 * calls, or where a build has a cheaper form for that case, that form (the interposer's:
 * glibc_mutex.h). */
#ifndef LL_PLATFORM_MUTEX_LOCK_INITED
#define LL_PLATFORM_MUTEX_LOCK_INITED(m) pthread_mutex_lock(m)
#endif
#ifndef LL_PLATFORM_MUTEX_UNLOCK_INITED
#define LL_PLATFORM_MUTEX_UNLOCK_INITED(m) pthread_mutex_unlock(m)
#endif

/* deadline_ns (ll_now_ns clock) as a CLOCK_REALTIME time, for the timed calls of
 * pthread_mutex_timedlock and pthread_rwlock_timed*lock (the sanitizers know no
 * clocklock): the time left, added to the realtime clock now. */
static inline struct timespec ll_platform_realtime_of(uint64_t deadline_ns)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    uint64_t now = ll_now_ns(), left = deadline_ns > now ? deadline_ns - now : 0;
    uint64_t ns = (uint64_t)until.tv_nsec + left % 1000000000u;
    until.tv_sec += (time_t)(left / 1000000000u + ns / 1000000000u);
    until.tv_nsec = (long)(ns % 1000000000u);
    return until;
}

#endif
