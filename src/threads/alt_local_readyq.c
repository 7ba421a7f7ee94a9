/*
 * local-readyq (the paper's alternative E): per-processor free lists (as C)
 * and one locked ready queue per processor.
 *
 * Placement: a thread made ready on a processor (created, yielding, signalled,
 * handed a mutex, its joinee finished) goes to that processor's own queue, the
 * paper's design ("processors can queue created threads locally, since
 * balancing is achieved by idle processors"); one made ready from outside the
 * runtime (llt_run) goes to a random queue.  A processor runs its own queue;
 * only when it is empty (idle) does it scan the others, in order from its own,
 * looking before locking, and take the first thread it finds (steal), then spin
 * and park like A, B and C (llt_idle_wait).  So a ready thread anywhere is
 * eventually found, and a busy processor's threads, stacks and control blocks
 * stay in its cache.  (The paper's measurements put each new thread on a random
 * queue instead, "to avoid biasing the results with the effect of locality":
 * docs/threads.md says why we do not.)
 */
#include "runtime.h"

typedef struct proc_rq {
    LL_ALIGNED(LL_SECTOR) ll_lock *lock;
    llt_queue q; /* idle processors peek at its head */
    LL_ALIGNED(LL_SECTOR) llt_local_lists lists; /* this processor's only: not in the peeked sector */
} proc_rq;

typedef struct alt_rq {
    proc_rq *procs; /* workers[i].alt, as an array */
    LL_ALIGNED(LL_SECTOR) llt_pool pool;
} alt_rq;

static int init(llt_runtime *rt)
{
    if (llt_alt_alloc(rt, sizeof(alt_rq), sizeof(proc_rq)) != 0)
        return -1;
    alt_rq *a = (alt_rq *)rt->alt;
    a->procs = (proc_rq *)rt->workers[0].alt;
    for (unsigned i = 0; i < rt->nworkers; i++) {
        a->procs[i].lock = llt_lock_new(rt);
        rt->workers[i].yield_lock = a->procs[i].lock; /* a yield stays on its processor's queue */
        rt->workers[i].yield_q = &a->procs[i].q;
    }
    llt_pool_init(&a->pool, rt);
    return 0;
}

static void destroy(llt_runtime *rt)
{
    alt_rq *a = (alt_rq *)rt->alt;
    for (unsigned i = 0; i < rt->nworkers; i++)
        ll_lock_destroy(a->procs[i].lock);
    llt_pool_destroy(&a->pool);
    llt_alt_free(rt);
}

static void ready(llt_runtime *rt, llt_worker *w, llt_thread *t)
{
    alt_rq *a = (alt_rq *)rt->alt;
    proc_rq *q = w && w->rt == rt ? (proc_rq *)w->alt : &a->procs[rt->nworkers == 1 ? 0 : ll_rand_below(rt->nworkers)];
    ll_lock_acquire(q->lock);
    llt_queue_push(&q->q, t);
    ll_lock_release(q->lock);
    llt_wake_idle(rt, w);
}

static llt_thread *create(llt_worker *w, llt_fn fn, void *arg)
{
    llt_runtime *rt = w->rt;
    llt_thread *t = llt_local_cb_get(&((alt_rq *)rt->alt)->pool, &((proc_rq *)w->alt)->lists, rt);
    llt_cb_init(t, rt, fn, arg);
    ready(rt, w, t);
    return t;
}

/* A stack for new thread t: from w's own list. */
static void give_stack(llt_worker *w, llt_thread *t)
{
    t->stack = llt_local_stack_get(&((alt_rq *)w->rt->alt)->pool, &((proc_rq *)w->alt)->lists, w->rt);
}

/* The first thread of queue q, or NULL (without locking if q looks empty). */
static llt_thread *pop(proc_rq *q) { return llt_queue_take(q->lock, &q->q); }

static llt_thread *start(llt_worker *w) { return llt_with_stack(w, pop((proc_rq *)w->alt), give_stack); }

/* w's own queue is empty: scan the others, from the next one on, and take the
 * first thread found; none: spin, then park, until there may be one. */
static llt_thread *idle(llt_worker *w)
{
    alt_rq *a = (alt_rq *)w->rt->alt;
    unsigned n = w->rt->nworkers;
    for (unsigned i = 1, k = w->index; i < n; i++) {
        k = k + 1 == n ? 0 : k + 1;
        llt_thread *t = pop(&a->procs[k]);
        if (t)
            return llt_with_stack(w, t, give_stack);
    }
    return llt_idle_wait(w);
}

static void finish(llt_worker *w, llt_stack *s, llt_thread *t)
{
    llt_local_finish(&((alt_rq *)w->rt->alt)->pool, &((proc_rq *)w->alt)->lists, s, t);
}

static void release(llt_worker *w, llt_thread *t)
{
    llt_local_cb_put(&((alt_rq *)w->rt->alt)->pool, &((proc_rq *)w->alt)->lists, t);
}

static bool has_work(llt_worker *w, bool locked)
{
    alt_rq *a = (alt_rq *)w->rt->alt;
    for (unsigned i = 0; i < w->rt->nworkers; i++)
        if (llt_queue_check(a->procs[i].lock, &a->procs[i].q, locked))
            return true;
    return false;
}

const llt_alt_ops llt_alt_local_readyq = {
    "local-readyq", "E: per-processor free lists and ready queues; threads queued locally, idle processors steal",
    init, destroy, create, start, give_stack, finish, release, ready, idle, has_work,
};
