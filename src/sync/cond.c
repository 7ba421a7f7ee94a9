/*
 * Condition variables over any mutex (ll_mutex_iface), FIFO or mostly-LIFO
 * (LIFO-CR), with wait morphing through the mutex's deferred wake list.
 * Malthusian paper §6.7 (producer-consumer), §6.10 (CR condition variables:
 * prepend with probability 1 - 1/append_one_in), Appendix A footnote 40
 * (Solaris wait morphing).  API contract: include/locklab/sync.h.
 *
 * Parameters: discipline and append_one_in per object (ll_cond_init), or the
 * process defaults (ll_sync_set_defaults) for an all-zero object.
 * Waiting: a waiter parks on its thread's parker (no spinning phase): the
 * wake-up usually comes after the signaller's critical section, far longer
 * than a spin budget on an oversubscribed machine.
 */
#include <errno.h>

#include "waitlist.h"

static ll_sync_list list_of(ll_cond *c)
{
    ll_sync_list l = {&c->guard, &c->head, &c->tail, &c->waiters};
    return l;
}

void ll_cond_init(ll_cond *c, const ll_sync_config *cfg)
{
    ll_store_relaxed(&c->guard, 0); /* relaxed: the object is published by whatever shares it */
    c->discipline = cfg ? (uint32_t)cfg->discipline : LL_DISCIPLINE_DEFAULT;
    c->append_one_in = cfg ? cfg->append_one_in : 0;
    ll_store_relaxed(&c->waiters, 0); /* relaxed: as the guard */
    c->head = c->tail = NULL;
}

void ll_cond_destroy(ll_cond *c)
{
    ll_sync_list l = list_of(c);
    ll_sync_await_empty(&l); /* a timed-out waiter may still be unlinking itself */
}

/* A cancellation acted on while blocked (LL_SYNC_CANCEL): leave the list, or pass
 * on the wake-up already consumed (POSIX: a cancelled waiter consumes no signal
 * another waiter could take; an extra wake-up is only spurious), then re-take
 * the mutex (POSIX: the cleanup handlers run with it held). */
static void cond_wait_cancelled(ll_sync_list *l, struct ll_sync_waiter *w, void *c)
{
    if (!ll_sync_withdraw(l, w))
        ll_cond_signal((ll_cond *)c, NULL);
    w->mi->lock(w->mutex);
}

int ll_cond_wait_opts(ll_cond *c, const ll_mutex_iface *mi, void *mutex, clockid_t clock,
                      const struct timespec *abstime, unsigned opts)
{
    int rc = ll_sync_check_deadline(clock, abstime);
    if (rc != 0)
        return rc;
    ll_sync_list l = list_of(c);
    struct ll_sync_waiter w;
    w.mi = mi;
    w.mutex = mutex;
    ll_thread *self = ll_self(); /* before the guard: a first call allocates (waitlist.h) */
    ll_sync_guard_lock(&c->guard);
    ll_sync_enqueue(&l, &w, ll_sync_policy_resolve(c->discipline, c->append_one_in, &ll_sync_cond_defaults), self);
    ll_sync_guard_unlock(&c->guard);
    /* Listed before the mutex is released: a signaller that takes the mutex after us sees us. */
    mi->unlock(mutex);
    opts &= LL_SYNC_CANCEL; /* never EINTR: a signal only makes the sleep start again */
    if (opts) {
        rc = ll_sync_block_cancellable(&l, &w, clock, abstime, opts, cond_wait_cancelled, c);
    } else {
        rc = ll_sync_block(&l, &w, clock, abstime, 0);
    }
    mi->lock(mutex);
    return rc;
}

int ll_cond_wait(ll_cond *c, const ll_mutex_iface *mi, void *mutex, clockid_t clock,
                 const struct timespec *abstime)
{
    return ll_cond_wait_opts(c, mi, mutex, clock, abstime, 0);
}

/* Nobody listed: a signal or broadcast has nothing to do, and skips the guard (an RMW on a
 * line the waiters write).  A waiter is listed before it releases its mutex, so a caller that
 * held the mutex after that release (what POSIX asks of a signaller that must see the waiter)
 * is ordered after the listing and reads a count of at least 1. */
LL_INLINE bool nobody_listed(ll_cond *c)
{
    return ll_load_relaxed(&c->waiters) == 0; /* relaxed: ordered by the mutex (above); a hint otherwise */
}

/* Take the first listed waiter (TAKEN), or NULL. */
static struct ll_sync_waiter *take_first(ll_cond *c)
{
    if (nobody_listed(c))
        return NULL;
    ll_sync_list l = list_of(c);
    ll_sync_guard_lock(&c->guard);
    struct ll_sync_waiter *w = ll_sync_take_first(&l);
    ll_sync_guard_unlock(&c->guard);
    return w;
}

/* Wake the taken waiter w now, or (defer) after the caller's unlock of the
 * mutex that defer belongs to. */
static void wake_or_defer(struct ll_sync_waiter *w, ll_wake_list *defer)
{
    if (defer) {
        w->wake_next = defer->head; /* the list belongs to the mutex the caller holds */
        defer->head = w;
    } else {
        ll_sync_wake(w);
    }
}

void ll_cond_signal(ll_cond *c, ll_wake_list *defer)
{
    struct ll_sync_waiter *w = take_first(c);
    if (w != NULL)
        wake_or_defer(w, defer);
}

/* Take every listed waiter (TAKEN), chained through wake_next in list order;
 * returns the last link (to be terminated or spliced by the caller). */
static struct ll_sync_waiter **take_all(ll_cond *c, struct ll_sync_waiter **first)
{
    struct ll_sync_waiter **link = first;
    if (nobody_listed(c))
        return link;
    ll_sync_list l = list_of(c);
    ll_sync_guard_lock(&c->guard);
    for (struct ll_sync_waiter *w; (w = ll_sync_take_first(&l)) != NULL; link = &w->wake_next)
        *link = w;
    ll_sync_guard_unlock(&c->guard);
    return link;
}

void ll_cond_broadcast(ll_cond *c, ll_wake_list *defer)
{
    struct ll_sync_waiter *first = NULL, **link = take_all(c, &first);
    *link = NULL;
    if (defer) {
        *link = defer->head; /* splice the batch, in list order, in front of the deferred ones */
        defer->head = first;
    } else {
        ll_wake_list batch;
        batch.head = first;
        ll_wake_list_flush(&batch);
    }
}

void ll_cond_signal_morph(ll_cond *c, ll_held_wake_list_fn held)
{
    struct ll_sync_waiter *w = take_first(c);
    if (w != NULL)
        wake_or_defer(w, held(w->mi, w->mutex)); /* w is TAKEN: its owner and its mutex are still there */
}

void ll_cond_broadcast_morph(ll_cond *c, ll_held_wake_list_fn held)
{
    struct ll_sync_waiter *first = NULL;
    *take_all(c, &first) = NULL;
    /* Deferred ones keep their list order in front of the mutex's earlier deferred ones. */
    ll_wake_list *target = NULL;
    struct ll_sync_waiter *chain = NULL, **tail = &chain;
    for (struct ll_sync_waiter *w = first, *next; w; w = next) {
        next = w->wake_next; /* read before ll_sync_wake lets w's owner return */
        ll_wake_list *defer = held(w->mi, w->mutex); /* w is TAKEN: its mutex is still there */
        if (defer == NULL) {
            ll_sync_wake(w);
        } else if (target == NULL || defer == target) {
            target = defer;
            *tail = w;
            tail = &w->wake_next;
        } else { /* waiters with different mutexes (undefined in POSIX): still delivered */
            w->wake_next = defer->head;
            defer->head = w;
        }
    }
    if (target) {
        *tail = target->head;
        target->head = chain;
    }
}
