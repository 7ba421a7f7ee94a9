/* The one list of lock algorithms.  Adding a lock = one file (src/locks/NAME.c, whose
 * ll_lock_ops carries its capabilities: registry.h) + one line here.
 * ll_lock_algorithm() walks this table, then ll_peer_locks[] (other libraries'
 * locks behind the same ops: src/peers/ck.c, or src/peers/none.c when absent). */
#include <stdio.h>

#include "locklab/registry.h"

static const ll_lock_ops *const own_locks[] = {
    &ll_lock_tas, &ll_lock_ttas, &ll_lock_backoff, &ll_lock_ticket, &ll_lock_ticket_pb, &ll_lock_anderson,
    &ll_lock_clh, &ll_lock_mcs, &ll_lock_k42, &ll_lock_twa,
    &ll_lock_mcscr, &ll_lock_lifocr, &ll_lock_loiter, &ll_lock_acr,
    &ll_lock_cna, &ll_lock_hmcs, &ll_lock_mcscrn, &ll_lock_fissile, &ll_lock_shfl,
    &ll_lock_hemlock, &ll_lock_reciprocating, &ll_lock_parkinglot, &ll_lock_standby,
    &ll_lock_pthread, &ll_lock_pthread_adaptive, NULL,
};

const ll_lock_ops *ll_lock_algorithm(size_t i)
{
    size_t own = sizeof own_locks / sizeof own_locks[0] - 1; /* minus the NULL */
    return i < own ? own_locks[i] : ll_peer_locks[i - own];  /* ll_peer_locks is NULL-terminated */
}

char *ll_lock_caps_format(unsigned caps, char *buf, size_t len)
{
    static const char *const names[] = {"parks-itself", "word-lock", "holder-releases", "fork-safe", "wake-into-held"};
    LL_STATIC_ASSERT(LL_CAP_ALL == (1u << sizeof names / sizeof names[0]) - 1, "a name for every LL_CAP_ flag");
    size_t at = 0;
    if (len)
        buf[0] = '\0';
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
        if (caps & (1u << i)) {
            int n = snprintf(at < len ? buf + at : NULL, at < len ? len - at : 0, "%s%s", at ? "," : "", names[i]);
            at += n > 0 ? (size_t)n : 0;
        }
    if (at == 0 && len)
        snprintf(buf, len, "-");
    return buf;
}
