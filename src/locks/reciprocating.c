/*
 * reciprocating — Reciprocating Locks: arrivals push themselves onto a stack
 * with one exchange; the owner detaches the whole stack as the next "entry
 * segment" and the segment is served from its top down, each thread passing
 * the lock to the one it pushed onto.  Constant-time arrival and release,
 * one wait element per thread whatever the number of locks it holds.
 * Source: Dice & Kogan, "Reciprocating Locks", PPoPP 2025 (§3 the
 * algorithm, Listing 1; §4 the bypass bound).
 *
 * Lock word (arrivals):
 *   NULL           free
 *   LOCKED_EMPTY   held; nobody arrived since the current segment was detached
 *   element E      held; E is the top of the arrival stack (the last to arrive;
 *                  each element "points" below it only through the value its
 *                  own exchange returned), or the holder's own element if it
 *                  took a free lock and nobody arrived since
 * Holder's context (in the lock, written by the holder only):
 *   succ   the element we pushed onto, which is served right after us in our
 *          segment; NULL if we are the segment's last
 *   eos    the end-of-segment marker: the value the bottom of the *next*
 *          segment finds when it pushes (LOCKED_EMPTY, or our element if we
 *          took a free lock)
 * Per-thread element (thread-local): granted (0 waiting, 1 yours), the
 * segment's eos passed by the granter, the thread's parker.
 *
 * Acquire: E.granted = 0; t = exchange(arrivals, E).  t == NULL: ours
 * (succ = NULL, eos = E).  Else wait until granted; the granter passes the
 * segment's eos: if t == eos we are the bottom of our segment (succ = NULL,
 * and the next segment starts from LOCKED_EMPTY), else succ = t.
 * Release: succ != NULL: grant succ, passing eos.  Else CAS arrivals from
 * eos to NULL (nobody arrived: free); failing that, detach the arrival stack
 * with exchange(arrivals, LOCKED_EMPTY) and grant its top, passing eos.
 * Why the eos test is exact: the value a segment's bottom pushed onto is the
 * detacher's eos, and no other element of the segment can have pushed onto
 * it (LOCKED_EMPTY is no element; an element used as eos belongs to the
 * holder that took the free lock, which cannot arrive again while holding).
 * Waiting: on one's own element through the policy (ll_wait_while_eq); the
 * granter reads the grantee's parker before the granting store and wakes it
 * after (wait.h).  The element is granted once per arrival and nothing refers
 * to it after the grant (an element used as eos is only compared), so one
 * per thread serves every lock it holds.
 * Choices: succ and eos live in the lock (holder-only fields, so the
 * expert verbs need no context argument) rather than being returned to the
 * caller as in the paper's listing; granted is a separate 32-bit word
 * beside eos (the paper passes eos in the spin word itself) so that waiting
 * goes through the policy like every node-waiting lock's.
 *
 * Timed acquire (ll_reciprocating_acquire_until): a timed waiter pushes an
 * element of its own for this one arrival, a node from the per-thread cache
 * (not its thread's element, which it may need for other locks once it has
 * left), and records in it the value its push returned (below).  At the
 * deadline it leaves by one CAS of its granted word from 0 to ABANDONED
 * (ll_wait_while_eq_or_leave); every grant is an exchange (ll_grant_word), so
 * of a grant and a departure exactly one wins.  A granter that finds the
 * element abandoned holds the lock in its place: it works out that place from
 * below and the eos it was passing (as the waiter would have), recycles the
 * node (nothing refers to an element after its grant: the one element that
 * pushed onto it was served before it) and releases again.  So a departure
 * leaves no trace, costs the granter one more step, and no waiter waits for
 * another to leave.  A timed waiter whose push found the lock free holds it
 * with its node as the eos; it swaps its thread's element in for the node (a
 * CAS: only compared, never read) so that the node can be recycled; should
 * someone have pushed onto the node already, it releases at once (the release
 * detaches the stack, after which the node's address may be pushed again
 * without being mistaken for the eos) and queues again: a rare race that lets
 * one more segment pass.  A timed waiter lets pass what any waiter does (at
 * most 2(T-1) admissions, below) until its deadline.  Cost: grants are an
 * exchange instead of a store.
 * A lock dropped while held (ll_lock_ops.abandon: a mutex destroyed or freed
 * while held) keeps the nodes of timed waiters that left it and were not yet
 * reached by a grant: in the holder's segment (from succ down to eos) and in
 * the arrival stack (from its top down to LOCKED_EMPTY or eos).  abandon gives
 * them back, following each one's below; nobody waits on a dropped lock, so
 * the walk stops at the first element that was not abandoned (a thread's own).
 *
 * Fairness: not FIFO (a segment is served newest first), but bounded bypass:
 * an arrival is admitted within its own segment, which is detached when the
 * current one is done, so at most 2(T-1) admissions (T threads) pass it
 * (paper §4); admission alternates between segments, never starving anyone.
 * Footprint: 24 bytes per lock (the word + the holder's context); one
 * element per thread (32 B, on its own cache line), nothing per held lock or
 * waiting thread beyond it.  Policies: all.
 */
#include "locklab/reciprocating.h"
#include "locklab/registry.h"

#define LOCKED_EMPTY ((void *)(uintptr_t)1)

typedef struct recip_element {
    ll_atomic_u32 granted; /* 0 keep waiting, 1 the lock is yours, ABANDONED left */
    LL_SHARED_PLAIN(void *) eos;         /* the segment's eos, written by the granter before granted */
    LL_SHARED_PLAIN(ll_parker *) parker; /* ours, read by the granter */
    LL_SHARED_PLAIN(void *) below;       /* a timed waiter's: what its push returned (header) */
} recip_element;
LL_STATIC_ASSERT(sizeof(recip_element) <= LL_QNODE_USABLE, "a timed waiter's element is a queue-node slot");

/* The calling thread's element; granted once per arrival, so never referred to after the thread
 * returned from its last acquire (an element used as eos is only compared). */
typedef struct { LL_ALIGNED(LL_CACHELINE) recip_element e; } recip_line; /* on its own cache line */
LL_THREAD_ELEMENT(recip_line, recip_tls, {{LL_ATOMIC_INIT(0), LL_SHARED_PLAIN_INIT(NULL), LL_SHARED_PLAIN_INIT(NULL), LL_SHARED_PLAIN_INIT(NULL)}}) /* a thread-local (core.h) */
#define recip_self (recip_tls()->e)

/* ---- acquire --------------------------------------------------------------------------- */

/* Granted with the segment's eos, having pushed onto t: our place in the segment. */
static void recip_take_place(ll_reciprocating_lock *l, void *t, void *eos)
{
    if (t == eos) { /* the bottom of our segment: the next one starts from LOCKED_EMPTY */
        ll_plain_store(&l->succ, NULL);
        ll_plain_store(&l->eos, LOCKED_EMPTY);
    } else {
        ll_plain_store(&l->succ, t);
        ll_plain_store(&l->eos, eos);
    }
}

/* We pushed onto t: wait for our grant, then work out our place in the segment. */
LL_COLD static void recip_wait(ll_reciprocating_lock *l, recip_element *me, void *t, ll_wait_policy *wp)
{
    /* acquire (inside ll_wait_while_eq): the critical section before ours and the eos written
     * before the grant; pairs with the release half of the exchange in recip_grant */
    ll_wait_while_eq(wp, &me->granted, 0, ll_plain_load(&me->parker));
    recip_take_place(l, t, ll_plain_load(&me->eos)); /* eos plain: written by the granter before the exchange we acquired */
}

void ll_reciprocating_acquire(ll_reciprocating_lock *l, ll_wait_policy *wp)
{
    recip_element *me = &recip_self;
    LL_ELEMENT_REUSE(); /* granted once per arrival: nobody refers to our element since its last grant */
    ll_plain_store(&me->parker, ll_self()->parker);   /* plain: published by the release half of the exchange */
    ll_store_relaxed(&me->granted, 0); /* relaxed: likewise; only a granter that read our push changes it */
    /* acq_rel.  acquire: if arrivals was NULL, the previous holder's critical section (its
     * release CAS in ll_reciprocating_release); else the element t's fields (parker), which we
     * grant later.  release: our parker and cleared granted, to whoever reads our push (the
     * thread that pushes onto us, the detaching holder: ll_xchg / recip_release_slow). */
    void *t = ll_xchg(&l->arrivals, me, LL_ACQ_REL);
    if (LL_LIKELY(t == NULL)) {
        ll_plain_store(&l->succ, NULL); /* plain: holder-only fields, ordered by the lock itself */
        ll_plain_store(&l->eos, me);
        return;
    }
    recip_wait(l, me, t, wp);
}

bool ll_reciprocating_try_acquire(ll_reciprocating_lock *l)
{
    void *expected = NULL;
    recip_element *me = &recip_self;
    /* acquire: as the exchange in ll_reciprocating_acquire; nothing to release (nobody
     * waits on an element that took a free lock) */
    if (ll_load_relaxed(&l->arrivals) != NULL || !ll_cas(&l->arrivals, &expected, me, LL_ACQUIRE))
        return false;
    ll_plain_store(&l->succ, NULL);
    ll_plain_store(&l->eos, me);
    return true;
}

bool ll_reciprocating_acquire_until(ll_reciprocating_lock *l, ll_wait_policy *wp, uint64_t deadline_ns)
{
    for (;;) {
        if (ll_reciprocating_try_acquire(l))
            return true;
        recip_element *me = (recip_element *)ll_qnode_get();
        ll_plain_store(&me->parker, ll_self()->parker);   /* plain: published by the release half of the exchange */
        ll_store_relaxed(&me->granted, 0); /* relaxed: likewise */
        /* acq_rel: as the exchange in ll_reciprocating_acquire */
        void *t = ll_xchg(&l->arrivals, me, LL_ACQ_REL);
        if (t != NULL) {
            ll_plain_store(&me->below, t); /* plain: read only by a granter that finds us gone, after our releasing CAS */
            /* acquire (inside): as in recip_wait; on leaving, the CAS releases below to the granter */
            if (ll_wait_while_eq_or_leave(wp, &me->granted, 0, ll_plain_load(&me->parker), deadline_ns) == LL_WAIT_ABANDONED)
                return false; /* me is the lock's now */
            recip_take_place(l, t, ll_plain_load(&me->eos)); /* eos plain: as in recip_wait */
            ll_qnode_put(me);                /* nothing refers to it after its grant (header) */
            return true;
        }
        /* A free lock, taken by our node's push: make our thread's element the eos instead, so
         * that the node can go back to the cache (header). */
        ll_plain_store(&l->succ, NULL); /* plain: holder-only fields, ordered by the lock itself */
        ll_plain_store(&l->eos, me);
        void *expected = me;
        /* relaxed: we own the lock already; the new value is only ever compared, never read */
        if (ll_cas(&l->arrivals, &expected, &recip_self, LL_RELAXED)) {
            ll_plain_store(&l->eos, &recip_self);
            ll_qnode_put(me);
            return true;
        }
        /* Someone pushed onto our node already: pass the lock on (its release detaches the
         * stack, so the node can be reused after it), then queue again. */
        ll_reciprocating_release(l, wp);
        ll_qnode_put(me);
        if (ll_now_ns() >= deadline_ns)
            return false;
    }
}

bool ll_reciprocating_is_locked(ll_reciprocating_lock *l)
{
    return ll_load_acquire(&l->arrivals) != NULL; /* acquire: as a successful try_acquire */
}

/* ---- release --------------------------------------------------------------------------- */

/* Hand the lock to e, passing the segment's eos.  False: e's timed waiter had left; we
 * hold the lock in its place (recip_release takes it). */
static bool recip_grant(recip_element *e, void *eos, ll_wait_policy *wp)
{
    ll_plain_store(&e->eos, eos);                                      /* plain: published by the exchange below */
    ll_parker *p = ll_wait_wakee(wp, ll_plain_load(&e->parker));       /* before the exchange: then e may move on */
    /* the exchange (ll_grant_word): release, the critical section and eos to e (pairs with
     * the acquire in recip_wait / ll_wait_while_eq_or_leave); acquire, a departed waiter's below */
    if (!ll_grant_word(&e->granted, 1))
        return false;
    ll_wake(p);
    return true;
}

/* The segment is done and someone arrived: detach the arrival stack, grant its top. */
LL_COLD static recip_element *recip_detach(ll_reciprocating_lock *l)
{
    /* acquire: the top's fields (parker), published by the release half of its push;
     * nothing to release (recip_grant publishes the critical section) */
    return (recip_element *)ll_xchg(&l->arrivals, LOCKED_EMPTY, LL_ACQUIRE);
}

void ll_reciprocating_release(ll_reciprocating_lock *l, ll_wait_policy *wp)
{
    for (;;) {
        recip_element *next = (recip_element *)ll_plain_load(&l->succ); /* plain: our own context */
        void *eos = ll_plain_load(&l->eos);
        if (next == NULL) {
            void *expected = eos;
            /* release: the critical section to the next acquirer; pairs with the acquire half of
             * the exchange in ll_reciprocating_acquire.  On failure nothing is ordered: we detach. */
            if (LL_LIKELY(ll_cas(&l->arrivals, &expected, NULL, LL_RELEASE)))
                return;
            next = recip_detach(l);
        }
        if (LL_LIKELY(recip_grant(next, eos, wp)))
            return;
        /* next's timed waiter left: hold the lock in its place, recycle its node, release again */
        recip_take_place(l, ll_plain_load(&next->below), eos); /* below plain: the exchange acquired its CAS */
        ll_qnode_put(next);
    }
}

/* ---- a lock dropped while held ---------------------------------------------------------- */

/* Give back the abandoned nodes from e down to (not including) end or LOCKED_EMPTY (header). */
static void recip_reclaim(recip_element *e, void *end)
{
    /* acquire: the departed waiter's below, written before its releasing CAS to ABANDONED */
    while (e != NULL && (void *)e != end && (void *)e != LOCKED_EMPTY &&
           ll_load_acquire(&e->granted) == LL_WAIT_ABANDONED) {
        recip_element *below = (recip_element *)ll_plain_load(&e->below);
        ll_qnode_put(e);
        e = below;
    }
}

/* ll_lock_ops.abandon: no thread touches the lock again (header). */
static void abandon(void *s)
{
    ll_reciprocating_lock *l = (ll_reciprocating_lock *)s;
    void *top = ll_load_acquire(&l->arrivals); /* acquire: the pushes' elements (below), as recip_detach */
    if (top == NULL)
        return; /* free: nothing queued */
    recip_reclaim((recip_element *)ll_plain_load(&l->succ), ll_plain_load(&l->eos)); /* the rest of the holder's segment */
    recip_reclaim((recip_element *)top, ll_plain_load(&l->eos));     /* the arrival stack */
}

/* ---- registry adapter ------------------------------------------------------------------- */

LL_INIT_ADAPTER(ll_reciprocating_init((ll_reciprocating_lock *)s))
LL_LOCK_ADAPTERS(ll_reciprocating_lock, ll_reciprocating)

const ll_lock_ops ll_lock_reciprocating = {
    .name = "reciprocating", .source = "Dice & Kogan 2025 (Reciprocating Locks), PPoPP",
    .summary = "arrivals push onto a stack; the owner detaches it as the next segment, served top down",
    .fairness = "bounded bypass (at most 2(T-1) admissions pass a waiter); not FIFO", .policies = LL_ALL_POLICIES,
    .caps = LL_CAP_HOLDER_RELEASES,
    LL_OPS_STATE_IS(ll_reciprocating_lock), .waiter_bytes = sizeof(recip_element), .init = init, LL_OPS_VERBS,
    .abandon = abandon,
};
