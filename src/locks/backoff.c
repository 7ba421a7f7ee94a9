/*
 * backoff — test-and-test-and-set with Ethernet-style randomized exponential
 * backoff.  Source: Anderson, Lazowska, Levy 1989 §4 ("Ethernet-style
 * backoff"), the variant with persistence: a waiter delays whenever it reads
 * the lock busy, not only after a failed exchange, so spinners touch the line
 * once per delay rather than once per release.
 *
 * Lock word (held):   0 = free, 1 = held.
 * Delay: uniform in [0, cap) PAUSE steps; cap starts at min_delay and doubles
 * after every failure up to max_delay (spec keys min, max).
 *
 * Fairness: none — newcomers (small cap) beat old waiters (large cap); the
 * paper calls this out, and the benchmark shows starvation.
 * Footprint: 12 bytes per lock (word + the two caps), nothing per waiter.
 * Policies: spin only (the backoff is the waiting policy).
 */
#include <stdio.h>

#include "locklab/backoff.h"
#include "locklab/registry.h"

static bool try_once(ll_backoff_lock *l)
{
    /* relaxed read is only a hint; acquire on the xchg sees the previous holder's writes */
    return ll_load_relaxed(&l->held) == 0 && ll_xchg(&l->held, 1, LL_ACQUIRE) == 0; /* acquire: pairs with ll_backoff_release */
}

/* The waiters' loop: back off, then try, until the lock is ours (true) or deadline_ns
 * (LL_NO_DEADLINE: never) passes (false). */
static bool backoff_wait(ll_backoff_lock *l, uint64_t deadline_ns)
{
    uint64_t cap = l->min_delay;
    uint32_t steps = 0;
    do {
        if (deadline_ns != LL_NO_DEADLINE && ll_now_ns() >= deadline_ns)
            return false;
        ll_spin_steps(&steps, (uint32_t)cap + 1); /* a real-time caller sleeps (wait.h) */
        ll_backoff_step(&cap, cap < l->max_delay ? l->max_delay : cap); /* a min above max (expert API) stays */
    } while (!try_once(l));
    return true;
}

LL_COLD static void backoff_acquire_slow(ll_backoff_lock *l) { (void)backoff_wait(l, LL_NO_DEADLINE); }

void ll_backoff_init(ll_backoff_lock *l, uint32_t min_delay, uint32_t max_delay)
{
    ll_store_relaxed(&l->held, 0); /* relaxed: like pthread_mutex_init, publish the lock yourself */
    l->min_delay = min_delay;
    l->max_delay = max_delay;
}

void ll_backoff_acquire(ll_backoff_lock *l, ll_wait_policy *wp)
{
    (void)wp; /* the backoff is the waiting policy */
    if (LL_UNLIKELY(ll_xchg(&l->held, 1, LL_ACQUIRE) != 0)) /* acquire: pairs with ll_backoff_release's store */
        backoff_acquire_slow(l);
}

bool ll_backoff_try_acquire(ll_backoff_lock *l) { return try_once(l); }

void ll_backoff_release(ll_backoff_lock *l, ll_wait_policy *wp)
{
    (void)wp;
    ll_store_release(&l->held, 0); /* release: the critical section; pairs with the acquiring xchg */
}

bool ll_backoff_is_locked(ll_backoff_lock *l) { return ll_load_acquire(&l->held) != 0; /* acquire: pairs with ll_backoff_release */ }

static const ll_param params[] = {
    {"min", "initial backoff cap, PAUSE steps", 1, 1u << 20, LL_BACKOFF_DEFAULT_MIN},
    {"max", "largest backoff cap, PAUSE steps", 1, 1u << 24, LL_BACKOFF_DEFAULT_MAX},
    {NULL, NULL, 0, 0, 0},
};

static int init(void *s, const uint64_t *p, char *err, size_t errlen)
{
    if (p[0] > p[1]) {
        snprintf(err, errlen, "backoff: min=%llu must not exceed max=%llu", (unsigned long long)p[0],
                 (unsigned long long)p[1]);
        return -1;
    }
    ll_backoff_init((ll_backoff_lock *)s, (uint32_t)p[0], (uint32_t)p[1]);
    return 0;
}
LL_LOCK_ADAPTER(ll_backoff_lock, ll_backoff)
/* Timed: the waiters' own backoff loop, until the deadline (barging, as they are). */
static bool acquire_until(void *s, ll_wait_policy *wp, uint64_t deadline_ns)
{
    (void)wp;
    return try_once((ll_backoff_lock *)s) || backoff_wait((ll_backoff_lock *)s, deadline_ns);
}

LL_DIRECT_VERBS()

const ll_lock_ops ll_lock_backoff = {
    .name = "backoff", .source = "Anderson, Lazowska, Levy 1989 §4 (Ethernet-style backoff)",
    .summary = "TTAS with randomized exponential backoff",
    .fairness = "none (newcomers favoured; starvation possible)", .policies = LL_SPIN_ONLY, .params = params,
    LL_OPS_STATE_IS(ll_backoff_lock), .init = init, LL_OPS_VERBS,
};
