/* What the interposer's test programs share beyond tests/test_util.h (threads,
 * deadlines, CHECK, test_done): the check that the interposer is loaded, and
 * deadlines in milliseconds. */
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

/* pthread_mutex_init of m as a mutex of that type (PTHREAD_MUTEX_ERRORCHECK, ...); init's answer. */
static inline int init_mutex_of_type(pthread_mutex_t *m, int type)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, type);
    int rc = pthread_mutex_init(m, &a);
    pthread_mutexattr_destroy(&a);
    return rc;
}

/* An absolute deadline ms milliseconds from now on clock. */
static inline struct timespec in_ms(clockid_t clock, long ms) { return test_deadline(clock, ms * 1000000L); }
#endif
