/*
 * stp: spin-then-park (Malthusian paper §5.1).  Spin for budget_ns, then park.
 * Karlin et al. show that spinning for as long as blocking costs before
 * blocking is 2-competitive; the default budget is therefore the cost of one
 * park/unpark measured on this machine at first use (ll_park_cost_ns, a core
 * service: src/core/parkcost.c); spec key spin_ns overrides it.
 */
#include "locklab/wait.h"

static uint64_t stp_budget(const ll_wait_policy *wp) { return wp->spin_ns; }

const ll_wait_ops ll_wait_stp = {"stp", "spin for spin_ns (default: measured park/unpark cost), then park",
                                 true, false, true, stp_budget, NULL};
