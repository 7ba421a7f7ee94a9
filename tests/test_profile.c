/*
 * The profiler module driven directly (no interposer): a hot mutex shared by
 * 4 threads, a cold one used by one thread, a semaphore-like object, a
 * snapshot on SIGUSR1, a fork()ed child that takes a lock and one that takes
 * none (no report).  Prints "COUNTER CHILD IDLE_CHILD"; test_profile.sh checks the report.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../src/interpose/profile.h"
#include "locklab/core.h"
#include "test_util.h"

enum { THREADS = 4, ROUNDS = 20000 };
static pthread_mutex_t hot_mutex = PTHREAD_MUTEX_INITIALIZER, cold_mutex = PTHREAD_MUTEX_INITIALIZER;
static lp_profile *hot, *cold, *sem;
static unsigned long counter;
static pthread_barrier_t start;

static void *worker(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&start); /* all started, main still holds the hot mutex */
    for (int i = 0; i < ROUNDS; i++) {
        bool contended = pthread_mutex_trylock(&hot_mutex) != 0;
        uint64_t t0 = contended ? ll_now_ns() : 0;
        if (contended)
            pthread_mutex_lock(&hot_mutex);
        lp_profile_acquired(hot, contended, contended ? ll_now_ns() - t0 : 0);
        for (int k = 0; k < 50; k++) /* ~100 ns of critical section, so the 4 threads collide */
            ((volatile unsigned long *)&counter)[0]++;
        lp_profile_releasing(hot);
        pthread_mutex_unlock(&hot_mutex);
    }
    return NULL;
}

static void use_cold(int times)
{
    for (int i = 0; i < times; i++) {
        pthread_mutex_lock(&cold_mutex);
        lp_profile_acquired(cold, false, 0);
        lp_profile_releasing(cold);
        pthread_mutex_unlock(&cold_mutex);
    }
}

int main(void)
{
    if (lp_profile_init() != 0)
        return 2;
    if (!lp_profiling) {
        fprintf(stderr, "test_profile: set LOCKLAB_PROFILE\n");
        return 1;
    }
    lp_profile_set_config("test-lock", "fifo", "none", "lifo-cr");
    hot = lp_profile_new(&hot_mutex, "mutex", "normal", false, __builtin_return_address(0));
    cold = lp_profile_new(&cold_mutex, "mutex", "recursive", false, (void *)main);
    sem = lp_profile_new(&counter, "sem", "normal", false, (void *)main);
    lp_profile_new(&sem, "mutex", "robust", true, (void *)main); /* never used: listed last */
    pthread_t t[THREADS];
    pthread_barrier_init(&start, NULL, THREADS);
    pthread_mutex_lock(&hot_mutex); /* every worker's first try fails: at least THREADS contended acquisitions */
    test_start_n(t, THREADS, worker, NULL, 0);
    usleep(20000);
    pthread_mutex_unlock(&hot_mutex);
    test_join_n(t, THREADS);
    use_cold(100);
    for (int i = 0; i < 7; i++)
        lp_profile_trylock_failed(cold);
    for (int i = 0; i < 10; i++)
        lp_profile_waited(sem, true, 1000);
    lp_profile_waited(sem, false, 0);
    const char *sig = getenv("LOCKLAB_PROFILE_SIGNAL");
    if (sig && *sig)
        raise(SIGUSR1); /* with LOCKLAB_PROFILE_SIGNAL=USR1: the next acquisition writes PATH.snap1 */
    use_cold(1);
    pid_t child = fork();
    if (child == 0) {
        use_cold(5); /* the child's report goes to PATH.<pid> */
        exit(0);
    }
    int status, idle_status;
    waitpid(child, &status, 0);
    pid_t idle = fork();
    if (idle == 0)
        exit(0); /* takes no lock: writes no report */
    waitpid(idle, &idle_status, 0);
    printf("%lu %d %d\n", counter, (int)child, (int)idle);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 && WIFEXITED(idle_status) && WEXITSTATUS(idle_status) == 0 ? 0 : 1;
}
