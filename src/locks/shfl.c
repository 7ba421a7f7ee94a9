/*
 * shfl — ShflLock: a test-and-set lock with an MCS queue of waiters, whose
 * head reorders the queue while the lock is held (off the critical path),
 * grouping waiters of its own socket right behind itself.
 * Source: Kashyap, Calciu, Cheng, Min & Kim, "Scalable and Practical Locking
 * with Shuffling", SOSP 2019 (§3 the shuffling idea, §4 the non-blocking and
 * blocking ShflLocks).  Queue steps: src/locks/mcs_queue.h; the TS word and
 * the head's impatience: include/locklab/ts_gate.h + src/locks/ts_standby.h
 * (shared with fissile).
 *
 * Words:
 *   gate.locked     the lock: 0 free, 1 held.  Acquire: CAS 0 -> 1; release:
 *                   a store of 0
 *   gate.impatient  1: the queue head has waited patience_ns; arrivals do not
 *                   barge (the paper's "no stealing" state)
 *   tail            the MCS queue of waiters: NULL none; node A the last
 * Node (a 128-B slot from the per-thread cache, held only inside acquire):
 *   mcs.waiting     1 keep waiting; 0 you are the queue head
 *   mcs.socket      the owner's socket (ll_current_socket: LOCKLAB_TOPOLOGY's
 *                   virtual sockets or the real ones)
 *   batch           how many same-socket waiters the current run of
 *                   shuffling has promoted up to and including this one
 * Acquire: barge on the gate (fast path).  Else enqueue and wait (per the
 * policy) to become the queue head.  The head, if the lock is held, shuffles
 * once: it walks the queue behind it and moves every waiter of its socket
 * (up to max_batch per run) to the group right behind itself, keeping the
 * order of both the moved and the skipped waiters.  Then it spins on the
 * gate until its CAS wins (raising impatient after patience_ns), and hands
 * the head role to its successor (the MCS release step, waking it if it
 * parked) before returning with the lock.  Release: store 0 to the gate.
 * Why shuffling is safe: only the head edits the queue, and it edits only
 * waiters' nodes it has seen linked (next != NULL), never the tail, the one
 * node an arrival may still write (its next); the head role -- and with it
 * the right to edit -- passes by the granting store, which publishes the
 * edits (release; mcs_queue.h).  A moved waiter stays wakeable: its parker
 * is in its node.
 * Memory orders: the MCS queue's (mcs_queue.h names each one's pair), the
 * gate's (ts_gate.h); the shuffler's relinks are relaxed stores of nodes it
 * alone may edit (ll_mcsq_set_next), and batch is a plain field written by a
 * head and read by its owner once granted (ordered by the grants between).
 * Choices (the paper leaves them open or tunes them per machine): the head
 * shuffles once, when it becomes head while the lock is held (the paper's
 * shuffler may go on while it waits, and pass the role on); max_batch = 128
 * (the paper bounds a socket's run by a tunable); the head's impatience is
 * time, patience_ns = 1 ms, as fissile's.  Parking (the paper's blocking
 * ShflLock): waiters behind the head wait per the policy; the head spins;
 * under stp the shuffler wakes the waiter it leaves right behind itself
 * (the next head), as the paper's shuffler wakes the waiters it moves up,
 * and each head hand-over also wakes the one after (mcs_queue.h's warm-up).
 *
 * Timed acquire (ll_shfl_acquire_until): the fast path, then the same slow
 * path with the deadline.  Behind the head, a timed waiter abandons its node
 * in place at the deadline (mcs_queue.h's abortable MCS: one CAS of its
 * waiting word; the node stays, the shuffler may move it like any other, and
 * the head whose grant -- an exchange -- finds it abandoned takes its place as
 * head and passes the role on again, recycling it).  As the head, it spins on
 * the gate until the deadline (ll_ts_gate_standby_until, which clears
 * `impatient` if it raised it) and then passes the head role on as an owner
 * would.  The race between a grant and a departure is decided by the exchange
 * against the CAS on the node's waiting word; at the gate, by the gate's CAS.
 * A timed waiter lets pass what any waiter does (below) until its deadline.
 *
 * Fairness: not FIFO.  A waiter is bypassed by barging arrivals (bounded by
 * the head's patience, as in fissile) and by same-socket waiters promoted
 * ahead of it: each run promotes at most max_batch, and only a waiter that
 * was ahead of it unpromoted can start a new run, so at most T x max_batch
 * promotions pass it (T threads): bounded bypass.
 * Footprint: 24 bytes per lock; one node (32 B, a 128-B slot from the
 * per-thread cache) per thread in the slow path, none while holding.
 * Policies: all (the queue waits per the policy; its head spins).
 */
#include <stddef.h>

#include "locklab/registry.h"
#include "locklab/shfl.h"
#include "mcs_queue.h"
#include "ts_standby.h"

LL_STATIC_ASSERT(sizeof(ll_shfl_node) <= LL_QNODE_USABLE, "node must fit a queue-node slot");
LL_STATIC_ASSERT(offsetof(ll_shfl_node, mcs) == 0, "the MCS prefix comes first");

#define SHFL(n) LL_MCSQ_OWNER(ll_shfl_node, n)

void ll_shfl_init(ll_shfl_lock *l, uint32_t max_batch, uint64_t patience_ns)
{
    ll_ts_gate_init(&l->gate);
    ll_store_relaxed(&l->tail, NULL); /* relaxed: like pthread_mutex_init, publish the lock yourself */
    l->max_batch = max_batch;
    l->patience_us = (uint32_t)(patience_ns / 1000u);
}

/* n's successor as linked so far (acquire: see ll_mcsq_next). */
LL_INLINE ll_shfl_node *shfl_next(ll_shfl_node *n) { return SHFL(ll_mcsq_next(&n->mcs)); }

/* The head groups the waiters of its socket right behind itself (header: why it is safe). */
static void shfl_shuffle(ll_shfl_node *head, uint32_t max_batch, ll_wait_policy *wp)
{
    uint32_t batch = head->batch;
    ll_shfl_node *last = head; /* the end of the same-socket group behind the head */
    ll_shfl_node *prev = head, *cur = shfl_next(head);
    while (cur != NULL && batch < max_batch) {
        ll_shfl_node *next = shfl_next(cur);
        if (next == NULL)
            break; /* cur may be the tail: an arrival may be linking into it */
        if (ll_plain_load(&cur->mcs.socket) == ll_plain_load(&head->mcs.socket)) {
            cur->batch = ++batch; /* plain: cur's owner reads it once granted (header) */
            if (prev != last) {   /* move cur from after prev to after last */
                ll_mcsq_set_next(&prev->mcs, &next->mcs);
                ll_mcsq_set_next(&cur->mcs, &shfl_next(last)->mcs);
                ll_mcsq_set_next(&last->mcs, &cur->mcs);
            } else {
                prev = cur;
            }
            last = cur;
        } else {
            prev = cur;
        }
        cur = next;
    }
    /* Parking-aware: wake the next head early, so that it spins when the role reaches it. */
    ll_shfl_node *succ = ll_wait_has_spin_phase(wp) ? shfl_next(head) : NULL;
    if (succ)
        ll_parker_unpark(ll_plain_load(&succ->mcs.parker));
}

/* Pass the head role on (plain MCS release steps; warm-up: the one after it); a successor
 * that had abandoned its node (a timed waiter gone) is skipped: we pass the role on in its
 * place and recycle it (mcs_queue.h).  Then me goes back to the cache. */
static void shfl_pass_head(ll_shfl_lock *l, ll_shfl_node *me, ll_wait_policy *wp)
{
    ll_mcs_node *mine = &me->mcs, *cur = mine;
    for (;;) {
        ll_mcs_node *succ = ll_mcsq_leave(&l->tail, cur);
        ll_mcsq_take_place(&cur, mine, succ); /* cur (if abandoned, not ours) is out of the queue */
        if (succ == NULL || ll_mcsq_grant(succ, 0, wp, ll_mcsq_warm_next(succ, wp)))
            break;
    }
    ll_qnode_put(me);
}

bool ll_shfl_acquire_until(ll_shfl_lock *l, ll_wait_policy *wp, uint64_t deadline_ns)
{
    if (ll_shfl_try_acquire(l))
        return true;
    ll_shfl_node *me = (ll_shfl_node *)ll_qnode_get();
    me->batch = 0; /* plain: published by the link store in ll_mcsq_link (or ours alone) */
    ll_mcs_node *pred = ll_mcsq_enqueue(&l->tail, &me->mcs);
    if (pred == NULL)
        ll_plain_store(&me->mcs.socket, (int32_t)ll_current_socket()); /* the queue was empty: head at once */
    else if (deadline_ns == LL_NO_DEADLINE)
        ll_mcsq_wait(&me->mcs, pred, 1, LL_MCSQ_RECORD_SOCKET, wp);
    else if (ll_mcsq_wait_until(&me->mcs, pred, 1, LL_MCSQ_RECORD_SOCKET, wp, deadline_ns) == LL_MCSQ_ABANDONED)
        return false; /* me is the queue's now (header) */
    /* We are the head.  The lock is held: use the wait to shuffle. */
    if (me->batch < l->max_batch && ll_ts_gate_is_locked(&l->gate))
        shfl_shuffle(me, l->max_batch, wp);
    bool owner = ll_ts_gate_standby_until(&l->gate, (uint64_t)l->patience_us * 1000u, wp, deadline_ns);
    shfl_pass_head(l, me, wp);
    return owner;
}

LL_COLD void ll_shfl_acquire_slow(ll_shfl_lock *l, ll_wait_policy *wp)
{
    ll_shfl_acquire_until(l, wp, LL_NO_DEADLINE);
}

/* ---- registry adapter ------------------------------------------------------------------- */

static const ll_param params[] = {
    {"max_batch", "same-socket waiters one run of shuffling may promote (0 = never shuffle: FIFO queue)", 0,
     1u << 30, LL_SHFL_DEFAULT_MAX_BATCH},
    {"patience_ns", "the queue head waits this long before arrivals stop barging, ns (microsecond resolution; 0 = at once)", 0,
     4000000000ull, LL_SHFL_DEFAULT_PATIENCE_NS},
    {NULL, NULL, 0, 0, 0},
};

LL_INIT_ADAPTER(ll_shfl_init((ll_shfl_lock *)s, (uint32_t)p[0], p[1]))
LL_LOCK_ADAPTERS(ll_shfl_lock, ll_shfl)

const ll_lock_ops ll_lock_shfl = {
    .name = "shfl", .source = "Kashyap et al. 2019 (ShflLock), SOSP",
    .summary = "TS lock + MCS queue of waiters; the queue head groups its socket's waiters behind itself off "
        "the critical path",
    .fairness = "none short-term (barging, bounded by the head's patience_ns); same socket first, <= max_batch per run",
    .policies = LL_ALL_POLICIES, .params = params,
    LL_OPS_STATE_IS(ll_shfl_lock), .waiter_bytes = sizeof(ll_shfl_node), .init = init, LL_OPS_VERBS,
};
