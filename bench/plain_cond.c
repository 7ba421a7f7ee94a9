/*
 * locklab-plain-cond: plain pthread programs built on condition variables, for
 * glibc against the interposer (docs/performance.md, rows condpool-* and
 * condbarrier-*); no locklab code in it.
 *
 *   locklab-plain-cond pool W P N WORK [signal|broadcast]
 *     P producers push N tasks in all into a bounded queue (64 slots) under one
 *     mutex, waiting on `notfull` when it is full and spinning WORK/4 steps after
 *     each push; W workers pop them, waiting on `notempty` when it is empty, and
 *     spin WORK steps after each pop.  Each push and pop signals (default) or
 *     broadcasts (as code that wakes all waiters where one would do).  TASKS is
 *     rounded down to a multiple of P.
 *   locklab-plain-cond barrier T ROUNDS
 *     T threads pass ROUNDS barriers made of a mutex, a counter and one
 *     condition variable: the last to arrive broadcasts.
 *
 * Prints one line: rate=R (tasks or barrier rounds per second) time=S.
 * Bad arguments: one line on stderr naming the value and the valid choices, exit 2.
 *   LD_PRELOAD=build/lib/liblocklab-preload.so build/bin/locklab-plain-cond pool 16 4 200000 100
 * Timing only: never a test.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <time.h>

#include "cond_barrier.h"

enum { QUEUE = 64, MAX_WORKERS = 256, MAX_PRODUCERS = 64, MAX_BARRIER_THREADS = 256 };

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t notempty = PTHREAD_COND_INITIALIZER, notfull = PTHREAD_COND_INITIALIZER;
static long queue[QUEUE];
static int head, tail, count, stop;
static long done_tasks;
static long work = 200;
static int (*wake)(pthread_cond_t *) = pthread_cond_signal;
static long barrier_rounds;
static cond_barrier barrier = {.m = &mutex, .c = &notempty};

static void spin(long n)
{
    volatile long x = 0;
    for (long i = 0; i < n; i++)
        x += i;
}

static void *producer(void *arg)
{
    long n = (long)arg;
    for (long i = 0; i < n; i++) {
        pthread_mutex_lock(&mutex);
        while (count == QUEUE)
            pthread_cond_wait(&notfull, &mutex);
        queue[tail] = i;
        tail = (tail + 1) % QUEUE;
        count++;
        wake(&notempty);
        pthread_mutex_unlock(&mutex);
        spin(work / 4);
    }
    return NULL;
}

static void *worker(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&mutex);
        while (count == 0 && !stop)
            pthread_cond_wait(&notempty, &mutex);
        if (count == 0) { /* stopped and drained */
            pthread_mutex_unlock(&mutex);
            return NULL;
        }
        head = (head + 1) % QUEUE;
        count--;
        done_tasks++;
        wake(&notfull);
        pthread_mutex_unlock(&mutex);
        spin(work);
    }
}

static void *barrier_thread(void *arg)
{
    (void)arg;
    for (long r = 0; r < barrier_rounds; r++)
        cond_barrier_wait(&barrier);
    return NULL;
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) * 1e-9;
}

/* argv[i] as a whole number in [min, max], or one line naming it and exit 2. */
static long number(int argc, char **argv, int i, const char *name, long min, long max, const char *usage)
{
    const char *text = i < argc ? argv[i] : "";
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (i >= argc || end == text || *end != 0 || errno != 0 || v < min || v > max) {
        fprintf(stderr, "locklab-plain-cond: bad %s '%s' (valid: %ld..%ld; usage: %s)\n", name, text, min, max, usage);
        exit(2);
    }
    return v;
}

static void start(pthread_t *t, void *(*fn)(void *), void *arg)
{
    if (pthread_create(t, NULL, fn, arg) != 0) {
        fprintf(stderr, "locklab-plain-cond: cannot create a thread\n");
        exit(1);
    }
}

static int run_barrier(int argc, char **argv)
{
    const char *usage = "barrier THREADS ROUNDS";
    if (argc != 4) {
        fprintf(stderr, "locklab-plain-cond: barrier takes 2 arguments, not %d (usage: %s)\n", argc - 2, usage);
        return 2;
    }
    barrier.threads = (int)number(argc, argv, 2, "THREADS", 2, MAX_BARRIER_THREADS, usage);
    barrier_rounds = number(argc, argv, 3, "ROUNDS", 1, 1000000000L, usage);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pthread_t t[MAX_BARRIER_THREADS];
    for (int i = 0; i < barrier.threads; i++)
        start(&t[i], barrier_thread, NULL);
    for (int i = 0; i < barrier.threads; i++)
        pthread_join(t[i], NULL);
    double s = seconds_since(&t0);
    printf("rate=%.0f time=%.3f rounds=%ld threads=%d\n", (double)barrier_rounds / s, s, barrier_rounds, barrier.threads);
    return 0;
}

static int run_pool(int argc, char **argv)
{
    const char *usage = "pool WORKERS PRODUCERS TASKS WORK [signal|broadcast]";
    if (argc != 6 && argc != 7) {
        fprintf(stderr, "locklab-plain-cond: pool takes 4 or 5 arguments, not %d (usage: %s)\n", argc - 2, usage);
        return 2;
    }
    int workers = (int)number(argc, argv, 2, "WORKERS", 1, MAX_WORKERS, usage);
    int producers = (int)number(argc, argv, 3, "PRODUCERS", 1, MAX_PRODUCERS, usage);
    long tasks = number(argc, argv, 4, "TASKS", producers, 1000000000000L, usage);
    work = number(argc, argv, 5, "WORK", 0, 1000000000L, usage);
    const char *how = argc > 6 ? argv[6] : "signal";
    if (strcmp(how, "broadcast") == 0) {
        wake = pthread_cond_broadcast;
    } else if (strcmp(how, "signal") != 0) {
        fprintf(stderr, "locklab-plain-cond: bad wake-up '%s' (valid: signal, broadcast)\n", how);
        return 2;
    }
    long per_producer = tasks / producers; /* TASKS rounded down to a multiple of PRODUCERS */
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pthread_t w[MAX_WORKERS], p[MAX_PRODUCERS];
    for (int i = 0; i < workers; i++)
        start(&w[i], worker, NULL);
    for (int i = 0; i < producers; i++)
        start(&p[i], producer, (void *)per_producer);
    for (int i = 0; i < producers; i++)
        pthread_join(p[i], NULL);
    pthread_mutex_lock(&mutex);
    stop = 1;
    pthread_cond_broadcast(&notempty);
    pthread_mutex_unlock(&mutex);
    for (int i = 0; i < workers; i++)
        pthread_join(w[i], NULL);
    double s = seconds_since(&t0);
    printf("rate=%.0f time=%.3f tasks=%ld\n", (double)done_tasks / s, s, done_tasks);
    if (done_tasks != per_producer * producers) {
        fprintf(stderr, "locklab-plain-cond: %ld tasks done, %ld pushed: the mutex or the condition variables failed\n",
                done_tasks, per_producer * producers);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "pool") == 0)
        return run_pool(argc, argv);
    if (strcmp(mode, "barrier") == 0)
        return run_barrier(argc, argv);
    fprintf(stderr, "locklab-plain-cond: unknown program '%s' (valid: pool, barrier)\n", mode);
    return 2;
}
