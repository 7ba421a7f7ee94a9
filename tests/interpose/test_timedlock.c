/*
 * A timed waiter is served while the lock keeps changing hands.
 *
 * HAMMERS threads lock and unlock one mutex as fast as they can; one more thread
 * calls pthread_mutex_timedlock on it with a generous timeout (TIMEOUT_MS), up to
 * ATTEMPTS times.  Under glibc the timed thread gets the mutex at once; under a
 * FIFO queue lock whose timed acquire only polls try_acquire it never does (the
 * lock is never free: it goes from queued waiter to queued waiter) and times out
 * although the mutex changed hands thousands of times.
 *
 * Fails if an attempt timed out while the hammering threads acquired the mutex
 * more than HANDOVERS times during it (a timed waiter must be served within a
 * bounded number of handovers: any lock's bound is far below that), or if no
 * attempt succeeded while the mutex changed hands more than HANDOVERS times
 * during the failed attempts together.  An attempt during which the lock changed
 * hands fewer times (a pure-spin lock under oversubscription may hand over only a
 * few times a second) proves nothing either way and is just retried.
 * Two phases: "busy", HAMMERS threads that re-lock at once (the lock is free now
 * and then on 2 CPUs, so even a poller is served there: this phase guards the
 * bound, not the queueing), and "queued", QUEUED threads that hold the mutex
 * HOLD_US and pause PAUSE_US < HOLD_US between holds, so that whenever one
 * releases, the others are queued behind it and a queue lock is never free: a
 * timed waiter that only polls try_acquire is never served there (hemlock-stp,
 * shfl-stp before they had acquire_until), one that queues is served within a
 * few handovers.  Nothing is timed but the deadlines: the checks count handovers.
 * Also checks mutual exclusion (a plain counter, compared at the end).
 *
 * Argument "sleeps" (run_tests.sh timed-sleeps, for specs whose policy parks):
 * instead, a timed waiter must sleep like an untimed one.  A thread holds the
 * mutex SLEEP_HOLD_MS while two threads time-lock it (deadline 10 s): the
 * first waits for the lock itself, the second, under hemlock, for the first's
 * turn (its gate); each must get the mutex, use less than a third of the hold
 * as CPU time and be switched out at most MAX_SWITCHES times (spinning or
 * yielding until the release burns the CPU on an idle machine, and is
 * switched out at every yield on a busy one).  A resource check, not a
 * performance one: it tells asleep from awake.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>

#include "check.h"

enum { HAMMERS = 8, ATTEMPTS = 20, TIMEOUT_MS = 200, WANT_SUCCESSES = 10, HANDOVERS = 20000 };
/* The queued phase: each attempt would see about TIMEOUT_MS * 1000 / HOLD_US handovers (200) if
 * it timed out; QUEUED_HANDOVERS is above any lock's bound for QUEUED + 1 threads (mcscr's
 * patience, 50 ms, is the longest: about 50 holds). */
enum { QUEUED = 3, HOLD_US = 1000, PAUSE_US = 200, QUEUED_HANDOVERS = 120 };

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static atomic_int stop;
static atomic_long acquired;   /* by the hammering threads (read by the timed thread: a progress gauge) */
static long plain_counter;     /* protected by mutex */
static long hammer_counts[HAMMERS];
static int hold_us, pause_us;  /* the phase's; 0: re-lock at once */

static void *hammer(void *arg)
{
    long *mine = (long *)arg, n = 0;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        pthread_mutex_lock(&mutex);
        plain_counter++;
        if (hold_us)
            test_sleep_us(hold_us);
        pthread_mutex_unlock(&mutex);
        n++;
        atomic_fetch_add_explicit(&acquired, 1, memory_order_relaxed);
        if (pause_us)
            test_sleep_us(pause_us);
    }
    *mine = n;
    return NULL;
}

/* One phase: nthreads hammer while the timed thread tries; bound: the most handovers a
 * timed-out attempt may have let pass. */
static void phase(const char *name, int nthreads, int hold, int pause, long bound)
{
    hold_us = hold, pause_us = pause;
    atomic_store(&stop, 0);
    atomic_store(&acquired, 0);
    plain_counter = 0;
    pthread_t t[HAMMERS];
    for (int i = 0; i < nthreads; i++)
        test_start(&t[i], hammer, &hammer_counts[i]);
    while (atomic_load(&acquired) < (hold ? 10 : 1000)) /* everyone is hammering */
        sched_yield();

    int successes = 0, timeouts = 0, starved = 0;
    long timed_acquired = 0, timed_out_handovers = 0;
    for (int a = 0; a < ATTEMPTS && successes < WANT_SUCCESSES; a++) {
        long before = atomic_load(&acquired);
        struct timespec until = in_ms(CLOCK_REALTIME, TIMEOUT_MS);
        int rc = pthread_mutex_timedlock(&mutex, &until);
        long during = atomic_load(&acquired) - before;
        if (rc == 0) {
            plain_counter++;
            timed_acquired++;
            successes++;
            pthread_mutex_unlock(&mutex);
        } else {
            CHECK_EQ(rc, ETIMEDOUT);
            timeouts++;
            timed_out_handovers += during;
            if (during > bound) {
                fprintf(stderr, "%s: attempt %d timed out after %d ms while the mutex changed hands %ld times\n",
                        name, a, TIMEOUT_MS, during);
                starved++;
            }
        }
    }
    atomic_store(&stop, 1);
    test_join_n(t, nthreads);
    long total = timed_acquired;
    for (int i = 0; i < nthreads; i++)
        total += hammer_counts[i];
    CHECK_EQ(plain_counter, total); /* mutual exclusion */
    CHECK_EQ(starved, 0);
    CHECK(successes > 0 || timed_out_handovers <= bound); /* never served while the lock changed hands a lot */
    printf("%s: timed: %d acquired, %d timed out; hammering threads: %ld acquisitions\n", name, successes,
           timeouts, total - timed_acquired);
}

/* ---- a timed waiter sleeps ----------------------------------------------------------- */
/* A sleeper blocks a few times (the gate, the drain, its spin phase's end); a thread that
 * spins or yields either burns the CPU (idle machine) or is switched out again and again. */
enum { SLEEP_HOLD_MS = 600, SLEEPERS = 2, MAX_SWITCHES = 50 };
static pthread_mutex_t sleep_m = PTHREAD_MUTEX_INITIALIZER;

static double thread_cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* Context switches of the calling thread so far, voluntary and not. */
static long thread_switches(void)
{
    struct rusage u;
    getrusage(RUSAGE_THREAD, &u);
    return u.ru_nvcsw + u.ru_nivcsw;
}

typedef struct sleeper {
    int rc;
    double cpu_s, wall_s;
    long switches;
} sleeper;

static void *timed_sleeper(void *arg)
{
    sleeper *me = (sleeper *)arg;
    struct timespec deadline = in_ms(CLOCK_REALTIME, 10000);
    double t0 = thread_cpu_s(), w0 = test_now_ns() / 1e9;
    long s0 = thread_switches();
    me->rc = pthread_mutex_timedlock(&sleep_m, &deadline);
    me->switches = thread_switches() - s0;
    me->cpu_s = thread_cpu_s() - t0;
    me->wall_s = test_now_ns() / 1e9 - w0;
    if (me->rc == 0)
        pthread_mutex_unlock(&sleep_m);
    return NULL;
}

static int timed_waiters_sleep(void)
{
    CHECK_EQ(pthread_mutex_lock(&sleep_m), 0);
    pthread_t t[SLEEPERS];
    sleeper s[SLEEPERS];
    for (int i = 0; i < SLEEPERS; i++) {
        CHECK_EQ(pthread_create(&t[i], NULL, timed_sleeper, &s[i]), 0);
        usleep(20000); /* the first is waiting (for hemlock: has closed the gate) before the second comes */
    }
    usleep((SLEEP_HOLD_MS - 20 * SLEEPERS) * 1000);
    CHECK_EQ(pthread_mutex_unlock(&sleep_m), 0);
    for (int i = 0; i < SLEEPERS; i++) {
        pthread_join(t[i], NULL);
        printf("timed waiter %d: rc %d after %.3f s, %.3f s of CPU, %ld context switches (the mutex was held %d ms)\n",
               i, s[i].rc, s[i].wall_s, s[i].cpu_s, s[i].switches, SLEEP_HOLD_MS);
        CHECK_EQ(s[i].rc, 0);
        CHECK(s[i].cpu_s < SLEEP_HOLD_MS / 3 / 1000.0);
        CHECK(s[i].switches <= MAX_SWITCHES);
    }
    return test_done("test_timedlock sleeps");
}

int main(int argc, char **argv)
{
    require_interposed((void *)pthread_mutex_lock);
    if (argc > 1 && strcmp(argv[1], "sleeps") == 0)
        return timed_waiters_sleep();
    phase("busy", HAMMERS, 0, 0, HANDOVERS);
    phase("queued", QUEUED, HOLD_US, PAUSE_US, QUEUED_HANDOVERS);
    return test_done("test_timedlock");
}
