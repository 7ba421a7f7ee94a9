/*
 * A program linked against the interposer itself (DT_NEEDED, with an absolute
 * run path): the dynamic loader loads it as /etc/ld.so.preload would, also in
 * secure-execution mode, where LD_PRELOAD paths are ignored.  run_tests.sh
 * secure makes a set-user-ID root copy and runs it as an unprivileged user.
 *
 * Prints "secure=N" (getauxval(AT_SECURE): the test checks that the path it
 * meant to exercise really ran), then takes a mutex from two threads and waits
 * on a condition variable and a semaphore, so that a profiler, if one were on,
 * would have something to report.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <sys/auxv.h>

#include "check.h"

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static sem_t sem;
static int turns;

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 1000; i++) {
        pthread_mutex_lock(&mutex);
        turns++;
        pthread_cond_signal(&cond);
        pthread_mutex_unlock(&mutex);
    }
    sem_post(&sem);
    return NULL;
}

int main(void)
{
    require_interposed((void *)pthread_mutex_lock);
    printf("secure=%lu\n", getauxval(AT_SECURE));
    fflush(stdout);
    sem_init(&sem, 0, 0);
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, worker, NULL), 0);
    pthread_mutex_lock(&mutex);
    while (turns < 1000)
        pthread_cond_wait(&cond, &mutex);
    pthread_mutex_unlock(&mutex);
    CHECK_EQ(sem_wait(&sem), 0);
    CHECK_EQ(pthread_join(t, NULL), 0);
    return test_done("test_secure");
}
