/* The generic lock handle a C test runs on, from its spec (tests that use locklab;
 * test_util.h stays free of it).
 *
 *   test_lock_create(spec)   ll_lock_create, or one line (the spec and the parser's
 *                            error) and exit 2: a spec that does not parse is bad input
 *                            (the command line) or a broken test, never a lock's failure
 *   test_hammer_start(h, spec, n) / test_hammer_stop(h)
 *                            n threads acquire and release one lock of that spec as fast
 *                            as they can (nothing outside the critical section), each
 *                            adding one to a plain counter inside, until stopped; per
 *                            thread its acquisitions (ops, a progress counter main may
 *                            poll) and the longest time between two of them (from the
 *                            start to its first, from its last to the stop); stop joins
 *                            them and sums: total, min (the fewest of one thread),
 *                            longest_ns.  The counter equals total if the lock excludes.
 */
#ifndef LOCKLAB_TESTS_TEST_LOCK_H
#define LOCKLAB_TESTS_TEST_LOCK_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locklab/atomics.h"
#include "locklab/locklab.h"
#include "test_util.h"

static inline ll_lock *test_lock_create(const char *spec)
{
    char err[256];
    ll_lock *l = ll_lock_create(spec, err, sizeof err);
    if (!l) {
        fprintf(stderr, "%s: %s\n", spec, err);
        exit(2);
    }
    return l;
}

enum { TEST_HAMMER_MAX = 16 };
typedef struct test_hammer test_hammer;
typedef struct {
    test_hammer *h;
    ll_atomic_u64 ops;   /* its acquisitions */
    uint64_t longest_ns; /* between two of its acquisitions */
} test_hammer_thread;
struct test_hammer {
    ll_lock *lock;
    ll_atomic_u32 stop;
    unsigned long shared; /* plain, under lock */
    uint64_t start_ns;
    int n;
    unsigned long total, min; /* after test_hammer_stop */
    uint64_t longest_ns;
    pthread_t tids[TEST_HAMMER_MAX];
    test_hammer_thread threads[TEST_HAMMER_MAX];
};

static inline void test_hammer_waited(test_hammer_thread *t, uint64_t since, uint64_t now)
{
    if (now - since > t->longest_ns)
        t->longest_ns = now - since;
}

static inline void *test_hammer_run(void *p)
{
    test_hammer_thread *t = (test_hammer_thread *)p;
    test_hammer *h = t->h;
    uint64_t last = h->start_ns;
    while (ll_load_relaxed(&h->stop) == 0) { /* relaxed: a stop hint */
        ll_lock_acquire(h->lock);
        h->shared++;
        ll_lock_release(h->lock);
        uint64_t now = test_now_ns();
        test_hammer_waited(t, last, now);
        last = now;
        ll_faa(&t->ops, 1, LL_RELAXED); /* relaxed: a progress counter, read by main */
    }
    /* a thread still waiting at the stop has waited since its last acquisition */
    test_hammer_waited(t, last, test_now_ns());
    return NULL;
}

static inline void test_hammer_start(test_hammer *h, const char *spec, int n)
{
    if (n > TEST_HAMMER_MAX) {
        fprintf(stderr, "test_hammer_start: %d threads, at most %d\n", n, (int)TEST_HAMMER_MAX);
        exit(2);
    }
    memset(h, 0, sizeof *h);
    h->lock = test_lock_create(spec);
    h->n = n;
    for (int i = 0; i < n; i++)
        h->threads[i].h = h;
    h->start_ns = test_now_ns();
    test_start_n(h->tids, n, test_hammer_run, h->threads, sizeof h->threads[0]);
}

static inline void test_hammer_stop(test_hammer *h)
{
    ll_store_relaxed(&h->stop, 1); /* relaxed: a stop hint */
    test_join_n(h->tids, h->n);
    h->total = 0;
    h->min = (unsigned long)-1;
    for (int i = 0; i < h->n; i++) {
        unsigned long ops = (unsigned long)ll_load_relaxed(&h->threads[i].ops); /* relaxed: joined */
        h->total += ops;
        h->min = ops < h->min ? ops : h->min;
        h->longest_ns = h->threads[i].longest_ns > h->longest_ns ? h->threads[i].longest_ns : h->longest_ns;
    }
}
#endif
