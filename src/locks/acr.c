/*
 * acr — adaptive concurrency restriction: a barging test-and-set lock whose
 * contended arrivals are split, by the number of CPUs the process can use,
 * into a few spinners and a FIFO queue of parked (passive) threads.
 *
 * Sources: the outer/inner structure, the standby and its bounded bypass are
 * LOITER (Dice, "Malthusian Locks", EuroSys 2017, App. A.1); the
 * queue is MCS (Mellor-Crummey & Scott 1991).  What is ours: the spinner cap
 * follows the CPUs (ll_cpus_available: affinity and cgroup quota), the whole
 * state fits in 16 bytes (so it lives inside a pthread_mutex_t), the standby
 * sleeps on the lock word itself and bounds its own bypass with a timed
 * sleep, and the spin budget adapts per lock (DAMP).
 *
 * Why: under oversubscription a lock that hands over to a queued successor
 * waits for the scheduler whenever that successor is preempted or parked (on
 * a 2-CPU machine FIFO locks run one to two orders of magnitude below glibc:
 * docs/results/2026-11-24-performance.md, docs/models.md).  A barging lock
 * gives the lock to whichever thread is running, as glibc does; what it adds over glibc is (1) a short spin instead of a
 * futex sleep when the holder is running (glibc sleeps at once: a wake-up per
 * contended handover at 2 threads), (2) concurrency restriction: no more
 * threads spin than there are other CPUs, the rest leave the run queue, and a
 * wake-up is issued only when the lock would otherwise go idle (never on the
 * critical path, except for the bounded-bypass handoff below).
 *
 * Lock words (16 bytes in all):
 *   locked   0 free, 1 held.  Acquire: CAS 0 -> 1.  Release: a plain store of 0
 *            (after reading state), so an uncontended pair costs one atomic.
 *   state    bit 0  SLEEPING   the standby sleeps (futex) on this word, or is
 *                              about to: a release that leaves nobody to take
 *                              the lock wakes it
 *            bit 1  IMPATIENT  the sleeping standby has waited patience_ns:
 *                              the next release hands the lock to it directly
 *            bit 2  GRANTED    handed to the standby (locked stays 1); the
 *                              standby clears it
 *            3..7   DAMP       the lock's spin budget is spin_ns >> DAMP:
 *                              failed spins raise it, successful ones lower
 *                              it; 1 arrival in 32 probes the whole spin_ns
 *            8..15  spinners   arrivals spinning on `locked` now (<= max_spinners <= 255)
 *            16..31 GEN        ll_fork_generation when the waiter fields were
 *                              last valid: in a fork child, slow paths find an
 *                              older GEN and forget the parent's waiters (the
 *                              queue, the standby, spinners), keeping `locked`
 *   tail     the passive queue: MCS nodes of parked threads, FIFO.  Its head is
 *            the standby, the only queued thread that contends for `locked`,
 *            less aggressively than arrivals: only when no spinner is present
 *            (or when impatient).
 * All zeros: free, nobody waiting (DAMP and GEN are the lock's memory: any value).
 *
 * Acquire: CAS locked 0 -> 1.  Else: spin for spin_ns if fewer than
 * max_spinners spin (TTAS on `locked`, randomized backoff after a lost CAS;
 * barging); else, or when the budget runs out, join the queue and park until
 * made its head (spin for spin_ns, then park); as the head (standby) spin, then announce
 * SLEEPING (state S -> S|SLEEPING), re-check `locked`, and sleep on `state`
 * until a release wakes it or patience_ns passes (then it announces IMPATIENT
 * too: S|SLEEPING -> S|SLEEPING|IMPATIENT).  A standby that
 * gets the lock makes its successor the standby (unparking it) before its
 * critical section.
 * Release: read state; no SLEEPING: store locked = 0 (1 -> 0).  Else (slow
 * path, still holding): IMPATIENT: hand over (state SLEEPING|IMPATIENT ->
 * GRANTED, locked stays 1; the standby clears GRANTED) and wake the standby;
 * no spinner left: clear SLEEPING (SLEEPING -> 0), store locked = 0, wake the
 * standby (futex wake on `state` after the store, as glibc wakes after its
 * release: a wake of a reused word is at worst spurious); spinners present:
 * store locked = 0 and let the standby sleep (a spinner takes the lock, its
 * release decides again).
 * Lost wake-ups: reading state before freeing the lock leaves a window: a
 * standby that announces SLEEPING between a releaser's read and its store,
 * and re-checks `locked` before the store, sleeps although the lock is free
 * (likewise the last spinner leaving while a release decided "a spinner
 * will take it").  The next acquisition's release wakes it; if none comes,
 * its own timed sleep does: the standby never sleeps longer than patience_ns
 * at a time (then as impatient, with a timeout doubling to 4 x patience_ns),
 * and on waking takes a free lock.  So a lost wake-up costs at most one
 * timeout, and only when the lock goes idle in that window; the gain is a
 * release without an atomic (glibc's pays one).
 * Timed acquire (ll_acr_acquire_until): as acquire, every stage cut at the
 * deadline: the arrival spin ends there, a queued waiter abandons its node (the
 * standby that reaches it passes the role on in its place: mcs_queue.h, "timed
 * acquire"), and a standby withdraws SLEEPING/IMPATIENT by CAS unless a release
 * handed it the lock first (GRANTED), then passes the role on.  So a timed
 * waiter is served as any other: after the standbys ahead of it in the queue,
 * each bypassed at most about patience_ns.
 *
 * Fairness: none short-term (barging: a running arrival takes a freed lock
 * before the standby).  Eventual: the standby is bypassed at most about
 * patience_ns (10 ms by default), then handed the lock; the queue behind it
 * is FIFO, so a queued thread of rank k waits at most about (k + 1) x
 * patience_ns plus the critical sections in between.
 * Footprint: 16 bytes per lock (locked, state, tail); one MCS node (24 B, a
 * 128-B slot from the per-thread cache) per queued thread, nothing for
 * arrival spinners.  Policies: its own (arrival spin with the lock's adaptive
 * budget, then the queue with spin-then-park), registered as spin.
 * Keys: spin_ns (default 20 us), patience_ns (default 10 ms), spinners (0:
 * the CPUs the process may use, less one, at least 1; at most 255).
 */
#include <errno.h>

#include "locklab/acr.h"
#include "locklab/registry.h"
#include "mcs_queue.h"

enum { SLEEPING = LL_ACR_SLEEPING, IMPATIENT = 2u, GRANTED = 4u, DAMP_ONE = 8u, DAMP_MASK = 0xf8u, SPINNER = 256u,
       GEN_SHIFT = 16 };
LL_STATIC_ASSERT((SLEEPING | IMPATIENT | GRANTED | 0xffu * SPINNER) == LL_ACR_WAITER_BITS, "acr.h's waiter bits");
#define SPINNERS(s) (((s) >> 8) & 0xffu)
#define DAMP(s) (((s) & DAMP_MASK) >> 3)
#define GEN(s) ((s) >> GEN_SHIFT)
/* DAMP 0..MAX_DAMP: the lock's spin budget is spin_ns >> DAMP; budgets under MIN_SPIN_NS do not spin. */
enum { MAX_DAMP = 12, MIN_SPIN_NS = 100, MAX_SPINNERS = 255 };
/* A damped lock lets 1 in PROBE_ONE_IN arrivals spin the whole spin_ns, to notice that spinning pays again.
 * A failed spin raises DAMP by DAMP_UP, a successful one lowers it by 1: spinning stays on only while at
 * least DAMP_UP in DAMP_UP + 1 spins succeed. */
enum { PROBE_ONE_IN = 32, DAMP_UP = 1 };
/* Backoff after a lost CAS on a free-looking lock: uniform in [0, cap) PAUSEs, cap
 * doubling up to MAX.  Few threads spin, so the caps are small. */
enum { BACKOFF_MIN = 4, BACKOFF_MAX = 64 };
/* An impatient standby's sleeps: patience_ns doubling up to this many times it. */
enum { MAX_SLEEP_PATIENCES = 4 };

LL_STATIC_ASSERT(sizeof(ll_acr_lock) == 16, "acr must fit the interposer's 16 inline bytes");
LL_STATIC_ASSERT(sizeof(ll_mcs_node) <= LL_QNODE_USABLE, "node must fit a queue-node slot");

void ll_acr_params_init(ll_acr_params *p, uint64_t spin_ns, uint64_t patience_ns, uint32_t spinners)
{
    int others = ll_cpus_available() - 1;
    p->spin_ns = spin_ns;
    p->patience_ns = patience_ns;
    p->max_spinners = spinners ? spinners : others > 1 ? (uint32_t)others : 1u;
    if (p->max_spinners > MAX_SPINNERS)
        p->max_spinners = MAX_SPINNERS;
}

void ll_acr_init(ll_acr_lock *l)
{
    /* relaxed stores: like pthread_mutex_init, publish the lock yourself */
    ll_store_relaxed(&l->locked, 0);
    ll_store_relaxed(&l->state, 0);
    ll_store_relaxed(&l->tail, NULL);
}

/* ---- fork ------------------------------------------------------------------------------ */

/* The state was written before a fork() (its GEN is an older ll_fork_generation): its
 * waiters (queue, standby, spinners) are threads this child does not have.  Forget them,
 * keep `locked` (a holder that forked may unlock in the child, as with glibc) and DAMP,
 * and tag the current generation.  Returns the state to use. */
LL_COLD static uint32_t forget_parent_waiters(ll_acr_lock *l, uint32_t s, uint32_t gen)
{
    for (;;) {
        if (GEN(s) == gen)
            return s;
        void *t = ll_load_relaxed(&l->tail); /* relaxed: only compared, never followed */
        uint32_t again = ll_load_relaxed(&l->state); /* relaxed: as above */
        if (again != s) {
            s = again;
            continue;
        }
        /* Read while the state was stale, so before any child thread queued (they queue only
         * after seeing the current generation): if the tail moved since, someone else reset it.
         * relaxed: the parent's nodes are never followed again, nothing to order */
        ll_cas(&l->tail, &t, NULL, LL_RELAXED);
        uint32_t fresh = (s & DAMP_MASK) | gen << GEN_SHIFT;
        if (ll_cas(&l->state, &s, fresh, LL_RELAXED)) /* relaxed: no data goes with the reset */
            return fresh;
    }
}

/* The lock's state, stale parts forgotten if a fork() happened since it was written. */
LL_INLINE uint32_t current_state(ll_acr_lock *l, uint32_t s)
{
    uint32_t gen = ll_fork_generation_now() & 0xffffu;
    return LL_LIKELY(GEN(s) == gen) ? s : forget_parent_waiters(l, s, gen);
}

LL_INLINE bool take(ll_acr_lock *l)
{
    uint32_t free_ = 0;
    /* acquire: pairs with the releasing store-release of locked */
    return ll_load_relaxed(&l->locked) == 0 && ll_cas(&l->locked, &free_, 1, LL_ACQUIRE);
}

/* ---- arrivals --------------------------------------------------------------------------- */

/* This arrival's spin budget: spin_ns damped by the lock's recent failures, except for a probe. */
static uint64_t spin_budget(const ll_acr_params *p, uint32_t s)
{
    uint64_t ns = DAMP(s) != 0 && ll_rand_below(PROBE_ONE_IN) == 0 ? p->spin_ns : p->spin_ns >> DAMP(s);
    return ns < MIN_SPIN_NS ? 0 : ns;
}

/* Tell the lock whether a spin paid (DAMP), and subtract `leaving` (SPINNER or 0) from the spinner count. */
static void update_damp(ll_acr_lock *l, bool spin_paid, uint32_t leaving)
{
    uint32_t s = ll_load_relaxed(&l->state); /* relaxed: the CAS validates it */
    for (;;) {
        uint32_t damp = DAMP(s);
        damp = spin_paid ? (damp > 0 ? damp - 1 : 0) : (damp + DAMP_UP < MAX_DAMP ? damp + DAMP_UP : MAX_DAMP);
        /* relaxed: a head count and a hint; their readers tolerate a stale view (header: lost wake-ups) */
        if (ll_cas(&l->state, &s, ((s - leaving) & ~(uint32_t)DAMP_MASK) | damp * DAMP_ONE, LL_RELAXED))
            return;
    }
}

/* Registered as a spinner: spin on `locked` for budget_ns.  True if we got the lock.  Either
 * way we leave the spinner count, and tell the lock whether spinning paid (DAMP). */
static bool arrival_spin(ll_acr_lock *l, uint64_t budget_ns)
{
    uint64_t deadline = ll_now_ns() + budget_ns;
    uint64_t cap = BACKOFF_MIN;
    bool got = false;
    for (uint32_t i = 1;; i++) {
        if (ll_load_relaxed(&l->locked) == 0) { /* relaxed: a hint; take()'s CAS orders */
            if ((got = take(l)))
                break;
            ll_backoff_step(&cap, BACKOFF_MAX); /* lost a race */
        } else {
            ll_pause();
        }
        if ((i & 15) == 0 && ll_now_ns() >= deadline)
            break;
    }
    update_damp(l, got, SPINNER);
    return got || take(l); /* leaving: a lock freed meanwhile is ours rather than idle */
}

/* ---- the standby ------------------------------------------------------------------------- */

/* May the standby take a free lock now?  Only if no spinner is about to, or it is impatient. */
LL_INLINE bool standby_may_take(uint32_t s, bool impatient) { return impatient || SPINNERS(s) == 0; }

/* Withdraw our SLEEPING/IMPATIENT and consume GRANTED: we own the lock (others only change spinners). */
static void standby_owned(ll_acr_lock *l)
{
    uint32_t s = ll_load_relaxed(&l->state); /* relaxed: the CAS validates it */
    while (s & (SLEEPING | IMPATIENT | GRANTED))
        if (ll_cas(&l->state, &s, s & ~(uint32_t)(SLEEPING | IMPATIENT | GRANTED), LL_RELAXED)) /* relaxed: flags only we read now */
            break;
}

/* Spin as an arrival would on this lock now (spin_budget), for GRANTED or a free lock we may take;
 * a spin (budget > 0) tells the lock whether it paid, as an arrival's does. */
static bool standby_spin(ll_acr_lock *l, const ll_acr_params *p, bool impatient)
{
    uint32_t s = ll_load_acquire(&l->state); /* acquire: GRANTED pairs with the handing-over CAS in release_slow */
    uint64_t budget = spin_budget(p, s), deadline = ll_now_ns() + budget;
    for (uint32_t i = 1;; i++) {
        if ((s & GRANTED) || (standby_may_take(s, impatient) && take(l))) {
            if (budget != 0 && i > 1)
                update_damp(l, true, 0);
            return true;
        }
        if (budget == 0)
            return false;
        if ((i & 15) == 0 && ll_now_ns() >= deadline) {
            update_damp(l, false, 0);
            return false;
        }
        ll_pause();
        s = ll_load_acquire(&l->state); /* acquire: as above */
    }
}

/* A timed standby's deadline passed: withdraw SLEEPING/IMPATIENT, unless a release handed
 * us the lock first (GRANTED: then we own it).  True if withdrawn.  The CAS here and the
 * handing-over CAS in release_slow decide the race: a release that read our announcement
 * and finds it gone frees the lock instead (release_slow re-reads state). */
static bool standby_withdraw(ll_acr_lock *l)
{
    uint32_t s = ll_load_acquire(&l->state); /* acquire: GRANTED pairs with the handing-over CAS in release_slow */
    for (;;) {
        if (s & GRANTED) {
            standby_owned(l);
            return false;
        }
        /* acquire (on failure, s reloaded): as above */
        if (ll_cas(&l->state, &s, s & ~(uint32_t)(SLEEPING | IMPATIENT), LL_ACQUIRE))
            return true;
    }
}

/* The head of the queue: own the lock, or give up at deadline_ns (LL_NO_DEADLINE: never).
 * Spin; then announce SLEEPING, re-check, and sleep on `state` while the announcement
 * stands, in timed sleeps (header: lost wake-ups).  True if we own the lock. */
static bool standby_acquire(ll_acr_lock *l, const ll_acr_params *p, uint64_t deadline_ns)
{
    uint64_t deadline = ll_now_ns() + p->patience_ns;
    uint64_t nap_ns = p->patience_ns ? p->patience_ns : 1000000u;
    bool impatient = p->patience_ns == 0;
    while (!standby_spin(l, p, impatient)) {
        /* acquire: as in standby_spin */
        for (uint32_t s = ll_load_acquire(&l->state);;) {
            if ((s & GRANTED) || (standby_may_take(s, impatient) && take(l)))
                goto owned;
            uint64_t now = ll_now_ns();
            if (now >= deadline_ns)
                return !standby_withdraw(l); /* not withdrawn: granted meanwhile, ours */
            if (!impatient && now >= deadline)
                impatient = true;
            uint32_t want = s | SLEEPING | (impatient ? IMPATIENT : 0u);
            if (s != want) {
                /* seq_cst: the announcement is ordered before the re-check of `locked` below
                 * (pairs with the load of state in ll_acr_release, modulo the window in the header) */
                if (!ll_cas(&l->state, &s, want, LL_SEQ_CST))
                    continue;
                s = want;
                if (standby_may_take(s, impatient) && take(l))
                    goto owned;
            }
            uint64_t until = impatient ? now + nap_ns : deadline;
            if (until > deadline_ns)
                until = deadline_ns;
            struct timespec ts = {(time_t)(until / 1000000000u), (long)(until % 1000000000u)};
            /* Sleeps only while state is still s: a release, a spinner, a grant return at once. */
            int rc = ll_futex_wait_until(&l->state, s, CLOCK_MONOTONIC, &ts);
            /* The nap doubles only after a nap that ran its full course: a sleep cut short
             * (a spinner came or went, EAGAIN) says nothing about how long the lock stays
             * busy, and doubling on it would let churn stretch the next nap -- the cost of
             * a lost wake-up -- to MAX_SLEEP_PATIENCES x patience_ns within a few spinner arrivals. */
            if (impatient && rc == ETIMEDOUT &&
                nap_ns < (uint64_t)MAX_SLEEP_PATIENCES * (p->patience_ns ? p->patience_ns : 1000000u))
                nap_ns *= 2;
            s = ll_load_acquire(&l->state); /* acquire: as in standby_spin */
            if (!(s & (SLEEPING | GRANTED)))
                break; /* a release consumed our announcement and woke us: spin again */
        }
        if (ll_now_ns() >= deadline_ns)
            return !standby_withdraw(l);
    }
owned:
    standby_owned(l);
    return true;
}

/* The slow path, with a deadline (LL_NO_DEADLINE: none).  True if we own the lock. */
static bool acquire_slow(ll_acr_lock *l, const ll_acr_params *p, uint64_t deadline_ns)
{
    uint32_t s = current_state(l, ll_load_relaxed(&l->state)); /* relaxed: the CAS validates it */
    for (;;) {
        if (take(l)) /* freed meanwhile: barge */
            return true;
        uint64_t budget = spin_budget(p, s);
        if (deadline_ns != LL_NO_DEADLINE)
            budget = ll_ns_before(deadline_ns, budget); /* a timed arrival spins until its deadline at most */
        if (budget == 0 || SPINNERS(s) >= p->max_spinners)
            break;
        if (ll_cas(&l->state, &s, s + SPINNER, LL_RELAXED)) { /* relaxed: a head count, orders no data */
            if (arrival_spin(l, budget))
                return true;
            break;
        }
    }
    if (ll_now_ns() >= deadline_ns)
        return false;
    /* The passive queue (the shared MCS queue, mcs_queue.h, which names each memory order's
     * pair): wait until we are its head, then act as the standby.  Queue waiters spin-then-park
     * with the lock's budget: one near the head is often still spinning when it is made the
     * standby (no wake-up between two standbys).  A timed waiter abandons its node at the
     * deadline (mcs_queue.h, "timed acquire"). */
    ll_wait_policy queue_wp;
    ll_wait_policy_init(&queue_wp, &ll_wait_stp, p->spin_ns ? p->spin_ns : 1);
    ll_mcs_node *me = (ll_mcs_node *)ll_qnode_get(), *mine = me;
    ll_mcs_node *pred = ll_mcsq_enqueue(&l->tail, me);
    if (pred != NULL) {
        if (deadline_ns == LL_NO_DEADLINE)
            ll_mcsq_wait(me, pred, 1, LL_MCSQ_PLAIN, &queue_wp);
        else if (ll_mcsq_wait_until(me, pred, 1, LL_MCSQ_PLAIN, &queue_wp, deadline_ns) == LL_MCSQ_ABANDONED)
            return false; /* me is the queue's now */
    }
    bool owned = standby_acquire(l, p, deadline_ns);
    /* Hand the standby role to our successor (waking it if it parked); a successor that
     * abandoned its node is passed over (we release the role in its place). */
    for (;;) {
        ll_mcs_node *succ = ll_mcsq_leave(&l->tail, me);
        ll_mcsq_take_place(&me, mine, succ);
        if (succ == NULL || ll_mcsq_grant(succ, 0, &queue_wp, NULL))
            break;
    }
    ll_qnode_put(mine);
    return owned;
}

LL_COLD void ll_acr_acquire_slow(ll_acr_lock *l, const ll_acr_params *p) { (void)acquire_slow(l, p, LL_NO_DEADLINE); }

bool ll_acr_acquire_until(ll_acr_lock *l, const ll_acr_params *p, uint64_t deadline_ns)
{
    return take(l) || acquire_slow(l, p, deadline_ns);
}

/* ---- release ------------------------------------------------------------------------------- */

/* The holder saw SLEEPING (in s) before freeing the lock. */
LL_COLD void ll_acr_release_slow(ll_acr_lock *l, uint32_t s)
{
    s = current_state(l, s);
    for (;;) {
        if (s & IMPATIENT) {
            /* Direct handoff: locked stays 1.  release: publishes the critical section to the
             * standby's acquire load of state (standby_spin / standby_acquire) */
            if (ll_cas(&l->state, &s, (s & ~(uint32_t)(SLEEPING | IMPATIENT)) | GRANTED, LL_RELEASE)) {
                ll_futex_wake(&l->state, 1);
                return;
            }
        } else if (!(s & SLEEPING) || SPINNERS(s) > 0) {
            /* No sleeper any more, or a spinner will take the lock (its release decides again). */
            ll_store_release(&l->locked, 0); /* release: publishes the critical section */
            return;
        } else if (ll_cas(&l->state, &s, s & ~(uint32_t)SLEEPING, LL_RELAXED)) { /* relaxed: the store below publishes */
            ll_store_release(&l->locked, 0); /* release: publishes the critical section */
            ll_futex_wake(&l->state, 1);     /* after the store: the woken standby finds the lock free */
            return;
        }
    }
}

/* ---- registry adapter ------------------------------------------------------------------------- */

typedef struct acr_state {
    ll_acr_lock lock;
    ll_acr_params params;
} acr_state;

static const ll_param params[] = {
    {"spin_ns", "arrival spin budget, and the standby's spin before it sleeps, ns", 0, 10000000000ull,
     LL_ACR_DEFAULT_SPIN_NS},
    {"patience_ns", "a sleeping standby bypassed this long is handed the lock, ns (0 = at once)", 0, 10000000000ull,
     LL_ACR_DEFAULT_PATIENCE_NS},
    {"spinners", "max concurrent arrival spinners (0 = CPUs available - 1, at least 1); more park", 0, 1u << 20, 0},
    {NULL, NULL, 0, 0, 0},
};

static int init(void *s, const uint64_t *p, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    acr_state *st = (acr_state *)s;
    ll_acr_init(&st->lock);
    ll_acr_params_init(&st->params, p[0], p[1], (uint32_t)p[2]);
    return 0;
}
static void acquire(void *s, ll_wait_policy *wp)
{
    (void)wp;
    acr_state *st = (acr_state *)s;
    ll_acr_acquire(&st->lock, &st->params);
}
static bool try_acquire(void *s, ll_wait_policy *wp) { (void)wp; return ll_acr_try_acquire(&((acr_state *)s)->lock); }
static bool acquire_until(void *s, ll_wait_policy *wp, uint64_t deadline_ns)
{
    if (ll_deadline_passed(deadline_ns))
        return try_acquire(s, wp);
    acr_state *st = (acr_state *)s;
    return ll_acr_acquire_until(&st->lock, &st->params, deadline_ns);
}
static void release(void *s, ll_wait_policy *wp) { (void)wp; ll_acr_release(&((acr_state *)s)->lock); }
LL_DIRECT_VERBS()

const ll_lock_ops ll_lock_acr = {
    .name = "acr", .source = "locklab; after Dice 2017, Malthusian Locks, App. A.1 (LOITER), queue MCS 1991",
    .summary = "barging TAS, spinners capped by the CPUs available, FIFO queue of parked threads whose head is "
        "the standby",
    .fairness = "none short-term (barging); bypass bounded by patience_ns per standby (queue FIFO)",
    .policies = LL_SPIN_ONLY, .caps = LL_CAP_PARKS_ITSELF | LL_CAP_FORK_SAFE, .params = params,
    .state_bytes = sizeof(acr_state), .inline_prefix_bytes = sizeof(ll_acr_lock), .lock_bytes = sizeof(ll_acr_lock),
    .waiter_bytes = sizeof(ll_mcs_node), .init = init, LL_OPS_VERBS,
};
