/*
 * fissile — Fissile lock: a test-and-set lock (the fast path) in front of a
 * CNA queue lock (the slow path), whose holder, the standby, is the only
 * waiter that contends for the test-and-set word; bypass of the standby by
 * barging arrivals is bounded by its patience.
 * Source: Dice & Kogan, "Fissile Locks", NETYS 2020 (arXiv 2003.05025), §3;
 * the inner lock is CNA (Dice & Kogan, EuroSys 2019), src/locks/cna.c, used
 * through its expert API.
 *
 * Words:
 *   gate.locked     the outer lock: 0 free, 1 held.  Acquire: CAS 0 -> 1;
 *                   release: a store of 0 (the fast paths are a TS lock's)
 *   gate.impatient  0 arrivals may barge; 1 the standby has waited
 *                   patience_ns: arrivals go to the slow path, so the next
 *                   release's 0 is the standby's to take.  Set and cleared by
 *                   the standby only (src/locks/ts_standby.h, shared with shfl)
 *   inner           the CNA lock: its tail (NULL = no standby, no queue)
 * Acquire: if !impatient, CAS locked 0 -> 1 (fast path).  Else (slow path):
 * acquire the inner CNA lock (a node from the per-thread cache; waiting per
 * the policy, socket-local successors first) -- we are the standby -- then
 * spin on locked (TTAS) until our CAS wins; after patience_ns, raise
 * impatient.  Once we own locked: clear impatient, release the inner lock
 * (CNA picks the next standby: a waiter on our socket if there is one),
 * return the node.  The inner hand-over happens while we hold the outer lock
 * but is not on its critical path: the release of `locked` is one store.
 * Memory orders: the gate's (include/locklab/ts_gate.h, src/locks/ts_standby.h:
 * a TS lock's acquire CAS and release store; impatient relaxed, it orders no
 * data) and CNA's own (cna.c).
 * Choices: the paper makes the patience a tunable without fixing its measure;
 * here it is time, patience_ns (default 1 ms: long against a handover, so the
 * TS fast path does most hand-overs under load, short against a scheduling
 * quantum).  The standby spins (global spinning on one word, one thread per
 * lock, as in the paper) through ll_wait_relax: it yields under the yield
 * policy; under policies that park, only the queue behind it parks.
 *
 * Timed acquire (ll_fissile_acquire_until): the fast path, then the same slow
 * path with the deadline: the inner CNA lock's abortable acquire (the timed
 * waiter abandons its CNA node in place, one CAS; the CNA holder whose grant
 * finds it releases again in its place: cna.c), then the standby's spin cut at
 * the deadline (ll_ts_gate_standby_until: it clears `impatient` if it raised it,
 * and leaves holding the inner lock, which it releases at once, passing the
 * standby role on as an owner would).  The race between a releaser and a
 * leaving waiter is decided by the grant's exchange against the abandoning CAS
 * (queue) or by the gate's CAS (standby: a standby that won it owns the lock).
 * A timed waiter lets pass what any waiter does (below) until its deadline.
 *
 * Fairness: not FIFO.  The standby is bypassed by barging arrivals for at
 * most patience_ns plus one barge per thread that had not yet seen the flag
 * (at most T-1); the queue behind it is CNA's (same socket first, other
 * sockets flushed with probability 2^-16 per hand-over or after 10 ms).  So
 * every waiter is admitted: bounded bypass.
 * Footprint: 24 bytes per lock (two words, CNA's one-word tail, patience);
 * one CNA node (48 B, a 128-B slot from the per-thread cache) per thread in
 * the slow path, none while holding.  Policies: all (the queue waits per the
 * policy; the standby spins).
 */
#include "locklab/fissile.h"
#include "locklab/registry.h"
#include "ts_standby.h"

void ll_fissile_init(ll_fissile_lock *l, uint64_t patience_ns)
{
    ll_ts_gate_init(&l->gate);
    ll_cna_init(&l->inner);
    l->patience_ns = patience_ns;
}

LL_COLD void ll_fissile_acquire_slow(ll_fissile_lock *l, ll_wait_policy *wp)
{
    ll_fissile_acquire_until(l, wp, LL_NO_DEADLINE);
}

bool ll_fissile_acquire_until(ll_fissile_lock *l, ll_wait_policy *wp, uint64_t deadline_ns)
{
    if (ll_fissile_try_acquire(l))
        return true;
    ll_cna_node *me = (ll_cna_node *)ll_qnode_get();
    if (!ll_cna_acquire_until(&l->inner, me, wp, deadline_ns))
        return false; /* me was abandoned in the CNA queue: it is the inner lock's now */
    /* We are the standby. */
    bool owner = ll_ts_gate_standby_until(&l->gate, l->patience_ns, wp, deadline_ns);
    ll_cna_release(&l->inner, me, wp); /* the next standby: CNA's choice */
    ll_qnode_put(me);
    return owner;
}

/* ---- registry adapter ------------------------------------------------------------------- */

static const ll_param params[] = {
    {"patience_ns", "the standby waits this long before arrivals stop barging, ns (0 = at once)", 0,
     10000000000ull, LL_FISSILE_DEFAULT_PATIENCE_NS},
    {NULL, NULL, 0, 0, 0},
};

LL_INIT_ADAPTER(ll_fissile_init((ll_fissile_lock *)s, p[0]))
LL_LOCK_ADAPTERS(ll_fissile_lock, ll_fissile)

const ll_lock_ops ll_lock_fissile = {
    .name = "fissile", .source = "Dice & Kogan 2020 (Fissile Locks), NETYS",
    .summary = "test-and-set fast path; a CNA queue whose head (the standby) alone contends for the TS word",
    .fairness = "none short-term (barging); the standby is bypassed at most patience_ns (1 ms) + T-1 barges; queue CNA",
    .policies = LL_ALL_POLICIES, .params = params,
    LL_OPS_STATE_IS(ll_fissile_lock), .waiter_bytes = sizeof(ll_cna_node), .init = init, LL_OPS_VERBS,
};
