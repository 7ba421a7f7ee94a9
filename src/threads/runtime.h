/*
 * Internals of the lightweight-thread runtime (include/locklab/threads.h).
 *
 * runtime.c    workers and their scheduler loop, the thread life cycle
 *              (create/start/finish/join), stacks, idle spinning and parking
 * sync.c       llt_mutex, llt_cond
 * freelist.c   per-processor free lists balanced through a global pool (C, D, E)
 * alt_NAME.c   the paper's five alternatives, one table of ops each (llt_alt_ops)
 * arch/ARCH/    the context switch, chosen at build time by architecture
 *
 * Direct switch.  A thread that leaves the CPU (yield, block, join, exit) picks
 * the next ready thread itself and switches straight to it (llt_leave: one
 * llt_ctx_switch); only when none is ready does it switch to its worker's
 * scheduler context, which idles (spins, steals, parks) until one is.  What the
 * leaving thread must not do while its registers are still live — put itself in
 * a queue, release the guard of the wait queue it joined, give back its stack —
 * it names as a "post-switch action" (w->after): whichever context runs next on
 * the worker (the next thread, a new thread's entry, or the scheduler) runs it
 * first thing (llt_after_switch).  So a waiting thread is published only once
 * its context is saved, and no other worker can resume a half-saved context.
 * The one lock held across a switch is the one the action releases (a wait
 * queue's guard, or the ready queue a yielding thread joined), always released
 * by the same worker pthread that took it.
 */
#ifndef LOCKLAB_THREADS_RUNTIME_H
#define LOCKLAB_THREADS_RUNTIME_H
#include <pthread.h>

#include "fiber_san.h"
#include "llt_arch.h"
#include "locklab/core.h"
#include "locklab/locklab.h"
#include "locklab/threads.h"

typedef struct llt_worker llt_worker;

/* One execution context: a thread's, or a worker's scheduler loop. */
typedef struct llt_exec {
    llt_ctx ctx;
    llt_san san;
} llt_exec;

/* A stack: this descriptor sits at the top of its mapping, the guard page at the bottom. */
typedef struct llt_stack {
    struct llt_stack *next;     /* free-list link */
    struct llt_stack *all_next; /* every stack of the runtime (unmapped at llt_stop) */
    void *map;                  /* the mapping: guard page, then the usable bytes */
    size_t map_bytes;
    char *lo; /* usable stack: [lo, lo + bytes) */
    size_t bytes;
} llt_stack;

/* llt_thread.join: who waits for the thread (or a mark). */
#define LLT_JOIN_NONE ((void *)0)     /* running, nobody waits yet */
#define LLT_JOIN_DONE ((void *)1)     /* finished: result set */
#define LLT_JOIN_DETACHED ((void *)2) /* frees itself when it finishes */
#define LLT_JOIN_EXTERNAL ((void *)3) /* llt_run's pthread waits on ext_parker */

/* The control block. */
struct llt_thread {
    llt_exec exec;
    llt_thread *next;       /* ready queue, wait queue or free list (one at a time) */
    llt_thread *batch_next; /* global pool: the next batch (list of lists) */
    llt_runtime *rt;
    llt_worker *worker; /* the worker running it: set by whoever switches to it */
    llt_fn fn;
    void *arg;
    void *result;
    llt_stack *stack; /* NULL until started */
    bool fresh;       /* context not yet built on the stack */
    ll_atomic_ptr join;
    ll_parker *ext_parker; /* LLT_JOIN_EXTERNAL */
    llt_thread *join_target; /* llt_join: the thread waited for, for the post-switch action */
};

/* A singly linked FIFO of threads; head is atomic so idle workers may peek
 * without the lock (relaxed: a hint, the lock holder re-reads it). */
typedef struct llt_queue {
    ll_atomic_ptr head;
    llt_thread *tail;
} llt_queue;

LL_INLINE bool llt_queue_peek(llt_queue *q)
{
    return ll_load_relaxed(&q->head) != NULL; /* relaxed: a hint; the pop re-reads under the lock */
}
LL_INLINE void llt_queue_push(llt_queue *q, llt_thread *t)
{
    t->next = NULL;
    if (q->tail)
        q->tail->next = t;
    else
        ll_store_relaxed(&q->head, t); /* relaxed: published by the queue's lock (peekers only hint) */
    q->tail = t;
}
LL_INLINE llt_thread *llt_queue_pop(llt_queue *q)
{
    llt_thread *t = (llt_thread *)ll_load_relaxed(&q->head); /* relaxed: under the queue's lock */
    if (t) {
        ll_store_relaxed(&q->head, t->next); /* relaxed: under the queue's lock */
        if (!t->next)
            q->tail = NULL;
    }
    return t;
}

/* Is q (under lock) non-empty?  locked: read under the lock, so the answer is
 * ordered after every push made under it before (llt_idle_wait's wake-up
 * protocol); otherwise a hint. */
LL_INLINE bool llt_queue_check(ll_lock *lock, llt_queue *q, bool locked)
{
    if (!locked)
        return llt_queue_peek(q);
    ll_lock_acquire(lock);
    bool any = ll_load_relaxed(&q->head) != NULL; /* relaxed: under the lock */
    ll_lock_release(lock);
    return any;
}

/* The first thread of q (under lock), or NULL without taking the lock if q looks
 * empty (the paper's check before locking). */
LL_INLINE llt_thread *llt_queue_take(ll_lock *lock, llt_queue *q)
{
    if (!llt_queue_peek(q))
        return NULL;
    ll_lock_acquire(lock);
    llt_thread *t = llt_queue_pop(q);
    ll_lock_release(lock);
    return t;
}

/* A yield (llt_yield) through queue q under lock: pop the first ready thread and
 * queue me in its place, returning with the lock held (released by the
 * post-switch action, once me is switched out); NULL without a switch (and
 * without locking, if q looks empty) when no thread is ready.  No other worker
 * can take me from q before my registers are saved: it would need the lock. */
LL_INLINE llt_thread *llt_requeue_locked(ll_lock *lock, llt_queue *q, llt_thread *me)
{
    if (!llt_queue_peek(q))
        return NULL;
    ll_lock_acquire(lock);
    llt_thread *next = llt_queue_pop(q);
    if (!next) {
        ll_lock_release(lock);
        return NULL;
    }
    llt_queue_push(q, me);
    return next;
}

/*
 * An alternative: how the ready queue and the free lists of control blocks and
 * stacks are kept and locked.  `w` is the calling worker (never NULL but in
 * `ready`, which llt_run calls from outside).
 */
typedef struct llt_alt_ops {
    const char *name;
    const char *summary;
    /* Allocate rt->alt and every worker's w->alt (llt_alt_alloc).  0, or -1 out of memory. */
    int (*init)(llt_runtime *rt);
    void (*destroy)(llt_runtime *rt);
    /* Thread creation: a control block with fn(arg) (llt_cb_init), made ready. */
    llt_thread *(*create)(llt_worker *w, llt_fn fn, void *arg);
    /* Thread startup/resume: a ready thread with a stack, or NULL if none is ready
     * (local-readyq: in w's own queue; other queues are scanned by idle). */
    llt_thread *(*start)(llt_worker *w);
    /* A stack for t, a ready thread that has none (not started yet), taken by a
     * yield from w->yield_q, whose lock the caller holds. */
    void (*give_stack)(llt_worker *w, llt_thread *t);
    /* Thread finish: recycle stack s and, if not NULL, control block t. */
    void (*finish)(llt_worker *w, llt_stack *s, llt_thread *t);
    /* A finished, joined (or late-detached) thread's control block. */
    void (*release)(llt_worker *w, llt_thread *t);
    /* Signal/yield/llt_run: t is ready (to start, or to resume). */
    void (*ready)(llt_runtime *rt, llt_worker *w, llt_thread *t);
    /* w found nothing to start: wait until there may be (spin, then park); may
     * return a thread to run, with its stack.  Returns when rt stops. */
    llt_thread *(*idle)(llt_worker *w);
    /* Is there a ready thread w could take?  locked = false: a hint (no lock);
     * true: every queue w could take from read under its lock (llt_queue_check). */
    bool (*has_work)(llt_worker *w, bool locked);
} llt_alt_ops;

extern const llt_alt_ops llt_alt_single_lock, llt_alt_multi_lock, llt_alt_local_freelist, llt_alt_idle_queue,
    llt_alt_local_readyq;

struct llt_worker {
    LL_ALIGNED(LL_SECTOR) llt_runtime *rt;
    unsigned index;
    llt_exec sched;
    llt_thread *current;
    /* The post-switch action, run by the next context on this worker (llt_leave):
     * release `unlock`, or call after(after_arg); at most one of them is set. */
    ll_lock *unlock;
    void (*after)(void *);
    void *after_arg;
    ll_lock *yield_lock; /* the ready queue a yield on this worker goes through, and its */
    llt_queue *yield_q;  /* lock (set by the alternative's init: its own queue or the central one) */
    ll_parker *parker; /* the worker pthread's own (core.h); locks that park use it too */
    ll_atomic_u32 idle_parked; /* parked in llt_idle_wait (not in a lock): llt_wake_one's target */
    pthread_t tid;
    void *alt;             /* the alternative's per-processor state */
    void *altstack;        /* signal stack (guard-page reports) */
};

struct llt_runtime {
    const llt_alt_ops *ops;
    unsigned nworkers;
    size_t stack_bytes; /* usable bytes per stack, whole pages */
    size_t page;
    uint64_t spin_ns;
    char lock_spec[128];
    llt_worker *workers;
    void *alt; /* the alternative's shared state */
    LL_ALIGNED(LL_SECTOR) ll_atomic_u32 stop;
    ll_atomic_u32 started;
    LL_ALIGNED(LL_SECTOR) ll_atomic_u32 sleepers; /* workers parked (or about to) in llt_idle_wait */
    LL_ALIGNED(LL_SECTOR) ll_atomic_ptr all_stacks; /* push-only lists, freed at llt_stop */
    ll_atomic_ptr all_blocks;
};

/* The alternative's state: shared_bytes into rt->alt and, if proc_bytes (a multiple of
 * LL_SECTOR), one entry of proc_bytes per worker into workers[i].alt; zeroed, LL_SECTOR
 * aligned.  0, or -1 out of memory.  llt_alt_free frees both. */
int llt_alt_alloc(llt_runtime *rt, size_t shared_bytes, size_t proc_bytes);
void llt_alt_free(llt_runtime *rt);

/* The worker running the caller (NULL outside the runtime).  Not inlined: the
 * TLS address must be recomputed after a switch, which may have moved the
 * caller to another worker. */
llt_worker *llt_worker_self(void);

/* A lock of rt's spec; aborts with a message if it cannot be made (the spec was
 * checked at llt_start, so only memory can run out). */
ll_lock *llt_lock_new(llt_runtime *rt);

/* Block the calling thread, which holds guard, the lock over the wait queue it
 * has joined: it switches to the next ready thread (or to the scheduler), which
 * releases guard once the caller is switched out. */
void llt_block(ll_lock *guard);
/* t is ready again (signal, unlock): the alternative's ready step. */
LL_INLINE void llt_make_ready(llt_thread *t) { t->rt->ops->ready(t->rt, llt_worker_self(), t); }
/* t as start returns it: given a stack by give_stack, the alternative's own (a direct call,
 * on the path of every new thread), if it has none (a thread not started yet); NULL stays NULL. */
LL_INLINE llt_thread *llt_with_stack(llt_worker *w, llt_thread *t, void (*give_stack)(llt_worker *, llt_thread *))
{
    if (t && !t->stack)
        give_stack(w, t);
    return t;
}

/* Every worker's yields go through the central queue q under lock (llt_worker.yield_q). */
LL_INLINE void llt_yield_through(llt_runtime *rt, ll_lock *lock, llt_queue *q)
{
    for (unsigned i = 0; i < rt->nworkers; i++) {
        rt->workers[i].yield_lock = lock;
        rt->workers[i].yield_q = q;
    }
}

/* Fill a control block for fn(arg): not started, nobody joined. */
LL_INLINE void llt_cb_init(llt_thread *t, llt_runtime *rt, llt_fn fn, void *arg)
{
    t->rt = rt;
    t->fn = fn;
    t->arg = arg;
    t->result = NULL;
    t->stack = NULL;
    t->fresh = true;
    ll_store_relaxed(&t->join, LLT_JOIN_NONE); /* relaxed: published with t by the ready queue's lock */
}
/* n new control blocks from the heap, linked through next (cold: the free lists are empty). */
llt_thread *llt_cb_fresh(llt_runtime *rt, unsigned n);
/* A new stack from mmap, with its guard page (cold). */
llt_stack *llt_stack_fresh(llt_runtime *rt);

/* After a thread became ready (pushed under its queue's lock, which the caller
 * has taken): wake one parked worker, if any (llt_idle_wait's protocol: no
 * fence here).  w is the caller's worker (NULL outside the runtime).  With one
 * processor that is the caller's own, running, which looks at the queues
 * before it idles: nobody to wake. */
LL_INLINE void llt_wake_idle(llt_runtime *rt, llt_worker *w)
{
    void llt_wake_one(llt_runtime * rt);
    if (w && w->rt == rt && rt->nworkers == 1)
        return;
    /* relaxed: read after the queue lock's acquire, which orders it after any idler's announcement
     * that the idler made before its locked check of this queue */
    if (ll_load_relaxed(&rt->sleepers) != 0)
        llt_wake_one(rt);
}
/* The idle step shared by A, B, C and E: spin rt->spin_ns polling has_work,
 * then announce, check the queues under their locks and park until has_work or
 * stop (the wake-up protocol: runtime.c).  Returns NULL (the loop calls start again). */
llt_thread *llt_idle_wait(llt_worker *w);

/* Spin up to rt->spin_ns while !done(ctx) (checking the clock every 64 pauses).  done()'s value. */
bool llt_spin_until(llt_runtime *rt, bool (*done)(void *), void *ctx);

LL_INLINE bool llt_stopping(llt_runtime *rt)
{
    return ll_load_acquire(&rt->stop) != 0; /* acquire: pairs with llt_stop's release store */
}

/* ---- per-processor free lists balanced through a global pool (freelist.c) ---- */
typedef struct llt_local_lists {
    llt_thread *cb;   /* control blocks, LIFO */
    unsigned ncb;
    llt_stack *stack; /* at most one stack */
} llt_local_lists;
typedef struct llt_pool {
    ll_lock *lock;
    unsigned threshold;  /* T: a local list of T blocks gives T/2 back */
    llt_thread *batches; /* lists of T/2 control blocks, linked through batch_next */
    llt_stack *stacks;
} llt_pool;
int llt_pool_init(llt_pool *p, llt_runtime *rt);
void llt_pool_destroy(llt_pool *p);
llt_thread *llt_local_cb_get(llt_pool *p, llt_local_lists *l, llt_runtime *rt);
void llt_local_cb_put(llt_pool *p, llt_local_lists *l, llt_thread *t);
llt_stack *llt_local_stack_get(llt_pool *p, llt_local_lists *l, llt_runtime *rt);
void llt_local_stack_put(llt_pool *p, llt_local_lists *l, llt_stack *s);
/* Thread finish over local lists: stack s, and control block t if not NULL. */
void llt_local_finish(llt_pool *p, llt_local_lists *l, llt_stack *s, llt_thread *t);

/* A central ready queue under its own lock (B, C). */
typedef struct llt_central_rq {
    ll_lock *lock;
    llt_queue q;
} llt_central_rq;
LL_INLINE void llt_central_push(llt_central_rq *rq, llt_thread *t)
{
    ll_lock_acquire(rq->lock);
    llt_queue_push(&rq->q, t);
    ll_lock_release(rq->lock);
}
LL_INLINE llt_thread *llt_central_pop(llt_central_rq *rq) { return llt_queue_take(rq->lock, &rq->q); }
/* Its lock, made for rt, and every worker's yield through it. */
LL_INLINE void llt_central_init(llt_central_rq *rq, llt_runtime *rt)
{
    rq->lock = llt_lock_new(rt);
    llt_yield_through(rt, rq->lock, &rq->q);
}
/* The ready and has_work of an alternative whose state (rt->alt) begins with its central
 * ready queue (B, C): push t and wake an idle worker; check that queue.  Inline: ready is on
 * the path of every new thread (create). */
LL_INLINE void llt_central_ready(llt_runtime *rt, llt_worker *w, llt_thread *t)
{
    llt_central_push((llt_central_rq *)rt->alt, t);
    llt_wake_idle(rt, w);
}
LL_INLINE bool llt_central_has_work(llt_worker *w, bool locked)
{
    llt_central_rq *rq = (llt_central_rq *)w->rt->alt;
    return llt_queue_check(rq->lock, &rq->q, locked);
}
#endif
