/*
 * Included by src/locks/platform_mutex.h, and so by src/locks/pthread.c and
 * src/locks/rw_pthread.c, in the simulator (LL_BACKEND_SIM): the pthread baselines
 * call glibc's mutex and rwlock, whose code is not written against the atomics
 * layer, so the simulator substitutes models of glibc's algorithms
 * (sim/pthread_model.c, sim/pthread_rwlock_model.c) under the same names.  The
 * lock sources are the library's.
 */
#ifndef LOCKLAB_SIM_PTHREAD_SHIM_H
#define LOCKLAB_SIM_PTHREAD_SHIM_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <time.h>

int llsim_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr);
int llsim_mutex_destroy(pthread_mutex_t *m);
int llsim_mutex_lock(pthread_mutex_t *m);
int llsim_mutex_trylock(pthread_mutex_t *m);
int llsim_mutex_unlock(pthread_mutex_t *m);
int llsim_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime);
int llsim_clock_gettime(clockid_t clock, struct timespec *ts);
#define pthread_mutex_init llsim_mutex_init
#define pthread_mutex_destroy llsim_mutex_destroy
#define pthread_mutex_lock llsim_mutex_lock
#define pthread_mutex_trylock llsim_mutex_trylock
#define pthread_mutex_unlock llsim_mutex_unlock
#define pthread_mutex_timedlock llsim_mutex_timedlock
#define clock_gettime llsim_clock_gettime
/* src/locks/rw_pthread.c: glibc's rwlock, modelled by sim/pthread_rwlock_model.c */
int llsim_rwlock_init(pthread_rwlock_t *l, const pthread_rwlockattr_t *attr);
int llsim_rwlock_destroy(pthread_rwlock_t *l);
int llsim_rwlock_rdlock(pthread_rwlock_t *l);
int llsim_rwlock_tryrdlock(pthread_rwlock_t *l);
int llsim_rwlock_timedrdlock(pthread_rwlock_t *l, const struct timespec *abstime);
int llsim_rwlock_wrlock(pthread_rwlock_t *l);
int llsim_rwlock_trywrlock(pthread_rwlock_t *l);
int llsim_rwlock_timedwrlock(pthread_rwlock_t *l, const struct timespec *abstime);
int llsim_rwlock_unlock(pthread_rwlock_t *l);
#define pthread_rwlock_init llsim_rwlock_init
#define pthread_rwlock_destroy llsim_rwlock_destroy
#define pthread_rwlock_rdlock llsim_rwlock_rdlock
#define pthread_rwlock_tryrdlock llsim_rwlock_tryrdlock
#define pthread_rwlock_timedrdlock llsim_rwlock_timedrdlock
#define pthread_rwlock_wrlock llsim_rwlock_wrlock
#define pthread_rwlock_trywrlock llsim_rwlock_trywrlock
#define pthread_rwlock_timedwrlock llsim_rwlock_timedwrlock
#define pthread_rwlock_unlock llsim_rwlock_unlock
#endif
