/* Bounded waiting (the bound: "no thread starves for more than patience_ns x (its
 * rank + 1)"), for the locks that admit out of order: 8 threads hammer one lock
 * (no work outside the critical section, the worst case for barging and for
 * concurrency restriction) for RUN_S seconds on whatever CPUs there are; each
 * thread records the longest time between two of its acquisitions (and from the
 * start to its first).  The test fails if any thread's longest wait exceeds
 * BOUND_S, far above every lock's own bound (mcscr: patience 50 ms x (rank + 1)
 * with 7 passive threads = 0.4 s; parkinglot: a parked waiter is handed the lock
 * within its bucket's fair timer, 0.5 ms mean, once it is the eldest), so that a
 * loaded CI machine does not trip it; what it catches is a thread left out for
 * seconds.  It also checks mutual exclusion (a non-atomic counter).
 *
 *   test_bounded_wait [SPEC...]     (default: the list in main)
 * A lock without a long-term bound fails it: the paper's MCSCR with its fairness
 * trial and patience off, whose passive threads get in only at a deficit (the chain
 * empty), which 8 hammering threads never leave:
 *   test_bounded_wait mcscr-park:cpu_aware=0,patience_ns=0,fairness=1000000000
 *   -> FAIL ...: a thread waited 2.012 s for the lock (bound 1.5 s)   (2026-11-24)
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "locklab/atomics.h"
#include "locklab/locklab.h"
#include "test_lock.h"
#include "test_util.h"

enum { THREADS = 8 };
#define RUN_S 2.0
#define BOUND_S 1.5

typedef struct {
    ll_lock *lock;
    ll_atomic_u32 stop;
    unsigned long shared;
    double start;
} wait_case;
typedef struct {
    wait_case *c;
    unsigned long ops;
    double longest;
} wait_arg;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void *hammer(void *p)
{
    wait_arg *a = (wait_arg *)p;
    wait_case *c = a->c;
    double last = c->start;
    while (ll_load_relaxed(&c->stop) == 0) { /* relaxed: a stop hint */
        ll_lock_acquire(c->lock);
        c->shared++;
        ll_lock_release(c->lock);
        double t = now_s();
        if (t - last > a->longest)
            a->longest = t - last;
        last = t;
        a->ops++;
    }
    /* a thread still waiting at the end has waited since its last acquisition */
    if (now_s() - last > a->longest)
        a->longest = now_s() - last;
    return NULL;
}

static int bounded_wait(const char *spec)
{
    static wait_case c;
    memset(&c, 0, sizeof c);
    c.lock = test_lock_create(spec);
    wait_arg args[THREADS];
    memset(args, 0, sizeof args);
    for (int i = 0; i < THREADS; i++)
        args[i].c = &c;
    pthread_t tids[THREADS];
    c.start = now_s();
    test_start_n(tids, THREADS, hammer, args, sizeof args[0]);
    struct timespec run = {(time_t)RUN_S, (long)((RUN_S - (double)(time_t)RUN_S) * 1e9)};
    nanosleep(&run, NULL);
    ll_store_relaxed(&c.stop, 1); /* relaxed: a stop hint */
    test_join_n(tids, THREADS);
    unsigned long total = 0, min = (unsigned long)-1;
    double longest = 0;
    for (int i = 0; i < THREADS; i++) {
        total += args[i].ops;
        min = args[i].ops < min ? args[i].ops : min;
        longest = args[i].longest > longest ? args[i].longest : longest;
    }
    int bad = 0;
    if (c.shared != total) {
        fprintf(stderr, "FAIL %s: counter %lu != %lu acquisitions\n", spec, c.shared, total);
        bad = 1;
    }
    if (longest > BOUND_S) {
        fprintf(stderr, "FAIL %s: a thread waited %.3f s for the lock (bound %.1f s)\n", spec, longest, BOUND_S);
        bad = 1;
    }
    printf("%-48s %d threads, %.0f s: longest wait %.4f s, min %lu of %lu acquisitions\n", spec, THREADS, RUN_S,
           longest, min, total);
    ll_lock_destroy(c.lock);
    return bad;
}

int main(int argc, char **argv)
{
    /* Every lock that admits out of arrival order, with its default parameters, and the
     * waiting policies that park (where passive threads sleep). */
    static const char *const defaults[] = {
        "parkinglot", "acr", "loiter", "mcscr-stp", "mcscr-park", "mcscr-stp:cpu_aware=0", "mcscrn-stp",
        "lifocr-stp", "cna-stp", "fissile-stp", "shfl-stp", "reciprocating-stp", "pthread", NULL,
    };
    int failures = 0;
    if (argc > 1)
        for (int i = 1; i < argc; i++)
            failures += bounded_wait(argv[i]);
    else
        for (int i = 0; defaults[i]; i++)
            failures += bounded_wait(defaults[i]);
    printf(failures ? "FAILED (%d)\n" : "ok\n", failures);
    return failures != 0;
}
