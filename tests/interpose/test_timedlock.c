/*
 * A timed waiter is served while the lock keeps changing hands (issue 13, item 4).
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
 * Also checks mutual exclusion (a plain counter, compared at the end).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "check.h"

enum { HAMMERS = 8, ATTEMPTS = 20, TIMEOUT_MS = 200, WANT_SUCCESSES = 10, HANDOVERS = 20000 };

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static atomic_int stop;
static atomic_long acquired;   /* by the hammering threads (read by the timed thread: a progress gauge) */
static long plain_counter;     /* protected by mutex */
static long hammer_counts[HAMMERS];

static void *hammer(void *arg)
{
    long *mine = (long *)arg, n = 0;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        pthread_mutex_lock(&mutex);
        plain_counter++;
        pthread_mutex_unlock(&mutex);
        n++;
        atomic_fetch_add_explicit(&acquired, 1, memory_order_relaxed);
    }
    *mine = n;
    return NULL;
}

int main(void)
{
    require_interposed((void *)pthread_mutex_lock);
    pthread_t t[HAMMERS];
    for (int i = 0; i < HAMMERS; i++)
        test_start(&t[i], hammer, &hammer_counts[i]);
    while (atomic_load(&acquired) < 1000) /* everyone is hammering */
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
            if (during > HANDOVERS) {
                fprintf(stderr, "attempt %d timed out after %d ms while the mutex changed hands %ld times\n", a,
                        TIMEOUT_MS, during);
                starved++;
            }
        }
    }
    atomic_store(&stop, 1);
    test_join_n(t, HAMMERS);
    long total = timed_acquired;
    for (int i = 0; i < HAMMERS; i++)
        total += hammer_counts[i];
    CHECK_EQ(plain_counter, total); /* mutual exclusion */
    CHECK_EQ(starved, 0);
    CHECK(successes > 0 || timed_out_handovers <= HANDOVERS); /* never served while the lock changed hands a lot */
    printf("timed: %d acquired, %d timed out; hammering threads: %ld acquisitions\n", successes, timeouts,
           total - timed_acquired);
    return check_done("test_timedlock");
}
