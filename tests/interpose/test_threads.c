/*
 * Thousands of threads: 2000 threads, alive at once, each takes a shared
 * mutex 50 times (non-atomic counter) and then waits at a condition-variable
 * barrier that the last one opens with a broadcast to 1999 waiters.
 */
#define _GNU_SOURCE
#include <pthread.h>

#include "check.h"

enum { THREADS = 2000, ROUNDS = 50 };
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t all_arrived = PTHREAD_COND_INITIALIZER;
static long counter; /* under m */
static int arrived;  /* under m */

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&m);
        counter++;
        pthread_mutex_unlock(&m);
    }
    pthread_mutex_lock(&m);
    if (++arrived == THREADS)
        pthread_cond_broadcast(&all_arrived);
    else
        while (arrived < THREADS)
            pthread_cond_wait(&all_arrived, &m);
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(void)
{
    require_interposed((void *)pthread_mutex_lock);
    static pthread_t t[THREADS];
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    int started = 0;
    while (started < THREADS && pthread_create(&t[started], &attr, worker, NULL) == 0)
        started++;
    CHECK_EQ(started, THREADS);
    if (started < THREADS) { /* let the started ones finish: open the barrier */
        pthread_mutex_lock(&m);
        arrived += THREADS - started;
        pthread_cond_broadcast(&all_arrived);
        pthread_mutex_unlock(&m);
    }
    for (int i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    CHECK_EQ(counter, (long)started * ROUNDS);
    return test_done("test_threads");
}
