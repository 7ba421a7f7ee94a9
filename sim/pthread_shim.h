/*
 * Included by src/locks/platform_mutex.h, and so by src/locks/pthread.c and
 * src/locks/rw_pthread.c, in the simulator (LL_BACKEND_SIM): the pthread baselines
 * call glibc's mutex and rwlock, whose code is not written against the atomics
 * layer, so the simulator substitutes models of glibc's algorithms
 * (sim/pthread_model.c, sim/pthread_rwlock_model.c) under the same names.  The
 * lock sources are the library's.  The renamed calls: src/locks/platform_rename.h.
 */
#ifndef LOCKLAB_SIM_PTHREAD_SHIM_H
#define LOCKLAB_SIM_PTHREAD_SHIM_H
#define LL_PLATFORM_CALL(name) llsim_##name
#include "../src/locks/platform_rename.h"
/* and the clock (the timed calls compute deadlines on it): the simulated one */
int llsim_clock_gettime(clockid_t clock, struct timespec *ts);
#define clock_gettime llsim_clock_gettime
#endif
