/*
 * cna — Compact NUMA-aware lock: MCS with a secondary queue for waiters on
 * other sockets, kept entirely in the queue nodes.
 * Source: Dice & Kogan, "Compact NUMA-aware Locks", EuroSys 2019
 * (§4 design, §5 Figures 2-5, §6 shuffle reduction).
 *
 * Lock word (tail), the lock's only state:
 *   NULL         free, both queues empty
 *   node A       held; A is the last node of the main queue (A may be the holder).
 *                The secondary queue, if any, hangs off the holder's node.
 * Node words (a node starts with the MCS prefix, include/locklab/mcs.h):
 *   mcs.waiting  1 keep waiting; 0 you own the lock (one release store by the
 *                holder that grants the node)
 *   sec          written by that holder just before, read by the owner after:
 *                LL_CNA_GRANTED(1) the secondary queue is empty; node S: S
 *                heads the secondary queue and S->sec_tail is its last node
 *                (S->...->sec_tail->NULL).  (The paper passes S in the spin
 *                word itself; a separate field lets every MCS-family lock wait
 *                the same way, on a 32-bit word, through ll_wait_while_eq.)
 * Other node fields: mcs.next (main or secondary successor), mcs.socket
 * (recorded only when the owner had to wait, else -1), mcs.parker (the
 * owner's, for wake-ups).
 *
 * Acquire (Fig. 3): as MCS; an uncontended acquirer sets its own sec to
 * GRANTED.  Release (Fig. 4, 5): if the main queue is empty, CAS tail from
 * self to NULL (secondary empty) or to the secondary tail, then grant the
 * secondary head.  Otherwise, with probability 1 - 2^-keep_local_shift
 * search the main queue for the first waiter on the holder's socket, move the
 * waiters skipped on the way to the end of the secondary queue and grant the
 * found one, passing it the secondary head in its sec field.  If there is no
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
 * Timed acquire (ll_cna_acquire_until): abortable; a timed waiter abandons its
 * node at its deadline wherever it is, main or secondary queue, and the release
 * that grants it releases again in its place (mcs_queue.h, "timed acquire"): a
 * timed waiter gets the bound above, like any waiter.
 * Footprint: 8 bytes per lock (one word, any number of sockets); one node
 * (48 B, a 128-B slot from the per-thread cache) per thread waiting or holding.
 * Policies: all (waiters wait on their own node word through the policy; under
 * stp the releaser also wakes the likely next holder early, as mcs does: the
 * first of the next 8 waiters on the new holder's socket, else the secondary
 * head, else the new holder's successor).
 * try_acquire: CAS tail NULL -> self (tail is never NULL while anyone waits,
 * even in the secondary queue, because the holder stays the main tail).
 * Code: enqueue, wait, tail hand-off and grant are the shared MCS queue's
 * steps (src/locks/mcs_queue.h, which explains their memory orders); this
 * file adds the secondary queue and the choice of successor.
 */
#include <stddef.h>

#include "locklab/cna.h"
#include "locklab/registry.h"
#include "mcs_queue.h"

LL_STATIC_ASSERT(sizeof(ll_cna_node) <= LL_QNODE_USABLE, "node must fit a queue-node slot");
LL_STATIC_ASSERT(offsetof(ll_cna_node, mcs) == 0, "the MCS prefix comes first");

#define CNA(n) LL_MCSQ_OWNER(ll_cna_node, n)

/* n's successor in the main or the secondary queue, as linked so far (acquire: see ll_mcsq_next). */
LL_INLINE ll_cna_node *cna_next(ll_cna_node *n) { return CNA(ll_mcsq_next(&n->mcs)); }

void ll_cna_acquire(ll_cna_lock *l, ll_cna_node *me, ll_wait_policy *wp)
{
    /* The MCS queue's acquire; the socket is recorded only when waiting (paper, Fig. 3
     * line 14).  A waiter is granted with me->sec written by its granter (cna_grant). */
    if (LL_LIKELY(!ll_mcsq_acquire(&l->tail, &me->mcs, 1, LL_MCSQ_RECORD_SOCKET, wp))) {
        ll_plain_store(&me->mcs.socket, -1);
        me->sec = LL_CNA_GRANTED; /* plain: read only by ourselves, at release */
    }
}

bool ll_cna_try_acquire(ll_cna_lock *l, ll_cna_node *me)
{
    ll_plain_store(&me->mcs.socket, -1);
    me->sec = LL_CNA_GRANTED; /* plain: read only by ourselves, at release */
    return ll_mcsq_try_enqueue(&l->tail, &me->mcs);
}

/* Anticipatory warm-up target (stp): the thread succ will most likely hand the
 * lock to, i.e. the first of the next few main-queue waiters on succ's socket,
 * else the secondary head v, else succ's direct successor.  Every node looked
 * at is still waiting (only the holder grants), so it is readable now. */
static ll_parker *cna_warm_target(ll_cna_node *succ, void *v)
{
    ll_cna_node *first = cna_next(succ);
    ll_cna_node *n = first;
    for (int i = 0; n != NULL && i < 8; i++) {
        if (ll_plain_load(&n->mcs.socket) == ll_plain_load(&succ->mcs.socket))
            return ll_plain_load(&n->mcs.parker);
        n = cna_next(n);
    }
    if (v != LL_CNA_GRANTED)
        return ll_plain_load(&((ll_cna_node *)v)->mcs.parker);
    return first ? ll_plain_load(&first->mcs.parker) : NULL;
}

/* Hand the lock to succ with secondary-queue value v (GRANTED or the secondary head).
 * Returns NULL, or succ if its owner had abandoned it (a timed waiter that left): then
 * we hold the lock in succ's place, succ->sec = v as if granted (mcs_queue.h, "timed acquire"). */
static ll_cna_node *cna_grant(ll_cna_node *succ, void *v, ll_wait_policy *wp)
{
    /* Anticipatory warm-up for spin-then-park (as in mcs, with CNA's own target):
     * wake the likely next holder early, so that it is spinning again when the lock reaches it. */
    ll_parker *warm = ll_wait_has_spin_phase(wp) ? cna_warm_target(succ, v) : NULL;
    succ->sec = v; /* plain: published to succ by the release half of the exchange in ll_mcsq_publish */
    return ll_mcsq_grant(&succ->mcs, 0, wp, warm) ? NULL : succ;
}

/* Figure 5: the first main-queue waiter on the holder's socket, or NULL.  If it
 * is not next, the waiters before it move to the end of the secondary queue,
 * whose head is *sec (GRANTED = empty). */
static ll_cna_node *cna_find_successor(ll_cna_node *me, ll_cna_node *next, void **sec)
{
    int32_t mine = ll_plain_load(&me->mcs.socket) >= 0 ? ll_plain_load(&me->mcs.socket) : (int32_t)ll_current_socket();
    if (ll_plain_load(&next->mcs.socket) == mine)
        return next;
    ll_cna_node *head = next, *tail = next;
    ll_cna_node *cur = cna_next(next);
    while (cur) {
        if (ll_plain_load(&cur->mcs.socket) == mine) {
            /* head..tail all have a non-NULL next, so no arriving thread writes them;
             * the relinks (ll_mcsq_set_next) reach later holders through our grant. */
            if (*sec != LL_CNA_GRANTED) {
                ll_cna_node *sh = (ll_cna_node *)*sec;
                ll_mcsq_set_next(&sh->sec_tail->mcs, &head->mcs);
                sh->sec_tail = tail;
            } else {
                head->sec_tail = tail;
                head->sec_since = 0; /* timed lazily, by the flush_ns check */
                *sec = head;
            }
            ll_mcsq_set_next(&tail->mcs, NULL);
            return cur;
        }
        tail = cur;
        cur = cna_next(cur);
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

/* The release proper, given next, our successor as cna_next read it (NULL: none linked, and
 * if passed, our pass of the tail to NULL already failed: an arrival is linking); returns
 * NULL, or the granted node if it was abandoned (cna_grant). */
static ll_cna_node *cna_release_once(ll_cna_lock *l, ll_cna_node *me, ll_cna_node *next, bool passed,
                                     ll_wait_policy *wp, const ll_cna_params *p)
{
    void *sec = me->sec; /* plain: our own node (set by us, or by our granter before the release we acquired) */
    if (next == NULL) {
        /* Main queue empty: free the lock (secondary empty), or make the secondary tail,
         * whose next is NULL, the main tail and grant the secondary head. */
        ll_cna_node *sh = sec == LL_CNA_GRANTED ? NULL : (ll_cna_node *)sec;
        if (!passed && ll_mcsq_pass_tail(&l->tail, &me->mcs, sh ? &sh->sec_tail->mcs : NULL))
            return sh != NULL ? cna_grant(sh, LL_CNA_GRANTED, wp) : NULL;
        next = CNA(ll_mcsq_await_next(&me->mcs));
    }
    if (sec == LL_CNA_GRANTED && cna_coin(p->shuffle_shift)) /* shuffle reduction (§6) */
        return cna_grant(next, LL_CNA_GRANTED, wp);
    ll_cna_node *succ;
    if (cna_keep_local(sec, p) && (succ = cna_find_successor(me, next, &sec)) != NULL)
        return cna_grant(succ, sec, wp);
    if (sec != LL_CNA_GRANTED) { /* flush: secondary queue first, then the main queue */
        ll_cna_node *sh = (ll_cna_node *)sec;
        ll_mcsq_set_next(&sh->sec_tail->mcs, &next->mcs); /* published by the grant below */
        return cna_grant(sh, LL_CNA_GRANTED, wp);
    }
    return cna_grant(next, LL_CNA_GRANTED, wp);
}

/* The release from cna_release_once on (next, passed: its arguments), then in the place of
 * each granted node that was abandoned. */
static __attribute__((noinline)) void cna_release_slow(ll_cna_lock *l, ll_cna_node *me, ll_cna_node *next,
                                                       bool passed, ll_wait_policy *wp, const ll_cna_params *p)
{
    ll_mcs_node *mine = &me->mcs, *cur = mine;
    for (;;) {
        ll_cna_node *gone = cna_release_once(l, CNA(cur), next, passed, wp, p);
        ll_mcsq_take_place(&cur, mine, gone ? &gone->mcs : NULL); /* cur is out of both queues */
        if (gone == NULL)
            return;
        /* A granted node was abandoned (a timed waiter left): release again in its place. */
        next = cna_next(CNA(cur));
        passed = false;
    }
}

/* The uncontended release inline (the interposer's direct verbs inline it): nobody linked
 * behind us and the secondary queue empty, tail me -> NULL, as cna_release_once; the rest
 * out of line (not cold: a contended lock runs it at every release), from where this one
 * stopped. */
void ll_cna_release_tuned(ll_cna_lock *l, ll_cna_node *me, ll_wait_policy *wp, const ll_cna_params *p)
{
    ll_cna_node *next = cna_next(me);
    bool passed = false;
    if (LL_LIKELY(next == NULL && me->sec == LL_CNA_GRANTED)) { /* plain: our own node, as in cna_release_once */
        if (LL_LIKELY(ll_mcsq_pass_tail(&l->tail, &me->mcs, NULL)))
            return;
        passed = true; /* an arrival swapped itself in: the slow path awaits its link */
    }
    cna_release_slow(l, me, next, passed, wp, p);
}

bool ll_cna_acquire_until(ll_cna_lock *l, ll_cna_node *me, ll_wait_policy *wp, uint64_t deadline_ns)
{
    /* As ll_cna_acquire; a waiter is granted with me->sec written by its granter (cna_grant). */
    ll_mcs_node *pred = ll_mcsq_enqueue(&l->tail, &me->mcs);
    if (pred == NULL) {
        ll_plain_store(&me->mcs.socket, -1);
        me->sec = LL_CNA_GRANTED; /* plain: read only by ourselves, at release */
        return true;
    }
    return ll_mcsq_wait_until(&me->mcs, pred, 1, LL_MCSQ_RECORD_SOCKET, wp, deadline_ns) != LL_MCSQ_ABANDONED;
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
    ll_cna_init(&st->lock); /* relaxed: the creator publishes the handle */
    st->params.keep_local_shift = (unsigned)p[0];
    st->params.shuffle_shift = (unsigned)p[1];
    st->params.flush_ns = p[2];
    return 0;
}
/* The handle's verbs: cna's, releasing with the spec's tuning (st->params). */
#define cna_tuned_acquire ll_cna_acquire
#define cna_tuned_try_acquire ll_cna_try_acquire
#define cna_tuned_acquire_until ll_cna_acquire_until
static void cna_tuned_release(ll_cna_lock *l, ll_cna_node *me, ll_wait_policy *wp)
{
    const cna_state *st = (const cna_state *)(const void *)((const char *)l - offsetof(cna_state, lock));
    ll_cna_release_tuned(l, me, wp, &st->params);
}
LL_MCSQ_LOCK_ADAPTERS(cna_state, ll_cna_node, cna_tuned)

const ll_lock_ops ll_lock_cna = {
    .name = "cna", .source = "Dice & Kogan 2019 (CNA), EuroSys",
    .summary = "MCS variant: same-socket successor first, others to a secondary queue",
    .fairness = "socket-local first; other sockets admitted with probability 2^-16 per handover or after "
        "flush_ns (10 ms)",
    .policies = LL_ALL_POLICIES, .params = params,
    LL_MCSQ_OPS(cna_state, ll_cna_lock, ll_cna_node),
};
