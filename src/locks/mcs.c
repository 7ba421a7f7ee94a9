/*
 * mcs — Mellor-Crummey & Scott queue lock.
 * Source: Mellor-Crummey & Scott 1991; scalable-locking-slides.txt ("MCS");
 * malthusian-locks.txt §2.
 *
 * Lock word (tail):
 *   NULL         free
 *   node A       held; A is the last node in the queue (A may be the holder)
 * Node word (waiting): 1 = keep waiting, 0 = you own the lock.
 * Acquire: swap self into tail; if there was a predecessor, link into its
 * next and wait on one's own node (local spinning).  Release: hand over to
 * next, or CAS tail from self to NULL if no one is queued.
 *
 * Fairness: strict FIFO (direct handoff).  Under spin-then-park the head of
 * the queue is the thread most likely to have parked (§5.1 of the Malthusian
 * paper): handovers pay a wake-up inside the critical path.
 * Footprint: 8 bytes per lock; one node (24 B, a 128-B slot from the
 * per-thread cache) per thread waiting or holding.  Policies: all.
 */
#include "locklab/mcs.h"
#include "locklab/registry.h"

LL_STATIC_ASSERT(sizeof(ll_mcs_node) <= LL_QNODE_USABLE, "node must fit a queue-node slot");

LL_COLD static void mcs_wait(ll_mcs_node *me, ll_mcs_node *pred, ll_wait_policy *wp)
{
    me->parker = ll_self()->parker;
    ll_store_relaxed(&me->waiting, 1); /* only pred clears it, after it sees the link below */
    ll_store_release(&pred->next, me); /* release: our node's fields before the holder may see us */
    ll_wait_while_eq(wp, &me->waiting, 1, me->parker);
}

void ll_mcs_acquire(ll_mcs_lock *l, ll_mcs_node *me, ll_wait_policy *wp)
{
    ll_store_relaxed(&me->next, NULL); /* relaxed: published by the release swap/CAS on tail */
    /* acq_rel: acquire the previous holder's writes (if tail was NULL); release our node's init */
    ll_mcs_node *pred = (ll_mcs_node *)ll_xchg(&l->tail, me, LL_ACQ_REL);
    if (LL_UNLIKELY(pred != NULL))
        mcs_wait(me, pred, wp);
}

bool ll_mcs_try_acquire(ll_mcs_lock *l, ll_mcs_node *me)
{
    ll_store_relaxed(&me->next, NULL); /* relaxed: published by the release swap/CAS on tail */
    void *expected = NULL;
    return ll_cas(&l->tail, &expected, me, LL_ACQ_REL); /* acq_rel: as in acquire */
}

void ll_mcs_release(ll_mcs_lock *l, ll_mcs_node *me, ll_wait_policy *wp)
{
    ll_mcs_node *succ = (ll_mcs_node *)ll_load_acquire(&me->next); /* acquire: pairs with the link store */
    if (succ == NULL) {
        void *expected = me;
        if (ll_cas(&l->tail, &expected, NULL, LL_RELEASE)) /* release: publish the critical section */
            return;
        succ = (ll_mcs_node *)ll_await_link(&me->next);
    }
    ll_parker *p = ll_wait_wakee(wp, succ->parker); /* read before the handover: succ's node may be reused after it */
    ll_parker *warm = NULL;
    if (wp->ops->has_budget) {
        /* Anticipatory warm-up (Malthusian paper §5.1, note 19), for spin-then-park:
         * also wake the successor's successor, so that it is back in its spin
         * phase by the time the lock reaches it (a pure park policy would just
         * park again).  Read now: both nodes stay put until we hand over. */
        ll_mcs_node *next2 = (ll_mcs_node *)ll_load_acquire(&succ->next); /* acquire: pairs with the link store */
        warm = next2 ? next2->parker : NULL;
    }
    ll_store_release(&succ->waiting, 0); /* release: hand over the critical section */
    ll_wake(p);
    if (warm)
        ll_parker_unpark(warm); /* early: it re-checks, spins, and may park again */
}

/* Generic handle: the holder's node is remembered in the lock (written only by the holder). */
typedef struct { ll_mcs_lock lock; ll_mcs_node *holder; } mcs_state;

LL_QUEUE_LOCK_ADAPTER(mcs_state, ll_mcs_node, ll_mcs)

const ll_lock_ops ll_lock_mcs = {
    "mcs", "Mellor-Crummey & Scott 1991", "queue lock, each waiter spins on its own node",
    "FIFO", LL_ALL_POLICIES, NULL, sizeof(mcs_state), sizeof(ll_mcs_lock), sizeof(ll_mcs_node),
    NULL, NULL, acquire, try_acquire, release,
};
