/*
 * Cost of an uncontended pthread_mutex_lock + pthread_mutex_unlock pair,
 * interposed (the calls this program makes) against glibc's own functions
 * (looked up in libc.so.6 by version) in the same run, interleaved rounds;
 * prints medians and the ratio.  Timing only: never asserted by a test.
 *
 *   LD_PRELOAD=build/lib/liblocklab-preload.so build/tests/interpose/bench_uncontended [rounds] [pairs]
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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
    if (rounds < 1 || rounds > 100 || pairs < 1) {
        fprintf(stderr, "usage: bench_uncontended [rounds 1..100] [pairs >= 1]\n");
        return 2;
    }
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    int (*g_lock)(pthread_mutex_t *) = libc ? (int (*)(pthread_mutex_t *))dlvsym(libc, "pthread_mutex_lock", "GLIBC_2.2.5") : NULL;
    int (*g_unlock)(pthread_mutex_t *) = libc ? (int (*)(pthread_mutex_t *))dlvsym(libc, "pthread_mutex_unlock", "GLIBC_2.2.5") : NULL;
    if (!g_lock || !g_unlock) {
        fprintf(stderr, "cannot find glibc's pthread_mutex_lock/unlock\n");
        return 1;
    }
    /* A second thread existed: both glibc and locklab take their multithreaded paths. */
    pthread_t t;
    pthread_create(&t, NULL, idle, NULL);
    pthread_join(t, NULL);

    static pthread_mutex_t mine = PTHREAD_MUTEX_INITIALIZER, glibcs = PTHREAD_MUTEX_INITIALIZER;
    double ours[100], theirs[100], ratio[100];
    for (int r = 0; r < rounds; r++) {
        uint64_t t0 = test_now_ns();
        for (long i = 0; i < pairs; i++) {
            g_lock(&glibcs);
            ll_compiler_barrier();
            g_unlock(&glibcs);
        }
        uint64_t t1 = test_now_ns();
        for (long i = 0; i < pairs; i++) {
            pthread_mutex_lock(&mine);
            ll_compiler_barrier();
            pthread_mutex_unlock(&mine);
        }
        uint64_t t2 = test_now_ns();
        theirs[r] = (double)(t1 - t0) / (double)pairs;
        ours[r] = (double)(t2 - t1) / (double)pairs;
        ratio[r] = ours[r] / theirs[r];
    }
    qsort(ours, (size_t)rounds, sizeof(double), cmp);
    qsort(theirs, (size_t)rounds, sizeof(double), cmp);
    qsort(ratio, (size_t)rounds, sizeof(double), cmp);
    printf("uncontended lock+unlock pair, %d rounds of %ld: interposed %.2f ns [%.2f..%.2f], glibc %.2f ns "
           "[%.2f..%.2f], ratio %.2fx [%.2f..%.2f]\n",
           rounds, pairs, ours[rounds / 2], ours[0], ours[rounds - 1], theirs[rounds / 2], theirs[0],
           theirs[rounds - 1], ratio[rounds / 2], ratio[0], ratio[rounds - 1]);
    return 0;
}
