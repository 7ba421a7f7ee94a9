/*
 * local-freelist (the paper's alternative C): each processor keeps its own
 * free lists of control blocks and stacks, without locks, balanced through a
 * locked global pool (freelist.c); the ready queue is central and locked.
 * One lock acquisition on creation (queueing) and one on startup (dequeueing);
 * finish takes none unless a list spills into the pool.
 */
#include "runtime.h"

typedef struct alt_local {
    llt_central_rq rq;
    LL_ALIGNED(LL_SECTOR) llt_pool pool;
} alt_local;

typedef struct proc_local {
    LL_ALIGNED(LL_SECTOR) llt_local_lists lists;
} proc_local;

static int init(llt_runtime *rt)
{
    if (llt_alt_alloc(rt, sizeof(alt_local), sizeof(proc_local)) != 0)
        return -1;
    alt_local *a = (alt_local *)rt->alt;
    a->rq.lock = llt_lock_new(rt);
    llt_yield_through(rt, a->rq.lock, &a->rq.q);
    llt_pool_init(&a->pool, rt);
    return 0;
}

static void destroy(llt_runtime *rt)
{
    alt_local *a = (alt_local *)rt->alt;
    ll_lock_destroy(a->rq.lock);
    llt_pool_destroy(&a->pool);
    llt_alt_free(rt);
}

static void ready(llt_runtime *rt, llt_worker *w, llt_thread *t)
{
    llt_central_push(&((alt_local *)rt->alt)->rq, t);
    llt_wake_idle(rt, w);
}

static llt_thread *create(llt_worker *w, llt_fn fn, void *arg)
{
    llt_runtime *rt = w->rt;
    alt_local *a = (alt_local *)rt->alt;
    llt_thread *t = llt_local_cb_get(&a->pool, &((proc_local *)w->alt)->lists, rt);
    llt_cb_init(t, rt, fn, arg);
    ready(rt, w, t);
    return t;
}

/* A stack for new thread t: from w's own list. */
static void give_stack(llt_worker *w, llt_thread *t)
{
    t->stack = llt_local_stack_get(&((alt_local *)w->rt->alt)->pool, &((proc_local *)w->alt)->lists, w->rt);
}

static llt_thread *start(llt_worker *w)
{
    llt_thread *t = llt_central_pop(&((alt_local *)w->rt->alt)->rq);
    if (t && !t->stack)
        give_stack(w, t);
    return t;
}

static void finish(llt_worker *w, llt_stack *s, llt_thread *t)
{
    llt_local_finish(&((alt_local *)w->rt->alt)->pool, &((proc_local *)w->alt)->lists, s, t);
}

static void release(llt_worker *w, llt_thread *t)
{
    llt_local_cb_put(&((alt_local *)w->rt->alt)->pool, &((proc_local *)w->alt)->lists, t);
}

static bool has_work(llt_worker *w, bool locked)
{
    alt_local *a = (alt_local *)w->rt->alt;
    return llt_queue_check(a->rq.lock, &a->rq.q, locked);
}

const llt_alt_ops llt_alt_local_freelist = {
    "local-freelist", "C: per-processor free lists balanced through a global pool; one central locked ready queue",
    init, destroy, create, start, give_stack, finish, release, ready, llt_idle_wait, has_work,
};
