/*
 * ts_standby.h — the standby's side of the TS gate (include/locklab/ts_gate.h),
 * once, for the locks that put a queue behind a barging test-and-set word
 * (fissile: a CNA queue; shfl: a shuffled MCS queue).  Private to src/locks.
 * Source: the "impatient" standby of Dice & Kogan, Fissile Locks, §3 (and
 * LOITER's, Malthusian Locks App. A.1).
 *
 * The queue's head, the standby, is the only waiter that contends for the
 * word: it spins on it (TTAS; global spinning on one word by one thread per
 * lock, through ll_wait_relax: yielding under the yield policy) until its CAS
 * wins.  Once it has waited patience_ns it raises `impatient`, which turns
 * arrivals away from the fast path, so it is bypassed at most patience_ns
 * plus one barge per thread that read the flag before it was raised; it
 * clears the flag once it owns the word.  `impatient` is relaxed everywhere:
 * it orders no data (ll_ts_gate_try says why).
 * Timed (ll_ts_gate_standby_until): the same spin, cut at the caller's deadline;
 * a standby that gives up clears `impatient` if it raised it (it alone sets and
 * clears it) and returns without the word: nothing else records it, so it leaves
 * no trace, and the caller passes the standby role on.
 */
#ifndef LOCKLAB_SRC_LOCKS_TS_STANDBY_H
#define LOCKLAB_SRC_LOCKS_TS_STANDBY_H

#include "locklab/ts_gate.h"

/* Clock reads in the standby's spin: one per this many attempts. */
enum { LL_TS_GATE_CLOCK_EVERY = 64 };

/* The standby takes the gate before deadline_ns (ll_now_ns clock; LL_NO_DEADLINE: none):
 * true owning it, false if the deadline passed first (the gate as if we had never
 * waited).  Cold, one copy per lock file. */
LL_COLD __attribute__((unused)) static bool ll_ts_gate_standby_until(ll_ts_gate *g, uint64_t patience_ns,
                                                                    ll_wait_policy *wp, uint64_t deadline_ns)
{
    uint64_t deadline = ll_now_ns() + patience_ns;
    bool impatient = false, owner = false;
    uint32_t free_ = 0, relax = 0;
    for (uint32_t steps = 1;; steps++) {
        /* acquire: pairs with the releasing store in ll_ts_gate_release */
        if (ll_load_relaxed(&g->locked) == 0 && ll_cas(&g->locked, &free_, 1, LL_ACQUIRE)) {
            owner = true;
            break;
        }
        free_ = 0;
        ll_wait_relax(wp, &relax);
        if (steps % LL_TS_GATE_CLOCK_EVERY != 0 || (impatient && deadline_ns == LL_NO_DEADLINE))
            continue; /* no clock read due, or none needed any more */
        uint64_t now = ll_now_ns();
        if (now >= deadline_ns)
            break; /* timed out: leave (header) */
        if (!impatient && now >= deadline) {
            ll_store_relaxed(&g->impatient, 1); /* relaxed: gates barging only (header) */
            impatient = true;
        }
    }
    if (impatient)
        ll_store_relaxed(&g->impatient, 0); /* relaxed: as above */
    return owner;
}

/* The standby takes the gate (returns owning it). */
LL_INLINE void ll_ts_gate_standby(ll_ts_gate *g, uint64_t patience_ns, ll_wait_policy *wp)
{
    ll_ts_gate_standby_until(g, patience_ns, wp, LL_NO_DEADLINE);
}

#endif /* LOCKLAB_SRC_LOCKS_TS_STANDBY_H */
