/*
 * Included by src/locks/platform_mutex.h, and so by src/locks/pthread.c and
 * src/locks/rw_pthread.c, when the lock library's sources are compiled into
 * liblocklab-preload.so (LL_PRELOAD, CMakeLists.txt): the library's internal
 * mutexes (the `pthread` lock) and rwlocks (the `pthread` rwlock) must go
 * straight to glibc, never back into the interposer that is built on top of
 * them.  (The core's arena, src/core/arena.c, which thread contexts and the
 * interposer's lock objects come from, uses no pthread mutex at all.)  Each name
 * is redirected to a wrapper in src/interpose/real.c that calls glibc's own
 * function.
 */
#ifndef LOCKLAB_INTERPOSE_GLIBC_MUTEX_H
#define LOCKLAB_INTERPOSE_GLIBC_MUTEX_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>

int lp_real_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr);
int lp_real_mutex_destroy(pthread_mutex_t *m);
int lp_real_mutex_lock(pthread_mutex_t *m);
int lp_real_mutex_trylock(pthread_mutex_t *m);
int lp_real_mutex_unlock(pthread_mutex_t *m);
int lp_real_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime);

#define pthread_mutex_init lp_real_mutex_init
#define pthread_mutex_destroy lp_real_mutex_destroy
#define pthread_mutex_lock lp_real_mutex_lock
#define pthread_mutex_trylock lp_real_mutex_trylock
#define pthread_mutex_unlock lp_real_mutex_unlock
#define pthread_mutex_timedlock lp_real_mutex_timedlock

/* The same for glibc's rwlock (src/locks/rw_pthread.c). */
int lp_real_rwlock_init(pthread_rwlock_t *l, const pthread_rwlockattr_t *attr);
int lp_real_rwlock_destroy(pthread_rwlock_t *l);
int lp_real_rwlock_rdlock(pthread_rwlock_t *l);
int lp_real_rwlock_tryrdlock(pthread_rwlock_t *l);
int lp_real_rwlock_timedrdlock(pthread_rwlock_t *l, const struct timespec *abstime);
int lp_real_rwlock_wrlock(pthread_rwlock_t *l);
int lp_real_rwlock_trywrlock(pthread_rwlock_t *l);
int lp_real_rwlock_timedwrlock(pthread_rwlock_t *l, const struct timespec *abstime);
int lp_real_rwlock_unlock(pthread_rwlock_t *l);
#define pthread_rwlock_init lp_real_rwlock_init
#define pthread_rwlock_destroy lp_real_rwlock_destroy
#define pthread_rwlock_rdlock lp_real_rwlock_rdlock
#define pthread_rwlock_tryrdlock lp_real_rwlock_tryrdlock
#define pthread_rwlock_timedrdlock lp_real_rwlock_timedrdlock
#define pthread_rwlock_wrlock lp_real_rwlock_wrlock
#define pthread_rwlock_trywrlock lp_real_rwlock_trywrlock
#define pthread_rwlock_timedwrlock lp_real_rwlock_timedwrlock
#define pthread_rwlock_unlock lp_real_rwlock_unlock

#endif
