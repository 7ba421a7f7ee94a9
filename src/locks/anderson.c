/*
 * anderson — array-based queue lock.
 * Source: Anderson, "The Performance of Spin Lock Alternatives for Shared-Memory
 * Multiprocessors", IEEE TPDS 1990; Table 4.1 of Anderson, Lazowska & Levy 1989
 * (§4): each arrival takes a sequence
 * number with fetch-and-increment and spins on its own slot (myPlace mod P);
 * a release taps the next slot.
 *
 * Lock words:  next = next ticket;  slot[i] = (ticket allowed in) << 1 | sleepers
 *   slot[t mod P] == t << 1      ticket t may enter
 * Difference from Table 4.1: a slot holds the admitted ticket number instead
 * of HAS_LOCK/MUST_WAIT.  With the flags, more than P simultaneous waiters
 * would break mutual exclusion; with numbers, ticket t + P waits on the same
 * slot as t until the slot reads its own number, so any thread count is safe
 * (P only bounds how many spin on distinct lines).  It also drops the
 * paper's "reset my flag to MUST_WAIT" store.  Bit 0 of a slot says a waiter
 * sleeps there (park policies; see ll_waitword_* in wait.h).
 *
 * Timed acquire (ll_anderson_acquire_until): the timed waiter takes a ticket as
 * any other (after reserving the lock's departure note, gone) and waits on its
 * slot until the deadline; then it leaves a note "ticket t has left"
 * (src/locks/ticket_gone.h) and wakes its successor if asleep: a waiter whose
 * predecessor has left watches the predecessor's slot instead of its own, and
 * when it admits the predecessor takes that turn and admits itself (a
 * try_acquire takes a last ticket's ghost turn likewise).  A timed waiter is
 * served after the waiters ahead of it, as any.
 * Fairness: strict FIFO.
 * Footprint: P * 64 bytes of slots + 256 bytes per lock (P = 64 by default,
 * spec key slots); nothing per waiting thread.  Policies: all.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "locklab/anderson.h"
#include "locklab/registry.h"
#include "slot_array.h"
#include "ticket_gone.h"

void ll_anderson_init(ll_anderson_lock *l, ll_anderson_slot *slots, uint32_t nslots)
{
    l->mask = nslots - 1;
    l->slots = slots;
    for (uint32_t i = 0; i < nslots; i++) /* slot i admits ticket i - P (never arrives): closed */
        ll_store_relaxed(&slots[i].word, i == 0 ? 0u : (uint32_t)(i - nslots) << 1);
    ll_store_relaxed(&l->next, 0); /* relaxed: like pthread_mutex_init, publish the lock to other threads yourself */
    ll_store_relaxed(&l->gone, LL_GONE_NONE); /* relaxed: as above */
}

LL_INLINE ll_atomic_u32 *slot_of(ll_anderson_lock *l, uint32_t t) { return &l->slots[t & l->mask].word; }

/* A wait on slot w (observed there) by the waiter with ticket t. */
typedef struct { ll_anderson_lock *l; uint32_t t; ll_atomic_u32 *w; uint32_t observed; } anderson_ctx;
static bool moved(void *p)
{
    anderson_ctx *c = (anderson_ctx *)p;
    /* acquire: pairs with the releaser's publish */
    return ((ll_load_acquire(c->w) ^ c->observed) & ~LL_WAITWORD_SLEEPERS) != 0;
}
/* Ticket t - 1 has left (a timed waiter): we watch its slot and take its turn (ticket_gone.h). */
static bool pred_gone(void *p)
{
    anderson_ctx *c = (anderson_ctx *)p;
    return ll_gone_names(&c->l->gone, c->t - 1);
}
static bool pred_here(void *p) { return !pred_gone(p); }
static bool own_ready(void *p) { return moved(p) || pred_gone(p); }
static bool pred_ready(void *p) { return moved(p) || !pred_gone(p); }
static bool admitted(void *p)
{
    anderson_ctx *c = (anderson_ctx *)p;
    return (ll_load_acquire(slot_of(c->l, c->t)) & ~LL_WAITWORD_SLEEPERS) == c->t << 1; /* acquire: as in moved */
}

/* Ticket t waits for its slot to admit it; or, while ticket t - 1 has left, for t - 1's
 * slot, to take its turn and admit itself. */
LL_COLD static void anderson_wait(ll_anderson_lock *l, uint32_t t, ll_wait_policy *wp)
{
    anderson_ctx c = {l, t, NULL, 0};
    for (;;) {
        bool on_pred = pred_gone(&c);
        uint32_t x = on_pred ? t - 1 : t;
        c.w = slot_of(l, x);
        c.observed = ll_load_acquire(c.w); /* acquire: pairs with the releaser's publish */
        if ((c.observed & ~LL_WAITWORD_SLEEPERS) == x << 1) {
            if (!on_pred)
                return;
            if (ll_gone_take(&l->gone, t - 1))
                ll_waitword_publish(wp, slot_of(l, t), t << 1); /* t - 1's turn is ours: admit ourselves */
            continue;
        }
        bool spun = ll_spin_phase(wp, on_pred ? pred_ready : own_ready, &c);
        if (!ll_wait_may_park(wp))
            continue;
        ll_wait_feedback(wp, spun);
        if (!spun) /* the sleep re-checks the note after announcing itself (ll_waitword_sleep) */
            ll_waitword_sleep(c.w, c.observed, on_pred ? pred_gone : pred_here, &c);
    }
}

void ll_anderson_acquire(ll_anderson_lock *l, ll_wait_policy *wp)
{
    uint32_t t = ll_faa(&l->next, 1, LL_RELAXED); /* relaxed: ordering comes from the slot */
    uint32_t v = ll_load_acquire(slot_of(l, t)); /* acquire: pairs with the releaser's publish */
    if (LL_UNLIKELY((v & ~LL_WAITWORD_SLEEPERS) != t << 1))
        anderson_wait(l, t, wp);
    l->holder = t; /* holder-only word, read by our release */
}

bool ll_anderson_try_acquire(ll_anderson_lock *l)
{
    uint32_t t = ll_load_relaxed(&l->next); /* relaxed: re-validated by the CAS */
    uint32_t v = ll_load_acquire(&l->slots[t & l->mask].word); /* acquire: pairs with ll_waitword_publish in ll_anderson_release */
    /* Ticket t admitted and not yet taken: the slot cannot move while next == t. */
    if ((v & ~LL_WAITWORD_SLEEPERS) != t << 1 || !ll_cas(&l->next, &t, t + 1, LL_RELAXED)) {
        /* Held by a ghost (the last ticket's timed waiter left, and its turn came): take its turn. */
        t = ll_load_relaxed(&l->next) - 1; /* relaxed: as above */
        anderson_ctx c = {l, t, NULL, 0};
        if (LL_LIKELY(!ll_gone_names(&l->gone, t)) || !admitted(&c) || !ll_gone_take(&l->gone, t))
            return false;
    }
    l->holder = t;
    return true;
}

static bool anderson_try(void *l) { return ll_anderson_try_acquire((ll_anderson_lock *)l); }

/* Timed: reserve the departure note, take a ticket, wait on its slot until the deadline;
 * then leave a note, and wake our successor if it sleeps: it watches our slot now. */
bool ll_anderson_acquire_until(ll_anderson_lock *l, ll_wait_policy *wp, uint64_t deadline_ns)
{
    int r = ll_gone_reserve_until(&l->gone, anderson_try, l, wp, deadline_ns); /* the lock at once, or the note's reservation */
    if (r != 1)
        return r == 2;
    uint32_t t = ll_faa(&l->next, 1, LL_RELAXED); /* relaxed: ordering comes from the slot */
    anderson_ctx c = {l, t, slot_of(l, t), 0};
    while (!admitted(&c) && ll_now_ns() < deadline_ns) {
        c.observed = ll_load_acquire(c.w); /* acquire: pairs with the releaser's publish */
        bool spun = ll_spin_phase_until(wp, moved, &c, deadline_ns);
        if (!spun && ll_wait_may_park(wp))
            ll_waitword_sleep_until(c.w, c.observed, pred_here, &c, deadline_ns); /* no note but ours: true */
    }
    if (admitted(&c)) {
        ll_gone_unreserve(&l->gone);
    } else if (!ll_gone_leave(&l->gone, t, admitted, &c)) {
        /* Our note is written (and fenced, in ll_gone_leave): wake a successor asleep on its
         * slot without changing it (its sleep re-checks the note after announcing itself). */
        ll_atomic_u32 *next_slot = slot_of(l, t + 1);
        if (ll_load_relaxed(next_slot) & LL_WAITWORD_SLEEPERS) /* relaxed: ordered by that fence */
            ll_waitword_wake_all(next_slot);
        return false;
    }
    l->holder = t;
    return true;
}

void ll_anderson_release(ll_anderson_lock *l, ll_wait_policy *wp)
{
    uint32_t t = l->holder + 1;
    ll_waitword_publish(wp, &l->slots[t & l->mask].word, t << 1);
}

bool ll_anderson_is_locked(ll_anderson_lock *l)
{
    uint32_t t = ll_load_relaxed(&l->next); /* relaxed: a snapshot, as in try_acquire */
    uint32_t v = ll_load_acquire(&l->slots[t & l->mask].word); /* acquire: pairs with ll_anderson_release's publish */
    return (v & ~LL_WAITWORD_SLEEPERS) != t << 1; /* free iff the next ticket is already admitted */
}

/* Generic handle: the lock itself, its slots allocated by init. */

static const ll_param params[] = {
    {"slots", "array slots, a power of two (waiters beyond it share slots)", 2, 1u << 16, LL_ANDERSON_DEFAULT_SLOTS},
    {NULL, NULL, 0, 0, 0},
};
static int init(void *s, const uint64_t *p, char *err, size_t errlen)
{
    void *mem = ll_slot_array("anderson", p[0], sizeof(ll_anderson_slot), err, errlen);
    if (!mem)
        return -1;
    ll_anderson_init((ll_anderson_lock *)s, (ll_anderson_slot *)mem, (uint32_t)p[0]);
    return 0;
}
static void destroy(void *s) { free(((ll_anderson_lock *)s)->slots); }
LL_LOCK_ADAPTERS(ll_anderson_lock, ll_anderson)

const ll_lock_ops ll_lock_anderson = {
    .name = "anderson", .source = "Anderson 1990; Anderson, Lazowska, Levy 1989 Table 4.1",
    .summary = "array-based queue lock, one slot per waiter",
    .fairness = "FIFO", .policies = LL_ALL_POLICIES, .params = params,
    .state_bytes = sizeof(ll_anderson_lock),
    .lock_bytes = offsetof(ll_anderson_lock, holder) /* the holder's ticket: bookkeeping, as in other handles */ +
        LL_ANDERSON_DEFAULT_SLOTS * sizeof(ll_anderson_slot),
    .init = init, .destroy = destroy, LL_OPS_VERBS,
};
