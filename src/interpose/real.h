/*
 * glibc's own pthread_mutex_* functions, for what the interposer passes
 * through (robust, priority-inheritance/protect and process-shared mutexes)
 * and for the lock library's internal mutexes (glibc_mutex.h).
 *
 * Also glibc's pthread_cond_* and sem_* for process-shared condition
 * variables and semaphores (cond.c, sem.c).
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

typedef struct lp_real_fns {
    int (*mutex_init)(pthread_mutex_t *, const pthread_mutexattr_t *);
    int (*mutex_destroy)(pthread_mutex_t *);
    int (*mutex_lock)(pthread_mutex_t *);
    int (*mutex_trylock)(pthread_mutex_t *);
    int (*mutex_timedlock)(pthread_mutex_t *, const struct timespec *);
    int (*mutex_clocklock)(pthread_mutex_t *, clockid_t, const struct timespec *);
    int (*mutex_unlock)(pthread_mutex_t *);
    int (*cond_init)(pthread_cond_t *, const pthread_condattr_t *);
    int (*cond_destroy)(pthread_cond_t *);
    int (*cond_wait)(pthread_cond_t *, pthread_mutex_t *);
    int (*cond_timedwait)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
    int (*cond_clockwait)(pthread_cond_t *, pthread_mutex_t *, clockid_t, const struct timespec *);
    int (*cond_signal)(pthread_cond_t *);
    int (*cond_broadcast)(pthread_cond_t *);
    int (*sem_init)(sem_t *, int, unsigned);
    int (*sem_destroy)(sem_t *);
    int (*sem_wait)(sem_t *);
    int (*sem_trywait)(sem_t *);
    int (*sem_timedwait)(sem_t *, const struct timespec *);
    int (*sem_clockwait)(sem_t *, clockid_t, const struct timespec *);
    int (*sem_post)(sem_t *);
    int (*sem_getvalue)(sem_t *, int *);
} lp_real_fns;

/* Filled by lp_real_resolve(); every entry non-NULL afterwards. */
extern lp_real_fns lp_real;
/* Idempotent and thread-safe (every thread resolves the same addresses);
 * exits with status 2 and a message if glibc lacks one of the functions. */
void lp_real_resolve(void);

#endif
