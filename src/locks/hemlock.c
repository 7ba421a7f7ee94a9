/*
 * hemlock — Hemlock: a queue lock with one word per lock (and a gate word for
 * timed waiters) and one word per thread, whatever the number of locks the
 * thread holds or waits for.
 * Source: Dice & Kogan, "Hemlock: Compact and Scalable Mutual Exclusion",
 * SPAA 2021 (§2 the algorithm, Listing 1; the "coherence-traffic-reduction"
 * and "aggressive hand-over" variants of §3 are not used, see below).
 *
 * Lock words:
 *   tail  NULL         free
 *         element E    held; E is the per-thread element of the last thread
 *                      to arrive (the holder itself, if nobody waits)
 *         E | MARK     the same, and a timed waiter sleeps until the queue
 *                      drains (bit 0: elements are cache-line aligned)
 *   gate  bit 1 CLOSED a timed waiter is draining the queue (below);
 *         bit 0        arrivals sleep on the gate (wait.h's shared wait word)
 *   drained            the wait word that timed waiter sleeps on
 * Per-thread element (thread-local, one per thread, for every lock):
 *   grant   NULL               nothing being handed over
 *           lock L             "L is yours": the thread is releasing L to the
 *                              thread queued right behind it on L, and waits
 *                              until that successor clears grant (acknowledges)
 *   wake    a shared wait word (wait.h, ll_waitword_*): bit 0 = a successor
 *           sleeps on this element (policies that park); bumped after a grant
 * Acquire: swap our element into the tail (NULL -> E: ours at once; P -> E:
 * queued behind P); if there was a predecessor P, wait until P.grant == L
 * (the lock's address tells P's successors on different locks apart: a
 * thread holding several locks has one successor per lock, all watching its
 * one grant word), then clear P.grant (L -> NULL: the acknowledgement).
 * Release: CAS tail from our element to NULL (E -> NULL); if someone arrived,
 * store L into our grant (NULL -> L) and wait for the successor to clear it
 * (a thread's grant word carries one hand-over at a time).
 * Waiting (the paper spins; here through the policy): spin per the policy on
 * P.grant; under policies that park, then announce on P.wake and sleep there
 * (ll_waitword_sleep); the releaser, after storing grant, kicks its own wake
 * word (a fence and a load; a futex wake only if someone announced), which
 * wakes every successor sleeping on it -- those waiting for another lock see
 * a grant not theirs and sleep again.  The releaser's wait for the
 * acknowledgement is short (the successor is running, or just woken): it
 * spins, yielding every 256 steps in case the successor was preempted.
 * Choices: the acknowledgement is awaited in release, as in the paper's base
 * algorithm, not deferred to the thread's next hand-over (the paper's
 * overlap variant): a deferred acknowledgement would leave a successor
 * reading our element after release returns, i.e. after the thread may have
 * exited and its thread-local element gone.  The grant word is a pointer, so
 * waiting on it takes the extra 32-bit wake word (futexes are 32-bit).
 *
 * The thread is its element: release must run on the pthread that acquired
 * (as POSIX requires of a mutex; the lightweight-thread runtime acquires and
 * releases its locks on one worker).
 *
 * Timed acquire (ll_hemlock_acquire_until): not a departure from the queue.
 * A waiter is known only to its successor, which watches the waiter's own
 * thread-local grant word: a waiter that left mid-chain would have to leave
 * behind something its successor follows and its predecessor notices, and the
 * predecessor, once it has granted, may not touch the lock again (the new
 * owner may destroy it at once).  So a timed waiter never swaps itself into
 * the tail: it closes the gate (one CAS; a second timed waiter waits for the
 * gate to open, as arrivals do, until its deadline), which holds new arrivals
 * back (they wait on the gate per the policy, before their swap), and waits
 * (the policy's spin phase, then yielding, or asleep: below) until the queue
 * has drained and its CAS of tail from NULL to its element wins; then, or at
 * its deadline, it opens the gate and wakes the arrivals held back.  The CAS
 * decides the race: the lock has one owner, the timed waiter or the last
 * releaser's successor.  It leaves no trace (the gate opens; it was never in
 * the queue).
 * Asleep (policies that park): after the policy's spin phase, a timed waiter
 * waiting for the gate sleeps on it (its opener wakes it), and one waiting for
 * the queue to drain marks the tail (CAS E -> E|MARK) and sleeps on `drained`.
 * Whoever replaces a marked tail bumps `drained` (waking it) while the lock is
 * still held: a late arrival (its swap returned E|MARK; it waits on E as usual),
 * after which the timed waiter marks the new tail; or E's thread releasing
 * as the last in the queue (its fast CAS fails on the mark), which bumps
 * before its CAS E|MARK -> NULL frees the lock (after that it may not touch
 * the lock), and the timed waiter, woken with its mark still in place, spins
 * (yielding) until the lock is free.  No wake-up is lost: the waiter reads
 * `drained` before its marking CAS (release) and whoever sees the mark
 * (acquire) bumps after it, so its sleep (wait.h's announce-then-check on
 * `drained`, re-checking the tail) sees the bump.  At its deadline it takes its
 * mark back (CAS E|MARK -> E; failing that, the tail moved on without it).
 * Bound: the
 * waiters queued when it closed the gate, plus at most one late arrival per
 * other thread (one that read the gate open just before), each served once:
 * at most the lock's own FIFO bound (T-1 handovers, T threads).  Cost: every
 * acquire reads the gate (same line as the tail); a try_acquire fails while
 * the gate is closed (a loop of them must not starve the timed waiter); the
 * lock grew to 16 bytes (tail, gate, drained); a contended arrival and a
 * release whose CAS failed test the mark.
 *
 * Fairness: strict FIFO (each waiter is served by its predecessor), except
 * that a timed waiter is served at the end of the queue it closed.
 * Footprint: 16 bytes per lock; one element per thread (grant + wake, 16 B,
 * on its own cache line), nothing per held lock or per waiting thread
 * beyond it (no queue node).  Policies: all (the spin phase and the
 * sleep are the waiting engine's).
 */
#include "locklab/hemlock.h"
#include "locklab/registry.h"

typedef struct hem_element {
    LL_ALIGNED(LL_CACHELINE) ll_atomic_ptr grant; /* NULL, or the lock handed to our successor on it */
    ll_atomic_u32 wake;                           /* shared wait word: successors sleeping on this element */
} hem_element;

/* The calling thread's element (a thread-local: core.h).  A successor reads it only while
 * we hold the lock it waits for (and until it acknowledges), so it never outlives the thread. */
LL_THREAD_ELEMENT(hem_element, hem_self, {LL_ATOMIC_INIT(NULL), LL_ATOMIC_INIT(0)})

/* ---- acquire --------------------------------------------------------------------------- */

typedef struct { hem_element *pred; ll_hemlock_lock *lock; } granted_ctx;

static bool granted(void *p)
{
    granted_ctx *c = (granted_ctx *)p;
    /* acquire: the previous holder's critical section; pairs with the release store of
     * grant in hem_hand_over */
    return ll_load_acquire(&c->pred->grant) == (void *)c->lock;
}
static bool not_granted(void *p) { return !granted(p); }

#define HEM_MARK ((uintptr_t)1) /* in tail: a timed waiter sleeps until the queue drains (header) */

/* Wait per the policy until pred hands us l, then acknowledge.  pred is what our swap
 * returned: marked, we replaced a tail a timed waiter sleeps on; wake it (header). */
LL_COLD static void hem_wait(ll_hemlock_lock *l, hem_element *pred, ll_wait_policy *wp)
{
    if ((uintptr_t)pred & HEM_MARK) {
        pred = (hem_element *)((uintptr_t)pred & ~HEM_MARK);
        ll_waitword_bump(&l->drained); /* the lock is held (by pred's line): alive */
    }
    granted_ctx c = {pred, l};
    bool spun = ll_spin_phase(wp, granted, &c);
    if (ll_wait_may_park(wp))
        ll_wait_feedback(wp, spun);
    while (!spun) {
        /* acquire: a bump orders the releaser's grant before our re-check (as ll_waitword_wait) */
        uint32_t seen = ll_load_acquire(&pred->wake);
        if (granted(&c))
            break;
        /* Announces on pred->wake, re-checks not_granted, sleeps until a bump (wait.h). */
        ll_waitword_sleep(&pred->wake, seen, not_granted, &c);
        spun = granted(&c);
    }
    /* The acknowledgement.  release: our reads of pred's element happen before pred reuses
     * it (its next grant) or exits; pairs with the acquire load in hem_await_ack */
    ll_store_release(&pred->grant, NULL);
}

enum { HEM_GATE_CLOSED = 2u }; /* bit 0 is the wait word's sleepers flag (wait.h) */

static bool gate_closed(void *p)
{
    /* relaxed: the gate orders no data (the tail does: a held-back arrival swaps in after) */
    return (ll_load_relaxed(&((ll_hemlock_lock *)p)->gate) & HEM_GATE_CLOSED) != 0;
}

/* An arrival found the gate closed: wait per the policy until a timed waiter opens it. */
LL_COLD static void hem_await_gate(ll_hemlock_lock *l, ll_wait_policy *wp)
{
    for (;;) {
        uint32_t g = ll_load_relaxed(&l->gate); /* relaxed: as in gate_closed */
        if (!(g & HEM_GATE_CLOSED))
            return;
        ll_waitword_wait(wp, &l->gate, g, gate_closed, l);
    }
}

void ll_hemlock_acquire(ll_hemlock_lock *l, ll_wait_policy *wp)
{
    hem_element *me = hem_self();
    if (LL_UNLIKELY(gate_closed(l)))
        hem_await_gate(l, wp);
    /* acq_rel.  acquire: if tail was NULL, the previous holder's critical section (its
     * release CAS in ll_hemlock_release).  release: our element as it is now (its
     * thread-local initialisation, the acknowledgement we last read) to the successor
     * that swaps itself in after us and then reads our grant. */
    ll_rmw_lead(&l->tail); /* no store since the last RMW (atomics.h) */
    hem_element *pred = (hem_element *)ll_xchg(&l->tail, me, LL_ACQ_REL);
    if (LL_UNLIKELY(pred != NULL))
        hem_wait(l, pred, wp);
}

/* CAS tail NULL -> our element: a free lock, taken. */
static bool hem_take_free(void *p)
{
    ll_hemlock_lock *l = (ll_hemlock_lock *)p;
    void *expected = NULL;
    /* acq_rel: as the swap in ll_hemlock_acquire */
    return ll_load_relaxed(&l->tail) == NULL && ll_cas(&l->tail, &expected, hem_self(), LL_ACQ_REL);
}

bool ll_hemlock_try_acquire(ll_hemlock_lock *l) { return !gate_closed(l) && hem_take_free(l); }

/* Close the gate if it is open (a timed waiter's reservation). */
static bool hem_close_gate(void *p)
{
    ll_hemlock_lock *l = (ll_hemlock_lock *)p;
    uint32_t g = ll_load_relaxed(&l->gate); /* relaxed: the CAS validates it */
    /* relaxed: the gate orders no data (gate_closed) */
    return !(g & HEM_GATE_CLOSED) && ll_cas(&l->gate, &g, g | HEM_GATE_CLOSED, LL_RELAXED);
}

/* Asleep until the gate opens and we close it (true), or deadline_ns (false). */
static bool hem_park_gate(ll_hemlock_lock *l, uint64_t deadline_ns)
{
    for (;;) {
        if (hem_close_gate(l))
            return true;
        if (ll_now_ns() >= deadline_ns)
            return false;
        uint32_t g = ll_load_relaxed(&l->gate); /* relaxed: as in gate_closed */
        if (g & HEM_GATE_CLOSED) /* its opener's ll_waitword_publish wakes us */
            (void)ll_waitword_sleep_until(&l->gate, g, gate_closed, l, deadline_ns);
    }
}

typedef struct { ll_hemlock_lock *l; void *t; } tail_ctx;
static bool tail_unchanged(void *p)
{
    tail_ctx *c = (tail_ctx *)p;
    return ll_load_relaxed(&c->l->tail) == c->t; /* relaxed: after the sleep's announce and fence (wait.h) */
}

/* Asleep until the queue drains and we take the free lock (true), or deadline_ns (false):
 * mark the tail, sleep on drained (header). */
static bool hem_park_drain(ll_hemlock_lock *l, uint64_t deadline_ns)
{
    tail_ctx c = {l, NULL}; /* c.t: the marked tail we sleep on */
    uint32_t seen = 0, steps = 0;
    bool freeing = false; /* c.t's holder bumped: it is freeing the lock */
    for (;;) {
        void *t = ll_load_relaxed(&l->tail); /* relaxed: the CASes validate it */
        if (t == NULL) {
            if (hem_take_free(l))
                return true;
            continue;
        }
        if (ll_now_ns() >= deadline_ns) {
            if (t == c.t) /* take our mark back; relaxed: it orders nothing (failing: the tail moved on) */
                (void)ll_cas(&l->tail, &t, (void *)((uintptr_t)t & ~HEM_MARK), LL_RELAXED);
            return false;
        }
        if (t != c.t) { /* a tail we have not marked */
            seen = ll_load_relaxed(&l->drained); /* relaxed: the releasing CAS below orders it */
            void *m = (void *)((uintptr_t)t | HEM_MARK);
            /* release: our read of drained before the bump of whoever sees the mark; pairs with the
             * acquire load in hem_release_slow and the acq_rel swap in ll_hemlock_acquire */
            if (ll_cas(&l->tail, &t, m, LL_RELEASE)) {
                c.t = m;
                freeing = false;
            }
            continue;
        }
        if (freeing || ll_load_relaxed(&l->drained) != seen) { /* relaxed: a hint; the tail decides */
            freeing = true; /* bumped with our mark in place: its holder frees the lock now */
            ll_spin_steps(&steps, LL_STEPS_PER_YIELD); /* a real-time caller sleeps now and then (wait.h) */
            ll_yield();
            continue;
        }
        (void)ll_waitword_sleep_until(&l->drained, seen, tail_unchanged, &c, deadline_ns);
    }
}

/* try(l) until it succeeds (true) or deadline_ns: the policy's spin phase, then, under a
 * policy that parks, park(l) asleep; else yielding (nobody wakes a yielding waiter: the queue
 * it waits on drains by itself, and its waiters may need our CPU to be woken and to run). */
static bool hem_try_until(ll_wait_policy *wp, ll_ready_fn try_, bool (*park)(ll_hemlock_lock *, uint64_t),
                          ll_hemlock_lock *l, uint64_t deadline_ns)
{
    if (ll_spin_phase_until(wp, try_, l, deadline_ns))
        return true;
    if (ll_wait_may_park(wp))
        return park(l, deadline_ns);
    for (uint32_t steps = 0;;) {
        if (try_(l))
            return true;
        if (ll_now_ns() >= deadline_ns)
            return false;
        ll_spin_steps(&steps, LL_STEPS_PER_YIELD); /* a real-time caller sleeps now and then (wait.h) */
        ll_yield();
    }
}

bool ll_hemlock_acquire_until(ll_hemlock_lock *l, ll_wait_policy *wp, uint64_t deadline_ns)
{
    if (ll_hemlock_try_acquire(l))
        return true;
    /* Close the gate (another timed waiter's closed it: wait for it to open), then wait for the
     * queue to drain and take the free lock (header). */
    if (!hem_try_until(wp, hem_close_gate, hem_park_gate, l, deadline_ns))
        return false;
    bool owner = hem_try_until(wp, hem_take_free, hem_park_drain, l, deadline_ns);
    /* Open: 0 (no closer but us; sleepers were waiting for this), waking the held-back arrivals
     * (release: orders nothing they read, the tail does; ll_waitword_publish's own order). */
    ll_waitword_publish(wp, &l->gate, 0);
    return owner;
}

bool ll_hemlock_is_locked(ll_hemlock_lock *l)
{
    return ll_load_acquire(&l->tail) != NULL; /* acquire: as a successful try_acquire */
}

/* ---- release --------------------------------------------------------------------------- */

/* Wait until our successor cleared our grant: it is running (or was just woken), so
 * this is short; yield now and then in case it was preempted, and sleep if we run a
 * real-time policy (ll_spin_steps: the successor may be a lower-priority thread on our
 * CPU, which a spin or a yield would never let run; as ll_await_link does). */
static void hem_await_ack(hem_element *me)
{
    uint32_t steps = 0;
    /* acquire: pairs with the acknowledging release store in hem_wait */
    while (ll_load_acquire(&me->grant) != NULL) {
        ll_spin_steps(&steps, 1);
        if ((steps & 255) == 0)
            ll_yield();
        else
            ll_pause();
    }
}

LL_COLD static void hem_hand_over(ll_hemlock_lock *l, hem_element *me, ll_wait_policy *wp)
{
    bool may_park = ll_wait_may_park(wp); /* read before the grant: then the lock (and wp) may be gone */
    /* release: the critical section to the successor; pairs with the acquire load in granted() */
    ll_store_release(&me->grant, (void *)l);
    if (may_park)
        ll_waitword_kick(&me->wake); /* fence, then wake the sleepers on our element, if any */
    hem_await_ack(me);
}

/* Our CAS failed: a successor swapped itself in (hand over), or a sleeping timed waiter
 * marked our element in the tail (wake it while we hold the lock, then free it: header). */
LL_COLD static void hem_release_slow(ll_hemlock_lock *l, hem_element *me, ll_wait_policy *wp)
{
    void *marked = (void *)((uintptr_t)me | HEM_MARK);
    /* acquire: pairs with the marking CAS (hem_park_drain): its read of drained before our bump */
    void *cur = ll_load_acquire(&l->tail);
    while (cur == marked || cur == me) { /* me: its waiter took the mark back (its deadline) */
        if (cur == marked)
            ll_waitword_bump(&l->drained); /* before the CAS: after it we may not touch the lock */
        void *expected = cur;
        /* release: the critical section to the next acquirer, as in ll_hemlock_release */
        if (ll_cas(&l->tail, &expected, NULL, LL_RELEASE))
            return;
        cur = ll_load_acquire(&l->tail); /* acquire: as above */
    }
    hem_hand_over(l, me, wp);
}

void ll_hemlock_release(ll_hemlock_lock *l, ll_wait_policy *wp)
{
    hem_element *me = hem_self();
    void *expected = me;
    /* release: the critical section to the next acquirer; pairs with the acquire swap in
     * ll_hemlock_acquire (or CAS in try_acquire).  On failure (a successor swapped itself
     * in, or a mark) nothing is ordered: the slow path decides. */
    ll_rmw_lead(&l->tail); /* as in acquire */
    if (LL_LIKELY(ll_cas(&l->tail, &expected, NULL, LL_RELEASE)))
        return;
    hem_release_slow(l, me, wp);
}

/* ---- registry adapter ------------------------------------------------------------------- */

LL_INIT_ADAPTER(ll_hemlock_init((ll_hemlock_lock *)s))
LL_LOCK_ADAPTERS(ll_hemlock_lock, ll_hemlock)

const ll_lock_ops ll_lock_hemlock = {
    .name = "hemlock", .source = "Dice & Kogan 2021 (Hemlock), SPAA",
    .summary = "queue lock: one word per lock (+ a gate for timed waiters), one grant word per thread; a waiter "
        "watches its predecessor's grant",
    .fairness = "FIFO", .policies = LL_ALL_POLICIES, .caps = LL_CAP_HOLDER_RELEASES,
    LL_OPS_STATE_IS(ll_hemlock_lock), .waiter_bytes = sizeof(hem_element), .init = init, LL_OPS_VERBS,
};
