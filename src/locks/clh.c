/*
 * clh — Craig, Landin & Hagersten queue lock.
 * Source: Craig 1993; Magnusson, Landin, Hagersten 1994 (cited by the
 * Malthusian paper §2 as the other classic local-spinning queue lock).
 *
 * Lock word (tail): the node of the most recent arrival; never NULL.
 * Node word (state):
 *   FREE            its owner released the lock (or the node is the lock's initial one)
 *   BUSY            its owner holds or awaits the lock
 *   parker P        as BUSY, and the successor (owner of P) sleeps waiting for FREE
 *   tail -> node(FREE)   free;   tail -> node(BUSY or P)   held
 * Acquire: me.state = BUSY; pred = swap(tail, me); wait until pred.state == FREE.
 * Release: me.state = FREE.  The releaser then owns pred's node: nodes migrate
 * from thread to thread, one per acquisition.
 * Parking: after its spin budget the successor CASes pred.state BUSY -> its
 * parker; the releaser (park policies) exchanges FREE in and unparks whatever
 * parker it took out.  The releaser never touches the node after that
 * exchange: once FREE, the node belongs to the successor, which may recycle
 * it at once (for any lock type).
 *
 * try_acquire: CAS tail from a node whose state reads FREE.  Caveat (ABA): if
 * in that window the node was released, recycled by its new owner and
 * enqueued again, the CAS still succeeds and the caller waits behind that
 * owner; we then wait rather than break the queue.  Rare, but try_acquire on
 * clh is not strictly non-blocking.
 *
 * Fairness: strict FIFO.
 * Footprint: 8 bytes per lock + one node held by the lock (8 B in a 128-B
 * slot); one node per waiting or holding thread.  Policies: all.
 */
#include "locklab/clh.h"
#include "locklab/registry.h"

LL_STATIC_ASSERT(sizeof(ll_clh_node) <= LL_QNODE_USABLE, "node must fit a queue-node slot");

void ll_clh_init(ll_clh_lock *l)
{
    ll_clh_node *initial = (ll_clh_node *)ll_qnode_get();
    /* relaxed: like pthread_mutex_init, publish the lock yourself */
    ll_store_relaxed(&initial->state, LL_CLH_FREE);
    ll_store_relaxed(&l->tail, initial);
    l->holder = l->holder_pred = NULL;
}

void ll_clh_destroy(ll_clh_lock *l)
{
    ll_qnode_put(ll_load_relaxed(&l->tail)); /* relaxed: the lock is free and unused: the tail node is ours */
}

static bool node_free(void *node)
{
    /* acquire: the previous holder's critical section; pairs with the release store (or
     * the acq_rel exchange) of FREE in ll_clh_release */
    return ll_load_acquire(&((ll_clh_node *)node)->state) == LL_CLH_FREE;
}

LL_COLD static void clh_wait(ll_clh_node *pred, ll_wait_policy *wp)
{
    bool spun = ll_spin_phase(wp, node_free, pred);
    if (!ll_wait_may_park(wp))
        return; /* spin/yield: the spin phase ends only when pred is free */
    ll_wait_feedback(wp, spun);
    if (spun)
        return;
    ll_parker *self = ll_self()->parker;
    void *expected = LL_CLH_BUSY;
    /* acq_rel.  release: our parker, to the releaser's acq_rel exchange in ll_clh_release that
     * takes it out; acquire (on failure, pred FREE): its critical section, as in node_free */
    if (ll_cas(&pred->state, &expected, (void *)self, LL_ACQ_REL))
        ll_parker_park_until(self, node_free, pred);
}

/* The holder remembers its node and its predecessor's in the lock (holder-only words). */
void ll_clh_acquire(ll_clh_lock *l, ll_wait_policy *wp)
{
    ll_clh_node *me = (ll_clh_node *)ll_qnode_get();
    ll_store_relaxed(&me->state, LL_CLH_BUSY); /* relaxed: published by the release half of the swap below */
    /* acq_rel.  release: our node's BUSY to the next arrival's swap here (or the load of tail
     * in ll_clh_try_acquire), after which it reads our state; acquire: pred's state init,
     * released by pred's own swap here (or by ll_clh_init's publication) */
    ll_clh_node *pred = (ll_clh_node *)ll_xchg(&l->tail, me, LL_ACQ_REL);
    if (LL_UNLIKELY(!node_free(pred)))
        clh_wait(pred, wp);
    l->holder_pred = pred;
    l->holder = me;
}

bool ll_clh_try_acquire(ll_clh_lock *l)
{
    void *t = ll_load_acquire(&l->tail); /* acquire: the tail node's init; pairs with the swap in ll_clh_acquire */
    ll_clh_node *pred = (ll_clh_node *)t;
    if (!node_free(pred))
        return false;
    ll_clh_node *me = (ll_clh_node *)ll_qnode_get();
    ll_store_relaxed(&me->state, LL_CLH_BUSY); /* relaxed: published by the release half of the CAS below */
    if (!ll_cas(&l->tail, &t, me, LL_ACQ_REL)) { /* acq_rel: as the swap in ll_clh_acquire, with the same pairs */
        ll_qnode_put(me);
        return false;
    }
    if (LL_UNLIKELY(!node_free(pred))) { /* ABA: pred was recycled and re-enqueued */
        static ll_wait_policy aba_wait = LL_WAIT_POLICY_INIT(ll_wait_yield); /* never parks */
        clh_wait(pred, &aba_wait);
    }
    l->holder_pred = pred;
    l->holder = me;
    return true;
}

void ll_clh_release(ll_clh_lock *l, ll_wait_policy *wp)
{
    ll_clh_node *me = l->holder, *pred = l->holder_pred; /* read before the handover */
    if (!ll_wait_may_park(wp)) {
        ll_store_release(&me->state, LL_CLH_FREE); /* release: the critical section; pairs with node_free's acquire */
    } else {
        /* acq_rel.  release: the critical section, to node_free's acquire in the successor;
         * acquire: a sleeping successor's parker, from its acq_rel CAS in clh_wait */
        void *old = ll_xchg(&me->state, LL_CLH_FREE, LL_ACQ_REL);
        if (old != LL_CLH_BUSY)
            ll_parker_unpark((ll_parker *)old); /* parkers are never freed */
    }
    ll_qnode_put(pred); /* pred's node is ours now; our node belongs to the successor */
}

bool ll_clh_is_locked(ll_clh_lock *l)
{
    ll_clh_node *t = (ll_clh_node *)ll_load_acquire(&l->tail); /* acquire: see the tail node's init */
    return !node_free(t);
}

/* Generic handle: the lock itself. */
LL_INIT_ADAPTER(ll_clh_init((ll_clh_lock *)s))
static void destroy(void *s) { ll_clh_destroy((ll_clh_lock *)s); }
LL_LOCK_ADAPTER(ll_clh_lock, ll_clh)

const ll_lock_ops ll_lock_clh = {
    "clh", "Craig 1993; Magnusson, Landin, Hagersten 1994", "queue lock, each waiter spins on its predecessor's node",
    "FIFO", LL_ALL_POLICIES, NULL, sizeof(ll_clh_lock), sizeof(ll_atomic_ptr) + sizeof(ll_clh_node), sizeof(ll_clh_node),
    init, destroy, acquire, try_acquire, release,
};
