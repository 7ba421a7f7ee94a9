/*
 * k42 — the MCS variant of Auslander et al. (IBM K42; US patent 6,965,961),
 * as presented by Scott ("Shared-Memory Synchronization", §4.3.2): the lock
 * itself plays the role of the holder's queue node, so a thread needs a node
 * only while it waits, and that node lives on its stack.  The API is the
 * plain lock/unlock pair: nothing to pass from acquire to release, so a
 * thread may hold many k42 locks and release them in any order.
 *
 * Lock words:
 *   tail == NULL            free
 *   tail == &lock           held, no waiters
 *   tail == node N          held; N is the last waiter
 *   next                    first waiter's node (NULL until it links in)
 * Waiter node (on the waiter's stack):  next (its successor), waiting flag, parker.
 * Acquire (uncontended): CAS tail NULL -> &lock.  Contended: swap own node
 * into tail (&lock -> N, or M -> N), link into predecessor (the lock's next
 * if the predecessor was the holder: next NULL -> N), wait on own flag (1 ->
 * 0); once granted, move own successor (if any) into lock.next — or swing
 * tail back (N -> &lock) — so that the stack node can die.
 * Release: if lock.next is NULL, CAS tail &lock -> NULL; else clear the first
 * waiter's flag (1 -> 0).
 *
 * Timed acquire (ll_k42_acquire_until): abortable.  The timed waiter queues a
 * node from the per-thread cache (not its stack) and abandons it at its deadline
 * (one CAS of its waiting flag, ll_wait_while_eq_or_leave); the release that
 * grants it (an exchange, ll_grant_word) finds it abandoned, does the waiter's
 * post-grant step in its place (k42_retire), recycles the node and releases
 * again.  A timed waiter is served after the waiters ahead of it, as any.
 * Fairness: strict FIFO.
 * Footprint: 16 bytes per lock; one stack node (24 B) per waiting thread,
 * none per holder.  Policies: all.
 */
#include "locklab/k42.h"
#include "locklab/registry.h"

typedef struct k42_node {
    ll_atomic_ptr next;
    ll_atomic_u32 waiting;
    LL_SHARED_PLAIN(ll_parker *) parker; /* the owner's, read by the granter (atomics.h) */
} k42_node;
LL_STATIC_ASSERT(sizeof(k42_node) <= LL_QNODE_USABLE, "a timed waiter's node is a queue-node slot");

/* The lock is held for node me (granted): move me's successor (if any) into the lock,
 * or swing the tail back to the lock, so that me can die. */
static void k42_retire(ll_k42_lock *l, k42_node *me)
{
    void *succ = ll_load_acquire(&me->next); /* acquire: pairs with the successor's link store */
    if (succ == NULL) {
        ll_store_relaxed(&l->next, NULL); /* only the holder writes next */
        void *expected = me;
        /* release: our clearing of lock.next precedes a newcomer's link store to it (pairs
         * with the newcomer's acq_rel CAS on tail in k42_take_or_queue) */
        if (ll_cas(&l->tail, &expected, (void *)l, LL_RELEASE))
            return;
        succ = ll_await_link(&me->next);
    }
    ll_store_relaxed(&l->next, succ); /* holder-private; the releaser is us */
}

/* Take the free lock (false), or queue me behind the last node and link in (true: wait on
 * me->waiting). */
static bool k42_take_or_queue(ll_k42_lock *l, k42_node *me)
{
    for (;;) {
        void *pred = ll_load_relaxed(&l->tail); /* relaxed: re-validated by the CAS */
        if (pred == NULL) {
            /* acquire: pairs with the release CAS that freed the tail (ll_k42_release, or k42_retire) */
            if (ll_cas(&l->tail, &pred, (void *)l, LL_ACQUIRE))
                return false;
            continue;
        }
        ll_store_relaxed(&me->next, NULL);  /* relaxed: published by the CAS below */
        ll_store_relaxed(&me->waiting, 1); /* relaxed: as above */
        ll_plain_store(&me->parker, ll_self()->parker);
        /* release: our node's init before anyone sees it (pairs with the acquire load of our
         * link by the predecessor); acquire: the holder's write of lock.next (NULL) before our
         * link store to it, when pred is the lock itself (pairs with the release CAS in k42_retire) */
        if (!ll_cas(&l->tail, &pred, (void *)me, LL_ACQ_REL))
            continue;
        ll_atomic_ptr *link = pred == (void *)l ? &l->next : &((k42_node *)pred)->next;
        ll_store_release(link, me); /* release: our node (parker); pairs with the acquire load of next in k42_retire / ll_k42_release */
        return true;
    }
}

LL_COLD static void k42_acquire_slow(ll_k42_lock *l, ll_wait_policy *wp)
{
    k42_node me;
    if (!k42_take_or_queue(l, &me))
        return;
    ll_wait_while_eq(wp, &me.waiting, 1, ll_plain_load(&me.parker)); /* acquire (inside): pairs with ll_grant_word */
    k42_retire(l, &me); /* we own the lock: our stack node can die */
}

/* Timed: the node comes from the per-thread cache, not the stack, since at the deadline the
 * waiter abandons it in the queue (ll_wait_while_eq_or_leave); the release that grants it
 * retires it in the waiter's place, recycles it and hands the lock on. */
bool ll_k42_acquire_until(ll_k42_lock *l, ll_wait_policy *wp, uint64_t deadline_ns)
{
    void *expected = NULL;
    if (ll_cas(&l->tail, &expected, (void *)l, LL_ACQUIRE)) /* acquire: as in ll_k42_acquire */
        return true;
    k42_node *me = (k42_node *)ll_qnode_get();
    if (k42_take_or_queue(l, me)) {
        /* acquire (inside): pairs with ll_grant_word in ll_k42_release */
        if (ll_wait_while_eq_or_leave(wp, &me->waiting, 1, ll_plain_load(&me->parker), deadline_ns) == LL_WAIT_ABANDONED)
            return false; /* me is the lock's now */
        k42_retire(l, me);
    }
    ll_qnode_put(me);
    return true;
}

void ll_k42_init(ll_k42_lock *l)
{
    ll_store_relaxed(&l->tail, NULL); /* relaxed: like pthread_mutex_init, publish the lock yourself */
    ll_store_relaxed(&l->next, NULL); /* relaxed: as above */
}

void ll_k42_acquire(ll_k42_lock *l, ll_wait_policy *wp)
{
    void *expected = NULL;
    if (LL_UNLIKELY(!ll_cas(&l->tail, &expected, (void *)l, LL_ACQUIRE))) /* acquire: pairs with ll_k42_release's release CAS */
        k42_acquire_slow(l, wp);
}

bool ll_k42_try_acquire(ll_k42_lock *l)
{
    void *expected = NULL;
    return ll_cas(&l->tail, &expected, (void *)l, LL_ACQUIRE); /* acquire: pairs with ll_k42_release's release CAS */
}

void ll_k42_release(ll_k42_lock *l, ll_wait_policy *wp)
{
    for (;;) {
        k42_node *succ = (k42_node *)ll_load_acquire(&l->next); /* acquire: pairs with the link store */
        if (succ == NULL) {
            void *expected = l;
            if (ll_cas(&l->tail, &expected, NULL, LL_RELEASE)) /* release: the critical section; pairs with the acquiring CASes */
                return;
            succ = (k42_node *)ll_await_link(&l->next); /* a waiter swapped in and is linking into lock.next */
        }
        ll_parker *p = ll_wait_wakee(wp, ll_plain_load(&succ->parker)); /* read before the handover: the node dies after it */
        /* the exchange (ll_grant_word): release, hand over (pairs with the acquire in
         * ll_wait_while_eq*); false: a timed waiter had abandoned succ */
        if (ll_grant_word(&succ->waiting, 0)) {
            ll_wake(p);
            return;
        }
        k42_retire(l, succ); /* we hold the lock in its place: retire its node, recycle it, go on */
        ll_qnode_put(succ);
    }
}

bool ll_k42_is_locked(ll_k42_lock *l) { return ll_load_acquire(&l->tail) != NULL; /* acquire: pairs with ll_k42_release */ }

LL_LOCK_ADAPTERS(ll_k42_lock, ll_k42)

const ll_lock_ops ll_lock_k42 = {
    .name = "k42", .source = "Auslander et al. (IBM K42); Scott 2013 §4.3.2",
    .summary = "MCS variant, queue node on the waiter's stack",
    .fairness = "FIFO", .policies = LL_ALL_POLICIES,
    LL_OPS_STATE_IS(ll_k42_lock), .waiter_bytes = sizeof(k42_node), LL_OPS_VERBS,
};
