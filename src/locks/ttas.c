/*
 * ttas — test-and-test-and-set lock, "spin on read".
 * Source: Anderson, Lazowska & Levy, "The Performance Implications of Thread
 * Management Alternatives for Shared-Memory Multiprocessors", IEEE TC 1989, §4.
 *
 * Lock word (held):   0 = free, 1 = held.
 * Acquire: one xchg; on failure spin reading the word in the local cache
 * until it reads 0, then xchg again.  A release still sends every spinner to
 * the bus at once (the "quiescence" storm the paper describes).
 *
 * Fairness: none — unbounded bypass.
 * Footprint: 4 bytes per lock, nothing per waiting thread.
 * Policies: spin, yield.
 */
#include "locklab/ttas.h"
#include "word_lock.h"

LL_COLD static void ttas_acquire_slow(ll_ttas_lock *l, ll_wait_policy *wp)
{
    uint32_t steps = 0;
    do {
        while (ll_load_relaxed(&l->held) != 0) /* relaxed: only a hint; the xchg orders */
            ll_wait_relax(wp, &steps);
    } while (ll_xchg(&l->held, 1, LL_ACQUIRE) != 0); /* acquire: see the previous holder's writes */
}

LL_WORD_LOCK_DEFINE(ll_ttas, ttas_acquire_slow) /* init, acquire, try_acquire, release, is_locked, adapter */

const ll_lock_ops ll_lock_ttas = {
    .name = "ttas", .source = "Anderson, Lazowska, Levy 1989 §4 (spin on read)",
    .summary = "test-and-test-and-set, spinning on a plain read",
    LL_WORD_LOCK_OPS(ll_ttas), /* fairness, policies, caps, sizes, verbs */
};
