/*
 * The waiting engine shared by every policy: a spin phase bounded by the
 * policy's budget, then (for policies that may park) a park phase.  The
 * policies themselves (spin.c, yield.c, park.c, stp.c, astp.c) only say how
 * long to spin and whether to yield.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "locklab/wait.h"

const ll_wait_ops *const ll_wait_policies[] = {&ll_wait_spin, &ll_wait_yield, &ll_wait_park, &ll_wait_stp,
                                               &ll_wait_astp, NULL};

const ll_wait_ops *ll_wait_find(const char *name)
{
    for (int i = 0; ll_wait_policies[i]; i++)
        if (strcmp(ll_wait_policies[i]->name, name) == 0)
            return ll_wait_policies[i];
    return NULL;
}

void ll_wait_policy_init(ll_wait_policy *wp, const ll_wait_ops *ops, uint64_t spin_ns)
{
    wp->ops = ops;
    wp->spin_ns = spin_ns ? spin_ns : ops->has_budget ? ll_park_cost_ns() : 0;
    wp->min_ns = wp->spin_ns / 16 ? wp->spin_ns / 16 : 1;
    ll_store_relaxed(&wp->adaptive_ns, wp->spin_ns);
}

/* PAUSEs between clock reads / yields: ~64 x 40-140 cycles, well under a microsecond. */
#define STEPS_PER_ROUND 64

/* ---- real-time callers (wait.h) ---------------------------------------------------------- */

static void (*realtime_hook)(void);
void ll_wait_set_realtime_hook(void (*hook)(void)) { realtime_hook = hook; }

/* A real-time caller's nap in a spin that cannot park: the n-th sleeps 1 us << n, at most 1 ms. */
static LL_COLD void realtime_nap(uint32_t n)
{
    ll_sleep_ns(ll_realtime_nap_ns(n));
    if (realtime_hook)
        realtime_hook();
}

void ll_spin_rt_check(uint32_t steps)
{
    if (ll_thread_realtime())
        realtime_nap(steps / LL_RT_CHECK_STEPS - 1);
}

/* Spin (and yield, per policy) until ready(ctx) or the clock reaches deadline (UINT64_MAX: never).
 * A real-time caller stops spinning after LL_RT_CHECK_STEPS steps if its policy may park (the
 * caller parks), else sleeps between rounds (wait.h). */
static bool spin_until(const ll_wait_policy *wp, ll_ready_fn ready, void *ctx, uint64_t deadline)
{
    enum { RT_CHECK_ROUNDS = LL_RT_CHECK_STEPS / STEPS_PER_ROUND };
    for (uint32_t rounds = 1;; rounds++) {
        for (int i = 0; i < STEPS_PER_ROUND; i++) {
            if (ready(ctx))
                return true;
            ll_pause();
        }
        if (wp->ops->yields)
            ll_yield();
        if (deadline != UINT64_MAX && ll_now_ns() >= deadline)
            return ready(ctx);
        if (rounds % RT_CHECK_ROUNDS == 0 && ll_thread_realtime()) {
            if (wp->ops->may_park)
                return ready(ctx);
            realtime_nap(rounds / RT_CHECK_ROUNDS - 1);
        }
    }
}

/* The policy's spin budget for one wait, ns (LL_SPIN_FOREVER: never gives up). */
static uint64_t budget_of(const ll_wait_policy *wp)
{
    return wp->ops->budget_ns ? wp->ops->budget_ns(wp) : LL_SPIN_FOREVER;
}

bool ll_spin_phase(ll_wait_policy *wp, ll_ready_fn ready, void *ctx)
{
    return ll_spin_phase_until(wp, ready, ctx, LL_NO_DEADLINE);
}

bool ll_spin_phase_until(ll_wait_policy *wp, ll_ready_fn ready, void *ctx, uint64_t deadline_ns)
{
    uint64_t budget = budget_of(wp);
    if (budget == 0)
        return ready(ctx);
    uint64_t end = budget == LL_SPIN_FOREVER ? UINT64_MAX : ll_now_ns() + budget;
    return spin_until(wp, ready, ctx, end < deadline_ns ? end : deadline_ns);
}

typedef struct { ll_atomic_u32 *word; uint32_t busy; } word_ne_ctx;
static bool word_ne(void *p)
{
    word_ne_ctx *c = (word_ne_ctx *)p;
    return ll_load_acquire(c->word) != c->busy; /* pairs with the releaser's publishing store */
}

uint32_t ll_wait_while_eq_slow(ll_wait_policy *wp, ll_atomic_u32 *word, uint32_t busy, ll_parker *self)
{
    word_ne_ctx c = {word, busy};
    /* After a wake-up that did not find the word changed (an early "warm-up"
     * unpark, or a spurious one) the waiter spins again before it re-parks. */
    for (;;) {
        bool spun = ll_spin_phase(wp, word_ne, &c);
        if (wp->ops->may_park)
            ll_wait_feedback(wp, spun);
        if (spun || ll_parker_park(self, word_ne, &c))
            return ll_load_acquire(word); /* pairs with the releaser's publishing store */
    }
}

uint32_t ll_wait_while_eq_until(ll_wait_policy *wp, ll_atomic_u32 *word, uint32_t busy, ll_parker *self,
                                uint64_t deadline_ns)
{
    word_ne_ctx c = {word, busy};
    for (;;) {
        uint32_t v = ll_load_acquire(word); /* pairs with the releaser's publishing store */
        uint64_t now = ll_now_ns();
        if (v != busy || now >= deadline_ns)
            return v;
        uint64_t budget = budget_of(wp);
        uint64_t spin_end = budget == LL_SPIN_FOREVER || budget >= deadline_ns - now ? deadline_ns : now + budget;
        bool spun = budget != 0 && spin_until(wp, word_ne, &c, spin_end);
        if (!spun && ll_wait_may_park(wp) && ll_now_ns() < deadline_ns) {
            ll_wait_feedback(wp, false);
            struct timespec until = {(time_t)(deadline_ns / 1000000000u), (long)(deadline_ns % 1000000000u)};
            ll_parker_park_deadline(self, word_ne, &c, CLOCK_MONOTONIC, &until);
        } else if (spun && ll_wait_may_park(wp)) {
            ll_wait_feedback(wp, true);
        }
    }
}

bool ll_spin_try_until(const ll_wait_policy *wp, ll_ready_fn try_acquire, void *ctx, uint64_t deadline_ns)
{
    for (uint32_t steps = 0, i = 1;; i++) {
        if (try_acquire(ctx))
            return true;
        if ((i % STEPS_PER_ROUND) == 0 && ll_now_ns() >= deadline_ns)
            return false;
        ll_wait_relax(wp, &steps);
    }
}

uint32_t ll_wait_while_eq_or_leave(ll_wait_policy *wp, ll_atomic_u32 *word, uint32_t busy, ll_parker *self,
                                   uint64_t deadline_ns)
{
    /* acquire (inside): pairs with the release half of the exchange in ll_grant_word */
    uint32_t v = ll_wait_while_eq_until(wp, word, busy, self, deadline_ns);
    /* acq_rel.  release (success): our earlier writes to the node, before the holder that
     * finds it abandoned takes it over (pairs with the acquire half of ll_grant_word's
     * exchange); acquire (failure: a grant came first): the critical section before it */
    if (v == busy && ll_cas(word, &v, LL_WAIT_ABANDONED, LL_ACQ_REL))
        return LL_WAIT_ABANDONED;
    return v;
}

/* ---- shared wait words -------------------------------------------------------------- */

typedef struct { ll_atomic_u32 *w; uint32_t observed; } word_moved_ctx;
static bool word_moved(void *p)
{
    word_moved_ctx *c = (word_moved_ctx *)p;
    /* acquire: a bump orders the releaser's earlier stores (e.g. grant) before our re-check */
    return ((ll_load_acquire(c->w) ^ c->observed) & ~LL_WAITWORD_SLEEPERS) != 0;
}

void ll_waitword_wait(ll_wait_policy *wp, ll_atomic_u32 *w, uint32_t observed, ll_ready_fn still_waiting, void *ctx)
{
    word_moved_ctx c = {w, observed};
    bool spun = ll_spin_phase(wp, word_moved, &c);
    if (!wp->ops->may_park)
        return; /* spin/yield: the spin phase only ends when the word moved */
    ll_wait_feedback(wp, spun);
    if (!spun)
        ll_waitword_sleep(w, observed, still_waiting, ctx);
}

void ll_waitword_sleep(ll_atomic_u32 *w, uint32_t observed, ll_ready_fn still_waiting, void *ctx)
{
    (void)ll_waitword_sleep_until(w, observed, still_waiting, ctx, LL_NO_DEADLINE);
}

bool ll_waitword_sleep_until(ll_atomic_u32 *w, uint32_t observed, ll_ready_fn still_waiting, void *ctx,
                             uint64_t deadline_ns)
{
    uint32_t v = ll_load_relaxed(w);
    while (((v ^ observed) & ~LL_WAITWORD_SLEEPERS) == 0) {
        /* Always an RMW, even if the flag is already set, so that this waiter is in
         * the word's modification order before a bump or kick (no reliance on fences). */
        if (!ll_cas(w, &v, v | LL_WAITWORD_SLEEPERS, LL_SEQ_CST))
            continue; /* word changed under us: re-examine */
        v |= LL_WAITWORD_SLEEPERS;
        ll_fence(LL_SEQ_CST); /* announce-before-check: pairs with ll_waitword_kick's fence */
        if (!still_waiting(ctx))
            return true;
        if (deadline_ns == LL_NO_DEADLINE) {
            ll_futex_wait(w, v);
        } else {
            struct timespec until = {(time_t)(deadline_ns / 1000000000u), (long)(deadline_ns % 1000000000u)};
            if (ll_futex_wait_until(w, v, CLOCK_MONOTONIC, &until) == ETIMEDOUT) /* ll_now_ns's clock */
                return false;
        }
        v = ll_load_acquire(w); /* pairs with the bump's release */
    }
    return true;
}

void ll_waitword_clear_and_wake(ll_atomic_u32 *w, uint32_t v)
{
    /* Clear the flag, then wake everyone: a sleeper that set it again after our
     * clear waits on a value that no longer matches, or gets the next bump. */
    while ((v & LL_WAITWORD_SLEEPERS) && !ll_cas(w, &v, v & ~LL_WAITWORD_SLEEPERS, LL_RELAXED))
        ;
    ll_futex_wake(w, INT_MAX);
}

void ll_waitword_wake_all(ll_atomic_u32 *w) { ll_futex_wake(w, INT_MAX); }

void *ll_await_link_for(ll_atomic_ptr *link, uint64_t ns)
{
    uint64_t deadline = ll_now_ns() + ns;
    for (;;) {
        for (int i = 0; i < 16; i++) {
            void *n = ll_load_acquire(link); /* acquire: pairs with the successor's link store */
            if (n != NULL)
                return n;
            ll_pause();
        }
        if (ll_now_ns() >= deadline)
            return NULL;
    }
}

void *ll_await_link(ll_atomic_ptr *link)
{
    void *n;
    uint32_t steps = 0;
    while ((n = ll_load_acquire(link)) == NULL) { /* acquire: pairs with the successor's link store */
        ll_spin_steps(&steps, 1); /* the successor may be a lower-priority thread preempted by us */
        if ((steps & 255) == 0)
            ll_yield();
        else
            ll_pause();
    }
    return n;
}
