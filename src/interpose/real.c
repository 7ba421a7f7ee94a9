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
    lp_real.mutex_init = (int (*)(pthread_mutex_t *, const pthread_mutexattr_t *))must_resolve("pthread_mutex_init");
    lp_real.mutex_destroy = (int (*)(pthread_mutex_t *))must_resolve("pthread_mutex_destroy");
    lp_real.mutex_lock = (int (*)(pthread_mutex_t *))must_resolve("pthread_mutex_lock");
    lp_real.mutex_trylock = (int (*)(pthread_mutex_t *))must_resolve("pthread_mutex_trylock");
    lp_real.mutex_timedlock =
        (int (*)(pthread_mutex_t *, const struct timespec *))must_resolve("pthread_mutex_timedlock");
    lp_real.mutex_clocklock =
        (int (*)(pthread_mutex_t *, clockid_t, const struct timespec *))must_resolve("pthread_mutex_clocklock");
    lp_real.mutex_unlock = (int (*)(pthread_mutex_t *))must_resolve("pthread_mutex_unlock");
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
