/*
 * mcs_queue.h — the MCS queue, once: the steps that mcs, mcscr, mcscrn, cna
 * and hmcs (and loiter's inner lock) share, over the common node prefix
 * ll_mcs_node (include/locklab/mcs.h: next, waiting, socket, parker).
 * Source: Mellor-Crummey & Scott 1991; the warm-up after Dice, Malthusian
 * Locks §5.1 note 19.
 *
 * Private to src/locks on purpose: these steps are not a lock, only pieces
 * of one, each correct only inside its caller's protocol (ll_mcsq_grant may
 * be called by the holder alone, ll_mcsq_pass_tail only by the tail, ...).
 * Expert users get whole locks (locklab/mcs.h, mcscr.h, ...); the one public
 * piece is the node prefix, which the public node types must embed.  Being
 * one header, it is also the one thing a model checker has to cover for the
 * whole MCS family (it compiles as C11 and as C++, like every lock source).
 *
 * Words (the caller's lock owns `tail`; the node words are the prefix's):
 *   tail          NULL = free; node A = A is the last node of the queue
 *   node.next     NULL until a successor links itself in; afterwards only a
 *                 holder rewrites it (ll_mcsq_set_next: grafts, relinks)
 *   node.waiting  `busy` (the caller's "keep waiting" value) until a holder
 *                 grants the node with another value (ll_mcsq_publish)
 *
 * A lock's life in steps:
 *   acquire   ll_mcsq_acquire(tail, me, busy, flags, wp), or ll_mcsq_enqueue
 *             + ll_mcsq_wait when the caller needs the granted value (hmcs);
 *             try-acquire: ll_mcsq_try_enqueue; timed: ll_mcsq_enqueue +
 *             ll_mcsq_wait_until, which abandons the node at the deadline.
 *   release   uncontended: ll_mcsq_try_leave (inline, the slow path out of line);
 *             else ll_mcsq_next(me) (the linked successor, or NULL), then either
 *             ll_mcsq_pass_tail(tail, me, NULL or a node) + on failure
 *             ll_mcsq_await_next(me), or ll_mcsq_leave (those three, the plain
 *             MCS way); then ll_mcsq_grant(succ, value, wp, warm) with a
 *             warm-up target (ll_mcsq_warm_next, or the lock's own choice);
 *             if the grant finds the node abandoned, release again in its place
 *             (ll_mcsq_take_place) until a grant succeeds or the lock is free.
 * Every node is a 128-B slot from the per-thread cache (or the caller's
 * memory, which must stay valid until the release returns); a holder never
 * touches a node after the store that grants it (ll_mcsq_publish reads the
 * parker first), since the grantee may recycle it at once for any lock type.
 */
#ifndef LOCKLAB_SRC_LOCKS_MCS_QUEUE_H
#define LOCKLAB_SRC_LOCKS_MCS_QUEUE_H

#include <stddef.h>

#include "locklab/mcs.h"

/* The node of type T whose first member is the prefix n (NULL stays NULL).
 * Every MCS-family node type asserts offsetof(T, mcs) == 0. */
#define LL_MCSQ_OWNER(T, n) ((T *)(void *)(n))

/* ---- acquire ------------------------------------------------------------------------ */

/* Swap me into the tail.  Returns the predecessor, or NULL: the lock is ours. */
LL_INLINE ll_mcs_node *ll_mcsq_enqueue(ll_atomic_ptr *tail, ll_mcs_node *me)
{
    ll_store_relaxed(&me->next, NULL); /* relaxed: published by the release half of the swap below */
    /* acq_rel.  acquire: if tail was NULL, the previous holder's critical section (its
     * release CAS in ll_mcsq_pass_tail); else pred's cleared next (pred's own swap here),
     * before we link into it (else pred's clearing could overwrite our link).  release:
     * our cleared next, to the next arrival's swap here, which then links into us. */
    return (ll_mcs_node *)ll_xchg(tail, me, LL_ACQ_REL);
}

/* Try-acquire: CAS tail NULL -> me. */
LL_INLINE bool ll_mcsq_try_enqueue(ll_atomic_ptr *tail, ll_mcs_node *me)
{
    if (ll_load_relaxed(tail) != NULL) /* relaxed: a held lock fails without taking the tail's line */
        return false;
    ll_store_relaxed(&me->next, NULL); /* relaxed: published by the release half of the CAS below */
    void *expected = NULL;
    /* acq_rel, as the swap in ll_mcsq_enqueue: acquire pairs with the previous holder's
     * release CAS in ll_mcsq_pass_tail; release pairs with the next arrival's swap */
    return ll_cas(tail, &expected, me, LL_ACQ_REL);
}

/* Flags for ll_mcsq_wait / ll_mcsq_acquire. */
enum { LL_MCSQ_PLAIN = 0, LL_MCSQ_RECORD_SOCKET = 1 };

/* Link me behind pred, to wait for a grant (its waiting word leaves busy).
 * LL_MCSQ_RECORD_SOCKET: also record the caller's socket in me->socket, for
 * NUMA-aware holders. */
LL_INLINE void ll_mcsq_link(ll_mcs_node *me, ll_mcs_node *pred, uint32_t busy, unsigned flags)
{
    ll_plain_store(&me->parker, ll_self()->parker);
    if (flags & LL_MCSQ_RECORD_SOCKET)
        ll_plain_store(&me->socket, (int32_t)ll_current_socket());
    ll_store_relaxed(&me->waiting, busy); /* relaxed: published by the link store below; only a holder
                                             that has read that link (acquire) changes it */
    /* release: waiting, socket and parker before any holder sees us; pairs with the
     * acquire load of pred->next in ll_mcsq_next / ll_mcsq_next_for_write / ll_mcsq_await_next */
    ll_store_release(&pred->next, me);
}

/* Link me behind pred and wait until a holder grants the node; returns the
 * granted value.  Out of line and cold, one copy per lock file (unused in files
 * that only release). */
LL_COLD __attribute__((unused)) static uint32_t ll_mcsq_wait(ll_mcs_node *me, ll_mcs_node *pred, uint32_t busy,
                                                            unsigned flags, ll_wait_policy *wp)
{
    ll_mcsq_link(me, pred, busy, flags);
    /* acquire (inside ll_wait_while_eq): pairs with the release half of the exchange in ll_mcsq_publish */
    return ll_wait_while_eq(wp, &me->waiting, busy, ll_plain_load(&me->parker));
}

/* Acquire: enqueue, and if there is a predecessor, link in and wait.
 * Returns true if the caller had to wait (it was granted), false if the queue was empty. */
LL_INLINE bool ll_mcsq_acquire(ll_atomic_ptr *tail, ll_mcs_node *me, uint32_t busy, unsigned flags,
                               ll_wait_policy *wp)
{
    ll_mcs_node *pred = ll_mcsq_enqueue(tail, me);
    if (LL_LIKELY(pred == NULL))
        return false;
    ll_mcsq_wait(me, pred, busy, flags, wp);
    return true;
}

/* ---- timed acquire: leaving the queue ------------------------------------------------ */
/*
 * A timed waiter whose deadline passes leaves by abandoning its node: one CAS of
 * its waiting word from busy to LL_MCSQ_ABANDONED (ll_wait_while_eq_or_leave, wait.h).  The node stays where it is
 * (in the queue, or wherever the lock keeps waiting nodes), and from then on
 * belongs to the lock: the holder that grants it (an exchange, ll_mcsq_publish)
 * finds ABANDONED, holds the lock in the node's place, and releases it as the
 * node's owner would (the node's waiting word now reads the granted value, as if
 * granted), then recycles the node (ll_qnode_put).  The CAS and the exchange on
 * the one word decide the race between a grant and a departure: exactly one
 * wins, so the lock ends with exactly one owner (the waiter, if the grant came
 * first: it then returns with the lock although its deadline passed).  After
 * Scott & Scherer's abortable MCS ("Scalable queue-based spin locks with
 * timeout", PPoPP 2001), simplified: the releaser skips the departed node
 * instead of the waiter unlinking itself, O(1) per departure, and no waiter
 * ever waits for another to leave.
 * Such nodes must come from the per-thread cache (ll_qnode_get): whichever
 * thread releases in their place recycles them.
 */
#define LL_MCSQ_ABANDONED LL_WAIT_ABANDONED

/* ll_mcsq_wait with a deadline: link me behind pred and wait until granted (the
 * granted value) or until deadline_ns (LL_MCSQ_ABANDONED: me is the lock's now). */
LL_COLD __attribute__((unused)) static uint32_t ll_mcsq_wait_until(ll_mcs_node *me, ll_mcs_node *pred,
                                                                  uint32_t busy, unsigned flags,
                                                                  ll_wait_policy *wp, uint64_t deadline_ns)
{
    ll_mcsq_link(me, pred, busy, flags);
    return ll_wait_while_eq_or_leave(wp, &me->waiting, busy, ll_plain_load(&me->parker), deadline_ns);
}

/* ll_mcsq_acquire with a deadline: true if we own the lock; false: me is the lock's. */
LL_INLINE bool ll_mcsq_acquire_until(ll_atomic_ptr *tail, ll_mcs_node *me, uint32_t busy, unsigned flags,
                                     ll_wait_policy *wp, uint64_t deadline_ns)
{
    ll_mcs_node *pred = ll_mcsq_enqueue(tail, me);
    return pred == NULL || ll_mcsq_wait_until(me, pred, busy, flags, wp, deadline_ns) != LL_MCSQ_ABANDONED;
}

/* Release in an abandoned node's place, for a release loop: *me (the node just
 * released for) is recycled unless it is the caller's own node, mine; then the
 * abandoned node n becomes *me.  (Called once *me is out of the queue: no one
 * reads it any more.) */
LL_INLINE void ll_mcsq_take_place(ll_mcs_node **me, ll_mcs_node *mine, ll_mcs_node *n)
{
    if (*me != mine)
        ll_qnode_put(*me);
    *me = n;
}

/* ---- the holder's view of the queue -------------------------------------------------- */

/* n's successor as linked so far, or NULL. */
LL_INLINE ll_mcs_node *ll_mcsq_next(ll_mcs_node *n)
{
    /* acquire: the successor's waiting/socket/parker; pairs with the link store in ll_mcsq_wait */
    return (ll_mcs_node *)ll_load_acquire(&n->next);
}

/* n's successor as linked so far, or NULL, for a holder that is about to write n
 * (grant it, cull it): a CAS NULL -> NULL instead of a load takes n's line
 * exclusive in one transfer, where a load followed by the write costs two (a
 * shared copy, then an upgrade that invalidates n's spinning owner), the read-for-
 * ownership that qspinlock gets from prefetchw(next).  It writes NULL only where
 * NULL already was, so a racing link store is never lost: it lands before the CAS
 * (which then fails and returns it) or after. */
LL_INLINE ll_mcs_node *ll_mcsq_next_for_write(ll_mcs_node *n)
{
    void *next = NULL;
    /* acquire (success and failure): the successor's waiting/socket/parker; pairs with
     * the link store in ll_mcsq_link */
    (void)ll_cas(&n->next, &next, NULL, LL_ACQUIRE);
    return (ll_mcs_node *)next;
}

/* A lock dropped while held (ll_lock_ops.abandon): the nodes timed waiters abandoned
 * behind the holder's node h in its chain are the lock's; give them back.  Nobody waits
 * on a dropped lock, so every node linked behind h was abandoned; the walk stops at the
 * first one that was not, or at the end of the chain.  (Nodes a holder had moved out of
 * the chain -- a passive set, a secondary queue -- and whose waiters then left are not
 * reached: docs/interposer.md, "Known limitations".) */
LL_COLD __attribute__((unused)) static void ll_mcsq_reclaim_abandoned(ll_mcs_node *h)
{
    /* acquire (ll_mcsq_next): the link; acquire on waiting: the departed waiter's writes to
     * its node (its next) before its leaving CAS */
    for (ll_mcs_node *n = ll_mcsq_next(h); n != NULL && ll_load_acquire(&n->waiting) == LL_MCSQ_ABANDONED;) {
        ll_mcs_node *next = ll_mcsq_next(n);
        ll_qnode_put(n);
        n = next;
    }
}
/* ll_lock_ops.abandon (abandon_chain) of a lock on LL_QUEUE_LOCK_ADAPTER whose nodes
 * start with an ll_mcs_node: the abandoned nodes behind the holder's, then the adapter's
 * abandon (the holder's node). */
#define LL_MCSQ_ABANDON_ADAPTER(STATE)                                                  \
    static void abandon_chain(void *s)                                                 \
    {                                                                                  \
        STATE *st = (STATE *)s;                                                        \
        if (st->holder)                                                                \
            ll_mcsq_reclaim_abandoned((ll_mcs_node *)(void *)st->holder);              \
        abandon(s);                                                                    \
    }
/* The whole registry adapter of a lock on the MCS queue whose expert API is PREFIX_acquire,
 * _try_acquire, _release, _acquire_until over (lock *, NODE *): LL_QUEUE_LOCK_ADAPTER,
 * LL_QUEUE_LOCK_ADAPTER_UNTIL and LL_MCSQ_ABANDON_ADAPTER over STATE (members `lock`, `holder`). */
#define LL_MCSQ_LOCK_ADAPTERS(STATE, NODE, PREFIX)                                      \
    LL_QUEUE_LOCK_ADAPTER(STATE, NODE, PREFIX)                                         \
    LL_QUEUE_LOCK_ADAPTER_UNTIL(STATE, NODE, PREFIX)                                   \
    LL_MCSQ_ABANDON_ADAPTER(STATE)
/* The ll_lock_ops fields that such a lock fills alike (registry.h, LL_OPS_VERBS): the handle's
 * state (STATE), the algorithm's footprint per lock (LOCK) and per waiter (NODE), the file's
 * static init, the adapters' verbs and abandon_chain. */
#define LL_MCSQ_OPS(STATE, LOCK, NODE)                                                  \
    .state_bytes = sizeof(STATE), .lock_bytes = sizeof(LOCK), .waiter_bytes = sizeof(NODE), \
    .init = init, LL_OPS_VERBS, .abandon = abandon_chain

/* A successor swapped itself into the tail after me but has not linked yet:
 * wait for its link (ll_await_link acquires it, pairing with the link store in
 * ll_mcsq_wait). */
LL_INLINE ll_mcs_node *ll_mcsq_await_next(ll_mcs_node *me) { return (ll_mcs_node *)ll_await_link(&me->next); }
/* The same, but give up after ns (NULL: nobody linked in by then). */
LL_INLINE ll_mcs_node *ll_mcsq_await_next_for(ll_mcs_node *me, uint64_t ns)
{
    return (ll_mcs_node *)ll_await_link_for(&me->next, ns);
}

/* Holder relinks a node it owns (a waiting node it has unlinked, or one it
 * grafts into the queue): n->next = succ. */
LL_INLINE void ll_mcsq_set_next(ll_mcs_node *n, ll_mcs_node *succ)
{
    /* relaxed: n is private to the holder until the release store that grants n (or a
     * node before it) in ll_mcsq_publish, or the release CAS in ll_mcsq_pass_tail */
    ll_store_relaxed(&n->next, succ);
}

/* The tail is me (my next read NULL): make t the tail instead, t == NULL freeing
 * the lock, or t a node of the caller whose next is already NULL (a passive node,
 * a secondary queue's tail) that the next arrival will link into.  False if an
 * arrival swapped itself in first: then await its link (ll_mcsq_await_next). */
LL_INLINE bool ll_mcsq_pass_tail(ll_atomic_ptr *tail, ll_mcs_node *me, ll_mcs_node *t)
{
    void *expected = me;
    /* release: the critical section, and t's cleared next and the holder's queue edits,
     * to the next thread that reads tail: pairs with the acquire half of the swap in
     * ll_mcsq_enqueue / the CAS in ll_mcsq_try_enqueue.  (On failure nothing is ordered:
     * the caller then acquires the arrival's link in ll_mcsq_await_next.) */
    return ll_cas(tail, &expected, t, LL_RELEASE);
}

/* The uncontended release: if nobody has linked behind me, tail me -> NULL.  True if the lock
 * is free now; false: a successor linked, or is linking (release the plain MCS way). */
LL_INLINE bool ll_mcsq_try_leave(ll_atomic_ptr *tail, ll_mcs_node *me)
{
    return ll_mcsq_next(me) == NULL && ll_mcsq_pass_tail(tail, me, NULL);
}

/* Plain MCS release head: the successor, or NULL if the lock is now free. */

LL_INLINE ll_mcs_node *ll_mcsq_leave(ll_atomic_ptr *tail, ll_mcs_node *me)
{
    ll_mcs_node *succ = ll_mcsq_next(me);
    if (succ == NULL) {
        if (ll_mcsq_pass_tail(tail, me, NULL))
            return NULL;
        succ = ll_mcsq_await_next(me);
    }
    return succ;
}

/* ---- handover ------------------------------------------------------------------------ */

/* Grant n (exchange value into its waiting word).  True: granted, and *wake is
 * the parker to wake, or NULL; the caller wakes it (ll_wake) when it sees fit,
 * e.g. after releasing an outer lock.  The parker is read first: after the
 * exchange n may be reused.  False: n's owner had abandoned it (a timed waiter
 * that left, ll_mcsq_wait_until): the caller still holds the lock, now in n's
 * place, and releases it as n (then recycles n: ll_mcsq_take_place). */
LL_INLINE bool ll_mcsq_publish(ll_mcs_node *n, uint32_t value, ll_wait_policy *wp, ll_parker **wake)
{
    ll_parker *p = ll_wait_wakee(wp, ll_plain_load(&n->parker)); /* plain: published by n's link store, which we acquired */
    /* The exchange (ll_grant_word): release, the critical section and every queue edit the
     * holder made (relinks, grafts, lock-specific node fields) to the grantee, pairing with
     * the acquire load in ll_wait_while_eq*, called from ll_mcsq_wait / _wait_until; acquire,
     * a departure (the departed waiter's writes to n, before we take n over). */
    if (!ll_grant_word(&n->waiting, value)) {
        *wake = NULL;
        return false;
    }
    *wake = p;
    return true;
}

/* Grant n with value, wake it if the policy parks, then unpark warm (NULL: none),
 * a waiter the caller expects to be served soon: an anticipatory warm-up.
 * False: n was abandoned, release in its place (ll_mcsq_publish). */
LL_INLINE bool ll_mcsq_grant(ll_mcs_node *n, uint32_t value, ll_wait_policy *wp, ll_parker *warm)
{
    ll_parker *p;
    if (!ll_mcsq_publish(n, value, wp, &p))
        return false;
    ll_wake(p);
    if (warm)
        ll_parker_unpark(warm); /* early: it re-checks its node, spins, and may park again */
    return true;
}

/* The plain warm-up target when granting succ (mcs, hmcs): succ's own successor,
 * for policies with a spin phase (stp, astp), so that it is spinning, not asleep,
 * when the lock reaches it.  Read before the grant: both nodes stay put until then. */
LL_INLINE ll_parker *ll_mcsq_warm_next(ll_mcs_node *succ, const ll_wait_policy *wp)
{
    if (!ll_wait_has_spin_phase(wp))
        return NULL;
    ll_mcs_node *next2 = ll_mcsq_next_for_write(succ); /* the grant writes succ's line next */
    return next2 ? ll_plain_load(&next2->parker) : NULL;
}

#endif /* LOCKLAB_SRC_LOCKS_MCS_QUEUE_H */
