/*
 * astp: adaptive spin-then-park (after Dice 2009, "adaptive spinning" in the
 * HotSpot JVM): the spin budget follows recent spin success on this lock.
 * A wait that ended inside the spin phase doubles the budget (up to spin_ns,
 * default the measured park/unpark cost); one that had to park halves
 * it (down to spin_ns/16), so futile spinning fades on locks whose waits are
 * long and comes back when handovers become quick again.  The budget is a
 * relaxed per-lock hint: racy updates only perturb a heuristic.
 */
#include "locklab/wait.h"

static uint64_t astp_budget(const ll_wait_policy *wp)
{
    return ll_load_relaxed((ll_atomic_u64 *)&wp->adaptive_ns); /* a hint, no ordering needed */
}

static void astp_feedback(ll_wait_policy *wp, bool spin_succeeded)
{
    uint64_t b = ll_load_relaxed(&wp->adaptive_ns); /* a hint, no ordering needed */
    b = spin_succeeded ? (b * 2 > wp->spin_ns ? wp->spin_ns : b * 2) : (b / 2 < wp->min_ns ? wp->min_ns : b / 2);
    ll_store_relaxed(&wp->adaptive_ns, b);
}

const ll_wait_ops ll_wait_astp = {"astp", "adaptive spin-then-park: budget doubles on spin success, halves on park",
                                  true, false, true, astp_budget, astp_feedback};
