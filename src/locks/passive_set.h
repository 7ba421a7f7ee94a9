/*
 * passive_set.h — concurrency restriction over the MCS queue: the passive set
 * and the contended release of mcscr (Dice, Malthusian Locks §4), extended
 * for mcscrn (§9.1, design ours) by a remote list and a home socket.
 *
 * One engine for both locks: every function takes the mcscr lock `l` and the
 * NUMA extension `x`, which is NULL for mcscr (then every node counts as
 * "home" and the remote list does not exist).  The fast path (cr_release) is
 * inlined into each lock; the contended release has one out-of-line instance,
 * ll_mcscr_release_contended in mcscr.c, called by both.
 * What the steps do, and why, is told in mcscr.c (the CR mechanics) and
 * mcscrn.c (the NUMA additions); the queue steps and their memory orders are
 * in mcs_queue.h.  Lists and the home socket are plain fields, read and
 * written only by the lock holder: the lock's handover (release store in
 * ll_mcsq_publish, acquire in ll_mcsq_wait; or the release CAS in
 * ll_mcsq_pass_tail and the acquire swap in ll_mcsq_enqueue) orders one
 * holder's edits before the next holder's.
 */
#ifndef LOCKLAB_SRC_LOCKS_PASSIVE_SET_H
#define LOCKLAB_SRC_LOCKS_PASSIVE_SET_H

#include "locklab/mcscrn.h"
#include "mcs_queue.h"

LL_STATIC_ASSERT(sizeof(ll_mcscr_node) <= LL_QNODE_USABLE, "node must fit a queue-node slot");
LL_STATIC_ASSERT(offsetof(ll_mcscr_node, mcs) == 0, "the MCS prefix comes first");

#define CR_NODE(n) LL_MCSQ_OWNER(ll_mcscr_node, n)

/* ---- lists of culled nodes, newest first (holder only, plain accesses) ------------------ */

LL_INLINE void cr_push_newest(ll_mcscr_list *q, ll_mcscr_node *n)
{
    n->newer = NULL;
    n->older = q->newest;
    if (q->newest)
        q->newest->newer = n;
    else
        q->eldest = n;
    q->newest = n;
}

LL_INLINE void cr_unlink(ll_mcscr_list *q, ll_mcscr_node *n)
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

LL_INLINE ll_mcscr_node *cr_take_newest(ll_mcscr_list *q)
{
    ll_mcscr_node *n = q->newest;
    cr_unlink(q, n);
    return n;
}

LL_INLINE ll_mcscr_node *cr_take_eldest(ll_mcscr_list *q)
{
    ll_mcscr_node *n = q->eldest;
    cr_unlink(q, n);
    return n;
}

/* ---- the home socket (mcscrn; x == NULL: everyone is home) -------------------------------- */

LL_INLINE bool cr_is_home(const ll_mcscrn_lock *x, const ll_mcscr_node *n)
{
    return x == NULL || ll_plain_load(&n->mcs.socket) == x->home;
}

/* Nobody culled: the release may take the plain MCS path. */
LL_INLINE bool cr_lists_empty(const ll_mcscr_lock *l, const ll_mcscrn_lock *x)
{
    return l->passive.newest == NULL && (x == NULL || x->remote.newest == NULL);
}

/* Move home to socket s: the passive list joins the remote list (at its newest
 * end), then the remote nodes of s move, in order, to the passive list. */
static inline void cr_rehome(ll_mcscr_lock *l, ll_mcscrn_lock *x, int32_t s)
{
    x->home = s;
    if (l->passive.newest) {
        if (x->remote.newest) {
            l->passive.eldest->older = x->remote.newest;
            x->remote.newest->newer = l->passive.eldest;
            x->remote.newest = l->passive.newest;
        } else {
            x->remote = l->passive;
        }
        l->passive.newest = l->passive.eldest = NULL;
    }
    ll_mcscr_node *n = x->remote.eldest;
    while (n) {
        ll_mcscr_node *newer = n->newer;
        if (ll_plain_load(&n->mcs.socket) == s) {
            cr_unlink(&x->remote, n);
            cr_push_newest(&l->passive, n); /* scanning eldest to newest: order kept */
        }
        n = newer;
    }
}

/* Bit 0 of a listed node's `since` (cpu_aware; a nanosecond of the timestamp, which
 * patience_ns does not miss): a deficit found its owner parked, so later deficits free
 * the lock without reading its parker again (cr_release_cpu_aware).  Cleared by a cull. */
enum { CR_SEEN_PARKED = 1 };

/* Cull n into the passive list (home) or the remote list; *now is the release's
 * one clock reading for patience_ns (0 = not read yet).  A listed node's chain
 * link is NULL, so that a cpu_aware passive thread may make its node the tail
 * itself (mcscr.c): n had a linked successor (so no arrival writes its link any
 * more, and we clear it), or n is the tail and the caller leaves the link alone
 * (it is NULL) until it knows whether an arrival links into it
 * (cr_release_cpu_aware).  Whoever takes n out of a list sets the link anew. */
LL_INLINE void cr_cull_tail(ll_mcscr_lock *l, ll_mcscrn_lock *x, ll_mcscr_node *n, uint64_t *now)
{
    if (l->patience_ns != 0 && *now == 0)
        *now = ll_now_ns();
    n->since = *now & ~(uint64_t)CR_SEEN_PARKED;
    cr_push_newest(cr_is_home(x, n) ? &l->passive : &x->remote, n);
}
LL_INLINE void cr_cull(ll_mcscr_lock *l, ll_mcscrn_lock *x, ll_mcscr_node *n, uint64_t *now)
{
    ll_mcsq_set_next(&n->mcs, NULL); /* n has a linked successor: no arrival writes this link */
    cr_cull_tail(l, x, n, now);
}

/* patience_ns: the elder of the passive and the remote eldest nodes if it has
 * waited that long, else NULL.  The clock is read on 1 in 16 calls only (a
 * thread-local coin); the other calls use the newest timestamp of either list,
 * the last cull's clock reading, which is free and never later than now (so
 * never serves early). */
LL_INLINE ll_mcscr_node *cr_overdue(ll_mcscr_lock *l, ll_mcscrn_lock *x)
{
    if (l->patience_ns == 0)
        return NULL;
    ll_mcscr_node *p = l->passive.eldest, *r = x ? x->remote.eldest : NULL;
    ll_mcscr_node *e = (p == NULL || (r != NULL && r->since < p->since)) ? r : p;
    if (e == NULL)
        return NULL;
    uint64_t now;
    if ((ll_rand() & 15) == 0) {
        now = ll_now_ns();
    } else {
        uint64_t pn = l->passive.newest ? l->passive.newest->since : 0;
        uint64_t rn = x && x->remote.newest ? x->remote.newest->since : 0;
        now = pn > rn ? pn : rn;
    }
    return (now > e->since && now - e->since >= l->patience_ns) ? e : NULL;
}

/* ---- grants ------------------------------------------------------------------------------ */

/* Is n's owner parked (or about to)?  Then granting it costs a wake-up inside the
 * critical path.  A hint (ll_parker_sleeping reads relaxed). */
LL_INLINE bool cr_parked(ll_mcscr_node *n) { return ll_parker_sleeping(ll_plain_load(&n->mcs.parker)); }

/* Grant g.  If g is parked, its wake-up is now inside the critical path, and
 * the next arrival will likely time out and park behind it (a convoy of parked
 * handovers): so also wake the newest passive thread early (anticipatory
 * warm-up, after §5.1 note 19).  It spins on its node for a while, and the next
 * release can serve it instead of another parked thread.
 * Returns NULL, or g if its owner had abandoned it (a timed waiter that left): then
 * we still hold the lock, in g's place (mcs_queue.h, "timed acquire"). */
LL_INLINE ll_mcscr_node *cr_grant_and_warm(ll_mcscr_lock *l, ll_mcscr_node *g, ll_wait_policy *wp)
{
    ll_parker *warm = NULL;
    if (l->warm && ll_wait_has_spin_phase(wp) && cr_parked(g) && l->passive.newest != NULL &&
        cr_parked(l->passive.newest))
        warm = ll_plain_load(&l->passive.newest->mcs.parker); /* read before the grant: the lists belong to the next holder after it */
    return ll_mcsq_grant(&g->mcs, 0, wp, warm) ? NULL : g;
}

/* Make listed node g the last node of the chain in place of me (the chain behind
 * me is empty).  False if an arrival swapped into the tail first. */
LL_INLINE bool cr_become_tail(ll_mcscr_lock *l, ll_mcscr_node *me, ll_mcscr_node *g)
{
    ll_mcsq_set_next(&g->mcs, NULL); /* published to the next arrival by the release CAS below */
    return ll_mcsq_pass_tail(&l->tail, &me->mcs, &g->mcs);
}

/* Grant listed node g in front of the chain (succ = our successor, or NULL).
 * Returns NULL, or g if abandoned (cr_grant_and_warm). */
LL_INLINE ll_mcscr_node *cr_graft_and_grant(ll_mcscr_lock *l, ll_mcscr_node *me, ll_mcscr_node *g,
                                            ll_mcscr_node *succ, ll_wait_policy *wp)
{
    if (succ == NULL && !cr_become_tail(l, me, g))
        succ = CR_NODE(ll_mcsq_await_next(&me->mcs));
    if (succ != NULL)
        ll_mcsq_set_next(&g->mcs, &succ->mcs); /* g is private to us until the grant's release */
    return cr_grant_and_warm(l, g, wp);
}

/* ---- release ----------------------------------------------------------------------------- */

/* Does this release (and acquire) run the CPU-aware protocol?  mcscr only (x == NULL), and
 * only under a policy that parks: spinning passive threads never leave the run queue, so
 * restricting them buys nothing, and the paper's reprovisioning serves them faster. */
LL_INLINE bool cr_cpu_aware(const ll_mcscr_lock *l, const ll_mcscrn_lock *x, const ll_wait_policy *wp)
{
    return x == NULL && l->cpu_aware && ll_wait_may_park(wp);
}

/* The contended release of cpu_aware mcscr (mcscr.c, "CPU-aware"): never a wake-up
 * on the critical path.  A parked eldest due for service is reactivated (it leaves
 * the passive set and arrives again) instead of granted; a parked successor is
 * culled like a surplus one; a deficit reprovisions the newest passive thread if it
 * still spins, else frees the lock and keeps the passive set.
 * Returns NULL, or a granted node that was abandoned (cr_grant_and_warm). */
static inline ll_mcscr_node *cr_release_cpu_aware(ll_mcscr_lock *l, ll_mcscr_node *me, ll_mcscr_node *succ,
                                                  ll_wait_policy *wp)
{
    ll_mcscr_node *late = cr_overdue(l, NULL);
    ll_parker *reactivated = NULL; /* the reactivated thread's parker, woken after the release */
    ll_mcscr_node *gone = NULL;
    if (l->passive.eldest != NULL && (late == l->passive.eldest || ll_rand_below(l->fairness) == 0)) {
        if (!cr_parked(l->passive.eldest)) /* running: serve it now */
            return cr_graft_and_grant(l, me, cr_take_eldest(&l->passive), succ, wp);
        /* Published before our release: a reactivated node must never look passive to its
         * owner's self-service (mcscr.c); the wake-up comes after the release.  A node
         * abandoned by its (timed) owner is out of every list now: ours to recycle. */
        ll_mcscr_node *e = cr_take_eldest(&l->passive);
        if (!ll_mcsq_publish(&e->mcs, LL_MCSCR_REACTIVATED, wp, &reactivated))
            ll_qnode_put(e);
    }
    uint64_t now = 0;
    for (;;) {
        if (succ == NULL) {
            /* Deficit.  The newest passive thread still spins (culled less than a spin budget
             * ago): reprovision it, as the paper's step 4; granting it costs no wake-up.  Its
             * parker is read once: seen parked, it is not read again (CR_SEEN_PARKED). */
            ll_mcscr_node *h = l->passive.newest;
            bool spins = h != NULL && !(h->since & CR_SEEN_PARKED);
            if (spins && cr_parked(h)) {
                h->since |= CR_SEEN_PARKED;
                spins = false;
            }
            if (spins) {
                ll_mcscr_node *g = cr_take_newest(&l->passive);
                if (cr_become_tail(l, me, g)) {
                    gone = cr_grant_and_warm(l, g, wp);
                    break;
                }
                cr_push_newest(&l->passive, g); /* an arrival raced in: serve it instead; g stays passive */
            } else if (ll_mcsq_pass_tail(&l->tail, &me->mcs, NULL)) {
                break; /* parked (or nobody passive): free the lock; the passive set stays */
            }
            succ = CR_NODE(ll_mcsq_await_next(&me->mcs));
        }
        /* Cull the surplus once it has lasted `hysteresis` contended releases in a row
         * (mcscr.c, "hysteresis"); until then succ is granted as in MCS. */
        ll_mcscr_node *next = CR_NODE(ll_mcsq_next_for_write(&succ->mcs));
        if (next == NULL) {
            l->surplus = 0;
        } else if (++l->surplus >= l->hysteresis) {
            l->surplus = 0;
            do {
                cr_cull(l, NULL, succ, &now);
                succ = next;
            } while ((next = CR_NODE(ll_mcsq_next_for_write(&succ->mcs))) != NULL);
        }
        if (!cr_parked(succ)) {
            gone = cr_grant_and_warm(l, succ, wp); /* (warm never applies: succ is not parked) */
            break;
        }
        if (next != NULL) {
            /* succ is parked and not last (hysteresis left the waiters behind it): surplus
             * too; cull it and look at its successor. */
            cr_cull(l, NULL, succ, &now);
            succ = next;
            continue;
        }
        /* succ is parked: granting it would put its wake-up inside the critical path.  It is
         * surplus; take it out of the chain (it is the tail) and free the lock, or serve the
         * arrival that beat us to the tail. */
        cr_cull_tail(l, NULL, succ, &now); /* succ's link is NULL: we saw no successor */
        if (ll_mcsq_pass_tail(&l->tail, &succ->mcs, NULL))
            break;
        next = CR_NODE(ll_mcsq_await_next(&succ->mcs));
        ll_mcsq_set_next(&succ->mcs, NULL); /* a listed node's link stays NULL (cr_cull) */
        succ = next;
    }
    ll_wake(reactivated); /* parkers are never freed: a late wake is only spurious */
    return gone;
}

/* The contended release (steps 2-4 of mcscr.c, 2-5 of mcscrn.c): succ is our
 * linked successor or NULL, and succ != NULL or a list is non-empty.  Returns NULL,
 * or the granted node if its owner had abandoned it (a timed waiter that left): then
 * we still hold the lock, in that node's place (mcs_queue.h, "timed acquire"). */
LL_INLINE ll_mcscr_node *cr_release_contended(ll_mcscr_lock *l, ll_mcscrn_lock *x, ll_mcscr_node *me,
                                              ll_mcscr_node *succ, ll_wait_policy *wp)
{
    if (cr_cpu_aware(l, x, wp))
        return cr_release_cpu_aware(l, me, succ, wp);
    ll_mcscr_node *late = cr_overdue(l, x); /* patience_ns: NULL, or an eldest node to serve now */
    if (x != NULL && x->remote.eldest != NULL && (late == x->remote.eldest || ll_rand_below(x->rehome) == 0)) {
        /* NUMA fairness: home moves to the eldest remote waiter, which goes next
         * (it is the new passive list's eldest: rehome keeps the remote order). */
        cr_rehome(l, x, ll_plain_load(&x->remote.eldest->mcs.socket));
        return cr_graft_and_grant(l, me, cr_take_eldest(&l->passive), succ, wp);
    }
    if (l->passive.eldest != NULL && (late == l->passive.eldest || ll_rand_below(l->fairness) == 0)) {
        /* Long-term fairness (trial or patience_ns): graft the eldest passive thread in as our successor. */
        return cr_graft_and_grant(l, me, cr_take_eldest(&l->passive), succ, wp);
    }
    bool may_defer = ll_wait_may_park(wp) && l->defer_ns != 0;
    bool warm = l->warm && ll_wait_has_spin_phase(wp); /* a warmed thread must have a spin phase to be useful */
    uint64_t now = 0;                                  /* clock reading for culled nodes, taken at most once */
    for (;;) {
        if (succ != NULL) {
            /* Cull every node with a linked successor: surplus if home, remote otherwise. */
            ll_mcscr_node *next;
            while ((next = CR_NODE(ll_mcsq_next_for_write(&succ->mcs))) != NULL) {
                cr_cull(l, x, succ, &now);
                succ = next;
            }
            if (cr_is_home(x, succ)) {
                if (warm && l->passive.newest != NULL && cr_parked(succ) && !cr_parked(l->passive.newest)) {
                    /* Serve a spinning passive thread rather than a parked successor, which
                     * stays at the head of the chain (culled once someone queues behind it). */
                    ll_mcscr_node *g = cr_take_newest(&l->passive);
                    ll_mcsq_set_next(&g->mcs, &succ->mcs); /* g is private to us until the grant's release */
                    return ll_mcsq_grant(&g->mcs, 0, wp, NULL) ? NULL : g;
                }
                return cr_grant_and_warm(l, succ, wp);
            }
            /* mcscrn only from here (x != NULL): succ is remote. */
            if (l->passive.newest == NULL) {
                cr_rehome(l, x, ll_plain_load(&succ->mcs.socket)); /* the home socket ran dry */
                return cr_grant_and_warm(l, succ, wp);
            }
            if (may_defer && cr_parked(l->passive.newest)) {
                /* Rather than wake a parked home thread, wait briefly for an arrival behind succ. */
                may_defer = false;
                if (ll_mcsq_await_next_for(&succ->mcs, l->defer_ns) != NULL)
                    continue; /* succ has a successor now: it will be culled */
            }
            /* A home waiter goes before the remote one, which stays at the chain's head. */
            ll_mcscr_node *g = cr_take_newest(&l->passive);
            ll_mcsq_set_next(&g->mcs, &succ->mcs); /* g is private to us until the grant's release */
            return cr_grant_and_warm(l, g, wp);
        }
        /* Deficit: the chain is empty; reprovision, from the home socket if possible
         * (most recently culled first). */
        /* The thread we would reprovision: the newest passive one, else (mcscrn) the eldest remote one. */
        if (may_defer && cr_parked(l->passive.newest != NULL || x == NULL ? l->passive.newest : x->remote.eldest)) {
            /* Defer: waking a parked thread costs more than waiting briefly for an arrival
             * (an active thread coming back from its non-critical section). */
            may_defer = false;
            if ((succ = CR_NODE(ll_mcsq_await_next_for(&me->mcs, l->defer_ns))) != NULL)
                continue;
        }
        if (x != NULL && l->passive.newest == NULL)
            cr_rehome(l, x, ll_plain_load(&x->remote.eldest->mcs.socket)); /* the home socket ran dry (remote is non-empty here) */
        ll_mcscr_node *g = cr_take_newest(&l->passive);
        if (cr_become_tail(l, me, g))
            return cr_grant_and_warm(l, g, wp);
        cr_push_newest(&l->passive, g); /* an arrival raced in: consider it first (it is spinning); g stays passive */
        succ = CR_NODE(ll_mcsq_await_next(&me->mcs));
    }
}

/* The one out-of-line instance of cr_release_contended, for both locks (x = NULL
 * for mcscr), which also releases in the place of granted nodes found abandoned:
 * defined in mcscr.c.  Internal to src/locks. */
LL_COLD void ll_mcscr_release_contended(ll_mcscr_lock *l, ll_mcscrn_lock *x, ll_mcscr_node *me, ll_mcscr_node *succ,
                                        ll_wait_policy *wp);

/* The plain MCS release, when nobody is culled and nobody is linked behind me: true if
 * it freed the lock; else *succ is our linked successor or NULL, for the contended release,
 * and *linking says our pass of the tail failed: an arrival swapped itself in, whose link
 * the caller awaits (ll_mcsq_await_next) before that release. */
LL_INLINE bool cr_release_plain(ll_mcscr_lock *l, ll_mcscrn_lock *x, ll_mcscr_node *me, ll_mcscr_node **succ,
                                bool *linking)
{
    *succ = CR_NODE(ll_mcsq_next(&me->mcs));
    *linking = false;
    if (LL_LIKELY(*succ == NULL && cr_lists_empty(l, x))) {
        if (LL_LIKELY(ll_mcsq_pass_tail(&l->tail, &me->mcs, NULL)))
            return true;
        *linking = true;
    }
    return false;
}

/* The plain release whose pass of the tail failed (mcscr.c): await the arrival's link, then
 * the contended release. */
LL_COLD void ll_mcscr_release_linking(ll_mcscr_lock *l, ll_mcscrn_lock *x, ll_mcscr_node *me, ll_wait_policy *wp);

/* The release: cr_release_plain inline (the interposer's direct verbs inline it), the await
 * and the contended release out of line (cold). */
LL_INLINE void cr_release(ll_mcscr_lock *l, ll_mcscrn_lock *x, ll_mcscr_node *me, ll_wait_policy *wp)
{
    ll_mcscr_node *succ;
    bool linking;
    if (LL_LIKELY(cr_release_plain(l, x, me, &succ, &linking)))
        return;
    if (linking)
        ll_mcscr_release_linking(l, x, me, wp);
    else
        ll_mcscr_release_contended(l, x, me, succ, wp);
}

/* ---- spec keys ---------------------------------------------------------------------------- */

/* The spec keys the two locks share (fairness, defer_ns, warm, patience_ns) with their
 * ranges and defaults, then CPU_AWARE_ENTRY (mcscr's cpu_aware and hysteresis; empty for
 * mcscrn); mcscrn passes its rehome entry, which goes after fairness, as the trailing
 * arguments (with a trailing comma), and words the summaries for its two lists.
 * mcscrn's defaults are mcscr's (include/locklab/mcscrn.h). */
#define CR_PARAMS(FAIRNESS_SUMMARY, DEFER_SUMMARY, PATIENCE_SUMMARY, CPU_AWARE_ENTRY, ...)                                  \
    {                                                                                                     \
        {"fairness", FAIRNESS_SUMMARY, 1, 1u << 30, LL_MCSCR_DEFAULT_FAIRNESS}, __VA_ARGS__               \
        {"defer_ns", DEFER_SUMMARY, 0, 1000000, LL_MCSCR_DEFAULT_DEFER_NS},                               \
        {"warm", "1: when handing over to a parked thread, wake the newest passive one early; serve spinning " \
                 "ones first", 0, 1, 1},                                                                  \
        {"patience_ns", PATIENCE_SUMMARY, 0, 4000000000u, LL_MCSCR_DEFAULT_PATIENCE_NS},                  \
        CPU_AWARE_ENTRY {NULL, NULL, 0, 0, 0},                                                            \
    }

#endif /* LOCKLAB_SRC_LOCKS_PASSIVE_SET_H */
