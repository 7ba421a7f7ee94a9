/*
 * loiter — LOITER (Locking: Outer-Inner with ThRottling): an outer
 * test-and-set lock with a bounded, backed-off arrival spin (the fast path,
 * barging allowed) and an inner MCS lock whose holder is the single
 * "standby" thread (the slow path).  Concurrency restriction: threads that
 * fail to get the outer lock within the spin budget queue on the inner lock
 * and sleep there (the passive set); only the standby contends from the
 * slow path.
 * Source: Dice, "Malthusian Locks", EuroSys 2017, Appendix A.1
 * (defer-and-avoid, bounded spinners, less aggressive standby, impatient
 * standby with direct handoff); inner lock: Mellor-Crummey & Scott 1991.
 *
 * Outer lock word (word, 32 bits):
 *   bit 0  LOCKED     held
 *   bit 1  SLEEPING   the standby announced it sleeps (or is about to) and
 *                     must be woken by a release that leaves no one to take
 *                     the lock; its parker is in l->standby
 *   bit 2  IMPATIENT  the sleeping standby waited longer than patience_ns:
 *                     the next release hands the lock over directly
 *   bit 3  GRANTED    the lock (still LOCKED) was handed to the standby; the
 *                     standby clears it before entering its critical section
 *   4..31  spinners   arrivals currently in the arrival spin phase
 *   0                 free, nothing pending (the fast path's CAS 0 -> LOCKED)
 * Invariant: free with SLEEPING set implies spinners > 0 (one of them will
 * take the lock, and its release decides again).  Kept by: releases clear
 * SLEEPING (and wake) when no spinner is left; a spinner leaves the count only
 * while the lock is held, or by taking it; the standby sets SLEEPING only
 * while the lock is held or spinners are present.
 *
 * Acquire: CAS 0 -> LOCKED.  Otherwise: barge if the lock is free; else, if
 * fewer than `spinners` arrivals spin, join them (count + 1) and spin for
 * spin_ns with randomized backoff after collisions (TTAS); else, or when the
 * budget runs out, take a node and the inner MCS lock (spin-then-park), and
 * as the standby contend for the outer lock less aggressively than
 * arrivals: only when no arrival spinner is present (they will take it), for
 * spin_ns, then set SLEEPING (|IMPATIENT once impatient) and park.  It
 * sleeps only while its SLEEPING announcement stands: a release that clears
 * it (to wake it) may be followed by a barger, and the standby must then
 * re-announce rather than sleep unannounced (a lost wake-up otherwise).
 * Caveat (as for any TAS lock): a registered spinner preempted while the
 * lock is free and the standby sleeps leaves the lock idle until it runs
 * or another thread arrives (arrivals barge).
 * Release (fast-path owner): CAS LOCKED -> 0; if other bits are set:
 *   - IMPATIENT, or SLEEPING and the standby's deadline has passed (checked
 *     on every 16th such release): direct handoff, LOCKED kept, GRANTED set,
 *     the standby woken.  This bounds bypass (see Fairness).
 *   - SLEEPING and no spinners: free the lock, clear SLEEPING, wake the standby.
 *   - SLEEPING and spinners: free the lock and leave the standby asleep:
 *     defer-and-avoid without a deferral loop, since a spinner is bound to
 *     take the lock within its budget; the paper's variant (release, wait,
 *     re-check) would read the lock after releasing it.
 * Release (slow-path owner, the former standby): hand the inner lock to the
 * next standby (a store, before the outer release, so nothing touches the
 * lock after it is free), release the outer lock as above, and only then
 * unpark whoever has to be woken.  Every unpark happens after the outer
 * release, off the critical path.  The decision to wake and the parker come
 * from the same CAS that frees the lock, so the wake is never lost and never
 * goes to a stale standby; parkers are never freed, so a late unpark is at
 * worst a spurious wake-up, which the standby tolerates.
 *
 * Fairness: none short-term: arrivals barge; the standby yields to arrival
 * spinners.  Bypass is bounded: an arrival spins at most spin_ns, then
 * queues FIFO on the inner lock; a standby is handed the lock within
 * patience_ns plus at most 16 releases (plus the spin_ns before it parks).
 * So a thread waits at most about spin_ns + (inner queue length + 1) *
 * (patience_ns + 16 critical sections).  Default patience_ns = 1 ms: long
 * against a critical section and a park/unpark (tens of ns, a few us), so
 * forced handoffs are rare under saturation (about one per 10^3-10^4
 * admissions, MCSCR's 1/1000 Bernoulli rate) and do not undo the
 * concurrency restriction; short against a scheduler time slice (CFS: 3-6 ms
 * at these thread counts), so a starved thread waits no longer than
 * preemption already makes it wait.
 * Code: the inner lock is the shared MCS queue (src/locks/mcs_queue.h):
 * ll_mcs_acquire to queue, and at release its steps without the wake-up
 * (ll_mcsq_leave + ll_mcsq_publish), which waits for the outer release.
 * Footprint: 128 bytes per lock (two cache lines: the outer word with the
 * holder's bookkeeping; the inner tail, the standby's parker and deadline,
 * the stp policy); one MCS node (24 B in a 128-B slot) per thread queued on
 * or holding the inner lock, nothing for arrival spinners.
 * Policies: its own (spec name `loiter`, registered as spin): arrival spin,
 * then the inner MCS lock and the standby wait with spin-then-park (budget:
 * key spin_ns, default the measured park/unpark cost, also the arrival spin
 * budget: spin about as long as blocking would cost).  Other policies would
 * not change who waits how, so they are not offered.
 * Keys: spin_ns, patience_ns, spinners (max concurrent arrival spinners,
 * default 2: the owner's successor plus one spare; 0 sends every contended
 * arrival straight to the inner lock).
 * try_acquire: one attempt on the outer lock (barging), never queues.
 * Timed acquire (ll_loiter_acquire_until): as acquire, each stage cut at the
 * deadline: the arrival spin ends there, a waiter on the inner lock abandons its
 * node (ll_mcs_acquire_until; inner_handover passes over it), and a standby
 * withdraws SLEEPING/IMPATIENT by CAS unless a release handed it the lock first
 * (GRANTED), then passes the standby role on.  So a timed waiter gets the bound
 * above, like any waiter.
 */
#include "locklab/loiter.h"
#include "locklab/registry.h"
#include "mcs_queue.h"

enum { LOCKED = 1u, SLEEPING = 2u, IMPATIENT = 4u, GRANTED = 8u, SPINNER = 16u };
#define SPINNERS(v) ((v) >> 4)
/* Backoff after a failed CAS on a free-looking lock: uniform in [0, cap) PAUSEs,
 * cap doubling from MIN to MAX.  Few threads spin (max_spinners), so the caps are
 * small: a long backoff is dead time during which the lock sits free. */
enum { BACKOFF_MIN = 4, BACKOFF_MAX = 64 };
/* A release that bypasses a sleeping standby reads the clock every this many times. */
enum { BYPASS_CHECK = 16 };

LL_STATIC_ASSERT(sizeof(ll_mcs_node) <= LL_QNODE_USABLE, "node must fit a queue-node slot");

void ll_loiter_init(ll_loiter_lock *l, uint64_t spin_ns, uint64_t patience_ns, uint32_t max_spinners)
{
    /* relaxed stores: like pthread_mutex_init, publish the lock yourself */
    ll_store_relaxed(&l->word, 0);
    l->max_spinners = max_spinners;
    ll_plain_store(&l->bypasses, 0);
    ll_plain_store(&l->holder, NULL);
    ll_wait_policy_init(&l->inner_wp, &ll_wait_stp, spin_ns);
    l->spin_ns = l->inner_wp.spin_ns;
    l->patience_ns = patience_ns;
    ll_store_relaxed(&l->inner.tail, NULL);
    ll_store_relaxed(&l->standby, NULL);
    ll_store_relaxed(&l->deadline, 0);
}

/* ---- fast path: arrival spinning on the outer lock ------------------------------------- */

/* Registered as a spinner: spin for budget_ns, then leave the count.  True if we got the lock. */
static bool arrival_spin(ll_loiter_lock *l, uint64_t budget_ns)
{
    uint64_t deadline = ll_now_ns() + budget_ns;
    uint64_t cap = BACKOFF_MIN;
    for (uint32_t i = 1;; i++) {
        uint32_t v = ll_load_relaxed(&l->word); /* relaxed: only a hint; the CAS orders */
        if (!(v & LOCKED)) {
            /* acquire: the previous holder's critical section; pairs with the acq_rel CAS that
             * freed the lock (ll_loiter_release, loiter_release_standby, outer_release_contended) */
            if (ll_cas(&l->word, &v, (v | LOCKED) - SPINNER, LL_ACQUIRE))
                return true;
            ll_backoff_step(&cap, BACKOFF_MAX); /* collision */
        } else {
            ll_pause();
        }
        if ((i & 63) == 0 && ll_now_ns() >= deadline)
            break;
    }
    /* Out of budget: leave the spinners, but never leave a free lock behind (the
     * invariant: free with SLEEPING set needs a spinner to come and take it). */
    uint32_t v = ll_load_relaxed(&l->word); /* relaxed: only a guess for the CASes */
    for (;;) {
        if (!(v & LOCKED)) {
            if (ll_cas(&l->word, &v, (v | LOCKED) - SPINNER, LL_ACQUIRE)) /* acquire: as above (the freeing CAS) */
                return true;
        } else if (ll_cas(&l->word, &v, v - SPINNER, LL_RELAXED)) { /* relaxed: a head count, orders no data */
            return false;
        }
    }
}

/* ---- slow path: the inner lock and the standby -------------------------------------------- */

typedef struct standby_ctx {
    ll_loiter_lock *l;
    bool impatient; /* past the deadline: take a free lock even with spinners, ask for handoff */
    bool owner;     /* we hold the outer lock (keeps standby_try idempotent for the parker) */
    bool granted;   /* ... by direct handoff: GRANTED still to be cleared */
} standby_ctx;

/* Ready condition of the standby: owns the outer lock (taking it if it is free and no
 * arrival spinner is about to, or if impatient). */
static bool standby_try(void *arg)
{
    standby_ctx *c = (standby_ctx *)arg;
    if (c->owner)
        return true;
    /* acquire: the previous holder's critical section; pairs with the acq_rel handoff CAS that
     * set GRANTED in outer_release_contended */
    uint32_t v = ll_load_acquire(&c->l->word);
    if (v & GRANTED)
        return c->owner = c->granted = true;
    while (!(v & LOCKED) && (c->impatient || SPINNERS(v) == 0))
        /* acquire: the previous holder's critical section; pairs with the acq_rel CAS that freed
         * the lock (ll_loiter_release, loiter_release_standby, outer_release_contended) */
        if (ll_cas(&c->l->word, &v, (v | LOCKED) & ~(uint32_t)(SLEEPING | IMPATIENT), LL_ACQUIRE))
            return c->owner = true;
    return false;
}

/* Park condition: own the lock, or our SLEEPING announcement was consumed by a
 * releaser.  The second part matters: a releaser may clear SLEEPING and unpark us
 * before we sleep, and a barger may retake the lock before we look; sleeping then
 * would be sleeping unannounced, and no later release would wake us. */
static bool standby_woken(void *arg)
{
    standby_ctx *c = (standby_ctx *)arg;
    /* acquire: as in standby_try, pairing with the releasers' acq_rel CAS in
     * outer_release_contended (only this standby sets SLEEPING; releasers clear it) */
    return standby_try(c) || !(ll_load_acquire(&c->l->word) & SLEEPING);
}

/* Set SLEEPING (and IMPATIENT) where a releaser looks.  False if we got the lock instead. */
static bool standby_announce(ll_loiter_lock *l, standby_ctx *c)
{
    for (;;) {
        if (standby_try(c))
            return false;
        uint32_t v = ll_load_relaxed(&l->word); /* relaxed: the CAS below validates it */
        if (!(v & LOCKED) && (c->impatient || SPINNERS(v) == 0))
            continue; /* looks free for us: try again */
        uint32_t want = v | SLEEPING | (c->impatient ? IMPATIENT : 0u);
        /* Always the CAS, even if the bits are already set: it proves they are set *now*.
         * release: l->standby and l->deadline before a releaser that sees SLEEPING reads them;
         * pairs with the acquire half (on failure) of the freeing CAS in ll_loiter_release /
         * loiter_release_standby and of the CAS loop in outer_release_contended */
        if (ll_cas(&l->word, &v, want, LL_RELEASE))
            return true;
    }
}

/* A timed standby's deadline passed: take the lock if we may (as standby_try), else withdraw
 * SLEEPING/IMPATIENT, unless a release handed us the lock first (GRANTED).  True if we own it.
 * Our CAS and the releasers' CAS on the one word decide the race: a release that finds our
 * announcement gone frees the lock instead of handing it over (outer_release_contended). */
static bool standby_withdraw(ll_loiter_lock *l, standby_ctx *c)
{
    for (;;) {
        if (standby_try(c))
            return true;
        uint32_t v = ll_load_relaxed(&l->word); /* relaxed: the CAS below validates it */
        if (v & GRANTED)
            continue; /* standby_try takes it (with acquire) */
        if (!(v & LOCKED) && (c->impatient || SPINNERS(v) == 0))
            continue; /* looks free for us: standby_try again */
        /* relaxed: clears only our own announcement; a releaser that already read it and
         * fails its CAS re-reads the word (no data goes with the bits) */
        if (ll_cas(&l->word, &v, v & ~(uint32_t)(SLEEPING | IMPATIENT), LL_RELAXED))
            return false;
    }
}

/* The standby: own the outer lock, or give up at deadline_ns (LL_NO_DEADLINE: never).
 * True if we own it. */
LL_COLD static bool standby_acquire(ll_loiter_lock *l, uint64_t deadline_ns)
{
    ll_parker *self = ll_self()->parker;
    uint64_t deadline = ll_now_ns() + l->patience_ns;
    /* relaxed: published by the release CAS that sets SLEEPING (standby_announce); no
     * releaser reads them before it has seen SLEEPING */
    ll_store_relaxed(&l->standby, self);
    ll_store_relaxed(&l->deadline, deadline);
    standby_ctx c = {l, l->patience_ns == 0, false, false};
    for (;;) {
        if (ll_spin_phase(&l->inner_wp, standby_try, &c))
            break;
        if (!c.impatient && ll_now_ns() >= deadline)
            c.impatient = true;
        if (ll_now_ns() >= deadline_ns && !standby_withdraw(l, &c))
            return false;
        if (c.owner || !standby_announce(l, &c))
            break;
        if (deadline_ns == LL_NO_DEADLINE) {
            ll_parker_park_until(self, standby_woken, &c);
        } else {
            struct timespec until = {(time_t)(deadline_ns / 1000000000u), (long)(deadline_ns % 1000000000u)};
            ll_parker_park_deadline(self, standby_woken, &c, CLOCK_MONOTONIC, &until);
        }
        if (c.owner)
            break;
        /* Woken for a free lock, but someone barged (or our deadline passed): spin again, then
         * re-announce (or withdraw). */
    }
    if (c.granted) /* we own the lock; others may be changing the spinner count: an RMW */
        ll_faa(&l->word, (uint32_t)0 - (uint32_t)GRANTED, LL_RELAXED); /* relaxed: a marker only we read */
    return true;
}

static ll_parker *inner_handover(ll_loiter_lock *l, ll_mcs_node *me);

/* The slow path, with a deadline (LL_NO_DEADLINE: none).  True if we own the lock. */
static bool loiter_acquire_slow(ll_loiter_lock *l, uint32_t v, uint64_t deadline_ns)
{
    for (;;) {
        if (!(v & LOCKED)) { /* free (with a sleeping standby and spinners): barge */
            if (ll_cas(&l->word, &v, v | LOCKED, LL_ACQUIRE)) /* acquire: pairs with the freeing CAS, as in arrival_spin */
                return true;
        } else if (SPINNERS(v) >= l->max_spinners) {
            break;
        } else if (ll_cas(&l->word, &v, v + SPINNER, LL_RELAXED)) { /* relaxed: a head count, orders no data */
            if (arrival_spin(l, deadline_ns == LL_NO_DEADLINE ? l->spin_ns : ll_ns_before(deadline_ns, l->spin_ns)))
                return true;
            break;
        }
    }
    ll_mcs_node *me = (ll_mcs_node *)ll_qnode_get();
    if (deadline_ns == LL_NO_DEADLINE)
        ll_mcs_acquire(&l->inner, me, &l->inner_wp); /* now the standby */
    else if (!ll_mcs_acquire_until(&l->inner, me, &l->inner_wp, deadline_ns))
        return false; /* me is the inner lock's now */
    if (!standby_acquire(l, deadline_ns)) {
        ll_wake(inner_handover(l, me)); /* pass the standby role on (we never held the outer lock) */
        ll_qnode_put(me);
        return false;
    }
    ll_plain_store(&l->holder, me); /* holder-only field: the release must also release the inner lock */
    return true;
}

void ll_loiter_acquire(ll_loiter_lock *l)
{
    uint32_t v = 0;
    /* acquire: the previous holder's critical section; pairs with the acq_rel CAS that freed
     * the lock (ll_loiter_release, loiter_release_standby, outer_release_contended) */
    ll_rmw_lead(&l->word); /* no store since the last RMW (atomics.h) */
    if (LL_UNLIKELY(!ll_cas(&l->word, &v, LOCKED, LL_ACQUIRE)))
        (void)loiter_acquire_slow(l, v, LL_NO_DEADLINE);
}

bool ll_loiter_acquire_until(ll_loiter_lock *l, uint64_t deadline_ns)
{
    uint32_t v = 0;
    /* acquire: as in ll_loiter_acquire */
    return ll_cas(&l->word, &v, LOCKED, LL_ACQUIRE) || loiter_acquire_slow(l, v, deadline_ns);
}

bool ll_loiter_try_acquire(ll_loiter_lock *l)
{
    uint32_t v = ll_load_relaxed(&l->word); /* relaxed: the CAS orders */
    while (!(v & LOCKED))
        if (ll_cas(&l->word, &v, v | LOCKED, LL_ACQUIRE)) /* acquire: pairs with the freeing CAS, as in ll_loiter_acquire */
            return true;
    return false;
}

bool ll_loiter_is_locked(ll_loiter_lock *l)
{
    return (ll_load_acquire(&l->word) & LOCKED) != 0; /* acquire: as a successful try_acquire (pairs with the freeing CAS) */
}

/* ---- release -------------------------------------------------------------------------------- */

/* Free the outer lock (or hand it to an impatient standby) given the word v our failed
 * CAS LOCKED -> 0 observed (with acquire).  Returns the parker to wake, or NULL. */
LL_COLD static ll_parker *outer_release_contended(ll_loiter_lock *l, uint32_t v)
{
    int overdue = -1; /* standby past its deadline? read the clock at most once per release */
    for (;;) {
        uint32_t nv = v & ~(uint32_t)LOCKED;
        ll_parker *p = NULL;
        if (v & SLEEPING) {
            /* Written by the standby before the CAS that set SLEEPING, which our acquire saw;
             * the standby cannot change while we hold the lock (it leaves only by taking it). */
            p = (ll_parker *)ll_load_relaxed(&l->standby);
            if (!(v & IMPATIENT) && overdue < 0) {
                uint32_t bypasses = ll_plain_load(&l->bypasses) + 1;
                ll_plain_store(&l->bypasses, bypasses);
                overdue = bypasses % BYPASS_CHECK == 0 && ll_now_ns() >= ll_load_relaxed(&l->deadline);
            }
            if ((v & IMPATIENT) || overdue > 0)
                nv = (v & ~(uint32_t)(SLEEPING | IMPATIENT)) | GRANTED; /* direct handoff: stays LOCKED */
            else if (SPINNERS(v) == 0)
                nv = v & ~(uint32_t)(LOCKED | SLEEPING); /* nobody else will come: wake the standby */
            else
                p = NULL; /* defer-and-avoid: a spinner takes the lock, its release decides again */
        }
        /* release: the critical section (or, with GRANTED, the handoff), to the acquire CAS of
         * the next owner (ll_loiter_acquire, arrival_spin, standby_try, ...) or standby_try's
         * acquire load; acquire (on failure): as on entry, the standby's fields from
         * standby_announce's release CAS */
        if (ll_cas(&l->word, &v, nv, LL_ACQ_REL))
            return p;
    }
}

/* Pass the inner lock (the standby role) on: the MCS queue's release without the
 * wake-up, which waits until the outer lock is released.  Returns the successor's
 * parker (the inner policy is stp: it may have parked), or NULL.  A successor that
 * abandoned its node (a timed waiter that left) is passed over: we release the inner
 * lock again in its place (mcs_queue.h, "timed acquire"). */
static ll_parker *inner_handover(ll_loiter_lock *l, ll_mcs_node *me)
{
    ll_parker *p = NULL;
    for (ll_mcs_node *mine = me;;) {
        ll_mcs_node *succ = ll_mcsq_leave(&l->inner.tail, me); /* orders: see mcs_queue.h */
        ll_mcsq_take_place(&me, mine, succ);
        if (succ == NULL || ll_mcsq_publish(succ, 0, &l->inner_wp, &p))
            return p;
    }
}

LL_COLD static void loiter_release_standby(ll_loiter_lock *l, ll_mcs_node *me)
{
    ll_plain_store(&l->holder, NULL); /* holder-only; ordered before the next holder by the release below */
    ll_parker *next_standby = inner_handover(l, me);
    uint32_t v = LOCKED;
    ll_parker *p = NULL;
    /* release: the critical section, to the next owner's acquire CAS (ll_loiter_acquire,
     * arrival_spin, standby_try, ...); acquire (on failure): l->standby and l->deadline,
     * pairing with standby_announce's release CAS */
    if (!ll_cas(&l->word, &v, 0, LL_ACQ_REL))
        p = outer_release_contended(l, v);
    /* The lock may be taken, released and destroyed from here on: touch only our node
     * (no one else reads it after the inner handover) and parkers (never freed). */
    ll_qnode_put(me);
    if (p)
        ll_parker_unpark(p);
    if (next_standby)
        ll_parker_unpark(next_standby); /* the inner policy is stp: it may have parked */
}

void ll_loiter_release(ll_loiter_lock *l)
{
    ll_mcs_node *me = ll_plain_load(&l->holder); /* holder-only field */
    if (LL_UNLIKELY(me != NULL)) {
        loiter_release_standby(l, me);
        return;
    }
    uint32_t v = LOCKED;
    /* release and acquire: as in loiter_release_standby (next owner's acquire CAS; on failure,
     * standby_announce's release CAS) */
    ll_rmw_lead(&l->word); /* as in acquire */
    if (LL_LIKELY(ll_cas(&l->word, &v, 0, LL_ACQ_REL)))
        return;
    ll_parker *p = outer_release_contended(l, v);
    if (p)
        ll_parker_unpark(p); /* after the release: the lock itself is not touched again */
}

/* ---- registry adapter -------------------------------------------------------------------------- */

static const ll_param params[] = {
    {"spin_ns", "arrival spin budget and the inner lock's stp budget, ns (0 = measured park/unpark cost)", 0,
     10000000000ull, 0},
    {"patience_ns", "standby wait after which the next release hands it the lock, ns (0 = always)", 0,
     10000000000ull, LL_LOITER_DEFAULT_PATIENCE_NS},
    {"spinners", "max concurrent arrival spinners; more go to the inner lock", 0, 1u << 20,
     LL_LOITER_DEFAULT_SPINNERS},
    {NULL, NULL, 0, 0, 0},
};

LL_INIT_ADAPTER(ll_loiter_init((ll_loiter_lock *)s, p[0], p[1], (uint32_t)p[2]))
static void acquire(void *s, ll_wait_policy *wp) { (void)wp; ll_loiter_acquire((ll_loiter_lock *)s); }
static bool try_acquire(void *s, ll_wait_policy *wp) { (void)wp; return ll_loiter_try_acquire((ll_loiter_lock *)s); }
LL_OWN_WAIT_TIMED_ADAPTER(ll_loiter_lock, ll_loiter)
static void release(void *s, ll_wait_policy *wp) { (void)wp; ll_loiter_release((ll_loiter_lock *)s); }

LL_DIRECT_VERBS()

const ll_lock_ops ll_lock_loiter = {
    .name = "loiter", .source = "Dice 2017, Malthusian Locks, App. A.1 (LOITER); inner lock MCS 1991",
    .summary = "outer TAS with bounded arrival spin + inner MCS (stp) holding one standby; concurrency restriction",
    .fairness = "none short-term (barging); bypass bounded by patience_ns per standby (inner queue FIFO)",
    .policies = LL_SPIN_ONLY, .caps = LL_CAP_PARKS_ITSELF, .params = params,
    LL_OPS_STATE_IS(ll_loiter_lock), .waiter_bytes = sizeof(ll_mcs_node), .init = init, LL_OPS_VERBS,
};
