/*
 * mcs — Mellor-Crummey & Scott queue lock.
 * Source: Mellor-Crummey & Scott, "Algorithms for Scalable Synchronization on
 * Shared-Memory Multiprocessors", ACM TOCS 1991; Boyd-Wickizer, Kaashoek,
 * Morris & Zeldovich, "Non-scalable locks are dangerous", Linux Symposium
 * 2012, and the lecture slides on it ("MCS"); Dice, "Malthusian Locks",
 * EuroSys 2017, §2.
 *
 * Lock word (tail):
 *   NULL         free
 *   node A       held; A is the last node in the queue (A may be the holder)
 * Node word (waiting): 1 = keep waiting, 0 = you own the lock.
 * Acquire: swap self into tail (NULL -> A: ours at once; A -> B: queued
 * behind A); if there was a predecessor, link into its next (A.next NULL ->
 * B) and wait on one's own node (local spinning, B.waiting 1 -> 0).
 * Release: hand over to next (B.waiting 1 -> 0; tail unchanged), or CAS tail
 * from self to NULL if no one is queued (A -> NULL).
 *
 * Fairness: strict FIFO (direct handoff).  Under spin-then-park the head of
 * the queue is the thread most likely to have parked (§5.1 of the Malthusian
 * paper): handovers pay a wake-up inside the critical path.
 * Anticipatory warm-up (stp, astp; key warm, default 1): each handover also
 * wakes the successor's successor (§5.1, note 19), so that it is spinning,
 * not asleep, when the lock reaches it.  warm=0 is the plain MCS-STP of the
 * paper's §5.1, whose every handover to a parked successor waits for it to
 * wake (the paper does not say whether its measured MCS-STP warmed).
 * Footprint: 8 bytes per lock; one node (24 B, a 128-B slot from the
 * per-thread cache) per thread waiting or holding.  Policies: all.
 * Timed acquire: abortable; a timed waiter that gives up abandons its node, and
 * the release that reaches it releases again in its place (mcs_queue.h, "timed
 * acquire").  It is served like any waiter: within the waiters ahead of it.
 * Code: the steps are those of the shared MCS queue (src/locks/mcs_queue.h),
 * which mcscr, mcscrn, cna, hmcs and loiter's inner lock use too.
 */
#include "locklab/registry.h"
#include "mcs_queue.h"

LL_STATIC_ASSERT(sizeof(ll_mcs_node) <= LL_QNODE_USABLE, "node must fit a queue-node slot");

/* The whole algorithm is the MCS queue's steps (mcs_queue.h, where every
 * memory order is explained with its pair); busy = 1, granted = 0. */
void ll_mcs_acquire(ll_mcs_lock *l, ll_mcs_node *me, ll_wait_policy *wp)
{
    ll_mcsq_acquire(&l->tail, me, 1, LL_MCSQ_PLAIN, wp);
}

bool ll_mcs_try_acquire(ll_mcs_lock *l, ll_mcs_node *me) { return ll_mcsq_try_enqueue(&l->tail, me); }

bool ll_mcs_acquire_until(ll_mcs_lock *l, ll_mcs_node *me, ll_wait_policy *wp, uint64_t deadline_ns)
{
    return ll_mcsq_acquire_until(&l->tail, me, 1, LL_MCSQ_PLAIN, wp, deadline_ns);
}

static LL_COLD void mcs_release_slow(ll_mcs_lock *l, ll_mcs_node *me, ll_wait_policy *wp, bool warm)
{
    for (ll_mcs_node *mine = me;;) {
        ll_mcs_node *succ = ll_mcsq_leave(&l->tail, me);
        ll_mcsq_take_place(&me, mine, succ); /* me (if abandoned, not ours) is out of the queue */
        /* warm-up: also wake succ's successor under stp/astp (§5.1, note 19) */
        if (succ == NULL || ll_mcsq_grant(succ, 0, wp, warm ? ll_mcsq_warm_next(succ, wp) : NULL))
            return;
    }
}

/* The uncontended release inline (the interposer's direct verbs inline it), the rest out of line. */
static inline void mcs_release(ll_mcs_lock *l, ll_mcs_node *me, ll_wait_policy *wp, bool warm)
{
    if (LL_UNLIKELY(!ll_mcsq_try_leave(&l->tail, me)))
        mcs_release_slow(l, me, wp, warm);
}

void ll_mcs_release(ll_mcs_lock *l, ll_mcs_node *me, ll_wait_policy *wp) { mcs_release(l, me, wp, true); }

/* Generic handle: the queue with the key warm (the verbs the registry's adapters
 * call: ll_mcs's, but the release reads the key), and the holder's node (written
 * only by the holder). */
typedef struct { ll_mcs_lock queue; uint32_t warm; } mcs_keyed;
typedef struct { mcs_keyed lock; ll_mcs_node *holder; } mcs_state;

static void mcs_keyed_acquire(mcs_keyed *l, ll_mcs_node *me, ll_wait_policy *wp) { ll_mcs_acquire(&l->queue, me, wp); }
static bool mcs_keyed_try_acquire(mcs_keyed *l, ll_mcs_node *me) { return ll_mcs_try_acquire(&l->queue, me); }
static bool mcs_keyed_acquire_until(mcs_keyed *l, ll_mcs_node *me, ll_wait_policy *wp, uint64_t deadline_ns)
{
    return ll_mcs_acquire_until(&l->queue, me, wp, deadline_ns);
}
static void mcs_keyed_release(mcs_keyed *l, ll_mcs_node *me, ll_wait_policy *wp) { mcs_release(&l->queue, me, wp, l->warm); }

static const ll_param params[] = {
    {"warm", "1: each handover under stp/astp also wakes the successor's successor (anticipatory warm-up)", 0, 1, 1},
    {NULL, NULL, 0, 0, 0},
};
static int init(void *s, const uint64_t *p, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    mcs_state *st = (mcs_state *)s;
    ll_mcs_init(&st->lock.queue);
    st->lock.warm = p[0] ? 1 : 0;
    st->holder = NULL;
    return 0;
}

LL_MCSQ_LOCK_ADAPTERS(mcs_state, ll_mcs_node, mcs_keyed)

const ll_lock_ops ll_lock_mcs = {
    .name = "mcs", .source = "Mellor-Crummey & Scott 1991",
    .summary = "queue lock, each waiter spins on its own node",
    .fairness = "FIFO", .policies = LL_ALL_POLICIES, .params = params,
    LL_MCSQ_OPS(mcs_state, ll_mcs_lock, ll_mcs_node),
};
