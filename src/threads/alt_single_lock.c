/*
 * single-lock (the paper's alternative A): the ready queue, the control-block
 * free list and the stack free list are central, all under one lock.  Each
 * thread operation takes the lock once: creation (pop a control block, fill
 * it, queue it), startup (dequeue a thread and, if new, pop a stack), finish
 * (push the stack and the control block).  Idle processors check that the
 * ready queue is not empty before taking the lock (the paper's remedy for
 * useless contention), then spin and park (llt_idle_wait).
 *
 * Our choices where the paper is silent: a joinable thread's control block is
 * freed by its joiner, a second locked access; fresh blocks and stacks (empty
 * free lists: not in the warm-started benchmarks) are allocated outside the lock
 * (but for a yield's, under the lock it holds across the switch).
 */
#include "runtime.h"

typedef struct alt_single {
    ll_lock *lock;
    llt_queue ready;
    llt_thread *cb_free;
    llt_stack *stack_free;
} alt_single;

static int init(llt_runtime *rt)
{
    if (llt_alt_alloc(rt, sizeof(alt_single), 0) != 0)
        return -1;
    alt_single *a = (alt_single *)rt->alt;
    a->lock = llt_lock_new(rt);
    llt_yield_through(rt, a->lock, &a->ready);
    return 0;
}

static void destroy(llt_runtime *rt)
{
    alt_single *a = (alt_single *)rt->alt;
    ll_lock_destroy(a->lock);
    llt_alt_free(rt);
}

static llt_thread *create(llt_worker *w, llt_fn fn, void *arg)
{
    llt_runtime *rt = w->rt;
    alt_single *a = (alt_single *)rt->alt;
    ll_lock_acquire(a->lock);
    llt_thread *t = a->cb_free;
    if (LL_LIKELY(t != NULL)) {
        a->cb_free = t->next;
    } else {
        ll_lock_release(a->lock);
        t = llt_cb_fresh(rt, 1);
        ll_lock_acquire(a->lock);
    }
    llt_cb_init(t, rt, fn, arg);
    llt_queue_push(&a->ready, t);
    ll_lock_release(a->lock);
    llt_wake_idle(rt, w);
    return t;
}

/* Under the lock: a free stack for t if it has none and one is free. */
LL_INLINE void stack_locked(alt_single *a, llt_thread *t)
{
    if (t && !t->stack && a->stack_free) {
        t->stack = a->stack_free;
        a->stack_free = t->stack->next;
    }
}

static llt_thread *start(llt_worker *w)
{
    alt_single *a = (alt_single *)w->rt->alt;
    if (!llt_queue_peek(&a->ready))
        return NULL;
    ll_lock_acquire(a->lock);
    llt_thread *t = llt_queue_pop(&a->ready);
    stack_locked(a, t);
    ll_lock_release(a->lock);
    if (t && !t->stack)
        t->stack = llt_stack_fresh(w->rt);
    return t;
}

/* A yield took t from the ready queue: the lock is held. */
static void give_stack(llt_worker *w, llt_thread *t)
{
    alt_single *a = (alt_single *)w->rt->alt;
    stack_locked(a, t);
    if (!t->stack)
        t->stack = llt_stack_fresh(w->rt); /* cold (no stack free): under the lock, held across the switch */
}

static void finish(llt_worker *w, llt_stack *s, llt_thread *t)
{
    alt_single *a = (alt_single *)w->rt->alt;
    ll_lock_acquire(a->lock);
    s->next = a->stack_free;
    a->stack_free = s;
    if (t) {
        t->next = a->cb_free;
        a->cb_free = t;
    }
    ll_lock_release(a->lock);
}

static void release(llt_worker *w, llt_thread *t)
{
    alt_single *a = (alt_single *)w->rt->alt;
    ll_lock_acquire(a->lock);
    t->next = a->cb_free;
    a->cb_free = t;
    ll_lock_release(a->lock);
}

static void ready(llt_runtime *rt, llt_worker *w, llt_thread *t)
{
    alt_single *a = (alt_single *)rt->alt;
    ll_lock_acquire(a->lock);
    llt_queue_push(&a->ready, t);
    ll_lock_release(a->lock);
    llt_wake_idle(rt, w);
}

static bool has_work(llt_worker *w, bool locked)
{
    alt_single *a = (alt_single *)w->rt->alt;
    return llt_queue_check(a->lock, &a->ready, locked);
}

const llt_alt_ops llt_alt_single_lock = {
    "single-lock", "A: one lock over the ready queue and the free lists of control blocks and stacks",
    init, destroy, create, start, give_stack, finish, release, ready, llt_idle_wait, has_work,
};
