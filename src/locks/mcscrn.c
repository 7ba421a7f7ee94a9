/*
 * mcscrn — NUMA-aware MCSCR: concurrency restriction that also keeps the
 * active circulating set on one "home" socket.
 * Source: Dice, "Malthusian Locks" (EuroSys 2017, extended version) §9.1
 * (MCSCRN is sketched there as future work: a home NUMA node, a list of
 * remote threads, culling of remote threads at unlock, a periodic change of
 * home node, reprovisioning from the remote list on a deficit).  This file's
 * design is ours; it builds on mcscr.c, whose comment explains the MCS/CR
 * mechanics (read that first).
 *
 * Lock words:
 *   tail == NULL        free (then both lists are empty)
 *   tail == node A      held; A is the last node of the MCS chain
 *   home                the preferred socket
 *   passive             culled surplus waiters whose socket == home (newest first)
 *   remote              culled waiters whose socket != home (newest first)
 * home and the two lists are plain fields, read and written only by the lock
 * holder (protected by the lock itself, as mcscr's passive set).  Invariant:
 * every passive node is of socket home, every remote node is not.
 * Node: mcscr's; the MCS prefix's `socket` holds the owner's
 * ll_current_socket(), recorded when it enqueues to wait (before it links
 * in, so the holder sees it).  Lock: mcscr's lock (`cr`: tail, passive
 * list, tunables) plus remote, home and rehome.
 *
 * Release (holder's node `me`, chain successor `succ`):
 *   1. nobody waiting (succ NULL, both lists empty): CAS tail me -> NULL.
 *   2. NUMA fairness: if the remote list is non-empty, with probability
 *      1/rehome (thread-local xorshift Bernoulli trial) rehome to the socket
 *      of the eldest remote waiter, and grant that waiter.  Rehoming to S:
 *      home = S; the whole passive list is prepended to the remote list (the
 *      old home's waiters are remote now; O(1)); then the remote list is
 *      scanned and the nodes of S are moved, in order, to the passive list
 *      (O(waiters), and rare).
 *   3. Intra-socket fairness: else with probability 1/fairness, if the
 *      passive list is non-empty, grant its eldest node (as mcscr).
 *      patience_ns (default 50000000 = 50 ms; 0 = off): as in mcscr, a culled
 *      node records ll_now_ns() (once per release that culls), and at each
 *      contended unlock "now" is the clock on 1 in 16 (a coin), else the
 *      newest timestamp in either list (free, never later than now): if the
 *      elder of the two eldest nodes (passive and remote, by timestamp) was culled
 *      patience_ns or more ago, it is served as in step 2 (remote: rehome to
 *      its socket first) or step 3 (passive), whatever the trials said.
 *      Steps 2-3 graft the chosen node in front of the chain: node.next =
 *      succ, or (chain empty) CAS tail me -> node, waiting for the racing
 *      arrival's link if the CAS fails.
 *   4. Cull: walking from succ, every node with a linked successor is moved
 *      out of the chain, to the passive list if it is of socket home (CR
 *      surplus), else to the remote list.  The last linked node L stays.
 *   5. Choose, preferring the home socket and threads that are likely
 *      spinning:  L of socket home -> grant L.  Else, passive non-empty ->
 *      graft its newest node in front of L (or make it the tail if there is
 *      no L; should an arrival beat that CAS, the node goes back and the
 *      arrival is considered instead, from step 4).  Else the home socket has
 *      run dry (no home waiter anywhere): rehome to L's socket and grant L,
 *      or, without L, rehome to the eldest remote waiter's socket and
 *      reprovision from the new passive list.
 *   defer_ns and warm (policies that park) work as in mcscr: before waking a
 *   parked passive thread in step 5 (to reprovision, or to serve it before a
 *   remote L), wait up to defer_ns once per release for an arrival (then
 *   back to step 4); when the granted thread is parked, also wake the newest
 *   passive thread early (stp/astp), and a spinning passive thread is served
 *   before a parked home L.
 *   Work conserving: tail goes to NULL only when no thread waits.  The MCS
 *   invariants are kept exactly as in mcscr (a culled node had a linked
 *   successor, so it is not the tail; a node leaves a list only to become
 *   the holder, in front of a linked chain or as the tail with its next
 *   cleared before the release CAS that publishes it).
 *
 * Effect: the active circulating set converges to a few threads of the home
 * socket; remote arrivals are culled as soon as someone queues behind them,
 * so the lock (and the data it protects) stays on one socket until a rehome
 * trial fires or the home socket runs out of waiters.  Unlike cohort locks
 * there is one small lock word per lock, no per-node lock, and the
 * uncontended path is plain MCS.
 *
 * Fairness: not FIFO; short-term unfair by design.  Long-term: while any
 * thread is listed, every unlock is a Bernoulli trial.  A rehome trial
 * (1/rehome) serves the eldest remote waiter, and the remote list is only
 * pushed at its newest end, so a remote waiter's distance from the eldest
 * end never grows: it is served after ~rehome x its rank unlocks at most
 * (sooner if the home socket runs dry).  A passive waiter is served by a
 * fairness trial (1/fairness) once it is the eldest, by reprovisioning, or
 * becomes remote when home moves away (then the above applies).
 * No starvation.  With patience_ns, also a time bound: the eldest waiter of
 * either list is served about patience_ns after it was culled (plus ~16
 * unlocks for the coin), so a listed thread waits at most roughly (its rank
 * from the eldest ends + 1) x patience_ns, i.e. up to about (passive + remote
 * size) x patience_ns in the worst case; a rehome can move a passive waiter
 * to the remote list's newest end, restarting its rank but not its timestamp.
 * Not a hard bound: a coin, not a timer.
 * Defaults: fairness 1000, rehome 1000, defer_ns 25000, warm 1, patience_ns 50 ms.
 * With one socket (home 0, nothing remote) it behaves exactly as mcscr.
 * Footprint: 64 bytes per lock; one node (48 B, a 128-B slot from the
 * per-thread cache) per waiting or holding thread.  Policies: all (waiting
 * is local, on one's own node; culled threads spin, then park under stp).
 * try_acquire: as MCS (tail is NULL only when nobody waits).
 * Timed acquire: abortable, as mcscr's (mcscr.c, "Timed acquire").
 * Code: this design is mcscr's release with a NUMA extension, so there is
 * one implementation of both: src/locks/passive_set.h (lists, culling,
 * patience, grants, the release loop; the steps above are its x != NULL
 * branches), instantiated once in mcscr.c (ll_mcscr_release_contended).
 * The queue steps and their memory orders: src/locks/mcs_queue.h.
 */
#include "locklab/registry.h"
#include "passive_set.h"

void ll_mcscrn_init(ll_mcscrn_lock *l, uint32_t fairness, uint32_t rehome, uint32_t defer_ns, uint32_t warm,
                    uint32_t patience_ns)
{
    ll_mcscr_init(&l->cr, fairness, defer_ns, warm, patience_ns, 0, 1); /* cpu_aware, hysteresis: mcscr only (mcscr.c) */
    l->remote.newest = l->remote.eldest = NULL;
    l->home = 0;
    l->rehome = rehome ? rehome : 1;
}

/* Acquire: MCS (mcs_queue.h, memory orders explained there), recording the socket when waiting. */
void ll_mcscrn_acquire(ll_mcscrn_lock *l, ll_mcscrn_node *me, ll_wait_policy *wp)
{
    ll_mcsq_acquire(&l->cr.tail, &me->mcs, 1, LL_MCSQ_RECORD_SOCKET, wp);
}

/* Try: as MCS (tail NULL -> me), in this file so that the direct verbs inline it. */
bool ll_mcscrn_try_acquire(ll_mcscrn_lock *l, ll_mcscrn_node *me) { return ll_mcsq_try_enqueue(&l->cr.tail, &me->mcs); }

/* Timed acquire: the same, abandoning the node at the deadline (mcs_queue.h, "timed acquire";
 * the release passes over abandoned nodes: ll_mcscr_release_contended). */
bool ll_mcscrn_acquire_until(ll_mcscrn_lock *l, ll_mcscrn_node *me, ll_wait_policy *wp, uint64_t deadline_ns)
{
    return ll_mcsq_acquire_until(&l->cr.tail, &me->mcs, 1, LL_MCSQ_RECORD_SOCKET, wp, deadline_ns);
}

/* Release: mcscr's, with the NUMA extension (passive_set.h; steps 2-5 in mcscr.c's
 * ll_mcscr_release_contended). */
void ll_mcscrn_release(ll_mcscrn_lock *l, ll_mcscrn_node *me, ll_wait_policy *wp) { cr_release(&l->cr, l, me, wp); }

/* Generic handle: the holder's node is remembered in the lock (written only by the holder). */
typedef struct { ll_mcscrn_lock lock; ll_mcscrn_node *holder; } mcscrn_state;

static const ll_param params[] = CR_PARAMS(
    "1/N chance per contended unlock to hand over to the eldest passive (home) thread",
    "before waking a parked thread to serve it, wait up to this long for a spinning arrival (0 = never)",
    "locklab extension: also serve the eldest passive or remote thread once it has waited this long "
    "(0 = off; worst case about (passive + remote) x this)",
    /* no cpu_aware key (mcscr only) */,
    /* after fairness: */ {"rehome", "1/N chance per contended unlock to move home to the eldest remote thread's "
                                     "socket", 1, 1u << 30, LL_MCSCRN_DEFAULT_REHOME}, );
LL_INIT_ADAPTER(ll_mcscrn_init(&((mcscrn_state *)s)->lock, (uint32_t)p[0], (uint32_t)p[1], (uint32_t)p[2],
                               (uint32_t)p[3], (uint32_t)p[4]))
LL_MCSQ_LOCK_ADAPTERS(mcscrn_state, ll_mcscrn_node, ll_mcscrn)

const ll_lock_ops ll_lock_mcscrn = {
    .name = "mcscrn", .source = "Dice 2017 (Malthusian Locks) §9.1 (design ours)",
    .summary = "NUMA-aware MCSCR: culls surplus and other-socket waiters, prefers a home socket",
    .fairness = "CR: short-term unfair; home socket changes w.p. 1/rehome, eldest passive served w.p. 1/fairness; "
        "eldest waiter served after patience_ns",
    .policies = LL_ALL_POLICIES, .params = params,
    LL_MCSQ_OPS(mcscrn_state, ll_mcscrn_lock, ll_mcscrn_node),
};
