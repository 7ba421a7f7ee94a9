/*
 * Cost of an uncontended pthread_mutex_lock + pthread_mutex_unlock pair (or
 * pthread_rwlock_rdlock or _wrlock + pthread_rwlock_unlock), interposed (the
 * calls this program makes) against glibc's own functions (looked up in
 * libc.so.6 by version) in the same run, interleaved rounds; prints medians and
 * the ratio.  Timing only: never asserted by a test.
 *
 *   LD_PRELOAD=build/lib/liblocklab-preload.so build/tests/interpose/bench_uncontended [rounds] [pairs] [mutex|rdlock|wrlock]
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../test_util.h"
#include "locklab/atomics.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static void *idle(void *arg) { return arg; }

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 7;
    long pairs = argc > 2 ? atol(argv[2]) : 2000000;
    const char *what = argc > 3 ? argv[3] : "mutex";
    if (rounds < 1 || rounds > 100 || pairs < 1) {
        fprintf(stderr, "usage: bench_uncontended [rounds 1..100] [pairs >= 1] [mutex|rdlock|wrlock]\n");
        return 2;
    }
    const char *lock_name = strcmp(what, "mutex") == 0    ? "pthread_mutex_lock"
                            : strcmp(what, "rdlock") == 0 ? "pthread_rwlock_rdlock"
                            : strcmp(what, "wrlock") == 0 ? "pthread_rwlock_wrlock"
                                                          : NULL;
    if (lock_name == NULL) {
        fprintf(stderr, "bench_uncontended: unknown pair '%s' (valid: mutex, rdlock, wrlock)\n", what);
        return 2;
    }
    bool rw = lock_name[8] == 'r'; /* pthread_rwlock_... */
    const char *unlock_name = rw ? "pthread_rwlock_unlock" : "pthread_mutex_unlock";
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    int (*g_lock)(void *) = libc ? (int (*)(void *))dlvsym(libc, lock_name, "GLIBC_2.2.5") : NULL;
    int (*g_unlock)(void *) = libc ? (int (*)(void *))dlvsym(libc, unlock_name, "GLIBC_2.2.5") : NULL;
    /* the interposed ones: this program's own calls, through the PLT */
    int (*i_lock)(void *) = (int (*)(void *))(rw ? (what[0] == 'r' ? (void *)pthread_rwlock_rdlock : (void *)pthread_rwlock_wrlock)
                                                 : (void *)pthread_mutex_lock);
    int (*i_unlock)(void *) = (int (*)(void *))(rw ? (void *)pthread_rwlock_unlock : (void *)pthread_mutex_unlock);
    if (!g_lock || !g_unlock) {
        fprintf(stderr, "cannot find glibc's %s/%s\n", lock_name, unlock_name);
        return 1;
    }
    /* A second thread existed: both glibc and locklab take their multithreaded paths. */
    pthread_t t;
    pthread_create(&t, NULL, idle, NULL);
    pthread_join(t, NULL);

    static pthread_mutex_t mine = PTHREAD_MUTEX_INITIALIZER, glibcs = PTHREAD_MUTEX_INITIALIZER;
    static pthread_rwlock_t rw_mine = PTHREAD_RWLOCK_INITIALIZER, rw_glibcs = PTHREAD_RWLOCK_INITIALIZER;
    void *my_lock = rw ? (void *)&rw_mine : (void *)&mine, *glibc_lock = rw ? (void *)&rw_glibcs : (void *)&glibcs;
    double ours[100], theirs[100], ratio[100];
    for (int r = 0; r < rounds; r++) {
        uint64_t t0 = test_now_ns();
        for (long i = 0; i < pairs; i++) {
            g_lock(glibc_lock);
            ll_compiler_barrier();
            g_unlock(glibc_lock);
        }
        uint64_t t1 = test_now_ns();
        for (long i = 0; i < pairs; i++) {
            i_lock(my_lock);
            ll_compiler_barrier();
            i_unlock(my_lock);
        }
        uint64_t t2 = test_now_ns();
        theirs[r] = (double)(t1 - t0) / (double)pairs;
        ours[r] = (double)(t2 - t1) / (double)pairs;
        ratio[r] = ours[r] / theirs[r];
    }
    qsort(ours, (size_t)rounds, sizeof(double), cmp);
    qsort(theirs, (size_t)rounds, sizeof(double), cmp);
    qsort(ratio, (size_t)rounds, sizeof(double), cmp);
    printf("uncontended %s+unlock pair, %d rounds of %ld: interposed %.2f ns [%.2f..%.2f], glibc %.2f ns "
           "[%.2f..%.2f], ratio %.2fx [%.2f..%.2f]\n",
           rw ? what : "lock", rounds, pairs, ours[rounds / 2], ours[0], ours[rounds - 1], theirs[rounds / 2], theirs[0],
           theirs[rounds - 1], ratio[rounds / 2], ratio[0], ratio[rounds - 1]);
    return 0;
}
