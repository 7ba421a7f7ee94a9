/*
 * A timed mutex lock against CLOCK_REALTIME ends when that clock passes its
 * deadline, even if the clock is set forward while it waits (POSIX: an
 * absolute deadline on that clock).  A thread waits on a held mutex with
 * pthread_mutex_timedlock (deadline in 20 s); 0.3 s later the clock is set
 * 60 s forward: the wait must end with ETIMEDOUT within a few seconds (it took
 * the whole 20 s when the deadline was converted to the monotonic clock once).
 * Setting the clock needs CAP_SYS_TIME and would disturb the machine, so this
 * runs with fakeclock_lib.so preloaded (a per-process CLOCK_REALTIME) and
 * refuses to run without it.  Run by run_tests.sh (case clockset) per lock spec.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int rc = -1;
static double waited_s;

static void *timed_waiter(void *arg)
{
    (void)arg;
    struct timespec deadline = in_ms(CLOCK_REALTIME, 20000);
    double t0 = test_now_ns() / 1e9;
    rc = pthread_mutex_timedlock(&m, &deadline);
    waited_s = test_now_ns() / 1e9 - t0;
    if (rc == 0)
        pthread_mutex_unlock(&m);
    return NULL;
}

int main(void)
{
    require_interposed((void *)pthread_mutex_lock);
    if (!dlsym(RTLD_DEFAULT, "fakeclock_loaded")) {
        fprintf(stderr, "test_clockset: needs fakeclock_lib.so preloaded (it would set the machine's clock)\n");
        return 1;
    }
    CHECK_EQ(pthread_mutex_lock(&m), 0);
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, timed_waiter, NULL), 0);
    usleep(300000); /* the waiter is queued (and asleep, for a lock that parks) */
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    now.tv_sec += 60; /* past its deadline */
    CHECK_EQ(clock_settime(CLOCK_REALTIME, &now), 0);
    pthread_join(t, NULL);
    CHECK_EQ(pthread_mutex_unlock(&m), 0);
    CHECK_EQ(rc, ETIMEDOUT);
    printf("timedlock returned %d after %.2f s (clock set forward past its deadline at 0.3 s)\n", rc, waited_s);
    CHECK(waited_s < 5.0); /* not the 20 s the monotonic conversion waited */
    return test_done("test_clockset");
}
