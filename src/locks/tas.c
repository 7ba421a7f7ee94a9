/*
 * tas — test-and-set lock, "spin on xchgb".
 * Source: Anderson, Lazowska & Levy, "The Performance Implications of Thread
 * Management Alternatives for Shared-Memory Multiprocessors", IEEE TC 1989, §4.
 *
 * Lock word (held):   0 = free, 1 = held.
 * Acquire: xchg(held, 1) until it returns 0.  Release: store 0.
 * Every failed xchg takes the line exclusive, so spinners slow the holder.
 *
 * Fairness: none — probabilistic, unbounded bypass (starvation possible).
 * Footprint: 4 bytes per lock, nothing per waiting thread.
 * Policies: spin, yield (no waiter list, so nobody to unpark).
 */
#include "locklab/tas.h"
#include "word_lock.h"

LL_COLD static void tas_acquire_slow(ll_tas_lock *l, ll_wait_policy *wp)
{
    uint32_t steps = 0;
    do
        ll_wait_relax(wp, &steps);
    while (ll_xchg(&l->held, 1, LL_ACQUIRE) != 0); /* acquire: see the previous holder's writes */
}

LL_WORD_LOCK_DEFINE(ll_tas, tas_acquire_slow) /* init, acquire, try_acquire, release, is_locked, adapter */

const ll_lock_ops ll_lock_tas = {
    .name = "tas", .source = "Anderson, Lazowska, Levy 1989 §4 (spin on xchg)",
    .summary = "test-and-set, spinning on the atomic exchange",
    LL_WORD_LOCK_OPS(ll_tas), /* fairness, policies, caps, sizes, verbs */
};
