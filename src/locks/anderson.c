/*
 * anderson — array-based queue lock.
 * Source: Anderson 1990; Table 4.1 of Anderson, Lazowska, Levy 1989
 * (thread-management-alternatives.txt §4): each arrival takes a sequence
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
 * Fairness: strict FIFO.
 * Footprint: P * 64 bytes of slots + 256 bytes per lock (P = 64 by default,
 * spec key slots); nothing per waiting thread.  Policies: all.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "locklab/anderson.h"
#include "locklab/registry.h"

void ll_anderson_init(ll_anderson_lock *l, ll_anderson_slot *slots, uint32_t nslots)
{
    l->mask = nslots - 1;
    l->slots = slots;
    for (uint32_t i = 0; i < nslots; i++) /* slot i admits ticket i - P (never arrives): closed */
        ll_store_relaxed(&slots[i].word, i == 0 ? 0u : (uint32_t)(i - nslots) << 1);
    ll_store_relaxed(&l->next, 0); /* relaxed: like pthread_mutex_init, publish the lock to other threads yourself */
}

static bool always(void *ctx) { (void)ctx; return true; }

LL_COLD static void anderson_wait(ll_atomic_u32 *slot, uint32_t want, uint32_t v, ll_wait_policy *wp)
{
    do {
        /* The condition is the slot itself: a publish changes it, so no extra re-check. */
        ll_waitword_wait(wp, slot, v, always, NULL);
        v = ll_load_acquire(slot); /* acquire: pairs with the releaser's publish */
    } while ((v & ~LL_WAITWORD_SLEEPERS) != want);
}

void ll_anderson_acquire(ll_anderson_lock *l, ll_wait_policy *wp)
{
    uint32_t t = ll_faa(&l->next, 1, LL_RELAXED); /* relaxed: ordering comes from the slot */
    ll_atomic_u32 *slot = &l->slots[t & l->mask].word;
    uint32_t v = ll_load_acquire(slot); /* acquire: pairs with the releaser's publish */
    if (LL_UNLIKELY((v & ~LL_WAITWORD_SLEEPERS) != t << 1))
        anderson_wait(slot, t << 1, v, wp);
    l->holder = t; /* holder-only word, read by our release */
}

bool ll_anderson_try_acquire(ll_anderson_lock *l)
{
    uint32_t t = ll_load_relaxed(&l->next); /* relaxed: re-validated by the CAS */
    uint32_t v = ll_load_acquire(&l->slots[t & l->mask].word); /* acquire: pairs with ll_waitword_publish in ll_anderson_release */
    /* Ticket t admitted and not yet taken: the slot cannot move while next == t. */
    if ((v & ~LL_WAITWORD_SLEEPERS) != t << 1 || !ll_cas(&l->next, &t, t + 1, LL_RELAXED))
        return false;
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
    uint32_t n = (uint32_t)p[0];
    if (n & (n - 1)) {
        snprintf(err, errlen, "anderson: slots=%u is not a power of two (valid: 2, 4, 8, ..., 65536)", n);
        return -1;
    }
    void *mem = NULL;
    if (posix_memalign(&mem, LL_SECTOR, (size_t)n * sizeof(ll_anderson_slot)) != 0) {
        snprintf(err, errlen, "anderson: out of memory for %u slots", n);
        return -1;
    }
    ll_anderson_init((ll_anderson_lock *)s, (ll_anderson_slot *)mem, n);
    return 0;
}
static void destroy(void *s) { free(((ll_anderson_lock *)s)->slots); }
LL_LOCK_ADAPTER(ll_anderson_lock, ll_anderson)

const ll_lock_ops ll_lock_anderson = {
    "anderson", "Anderson 1990; Anderson, Lazowska, Levy 1989 Table 4.1", "array-based queue lock, one slot per waiter",
    "FIFO", LL_ALL_POLICIES, params, sizeof(ll_anderson_lock),
    offsetof(ll_anderson_lock, holder) /* the holder's ticket: bookkeeping, as in other handles */ +
        LL_ANDERSON_DEFAULT_SLOTS * sizeof(ll_anderson_slot), 0,
    init, destroy, acquire, try_acquire, release,
};
