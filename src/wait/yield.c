/* yield: spin 64 PAUSEs, then sched_yield() between rounds; never parks.
 * Advisory on Linux (CFS may run the yielder again at once): the Malthusian
 * paper (§5.1) finds it worse than parking, kept here as a measured baseline. */
#include "locklab/wait.h"

const ll_wait_ops ll_wait_yield = {"yield", "spin 64 PAUSEs, then sched_yield between rounds; never parks", false,
                                   true, false, NULL, NULL};
