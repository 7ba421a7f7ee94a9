/* A timed acquire whose deadline has already passed is a try_acquire (registry.h,
 * ll_deadline_passed): on a held lock it fails without queueing, so it leaves no node
 * behind for the releasers to pass over; on a free lock it takes the lock.
 * For every spec of `locklab-bench --list` but the peers (pthread*, ck-*): a second
 * thread, while the main thread holds the lock, makes a timed attempt with a zero
 * timeout (ll_lock_acquire_for(l, 0): the deadline is "now"), which must fail and leave
 * that thread's queue-node cache as it was (the same node on top); the same attempt on
 * the free lock must succeed. */
#include <string.h>

#include "locklab/core.h"
#include "locklab/locklab.h"
#include "test_lock.h"
#include "test_util.h"

typedef struct {
    ll_lock *l;
    bool got, cache_kept;
} attempt;

static void *timed_attempt(void *p)
{
    attempt *a = (attempt *)p;
    void *top = ll_qnode_get(); /* the node a queueing attempt would take first */
    ll_qnode_put(top);
    a->got = ll_lock_acquire_for(a->l, 0);
    if (a->got)
        ll_lock_release(a->l);
    void *now = ll_qnode_get();
    ll_qnode_put(now);
    a->cache_kept = now == top;
    return NULL;
}

static void check_spec(const char *spec, void *arg)
{
    (void)arg;
    if (strncmp(spec, "pthread", 7) == 0 || strncmp(spec, "ck-", 3) == 0)
        return; /* not locklab's algorithms (they poll try_acquire anyway) */
    ll_lock *l = test_lock_create(spec);
    attempt a = {l, false, false};
    pthread_t t;
    ll_lock_acquire(l);
    test_start(&t, timed_attempt, &a);
    pthread_join(t, NULL);
    ll_lock_release(l);
    CHECK(!a.got, "%s: a timed acquire with a passed deadline took a held lock", spec);
    CHECK(a.cache_kept, "%s: a timed acquire with a passed deadline queued a node on the held lock", spec);
    test_start(&t, timed_attempt, &a);
    pthread_join(t, NULL);
    CHECK(a.got, "%s: a timed acquire with a passed deadline failed on a free lock", spec);
    ll_lock_destroy(l);
}

int main(void)
{
    ll_lock_list(check_spec, NULL);
    return test_done("test_timed");
}
