/* What the interposer's test programs share beyond tests/test_util.h (threads,
 * deadlines, CHECK, test_done): the check that the interposer is loaded, mutexes,
 * condition variables and rwlocks with one attribute, and deadlines in milliseconds. */
#ifndef LOCKLAB_TEST_INTERPOSE_CHECK_H
#define LOCKLAB_TEST_INTERPOSE_CHECK_H
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test_util.h"

/* Fails the test unless pthread_mutex_lock, as this program calls it, is the
 * interposer's: a test that silently ran on glibc would prove nothing. */
static void require_interposed(void *fn)
{
    Dl_info info;
    if (!dladdr(fn, &info) || !info.dli_fname || !strstr(info.dli_fname, "liblocklab-preload")) {
        fprintf(stderr, "not running under liblocklab-preload.so (pthread_mutex_lock is in %s)\n",
                info.dli_fname ? info.dli_fname : "?");
        exit(1);
    }
}

/* init_mutex_with(&m, set, value), init_cond_with(&c, ...), init_rwlock_with(&l, ...):
 * pthread_OBJ_init of the object with one attribute, set(&attr, value) (e.g.
 * pthread_mutexattr_setrobust, PTHREAD_MUTEX_ROBUST); the setter's error, else init's
 * answer.  The attribute object is destroyed before returning: an initialised object
 * does not depend on it. */
#define INIT_WITH(OBJ)                                                                                 \
    static inline int init_##OBJ##_with(pthread_##OBJ##_t *o,                                          \
                                        int (*set)(pthread_##OBJ##attr_t *, int), int value)           \
    {                                                                                                  \
        pthread_##OBJ##attr_t a;                                                                       \
        pthread_##OBJ##attr_init(&a);                                                                  \
        int rc = set(&a, value);                                                                       \
        if (rc == 0)                                                                                   \
            rc = pthread_##OBJ##_init(o, &a);                                                          \
        pthread_##OBJ##attr_destroy(&a);                                                               \
        return rc;                                                                                     \
    }
INIT_WITH(mutex)
INIT_WITH(cond)
INIT_WITH(rwlock)
#undef INIT_WITH

/* pthread_mutex_init of m as a mutex of that type (PTHREAD_MUTEX_ERRORCHECK, ...): the setter's
 * error, else init's answer. */
static inline int init_mutex_of_type(pthread_mutex_t *m, int type)
{
    return init_mutex_with(m, pthread_mutexattr_settype, type);
}

/* An absolute deadline ms milliseconds from now on clock. */
static inline struct timespec in_ms(clockid_t clock, long ms) { return test_deadline(clock, ms * 1000000L); }
#endif
