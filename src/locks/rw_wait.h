/*
 * rw_wait.h — what the reader-writer locks share (rw_pft.c, rw_numa.c):
 *
 * 1. Waiting on a word of the lock under any policy.  Many threads wait on the
 *    same words of a reader-writer lock (every reader behind a writer), so a
 *    waiter cannot be woken through a node of its own.  Each such word keeps
 *    one bit that says "someone sleeps on me": a waiter spins per its policy
 *    (ll_spin_phase), then, if the policy may park, sets the bit with a CAS and
 *    sleeps in the kernel on the word's value (futex).  Every condition a
 *    waiter waits for is a change of the very word it sleeps on, so the
 *    futex's own compare closes the window between the check and the sleep,
 *    and the releaser's RMW on that word sees the bit in the word's
 *    modification order: no fence, no lost wake-up.  The releaser issues the
 *    futex wake after its releasing RMW (as glibc does): a syscall on the
 *    address, harmless if the lock was destroyed meanwhile (at most a spurious
 *    wake-up of another waiter, which every waiter tolerates).
 *
 * 2. The writers' ticket (win, wout): writers are served FIFO among themselves.
 *    wout = ticket served << 1 | sleepers bit; a release advances it and clears
 *    the bit in one CAS, and wakes every sleeper if the bit was set (each woken
 *    writer whose turn has not come sets it again).  A timed writer does not
 *    take a ticket it could not give back: it waits (on wout, as the others)
 *    for a moment when no writer holds or awaits a ticket and takes one then
 *    (so timed writers are not FIFO against untimed ones; they are served
 *    whenever the writers' queue runs empty).
 */
#ifndef LOCKLAB_SRC_LOCKS_RW_WAIT_H
#define LOCKLAB_SRC_LOCKS_RW_WAIT_H

#include <errno.h>
#include <limits.h>

#include "locklab/rwlock.h"

/* A waiting condition on the value of the word waited on (and on nothing that can make it
 * true without changing that word). */
typedef bool (*ll_rw_cond)(uint32_t v, void *ctx);
typedef struct {
    ll_atomic_u32 *w;
    ll_rw_cond ok;
    void *ctx;
} ll_rw_ready_ctx;
static inline bool ll_rw_ready(void *p)
{
    ll_rw_ready_ctx *r = (ll_rw_ready_ctx *)p;
    return r->ok(ll_load_acquire(r->w), r->ctx); /* acquire: pairs with the releasing RMW on w */
}

/* Wait until ok(*w) holds (true) or deadline_ns (ll_now_ns; LL_NO_DEADLINE: none) passes
 * first (false).  bit is w's sleepers bit.  The sleeper tests ok on the very value its CAS
 * installed and sleeps on that value: a word that changes and comes back to it (a reader
 * that raises an indicator and lowers it again, waking nobody yet) leaves the condition as
 * it was on that value, so the sleep is right; testing a fresh load instead could see the
 * passing value, and sleep on the other one for ever (the model checker found that). */
static inline bool ll_rw_wait(ll_wait_policy *wp, ll_atomic_u32 *w, uint32_t bit, ll_rw_cond ok, void *ctx,
                              uint64_t deadline_ns)
{
    ll_rw_ready_ctx r = {w, ok, ctx};
    if (ll_spin_phase_until(wp, ll_rw_ready, &r, deadline_ns))
        return true;
    if (!ll_wait_may_park(wp))
        return ll_rw_ready(&r); /* spin, yield: the spin phase ends only at the deadline */
    ll_wait_feedback(wp, false);
    for (;;) {
        /* acquire (load and CAS, also a failed CAS's read): ok(v) may let us go on v, so v
         * must come with the releaser's section (its releasing RMW on w, or a later RMW of
         * that release sequence: every write of these words is an RMW).  Not a relaxed read
         * and an acquire fence: ThreadSanitizer does not see fences.  The bit only needs to
         * be in w's modification order before the releaser's RMW (a single-word protocol). */
        uint32_t v = ll_load_acquire(w);
        if (!(v & bit) && !ll_cas(w, &v, v | bit, LL_ACQUIRE))
            continue;
        v |= bit;
        if (ok(v, ctx))
            return true;
        if (deadline_ns == LL_NO_DEADLINE) {
            ll_futex_wait(w, v);
        } else {
            if (ll_now_ns() >= deadline_ns)
                return ll_rw_ready(&r);
            struct timespec until = {(time_t)(deadline_ns / 1000000000u), (long)(deadline_ns % 1000000000u)};
            if (ll_futex_wait_until(w, v, CLOCK_MONOTONIC, &until) == ETIMEDOUT) /* ll_now_ns's clock */
                return ll_rw_ready(&r);
        }
        if (ll_rw_ready(&r))
            return true;
    }
}

/* ---- the writers' ticket --------------------------------------------------------------- */
typedef struct ll_rw_ticket {
    ll_atomic_u32 win;  /* next ticket (mod 2^31 compared) */
    ll_atomic_u32 wout; /* ticket served << 1 | sleepers bit */
} ll_rw_ticket;
#define LL_RW_TICKET_MASK 0x7fffffffu

typedef struct {
    ll_rw_ticket *t;
    uint32_t mine;
} ll_rw_turn_ctx;
static inline bool ll_rw_turn_is(uint32_t wout, void *p) { return (wout >> 1) == ((ll_rw_turn_ctx *)p)->mine; }
static inline bool ll_rw_turn_came(void *p)
{
    ll_rw_turn_ctx *c = (ll_rw_turn_ctx *)p;
    /* acquire: the previous writer's critical section; pairs with the release CAS in ll_rw_ticket_release */
    return ll_rw_turn_is(ll_load_acquire(&c->t->wout), c);
}
static inline void ll_rw_ticket_acquire(ll_rw_ticket *t, ll_wait_policy *wp)
{
    /* relaxed: a ticket number only; the acquire is the load of wout */
    ll_rw_turn_ctx c = {t, ll_faa(&t->win, 1, LL_RELAXED) & LL_RW_TICKET_MASK};
    if (!ll_rw_turn_came(&c))
        ll_rw_wait(wp, &t->wout, 1u, ll_rw_turn_is, &c, LL_NO_DEADLINE);
}
/* No writer holds or awaits a ticket: take one (true), else false. */
static inline bool ll_rw_ticket_try(ll_rw_ticket *t)
{
    uint32_t out = ll_load_acquire(&t->wout) >> 1; /* acquire: as ll_rw_turn_came */
    uint32_t in = ll_load_relaxed(&t->win);        /* relaxed: the CAS decides */
    /* relaxed: wout's acquire load above ordered the previous writer's section; the CAS only
     * decides who takes the ticket whose turn it is */
    return (in & LL_RW_TICKET_MASK) == out && ll_cas(&t->win, &in, in + 1, LL_RELAXED);
}
typedef struct {
    ll_rw_ticket *t;
} ll_rw_idle_ctx;
/* The writers' queue is empty, given wout (win only grows, which makes this false). */
static inline bool ll_rw_ticket_idle(uint32_t wout, void *p)
{
    ll_rw_ticket *t = ((ll_rw_idle_ctx *)p)->t;
    /* relaxed: a hint; ll_rw_ticket_try decides */
    return (ll_load_relaxed(&t->win) & LL_RW_TICKET_MASK) == (wout >> 1);
}
/* The timed writer's ticket (see the header): false at the deadline, nothing taken. */
static inline bool ll_rw_ticket_acquire_until(ll_rw_ticket *t, ll_wait_policy *wp, uint64_t deadline_ns)
{
    ll_rw_idle_ctx c = {t};
    while (!ll_rw_ticket_try(t)) {
        /* the queue becomes idle only by a release, which changes wout (our futex word) */
        if (ll_now_ns() >= deadline_ns ||
            (!ll_rw_ticket_idle(ll_load_relaxed(&t->wout), &c) && /* relaxed: a hint, as ll_rw_ticket_idle */
             !ll_rw_wait(wp, &t->wout, 1u, ll_rw_ticket_idle, &c, deadline_ns)))
            return false;
    }
    return true;
}
static inline void ll_rw_ticket_release(ll_rw_ticket *t)
{
    uint32_t v = ll_load_relaxed(&t->wout); /* relaxed: the CAS validates it */
    /* release: our critical section to the next writer's acquire load of wout (ll_rw_turn_came) */
    while (!ll_cas(&t->wout, &v, (v + 2u) & ~1u, LL_RELEASE))
        ;
    if (v & 1u)
        ll_futex_wake(&t->wout, INT_MAX);
}

#endif
