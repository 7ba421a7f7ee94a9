/*
 * local-readyq (the paper's alternative E): per-processor free lists (as C)
 * and one locked ready queue per processor.  A thread that becomes ready goes
 * to a random queue (the paper's placement in its measurements, so that no
 * single queue becomes a central one); an idle processor scans the queues
 * beginning with its own, looking before locking, so a ready thread anywhere
 * is eventually found.  Idle processors spin and park (llt_idle_wait).
 */
#include "runtime.h"

typedef struct proc_rq {
    LL_ALIGNED(LL_SECTOR) ll_lock *lock;
    llt_queue q;
    llt_local_lists lists;
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
    for (unsigned i = 0; i < rt->nworkers; i++)
        a->procs[i].lock = llt_lock_new(rt);
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
    proc_rq *q = &a->procs[rt->nworkers == 1 ? 0 : ll_rand_below(rt->nworkers)];
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

static llt_thread *start(llt_worker *w)
{
    llt_runtime *rt = w->rt;
    alt_rq *a = (alt_rq *)rt->alt;
    unsigned n = rt->nworkers;
    for (unsigned i = 0, k = w->index; i < n; i++, k = k + 1 == n ? 0 : k + 1) {
        proc_rq *q = &a->procs[k];
        if (!llt_queue_peek(&q->q))
            continue;
        ll_lock_acquire(q->lock);
        llt_thread *t = llt_queue_pop(&q->q);
        ll_lock_release(q->lock);
        if (!t)
            continue;
        if (!t->stack)
            t->stack = llt_local_stack_get(&a->pool, &((proc_rq *)w->alt)->lists, rt);
        return t;
    }
    return NULL;
}

static void finish(llt_worker *w, llt_stack *s, llt_thread *t)
{
    llt_local_finish(&((alt_rq *)w->rt->alt)->pool, &((proc_rq *)w->alt)->lists, s, t);
}

static void release(llt_worker *w, llt_thread *t)
{
    llt_local_cb_put(&((alt_rq *)w->rt->alt)->pool, &((proc_rq *)w->alt)->lists, t);
}

static bool has_work(llt_worker *w)
{
    alt_rq *a = (alt_rq *)w->rt->alt;
    for (unsigned i = 0; i < w->rt->nworkers; i++)
        if (llt_queue_peek(&a->procs[i].q))
            return true;
    return false;
}

const llt_alt_ops llt_alt_local_readyq = {
    "local-readyq", "E: per-processor free lists and ready queues; random placement, idle processors scan",
    init, destroy, create, start, finish, release, ready, llt_idle_wait, has_work,
};
