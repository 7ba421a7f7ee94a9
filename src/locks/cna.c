/*
 * cna — Compact NUMA-aware lock: MCS with a secondary queue for waiters on
 * other sockets, kept entirely in the queue nodes.
 * Source: Dice & Kogan, "Compact NUMA-aware Locks", EuroSys 2019
 * (compact-numa-aware-locks.txt §4 design, §5 Figures 2-5, §6 shuffle reduction).
 *
 * Lock word (tail), the lock's only state:
 *   NULL         free, both queues empty
 *   node A       held; A is the last node of the main queue (A may be the holder).
 *                The secondary queue, if any, hangs off the holder's node.
 * Node word (spin), written once by the thread that grants the node:
 *   NULL              keep waiting
 *   LL_CNA_GRANTED(1) you own the lock; the secondary queue is empty
 *   node S            you own the lock; S heads the secondary queue and
 *                     S->sec_tail is its last node (S->...->sec_tail->NULL)
 * Other node fields: next (main or secondary successor), socket (recorded only
 * when the owner had to wait, else -1), parker (the owner's, for wake-ups).
 *
 * Acquire (Fig. 3): as MCS; an uncontended acquirer sets its own spin to
 * GRANTED.  Release (Fig. 4, 5): if the main queue is empty, CAS tail from
 * self to NULL (secondary empty) or to the secondary tail, then grant the
 * secondary head.  Otherwise, with probability 1 - 2^-keep_local_shift
 * search the main queue for the first waiter on the holder's socket, move the
 * waiters skipped on the way to the end of the secondary queue and grant the
 * found one, passing it the secondary head in its spin word.  If there is no
 * such waiter (or the coin says flush), splice the secondary queue in front of
 * the main successor and grant its head.  Shuffle reduction (§6, key
 * shuffle_shift = N > 0): with an empty secondary queue the holder searches
 * only with probability 2^-N and otherwise hands to its main successor.
 * Time bound (key flush_ns, a locklab extension, default 10 ms, 0 = off):
 * on 1 in 64 releases with a non-empty secondary queue the holder reads the
 * clock; the first reading is stored in the secondary head (sec_since), and
 * once flush_ns have passed since, the holder flushes as if the coin said so.
 * Why: 2^16 handovers take ~50 ms on the paper's machines but seconds when
 * handovers cost tens of microseconds (parking, oversubscription), and a whole
 * socket then waits that long.
 *
 * Why it is safe: only the holder moves nodes, and only nodes it has seen
 * linked (next != NULL); the main tail, the one node an arriving thread may
 * still write (its next), is never moved.  The secondary tail's next is NULL
 * before a release CAS makes it the main tail.  Every node in either queue is
 * waiting, so the holder may read it; it reads the granted node's parker (and
 * its successor's, for the stp warm-up) before the granting store and never
 * touches that node afterwards (nodes are recycled across lock types).  A
 * moved node stays wakeable: its parker stays in the node, read by whichever
 * holder eventually grants it.
 *
 * Fairness: not FIFO.  Waiters on other sockets can be bypassed, but the
 * secondary queue is flushed back with probability 2^-16 per release, when
 * the holder's socket has no main-queue waiter, and (flush_ns) after ~10 ms,
 * so every waiter is admitted eventually: with flush_ns = 0 (pure paper) a
 * socket waits ~65536 handovers on average, with flush_ns at most about
 * (sockets - 1) * flush_ns plus a few times 64 handovers (a flushed waiter
 * can land in a fresh secondary queue whose timer restarts; the clock check
 * is a 1-in-64 coin).  Same-socket waiters are served in arrival order.
 * Footprint: 8 bytes per lock (one word, any number of sockets); one node
 * (48 B, a 128-B slot from the per-thread cache) per thread waiting or holding.
 * Policies: all (waiters spin on their own spin word through the policy; under
 * stp the releaser also wakes the likely next holder early, as mcs does: the
 * first of the next 8 waiters on the new holder's socket, else the secondary
 * head, else the new holder's successor).
 * try_acquire: CAS tail NULL -> self (tail is never NULL while anyone waits,
 * even in the secondary queue, because the holder stays the main tail).
 */
#include "locklab/cna.h"
#include "locklab/registry.h"

LL_STATIC_ASSERT(sizeof(ll_cna_node) <= LL_QNODE_USABLE, "node must fit a queue-node slot");

static bool cna_granted(void *node)
{
    return ll_load_acquire(&((ll_cna_node *)node)->spin) != NULL; /* acquire: pairs with the granting store */
}

LL_COLD static void cna_wait(ll_cna_node *me, ll_cna_node *pred, ll_wait_policy *wp)
{
    ll_parker *self = ll_self()->parker;
    me->parker = self;
    me->socket = (int32_t)ll_current_socket(); /* recorded only when waiting (paper, Fig. 3 line 14) */
    ll_store_release(&pred->next, me);         /* release: spin, socket, parker before any holder sees us */
    if (cna_granted(me))
        return;
    /* Local waiting on our own spin word (a pointer, so not ll_wait_while_eq):
     * the same spin-then-park loop; a holder reads our parker before it grants. */
    for (;;) {
        bool spun = ll_spin_phase(wp, cna_granted, me);
        if (wp->ops->may_park)
            ll_wait_feedback(wp, spun);
        if (spun || ll_parker_park(self, cna_granted, me))
            return;
    }
}

void ll_cna_acquire(ll_cna_lock *l, ll_cna_node *me, ll_wait_policy *wp)
{
    ll_store_relaxed(&me->next, NULL); /* relaxed: published by the release swap/CAS on tail */
    ll_store_relaxed(&me->spin, NULL); /* only a holder sets it, after it sees our link */
    /* acq_rel: acquire the previous holder's writes (if tail was NULL); release our node's init */
    ll_cna_node *pred = (ll_cna_node *)ll_xchg(&l->tail, me, LL_ACQ_REL);
    if (LL_LIKELY(pred == NULL)) {
        me->socket = -1;
        ll_store_relaxed(&me->spin, LL_CNA_GRANTED); /* relaxed: read only by ourselves, at release */
        return;
    }
    cna_wait(me, pred, wp);
}

bool ll_cna_try_acquire(ll_cna_lock *l, ll_cna_node *me)
{
    ll_store_relaxed(&me->next, NULL); /* relaxed: published by the release swap/CAS on tail */
    ll_store_relaxed(&me->spin, LL_CNA_GRANTED); /* relaxed: read only by ourselves, at release */
    me->socket = -1;
    void *expected = NULL;
    return ll_cas(&l->tail, &expected, me, LL_ACQ_REL); /* acq_rel: as the swap in acquire */
}

/* Anticipatory warm-up target (stp): the thread succ will most likely hand the
 * lock to, i.e. the first of the next few main-queue waiters on succ's socket,
 * else the secondary head v, else succ's direct successor.  Every node looked
 * at is still waiting (only the holder grants), so it is readable now. */
static ll_parker *cna_warm_target(ll_cna_node *succ, void *v)
{
    ll_cna_node *first = (ll_cna_node *)ll_load_acquire(&succ->next); /* acquire: pairs with the link store */
    ll_cna_node *n = first;
    for (int i = 0; n != NULL && i < 8; i++) {
        if (n->socket == succ->socket)
            return n->parker;
        n = (ll_cna_node *)ll_load_acquire(&n->next); /* acquire: pairs with the link store */
    }
    if (v != LL_CNA_GRANTED)
        return ((ll_cna_node *)v)->parker;
    return first ? first->parker : NULL;
}

/* Hand the lock to succ with spin value v (GRANTED or the secondary head). */
static void cna_grant(ll_cna_node *succ, void *v, ll_wait_policy *wp)
{
    ll_parker *p = ll_wait_wakee(wp, succ->parker); /* read before the handover: succ's node may be reused after it */
    /* Anticipatory warm-up for spin-then-park (as in mcs): wake the likely next
     * holder early, so that it is spinning again when the lock reaches it. */
    ll_parker *warm = wp->ops->has_budget ? cna_warm_target(succ, v) : NULL;
    ll_store_release(&succ->spin, v); /* release: hand over the critical section and the queue edits */
    ll_wake(p);
    if (warm)
        ll_parker_unpark(warm); /* early: it re-checks, spins, and may park again */
}

/* Figure 5: the first main-queue waiter on the holder's socket, or NULL.  If it
 * is not next, the waiters before it move to the end of the secondary queue,
 * whose head is *sec (GRANTED = empty). */
static ll_cna_node *cna_find_successor(ll_cna_node *me, ll_cna_node *next, void **sec)
{
    int32_t mine = me->socket >= 0 ? me->socket : (int32_t)ll_current_socket();
    if (next->socket == mine)
        return next;
    ll_cna_node *head = next, *tail = next;
    ll_cna_node *cur = (ll_cna_node *)ll_load_acquire(&next->next); /* acquire: pairs with the link store */
    while (cur) {
        if (cur->socket == mine) {
            /* head..tail all have a non-NULL next, so no arriving thread writes them;
             * relaxed stores below: later holders read them after our granting store. */
            if (*sec != LL_CNA_GRANTED) {
                ll_cna_node *sh = (ll_cna_node *)*sec;
                ll_store_relaxed(&sh->sec_tail->next, head);
                sh->sec_tail = tail;
            } else {
                head->sec_tail = tail;
                head->sec_since = 0; /* timed lazily, by the flush_ns check */
                *sec = head;
            }
            ll_store_relaxed(&tail->next, NULL);
            return cur;
        }
        tail = cur;
        cur = (ll_cna_node *)ll_load_acquire(&cur->next); /* acquire: pairs with the link store */
    }
    return NULL;
}

/* true with probability 1 - 2^-shift (shift 0: never; shift < 64) */
LL_INLINE bool cna_coin(unsigned shift)
{
    return shift != 0 && (ll_rand() & ((1ull << shift) - 1)) != 0;
}

/* flush_ns extension: has the secondary queue headed by sh waited about flush_ns?
 * The clock is read on 1 in 64 releases only; the first reading starts the timer. */
LL_COLD static bool cna_secondary_overdue(ll_cna_node *sh, uint64_t flush_ns)
{
    uint64_t now = ll_now_ns();
    if (sh->sec_since == 0) {
        sh->sec_since = now;
        return false;
    }
    return now - sh->sec_since >= flush_ns;
}

LL_INLINE bool cna_keep_local(void *sec, const ll_cna_params *p)
{
    if (!cna_coin(p->keep_local_shift))
        return false;
    if (sec == LL_CNA_GRANTED || p->flush_ns == 0 || (ll_rand() & 63) != 0)
        return true;
    return !cna_secondary_overdue((ll_cna_node *)sec, p->flush_ns);
}

void ll_cna_release_tuned(ll_cna_lock *l, ll_cna_node *me, ll_wait_policy *wp, const ll_cna_params *p)
{
    void *sec = ll_load_relaxed(&me->spin); /* relaxed: our own node, granted (acquired) before */
    ll_cna_node *next = (ll_cna_node *)ll_load_acquire(&me->next); /* acquire: pairs with the link store */
    if (next == NULL) {
        void *expected = me;
        if (sec == LL_CNA_GRANTED) {
            if (ll_cas(&l->tail, &expected, NULL, LL_RELEASE)) /* release: publish the critical section */
                return;
        } else {
            ll_cna_node *sh = (ll_cna_node *)sec;
            /* release: the critical section, and sec_tail->next == NULL, to whoever links after it */
            if (ll_cas(&l->tail, &expected, (void *)sh->sec_tail, LL_RELEASE)) {
                cna_grant(sh, LL_CNA_GRANTED, wp);
                return;
            }
        }
        next = (ll_cna_node *)ll_await_link(&me->next);
    }
    if (sec == LL_CNA_GRANTED && cna_coin(p->shuffle_shift)) { /* shuffle reduction (§6) */
        cna_grant(next, LL_CNA_GRANTED, wp);
        return;
    }
    ll_cna_node *succ;
    if (cna_keep_local(sec, p) && (succ = cna_find_successor(me, next, &sec)) != NULL) {
        cna_grant(succ, sec, wp);
    } else if (sec != LL_CNA_GRANTED) { /* flush: secondary queue first, then the main queue */
        ll_cna_node *sh = (ll_cna_node *)sec;
        ll_store_relaxed(&sh->sec_tail->next, next); /* relaxed: the grant below releases it */
        cna_grant(sh, LL_CNA_GRANTED, wp);
    } else {
        cna_grant(next, LL_CNA_GRANTED, wp);
    }
}

void ll_cna_release(ll_cna_lock *l, ll_cna_node *me, ll_wait_policy *wp)
{
    static const ll_cna_params defaults = LL_CNA_PARAMS_DEFAULT;
    ll_cna_release_tuned(l, me, wp, &defaults);
}

/* Generic handle: the holder's node is remembered in the lock (written only by the holder). */
typedef struct {
    ll_cna_lock lock;
    ll_cna_node *holder;
    ll_cna_params params;
} cna_state;

static const ll_param params[] = {
    {"keep_local_shift", "keep the lock on the holder's socket with probability 1 - 2^-N (0 = never: FIFO)", 0, 62,
     LL_CNA_DEFAULT_KEEP_LOCAL_SHIFT},
    {"shuffle_shift", "shuffle reduction: with an empty secondary queue search only with probability 2^-N "
                      "(0 = always; 8 = the paper's THRESHOLD2 0xff)",
     0, 62, LL_CNA_DEFAULT_SHUFFLE_SHIFT},
    {"flush_ns", "locklab extension: also hand the lock to the secondary queue once it has waited this long "
                 "(0 = off, the paper's algorithm)",
     0, 10000000000ull, LL_CNA_DEFAULT_FLUSH_NS},
    {NULL, NULL, 0, 0, 0},
};

static int init(void *s, const uint64_t *p, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    cna_state *st = (cna_state *)s;
    ll_store_relaxed(&st->lock.tail, NULL); /* relaxed: the creator publishes the handle */
    st->params.keep_local_shift = (unsigned)p[0];
    st->params.shuffle_shift = (unsigned)p[1];
    st->params.flush_ns = p[2];
    return 0;
}
static void acquire(void *s, ll_wait_policy *wp)
{
    cna_state *st = (cna_state *)s;
    ll_cna_node *me = (ll_cna_node *)ll_qnode_get();
    ll_cna_acquire(&st->lock, me, wp);
    st->holder = me;
}
static bool try_acquire(void *s, ll_wait_policy *wp)
{
    (void)wp;
    cna_state *st = (cna_state *)s;
    ll_cna_node *me = (ll_cna_node *)ll_qnode_get();
    if (!ll_cna_try_acquire(&st->lock, me)) {
        ll_qnode_put(me);
        return false;
    }
    st->holder = me;
    return true;
}
static void release(void *s, ll_wait_policy *wp)
{
    cna_state *st = (cna_state *)s;
    ll_cna_node *me = st->holder;
    ll_cna_release_tuned(&st->lock, me, wp, &st->params);
    ll_qnode_put(me);
}

const ll_lock_ops ll_lock_cna = {
    "cna", "Dice & Kogan 2019 (CNA), EuroSys", "MCS variant: same-socket successor first, others to a secondary queue",
    "socket-local first; other sockets admitted with probability 2^-16 per handover or after flush_ns (10 ms)", LL_ALL_POLICIES,
    params, sizeof(cna_state), sizeof(ll_cna_lock), sizeof(ll_cna_node),
    init, NULL, acquire, try_acquire, release,
};
