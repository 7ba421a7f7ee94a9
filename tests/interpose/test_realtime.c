/*
 * Real-time priorities: threads at different SCHED_FIFO priorities, all pinned
 * to one CPU, contend for a mutex.  A waiter that only spins (or yields: under
 * SCHED_FIFO sched_yield never runs a lower priority) preempts the
 * lower-priority holder and never lets it run to its unlock: the process hangs
 * (stress-ng --mutex did, under tas, ticket and mcs).  The waiting engine must
 * make such a waiter sleep (src/wait/wait.c, "real-time callers").
 *
 *   holder: a priority-10 thread holds the mutex through 5 ms of work while a
 *           priority-20 thread asks for it (3 rounds);
 *   mixed:  4 threads at priorities 10..13 take the mutex 500 times each (20 us
 *           of work inside, a 50 us sleep outside), the last one changing its
 *           priority every iteration (pthread_setschedparam).
 *
 * With the argument "spin", the same rounds on a pthread_spinlock_t (LOCKLAB_SPIN):
 * spinlocks never park, whatever LOCKLAB_LOCK, so their real-time waiters always sleep.
 *
 * Needs CAP_SYS_NICE (root): without it, one line and exit 0 (skipped).  A hang
 * is a failure: SIGALRM after 15 s kills the process.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_spinlock_t sl;
static bool use_spin; /* argv[1] "spin": the rounds take sl instead of m */
static volatile int held;
static long counter;

static void lock(void)
{
    if (use_spin)
        pthread_spin_lock(&sl);
    else
        pthread_mutex_lock(&m);
}
static void unlock(void)
{
    if (use_spin)
        pthread_spin_unlock(&sl);
    else
        pthread_mutex_unlock(&m);
}

/* Keep the CPU busy for ns (CPU time is what a starved holder lacks). */
static void work(uint64_t ns)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    do
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    while ((uint64_t)(t.tv_sec - t0.tv_sec) * 1000000000u + (uint64_t)t.tv_nsec - (uint64_t)t0.tv_nsec < ns);
}

/* Start fn(arg) at SCHED_FIFO priority prio (attributes: explicit scheduling). */
static int start_fifo(pthread_t *t, int prio, void *(*fn)(void *), void *arg)
{
    pthread_attr_t a;
    struct sched_param sp = {.sched_priority = prio};
    pthread_attr_init(&a);
    pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
    pthread_attr_setschedpolicy(&a, SCHED_FIFO);
    pthread_attr_setschedparam(&a, &sp);
    int rc = pthread_create(t, &a, fn, arg);
    pthread_attr_destroy(&a);
    return rc;
}

static void *low_holder(void *arg)
{
    (void)arg;
    lock();
    held = 1;
    work(5000000);
    counter++;
    unlock();
    return NULL;
}

static void *high_waiter(void *arg)
{
    (void)arg;
    lock();
    counter++;
    unlock();
    return NULL;
}

static void holder_round(void)
{
    pthread_t lo, hi;
    held = 0;
    CHECK_EQ(start_fifo(&lo, 10, low_holder, NULL), 0);
    while (!held)
        usleep(100); /* main outranks both: sleep so that the holder runs */
    CHECK_EQ(start_fifo(&hi, 20, high_waiter, NULL), 0); /* preempts the holder at once, then waits */
    pthread_join(hi, NULL);
    pthread_join(lo, NULL);
}

enum { MIXED_THREADS = 4, MIXED_ITERATIONS = 500 };

static void *mixed_worker(void *arg)
{
    int me = (int)(intptr_t)arg;
    for (int i = 0; i < MIXED_ITERATIONS; i++) {
        if (me == MIXED_THREADS - 1) {
            struct sched_param sp = {.sched_priority = 10 + i % 8};
            pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
        }
        lock();
        counter++;
        work(20000);
        unlock();
        usleep(50); /* wakes up, maybe preempting a lower-priority holder */
    }
    return NULL;
}

int main(int argc, char **argv)
{
    require_interposed((void *)pthread_mutex_lock);
    use_spin = argc > 1 && strcmp(argv[1], "spin") == 0;
    if (argc > 1 && !use_spin) {
        fprintf(stderr, "test_realtime: unknown argument '%s' (valid: spin, or none)\n", argv[1]);
        return 2;
    }
    CHECK_EQ(pthread_spin_init(&sl, PTHREAD_PROCESS_PRIVATE), 0);
    /* All on one CPU: the first this process may use. */
    cpu_set_t all, one;
    CHECK_EQ(sched_getaffinity(0, sizeof all, &all), 0);
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &all)) {
            CPU_SET(c, &one);
            break;
        }
    CHECK_EQ(sched_setaffinity(0, sizeof one, &one), 0);
    struct sched_param sp = {.sched_priority = 30};
    int rc = sched_setscheduler(0, SCHED_FIFO, &sp);
    if (rc != 0 && (errno == EPERM || errno == EINVAL)) {
        printf("test_realtime: skipped: SCHED_FIFO not permitted here (%s); needs root or CAP_SYS_NICE\n",
               strerror(errno));
        return 0;
    }
    CHECK_EQ(rc, 0);
    alarm(15); /* a hang is a failure: SIGALRM's default action ends the process */
    uint64_t t0 = test_now_ns();
    for (int round = 0; round < 3; round++)
        holder_round();
    CHECK_EQ(counter, 6);
    pthread_t t[MIXED_THREADS];
    for (int i = 0; i < MIXED_THREADS; i++)
        CHECK_EQ(start_fifo(&t[i], 10 + i, mixed_worker, (void *)(intptr_t)i), 0);
    test_join_n(t, MIXED_THREADS);
    CHECK_EQ(counter, 6 + MIXED_THREADS * MIXED_ITERATIONS);
    fprintf(stderr, "test_realtime%s: %.0f ms\n", use_spin ? " (spinlock)" : "", (double)(test_now_ns() - t0) / 1e6);
    return test_done("test_realtime");
}
