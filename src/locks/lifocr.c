/*
 * lifocr — LIFO-CR: a LIFO lock with concurrency restriction.
 * Source: Dice, "Malthusian Locks", EuroSys 2017, Appendix A.2; the
 * long-term fairness device (Bernoulli trial, p = 1/1000, grant the eldest)
 * is MCSCR's (§4).
 *
 * Lock word (top):
 *   NULL               free
 *   LOCKED (=1)        held, no waiters
 *   node A             held; A is the most recently pushed waiter, the
 *                      stack continues through A->next down to a node whose
 *                      next is LOCKED (the eldest waiter)
 * Node word (waiting): 1 = keep waiting, 0 = you own the lock.
 *
 * Acquire: CAS top NULL -> LOCKED; otherwise push a node (CAS top -> node,
 * node->next = old top) and wait on one's own node (local spinning, or any
 * policy).  Only the holder pops, so there is no ABA: a node on the stack
 * cannot leave it, and no link below top can change, except by the holder.
 * Release:
 *   - top == LOCKED: CAS LOCKED -> NULL.
 *   - else pop the top node T with one CAS (top: T -> T->next) and grant T.
 *     If that CAS fails, newer waiters were pushed: rather than retry, the
 *     "plausibly LIFO" constant-time unlock unlinks the node just below the
 *     newest one N (N->next = N->next->next; only holders write links) and
 *     grants it.  At most two CASes per release.
 *   - with probability 1/fairness (ll_rand, a Bernoulli trial per contended
 *     release with at least two waiters) the holder walks to the bottom of
 *     the stack instead and grants the eldest waiter, unlinking it by storing
 *     LOCKED into its predecessor's link (no CAS: pushes only change top).
 *   - time bound (spec key patience_ns, a locklab extension, default 50 ms,
 *     0 = off, the paper's algorithm): a waiter stamps its node with
 *     ll_now_ns() before its push.  A contended release with at least two
 *     waiters reads the clock and compares it with check_at, a holder-only
 *     word of the lock: the time before which the eldest waiter cannot be
 *     overdue.  Only once check_at has passed does the holder walk to the
 *     bottom: if the eldest has waited patience_ns it grants it exactly as
 *     the fairness trial does, and sets check_at to now + patience_ns (at
 *     most one such grant per patience_ns, so that a backlog of overdue
 *     waiters does not turn the lock FIFO); otherwise it sets check_at to the
 *     eldest's deadline.  Waiters pushed later have later deadlines, so no
 *     overdue waiter is missed; a waiter with k waiters below it is served
 *     within about (k + 1) * patience_ns.  The O(waiters) walk happens about
 *     once per patience_ns; every other release adds only a clock read
 *     (vDSO, ~20 ns) to the constant-time path.
 *     Why: 1/fairness trials are counted in releases, and with pure spinning
 *     under oversubscription (16 threads on 2 CPUs) a handover to a
 *     preempted waiter takes a scheduler time slice: mutexbench saw ~70
 *     releases in 3 s, so the trial never fired and threads deep in the
 *     stack completed no acquisition at all.
 * The holder reads the grantee's parker, then stores waiting = 0 (release),
 * then wakes the parker; it never touches the node after that store, and the
 * grantee returns its node to its cache at once (any lock type may reuse it).
 * Waiters on the stack are never granted or recycled behind the holder's
 * back, so the links it reads and writes always belong to waiting nodes.
 *
 * Fairness: not FIFO.  Admission is mostly LIFO; the active set (owner,
 * threads in their non-critical sections, top of the stack) circulates
 * round-robin while deeper waiters stay passive (the CR effect).  Long-term
 * fairness is probabilistic, not a bypass bound: each contended release
 * grants the eldest waiter with probability 1/fairness (spec key fairness,
 * default 1000; fairness=1 grants the eldest on every release that sees the
 * stack unchanged, which is nearly FIFO but not strictly: when the pop CAS
 * meets newer pushes, the "plausibly LIFO" path grants one of them;
 * fairness=0 never does, pure LIFO, which can starve).  A waiter d places
 * from the bottom is admitted after about (d+1)*fairness contended releases
 * on average.  With patience_ns > 0 there is also a bound: once a waiter
 * has waited patience_ns, so (up to the few nanoseconds between a stamp and
 * its push) has every waiter below it, and one of them is granted per
 * patience_ns, so a waiter with k waiters below it is admitted within about
 * (k + 1) * patience_ns after its own patience ran out, provided releases
 * keep happening: under oversubscription a granted waiter that is preempted
 * holds everyone up until it runs, and a release that sees a single waiter does no check
 * (that waiter is the eldest; the pop grants it unless newer pushes race
 * with the release, and the next release then sees two or more).
 * Timed acquire (ll_lifocr_acquire_until): a timed waiter pushes its node as any
 * other and, at its deadline, abandons it in place (one CAS of its waiting word,
 * ll_wait_while_eq_or_leave); the release that grants an abandoned node finds it
 * (the grant is an exchange), recycles it and hands the lock on again.  So a
 * timed waiter gets the bounds above (1/fairness, patience_ns), like any waiter.
 * Footprint: 24 bytes per lock (8 B word, the fairness and patience_ns
 * parameters, 4 B each, and check_at); one node (32 B in a 128-B slot of
 * the per-thread cache) per waiting thread, none while holding (the holder
 * needs no per-thread bookkeeping).
 * Policies: all.  Spin-then-park suits it well (§A.2): the top of the stack,
 * the next to run, is the waiter most likely still spinning.  No
 * anticipatory warm-up: whoever is on top at the next release is the
 * successor, usually a fresh (spinning) arrival, so waking the second node
 * early would mostly be wasted.
 */
#include "locklab/lifocr.h"
#include "locklab/registry.h"

LL_STATIC_ASSERT(sizeof(ll_lifocr_node) <= LL_QNODE_USABLE, "node must fit a queue-node slot");

#define LOCKED LL_LIFOCR_LOCKED

/* Take the free lock (NULL), or push a node and return it (the caller waits on it). */
static ll_lifocr_node *lifocr_take_or_push(ll_lifocr_lock *l)
{
    ll_lifocr_node *me = NULL;
    void *top = ll_load_relaxed(&l->top); /* relaxed: only a guess for the CASes below */
    for (;;) {
        if (top == NULL) {
            /* acquire: the previous holder's critical section; pairs with the acq_rel CAS
             * LOCKED -> NULL in ll_lifocr_release */
            if (ll_cas(&l->top, &top, LOCKED, LL_ACQUIRE)) {
                if (me)
                    ll_qnode_put(me);
                return NULL;
            }
            continue;
        }
        if (me == NULL) {
            me = (ll_lifocr_node *)ll_qnode_get();
            ll_plain_store(&me->parker, ll_self()->parker);
            ll_plain_store(&me->since, l->patience_ns != 0 ? ll_now_ns() : 0); /* published by the push below */
            ll_store_relaxed(&me->waiting, 1); /* only the granting holder clears it, after our push */
        }
        ll_store_relaxed(&me->next, top); /* published by the push below */
        /* release: our node's fields (next, waiting, parker, since) before a holder reads them;
         * pairs with the acquire on failure of the CAS in ll_lifocr_release (and in lifocr_grant) */
        if (ll_cas(&l->top, &top, me, LL_RELEASE))
            return me;
    }
}

LL_COLD static void lifocr_acquire_slow(ll_lifocr_lock *l, ll_wait_policy *wp)
{
    ll_lifocr_node *me = lifocr_take_or_push(l);
    if (me == NULL)
        return;
    /* acquire (inside ll_wait_while_eq): pairs with the release half of the exchange in lifocr_grant */
    ll_wait_while_eq(wp, &me->waiting, 1, ll_plain_load(&me->parker));
    ll_qnode_put(me); /* the granting holder unlinked it and never touches it again */
}

/* Timed: as lifocr_acquire_slow, leaving the stack at the deadline by abandoning the node
 * (ll_wait_while_eq_or_leave): it stays where it is, and the holder that grants it recycles
 * it and hands the lock on again (lifocr_release_slow). */
bool ll_lifocr_acquire_until(ll_lifocr_lock *l, ll_wait_policy *wp, uint64_t deadline_ns)
{
    void *expected = NULL;
    /* acquire: as in ll_lifocr_acquire */
    if (ll_cas(&l->top, &expected, LOCKED, LL_ACQUIRE))
        return true;
    ll_lifocr_node *me = lifocr_take_or_push(l);
    if (me == NULL)
        return true;
    /* acquire (inside): as in lifocr_acquire_slow */
    if (ll_wait_while_eq_or_leave(wp, &me->waiting, 1, ll_plain_load(&me->parker), deadline_ns) == LL_WAIT_ABANDONED)
        return false; /* me is the lock's now */
    ll_qnode_put(me);
    return true;
}

void ll_lifocr_init(ll_lifocr_lock *l, uint32_t fairness, uint32_t patience_ns)
{
    ll_store_relaxed(&l->top, NULL); /* relaxed: like pthread_mutex_init, publish the lock yourself */
    l->fairness = fairness;
    l->patience_ns = patience_ns;
    ll_plain_store(&l->check_at, 0);
}

void ll_lifocr_acquire(ll_lifocr_lock *l, ll_wait_policy *wp)
{
    void *expected = NULL;
    ll_rmw_lead(&l->top); /* no store since the last RMW (atomics.h) */
    /* acquire: the previous holder's critical section; pairs with the acq_rel CAS in ll_lifocr_release */
    if (LL_UNLIKELY(!ll_cas(&l->top, &expected, LOCKED, LL_ACQUIRE)))
        lifocr_acquire_slow(l, wp);
}

bool ll_lifocr_try_acquire(ll_lifocr_lock *l)
{
    void *expected = NULL;
    return ll_cas(&l->top, &expected, LOCKED, LL_ACQUIRE); /* acquire: as in ll_lifocr_acquire (pairs with the release CAS) */
}

/* The eldest waiter (bottom of the stack) below top, whose next node is `below` (a node);
 * *pred_out gets the node above it. */
LL_COLD static ll_lifocr_node *lifocr_bottom(ll_lifocr_node *top, void *below, ll_lifocr_node **pred_out)
{
    ll_lifocr_node *pred = top, *succ = (ll_lifocr_node *)below;
    while ((below = ll_load_relaxed(&succ->next)) != LOCKED) { /* relaxed: see lifocr_grant */
        pred = succ;
        succ = (ll_lifocr_node *)below;
    }
    *pred_out = pred;
    return succ;
}

/* Hand the lock to one waiter; top is a node (the stack is non-empty), read with acquire.
 * False if that waiter had left (a timed waiter, ll_lifocr_acquire_until): its node, out of
 * the stack now, is recycled, and we still hold the lock. */
static bool lifocr_grant(ll_lifocr_lock *l, ll_lifocr_node *top, ll_wait_policy *wp)
{
    ll_lifocr_node *succ = NULL, *pred = NULL;
    /* Links (and since): written by the pusher before its release push (which our acquire of
     * top, or of a later push in the same release sequence, synchronised with), or by an
     * earlier holder (ordered before us by the lock handover), as is check_at.  Relaxed
     * suffices everywhere below. */
    void *below = ll_load_relaxed(&top->next);
    if (below != LOCKED) {
        uint64_t now;
        if (l->fairness != 0 && ll_rand_below(l->fairness) == 0) {
            /* Long-term fairness: grant the eldest waiter, the bottom of the stack. */
            succ = lifocr_bottom(top, below, &pred);
        } else if (l->patience_ns != 0 && (now = ll_now_ns()) >= ll_plain_load(&l->check_at)) {
            /* Time bound: the eldest waiter may have run out of patience. */
            succ = lifocr_bottom(top, below, &pred);
            if (now < ll_plain_load(&succ->since) + l->patience_ns) {
                ll_plain_store(&l->check_at, ll_plain_load(&succ->since) + l->patience_ns); /* later pushes have later deadlines */
                succ = NULL;
            }
        }
    }
    if (succ != NULL) {
        /* At most one time-bound grant per patience_ns: when many waiters are overdue
         * (slow circulation), serving them back to back would turn the lock FIFO and
         * undo the concurrency restriction. */
        if (l->patience_ns != 0)
            ll_plain_store(&l->check_at, ll_now_ns() + l->patience_ns);
        ll_store_relaxed(&pred->next, LOCKED); /* published to later holders by the grant below */
    } else {
        void *expected = top;
        /* acquire (on failure): the newer node's fields; pairs with the release push CAS in
         * lifocr_acquire_slow.  (On success the pop publishes nothing: the grant's release does.) */
        if (ll_cas(&l->top, &expected, below, LL_ACQUIRE)) {
            succ = top;
        } else {
            /* Plausibly LIFO: newer waiters arrived.  Grant the node just below the
             * newest one; it is a node (top is still somewhere below the newest). */
            ll_lifocr_node *newest = (ll_lifocr_node *)expected;
            succ = (ll_lifocr_node *)ll_load_relaxed(&newest->next); /* relaxed: see above */
            ll_store_relaxed(&newest->next, ll_load_relaxed(&succ->next)); /* published by the grant below */
        }
    }
    ll_parker *p = ll_wait_wakee(wp, ll_plain_load(&succ->parker)); /* read before the handover: succ's node may be reused after it */
    /* the exchange (ll_grant_word): release, the critical section and our link edits, to the
     * acquire in ll_wait_while_eq*, in the grantee's lifocr_acquire_slow / _acquire_until */
    if (!ll_grant_word(&succ->waiting, 0)) {
        ll_qnode_put(succ); /* abandoned: ours (unlinked above) */
        return false;
    }
    ll_wake(p);
    return true;
}

/* A contended release: grant a waiter, until one was still there or the stack emptied. */
LL_COLD static void lifocr_release_slow(ll_lifocr_lock *l, void *top, ll_wait_policy *wp)
{
    while (!lifocr_grant(l, (ll_lifocr_node *)top, wp)) {
        top = LOCKED;
        /* release and acquire: as in ll_lifocr_release */
        if (ll_cas(&l->top, &top, NULL, LL_ACQ_REL))
            return;
    }
}

void ll_lifocr_release(ll_lifocr_lock *l, ll_wait_policy *wp)
{
    void *top = LOCKED;
    /* release: the critical section, to the next acquirer's acquire CAS (ll_lifocr_acquire,
     * lifocr_acquire_slow, ll_lifocr_try_acquire); acquire (on failure): the pushed node's
     * fields, pairing with the release push CAS in lifocr_acquire_slow */
    ll_rmw_lead(&l->top); /* as in acquire */
    if (LL_LIKELY(ll_cas(&l->top, &top, NULL, LL_ACQ_REL)))
        return;
    lifocr_release_slow(l, top, wp);
}

bool ll_lifocr_is_locked(ll_lifocr_lock *l) { return ll_load_acquire(&l->top) != NULL; /* acquire: as a successful try_acquire */ }

/* ---- registry adapter: the lock needs no holder bookkeeping ------------------------- */

static const ll_param params[] = {
    {"fairness", "grant the eldest waiter with probability 1/fairness per contended release (0 = never)", 0,
     1u << 30, LL_LIFOCR_DEFAULT_FAIRNESS},
    {"patience_ns", "locklab extension: grant the eldest waiter once it has waited this long, at most one such "
                    "grant per patience_ns (a waiter with k below it: within ~(k+1)*patience_ns; 0 = off, the paper's)",
     0, 4000000000u, LL_LIFOCR_DEFAULT_PATIENCE_NS},
    {NULL, NULL, 0, 0, 0},
};

LL_INIT_ADAPTER(ll_lifocr_init((ll_lifocr_lock *)s, (uint32_t)p[0], (uint32_t)p[1]))
LL_LOCK_ADAPTERS(ll_lifocr_lock, ll_lifocr)

/* A lock dropped while held (ll_lock_ops.abandon): the holder keeps nothing, but the stack
 * may hold the nodes of timed waiters that left.  Nobody waits on a dropped lock, so every
 * node from the top down is abandoned; give them back (stopping at the first that was not,
 * or at the bottom). */
static void abandon(void *s)
{
    ll_lifocr_lock *l = (ll_lifocr_lock *)s;
    void *n = ll_load_acquire(&l->top); /* acquire: the pushed nodes' fields, as a release's pop */
    /* acquire on waiting: the departed waiter's writes before its leaving CAS */
    while (n != NULL && n != LOCKED && ll_load_acquire(&((ll_lifocr_node *)n)->waiting) == LL_WAIT_ABANDONED) {
        void *below = ll_load_relaxed(&((ll_lifocr_node *)n)->next); /* relaxed: ordered by the acquires above */
        ll_qnode_put(n);
        n = below;
    }
}


const ll_lock_ops ll_lock_lifocr = {
    .name = "lifocr", .source = "Dice 2017, Malthusian Locks, App. A.2 (LIFO-CR)",
    .summary = "LIFO stack of waiters, holder pops (direct handoff); concurrency restriction",
    .fairness = "none short-term (mostly LIFO); eldest waiter granted with probability 1/fairness per contended "
        "release or after patience_ns (50 ms)",
    .policies = LL_ALL_POLICIES, .params = params,
    LL_OPS_STATE_IS(ll_lifocr_lock), .waiter_bytes = sizeof(ll_lifocr_node), .init = init, LL_OPS_VERBS,
    .abandon = abandon,
};
