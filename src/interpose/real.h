/*
 * glibc's own pthread_mutex_* functions, for what the interposer passes
 * through (robust, priority-inheritance/protect and process-shared mutexes)
 * and for the lock library's internal mutexes (glibc_mutex.h).
 *
 * Also glibc's pthread_cond_* and sem_* for process-shared condition
 * variables and semaphores (cond.c, sem.c), and its pthread_rwlock_* for
 * process-shared rwlocks and the `pthread` rwlock baseline (rwlock.c).
 *
 * Resolved with dlsym(RTLD_NEXT, name), which returns the *default* version of
 * each symbol (e.g. pthread_mutex_timedlock@@GLIBC_2.34 on glibc >= 2.34, the
 * one a program linked today binds to, and pthread_cond_wait@@GLIBC_2.3.2, the
 * current condition variable, not the GLIBC_2.2.5 compatibility one), lazily on first use so that calls
 * made before our constructor ran work too.
 */
#ifndef LOCKLAB_INTERPOSE_REAL_H
#define LOCKLAB_INTERPOSE_REAL_H

#include <pthread.h>
#include <semaphore.h>
#include <time.h>

/* glibc's functions behind the interposer: X(field, glibc's name, parameter types), in
 * the order lp_real_resolve looks them up; each returns int. */
#define LP_REAL_FNS(X) \
    X(mutex_init, "pthread_mutex_init", (pthread_mutex_t *, const pthread_mutexattr_t *)) \
    X(mutex_destroy, "pthread_mutex_destroy", (pthread_mutex_t *)) \
    X(mutex_lock, "pthread_mutex_lock", (pthread_mutex_t *)) \
    X(mutex_trylock, "pthread_mutex_trylock", (pthread_mutex_t *)) \
    X(mutex_timedlock, "pthread_mutex_timedlock", (pthread_mutex_t *, const struct timespec *)) \
    X(mutex_clocklock, "pthread_mutex_clocklock", (pthread_mutex_t *, clockid_t, const struct timespec *)) \
    X(mutex_unlock, "pthread_mutex_unlock", (pthread_mutex_t *)) \
    X(cond_init, "pthread_cond_init", (pthread_cond_t *, const pthread_condattr_t *)) \
    X(cond_destroy, "pthread_cond_destroy", (pthread_cond_t *)) \
    X(cond_wait, "pthread_cond_wait", (pthread_cond_t *, pthread_mutex_t *)) \
    X(cond_timedwait, "pthread_cond_timedwait", (pthread_cond_t *, pthread_mutex_t *, const struct timespec *)) \
    X(cond_clockwait, "pthread_cond_clockwait", (pthread_cond_t *, pthread_mutex_t *, clockid_t, const struct timespec *)) \
    X(cond_signal, "pthread_cond_signal", (pthread_cond_t *)) \
    X(cond_broadcast, "pthread_cond_broadcast", (pthread_cond_t *)) \
    X(sem_init, "sem_init", (sem_t *, int, unsigned)) \
    X(sem_destroy, "sem_destroy", (sem_t *)) \
    X(sem_wait, "sem_wait", (sem_t *)) \
    X(sem_trywait, "sem_trywait", (sem_t *)) \
    X(sem_timedwait, "sem_timedwait", (sem_t *, const struct timespec *)) \
    X(sem_clockwait, "sem_clockwait", (sem_t *, clockid_t, const struct timespec *)) \
    X(sem_post, "sem_post", (sem_t *)) \
    X(sem_getvalue, "sem_getvalue", (sem_t *, int *)) \
    X(rwlock_init, "pthread_rwlock_init", (pthread_rwlock_t *, const pthread_rwlockattr_t *)) \
    X(rwlock_destroy, "pthread_rwlock_destroy", (pthread_rwlock_t *)) \
    X(rwlock_rdlock, "pthread_rwlock_rdlock", (pthread_rwlock_t *)) \
    X(rwlock_tryrdlock, "pthread_rwlock_tryrdlock", (pthread_rwlock_t *)) \
    X(rwlock_timedrdlock, "pthread_rwlock_timedrdlock", (pthread_rwlock_t *, const struct timespec *)) \
    X(rwlock_clockrdlock, "pthread_rwlock_clockrdlock", (pthread_rwlock_t *, clockid_t, const struct timespec *)) \
    X(rwlock_wrlock, "pthread_rwlock_wrlock", (pthread_rwlock_t *)) \
    X(rwlock_trywrlock, "pthread_rwlock_trywrlock", (pthread_rwlock_t *)) \
    X(rwlock_timedwrlock, "pthread_rwlock_timedwrlock", (pthread_rwlock_t *, const struct timespec *)) \
    X(rwlock_clockwrlock, "pthread_rwlock_clockwrlock", (pthread_rwlock_t *, clockid_t, const struct timespec *)) \
    X(rwlock_unlock, "pthread_rwlock_unlock", (pthread_rwlock_t *))

typedef struct lp_real_fns {
#define LP_REAL_FIELD(field, name, params) int(*field) params;
    LP_REAL_FNS(LP_REAL_FIELD)
#undef LP_REAL_FIELD
} lp_real_fns;

/* Filled by lp_real_resolve(); every entry non-NULL afterwards. */
extern lp_real_fns lp_real;
/* Idempotent and thread-safe (every thread resolves the same addresses);
 * exits with status 2 and a message if glibc lacks one of the functions. */
void lp_real_resolve(void);
/* glibc's (default version of) name, for functions outside the table above; exits with
 * status 2 and a message if glibc lacks it. */
void *lp_real_lookup(const char *name);

#endif
