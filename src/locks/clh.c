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
 * Acquire: me.state = BUSY; pred = swap(tail, me) (tail pred -> me); wait
 * until pred.state == FREE.
 * Release: me.state = FREE (BUSY -> FREE, or P -> FREE by exchange).  The releaser then owns pred's node: nodes migrate
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
 * Timed acquire (ll_clh_acquire_until): abortable, after Scott & Scherer's
 * CLH-try (PPoPP 2001).  A timed waiter that gives up takes its parker back out
 * of pred (if it slept there), then either makes pred the tail again (nobody
 * behind it: CAS tail me -> pred, and recycles its node), or marks its own node
 * LEFT | pred (an exchange, waking a successor asleep on it): whoever waits on
 * a LEFT node recycles it and waits on the predecessor named there instead
 * (clh_follow).  Releases are unchanged.  If pred frees meanwhile, the lock
 * passes through the departed node to the successor (or, at the tail, is free).
 * A timed waiter is served after the waiters ahead of it, as any.  Caveats: a
 * LEFT node can be left at the tail (two timed waiters leave at once), which
 * the next arrival follows; until then try_acquire fails and is_locked says held.
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

/* A node whose timed owner left (ll_clh_acquire_until): LEFT_TAG | its predecessor. */
#define LEFT_TAG ((uintptr_t)2)
LL_INLINE bool is_left(void *state) { return ((uintptr_t)state & 3u) == LEFT_TAG; }
LL_INLINE ll_clh_node *left_pred(void *state) { return (ll_clh_node *)((uintptr_t)state & ~(uintptr_t)3u); }

static bool node_free(void *node)
{
    /* acquire: the previous holder's critical section; pairs with the release store (or
     * the acq_rel exchange) of FREE in ll_clh_release */
    return ll_load_acquire(&((ll_clh_node *)node)->state) == LL_CLH_FREE;
}
/* Free, or its owner left: either way the waiter behind it moves on. */
static bool node_ready(void *node)
{
    void *s = ll_load_acquire(&((ll_clh_node *)node)->state); /* acquire: as node_free, or as clh_follow */
    return s == LL_CLH_FREE || is_left(s);
}

/* pred's owner left (a timed waiter): its node is ours now (recycled) and we wait on its
 * predecessor instead; repeatedly.  Returns the predecessor to wait on. */
static ll_clh_node *clh_follow(ll_clh_node *pred)
{
    for (;;) {
        /* acquire: pairs with the departing owner's release exchange (its last writes to the
         * node come before we recycle it) */
        void *s = ll_load_acquire(&pred->state);
        if (!is_left(s))
            return pred;
        ll_qnode_put(pred);
        pred = left_pred(s);
    }
}

void ll_clh_destroy(ll_clh_lock *l)
{
    /* relaxed: the lock is free and unused: the tail node (and any it says its owner left for) is ours */
    ll_qnode_put(clh_follow((ll_clh_node *)ll_load_relaxed(&l->tail)));
}

/* Wait until the predecessor is free; returns it (it changes when predecessors left). */
LL_COLD static ll_clh_node *clh_wait(ll_clh_node *pred, ll_wait_policy *wp)
{
    for (;;) {
        pred = clh_follow(pred);
        if (node_free(pred))
            return pred;
        bool spun = ll_spin_phase(wp, node_ready, pred);
        if (!ll_wait_may_park(wp))
            continue; /* spin/yield: the spin phase ends only when pred is free or left */
        ll_wait_feedback(wp, spun);
        if (spun)
            continue;
        ll_parker *self = ll_self()->parker;
        void *expected = LL_CLH_BUSY;
        /* acq_rel.  release: our parker, to the releaser's acq_rel exchange in ll_clh_release (or
         * the departing owner's in ll_clh_acquire_until) that takes it out; acquire (on failure,
         * pred FREE or left): as in node_ready */
        if (ll_cas(&pred->state, &expected, (void *)self, LL_ACQ_REL))
            ll_parker_park_until(self, node_ready, pred);
    }
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
        pred = clh_wait(pred, wp);
    l->holder_pred = pred;
    l->holder = me;
}

bool ll_clh_acquire_until(ll_clh_lock *l, ll_wait_policy *wp, uint64_t deadline_ns)
{
    ll_clh_node *me = (ll_clh_node *)ll_qnode_get();
    ll_store_relaxed(&me->state, LL_CLH_BUSY); /* relaxed: published by the release half of the swap below */
    /* acq_rel: as the swap in ll_clh_acquire, with the same pairs */
    ll_clh_node *pred = (ll_clh_node *)ll_xchg(&l->tail, me, LL_ACQ_REL);
    ll_parker *self = ll_self()->parker;
    for (;;) {
        pred = clh_follow(pred);
        if (node_free(pred)) {
            l->holder_pred = pred;
            l->holder = me;
            return true;
        }
        if (ll_now_ns() >= deadline_ns)
            break;
        bool spun = ll_spin_phase_until(wp, node_ready, pred, deadline_ns);
        if (spun || !ll_wait_may_park(wp))
            continue;
        void *expected = LL_CLH_BUSY;
        if (!ll_cas(&pred->state, &expected, (void *)self, LL_ACQ_REL)) /* acq_rel: as in clh_wait */
            continue;
        struct timespec until = {(time_t)(deadline_ns / 1000000000u), (long)(deadline_ns % 1000000000u)};
        if (ll_parker_park_deadline(self, node_ready, pred, CLOCK_MONOTONIC, &until))
            continue; /* free or left: whoever changed it took our parker out */
        /* Timed out asleep: take our parker back out of pred (a successor that comes to wait
         * on pred must find it BUSY to park there).  acq_rel: release, nothing; acquire (on
         * failure, pred FREE or left meanwhile): as in node_ready */
        expected = (void *)self;
        ll_cas(&pred->state, &expected, LL_CLH_BUSY, LL_ACQ_REL);
    }
    /* Leave.  Last in the queue: make pred the tail again, our node is ours to recycle.
     * release: pairs with the next arrival's swap, as the swap above. */
    void *expected = me;
    if (ll_cas(&l->tail, &expected, pred, LL_RELEASE)) {
        ll_qnode_put(me);
        return false;
    }
    /* A successor waits on our node (or is about to): tell it to wait on pred instead; our
     * node is its to recycle.  acq_rel.  release: our writes to the node before the successor
     * recycles it (pairs with the acquire in clh_follow); acquire: a sleeping successor's
     * parker, from its acq_rel CAS in clh_wait. */
    void *old = ll_xchg(&me->state, (void *)((uintptr_t)pred | LEFT_TAG), LL_ACQ_REL);
    if (old != LL_CLH_BUSY)
        ll_parker_unpark((ll_parker *)old); /* parkers are never freed */
    return false;
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
        pred = clh_wait(pred, &aba_wait);
    }
    l->holder_pred = pred;
    l->holder = me;
    return true;
}

void ll_clh_release(ll_clh_lock *l, ll_wait_policy *wp)
{
    ll_clh_node *me = l->holder, *pred = l->holder_pred; /* read before the handover */
    l->holder = l->holder_pred = NULL; /* holder-only: before the handover (abandon tells a held lock by them) */
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
/* A lock dropped while held (ll_lock_ops.abandon): the holder's predecessor node is its to
 * give back (its own is the tail, which destroy returns). */
static void abandon(void *s)
{
    ll_clh_lock *l = (ll_clh_lock *)s;
    if (l->holder_pred)
        ll_qnode_put(l->holder_pred);
    l->holder = l->holder_pred = NULL;
}
LL_LOCK_ADAPTER(ll_clh_lock, ll_clh)
LL_TIMED_ADAPTER(ll_clh_lock, ll_clh)
LL_DIRECT_VERBS_PLAIN()

const ll_lock_ops ll_lock_clh = {
    .name = "clh", .source = "Craig 1993; Magnusson, Landin, Hagersten 1994",
    .summary = "queue lock, each waiter spins on its predecessor's node",
    .fairness = "FIFO", .policies = LL_ALL_POLICIES,
    .state_bytes = sizeof(ll_clh_lock), .lock_bytes = sizeof(ll_atomic_ptr) + sizeof(ll_clh_node),
    .waiter_bytes = sizeof(ll_clh_node), .init = init, .destroy = destroy, LL_OPS_VERBS, .abandon = abandon,
};
