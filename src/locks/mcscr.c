/*
 * mcscr — MCS with concurrency restriction (CR).
 * Source: Dice, "Malthusian Locks" (EuroSys 2017, extended version) §4;
 * malthusian-locks.txt.  Acquire is classic MCS, unchanged; all of CR lives
 * in release, under the lock.
 *
 * Lock words:
 *   tail == NULL        free (then the passive set is empty)
 *   tail == node A      held; A is the last node of the MCS chain (A may be the holder)
 *   passive             the passive set (PS): a doubly-linked list of culled
 *   (.newest, .eldest)  waiters' nodes, newest first.  Plain fields, read and
 *                       written only by the lock holder: the lock protects them
 *                       (the handover's release/acquire orders one holder's
 *                       edits before the next holder's).
 * Node word (waiting): 1 = keep waiting, 0 = you own the lock.  A waiter does
 * not know whether its node is in the chain or in the PS: it simply waits on
 * its own node (spins, then parks, per policy), and whoever grants it the
 * lock makes the node the head of a valid chain first.
 *
 * Release (the holder's node is `me`, its chain successor `succ`):
 *   1. nobody waiting (succ NULL and PS empty): CAS tail me -> NULL, as MCS.
 *   2. with probability 1/fairness (thread-local xorshift Bernoulli trial),
 *      if the PS is non-empty: take its eldest node E, graft it in as our
 *      successor (E.next = succ; or, if the chain is empty, CAS tail me -> E,
 *      and if an arrival beats the CAS, wait for its link and E.next = it),
 *      and grant E.  Long-term fairness.  Also (patience_ns, below) if E
 *      has waited longer than patience_ns.
 *   3. cull: while succ has a linked successor (succ is surplus: someone else
 *      waits behind it), move succ to the PS head and advance.  Then grant
 *      the last linked node, the most recent arrival (likely still spinning).
 *      The paper culls one node per unlock; culling every surplus node is
 *      still amortised O(1) (a node is culled at most once per wait) and
 *      converges at once to "one waiter in the chain".
 *   4. chain empty but PS non-empty (a deficit): reprovision, i.e. make the
 *      PS head (most recently culled) the holder by CAS tail me -> it (with
 *      its next cleared first).  If an arrival beats the CAS, the node goes
 *      back to the PS and the arrival is served instead (step 3).
 *   Work conserving: the lock is never left free while a thread waits, since
 *   tail goes to NULL only when the PS is empty.
 * Two additions for waiting policies that park (the paper's MCSCR is
 * defer_ns=0,warm=0), both against the same failure: a handover to a parked
 * thread puts a wake-up (tens of us) inside the critical path, the active
 * threads that queue meanwhile time out and park too, and the lock settles
 * into a convoy of parked handovers (on a 2-CPU machine, where the lock is
 * rarely saturated and deficits are the normal case, paper MCSCR-stp spends
 * most of its time there).
 *   defer_ns (default 25000, about one wake-up): in step 4, if the PS head is parked, first wait
 *      up to defer_ns (once per release) for an arrival in the chain, which is
 *      an active thread back from its non-critical section, and serve it
 *      instead.  The lock stays held meanwhile; the admission it may delay
 *      (the parked thread's) would take a whole wake-up anyway.  The
 *      paper's LOITER (§A.1) defers unparking the heir in the same way.
 *   warm (default 1; stp/astp only, they have a spin phase): when the thread
 *      granted in steps 2-4 is parked, also unpark the (parked) PS head
 *      early, an anticipatory warm-up after §5.1 note 19: it spins on its
 *      node for its budget, then parks again if nobody granted it.  And in
 *      step 3, if succ is parked but the PS head is spinning, graft the PS
 *      head in front of succ (head.next = succ) and grant it instead; succ
 *      stays at the head of the chain until someone queues behind it.
 *   patience_ns (default 50000000 = 50 ms; 0 = off, the paper's algorithm):
 *      a time bound on passive waiting, like cna's flush_ns.  A culled node
 *      records ll_now_ns() (since; one clock read per release that culls).
 *      At each contended unlock with a non-empty PS the holder compares the
 *      eldest passive node's timestamp with "now": the clock on 1 in 16 such
 *      unlocks (a thread-local coin, so the clock stays off the others), else
 *      the newest passive node's timestamp (the last cull's reading: free,
 *      and never later than now).  If the eldest was culled patience_ns or
 *      more ago, it is served exactly as in step 2.  Why: 1000 unlocks take ~1 ms when
 *      handovers are fast, but seconds when they cost a scheduler quantum
 *      (pure spin under oversubscription: ~3-10K handovers/s), and passive
 *      threads then wait seconds.
 *   hysteresis (default 4; cpu_aware only; 1 = the paper's step 3): cull only
 *      a surplus that has lasted: a holder that finds its successor linked to
 *      a further waiter counts one (l->surplus, a holder-only field; a contended
 *      release whose successor has none resets it) and culls, as in step 3, only at the
 *      hysteresis-th such release in a row; before, it grants its successor as
 *      MCS does.  Why: where the non-critical section is short against a
 *      handover, two or three running threads keep the lock saturated, and a
 *      second waiter is a momentary burst, not a surplus.  Culled at once, it
 *      is the spinning passive head that the next deficit reprovisions
 *      (below): the pair cull-then-reprovision came at about every second
 *      contended release, each a CAS on the tail line that arrivals contend
 *      for and lists rewritten, while the set never shrank (figures:
 *      docs/performance.md, "mcscr-stp on the papers' machines").  A real
 *      surplus (more running threads than the lock needs) keeps the queue
 *      deep at every release and is culled after a few; the active set ends
 *      up at most about one waiter larger than the paper's.
 * CPU-aware (cpu_aware=1, the default; 0 = the paper's work-conserving
 *   algorithm, with the extensions above).  Why: on a machine with fewer CPUs
 *   than threads the paper's MCSCR puts a wake-up (20-35 us) on the critical
 *   path whenever it grants a parked thread: at every deficit (step 4: the
 *   chain is empty, which on 2 CPUs is most releases, since the active threads
 *   are in their non-critical sections) and at every fairness grant (the
 *   figures: docs/performance.md, "mcscr-stp on the papers' machines").  The
 *   CPU-aware release never grants a parked thread:
 *   - deficit (chain empty at release), by the state of the PS head (the
 *     newest passive thread, culled last; cr_parked, a relaxed hint.  It is
 *     read at most once per listed node: a node seen parked is marked, in bit
 *     0 of its `since`, and freed past from then on; reading it at every
 *     deficit cost 1% on 2 CPUs, where deficits are most releases and the
 *     head is nearly always parked):
 *       PS empty      free the lock (tail -> NULL), as MCS (step 1);
 *       head spins    reprovision it as in step 4 (CAS tail me -> head, its next
 *                     cleared first; then grant it): it is running, so the grant
 *                     costs no wake-up.  An arrival that beats the CAS is served
 *                     instead and the head stays passive;
 *       head parked   free the lock (tail -> NULL) and keep the passive set: the
 *                     lock is not work-conserving towards parked threads, which
 *                     is the point of concurrency restriction: the running
 *                     threads keep the lock busy.
 *     Memory orders, all in mcs_queue.h's steps: the CAS of tail is release
 *     (ll_mcsq_pass_tail: the critical section, the list edits and the head's
 *     cleared next, to the next arrival's acquire swap); the grant is the
 *     release exchange of ll_mcsq_publish (the same, to the head's acquire
 *     wait); the head's parker is read before it.
 *     Why the spinning case: a thread culled less than a spin budget ago is
 *     the one the lock gave up last; when the chain runs dry it is needed
 *     again, and only a granted or reactivated thread ever rejoins the active
 *     set.  Freeing the lock there too would let the set only shrink: every
 *     cull would be final but for the 1/fairness reactivations, so on a
 *     machine with idle CPUs the set would fall below what keeps the lock
 *     saturated (most contended releases then deficits with the head parked;
 *     figures: docs/performance.md, "mcscr-stp on the papers' machines").  On
 *     2 CPUs deficits find the head parked (it spun out its budget long
 *     before), so this case changes nothing there.  A spinning head that the
 *     scheduler preempted can still be granted, as a preempted successor in
 *     the chain can;
 *   - a parked successor is surplus (it is not running): cull it too (out of
 *     the chain: CAS tail succ -> NULL, or serve the arrival behind it);
 *   - long-term fairness (1/fairness trial, patience_ns): the eldest passive
 *     thread, if it still spins, is grafted in and granted as in step 2; if it
 *     is parked, it is reactivated: it leaves the passive set (node word
 *     LL_MCSCR_REACTIVATED, published before our release), is woken after the
 *     release, and arrives again like a new thread, off the critical path;
 *   - a passive set without active threads (they stopped using the lock): each
 *     waiter waits in rounds of patience_ns (ll_wait_while_eq_until); a round
 *     that ends with the lock free and the node still listed takes the lock
 *     with that node (a listed node's chain link is NULL, cr_cull) and unlinks
 *     it.  No thread is stranded; that costs one timed wake-up per waiter per
 *     patience_ns while it waits.
 *   The size of the active set then follows the CPUs by itself: more running
 *   waiters than the lock needs queue behind each other and are culled, waiters
 *   the scheduler parked are culled, and the set grows again when a deficit
 *   finds a culled thread still spinning, and by reactivation.  mcscrn keeps
 *   the paper's release (cpu_aware is mcscr's key), and so do policies that
 *   never park (spin, yield): their passive threads stay runnable anyway,
 *   and without reprovisioning they would spin until their patience round
 *   ends.  (Pure spinning with more threads than CPUs is slow
 *   either way.)  All callers of one lock must use the
 *   same policy (as everywhere in locklab).
 * MCS invariants kept: a culled node always had a linked successor, so it is
 * not the tail and no arrival will write its next; a node leaves the PS only
 * to become the holder, either as the new tail (its next cleared before the
 * release CAS that publishes it) or in front of a linked chain.  PS nodes
 * belong to their waiting owners: the holder edits only the list links, and
 * never touches a node after the store that grants it (parkers are read
 * before it; unparking a stale parker is harmless).
 *
 * Timed acquire (ll_mcscr_acquire_until): abortable.  A timed waiter queues as
 * any other and, at its deadline, abandons its node wherever it is, in the chain
 * or in the passive set (mcs_queue.h, "timed acquire"); a release that grants an
 * abandoned node releases again in its place (ll_mcscr_release_contended), and a
 * reactivation that reaches one recycles it.  cpu_aware: the waiter's rounds end
 * at the deadline, and its last round still tries to take a free lock first.  A
 * timed waiter gets the long-term bound below, like any waiter.
 * Fairness: not FIFO; short-term unfair by design (mostly LIFO admission;
 * the active circulating set shrinks to what keeps the lock saturated).
 * Long-term: while the PS is non-empty every unlock is a Bernoulli trial
 * that hands over to the eldest passive thread with probability 1/fairness
 * (default 1000), and the PS is only ever pushed at its newest end, so a
 * passive thread's distance from the eldest end never grows: no starvation
 * (expected wait ~ fairness x its rank, in unlocks).  With patience_ns, also
 * a time bound: the eldest passive thread is served about patience_ns after
 * it was culled (plus ~16 unlocks for the coin), so a passive thread of rank
 * k waits at most roughly (k + 1) x patience_ns, i.e. up to about PS size x
 * patience_ns in the worst case (nodes culled close together come due
 * together, and are then served one per ~16 unlocks).  A served thread that
 * is culled again starts a new wait.  Not a hard bound: a coin, not a timer.
 * Footprint: 56 bytes per lock (tail, PS ends, fairness, defer_ns, warm,
 * patience_ns, cpu_aware, hysteresis, surplus); one node (48 B, a 128-B slot from the per-thread cache) per waiting or
 * holding thread.  Policies: all (waiting is local, on one's own node).
 * Under stp, culled threads spin for the budget and then park, which is
 * where CR pays off.  try_acquire: as MCS (CAS tail NULL -> me; with
 * cpu_aware=0 tail is NULL only when nobody waits, passive threads included;
 * with cpu_aware=1 passive threads may wait while the lock is free).
 * Code: acquire is the shared MCS queue's (src/locks/mcs_queue.h, which
 * explains the memory orders); the passive set and the release (steps 1-4)
 * are in src/locks/passive_set.h, shared with mcscrn, whose contended release
 * is this file's ll_mcscr_release_contended with its NUMA extension.
 */
#include "locklab/registry.h"
#include "passive_set.h"

void ll_mcscr_init(ll_mcscr_lock *l, uint32_t fairness, uint32_t defer_ns, uint32_t warm, uint32_t patience_ns,
                   uint32_t cpu_aware, uint32_t hysteresis)
{
    l->cpu_aware = cpu_aware ? 1 : 0;
    l->hysteresis = hysteresis ? hysteresis : 1;
    l->surplus = 0;
    ll_store_relaxed(&l->tail, NULL); /* relaxed: like pthread_mutex_init, publish the lock yourself */
    l->passive.newest = l->passive.eldest = NULL;
    l->fairness = fairness ? fairness : 1;
    l->defer_ns = defer_ns;
    l->warm = warm ? 1 : 0;
    l->patience_ns = patience_ns;
}

/* cpu_aware: wait on our node in timed rounds; a round that ends with the lock free
 * and our node still waiting means we sit in the passive set of a lock nobody uses
 * any more (the active threads left): take the lock with our own node (its chain
 * link is NULL while listed: cr_cull) and leave the set.  At deadline_ns
 * (LL_NO_DEADLINE: never) abandon the node (mcs_queue.h, "timed acquire").
 * Returns 0 (we own the lock), LL_MCSCR_REACTIVATED (arrive again) or
 * LL_MCSQ_ABANDONED (me is the lock's now). */
LL_COLD static uint32_t cpu_aware_wait(ll_mcscr_lock *l, ll_mcscr_node *me, ll_mcs_node *pred, ll_wait_policy *wp,
                                       uint64_t deadline_ns)
{
    ll_mcsq_link(&me->mcs, pred, 1, LL_MCSQ_PLAIN);
    uint64_t round_ns = l->patience_ns ? l->patience_ns : LL_MCSCR_DEFAULT_PATIENCE_NS;
    for (;;) {
        uint64_t until = ll_now_ns() + round_ns;
        bool last = until >= deadline_ns;
        /* acquire (inside): pairs with the release half of the exchange in ll_mcsq_publish */
        uint32_t v = ll_wait_while_eq_until(wp, &me->mcs.waiting, 1, ll_plain_load(&me->mcs.parker), last ? deadline_ns : until);
        if (v != 1)
            return v;
        void *expected = NULL;
        /* acq_rel, as ll_mcsq_try_enqueue: acquire pairs with the last holder's release CAS in
         * ll_mcsq_pass_tail (its list edits); release publishes our node to the next arrival */
        if (ll_load_relaxed(&l->tail) == NULL && ll_cas(&l->tail, &expected, &me->mcs, LL_ACQ_REL)) {
            /* relaxed: the CAS ordered the last holder's edits; 1 = still listed (else reactivated) */
            if (ll_load_relaxed(&me->mcs.waiting) == 1)
                cr_unlink(&l->passive, me);
            return 0;
        }
        if (last) /* the deadline passed: abandon the node, unless a grant comes first */
            return ll_wait_while_eq_or_leave(wp, &me->mcs.waiting, 1, ll_plain_load(&me->mcs.parker), deadline_ns);
    }
}

/* cpu_aware: arrive (again, if reactivated) until we own the lock, or until
 * deadline_ns.  True if we own it; false: me is the lock's. */
static bool cpu_aware_acquire(ll_mcscr_lock *l, ll_mcscr_node *me, ll_wait_policy *wp, uint64_t deadline_ns)
{
    ll_mcs_node *pred;
    while ((pred = ll_mcsq_enqueue(&l->tail, &me->mcs)) != NULL) {
        uint32_t v = cpu_aware_wait(l, me, pred, wp, deadline_ns);
        if (v != LL_MCSCR_REACTIVATED)
            return v == 0;
        if (ll_now_ns() >= deadline_ns) { /* reactivated at our deadline: the node is back with us */
            ll_qnode_put(me);
            return false;
        }
    }
    return true;
}

/* Acquire is classic MCS (mcs_queue.h, memory orders explained there): busy = 1, granted = 0.
 * cpu_aware: a reactivated thread (LL_MCSCR_REACTIVATED) arrives again. */
void ll_mcscr_acquire(ll_mcscr_lock *l, ll_mcscr_node *me, ll_wait_policy *wp)
{
    if (!cr_cpu_aware(l, NULL, wp))
        ll_mcsq_acquire(&l->tail, &me->mcs, 1, LL_MCSQ_PLAIN, wp);
    else
        (void)cpu_aware_acquire(l, me, wp, LL_NO_DEADLINE);
}

bool ll_mcscr_acquire_until(ll_mcscr_lock *l, ll_mcscr_node *me, ll_wait_policy *wp, uint64_t deadline_ns)
{
    if (cr_cpu_aware(l, NULL, wp))
        return cpu_aware_acquire(l, me, wp, deadline_ns);
    return ll_mcsq_acquire_until(&l->tail, &me->mcs, 1, LL_MCSQ_PLAIN, wp, deadline_ns);
}

bool ll_mcscr_try_acquire(ll_mcscr_lock *l, ll_mcscr_node *me) { return ll_mcsq_try_enqueue(&l->tail, &me->mcs); }

/* Steps 2-4 (and mcscrn's 2-5, x != NULL): the passive-set engine of passive_set.h. */
LL_COLD void ll_mcscr_release_contended(ll_mcscr_lock *l, ll_mcscrn_lock *x, ll_mcscr_node *me, ll_mcscr_node *succ,
                                        ll_wait_policy *wp)
{
    ll_mcs_node *mine = &me->mcs, *cur = mine;
    for (;;) {
        ll_mcscr_node *gone = cr_release_contended(l, x, CR_NODE(cur), succ, wp);
        ll_mcsq_take_place(&cur, mine, gone ? &gone->mcs : NULL); /* cur is out of the queue and the lists */
        if (gone == NULL)
            return;
        /* A granted node was abandoned (a timed waiter left): release again in its place. */
        bool linking;
        if (cr_release_plain(l, x, gone, &succ, &linking)) {
            ll_qnode_put(gone);
            return;
        }
        if (linking)
            succ = CR_NODE(ll_mcsq_await_next(&gone->mcs));
    }
}

LL_COLD void ll_mcscr_release_linking(ll_mcscr_lock *l, ll_mcscrn_lock *x, ll_mcscr_node *me, ll_wait_policy *wp)
{
    ll_mcscr_release_contended(l, x, me, CR_NODE(ll_mcsq_await_next(&me->mcs)), wp);
}

void ll_mcscr_release(ll_mcscr_lock *l, ll_mcscr_node *me, ll_wait_policy *wp) { cr_release(l, NULL, me, wp); }

/* Generic handle: the holder's node is remembered in the lock (written only by the holder). */
typedef struct { ll_mcscr_lock lock; ll_mcscr_node *holder; } mcscr_state;

#define CPU_AWARE_PARAM                                                                                    \
    {"cpu_aware", "1: no wake-up on the critical path: deficits serve a spinning passive thread or free the "  \
                  "lock, parked threads due for service are reactivated (0 = the paper's work-conserving MCSCR)", 0, 1, 1}, \
    {"hysteresis", "cpu_aware: cull surplus waiters only once this many contended releases in a row found them "  \
                   "(1 = at once, as the paper)", 1, 1024, LL_MCSCR_DEFAULT_HYSTERESIS},
static const ll_param params[] = CR_PARAMS(
    "1/N chance per contended unlock to hand over to the eldest passive thread",
    "before handing over to a parked thread, wait up to this long for a spinning arrival (0 = never)",
    "locklab extension: also hand over to the eldest passive thread once it has waited this long "
    "(0 = off, the paper's algorithm; worst case about passive-set size x this)",
    CPU_AWARE_PARAM);
static int init(void *s, const uint64_t *p, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    ll_mcscr_init(&((mcscr_state *)s)->lock, (uint32_t)p[0], (uint32_t)p[1], (uint32_t)p[2], (uint32_t)p[3],
                  (uint32_t)p[4], (uint32_t)p[5]);
    return 0;
}
LL_MCSQ_LOCK_ADAPTERS(mcscr_state, ll_mcscr_node, ll_mcscr)

const ll_lock_ops ll_lock_mcscr = {
    .name = "mcscr", .source = "Dice 2017 (Malthusian Locks) §4",
    .summary = "MCS that culls surplus waiters into a passive set (concurrency restriction)",
    .fairness = "CR: short-term unfair, eldest passive thread served w.p. 1/fairness or after patience_ns",
    .policies = LL_ALL_POLICIES, .params = params,
    LL_MCSQ_OPS(mcscr_state, ll_mcscr_lock, ll_mcscr_node),
};
