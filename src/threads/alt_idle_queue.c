/*
 * idle-queue (the paper's alternative D): local-freelist's per-processor free
 * lists, plus a central queue of idle processors.  A processor with nothing to
 * run pre-allocates a stack, queues itself and spins on its own flag (then
 * parks: our addition, so an idle runtime uses no CPU); a thread that becomes
 * ready is handed straight to the first idle processor, which runs it on the
 * pre-allocated stack.  Work looks for processors instead of processors for work.
 *
 * Our choices where the paper is silent:
 * - One lock over both the ready queue and the idle queue, so that at most one
 *   of them is non-empty: an idle processor never waits on its flag while a
 *   ready thread sits in the ready queue (no lost work), and each thread still
 *   costs two locked queue operations, as the paper counts.
 * - The creator takes the control block from its own free list: it must return
 *   the handle before it knows whether a processor is idle.  The idle processor
 *   pre-allocates the stack only.
 * - The idle queue is FIFO.
 */
#include "runtime.h"

typedef struct proc_idle {
    LL_ALIGNED(LL_SECTOR) ll_atomic_ptr handoff; /* the thread handed to this idle processor */
    llt_worker *idle_next;
    llt_stack *spare; /* pre-allocated while idle */
    llt_local_lists lists;
} proc_idle;

typedef struct alt_idle {
    ll_lock *lock; /* over ready, idle_head, idle_tail */
    llt_queue ready;
    llt_worker *idle_head, *idle_tail;
    LL_ALIGNED(LL_SECTOR) llt_pool pool;
} alt_idle;

#define PROC(w) ((proc_idle *)(w)->alt)

static int init(llt_runtime *rt)
{
    if (llt_alt_alloc(rt, sizeof(alt_idle), sizeof(proc_idle)) != 0)
        return -1;
    alt_idle *a = (alt_idle *)rt->alt;
    a->lock = llt_lock_new(rt);
    /* A yield goes through the ready queue: it holds threads only while no
     * processor is idle, so a yielding thread is never handed to one. */
    llt_yield_through(rt, a->lock, &a->ready);
    llt_pool_init(&a->pool, rt);
    return 0;
}

static void destroy(llt_runtime *rt)
{
    alt_idle *a = (alt_idle *)rt->alt;
    ll_lock_destroy(a->lock);
    llt_pool_destroy(&a->pool);
    llt_alt_free(rt);
}

static void ready(llt_runtime *rt, llt_worker *w, llt_thread *t)
{
    (void)w;
    alt_idle *a = (alt_idle *)rt->alt;
    ll_lock_acquire(a->lock);
    llt_worker *p = a->idle_head;
    if (p) {
        a->idle_head = PROC(p)->idle_next;
        if (!a->idle_head)
            a->idle_tail = NULL;
    } else {
        llt_queue_push(&a->ready, t);
    }
    ll_lock_release(a->lock);
    if (p) {
        ll_store_release(&PROC(p)->handoff, t); /* release: t's control block (and stack) before the flag */
        ll_parker_unpark(p->parker);
    }
}

static llt_thread *create(llt_worker *w, llt_fn fn, void *arg)
{
    llt_runtime *rt = w->rt;
    llt_thread *t = llt_local_cb_get(&((alt_idle *)rt->alt)->pool, &PROC(w)->lists, rt);
    llt_cb_init(t, rt, fn, arg);
    ready(rt, w, t);
    return t;
}

/* A stack for new thread t: the spare pre-allocated while idle, or from w's own list. */
static void give_stack(llt_worker *w, llt_thread *t)
{
    proc_idle *p = PROC(w);
    if (p->spare) {
        t->stack = p->spare;
        p->spare = NULL;
    } else {
        t->stack = llt_local_stack_get(&((alt_idle *)w->rt->alt)->pool, &p->lists, w->rt);
    }
}

static llt_thread *start(llt_worker *w)
{
    alt_idle *a = (alt_idle *)w->rt->alt;
    return llt_with_stack(w, llt_queue_take(a->lock, &a->ready), give_stack);
}

static bool handed_or_stop(void *ctx)
{
    llt_worker *w = (llt_worker *)ctx;
    /* relaxed: a hint; the thread is taken with an acquire below */
    return ll_load_relaxed(&PROC(w)->handoff) != NULL || llt_stopping(w->rt);
}

static llt_thread *idle(llt_worker *w)
{
    llt_runtime *rt = w->rt;
    alt_idle *a = (alt_idle *)rt->alt;
    proc_idle *p = PROC(w);
    if (!p->spare)
        p->spare = llt_local_stack_get(&a->pool, &p->lists, rt);
    ll_lock_acquire(a->lock);
    llt_thread *t = llt_queue_pop(&a->ready);
    if (!t) {
        p->idle_next = NULL;
        if (a->idle_tail)
            PROC(a->idle_tail)->idle_next = w;
        else
            a->idle_head = w;
        a->idle_tail = w;
    }
    ll_lock_release(a->lock);
    if (t)
        return llt_with_stack(w, t, give_stack);
    if (!llt_spin_until(rt, handed_or_stop, w))
        ll_parker_park_until(w->parker, handed_or_stop, w);
    t = (llt_thread *)ll_xchg(&p->handoff, NULL, LL_ACQUIRE); /* acquire: pairs with ready's release store */
    return llt_with_stack(w, t, give_stack);
}

static void finish(llt_worker *w, llt_stack *s, llt_thread *t)
{
    llt_local_finish(&((alt_idle *)w->rt->alt)->pool, &PROC(w)->lists, s, t);
}

static void release(llt_worker *w, llt_thread *t)
{
    llt_local_cb_put(&((alt_idle *)w->rt->alt)->pool, &PROC(w)->lists, t);
}

static bool has_work(llt_worker *w, bool locked)
{
    alt_idle *a = (alt_idle *)w->rt->alt;
    /* relaxed: the handoff is taken with an acquire (idle) */
    return llt_queue_check(a->lock, &a->ready, locked) || ll_load_relaxed(&PROC(w)->handoff) != NULL;
}

const llt_alt_ops llt_alt_idle_queue = {
    "idle-queue", "D: C plus a central queue of idle processors; a new ready thread is handed to an idle one",
    init, destroy, create, start, give_stack, finish, release, ready, idle, has_work,
};
