/* glibc's pthread_mutex_* (see real.h), and the wrappers glibc_mutex.h
 * redirects the lock library's own mutex calls to. */
#define _GNU_SOURCE
#include <dlfcn.h>
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
        fprintf(stderr, "liblocklab-preload: cannot find glibc's %s (dlsym: %s)\n", name, dlerror());
        _exit(2);
    }
    return f;
}

void lp_real_resolve(void)
{
    if (ll_load_acquire(&state) == RESOLVED) /* acquire: pairs with the release below; the table is filled */
        return;
    uint32_t expected = UNRESOLVED;
    if (!ll_cas(&state, &expected, RESOLVING, LL_ACQUIRE)) { /* acquire: on failure, see RESOLVED's table */
        while (ll_load_acquire(&state) != RESOLVED) /* acquire: pairs with the release below */
            ll_yield();
        return;
    }
#define RESOLVE(field, name) lp_real.field = (__typeof__(lp_real.field))must_resolve(name)
    RESOLVE(mutex_init, "pthread_mutex_init");
    RESOLVE(mutex_destroy, "pthread_mutex_destroy");
    RESOLVE(mutex_lock, "pthread_mutex_lock");
    RESOLVE(mutex_trylock, "pthread_mutex_trylock");
    RESOLVE(mutex_timedlock, "pthread_mutex_timedlock");
    RESOLVE(mutex_clocklock, "pthread_mutex_clocklock");
    RESOLVE(mutex_unlock, "pthread_mutex_unlock");
    RESOLVE(cond_init, "pthread_cond_init");
    RESOLVE(cond_destroy, "pthread_cond_destroy");
    RESOLVE(cond_wait, "pthread_cond_wait");
    RESOLVE(cond_timedwait, "pthread_cond_timedwait");
    RESOLVE(cond_clockwait, "pthread_cond_clockwait");
    RESOLVE(cond_signal, "pthread_cond_signal");
    RESOLVE(cond_broadcast, "pthread_cond_broadcast");
    RESOLVE(sem_init, "sem_init");
    RESOLVE(sem_destroy, "sem_destroy");
    RESOLVE(sem_wait, "sem_wait");
    RESOLVE(sem_trywait, "sem_trywait");
    RESOLVE(sem_timedwait, "sem_timedwait");
    RESOLVE(sem_clockwait, "sem_clockwait");
    RESOLVE(sem_post, "sem_post");
    RESOLVE(sem_getvalue, "sem_getvalue");
#undef RESOLVE
    ll_store_release(&state, RESOLVED); /* release: the table above is complete before the flag */
}

int lp_real_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr)
{
    lp_real_resolve();
    return lp_real.mutex_init(m, attr);
}
int lp_real_mutex_destroy(pthread_mutex_t *m)
{
    lp_real_resolve();
    return lp_real.mutex_destroy(m);
}
int lp_real_mutex_lock(pthread_mutex_t *m)
{
    lp_real_resolve();
    return lp_real.mutex_lock(m);
}
int lp_real_mutex_trylock(pthread_mutex_t *m)
{
    lp_real_resolve();
    return lp_real.mutex_trylock(m);
}
int lp_real_mutex_unlock(pthread_mutex_t *m)
{
    lp_real_resolve();
    return lp_real.mutex_unlock(m);
}
