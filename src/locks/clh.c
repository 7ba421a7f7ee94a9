/*
 * clh — Craig, Landin & Hagersten queue lock.
 * Source: Craig 1993; Magnusson, Landin, Hagersten 1994 (cited by the
 * Malthusian paper §2 as the other classic local-spinning queue lock).
 *
 * Lock word (tail): the node of the most recent arrival; never NULL.
 * Node word (busy): 1 = its owner holds or awaits the lock, 0 = released.
 *   tail -> node(busy=0)   free
 *   tail -> node(busy=1)   held (by the owner of the oldest busy node)
 * Acquire: me.busy = 1; pred = swap(tail, me); wait until pred.busy == 0.
 * Release: me.busy = 0.  The releaser then owns pred's node: nodes migrate
 * from thread to thread, one per acquisition.
 * Parking: the waiter publishes its parker in pred.sleeper before it may
 * park; the releaser reads sleeper after clearing busy (Dekker pairing).
 *
 * try_acquire: CAS tail from a node whose busy reads 0.  Caveat (ABA): if in
 * that window the node was released, recycled by its new owner and enqueued
 * again, the CAS still succeeds and the caller waits behind that owner; we
 * then wait rather than break the queue.  Rare, but try_acquire on clh is
 * not strictly non-blocking.
 *
 * Fairness: strict FIFO.
 * Footprint: 8 bytes per lock + one node held by the lock (16 B in a 128-B
 * slot); one node per waiting or holding thread.  Policies: all.
 */
#include "locklab/clh.h"
#include "locklab/registry.h"

LL_STATIC_ASSERT(sizeof(ll_clh_node) <= LL_QNODE_BYTES - sizeof(void *), "node must fit a queue-node slot");

void ll_clh_init(ll_clh_lock *l, ll_clh_node *initial)
{
    ll_store_relaxed(&initial->busy, 0);
    ll_store_relaxed(&initial->sleeper, NULL);
    ll_store_release(&l->tail, initial); /* release: publish the node's init */
}

LL_COLD static void clh_wait(ll_clh_node *pred, ll_wait_policy *wp)
{
    ll_parker *self = ll_self()->parker;
    if (wp->ops->may_park)
        ll_store_relaxed(&pred->sleeper, self); /* ordered before the park announce by its seq_cst fence */
    ll_wait_while_eq(wp, &pred->busy, 1, self);
}

static void clh_prepare(ll_clh_node *me)
{
    ll_store_relaxed(&me->busy, 1);
    ll_store_relaxed(&me->sleeper, NULL);
}

ll_clh_node *ll_clh_acquire(ll_clh_lock *l, ll_clh_node *me, ll_wait_policy *wp)
{
    clh_prepare(me);
    /* acq_rel: release our node's init to the successor; acquire pred's init */
    ll_clh_node *pred = (ll_clh_node *)ll_xchg(&l->tail, me, LL_ACQ_REL);
    if (LL_UNLIKELY(ll_load_acquire(&pred->busy) != 0)) /* acquire: pairs with the release of busy */
        clh_wait(pred, wp);
    return pred;
}

ll_clh_node *ll_clh_try_acquire(ll_clh_lock *l, ll_clh_node *me)
{
    void *t = ll_load_acquire(&l->tail); /* acquire: see the tail node's init */
    ll_clh_node *pred = (ll_clh_node *)t;
    if (ll_load_acquire(&pred->busy) != 0) /* acquire: pairs with the release of busy */
        return NULL;
    clh_prepare(me);
    if (!ll_cas(&l->tail, &t, me, LL_ACQ_REL)) /* acq_rel: as the swap in acquire */
        return NULL;
    if (LL_UNLIKELY(ll_load_acquire(&pred->busy) != 0)) { /* ABA: pred was recycled and re-enqueued */
        static ll_wait_policy aba_wait = LL_WAIT_POLICY_INIT(ll_wait_yield); /* no sleeper registered: never park */
        ll_wait_while_eq(&aba_wait, &pred->busy, 1, NULL);
    }
    return pred;
}

void ll_clh_release(ll_clh_node *me, ll_wait_policy *wp)
{
    ll_store_release(&me->busy, 0); /* release: hand over the critical section */
    if (wp->ops->may_park) {
        ll_fence(LL_SEQ_CST); /* clear-busy-before-reading-sleeper: pairs with the waiter's park announce */
        ll_parker *p = (ll_parker *)ll_load_relaxed(&me->sleeper);
        if (p)
            ll_parker_unpark(p); /* a stale parker only gets a spurious wake-up */
    }
}

/* Generic handle: the holder's node and its predecessor are remembered in the lock. */
typedef struct { ll_clh_lock lock; ll_clh_node *holder, *holder_pred; } clh_state;

static int init(void *s, const uint64_t *p, char *err, size_t errlen)
{
    (void)p, (void)err, (void)errlen;
    ll_clh_init(&((clh_state *)s)->lock, (ll_clh_node *)ll_qnode_get());
    return 0;
}
static void destroy(void *s)
{
    ll_qnode_put(ll_load_relaxed(&((clh_state *)s)->lock.tail)); /* lock is free: the tail node is ours */
}
static void acquire(void *s, ll_wait_policy *wp)
{
    clh_state *st = (clh_state *)s;
    ll_clh_node *me = (ll_clh_node *)ll_qnode_get();
    st->holder_pred = ll_clh_acquire(&st->lock, me, wp);
    st->holder = me;
}
static bool try_acquire(void *s, ll_wait_policy *wp)
{
    (void)wp;
    clh_state *st = (clh_state *)s;
    ll_clh_node *me = (ll_clh_node *)ll_qnode_get();
    ll_clh_node *pred = ll_clh_try_acquire(&st->lock, me);
    if (!pred) {
        ll_qnode_put(me);
        return false;
    }
    st->holder_pred = pred;
    st->holder = me;
    return true;
}
static void release(void *s, ll_wait_policy *wp)
{
    clh_state *st = (clh_state *)s;
    ll_clh_node *pred = st->holder_pred;
    ll_clh_release(st->holder, wp);
    ll_qnode_put(pred); /* pred's node is ours now; our node belongs to the successor */
}

const ll_lock_ops ll_lock_clh = {
    "clh", "Craig 1993; Magnusson, Landin, Hagersten 1994", "queue lock, each waiter spins on its predecessor's node",
    "FIFO", LL_ALL_POLICIES, NULL, sizeof(clh_state), sizeof(ll_clh_lock) + sizeof(ll_clh_node), sizeof(ll_clh_node),
    init, destroy, acquire, try_acquire, release,
};
