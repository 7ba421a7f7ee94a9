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
 *   -> FAIL ...: a thread waited 2.012 s for the lock (bound 1.5 s)
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

static int bounded_wait(const char *spec)
{
    static test_hammer h;
    test_hammer_start(&h, spec, THREADS);
    test_sleep_ms((long)(RUN_S * 1000));
    test_hammer_stop(&h);
    unsigned long total = h.total, min = h.min;
    double longest = (double)h.longest_ns * 1e-9;
    int bad = 0;
    if (h.shared != total) {
        fprintf(stderr, "FAIL %s: counter %lu != %lu acquisitions\n", spec, h.shared, total);
        bad = 1;
    }
    if (longest > BOUND_S) {
        fprintf(stderr, "FAIL %s: a thread waited %.3f s for the lock (bound %.1f s)\n", spec, longest, BOUND_S);
        bad = 1;
    }
    printf("%-48s %d threads, %.0f s: longest wait %.4f s, min %lu of %lu acquisitions\n", spec, THREADS, RUN_S,
           longest, min, total);
    ll_lock_destroy(h.lock);
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
