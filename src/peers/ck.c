/*
 * Peers: Concurrency Kit's spinlocks behind locklab's lock ops.
 *
 * Concurrency Kit (ck, http://concurrencykit.org, Samy Al Bahra) is a C
 * library of concurrency primitives used in production (FreeBSD's kernel
 * carries a copy).  Its spinlocks are header-only: static inline
 * functions over ck_pr, its own atomics layer (inline asm on x86_64).  Debian 12
 * ships ck 0.7.1 (packages libck-dev / libck0 0.7.1-10); only the headers are
 * used, nothing is linked.  Built when <ck_spinlock.h> is found with its x86
 * ticket try-lock and the build is not under ThreadSanitizer (CMakeLists.txt: TSan cannot see inline-asm
 * atomics and would report false races); src/peers/none.c otherwise.
 *
 * Registered names (all spin-only: ck waits with PAUSE, or with an empty
 * delay loop for the -eb / -pb variants; no other waiting policy applies):
 *
 *   name          ck functions                          fairness           per lock / per waiter
 *   ck-fas        ck_spinlock_fas_{lock,trylock,unlock}  none (barging)     4 B / 0
 *   ck-fas-eb     ck_spinlock_fas_lock_eb                none (barging)     4 B / 0
 *   ck-cas        ck_spinlock_cas_*                      none (barging)     4 B / 0
 *   ck-cas-eb     ck_spinlock_cas_lock_eb                none (barging)     4 B / 0
 *   ck-dec        ck_spinlock_dec_*                      none (barging)     4 B / 0
 *   ck-dec-eb     ck_spinlock_dec_lock_eb                none (barging)     4 B / 0
 *   ck-ticket     ck_spinlock_ticket_* (16-bit halves)   FIFO               4 B / 0
 *   ck-ticket-pb  ck_spinlock_ticket_lock_pb(l, shift)   FIFO               4 B (+4 shift) / 0
 *   ck-anderson   ck_spinlock_anderson_{lock,unlock}     FIFO               72 B + 8 B per slot / 0
 *   ck-mcs        ck_spinlock_mcs_*                      FIFO               8 B / 16 B node
 *   ck-clh        ck_spinlock_clh_{lock,unlock}          FIFO               8 B + one 16 B node / 16 B node
 *
 * -eb: exponential backoff, an empty loop of 512, 1024, ... iterations (capped
 * at 2^20) between attempts.  -pb: proportional backoff: a waiter k places
 * from the front runs (k << shift) empty iterations between reads (ck's own
 * benchmark uses shift 0, the default here).  ck's dec lock is a counter that
 * acquirers decrement to 0.  ck-hclh is not registered: ck has no try-lock
 * for it, and on a two-level queue (local queue, then a splice into the
 * global one) a try cannot be a single CAS (docs/peers.md).
 *
 * The generic handle's state is ck's lock plus, for the queue locks, the
 * holder's node (written only by the holder), like locklab's own adapters.
 * Queue nodes come from locklab's per-thread node cache (ll_qnode_get/put):
 * ck touches only the first 16 bytes.  CLH nodes migrate: at release the
 * holder keeps its predecessor's node (ck_spinlock_clh_unlock hands it back).
 *
 * The interposer's direct verbs (registry.h, LL_DIRECT_VERBS_NAMED; the queue adapter's for
 * ck-mcs) take each peer's try as its uncontended path, as locklab's own locks do, except
 * for the two tickets: their try is a load and a CAS of the word whose 16-bit half the
 * unlock increments, which costs more than their lock's fetch-and-add (the uncontended
 * pair: docs/interposer.md), so they keep the plain verbs.
 *
 * What ck does not provide and this adapter adds, on ck's own data with ck's
 * own atomics (ck_pr_*, the words are ck's plain unsigned fields, so
 * locklab's ll_atomic layer does not apply to them):
 *   - try_acquire for ck-clh: CAS the tail from a node whose wait flag is
 *     clear (as locklab's clh: if the node was recycled and re-enqueued in the
 *     window, the CAS still succeeds and we wait behind it, which is correct
 *     but means a rare blocking try);
 *   - try_acquire for ck-anderson: take ticket `next` by CAS only when its
 *     slot is already unlocked;
 *   - ck-anderson's bound: ck's array lock gives each arrival slot
 *     (ticket mod slots), so more than `slots` threads inside acquire/release
 *     at once share a slot: two waiters can both see it unlocked and enter,
 *     and the lost hand-off then hangs the lock (slots=2 with 3 threads hangs
 *     in the validator).  The
 *     default, 4096 slots, equals locklab-bench's --threads maximum; the spec
 *     key `slots` (power of two, 2..65536) changes it, and the caller must
 *     keep the number of threads that may use one lock at once at or below it.
 *     (Checking at run time would cost a shared counter update per acquire and
 *     distort the comparison this peer exists for.)
 * ck's Anderson slots are 8 bytes, unpadded: eight waiters share a cache line.
 */
#include <stdio.h>
#include <stdlib.h>

#include <ck_spinlock.h>

#include "locklab/registry.h"
#include "../locks/slot_array.h"

/* ---- barging locks: fas, cas, dec (plain and exponential backoff) ---------- */

/* One adapter per (lock type, acquire function): the state is ck's lock. */
#define CK_BARGING_PEER(ID, TYPE, PREFIX, LOCKFN, NAME, SUMMARY)                                 \
    static int ID##_init(void *s, const uint64_t *p, char *err, size_t errlen)                   \
    {                                                                                            \
        (void)p, (void)err, (void)errlen;                                                        \
        PREFIX##_init((TYPE *)s);                                                                \
        return 0;                                                                                \
    }                                                                                            \
    static void ID##_acquire(void *s, ll_wait_policy *wp) { (void)wp; LOCKFN((TYPE *)s); }       \
    static bool ID##_try_acquire(void *s, ll_wait_policy *wp)                                    \
    {                                                                                            \
        (void)wp;                                                                                \
        return PREFIX##_trylock((TYPE *)s);                                                      \
    }                                                                                            \
    static void ID##_release(void *s, ll_wait_policy *wp) { (void)wp; PREFIX##_unlock((TYPE *)s); } \
    LL_DIRECT_VERBS_NAMED(ID##_, ID##_try_acquire)                                               \
    static const ll_lock_ops ID##_ops = {                                                        \
        .name = NAME,                                                                            \
        .source = "Concurrency Kit 0.7.1, " #LOCKFN,                                             \
        .summary = SUMMARY,                                                                      \
        .fairness = "none (barging)",                                                            \
        .policies = LL_SPIN_ONLY,                                                                \
        .state_bytes = sizeof(TYPE),                                                             \
        .lock_bytes = sizeof(TYPE),                                                              \
        .init = ID##_init,                                                                       \
        .acquire = ID##_acquire,                                                                 \
        .try_acquire = ID##_try_acquire,                                                         \
        .release = ID##_release,                                                                 \
        .direct_acquire = ID##_direct_acquire,                                                   \
        .direct_release = ID##_direct_release,                                                   \
    };

CK_BARGING_PEER(fas, ck_spinlock_fas_t, ck_spinlock_fas, ck_spinlock_fas_lock, "ck-fas",
                "test-and-test-and-set on an exchange")
CK_BARGING_PEER(fas_eb, ck_spinlock_fas_t, ck_spinlock_fas, ck_spinlock_fas_lock_eb, "ck-fas-eb",
                "exchange, exponential backoff between attempts")
CK_BARGING_PEER(cas, ck_spinlock_cas_t, ck_spinlock_cas, ck_spinlock_cas_lock, "ck-cas",
                "test-and-test-and-set on a compare-and-swap")
CK_BARGING_PEER(cas_eb, ck_spinlock_cas_t, ck_spinlock_cas, ck_spinlock_cas_lock_eb, "ck-cas-eb",
                "compare-and-swap, exponential backoff between attempts")
CK_BARGING_PEER(dec, ck_spinlock_dec_t, ck_spinlock_dec, ck_spinlock_dec_lock, "ck-dec",
                "counter decremented to zero by the acquirer")
CK_BARGING_PEER(dec_eb, ck_spinlock_dec_t, ck_spinlock_dec, ck_spinlock_dec_lock_eb, "ck-dec-eb",
                "decrement lock, exponential backoff between attempts")

/* ---- ticket and ticket with proportional backoff --------------------------- */

static int ticket_init(void *s, const uint64_t *p, char *err, size_t errlen)
{
    (void)p, (void)err, (void)errlen;
    ck_spinlock_ticket_init((ck_spinlock_ticket_t *)s);
    return 0;
}
static void ticket_acquire(void *s, ll_wait_policy *wp) { (void)wp; ck_spinlock_ticket_lock((ck_spinlock_ticket_t *)s); }
static bool ticket_try_acquire(void *s, ll_wait_policy *wp)
{
    (void)wp;
    return ck_spinlock_ticket_trylock((ck_spinlock_ticket_t *)s);
}
static void ticket_release(void *s, ll_wait_policy *wp) { (void)wp; ck_spinlock_ticket_unlock((ck_spinlock_ticket_t *)s); }

static const ll_lock_ops ticket_ops = {
    .name = "ck-ticket", .source = "Concurrency Kit 0.7.1, ck_spinlock_ticket",
    .summary = "ticket lock (next and serving in one word)",
    .fairness = "FIFO", .policies = LL_SPIN_ONLY,
    .state_bytes = sizeof(ck_spinlock_ticket_t), .lock_bytes = sizeof(ck_spinlock_ticket_t),
    .init = ticket_init, .acquire = ticket_acquire, .try_acquire = ticket_try_acquire, .release = ticket_release,
    .acquire_until = NULL, /* no timed acquire of its own: callers poll try_acquire */
};

typedef struct { ck_spinlock_ticket_t lock; unsigned shift; } ticket_pb_state;

static const ll_param ticket_pb_params[] = {
    {"shift", "delay per waiter ahead = 2^shift empty-loop iterations (ck benchmarks use 0)", 0, 20, 0},
    {NULL, NULL, 0, 0, 0},
};
static int ticket_pb_init(void *s, const uint64_t *p, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    ticket_pb_state *st = (ticket_pb_state *)s;
    ck_spinlock_ticket_init(&st->lock);
    st->shift = (unsigned)p[0];
    return 0;
}
static void ticket_pb_acquire(void *s, ll_wait_policy *wp)
{
    (void)wp;
    ticket_pb_state *st = (ticket_pb_state *)s;
    ck_spinlock_ticket_lock_pb(&st->lock, st->shift);
}

static const ll_lock_ops ticket_pb_ops = {
    .name = "ck-ticket-pb", .source = "Concurrency Kit 0.7.1, ck_spinlock_ticket_lock_pb",
    .summary = "ticket lock, delay proportional to the waiters ahead",
    .fairness = "FIFO", .policies = LL_SPIN_ONLY, .params = ticket_pb_params,
    .state_bytes = sizeof(ticket_pb_state), .lock_bytes = sizeof(ck_spinlock_ticket_t),
    .init = ticket_pb_init, .acquire = ticket_pb_acquire, .try_acquire = ticket_try_acquire, .release = ticket_release,
    .acquire_until = NULL, /* no timed acquire of its own: callers poll try_acquire */
};

/* ---- Anderson's array lock ------------------------------------------------- */

typedef struct { ck_spinlock_anderson_t lock; ck_spinlock_anderson_thread_t *holder; } anderson_state;
#define CK_ANDERSON_DEFAULT_SLOTS 4096 /* = locklab-bench's maximum --threads */

static const ll_param anderson_params[] = {
    {"slots", "array slots, a power of two; at most this many threads may use the lock at once", 2, 1u << 16,
     CK_ANDERSON_DEFAULT_SLOTS},
    {NULL, NULL, 0, 0, 0},
};
static int anderson_init(void *s, const uint64_t *p, char *err, size_t errlen)
{
    void *mem = ll_slot_array("ck-anderson", p[0], sizeof(ck_spinlock_anderson_thread_t), err, errlen);
    if (!mem)
        return -1;
    ck_spinlock_anderson_init(&((anderson_state *)s)->lock, (ck_spinlock_anderson_thread_t *)mem, (unsigned)p[0]);
    return 0;
}
static void anderson_destroy(void *s) { free(((anderson_state *)s)->lock.slots); }
static void anderson_acquire(void *s, ll_wait_policy *wp)
{
    (void)wp;
    anderson_state *st = (anderson_state *)s;
    ck_spinlock_anderson_lock(&st->lock, &st->holder);
}
/* Not in ck: take ticket `next` only if its slot is already unlocked.  With at
 * most `slots` users, an unlocked slot for ticket t can only come from the
 * release of ticket t - 1 (ticket t - slots set it locked on entry long ago). */
static bool anderson_try_acquire(void *s, ll_wait_policy *wp)
{
    (void)wp;
    anderson_state *st = (anderson_state *)s;
    ck_spinlock_anderson_t *l = &st->lock;
    unsigned t = ck_pr_load_uint(&l->next); /* a guess: the CAS below re-validates it */
    ck_spinlock_anderson_thread_t *slot = &l->slots[t & l->mask];
    ck_pr_fence_load(); /* read the slot after next, as ck's lock does after its fetch-and-add */
    /* CAS (lock cmpxchg on x86, full barrier): takes ticket t only if no one took it since */
    if (ck_pr_load_uint(&slot->locked) || !ck_pr_cas_uint(&l->next, t, t + 1))
        return false;
    ck_pr_store_uint(&slot->locked, true); /* as ck's lock: re-arm the slot for ticket t + slots */
    ck_pr_fence_lock();                    /* acquire: the critical section stays after the CAS */
    st->holder = slot;
    return true;
}
static void anderson_release(void *s, ll_wait_policy *wp)
{
    (void)wp;
    anderson_state *st = (anderson_state *)s;
    ck_spinlock_anderson_unlock(&st->lock, st->holder);
}
LL_DIRECT_VERBS_NAMED(anderson_, anderson_try_acquire)

static const ll_lock_ops anderson_ops = {
    .name = "ck-anderson", .source = "Concurrency Kit 0.7.1, ck_spinlock_anderson; Anderson 1990",
    .summary = "array-based queue lock; at most `slots` threads at once",
    .fairness = "FIFO", .policies = LL_SPIN_ONLY, .params = anderson_params,
    .state_bytes = sizeof(anderson_state),
    .lock_bytes = sizeof(ck_spinlock_anderson_t) + CK_ANDERSON_DEFAULT_SLOTS * sizeof(ck_spinlock_anderson_thread_t),
    .init = anderson_init, .destroy = anderson_destroy, .acquire = anderson_acquire,
    .try_acquire = anderson_try_acquire, .release = anderson_release,
    .acquire_until = NULL, /* no timed acquire of its own: callers poll try_acquire */
    .direct_acquire = anderson_direct_acquire, .direct_release = anderson_direct_release,
};

/* ---- MCS ----------------------------------------------------------------------- */

LL_STATIC_ASSERT(sizeof(ck_spinlock_mcs_context_t) <= LL_QNODE_USABLE, "ck MCS node must fit a queue-node slot");
LL_STATIC_ASSERT(sizeof(ck_spinlock_clh_t) <= LL_QNODE_USABLE, "ck CLH node must fit a queue-node slot");

typedef struct { ck_spinlock_mcs_t lock; ck_spinlock_mcs_context_t *holder; } mcs_state;

static int mcs_init(void *s, const uint64_t *p, char *err, size_t errlen)
{
    (void)p, (void)err, (void)errlen;
    ck_spinlock_mcs_init(&((mcs_state *)s)->lock);
    return 0;
}
/* ck's MCS calls under the names LL_QUEUE_LOCK_ADAPTER_NAMED expects (wp: ck spins). */
static inline void ckmcs_acquire(ck_spinlock_mcs_t *l, ck_spinlock_mcs_context_t *me, ll_wait_policy *wp)
{
    (void)wp;
    ck_spinlock_mcs_lock(l, me);
}
static inline bool ckmcs_try_acquire(ck_spinlock_mcs_t *l, ck_spinlock_mcs_context_t *me)
{
    return ck_spinlock_mcs_trylock(l, me);
}
static inline void ckmcs_release(ck_spinlock_mcs_t *l, ck_spinlock_mcs_context_t *me, ll_wait_policy *wp)
{
    (void)wp;
    ck_spinlock_mcs_unlock(l, me);
}
LL_QUEUE_LOCK_ADAPTER_NAMED(mcs_state, ck_spinlock_mcs_context_t, ckmcs, mcs_)

static const ll_lock_ops mcs_ops = {
    .name = "ck-mcs", .source = "Concurrency Kit 0.7.1, ck_spinlock_mcs; Mellor-Crummey & Scott 1991",
    .summary = "queue lock, each waiter spins on its own node",
    .fairness = "FIFO", .policies = LL_SPIN_ONLY,
    .state_bytes = sizeof(mcs_state), .lock_bytes = sizeof(ck_spinlock_mcs_t),
    .waiter_bytes = sizeof(ck_spinlock_mcs_context_t),
    .init = mcs_init, .acquire = mcs_acquire, .try_acquire = mcs_try_acquire, .release = mcs_release,
    .acquire_until = NULL, /* no timed acquire of its own: callers poll try_acquire */
    .direct_acquire = mcs_direct_acquire, .direct_release = mcs_direct_release,
    .abandon = mcs_abandon,
};

/* ---- CLH ----------------------------------------------------------------------- */

typedef struct { ck_spinlock_clh_t *tail; ck_spinlock_clh_t *holder; } clh_state;

static int clh_init(void *s, const uint64_t *p, char *err, size_t errlen)
{
    (void)p, (void)err, (void)errlen;
    ck_spinlock_clh_init(&((clh_state *)s)->tail, (ck_spinlock_clh_t *)ll_qnode_get());
    return 0;
}
static void clh_destroy(void *s)
{
    ll_qnode_put(((clh_state *)s)->tail); /* the lock is free: its tail node is ours */
}
static void clh_acquire(void *s, ll_wait_policy *wp)
{
    (void)wp;
    clh_state *st = (clh_state *)s;
    ck_spinlock_clh_t *me = (ck_spinlock_clh_t *)ll_qnode_get();
    ck_spinlock_clh_lock(&st->tail, me);
    st->holder = me;
}
/* Not in ck: CAS the tail from a released node (see the header comment). */
static bool clh_try_acquire(void *s, ll_wait_policy *wp)
{
    (void)wp;
    clh_state *st = (clh_state *)s;
    ck_spinlock_clh_t *pred = (ck_spinlock_clh_t *)ck_pr_load_ptr(&st->tail); /* a guess: the CAS re-validates it */
    ck_pr_fence_load(); /* read pred's flag after the tail, as ck's lock does */
    if (ck_pr_load_uint(&pred->wait))
        return false;
    ck_spinlock_clh_t *me = (ck_spinlock_clh_t *)ll_qnode_get();
    me->wait = true;
    ck_pr_fence_store_atomic(); /* release: our flag before a successor can find us at the tail */
    if (!ck_pr_cas_ptr(&st->tail, pred, me)) { /* as the swap in ck's lock: enqueue behind pred */
        ll_qnode_put(me);
        return false;
    }
    me->previous = pred;
    ck_pr_fence_load();
    while (ck_pr_load_uint(&pred->wait)) /* only if pred was recycled and re-enqueued in the window */
        ck_pr_stall();
    ck_pr_fence_lock(); /* acquire: the critical section stays after seeing pred released */
    st->holder = me;
    return true;
}
static void clh_release(void *s, ll_wait_policy *wp)
{
    (void)wp;
    clh_state *st = (clh_state *)s;
    ck_spinlock_clh_t *node = st->holder;
    st->holder = NULL; /* holder-only: before the handover (abandon tells a held lock by it) */
    ck_spinlock_clh_unlock(&node); /* node := our predecessor's node, now ours */
    ll_qnode_put(node);
}
LL_DIRECT_VERBS_NAMED(clh_, clh_try_acquire)
/* A lock dropped while held (ll_lock_ops.abandon): the predecessor's node is the holder's to
 * give back (its own is the tail, which destroy returns). */
static void clh_abandon(void *s)
{
    clh_state *st = (clh_state *)s;
    if (st->holder)
        ll_qnode_put(st->holder->previous);
    st->holder = NULL;
}

static const ll_lock_ops clh_ops = {
    .name = "ck-clh", .source = "Concurrency Kit 0.7.1, ck_spinlock_clh; Craig 1993; Magnusson, Landin, Hagersten 1994",
    .summary = "queue lock, each waiter spins on its predecessor's node",
    .fairness = "FIFO", .policies = LL_SPIN_ONLY,
    .state_bytes = sizeof(clh_state), .lock_bytes = sizeof(ck_spinlock_clh_t *) + sizeof(ck_spinlock_clh_t),
    .waiter_bytes = sizeof(ck_spinlock_clh_t),
    .init = clh_init, .destroy = clh_destroy, .acquire = clh_acquire, .try_acquire = clh_try_acquire,
    .release = clh_release, .acquire_until = NULL, /* no timed acquire of its own: callers poll try_acquire */
    .direct_acquire = clh_direct_acquire, .direct_release = clh_direct_release,
    .abandon = clh_abandon,
};

const ll_lock_ops *const ll_peer_locks[] = {
    &fas_ops, &fas_eb_ops, &cas_ops, &cas_eb_ops, &dec_ops, &dec_eb_ops,
    &ticket_ops, &ticket_pb_ops, &anderson_ops, &mcs_ops, &clh_ops, NULL,
};
