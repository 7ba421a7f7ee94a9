/*
 * Force-included into src/locks/pthread.c for the simulator (sim/CMakeLists.txt):
 * the pthread and pthread-adaptive baselines call glibc's mutex, whose code is
 * not written against the atomics layer, so the simulator substitutes a model
 * of glibc's algorithm (sim/pthread_model.c) under the same names.  The lock
 * source itself is unchanged.
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
#endif
