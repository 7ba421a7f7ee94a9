/*
 * multi-lock (the paper's alternative B): the same three central structures as
 * single-lock, each under its own lock, every enqueue and dequeue locked
 * separately (after Lampson & Redell): creation pops a control block and
 * queues the thread (two locks), startup dequeues it and pops a stack (two),
 * finish pushes the stack and the control block (two).  Less of the path is
 * in any one critical section, so throughput is higher; latency is higher.
 */
#include "runtime.h"

typedef struct alt_multi {
    llt_central_rq rq; /* first: llt_central_ready, llt_central_has_work */
    LL_ALIGNED(LL_SECTOR) ll_lock *cb_lock;
    llt_thread *cb_free;
    LL_ALIGNED(LL_SECTOR) ll_lock *stack_lock;
    llt_stack *stack_free;
} alt_multi;
LL_STATIC_ASSERT(offsetof(alt_multi, rq) == 0, "llt_central_ready and llt_central_has_work find the queue at rt->alt");

static int init(llt_runtime *rt)
{
    if (llt_alt_alloc(rt, sizeof(alt_multi), 0) != 0)
        return -1;
    alt_multi *a = (alt_multi *)rt->alt;
    llt_central_init(&a->rq, rt);
    a->cb_lock = llt_lock_new(rt);
    a->stack_lock = llt_lock_new(rt);
    return 0;
}

static void destroy(llt_runtime *rt)
{
    alt_multi *a = (alt_multi *)rt->alt;
    ll_lock_destroy(a->rq.lock);
    ll_lock_destroy(a->cb_lock);
    ll_lock_destroy(a->stack_lock);
    llt_alt_free(rt);
}

static void cb_put(alt_multi *a, llt_thread *t)
{
    ll_lock_acquire(a->cb_lock);
    t->next = a->cb_free;
    a->cb_free = t;
    ll_lock_release(a->cb_lock);
}

static llt_thread *create(llt_worker *w, llt_fn fn, void *arg)
{
    llt_runtime *rt = w->rt;
    alt_multi *a = (alt_multi *)rt->alt;
    ll_lock_acquire(a->cb_lock);
    llt_thread *t = a->cb_free;
    if (LL_LIKELY(t != NULL))
        a->cb_free = t->next;
    ll_lock_release(a->cb_lock);
    if (LL_UNLIKELY(!t))
        t = llt_cb_fresh(rt, 1);
    llt_cb_init(t, rt, fn, arg);
    llt_central_ready(rt, w, t);
    return t;
}

/* A stack for new thread t: the stack free list's own lock (a yield takes it inside
 * the ready queue's: the order ready queue -> stacks). */
static void give_stack(llt_worker *w, llt_thread *t)
{
    alt_multi *a = (alt_multi *)w->rt->alt;
    ll_lock_acquire(a->stack_lock);
    llt_stack *s = a->stack_free;
    if (s)
        a->stack_free = s->next;
    ll_lock_release(a->stack_lock);
    t->stack = s ? s : llt_stack_fresh(w->rt);
}

static llt_thread *start(llt_worker *w) { return llt_with_stack(w, llt_central_pop(&((alt_multi *)w->rt->alt)->rq), give_stack); }

static void finish(llt_worker *w, llt_stack *s, llt_thread *t)
{
    alt_multi *a = (alt_multi *)w->rt->alt;
    ll_lock_acquire(a->stack_lock);
    s->next = a->stack_free;
    a->stack_free = s;
    ll_lock_release(a->stack_lock);
    if (t)
        cb_put(a, t);
}

static void release(llt_worker *w, llt_thread *t) { cb_put((alt_multi *)w->rt->alt, t); }

const llt_alt_ops llt_alt_multi_lock = {
    "multi-lock", "B: the ready queue and the two free lists each under its own lock",
    init, destroy, create, start, give_stack, finish, release, llt_central_ready, llt_idle_wait, llt_central_has_work,
};
