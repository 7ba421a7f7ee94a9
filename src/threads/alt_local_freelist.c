/*
 * local-freelist (the paper's alternative C): each processor keeps its own
 * free lists of control blocks and stacks, without locks, balanced through a
 * locked global pool (freelist.c); the ready queue is central and locked.
 * One lock acquisition on creation (queueing) and one on startup (dequeueing);
 * finish takes none unless a list spills into the pool.
 */
#include "runtime.h"

typedef struct alt_local {
    llt_central_rq rq; /* first: llt_central_ready, llt_central_has_work */
    LL_ALIGNED(LL_SECTOR) llt_pool pool;
} alt_local;
LL_STATIC_ASSERT(offsetof(alt_local, rq) == 0, "llt_central_ready and llt_central_has_work find the queue at rt->alt");

typedef struct proc_local {
    LL_ALIGNED(LL_SECTOR) llt_local_lists lists;
} proc_local;

static int init(llt_runtime *rt)
{
    if (llt_alt_alloc(rt, sizeof(alt_local), sizeof(proc_local)) != 0)
        return -1;
    alt_local *a = (alt_local *)rt->alt;
    llt_central_init(&a->rq, rt);
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

static llt_thread *create(llt_worker *w, llt_fn fn, void *arg)
{
    llt_runtime *rt = w->rt;
    alt_local *a = (alt_local *)rt->alt;
    llt_thread *t = llt_local_cb_get(&a->pool, &((proc_local *)w->alt)->lists, rt);
    llt_cb_init(t, rt, fn, arg);
    llt_central_ready(rt, w, t);
    return t;
}

/* A stack for new thread t: from w's own list. */
static void give_stack(llt_worker *w, llt_thread *t)
{
    t->stack = llt_local_stack_get(&((alt_local *)w->rt->alt)->pool, &((proc_local *)w->alt)->lists, w->rt);
}

static llt_thread *start(llt_worker *w) { return llt_with_stack(w, llt_central_pop(&((alt_local *)w->rt->alt)->rq), give_stack); }

static void finish(llt_worker *w, llt_stack *s, llt_thread *t)
{
    llt_local_finish(&((alt_local *)w->rt->alt)->pool, &((proc_local *)w->alt)->lists, s, t);
}

static void release(llt_worker *w, llt_thread *t)
{
    llt_local_cb_put(&((alt_local *)w->rt->alt)->pool, &((proc_local *)w->alt)->lists, t);
}

const llt_alt_ops llt_alt_local_freelist = {
    "local-freelist", "C: per-processor free lists balanced through a global pool; one central locked ready queue",
    init, destroy, create, start, give_stack, finish, release, llt_central_ready, llt_idle_wait, llt_central_has_work,
};
