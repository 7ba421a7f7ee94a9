/* The one list of lock algorithms.  Adding a lock = one file + one line here.
 * ll_lock_algorithm() walks this table, then ll_peer_locks[] (other libraries'
 * locks behind the same ops: src/peers/ck.c, or src/peers/none.c when absent). */
#include "locklab/acr.h"
#include "locklab/registry.h"

static const ll_lock_ops *const own_locks[] = {
    &ll_lock_tas, &ll_lock_ttas, &ll_lock_backoff, &ll_lock_ticket, &ll_lock_ticket_pb, &ll_lock_anderson,
    &ll_lock_clh, &ll_lock_mcs, &ll_lock_k42, &ll_lock_twa,
    &ll_lock_mcscr, &ll_lock_lifocr, &ll_lock_loiter, &ll_lock_acr,
    &ll_lock_cna, &ll_lock_hmcs, &ll_lock_mcscrn, &ll_lock_fissile, &ll_lock_shfl,
    &ll_lock_hemlock, &ll_lock_reciprocating, &ll_lock_parkinglot, &ll_lock_standby,
    &ll_lock_pthread, &ll_lock_pthread_adaptive, NULL,
};

/* Locks that block waiters in the kernel by themselves (registered with the spin policy only). */
static const ll_lock_ops *const parks_itself[] = {&ll_lock_loiter, &ll_lock_acr, &ll_lock_pthread,
                                                  &ll_lock_pthread_adaptive, &ll_lock_parkinglot, &ll_lock_standby, NULL};

bool ll_lock_parks_itself(const ll_lock_ops *ops)
{
    for (size_t i = 0; parks_itself[i]; i++)
        if (parks_itself[i] == ops)
            return true;
    return false;
}

/* One-word exchange locks (word_lock.h). */
static const ll_lock_ops *const word_locks[] = {&ll_lock_tas, &ll_lock_ttas, NULL};

bool ll_lock_is_word_lock(const ll_lock_ops *ops)
{
    for (size_t i = 0; word_locks[i]; i++)
        if (word_locks[i] == ops)
            return true;
    return false;
}

/* Locks whose state is {per-lock prefix, all zeros when free; tunables the same for
 * every lock of one spec} (ll_placement.inline_prefix_bytes). */
static const struct {
    const ll_lock_ops *ops;
    size_t bytes;
} inline_prefix[] = {
    {&ll_lock_acr, sizeof(ll_acr_lock)}, /* acr.c: acr_state = {ll_acr_lock, ll_acr_params} */
    {NULL, 0},
};

size_t ll_lock_inline_prefix_bytes(const ll_lock_ops *ops)
{
    for (size_t i = 0; inline_prefix[i].ops; i++)
        if (inline_prefix[i].ops == ops)
            return inline_prefix[i].bytes;
    return 0;
}

const ll_lock_ops *ll_lock_algorithm(size_t i)
{
    size_t own = sizeof own_locks / sizeof own_locks[0] - 1; /* minus the NULL */
    return i < own ? own_locks[i] : ll_peer_locks[i - own];  /* ll_peer_locks is NULL-terminated */
}
