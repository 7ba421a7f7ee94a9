/*
 * llt_mutex and llt_cond: blocking synchronisation between lightweight
 * threads.  A blocked thread waits in a FIFO under the object's guard (a lock
 * of the runtime's spec) and its worker runs other threads; the guard stays
 * held across the switch and is released by the next context on the worker
 * (llt_block's post-switch action) only once the blocked thread has switched
 * out, so an unlocker or signaller that finds it in the FIFO may make it ready
 * at once.
 *
 * The mutex is handed over: unlock gives it to the first waiter, which returns
 * from llt_mutex_lock holding it (FIFO, no barging).  A condition wait queues
 * the thread under the condition's guard before it releases the mutex, so a
 * signal sent after that release finds it (no lost wake-up).  Lock order:
 * a condition's guard, then a mutex's guard, then the runtime's queues.
 */
#include "runtime.h"

LL_INLINE void fifo_push(llt_thread **head, llt_thread **tail, llt_thread *t)
{
    t->next = NULL;
    if (*tail)
        (*tail)->next = t;
    else
        *head = t;
    *tail = t;
}

LL_INLINE llt_thread *fifo_pop(llt_thread **head, llt_thread **tail)
{
    llt_thread *t = *head;
    if (t) {
        *head = t->next;
        if (!*head)
            *tail = NULL;
    }
    return t;
}

int llt_mutex_init(llt_mutex *m, llt_runtime *rt)
{
    char err[256];
    m->guard = ll_lock_create(rt->lock_spec, err, sizeof err);
    m->held = false;
    m->head = m->tail = NULL;
    return m->guard ? 0 : -1;
}

void llt_mutex_destroy(llt_mutex *m) { ll_lock_destroy(m->guard); }

void llt_mutex_lock(llt_mutex *m)
{
    ll_lock_acquire(m->guard);
    if (LL_LIKELY(!m->held)) {
        m->held = true;
        ll_lock_release(m->guard);
        return;
    }
    fifo_push(&m->head, &m->tail, llt_self());
    llt_block(m->guard);
    /* Handed the mutex by llt_mutex_unlock. */
}

bool llt_mutex_trylock(llt_mutex *m)
{
    ll_lock_acquire(m->guard);
    bool got = !m->held;
    m->held = true;
    ll_lock_release(m->guard);
    return got;
}

void llt_mutex_unlock(llt_mutex *m)
{
    ll_lock_acquire(m->guard);
    llt_thread *next = fifo_pop(&m->head, &m->tail);
    if (!next)
        m->held = false;
    ll_lock_release(m->guard);
    if (next)
        llt_make_ready(next);
}

int llt_cond_init(llt_cond *c, llt_runtime *rt)
{
    char err[256];
    c->guard = ll_lock_create(rt->lock_spec, err, sizeof err);
    c->head = c->tail = NULL;
    return c->guard ? 0 : -1;
}

void llt_cond_destroy(llt_cond *c) { ll_lock_destroy(c->guard); }

void llt_cond_wait(llt_cond *c, llt_mutex *m)
{
    ll_lock_acquire(c->guard);
    fifo_push(&c->head, &c->tail, llt_self());
    llt_mutex_unlock(m);
    llt_block(c->guard);
    llt_mutex_lock(m);
}

void llt_cond_signal(llt_cond *c)
{
    ll_lock_acquire(c->guard);
    llt_thread *t = fifo_pop(&c->head, &c->tail);
    ll_lock_release(c->guard);
    if (t)
        llt_make_ready(t);
}

void llt_cond_broadcast(llt_cond *c)
{
    ll_lock_acquire(c->guard);
    llt_thread *t = c->head;
    c->head = c->tail = NULL;
    ll_lock_release(c->guard);
    while (t) {
        llt_thread *next = t->next; /* read before t runs again and reuses its link */
        llt_make_ready(t);
        t = next;
    }
}
