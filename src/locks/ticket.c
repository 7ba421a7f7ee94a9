/*
 * ticket — classic ticket lock.
 * Source: Mellor-Crummey & Scott 1991; Boyd-Wickizer, Kaashoek, Morris &
 * Zeldovich, "Non-scalable locks are dangerous", Linux Symposium 2012, and
 * the lecture slides on it (the Markov model of its collapse); the TWA paper
 * §1.
 *
 * Lock words:  next  = next ticket to hand out   grant = ticket now admitted
 *   next == grant        free
 *   next == grant + 1    held, no waiters
 *   next == grant + k    held, k - 1 waiters (implicit FIFO queue)
 * Acquire: t = faa(next) (next t -> t + 1); wait until grant == t.  Release:
 * grant += 1 (t -> t + 1; a plain store: only the holder writes grant).  All waiters spin on grant, so every
 * release invalidates every waiter's copy: handover cost grows with waiters.
 *
 * Timed acquire (ll_ticket_acquire_until): the timed waiter takes a ticket as
 * any other (after reserving the lock's departure note, gone) and waits for its
 * turn until the deadline; then it leaves a note "ticket t has left", and
 * whoever sees t admitted while the note names it (a spinning waiter, an
 * arrival, a try_acquire) takes t's turn (src/locks/ticket_gone.h).  So a timed
 * waiter is served after the waiters ahead of it, as any; while one timed
 * waiter holds the note, others poll try_acquire until it frees.  Caveat: with
 * nobody waiting behind a departed ticket, the lock stays held by the ghost
 * until the next acquire or try_acquire takes its turn (is_locked says held).
 * Fairness: strict FIFO.
 * Footprint: 12 bytes per lock (next, grant, gone), nothing per waiting thread.
 * Policies: spin, yield (waiters are anonymous: nobody to unpark; TWA is the
 * ticket lock that can park).
 */
#include "locklab/registry.h"
#include "locklab/ticket.h"
#include "ticket_gone.h"

LL_COLD static void ticket_wait(ll_ticket_lock *l, uint32_t t, ll_wait_policy *wp)
{
    uint32_t steps = 0, g;
    while ((g = ll_load_acquire(&l->grant)) != t) { /* acquire: pairs with the release store of grant */
        if (LL_UNLIKELY(ll_gone_names(&l->gone, g)) && ll_gone_take(&l->gone, g))
            ll_ticket_release(l, wp); /* g's waiter left: its turn is ours, pass it on */
        else
            ll_wait_relax(wp, &steps);
    }
}

void ll_ticket_init(ll_ticket_lock *l)
{
    ll_store_relaxed(&l->next, 0);  /* relaxed: like pthread_mutex_init, publish the lock yourself */
    ll_store_relaxed(&l->grant, 0); /* relaxed: as above */
    ll_store_relaxed(&l->gone, LL_GONE_NONE); /* relaxed: as above */
}

void ll_ticket_acquire(ll_ticket_lock *l, ll_wait_policy *wp)
{
    ll_rmw_lead(&l->next); /* the last release was a store: atomics.h */
    uint32_t t = ll_faa(&l->next, 1, LL_RELAXED); /* relaxed: ordering comes from reading grant */
    if (LL_UNLIKELY(ll_load_acquire(&l->grant) != t)) /* acquire: pairs with the release store of grant */
        ticket_wait(l, t, wp);
}

bool ll_ticket_try_acquire(ll_ticket_lock *l)
{
    if (ll_ticket_try_free(&l->next, &l->grant))
        return true;
    /* Held by a ghost (a timed waiter left and its turn came): take its turn. */
    uint32_t g = ll_load_acquire(&l->grant); /* acquire: pairs with the release store of grant in ll_ticket_release */
    return LL_UNLIKELY(ll_gone_names(&l->gone, g)) && ll_gone_take(&l->gone, g);
}

void ll_ticket_release(ll_ticket_lock *l, ll_wait_policy *wp)
{
    (void)wp;
    ll_ticket_grant_next(&l->grant);
}

typedef struct { ll_ticket_lock *l; uint32_t t; } ticket_ctx;
static bool ticket_admitted(void *p)
{
    ticket_ctx *c = (ticket_ctx *)p;
    return ll_load_acquire(&c->l->grant) == c->t; /* acquire: pairs with the release store of grant */
}
static bool ticket_try(void *l) { return ll_ticket_try_acquire((ll_ticket_lock *)l); }

bool ll_ticket_acquire_until(ll_ticket_lock *l, ll_wait_policy *wp, uint64_t deadline_ns)
{
    int r = ll_gone_reserve_until(&l->gone, ticket_try, l, wp, deadline_ns); /* the lock at once, or the note's reservation */
    if (r != 1)
        return r == 2;
    ticket_ctx c = {l, ll_faa(&l->next, 1, LL_RELAXED)}; /* relaxed: ordering comes from reading grant */
    for (uint32_t steps = 0, i = 1; !ticket_admitted(&c); i++) {
        if ((i & 63) == 0 && ll_now_ns() >= deadline_ns)
            return ll_gone_leave(&l->gone, c.t, ticket_admitted, &c); /* spinning waiters take the note */
        ll_wait_relax(wp, &steps);
    }
    ll_gone_unreserve(&l->gone);
    return true;
}

bool ll_ticket_is_locked(ll_ticket_lock *l)
{
    uint32_t g = ll_load_acquire(&l->grant); /* acquire: pairs with ll_ticket_release, as in try_acquire */
    return ll_load_relaxed(&l->next) != g;   /* relaxed: a snapshot; next == grant means free */
}

LL_LOCK_ADAPTER(ll_ticket_lock, ll_ticket)
LL_TIMED_ADAPTER(ll_ticket_lock, ll_ticket)
LL_DIRECT_VERBS_BY(ll_ticket_direct_try)

const ll_lock_ops ll_lock_ticket = {
    .name = "ticket", .source = "Mellor-Crummey & Scott 1991; scalable-locking-slides",
    .summary = "ticket lock, all waiters spin on grant",
    .fairness = "FIFO", .policies = LL_SPIN_YIELD,
    LL_OPS_STATE_IS(ll_ticket_lock), LL_OPS_VERBS,
};
