/*
 * hmcs — hierarchical MCS lock, two levels (socket, machine).
 * Source: Chabbi, Fagan & Mellor-Crummey, "High performance locks for
 * multi-level NUMA systems", PPoPP 2015 (HMCS); the hierarchical baseline of
 * Dice & Kogan, "Compact NUMA-aware Locks", EuroSys 2019, §2 and §7; lock cohorting (Dice, Marathe &
 * Shavit 2015) is the same idea with other lock types.
 *
 * Structure: one MCS queue per socket (allocated at init for
 * ll_topology_sockets() sockets) and one global MCS lock whose queue nodes are
 * the sockets' embedded global_node (one per socket, used only by that socket's
 * current cohort head).  A thread acquires its socket's lock, then, unless its
 * socket predecessor passed it the global lock as well, the global lock.  With
 * one socket there is one level: the socket lock alone excludes every thread,
 * and the global lock is never taken (nor the caller's CPU asked for its socket).
 *
 * Words:
 *   socket tail   NULL = no thread of this socket holds or awaits the lock;
 *                 node A = A is the last node of the socket queue
 *   global tail   NULL = free; node G = G (a socket's global_node) is last
 * Node word (status: the MCS prefix's waiting word, mcs.waiting), written
 * once by the socket predecessor:
 *   WAIT (0)            keep waiting
 *   k in 1..threshold   you hold the lock (socket and global); k-th consecutive
 *                       holder from this socket
 *   ACQUIRE_PARENT      you hold the socket lock; go acquire the global lock
 *                       (one socket: you hold the lock)
 * One socket: every step below that names the global lock is left out (the
 * release grants k + 1 or ACQUIRE_PARENT and frees the socket tail, a try has
 * no undo, a timed waiter leaves only the socket queue).
 * Release: if k < threshold and a socket successor is linked, grant it k+1 (the
 * global lock stays with the socket: a cohort handoff).  Otherwise release the
 * global lock (MCS handoff to the next socket in line), then the socket lock:
 * CAS the socket tail to NULL or grant the successor ACQUIRE_PARENT.  The
 * global node is released before the socket lock, so the next cohort head on
 * this socket never reuses it while the MCS release still reads it.
 *
 * Fairness: FIFO within a socket; sockets are served FIFO by the global lock,
 * and a socket keeps the lock for at most `threshold` consecutive holders
 * (default 64), so no thread starves: a waiter waits at most
 * (its socket-queue position + (sockets - 1) * threshold) holders.
 * Footprint (large): sizeof(ll_hmcs_lock) = 256 B in the handle (read-only
 * fields and the global tail on separate sectors) + 256 B per socket (socket
 * tail and global node on separate sectors), i.e. 768 B with 2 sockets, 1280 B
 * with 4; the generic handle adds a 128-B sector for the holder's node and
 * socket.  One node (24 B, a 128-B slot from the per-thread cache) per thread
 * waiting or holding.  Uncontended acquire costs two atomic swaps (socket,
 * global) and release two CASes; with one socket a CAS each (the try's, which
 * the interposer's direct path takes, or acquire's swap).
 * Policies: all (socket waiters wait on their own node through the policy;
 * a cohort head waits for the global lock through mcs, which parks likewise).
 * try_acquire: if the global lock looks free, CAS the socket tail NULL -> self,
 * then try the global lock; if that fails, release the socket lock again (a
 * socket waiter that queued in between is told to acquire the global lock
 * itself) and report failure.  Caveat: that undo waits for such a waiter to
 * link itself behind us, so if it was preempted in that window try_acquire
 * blocks until it runs again (the pre-check makes the window rare).
 * Timed acquire (ll_hmcs_acquire_until): abortable at both levels.  A socket
 * waiter abandons its node at its deadline (mcs_queue.h, "timed acquire"); the
 * holder that grants it finds it abandoned and carries on in its place: with a
 * cohort count, it releases both locks as that node (ll_hmcs_release loops);
 * with ACQUIRE_PARENT, it releases the socket lock again.  A timed cohort head
 * waits for the global lock with a cache node instead of the socket's
 * global_node (recorded in global_holder, which the cohort passes on), so that
 * at its deadline the node stays abandoned in the global queue while the
 * socket lock passes to the next socket waiter.  A timed waiter gets the bound
 * above, like any waiter.
 * Release order: the global lock first, then the socket lock, so the socket's
 * global node is never reused while still queued.  The socket release is thus
 * a touch of the lock after it became available to another socket: destroy
 * waits until every socket queue is empty before it frees them.
 * Code: both levels are the shared MCS queue (src/locks/mcs_queue.h; memory
 * orders explained there): the socket queues with busy = LL_HMCS_WAIT, the
 * global lock through ll_mcs_*.
 */
#include <stdio.h>
#include <stdlib.h>

#include "locklab/hmcs.h"
#include "locklab/registry.h"
#include "mcs_queue.h"

LL_STATIC_ASSERT(sizeof(ll_hmcs_node) <= LL_QNODE_USABLE, "node must fit a queue-node slot");
LL_STATIC_ASSERT(offsetof(ll_hmcs_node, mcs) == 0, "the MCS prefix comes first");

int ll_hmcs_init(ll_hmcs_lock *l, uint32_t nsockets, uint32_t threshold)
{
    if (nsockets == 0)
        nsockets = (uint32_t)ll_topology_sockets();
    void *mem = NULL;
    if (posix_memalign(&mem, LL_SECTOR, (size_t)nsockets * sizeof(ll_hmcs_socket)) != 0)
        return -1;
    l->sockets = (ll_hmcs_socket *)mem;
    for (uint32_t i = 0; i < nsockets; i++) {
        ll_store_relaxed(&l->sockets[i].tail, NULL); /* relaxed: like pthread_mutex_init, publish the lock yourself */
        ll_store_relaxed(&l->sockets[i].global_node.next, NULL); /* relaxed: as above */
        ll_store_relaxed(&l->sockets[i].global_node.waiting, 0); /* relaxed: as above */
        ll_plain_store(&l->sockets[i].global_node.parker, NULL);
        l->sockets[i].global_holder = &l->sockets[i].global_node;
    }
    l->nsockets = nsockets;
    l->threshold = threshold ? threshold : 1;
    ll_store_relaxed(&l->global.tail, NULL); /* relaxed: as above */
    return 0;
}

void ll_hmcs_destroy(ll_hmcs_lock *l)
{
    /* A releaser that handed the global lock to another socket may still be
     * finishing its socket release (see the header comment): wait for it. */
    uint32_t steps = 0;
    for (uint32_t i = 0; i < l->nsockets; i++)
        /* acquire: the releaser's last touches of the socket; pairs with the release CAS that
         * frees the socket tail (ll_mcsq_pass_tail, from hmcs_release_socket) */
        while (ll_load_acquire(&l->sockets[i].tail) != NULL) {
            ll_yield();
            ll_spin_steps(&steps, LL_STEPS_PER_YIELD); /* a real-time caller sleeps (wait.h) */
        }
    free(l->sockets);
    l->sockets = NULL;
}

uint32_t ll_hmcs_socket_of_caller(const ll_hmcs_lock *l)
{
    if (l->nsockets == 1)
        return 0; /* one socket: no need to ask which CPU we run on (sched_getcpu) */
    uint32_t s = (uint32_t)ll_current_socket();
    return s < l->nsockets ? s : s % l->nsockets; /* topology reconfigured since init: fold */
}

void ll_hmcs_acquire(ll_hmcs_lock *l, ll_hmcs_node *me, uint32_t socket, ll_wait_policy *wp)
{
    ll_hmcs_socket *s = &l->sockets[socket];
    ll_mcs_node *pred = ll_mcsq_enqueue(&s->tail, &me->mcs); /* orders: see mcs_queue.h */
    if (LL_UNLIKELY(pred != NULL) &&
        ll_mcsq_wait(&me->mcs, pred, LL_HMCS_WAIT, LL_MCSQ_PLAIN, wp) != LL_HMCS_ACQUIRE_PARENT)
        return; /* cohort handoff: the global lock came with the socket lock */
    ll_store_relaxed(&me->mcs.waiting, 1); /* relaxed: our own word from now on; first of a cohort */
    if (l->nsockets == 1)
        return; /* one level: the socket lock excludes everyone */
    ll_mcs_acquire(&l->global, &s->global_node, wp);
    s->global_holder = &s->global_node; /* holder-only, passed on with the cohort */
}

/* Grant succ the status (a cohort count, or ACQUIRE_PARENT), with the plain MCS
 * anticipatory warm-up of the next socket waiter under stp/astp, as in mcs.  False:
 * succ was abandoned by a timed waiter; we hold what it was granted, in its place. */
static bool hmcs_grant(ll_mcs_node *succ, uint32_t status, ll_wait_policy *wp)
{
    return ll_mcsq_grant(succ, status, wp, ll_mcsq_warm_next(succ, wp));
}

/* Release the socket lock alone (the global lock is not ours, or no longer), held through
 * cur, our own node being mine (ll_mcsq_take_place): a successor that abandoned its node
 * is passed over (we release the socket lock again in its place).  passed: our pass of the
 * tail to NULL already failed (ll_hmcs_release): an arrival is linking behind cur. */
static void hmcs_release_socket(ll_hmcs_socket *s, ll_mcs_node *cur, ll_mcs_node *mine, bool passed,
                                ll_wait_policy *wp)
{
    for (;;) {
        /* Freeing the socket tail (release CAS in ll_mcsq_pass_tail) also orders our last
         * use of the socket's global node before the next cohort head's reuse of it. */
        ll_mcs_node *succ = passed ? ll_mcsq_await_next(cur) : ll_mcsq_leave(&s->tail, cur);
        passed = false;
        ll_mcsq_take_place(&cur, mine, succ);
        if (succ == NULL || hmcs_grant(succ, LL_HMCS_ACQUIRE_PARENT, wp))
            return;
    }
}

/* Release the global lock, held through s->global_holder (a timed head's node is recycled). */
static void hmcs_release_global(ll_hmcs_lock *l, ll_hmcs_socket *s, ll_wait_policy *wp)
{
    ll_mcs_node *g = s->global_holder;
    ll_mcs_release(&l->global, g, wp);
    if (g != &s->global_node)
        ll_qnode_put(g);
}

bool ll_hmcs_acquire_until(ll_hmcs_lock *l, ll_hmcs_node *me, uint32_t socket, ll_wait_policy *wp,
                           uint64_t deadline_ns)
{
    ll_hmcs_socket *s = &l->sockets[socket];
    ll_mcs_node *pred = ll_mcsq_enqueue(&s->tail, &me->mcs); /* orders: see mcs_queue.h */
    if (pred != NULL) {
        uint32_t v = ll_mcsq_wait_until(&me->mcs, pred, LL_HMCS_WAIT, LL_MCSQ_PLAIN, wp, deadline_ns);
        if (v == LL_MCSQ_ABANDONED)
            return false; /* me is the socket queue's now */
        if (v != LL_HMCS_ACQUIRE_PARENT)
            return true; /* cohort handoff */
    }
    ll_store_relaxed(&me->mcs.waiting, 1); /* relaxed: our own word from now on; first of a cohort */
    if (l->nsockets == 1)
        return true; /* one level (ll_hmcs_acquire) */
    /* A cache node, not the socket's global_node: at the deadline it stays abandoned in the
     * global queue while the socket lock (and with it global_node) passes on. */
    ll_mcs_node *g = (ll_mcs_node *)ll_qnode_get();
    if (!ll_mcs_acquire_until(&l->global, g, wp, deadline_ns)) {
        hmcs_release_socket(s, &me->mcs, &me->mcs, false, wp); /* the next socket waiter acquires the global lock */
        ll_qnode_put(me);
        return false;
    }
    s->global_holder = g; /* holder-only, passed on with the cohort */
    return true;
}

/* The socket lock's try, as the first of a cohort (the whole try on one socket). */
static inline bool hmcs_try_socket(ll_hmcs_socket *s, ll_hmcs_node *me)
{
    if (!ll_mcsq_try_enqueue(&s->tail, &me->mcs)) /* acq_rel CAS: see mcs_queue.h */
        return false;
    ll_store_relaxed(&me->mcs.waiting, 1); /* relaxed: our own word */
    return true;
}

bool ll_hmcs_try_acquire(ll_hmcs_lock *l, ll_hmcs_node *me, uint32_t socket, ll_wait_policy *wp)
{
    ll_hmcs_socket *s = &l->sockets[socket];
    if (l->nsockets > 1 && ll_load_relaxed(&l->global.tail) != NULL) /* relaxed: a hint that shrinks the undo window */
        return false;
    if (!hmcs_try_socket(s, me))
        return false;
    if (l->nsockets == 1)
        return true; /* one level (ll_hmcs_acquire) */
    if (ll_mcs_try_acquire(&l->global, &s->global_node)) {
        s->global_holder = &s->global_node; /* holder-only, passed on with the cohort */
        return true;
    }
    /* undo: a socket waiter that queued meanwhile takes the global lock itself */
    hmcs_release_socket(s, &me->mcs, &me->mcs, false, wp);
    return false;
}

/* The release (passed: one level, and ll_hmcs_release's pass of the tail failed). */
static __attribute__((noinline)) void hmcs_release_slow(ll_hmcs_lock *l, ll_hmcs_node *me, uint32_t socket,
                                                        bool passed, ll_wait_policy *wp)
{
    ll_hmcs_socket *s = &l->sockets[socket];
    ll_mcs_node *mine = &me->mcs, *cur = mine;
    if (passed) { /* nobody was linked behind us: as the loop below, which then leaves */
        hmcs_release_socket(s, mine, mine, true, wp);
        return;
    }
    for (;;) {
        uint32_t k = ll_load_relaxed(&cur->waiting); /* relaxed: our own word (granted with acquire, or set by us) */
        ll_mcs_node *succ = k < l->threshold ? ll_mcsq_next(cur) : NULL; /* acquire: pairs with the link store in ll_mcsq_link */
        if (succ == NULL)
            break;
        bool granted = hmcs_grant(succ, k + 1, wp); /* cohort handoff: the global lock stays on this socket */
        ll_mcsq_take_place(&cur, mine, granted ? NULL : succ);
        if (granted)
            return;
        /* succ was abandoned: we hold both locks in its place (its status reads k + 1) */
    }
    if (l->nsockets > 1)
        hmcs_release_global(l, s, wp);
    hmcs_release_socket(s, cur, mine, false, wp);
}

/* The uncontended release of one level inline (the interposer's direct verbs inline it):
 * nobody linked behind us, tail me -> NULL, as the loop above and hmcs_release_socket
 * would; the rest, and two levels, out of line (not cold: with several sockets every
 * release runs it), from where this one stopped. */
void ll_hmcs_release(ll_hmcs_lock *l, ll_hmcs_node *me, uint32_t socket, ll_wait_policy *wp)
{
    bool passed = false;
    if (LL_LIKELY(l->nsockets == 1 && ll_mcsq_next(&me->mcs) == NULL)) {
        if (LL_LIKELY(ll_mcsq_pass_tail(&l->sockets[socket].tail, &me->mcs, NULL)))
            return;
        passed = true; /* an arrival swapped itself in: the slow path awaits its link */
    }
    hmcs_release_slow(l, me, socket, passed, wp);
}

/* Generic handle: the holder's node and socket are remembered in the lock (written only by the holder). */
typedef struct {
    ll_hmcs_lock lock;
    LL_ALIGNED(LL_SECTOR) ll_hmcs_node *holder;
    uint32_t holder_socket;
} hmcs_state;

static const ll_param params[] = {
    {"threshold", "consecutive same-socket holders before the global lock goes to another socket", 1, 1u << 30,
     LL_HMCS_DEFAULT_THRESHOLD},
    {NULL, NULL, 0, 0, 0},
};

static int init(void *s, const uint64_t *p, char *err, size_t errlen)
{
    hmcs_state *st = (hmcs_state *)s;
    if (ll_hmcs_init(&st->lock, 0, (uint32_t)p[0]) != 0) {
        snprintf(err, errlen, "hmcs: out of memory for %d sockets", ll_topology_sockets());
        return -1;
    }
    return 0;
}
static void destroy(void *s) { ll_hmcs_destroy(&((hmcs_state *)s)->lock); }
static void acquire(void *s, ll_wait_policy *wp)
{
    hmcs_state *st = (hmcs_state *)s;
    ll_hmcs_node *me = (ll_hmcs_node *)ll_qnode_get();
    uint32_t socket = ll_hmcs_socket_of_caller(&st->lock);
    ll_hmcs_acquire(&st->lock, me, socket, wp);
    st->holder = me;
    st->holder_socket = socket;
}
static bool try_acquire(void *s, ll_wait_policy *wp)
{
    hmcs_state *st = (hmcs_state *)s;
    ll_hmcs_node *me = (ll_hmcs_node *)ll_qnode_get();
    uint32_t socket = ll_hmcs_socket_of_caller(&st->lock);
    if (!ll_hmcs_try_acquire(&st->lock, me, socket, wp)) {
        ll_qnode_put(me);
        return false;
    }
    st->holder = me;
    st->holder_socket = socket;
    return true;
}
static bool acquire_until(void *s, ll_wait_policy *wp, uint64_t deadline_ns)
{
    if (ll_deadline_passed(deadline_ns))
        return try_acquire(s, wp);
    hmcs_state *st = (hmcs_state *)s;
    ll_hmcs_node *me = (ll_hmcs_node *)ll_qnode_get();
    uint32_t socket = ll_hmcs_socket_of_caller(&st->lock);
    if (!ll_hmcs_acquire_until(&st->lock, me, socket, wp, deadline_ns))
        return false; /* me is the lock's */
    st->holder = me;
    st->holder_socket = socket;
    return true;
}
static void release(void *s, ll_wait_policy *wp)
{
    hmcs_state *st = (hmcs_state *)s;
    ll_hmcs_node *me = st->holder;
    st->holder = NULL; /* holder-only: before the release hands the lock on */
    ll_hmcs_release(&st->lock, me, st->holder_socket, wp);
    ll_qnode_put(me);
}
/* A lock dropped while held (ll_lock_ops.abandon): the holder's node goes back, with the
 * nodes timed waiters abandoned behind it in its socket queue, and the socket queues are
 * forgotten so that destroy does not wait for them to drain. */
static void abandon(void *s)
{
    hmcs_state *st = (hmcs_state *)s;
    if (st->holder) {
        ll_mcsq_reclaim_abandoned(&st->holder->mcs);
        ll_qnode_put(st->holder);
    }
    st->holder = NULL;
    for (uint32_t i = 0; i < st->lock.nsockets; i++)
        ll_store_relaxed(&st->lock.sockets[i].tail, NULL); /* relaxed: no thread touches a dropped lock again */
}

/* The direct verbs (registry.h): on one socket the uncontended path inline (a node from the
 * cache, the socket queue's try, which is ll_hmcs_try_acquire's on one level; the
 * release's inline step), and the plain verbs when it fails; on several, the plain verbs
 * (direct_acquire_levels: two levels, the global lock and the socket's; not cold, as that
 * is every acquisition there). */
LL_DIRECT_RELEASE_NAMED()
LL_DIRECT_CALLING_ACQUIRE(, direct_acquire_levels, __attribute__((noinline)) LL_FLATTEN)
static LL_FLATTEN LL_HOT int direct_acquire(void *s, ll_wait_policy *wp, ll_atomic_u64 *owner, uint64_t id)
{
    hmcs_state *st = (hmcs_state *)s;
    if (st->lock.nsockets > 1)
        return direct_acquire_levels(s, wp, owner, id);
    ll_thread *self = ll_self_if_any();
    ll_hmcs_node *me = (ll_hmcs_node *)ll_qnode_take(self);
    if (LL_UNLIKELY(me == NULL))
        return direct_acquire_slow(s, wp, owner, id);
    if (LL_UNLIKELY(!hmcs_try_socket(&st->lock.sockets[0], me))) {
        ll_qnode_untake(self, me);
        return direct_acquire_slow(s, wp, owner, id);
    }
    st->holder = me;
    st->holder_socket = 0;
    ll_store_release(owner, id); /* release: pairs with lp_owner_claim (registry.h, the direct verbs) */
    return 0;
}

const ll_lock_ops ll_lock_hmcs = {
    .name = "hmcs", .source = "Chabbi, Fagan & Mellor-Crummey 2015 (HMCS, 2 levels)",
    .summary = "per-socket MCS locks under a global MCS lock",
    .fairness = "FIFO per socket; a socket keeps the lock for at most `threshold` holders", .policies = LL_ALL_POLICIES,
    .params = params,
    .state_bytes = sizeof(hmcs_state), .lock_bytes = sizeof(ll_hmcs_lock) + 2 * sizeof(ll_hmcs_socket),
    .waiter_bytes = sizeof(ll_hmcs_node), .init = init, .destroy = destroy, LL_OPS_VERBS, .abandon = abandon,
};
