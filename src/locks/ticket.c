/*
 * ticket — classic ticket lock.
 * Source: Mellor-Crummey & Scott 1991; scalable-locking-slides.txt (and the
 * Markov model of its collapse there); TWA paper §1.
 *
 * Lock words:  next  = next ticket to hand out   grant = ticket now admitted
 *   next == grant        free
 *   next == grant + 1    held, no waiters
 *   next == grant + k    held, k - 1 waiters (implicit FIFO queue)
 * Acquire: t = faa(next); wait until grant == t.  Release: grant += 1 (plain
 * store: only the holder writes grant).  All waiters spin on grant, so every
 * release invalidates every waiter's copy: handover cost grows with waiters.
 *
 * Fairness: strict FIFO.
 * Footprint: 8 bytes per lock, nothing per waiting thread.
 * Policies: spin, yield (waiters are anonymous: nobody to unpark; TWA is the
 * ticket lock that can park).
 */
#include "locklab/registry.h"
#include "locklab/ticket.h"

LL_COLD static void ticket_wait(ll_ticket_lock *l, uint32_t t, ll_wait_policy *wp)
{
    uint32_t steps = 0;
    while (ll_load_acquire(&l->grant) != t) /* acquire: pairs with the release store of grant */
        ll_wait_relax(wp, &steps);
}

void ll_ticket_init(ll_ticket_lock *l)
{
    ll_store_relaxed(&l->next, 0);  /* relaxed: like pthread_mutex_init, publish the lock yourself */
    ll_store_relaxed(&l->grant, 0); /* relaxed: as above */
}

void ll_ticket_acquire(ll_ticket_lock *l, ll_wait_policy *wp)
{
    uint32_t t = ll_faa(&l->next, 1, LL_RELAXED); /* relaxed: ordering comes from reading grant */
    if (LL_UNLIKELY(ll_load_acquire(&l->grant) != t)) /* acquire: pairs with the release store of grant */
        ticket_wait(l, t, wp);
}

bool ll_ticket_try_acquire(ll_ticket_lock *l)
{
    uint32_t g = ll_load_acquire(&l->grant); /* acquire: pairs with the release store of grant in ll_ticket_release */
    /* next == g means free; grant cannot move while next == g, so the CAS decides. */
    return ll_cas(&l->next, &g, g + 1, LL_RELAXED); /* relaxed: ordering came from the grant load */
}

void ll_ticket_release(ll_ticket_lock *l, ll_wait_policy *wp)
{
    (void)wp;
    uint32_t g = ll_load_relaxed(&l->grant); /* relaxed: only the holder writes grant */
    ll_store_release(&l->grant, g + 1);        /* release: the critical section; pairs with the acquire loads of grant */
}

bool ll_ticket_is_locked(ll_ticket_lock *l)
{
    uint32_t g = ll_load_acquire(&l->grant); /* acquire: pairs with ll_ticket_release, as in try_acquire */
    return ll_load_relaxed(&l->next) != g;   /* relaxed: a snapshot; next == grant means free */
}

LL_LOCK_ADAPTER(ll_ticket_lock, ll_ticket)

const ll_lock_ops ll_lock_ticket = {
    "ticket", "Mellor-Crummey & Scott 1991; scalable-locking-slides", "ticket lock, all waiters spin on grant",
    "FIFO", LL_SPIN_YIELD, NULL, sizeof(ll_ticket_lock), sizeof(ll_ticket_lock), 0,
    NULL, NULL, acquire, try_acquire, release,
};
