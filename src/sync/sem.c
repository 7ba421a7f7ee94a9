/*
 * Counting semaphores with an explicit waiter list, FIFO or mostly-LIFO
 * (LIFO-CR).  Malthusian paper §6.11 (buffer pool over a semaphore whose
 * append/prepend probability is configurable).  API contract:
 * include/locklab/sync.h.
 *
 * Direct handoff: a post that finds a waiter hands its unit to that waiter
 * (value stays 0), so a thread that did not wait cannot barge in and take the
 * unit before the woken waiter runs.  This is what makes the discipline real
 * (the list decides who gets the unit), at a price: the unit is idle until the
 * chosen waiter is scheduled, where a barging semaphore would let a running
 * thread use it at once.  value never exceeds INT32_MAX (post: EOVERFLOW).
 *
 * Parameters: discipline and append_one_in per object (ll_sem_init), or the
 * process defaults (ll_sync_set_defaults) for an all-zero object.
 */
#include <errno.h>
#include <stddef.h>

#include "waitlist.h"

LL_STATIC_ASSERT(offsetof(ll_sem, guard) == 0, "a deferred post finds its semaphore from its guard (waitlist.h)");

static ll_sync_list list_of(ll_sem *s)
{
    ll_sync_list l = {&s->guard, &s->head, &s->tail, NULL}; /* no count kept */
    return l;
}

int ll_sem_init(ll_sem *s, unsigned value, const ll_sync_config *cfg)
{
    if (value > INT32_MAX)
        return EINVAL;
    ll_store_relaxed(&s->guard, 0); /* relaxed: the object is published by whatever shares it */
    s->discipline = cfg ? (uint32_t)cfg->discipline : LL_DISCIPLINE_DEFAULT;
    s->append_one_in = cfg ? cfg->append_one_in : 0;
    s->value = value;
    s->head = s->tail = NULL;
    return 0;
}

void ll_sem_destroy(ll_sem *s)
{
    ll_sync_list l = list_of(s);
    ll_sync_await_empty(&l); /* a timed-out waiter may still be unlinking itself */
}

/* A cancellation acted on while blocked (LL_SYNC_CANCEL): leave the list, or
 * give back the unit a post already handed us (to the next waiter or the value). */
static void sem_wait_cancelled(ll_sync_list *l, struct ll_sync_waiter *w, void *s)
{
    if (!ll_sync_withdraw(l, w))
        ll_sem_post((ll_sem *)s); /* cannot overflow: the unit came from a post */
}

int ll_sem_wait_opts(ll_sem *s, clockid_t clock, const struct timespec *abstime, unsigned opts)
{
    ll_sync_list l = list_of(s);
    struct ll_sync_waiter w;
    ll_thread *self = ll_self(); /* before the guard: a thread's first call allocates (waitlist.h) */
    ll_sync_guard_lock(&s->guard);
    if (s->value > 0) { /* POSIX: abstime is not checked when the unit is there */
        s->value--;
        ll_sync_guard_unlock(&s->guard);
        return 0;
    }
    int rc = ll_sync_check_deadline(clock, abstime);
    if (rc != 0) {
        ll_sync_guard_unlock(&s->guard);
        return rc;
    }
    ll_sync_enqueue(&l, &w, ll_sync_policy_resolve(s->discipline, s->append_one_in, &ll_sync_sem_defaults), self);
    ll_sync_guard_unlock(&s->guard);
    /* 0: a post handed us its unit; EINTR, ETIMEDOUT: none did (a unit that raced is kept) */
    if (opts & LL_SYNC_CANCEL)
        return ll_sync_block_cancellable(&l, &w, clock, abstime, opts, sem_wait_cancelled, s);
    return ll_sync_block(&l, &w, clock, abstime, opts);
}

int ll_sem_wait(ll_sem *s, clockid_t clock, const struct timespec *abstime)
{
    return ll_sem_wait_opts(s, clock, abstime, 0);
}

int ll_sem_trywait(ll_sem *s)
{
    int rc = EAGAIN;
    ll_sync_guard_lock(&s->guard);
    if (s->value > 0) {
        s->value--;
        rc = 0;
    }
    ll_sync_guard_unlock(&s->guard);
    return rc;
}

int ll_sem_post(ll_sem *s)
{
    if (ll_sync_guard_defer_post(&s->guard))
        return 0; /* a signal handler on a thread inside our guard: its holder posts (waitlist.h) */
    ll_sync_list l = list_of(s);
    ll_sync_guard_lock(&s->guard);
    struct ll_sync_waiter *w = ll_sync_take_first(&l);
    int rc = 0;
    if (w == NULL) {
        if (s->value >= INT32_MAX)
            rc = EOVERFLOW;
        else
            s->value++;
    }
    ll_sync_guard_unlock(&s->guard);
    if (w)
        ll_sync_wake(w); /* after the guard: the woken thread may destroy the semaphore at once */
    return rc;
}

int ll_sem_getvalue(ll_sem *s)
{
    ll_sync_guard_lock(&s->guard);
    int value = (int)s->value;
    ll_sync_guard_unlock(&s->guard);
    return value;
}
