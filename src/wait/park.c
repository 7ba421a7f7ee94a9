/* park: block in the kernel (futex) as soon as the lock is found busy.
 * Cheapest in CPU time, but every handover to a parked waiter pays a futex
 * wake-to-run latency (~35 us here) inside the critical path. */
#include "locklab/wait.h"

static uint64_t park_budget(const ll_wait_policy *wp)
{
    (void)wp;
    return 0;
}

const ll_wait_ops ll_wait_park = {"park", "block in the kernel at once (futex)", true, false, false, park_budget, NULL};
