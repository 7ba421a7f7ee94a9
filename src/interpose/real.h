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
    LP_REAL_BLOCKING(X, "pthread_", mutex, lock, pthread_mutex_t) \
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
    LP_REAL_BLOCKING(X, "", sem, wait, sem_t) \
    X(sem_post, "sem_post", (sem_t *)) \
    X(sem_getvalue, "sem_getvalue", (sem_t *, int *)) \
    X(rwlock_init, "pthread_rwlock_init", (pthread_rwlock_t *, const pthread_rwlockattr_t *)) \
    X(rwlock_destroy, "pthread_rwlock_destroy", (pthread_rwlock_t *)) \
    LP_REAL_BLOCKING(X, "pthread_", rwlock, rdlock, pthread_rwlock_t) \
    LP_REAL_BLOCKING(X, "pthread_", rwlock, wrlock, pthread_rwlock_t) \
    X(rwlock_unlock, "pthread_rwlock_unlock", (pthread_rwlock_t *))

/* The four forms POSIX gives a blocking verb on an OBJ of type T (mutex lock, sem wait,
 * rwlock rdlock and wrlock): OBJ_VERB, OBJ_tryVERB, OBJ_timedVERB (an absolute
 * CLOCK_REALTIME deadline) and OBJ_clockVERB (a deadline on a clock), glibc's names
 * with PREFIX before them; e.g. mutex_timedlock, "pthread_mutex_timedlock". */
#define LP_REAL_BLOCKING(X, PREFIX, OBJ, VERB, T) \
    X(OBJ##_##VERB, PREFIX #OBJ "_" #VERB, (T *)) \
    X(OBJ##_try##VERB, PREFIX #OBJ "_try" #VERB, (T *)) \
    X(OBJ##_timed##VERB, PREFIX #OBJ "_timed" #VERB, (T *, const struct timespec *)) \
    X(OBJ##_clock##VERB, PREFIX #OBJ "_clock" #VERB, (T *, clockid_t, const struct timespec *))

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
