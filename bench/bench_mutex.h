/*
 * A mutex for the condition-variable workloads: the lock under test plus the
 * deferred wake list that wait morphing needs (include/locklab/sync.h).
 * Signals issued while holding it go to `deferred`; unlock releases the lock
 * first and then delivers them, so a woken waiter does not block at once on
 * the lock its signaller still holds.
 */
#ifndef LOCKLAB_BENCH_MUTEX_H
#define LOCKLAB_BENCH_MUTEX_H
#include "locklab/locklab.h"
#include "locklab/sync.h"

typedef struct bench_mutex {
    ll_lock *lock;
    ll_wake_list deferred; /* touched only by the holder */
} bench_mutex;

static inline void bench_mutex_lock(void *m) { ll_lock_acquire(((bench_mutex *)m)->lock); }

static inline void bench_mutex_unlock(void *m)
{
    bench_mutex *bm = (bench_mutex *)m;
    ll_wake_list wakes = bm->deferred;
    bm->deferred.head = NULL;
    ll_lock_release(bm->lock);
    ll_wake_list_flush(&wakes);
}

static const ll_mutex_iface bench_mutex_iface = {bench_mutex_lock, bench_mutex_unlock};

/* The queue discipline given by a workload's `cond` (0 fifo, 1 lifo-cr) and `append_one_in` params. */
static inline ll_sync_config bench_sync_config(double cond, double append_one_in)
{
    ll_sync_config c;
    c.discipline = cond != 0 ? LL_DISCIPLINE_LIFO_CR : LL_DISCIPLINE_FIFO;
    c.append_one_in = (uint32_t)append_one_in;
    return c;
}
#endif
