/*
 * Waiting policies: *how* a thread waits, independent of *who* a lock admits.
 *
 *   policy  spins?            yields?  parks?               file
 *   ------  ----------------- -------  -------------------  ---------------
 *   spin    forever (PAUSE)   no       never                src/wait/spin.c
 *   yield   64 PAUSEs/round   yes      never                src/wait/yield.c
 *   park    no                no       at once              src/wait/park.c
 *   stp     budget_ns         no       after the budget     src/wait/stp.c
 *   astp    adaptive budget   no       after the budget     src/wait/astp.c
 *
 * A lock waits through one of two shapes, both usable with every policy:
 *   - ll_wait_while_eq():  local spinning on a word of the waiter's own queue
 *     node; the releaser wakes the waiter's parker (ll_wait_wakee/ll_wake).
 *   - ll_waitword_*():     waiting on a shared word (a TWA slot, an Anderson
 *     slot) whose bit 0 says "someone sleeps here"; releasers change the word
 *     with ll_waitword_bump()/ll_waitword_publish(), which wake all sleepers.
 * Global-spinning locks (tas, ttas, ticket) only spin or yield: ll_wait_relax().
 *
 * Real-time callers (ll_thread_realtime: SCHED_FIFO, SCHED_RR, SCHED_DEADLINE):
 * sched_yield never lets a lower-priority thread run, so a waiter that spins
 * or yields on the CPU of a lower-priority holder would starve it forever.
 * Every spin of the engine therefore asks, every LL_RT_CHECK_STEPS steps
 * (about 10-100 us), whether its caller runs a real-time policy; if so, a
 * policy that may park ends its spin phase and parks, and a wait that never
 * parks (spin and yield policies, global spinning, backoff, waiting for a
 * queue link or a guard: ll_spin_steps) sleeps instead, 1 us doubling to 1 ms.
 * The library's own short waits outside the engine (the arena's lock, the
 * interposer's one-time set-up) take the same turns (ll_yield_turn, core.h).
 */
#ifndef LOCKLAB_WAIT_H
#define LOCKLAB_WAIT_H

#include "core.h"

LL_API_BEGIN

#define LL_SPIN_FOREVER UINT64_MAX
#define LL_NO_DEADLINE UINT64_MAX /* the deadline_ns of a wait without one */

/* ns, or less if deadline_ns (ll_now_ns clock) comes sooner: a spin budget cut to a deadline. */
LL_INLINE uint64_t ll_ns_before(uint64_t deadline_ns, uint64_t ns)
{
    uint64_t now = ll_now_ns(), left = deadline_ns > now ? deadline_ns - now : 0;
    return ns < left ? ns : left;
}

typedef struct ll_wait_policy ll_wait_policy;
typedef struct ll_wait_ops {
    const char *name;
    const char *summary;
    bool may_park;
    bool yields;
    bool has_budget; /* spin_ns is meaningful (spec key spin_ns) */
    /* Spin budget for the next wait, ns; NULL means spin forever (never park). */
    uint64_t (*budget_ns)(const ll_wait_policy *wp);
    /* Called after a wait that could park: did the spin phase succeed? (may be NULL) */
    void (*feedback)(ll_wait_policy *wp, bool spin_succeeded);
} ll_wait_ops;

struct ll_wait_policy {
    const ll_wait_ops *ops;
    uint64_t spin_ns;          /* stp: fixed budget; astp: upper bound */
    uint64_t min_ns;           /* astp: lower bound */
    ll_atomic_u64 adaptive_ns; /* astp: current budget, relaxed (a hint) */
};

extern const ll_wait_ops ll_wait_spin, ll_wait_yield, ll_wait_park, ll_wait_stp, ll_wait_astp;
extern const ll_wait_ops *const ll_wait_policies[]; /* NULL-terminated */
const ll_wait_ops *ll_wait_find(const char *name);

/* Initialise a policy; spin_ns = 0 means the default (the measured park cost,
 * ll_park_cost_ns in core.h). */
void ll_wait_policy_init(ll_wait_policy *wp, const ll_wait_ops *ops, uint64_t spin_ns);
/* Static initialiser for policies without a budget (spin, yield, park). */
#define LL_WAIT_POLICY_INIT(ops) { &(ops), 0, 0, LL_ATOMIC_INIT(0) }

/* Spin (and yield, per policy) until ready(ctx) or the budget is spent.
 * Returns true if ready.  Spin and yield policies never give up. */
bool ll_spin_phase(ll_wait_policy *wp, ll_ready_fn ready, void *ctx);
/* The same, but never past deadline_ns (ll_now_ns clock; spin and yield policies too). */
bool ll_spin_phase_until(ll_wait_policy *wp, ll_ready_fn ready, void *ctx, uint64_t deadline_ns);

/* ---- what a lock may ask of a policy (locks never read wp->ops themselves) -------- */
/* Can a waiter under wp block in the kernel?  Then a waker must unpark it
 * (ll_wait_wakee), and a shared wait word needs its sleepers bit. */
LL_INLINE bool ll_wait_may_park(const ll_wait_policy *wp) { return wp->ops->may_park; }
/* Does a waiter under wp spin for a bounded budget before it parks (stp, astp)?
 * Only then is an early unpark useful: the woken waiter spins again for its
 * budget (an anticipatory warm-up, Malthusian paper §5.1 note 19), whereas a
 * pure park policy would just park again. */
LL_INLINE bool ll_wait_has_spin_phase(const ll_wait_policy *wp) { return wp->ops->has_budget; }

/* Tell an adaptive policy whether a wait ended in its spin phase. */
LL_INLINE void ll_wait_feedback(ll_wait_policy *wp, bool spin_succeeded)
{
    if (wp->ops->feedback)
        wp->ops->feedback(wp, spin_succeeded);
}

/* ---- local waiting on one's own node ------------------------------------------- */
uint32_t ll_wait_while_eq_slow(ll_wait_policy *wp, ll_atomic_u32 *word, uint32_t busy, ll_parker *self);
/* Wait until *word != busy; returns the new value (acquire). */
LL_INLINE uint32_t ll_wait_while_eq(ll_wait_policy *wp, ll_atomic_u32 *word, uint32_t busy, ll_parker *self)
{
    uint32_t v = ll_load_acquire(word); /* pairs with the releaser's publishing store */
    return LL_LIKELY(v != busy) ? v : ll_wait_while_eq_slow(wp, word, busy, self);
}
/* The same, but give up at deadline_ns (ll_now_ns clock): returns the word's value, which
 * is still busy if the deadline passed first.  Spins per policy (spin and yield policies
 * too stop at the deadline), then parks until woken or the deadline. */
uint32_t ll_wait_while_eq_until(ll_wait_policy *wp, ll_atomic_u32 *word, uint32_t busy, ll_parker *self,
                                uint64_t deadline_ns);
/* ---- leaving a local wait (timed waiters of queue locks) ----------------------- */
/* A timed waiter waiting on its own word leaves at its deadline by one CAS from busy
 * to LL_WAIT_ABANDONED; a holder grants such a word with ll_grant_word, an exchange,
 * which tells whether the waiter had left first.  The one word decides the race:
 * exactly one of them wins.  (mcs_queue.h, "timed acquire", tells what a holder does
 * with an abandoned node.)  No lock uses this value as a busy or granted value. */
#define LL_WAIT_ABANDONED 0xfffffffeu
/* Wait until *word != busy (the new value, acquire) or deadline_ns (ll_now_ns); then
 * CAS busy -> LL_WAIT_ABANDONED.  Returns the granted value, or LL_WAIT_ABANDONED: the
 * waiter left, and whatever holds the word is no longer the caller's. */
uint32_t ll_wait_while_eq_or_leave(ll_wait_policy *wp, ll_atomic_u32 *word, uint32_t busy, ll_parker *self,
                                   uint64_t deadline_ns);
/* Grant a word a waiter may leave: exchange value in; false if the waiter had left
 * (the word read LL_WAIT_ABANDONED): then the caller did not hand anything over. */
LL_INLINE bool ll_grant_word(ll_atomic_u32 *word, uint32_t value)
{
    /* acq_rel.  release: the critical section (and whatever the holder wrote for the
     * grantee) to the waiter's acquire load in ll_wait_while_eq(_until/_or_leave).
     * acquire: a departure, i.e. the departed waiter's writes before its release CAS in
     * ll_wait_while_eq_or_leave, before the holder takes over its node.  An exchange, not
     * a store: it must see a departure that came first. */
    return ll_xchg(word, value, LL_ACQ_REL) != LL_WAIT_ABANDONED;
}

/* Handover in two steps, because after the handover store the lock (and the
 * policy, which lives in it) may already be released and destroyed:
 *   ll_parker *p = ll_wait_wakee(wp, succ->parker);   // before the store
 *   ll_store_release(&succ->flag, 0);                 // the handover
 *   ll_wake(p);                                       // touches only the parker
 * ll_wait_wakee returns NULL for policies that never park. */
LL_INLINE ll_parker *ll_wait_wakee(const ll_wait_policy *wp, ll_parker *waiter)
{
    return ll_wait_may_park(wp) ? waiter : NULL;
}
LL_INLINE void ll_wake(ll_parker *p)
{
    if (p)
        ll_parker_unpark(p); /* parkers are never freed: a late wake is only spurious */
}

/* A queue successor swapped itself into the tail but has not yet linked itself
 * into *link: wait for the link (a short window, unless the successor was
 * preempted there, hence a yield every 256 steps). */
void *ll_await_link(ll_atomic_ptr *link);
/* The same, but give up after ns: NULL if no successor linked itself by then. */
void *ll_await_link_for(ll_atomic_ptr *link, uint64_t ns);

/* ---- the expert verbs ---------------------------------------------------------------- */
/* Declares the common verbs of a lock-only algorithm P with lock type L
 * (docs/design.md, "Expert headers"):
 *   void P_acquire(L *l, ll_wait_policy *wp);   bool P_try_acquire(L *l);
 *   void P_release(L *l, ll_wait_policy *wp);   bool P_is_locked(L *l);  (a snapshot)
 * Each header declares P_init itself (its arguments after the lock are the
 * algorithm's memory, if any, then its spec keys). */
#define LL_LOCK_VERBS(P, L)                                                              \
    void P##_acquire(L *l, ll_wait_policy *wp);                                          \
    bool P##_try_acquire(L *l);                                                          \
    void P##_release(L *l, ll_wait_policy *wp);                                          \
    bool P##_is_locked(L *l)

/* ---- real-time callers --------------------------------------------------------------- */
#define LL_RT_CHECK_STEPS 1024u /* a power of two */
#define LL_STEPS_PER_YIELD 64u   /* what a yield counts for in ll_spin_steps: a check every 16 yields */
/* Every LL_RT_CHECK_STEPS steps of a spin that never parks: if the caller runs a
 * real-time policy, sleep (1 us << (steps / LL_RT_CHECK_STEPS), at most 1 ms). */
void ll_spin_rt_check(uint32_t steps);
/* Count n steps (PAUSEs, or what a backoff round or a yield is worth) of a spin
 * loop that never parks, *steps starting at 0; crossing a multiple of
 * LL_RT_CHECK_STEPS calls ll_spin_rt_check. */
LL_INLINE void ll_spin_steps(uint32_t *steps, uint32_t n)
{
    uint32_t before = *steps;
    *steps = before + n;
    if (LL_UNLIKELY(((before ^ *steps) & ~(LL_RT_CHECK_STEPS - 1u)) != 0))
        ll_spin_rt_check(*steps);
}
/* Called (if set) each time a real-time caller sleeps in a spin that has no parking
 * fallback: the interposer warns once that its lock never parks (src/interpose/config.c). */
void ll_wait_set_realtime_hook(void (*hook)(void));

/* ---- global spinning --------------------------------------------------------------- */
/* The timed acquire of a barging lock: try(ctx) until it succeeds (true) or deadline_ns
 * (ll_now_ns clock) passes (false), with ll_wait_relax between tries, as the lock's own
 * spinning waiters do (tas, ttas). */
bool ll_spin_try_until(const ll_wait_policy *wp, ll_ready_fn try_acquire, void *ctx, uint64_t deadline_ns);

/* One polite delay step inside a global spin loop (PAUSE, a yield every 64th step under
 * a yielding policy, a sleep under a real-time policy: ll_spin_steps). */
LL_INLINE void ll_wait_relax(const ll_wait_policy *wp, uint32_t *steps)
{
    ll_pause();
    ll_spin_steps(steps, 1);
    if (wp->ops->yields && (*steps & 63) == 0)
        ll_yield();
}

/* Randomized exponential backoff (Anderson, Lazowska & Levy's "Ethernet-style"): pause a
 * uniform [0, *cap) PAUSEs, then double *cap, up to max.  backoff, loiter and acr use it
 * after losing a race for a free-looking word. */
LL_INLINE void ll_backoff_step(uint64_t *cap, uint64_t max)
{
    for (uint64_t d = ll_rand_below(*cap); d > 0; d--)
        ll_pause();
    *cap = *cap * 2 < max ? *cap * 2 : max;
}

/* ---- shared wait words (bit 0 = sleepers present) --------------------------------- */
#define LL_WAITWORD_SLEEPERS 1u
#define LL_WAITWORD_STEP 2u
/* Wait until *w differs from 'observed' (ignoring bit 0), or still_waiting(ctx)
 * turns false.  still_waiting is checked after announcing sleep, so a releaser
 * that publishes the caller's condition and then bumps or inspects the word
 * cannot be missed. */
void ll_waitword_wait(ll_wait_policy *wp, ll_atomic_u32 *w, uint32_t observed, ll_ready_fn still_waiting, void *ctx);
/* The same without the spin phase: announce (set bit 0), re-check, sleep.  For
 * callers that spun on something else first (a TWA short-term waiter). */
void ll_waitword_sleep(ll_atomic_u32 *w, uint32_t observed, ll_ready_fn still_waiting, void *ctx);
/* The same, giving up at deadline_ns (ll_now_ns clock): false if it passed while asleep. */
bool ll_waitword_sleep_until(ll_atomic_u32 *w, uint32_t observed, ll_ready_fn still_waiting, void *ctx,
                             uint64_t deadline_ns);
/* Advance the word (faa STEP) and wake its sleepers, if any: the faa inline, the wake-up
 * (ll_waitword_clear_and_wake: clear the flag, then wake every sleeper) out of line. */
void ll_waitword_clear_and_wake(ll_atomic_u32 *w, uint32_t v);
LL_INLINE void ll_waitword_bump(ll_atomic_u32 *w)
{
    /* release: orders the caller's earlier publication (grant, slot) before the bump */
    uint32_t v = ll_faa(w, LL_WAITWORD_STEP, LL_ACQ_REL) + LL_WAITWORD_STEP;
    if (LL_UNLIKELY(v & LL_WAITWORD_SLEEPERS))
        ll_waitword_clear_and_wake(w, v);
}
/* Store a new value (bit 0 clear) into w and wake its sleepers, if any. */
void ll_waitword_wake_all(ll_atomic_u32 *w);
LL_INLINE void ll_waitword_publish(const ll_wait_policy *wp, ll_atomic_u32 *w, uint32_t value)
{
    if (!ll_wait_may_park(wp))
        ll_store_release(w, value); /* release: publish what the waiter will read after seeing value */
    else if (ll_xchg(w, value, LL_ACQ_REL) & LL_WAITWORD_SLEEPERS) /* acq_rel: as above, and see the flag */
        ll_waitword_wake_all(w);
}
/* Wake sleepers on w, if any, after publishing a condition they re-check
 * (the publish-then-check side of the Dekker pairing with ll_waitword_wait).
 * Only for policies that may park: decide that before the publishing store.
 * ll_waitword_kick_fenced: the same after the caller's own seq_cst fence (ll_fence, or
 * ll_fence_after_rmw right after an RMW that follows the publication), which one
 * publication's several kicks share (twa's release). */
LL_INLINE void ll_waitword_kick_fenced(ll_atomic_u32 *w)
{
    /* relaxed: the caller's fence orders the publication before this load; the sleeper's
     * announcement (ll_waitword_sleep_until: seq_cst CAS, seq_cst fence, re-check) is the
     * other half: either this load sees its flag or its re-check sees the condition */
    if (LL_UNLIKELY(ll_load_relaxed(w) & LL_WAITWORD_SLEEPERS))
        ll_waitword_bump(w);
}
LL_INLINE void ll_waitword_kick(ll_atomic_u32 *w)
{
    ll_fence(LL_SEQ_CST); /* condition published before we look for sleepers */
    ll_waitword_kick_fenced(w);
}

LL_API_END
#endif /* LOCKLAB_WAIT_H */
