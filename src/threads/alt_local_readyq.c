/*
 * local-readyq (the paper's alternative E): per-processor free lists (as C)
 * and one locked ready queue per processor.  A thread that becomes ready goes
 * to a random queue (the paper's placement in its measurements, so that no
 * single queue becomes a central one); an idle processor scans the queues
 * beginning with its own, looking before locking, so a ready thread anywhere
 * is eventually found.  Idle processors spin and park (llt_idle_wait).
 */
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

typedef struct proc_rq {
    LL_ALIGNED(LL_SECTOR) ll_lock *lock;
    llt_queue q;
    llt_local_lists lists;
} proc_rq;

typedef struct alt_rq {
    proc_rq *procs;
    LL_ALIGNED(LL_SECTOR) llt_pool pool;
} alt_rq;

static int init(llt_runtime *rt, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    alt_rq *a = NULL;
    proc_rq *p = NULL;
    if (posix_memalign((void **)&a, LL_SECTOR, sizeof *a) != 0 ||
        posix_memalign((void **)&p, LL_SECTOR, sizeof *p * rt->nworkers) != 0) {
        free(a);
        return -1;
    }
    memset(a, 0, sizeof *a);
    memset(p, 0, sizeof *p * rt->nworkers);
    for (unsigned i = 0; i < rt->nworkers; i++) {
        p[i].lock = llt_lock_new(rt);
        rt->workers[i].alt = &p[i];
    }
    a->procs = p;
    llt_pool_init(&a->pool, rt);
    rt->alt = a;
    return 0;
}

static void destroy(llt_runtime *rt)
{
    alt_rq *a = (alt_rq *)rt->alt;
    for (unsigned i = 0; i < rt->nworkers; i++)
        ll_lock_destroy(a->procs[i].lock);
    llt_pool_destroy(&a->pool);
    free(a->procs);
    free(a);
}

static void ready(llt_runtime *rt, llt_worker *w, llt_thread *t)
{
    (void)w;
    alt_rq *a = (alt_rq *)rt->alt;
    proc_rq *q = &a->procs[rt->nworkers == 1 ? 0 : ll_rand_below(rt->nworkers)];
    ll_lock_acquire(q->lock);
    llt_queue_push(&q->q, t);
    ll_lock_release(q->lock);
    llt_wake_idle(rt);
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
    alt_rq *a = (alt_rq *)w->rt->alt;
    llt_local_lists *l = &((proc_rq *)w->alt)->lists;
    llt_local_stack_put(&a->pool, l, s);
    if (t)
        llt_local_cb_put(&a->pool, l, t);
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
