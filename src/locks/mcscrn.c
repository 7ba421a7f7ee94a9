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
 * Node: as mcscr, plus `socket`, the owner's ll_current_socket() recorded
 * when it enqueues to wait (before it links in, so the holder sees it).
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
 */
#include "locklab/mcscrn.h"
#include "locklab/registry.h"

LL_STATIC_ASSERT(sizeof(ll_mcscrn_node) <= LL_QNODE_USABLE, "node must fit a queue-node slot");

void ll_mcscrn_init(ll_mcscrn_lock *l, uint32_t fairness, uint32_t rehome, uint32_t defer_ns, uint32_t warm,
                    uint32_t patience_ns)
{
    ll_store_relaxed(&l->tail, NULL); /* relaxed: like pthread_mutex_init, publish the lock yourself */
    l->passive.newest = l->passive.eldest = NULL;
    l->remote.newest = l->remote.eldest = NULL;
    l->home = 0;
    l->fairness = fairness ? fairness : 1;
    l->rehome = rehome ? rehome : 1;
    l->defer_ns = defer_ns;
    l->warm = warm ? 1 : 0;
    l->patience_ns = patience_ns;
}

LL_COLD static void mcscrn_wait(ll_mcscrn_node *me, ll_mcscrn_node *pred, ll_wait_policy *wp)
{
    me->parker = ll_self()->parker;
    me->socket = (int32_t)ll_current_socket();
    ll_store_relaxed(&me->waiting, 1); /* only a granting holder clears it, after it sees the link below */
    ll_store_release(&pred->next, me); /* release: our node's fields before the holder may see us */
    ll_wait_while_eq(wp, &me->waiting, 1, me->parker);
}

void ll_mcscrn_acquire(ll_mcscrn_lock *l, ll_mcscrn_node *me, ll_wait_policy *wp)
{
    ll_store_relaxed(&me->next, NULL); /* relaxed: published by the release swap/CAS on tail */
    /* acq_rel: acquire the previous holder's writes (if tail was NULL); release our node's init */
    ll_mcscrn_node *pred = (ll_mcscrn_node *)ll_xchg(&l->tail, me, LL_ACQ_REL);
    if (LL_UNLIKELY(pred != NULL))
        mcscrn_wait(me, pred, wp);
}

bool ll_mcscrn_try_acquire(ll_mcscrn_lock *l, ll_mcscrn_node *me)
{
    ll_store_relaxed(&me->next, NULL); /* relaxed: published by the release swap/CAS on tail */
    void *expected = NULL;
    return ll_cas(&l->tail, &expected, me, LL_ACQ_REL); /* acq_rel: as in acquire */
}

/* ---- the passive and remote lists (holder only, plain accesses) ---------------------- */

static void list_push_newest(ll_mcscrn_list *q, ll_mcscrn_node *n)
{
    n->newer = NULL;
    n->older = q->newest;
    if (q->newest)
        q->newest->newer = n;
    else
        q->eldest = n;
    q->newest = n;
}

static void list_push_eldest(ll_mcscrn_list *q, ll_mcscrn_node *n)
{
    n->older = NULL;
    n->newer = q->eldest;
    if (q->eldest)
        q->eldest->older = n;
    else
        q->newest = n;
    q->eldest = n;
}

static void list_unlink(ll_mcscrn_list *q, ll_mcscrn_node *n)
{
    if (n->newer)
        n->newer->older = n->older;
    else
        q->newest = n->older;
    if (n->older)
        n->older->newer = n->newer;
    else
        q->eldest = n->newer;
}

static ll_mcscrn_node *list_take_newest(ll_mcscrn_list *q)
{
    ll_mcscrn_node *n = q->newest;
    list_unlink(q, n);
    return n;
}

static ll_mcscrn_node *list_take_eldest(ll_mcscrn_list *q)
{
    ll_mcscrn_node *n = q->eldest;
    list_unlink(q, n);
    return n;
}

/* Move home to socket s: the passive list joins the remote list (at its newest
 * end), then the remote nodes of s move, in order, to the passive list. */
static void rehome(ll_mcscrn_lock *l, int32_t s)
{
    l->home = s;
    if (l->passive.newest) {
        if (l->remote.newest) {
            l->passive.eldest->older = l->remote.newest;
            l->remote.newest->newer = l->passive.eldest;
            l->remote.newest = l->passive.newest;
        } else {
            l->remote = l->passive;
        }
        l->passive.newest = l->passive.eldest = NULL;
    }
    ll_mcscrn_node *n = l->remote.newest;
    while (n) {
        ll_mcscrn_node *older = n->older;
        if (n->socket == s) {
            list_unlink(&l->remote, n);
            list_push_eldest(&l->passive, n); /* scanning newest to eldest: order kept */
        }
        n = older;
    }
}

/* Cull n into the passive or the remote list; *now is the release's one clock
 * reading for patience_ns (0 = not read yet). */
static void cull(ll_mcscrn_lock *l, ll_mcscrn_node *n, uint64_t *now)
{
    if (l->patience_ns != 0 && *now == 0)
        *now = ll_now_ns();
    n->since = *now;
    list_push_newest(n->socket == l->home ? &l->passive : &l->remote, n);
}

/* patience_ns: the elder of the passive and the remote eldest nodes if it has
 * waited that long, else NULL.  The clock is read on 1 in 16 calls only (a
 * thread-local coin); the other calls use the newest timestamp of either list,
 * the last cull's clock reading, which is free and never later than now. */
static ll_mcscrn_node *overdue(ll_mcscrn_lock *l)
{
    if (l->patience_ns == 0)
        return NULL;
    ll_mcscrn_node *p = l->passive.eldest, *r = l->remote.eldest;
    ll_mcscrn_node *e = (p == NULL || (r != NULL && r->since < p->since)) ? r : p;
    if (e == NULL)
        return NULL;
    uint64_t now;
    if ((ll_rand() & 15) == 0) {
        now = ll_now_ns();
    } else {
        uint64_t pn = l->passive.newest ? l->passive.newest->since : 0;
        uint64_t rn = l->remote.newest ? l->remote.newest->since : 0;
        now = pn > rn ? pn : rn;
    }
    return (now > e->since && now - e->since >= l->patience_ns) ? e : NULL;
}

/* ---- release ------------------------------------------------------------------------- */

/* Make listed node g the last node of the chain in place of me (the chain
 * behind me is empty).  False if an arrival swapped into tail first. */
static bool become_tail(ll_mcscrn_lock *l, ll_mcscrn_node *me, ll_mcscrn_node *g)
{
    ll_store_relaxed(&g->next, NULL); /* published to the next arrival by the release CAS below */
    void *expected = me;
    return ll_cas(&l->tail, &expected, g, LL_RELEASE); /* release: g's cleared next before anyone links into g */
}

/* Is n's owner parked (or about to)?  Then granting it costs a wake-up inside the critical path. */
static bool parked(ll_mcscrn_node *n) { return ll_parker_sleeping(n->parker); }

static void grant(ll_mcscrn_node *n, ll_wait_policy *wp)
{
    ll_parker *p = ll_wait_wakee(wp, n->parker);         /* read before the handover: n may be reused right after it */
    ll_store_release(&n->waiting, 0); /* release: hand over the critical section, list edits, n->next */
    ll_wake(p);
}

/* Grant g.  If g is parked, its wake-up is now inside the critical path, and
 * the next arrival will likely time out and park behind it (a convoy of parked
 * handovers): so also wake the newest passive thread early (as mcscr). */
static void grant_and_warm(ll_mcscrn_lock *l, ll_mcscrn_node *g, ll_wait_policy *wp)
{
    ll_parker *warm = NULL;
    if (l->warm && wp->ops->has_budget && parked(g) && l->passive.newest != NULL && parked(l->passive.newest))
        warm = l->passive.newest->parker; /* read before the grant: the lists belong to the next holder after it */
    grant(g, wp);
    if (warm)
        ll_parker_unpark(warm); /* early: it re-checks its node, spins, and may park again */
}

/* Grant listed node g in front of the chain (succ = our successor, or NULL). */
static void graft_and_grant(ll_mcscrn_lock *l, ll_mcscrn_node *me, ll_mcscrn_node *g, ll_mcscrn_node *succ,
                            ll_wait_policy *wp)
{
    if (succ == NULL && !become_tail(l, me, g))
        succ = (ll_mcscrn_node *)ll_await_link(&me->next);
    if (succ != NULL)
        ll_store_relaxed(&g->next, succ); /* g is private to us until the grant's release */
    grant_and_warm(l, g, wp);
}

LL_COLD static void mcscrn_release_contended(ll_mcscrn_lock *l, ll_mcscrn_node *me, ll_mcscrn_node *succ,
                                             ll_wait_policy *wp)
{
    ll_mcscrn_node *late = overdue(l); /* patience_ns: NULL, or an eldest node to serve now */
    if (l->remote.eldest != NULL && (late == l->remote.eldest || ll_rand_below(l->rehome) == 0)) {
        /* NUMA fairness: home moves to the eldest remote waiter, which goes next
         * (it is the new passive list's eldest: rehome keeps the remote order). */
        rehome(l, l->remote.eldest->socket);
        graft_and_grant(l, me, list_take_eldest(&l->passive), succ, wp);
        return;
    }
    if (l->passive.eldest != NULL && (late == l->passive.eldest || ll_rand_below(l->fairness) == 0)) {
        /* Long-term fairness within the home socket. */
        graft_and_grant(l, me, list_take_eldest(&l->passive), succ, wp);
        return;
    }
    bool may_defer = wp->ops->may_park && l->defer_ns != 0;
    bool warm = l->warm && wp->ops->has_budget; /* a warmed thread must have a spin phase to be useful */
    uint64_t now = 0;                           /* clock reading for culled nodes, taken at most once */
    for (;;) {
        if (succ != NULL) {
            /* Cull every node with a linked successor: surplus if home, remote otherwise. */
            ll_mcscrn_node *next;
            while ((next = (ll_mcscrn_node *)ll_load_acquire(&succ->next)) != NULL) { /* acquire: pairs with the link store */
                cull(l, succ, &now);
                succ = next;
            }
            if (succ->socket == l->home) {
                if (warm && l->passive.newest != NULL && parked(succ) && !parked(l->passive.newest)) {
                    /* Serve a spinning passive thread rather than a parked successor, which
                     * stays at the head of the chain (culled once someone queues behind it). */
                    ll_mcscrn_node *g = list_take_newest(&l->passive);
                    ll_store_relaxed(&g->next, succ); /* g is private to us until the grant's release */
                    grant(g, wp);
                    return;
                }
                grant_and_warm(l, succ, wp);
                return;
            }
            if (l->passive.newest == NULL) {
                rehome(l, succ->socket); /* the home socket ran dry */
                grant_and_warm(l, succ, wp);
                return;
            }
            if (may_defer && parked(l->passive.newest)) {
                /* Rather than wake a parked home thread, wait briefly for an arrival behind succ. */
                may_defer = false;
                if ((next = (ll_mcscrn_node *)ll_await_link_for(&succ->next, l->defer_ns)) != NULL)
                    continue; /* succ has a successor now: it will be culled */
            }
            /* A home waiter goes before the remote one, which stays at the chain's head. */
            ll_mcscrn_node *g = list_take_newest(&l->passive);
            ll_store_relaxed(&g->next, succ); /* g is private to us until the grant's release */
            grant_and_warm(l, g, wp);
            return;
        }
        /* Deficit: the chain is empty; reprovision, from the home socket if possible. */
        if (may_defer && parked(l->passive.newest ? l->passive.newest : l->remote.eldest)) {
            /* Waking a parked thread costs more than waiting briefly for an arrival
             * (an active thread coming back from its non-critical section). */
            may_defer = false;
            if ((succ = (ll_mcscrn_node *)ll_await_link_for(&me->next, l->defer_ns)) != NULL)
                continue;
        }
        if (l->passive.newest == NULL)
            rehome(l, l->remote.eldest->socket); /* the home socket ran dry (remote is non-empty here) */
        ll_mcscrn_node *g = list_take_newest(&l->passive);
        if (become_tail(l, me, g)) {
            grant_and_warm(l, g, wp);
            return;
        }
        list_push_newest(&l->passive, g); /* an arrival raced in: consider it first; g stays passive */
        succ = (ll_mcscrn_node *)ll_await_link(&me->next);
    }
}

void ll_mcscrn_release(ll_mcscrn_lock *l, ll_mcscrn_node *me, ll_wait_policy *wp)
{
    ll_mcscrn_node *succ = (ll_mcscrn_node *)ll_load_acquire(&me->next); /* acquire: pairs with the link store */
    if (LL_LIKELY(succ == NULL && l->passive.newest == NULL && l->remote.newest == NULL)) {
        void *expected = me;
        if (ll_cas(&l->tail, &expected, NULL, LL_RELEASE)) /* release: publish the critical section */
            return;
        succ = (ll_mcscrn_node *)ll_await_link(&me->next);
    }
    mcscrn_release_contended(l, me, succ, wp);
}

/* Generic handle: the holder's node is remembered in the lock (written only by the holder). */
typedef struct { ll_mcscrn_lock lock; ll_mcscrn_node *holder; } mcscrn_state;

static const ll_param params[] = {
    {"fairness", "1/N chance per contended unlock to hand over to the eldest passive (home) thread", 1, 1u << 30,
     LL_MCSCRN_DEFAULT_FAIRNESS},
    {"rehome", "1/N chance per contended unlock to move home to the eldest remote thread's socket", 1, 1u << 30,
     LL_MCSCRN_DEFAULT_REHOME},
    {"defer_ns", "before waking a parked thread to serve it, wait up to this long for a spinning arrival (0 = never)",
     0, 1000000, LL_MCSCRN_DEFAULT_DEFER_NS},
    {"warm", "1: when handing over to a parked thread, wake the newest passive one early; serve spinning ones first",
     0, 1, 1},
    {"patience_ns", "locklab extension: also serve the eldest passive or remote thread once it has waited this long "
                    "(0 = off; worst case about (passive + remote) x this)",
     0, 4000000000u, LL_MCSCRN_DEFAULT_PATIENCE_NS},
    {NULL, NULL, 0, 0, 0},
};
static int init(void *s, const uint64_t *p, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    ll_mcscrn_init(&((mcscrn_state *)s)->lock, (uint32_t)p[0], (uint32_t)p[1], (uint32_t)p[2], (uint32_t)p[3],
                   (uint32_t)p[4]);
    return 0;
}
LL_QUEUE_LOCK_ADAPTER(mcscrn_state, ll_mcscrn_node, ll_mcscrn)

const ll_lock_ops ll_lock_mcscrn = {
    "mcscrn", "Dice 2017 (Malthusian Locks) §9.1 (design ours)",
    "NUMA-aware MCSCR: culls surplus and other-socket waiters, prefers a home socket",
    "CR: short-term unfair; home socket changes w.p. 1/rehome, eldest passive served w.p. 1/fairness; "
    "eldest waiter served after patience_ns",
    LL_ALL_POLICIES, params, sizeof(mcscrn_state), sizeof(ll_mcscrn_lock), sizeof(ll_mcscrn_node),
    init, NULL, acquire, try_acquire, release,
};
