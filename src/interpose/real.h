/*
 * glibc's own pthread_mutex_* functions, for what the interposer passes
 * through (robust, priority-inheritance/protect and process-shared mutexes)
 * and for the lock library's internal mutexes (glibc_mutex.h).
 *
 * Resolved with dlsym(RTLD_NEXT, name), which returns the *default* version of
 * each symbol (e.g. pthread_mutex_timedlock@@GLIBC_2.34 on glibc >= 2.34, the
 * one a program linked today binds to), lazily on first use so that calls
 * made before our constructor ran work too.
 */
#ifndef LOCKLAB_INTERPOSE_REAL_H
#define LOCKLAB_INTERPOSE_REAL_H

#include <pthread.h>
#include <time.h>

typedef struct lp_real_fns {
    int (*mutex_init)(pthread_mutex_t *, const pthread_mutexattr_t *);
    int (*mutex_destroy)(pthread_mutex_t *);
    int (*mutex_lock)(pthread_mutex_t *);
    int (*mutex_trylock)(pthread_mutex_t *);
    int (*mutex_timedlock)(pthread_mutex_t *, const struct timespec *);
    int (*mutex_clocklock)(pthread_mutex_t *, clockid_t, const struct timespec *);
    int (*mutex_unlock)(pthread_mutex_t *);
} lp_real_fns;

/* Filled by lp_real_resolve(); every entry non-NULL afterwards. */
extern lp_real_fns lp_real;
/* Idempotent and thread-safe (every thread resolves the same addresses);
 * exits with status 2 and a message if glibc lacks one of the functions. */
void lp_real_resolve(void);

#endif
