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
 * Fairness: not FIFO (a segment is served newest first), but bounded bypass:
 * an arrival is admitted within its own segment, which is detached when the
 * current one is done, so at most 2(T-1) admissions (T threads) pass it
 * (paper §4); admission alternates between segments, never starving anyone.
 * Footprint: 24 bytes per lock (the word + the holder's context); one
 * element per thread (24 B, on its own cache line), nothing per held lock or
 * waiting thread beyond it.  Policies: all.
 */
#include "locklab/reciprocating.h"
#include "locklab/registry.h"

#define LOCKED_EMPTY ((void *)(uintptr_t)1)

typedef struct recip_element {
    LL_ALIGNED(LL_CACHELINE) ll_atomic_u32 granted; /* 0 keep waiting, 1 the lock is yours */
    void *eos;                                      /* the segment's eos, written by the granter before granted */
    ll_parker *parker;                              /* ours, read by the granter */
} recip_element;

/* The calling thread's element; granted once per arrival, so never referred to after the thread
 * returned from its last acquire (an element used as eos is only compared). */
static __thread recip_element recip_self __attribute__((tls_model("initial-exec"))) = {LL_ATOMIC_INIT(0), NULL, NULL};

/* ---- acquire --------------------------------------------------------------------------- */

/* We pushed onto t: wait for our grant, then work out our place in the segment. */
LL_COLD static void recip_wait(ll_reciprocating_lock *l, recip_element *me, void *t, ll_wait_policy *wp)
{
    /* acquire (inside ll_wait_while_eq): the critical section before ours and the eos written
     * before the grant; pairs with the release store in recip_grant */
    ll_wait_while_eq(wp, &me->granted, 0, me->parker);
    void *eos = me->eos; /* plain: written by the granter before the store we acquired */
    if (t == eos) {      /* the bottom of our segment: the next one starts from LOCKED_EMPTY */
        l->succ = NULL;
        l->eos = LOCKED_EMPTY;
    } else {
        l->succ = t;
        l->eos = eos;
    }
}

void ll_reciprocating_acquire(ll_reciprocating_lock *l, ll_wait_policy *wp)
{
    recip_element *me = &recip_self;
    me->parker = ll_self()->parker;   /* plain: published by the release half of the exchange */
    ll_store_relaxed(&me->granted, 0); /* relaxed: likewise; only a granter that read our push changes it */
    /* acq_rel.  acquire: if arrivals was NULL, the previous holder's critical section (its
     * release CAS in ll_reciprocating_release); else the element t's fields (parker), which we
     * grant later.  release: our parker and cleared granted, to whoever reads our push (the
     * thread that pushes onto us, the detaching holder: ll_xchg / recip_release_slow). */
    void *t = ll_xchg(&l->arrivals, me, LL_ACQ_REL);
    if (LL_LIKELY(t == NULL)) {
        l->succ = NULL; /* plain: holder-only fields, ordered by the lock itself */
        l->eos = me;
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
    l->succ = NULL;
    l->eos = me;
    return true;
}

bool ll_reciprocating_is_locked(ll_reciprocating_lock *l)
{
    return ll_load_acquire(&l->arrivals) != NULL; /* acquire: as a successful try_acquire */
}

/* ---- release --------------------------------------------------------------------------- */

/* Hand the lock to e, passing the segment's eos. */
static void recip_grant(recip_element *e, void *eos, ll_wait_policy *wp)
{
    e->eos = eos;                                      /* plain: published by the release store below */
    ll_parker *p = ll_wait_wakee(wp, e->parker);       /* before the store: then e may move on */
    /* release: the critical section and eos to e; pairs with the acquire in recip_wait */
    ll_store_release(&e->granted, 1);
    ll_wake(p);
}

/* The segment is done and someone arrived: detach the arrival stack, grant its top. */
LL_COLD static void recip_release_slow(ll_reciprocating_lock *l, void *eos, ll_wait_policy *wp)
{
    /* acquire: the top's fields (parker), published by the release half of its push;
     * nothing to release (recip_grant publishes the critical section) */
    recip_element *top = (recip_element *)ll_xchg(&l->arrivals, LOCKED_EMPTY, LL_ACQUIRE);
    recip_grant(top, eos, wp);
}

void ll_reciprocating_release(ll_reciprocating_lock *l, ll_wait_policy *wp)
{
    recip_element *succ = (recip_element *)l->succ; /* plain: our own context */
    void *eos = l->eos;
    if (succ != NULL) {
        recip_grant(succ, eos, wp);
        return;
    }
    void *expected = eos;
    /* release: the critical section to the next acquirer; pairs with the acquire half of the
     * exchange in ll_reciprocating_acquire.  On failure nothing is ordered: we detach. */
    if (LL_LIKELY(ll_cas(&l->arrivals, &expected, NULL, LL_RELEASE)))
        return;
    recip_release_slow(l, eos, wp);
}

/* ---- registry adapter ------------------------------------------------------------------- */

LL_INIT_ADAPTER(ll_reciprocating_init((ll_reciprocating_lock *)s))
LL_LOCK_ADAPTER(ll_reciprocating_lock, ll_reciprocating)

const ll_lock_ops ll_lock_reciprocating = {
    "reciprocating", "Dice & Kogan 2025 (Reciprocating Locks), PPoPP",
    "arrivals push onto a stack; the owner detaches it as the next segment, served top down",
    "bounded bypass (at most 2(T-1) admissions pass a waiter); not FIFO", LL_ALL_POLICIES, NULL,
    sizeof(ll_reciprocating_lock), sizeof(ll_reciprocating_lock), sizeof(recip_element),
    init, NULL, acquire, try_acquire, release, NULL, NULL,
};
