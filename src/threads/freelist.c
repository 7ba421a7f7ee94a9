/*
 * Per-processor free lists balanced through a global pool (the paper's
 * section 3.3, used by local-freelist, idle-queue and local-readyq).
 *
 * Control blocks: each processor keeps a LIFO list without a lock.  When it
 * reaches the threshold T, half of it (T/2 blocks) goes to the global pool as
 * one batch; when it is empty, one batch (or T/2 fresh blocks) comes back.  The
 * pool is a list of lists under one lock: one locked access per T/2 list
 * operations.  The paper sets T = P; we take T = max(P, 16) (our choice): with
 * few processors T = P would send every other free to the pool, and the paper's
 * bound on pool-lock utilisation, O(P * R / T), only gets better with a larger T.
 *
 * Stacks: at most one per processor (the paper: stacks are two orders of
 * magnitude larger than control blocks); the rest in the pool's locked list.
 */
#include "runtime.h"

int llt_pool_init(llt_pool *p, llt_runtime *rt)
{
    p->lock = llt_lock_new(rt);
    p->threshold = rt->nworkers > 16 ? rt->nworkers : 16;
    p->batches = NULL;
    p->stacks = NULL;
    return 0;
}

void llt_pool_destroy(llt_pool *p) { ll_lock_destroy(p->lock); }

/* The pool's two lists (batches through batch_next, stacks through next) are LIFO under its
 * lock: POOL_POP sets e to the first entry, removed (NULL if none); POOL_PUSH puts e first. */
#define POOL_POP(p, head, link, e)       \
    do {                                 \
        ll_lock_acquire((p)->lock);      \
        (e) = (p)->head;                 \
        if (e)                           \
            (p)->head = (e)->link;       \
        ll_lock_release((p)->lock);      \
    } while (0)
#define POOL_PUSH(p, head, link, e)      \
    do {                                 \
        ll_lock_acquire((p)->lock);      \
        (e)->link = (p)->head;           \
        (p)->head = (e);                 \
        ll_lock_release((p)->lock);      \
    } while (0)

LL_COLD static llt_thread *refill(llt_pool *p, llt_runtime *rt)
{
    llt_thread *batch;
    POOL_POP(p, batches, batch_next, batch);
    return batch ? batch : llt_cb_fresh(rt, p->threshold / 2);
}

llt_thread *llt_local_cb_get(llt_pool *p, llt_local_lists *l, llt_runtime *rt)
{
    llt_thread *t = l->cb;
    if (LL_UNLIKELY(!t)) {
        t = refill(p, rt);
        l->ncb = p->threshold / 2;
    }
    l->cb = t->next;
    l->ncb--;
    return t;
}

LL_COLD static void spill(llt_pool *p, llt_local_lists *l)
{
    /* Keep the newest T/2 (cache-warm) blocks; the older half becomes one batch. */
    llt_thread *last_kept = l->cb;
    for (unsigned i = 1; i < p->threshold / 2; i++)
        last_kept = last_kept->next;
    llt_thread *batch = last_kept->next;
    last_kept->next = NULL;
    l->ncb = p->threshold / 2;
    POOL_PUSH(p, batches, batch_next, batch);
}

void llt_local_cb_put(llt_pool *p, llt_local_lists *l, llt_thread *t)
{
    t->next = l->cb;
    l->cb = t;
    if (LL_UNLIKELY(++l->ncb >= p->threshold))
        spill(p, l);
}

LL_COLD static llt_stack *stack_from_pool(llt_pool *p, llt_runtime *rt)
{
    llt_stack *s;
    POOL_POP(p, stacks, next, s);
    return s ? s : llt_stack_fresh(rt);
}

llt_stack *llt_local_stack_get(llt_pool *p, llt_local_lists *l, llt_runtime *rt)
{
    llt_stack *s = l->stack;
    if (LL_LIKELY(s != NULL)) {
        l->stack = NULL;
        return s;
    }
    return stack_from_pool(p, rt);
}

LL_COLD static void stack_to_pool(llt_pool *p, llt_stack *s) { POOL_PUSH(p, stacks, next, s); }

void llt_local_stack_put(llt_pool *p, llt_local_lists *l, llt_stack *s)
{
    if (LL_LIKELY(l->stack == NULL))
        l->stack = s;
    else
        stack_to_pool(p, s);
}

void llt_local_finish(llt_pool *p, llt_local_lists *l, llt_stack *s, llt_thread *t)
{
    llt_local_stack_put(p, l, s);
    if (t)
        llt_local_cb_put(p, l, t);
}
