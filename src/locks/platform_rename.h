/*
 * The glibc mutex and rwlock calls of src/locks/pthread.c and src/locks/rw_pthread.c,
 * declared and renamed to LL_PLATFORM_CALL(name) (pthread_mutex_lock ->
 * LL_PLATFORM_CALL(mutex_lock), ...), which the header that includes this one defines:
 * src/interpose/glibc_mutex.h (lp_real_*, the interposer's wrappers of glibc's functions)
 * and sim/pthread_shim.h (llsim_*, the simulator's models of glibc's algorithms).
 * platform_mutex.h says which build takes which.
 */
#ifndef LOCKLAB_LOCKS_PLATFORM_RENAME_H
#define LOCKLAB_LOCKS_PLATFORM_RENAME_H
#ifndef LL_PLATFORM_CALL
#error "define LL_PLATFORM_CALL(name) before including platform_rename.h"
#endif
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <time.h>

int LL_PLATFORM_CALL(mutex_init)(pthread_mutex_t *m, const pthread_mutexattr_t *attr);
int LL_PLATFORM_CALL(mutex_destroy)(pthread_mutex_t *m);
int LL_PLATFORM_CALL(mutex_lock)(pthread_mutex_t *m);
int LL_PLATFORM_CALL(mutex_trylock)(pthread_mutex_t *m);
int LL_PLATFORM_CALL(mutex_unlock)(pthread_mutex_t *m);
int LL_PLATFORM_CALL(mutex_timedlock)(pthread_mutex_t *m, const struct timespec *abstime);
#define pthread_mutex_init LL_PLATFORM_CALL(mutex_init)
#define pthread_mutex_destroy LL_PLATFORM_CALL(mutex_destroy)
#define pthread_mutex_lock LL_PLATFORM_CALL(mutex_lock)
#define pthread_mutex_trylock LL_PLATFORM_CALL(mutex_trylock)
#define pthread_mutex_unlock LL_PLATFORM_CALL(mutex_unlock)
#define pthread_mutex_timedlock LL_PLATFORM_CALL(mutex_timedlock)

int LL_PLATFORM_CALL(rwlock_init)(pthread_rwlock_t *l, const pthread_rwlockattr_t *attr);
int LL_PLATFORM_CALL(rwlock_destroy)(pthread_rwlock_t *l);
int LL_PLATFORM_CALL(rwlock_rdlock)(pthread_rwlock_t *l);
int LL_PLATFORM_CALL(rwlock_tryrdlock)(pthread_rwlock_t *l);
int LL_PLATFORM_CALL(rwlock_timedrdlock)(pthread_rwlock_t *l, const struct timespec *abstime);
int LL_PLATFORM_CALL(rwlock_wrlock)(pthread_rwlock_t *l);
int LL_PLATFORM_CALL(rwlock_trywrlock)(pthread_rwlock_t *l);
int LL_PLATFORM_CALL(rwlock_timedwrlock)(pthread_rwlock_t *l, const struct timespec *abstime);
int LL_PLATFORM_CALL(rwlock_unlock)(pthread_rwlock_t *l);
#define pthread_rwlock_init LL_PLATFORM_CALL(rwlock_init)
#define pthread_rwlock_destroy LL_PLATFORM_CALL(rwlock_destroy)
#define pthread_rwlock_rdlock LL_PLATFORM_CALL(rwlock_rdlock)
#define pthread_rwlock_tryrdlock LL_PLATFORM_CALL(rwlock_tryrdlock)
#define pthread_rwlock_timedrdlock LL_PLATFORM_CALL(rwlock_timedrdlock)
#define pthread_rwlock_wrlock LL_PLATFORM_CALL(rwlock_wrlock)
#define pthread_rwlock_trywrlock LL_PLATFORM_CALL(rwlock_trywrlock)
#define pthread_rwlock_timedwrlock LL_PLATFORM_CALL(rwlock_timedwrlock)
#define pthread_rwlock_unlock LL_PLATFORM_CALL(rwlock_unlock)
#endif
