/*
 * cond_pool: a condition-variable thread pool, for glibc against the interposer
 * (docs/performance.md, "A condition-variable thread pool").  P producers push N
 * tasks in all into a bounded queue (64 slots) under one mutex, waiting on
 * `notfull` when it is full and spinning WORK/4 steps after each push; W workers
 * pop them, waiting on `notempty` when it is empty, and spin WORK steps after
 * each pop.  Prints the tasks, the seconds and the tasks per second.
 *   cc -O2 -pthread -o cond_pool bench/cond_pool.c
 *   ./cond_pool W P N WORK
 *   LD_PRELOAD=build/lib/liblocklab-preload.so ./cond_pool W P N WORK
 * Timing only: never a test.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { QUEUE = 64, MAX_WORKERS = 256, MAX_PRODUCERS = 64 };

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t notempty = PTHREAD_COND_INITIALIZER, notfull = PTHREAD_COND_INITIALIZER;
static long queue[QUEUE];
static int head, tail, count, stop;
static long done_tasks;
static int work = 200;

static void spin(int n)
{
    volatile int x = 0;
    for (int i = 0; i < n; i++)
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
        pthread_cond_signal(&notempty);
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
        pthread_cond_signal(&notfull);
        pthread_mutex_unlock(&mutex);
        spin(work);
    }
}

int main(int argc, char **argv)
{
    int workers = argc > 1 ? atoi(argv[1]) : 8, producers = argc > 2 ? atoi(argv[2]) : 2;
    long tasks = argc > 3 ? atol(argv[3]) : 200000;
    if (argc > 4)
        work = atoi(argv[4]);
    const char *bad = workers < 1 || workers > MAX_WORKERS       ? "WORKERS"
                      : producers < 1 || producers > MAX_PRODUCERS ? "PRODUCERS"
                      : tasks < producers                          ? "TASKS"
                      : work < 0                                   ? "WORK"
                                                                   : NULL;
    if (bad) {
        fprintf(stderr, "cond_pool: bad %s in '%s %s %s %s' (valid: WORKERS 1..%d, PRODUCERS 1..%d, TASKS >= PRODUCERS, "
                "WORK >= 0)\n", bad, argc > 1 ? argv[1] : "", argc > 2 ? argv[2] : "", argc > 3 ? argv[3] : "",
                argc > 4 ? argv[4] : "", MAX_WORKERS, MAX_PRODUCERS);
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pthread_t w[MAX_WORKERS], p[MAX_PRODUCERS];
    for (int i = 0; i < workers; i++)
        pthread_create(&w[i], NULL, worker, NULL);
    for (int i = 0; i < producers; i++)
        pthread_create(&p[i], NULL, producer, (void *)(tasks / producers));
    for (int i = 0; i < producers; i++)
        pthread_join(p[i], NULL);
    pthread_mutex_lock(&mutex);
    stop = 1;
    pthread_cond_broadcast(&notempty);
    pthread_mutex_unlock(&mutex);
    for (int i = 0; i < workers; i++)
        pthread_join(w[i], NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    printf("tasks=%ld time=%.3f rate=%.0f\n", done_tasks, s, (double)done_tasks / s);
    return 0;
}
