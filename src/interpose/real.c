/* glibc's pthread_mutex_* (see real.h), and the wrappers glibc_mutex.h
 * redirects the lock library's own mutex calls to. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "locklab/core.h"
#include "real.h"

lp_real_fns lp_real;
enum { UNRESOLVED, RESOLVING, RESOLVED };
static ll_atomic_u32 state;

static void *must_resolve(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (f == NULL) {
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL); /* stdio is a cancellation point; we exit anyway */
        fprintf(stderr, "liblocklab-preload: cannot find glibc's %s (dlsym: %s)\n", name, dlerror());
        _exit(2);
    }
    return f;
}

void *lp_real_lookup(const char *name) { return must_resolve(name); }

void lp_real_resolve(void)
{
    if (ll_load_acquire(&state) == RESOLVED) /* acquire: pairs with the release below; the table is filled */
        return;
    uint32_t expected = UNRESOLVED;
    if (!ll_cas(&state, &expected, RESOLVING, LL_ACQUIRE)) { /* acquire: on failure, see RESOLVED's table */
        uint32_t turns = 0;
        while (ll_load_acquire(&state) != RESOLVED) /* acquire: pairs with the release below */
            ll_yield_turn(&turns);
        return;
    }
#define RESOLVE(field, name, params) lp_real.field = (__typeof__(lp_real.field))must_resolve(name);
    LP_REAL_FNS(RESOLVE)
#undef RESOLVE
    ll_store_release(&state, RESOLVED); /* release: the table above is complete before the flag */
}

/* The glibc mutex calls of the library code compiled into the interposer
 * (glibc_mutex.h): resolve, then call glibc's. */
#define REAL_CALL(field, params, args)                                                   \
    int lp_real_##field params                                                           \
    {                                                                                    \
        lp_real_resolve();                                                               \
        return lp_real.field args;                                                       \
    }
REAL_CALL(mutex_init, (pthread_mutex_t *m, const pthread_mutexattr_t *attr), (m, attr))
REAL_CALL(mutex_destroy, (pthread_mutex_t *m), (m))
REAL_CALL(mutex_lock, (pthread_mutex_t *m), (m))
REAL_CALL(mutex_trylock, (pthread_mutex_t *m), (m))
REAL_CALL(mutex_unlock, (pthread_mutex_t *m), (m))
REAL_CALL(mutex_timedlock, (pthread_mutex_t *m, const struct timespec *abstime), (m, abstime))
/* The glibc rwlock calls of the library code compiled into the interposer (glibc_mutex.h:
 * the `pthread` and `bravo-pthread` rwlocks, src/locks/rw_pthread.c). */
REAL_CALL(rwlock_init, (pthread_rwlock_t *l, const pthread_rwlockattr_t *attr), (l, attr))
REAL_CALL(rwlock_destroy, (pthread_rwlock_t *l), (l))
REAL_CALL(rwlock_rdlock, (pthread_rwlock_t *l), (l))
REAL_CALL(rwlock_tryrdlock, (pthread_rwlock_t *l), (l))
REAL_CALL(rwlock_timedrdlock, (pthread_rwlock_t *l, const struct timespec *abstime), (l, abstime))
REAL_CALL(rwlock_wrlock, (pthread_rwlock_t *l), (l))
REAL_CALL(rwlock_trywrlock, (pthread_rwlock_t *l), (l))
REAL_CALL(rwlock_timedwrlock, (pthread_rwlock_t *l, const struct timespec *abstime), (l, abstime))
REAL_CALL(rwlock_unlock, (pthread_rwlock_t *l), (l))
