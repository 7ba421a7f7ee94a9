/*
 * The deliberately broken locks, shared by the two checkers that must catch them:
 *   verify/check.cpp  the model checker (Relacy: weak memory and interleavings)
 *   sim/explore.c     the simulator's schedule exploration (interleavings under
 *                     sequential consistency: it can catch broken-test-then-set,
 *                     whose bug is an interleaving, not the two relaxed-order ones)
 * C and C++ alike; include after locklab/registry.h.
 */
#ifndef LOCKLAB_TESTS_BROKEN_LOCKS_H
#define LOCKLAB_TESTS_BROKEN_LOCKS_H

#include "locklab/registry.h"

/* tas whose acquire exchange is relaxed: nothing orders the previous holder's
 * critical section before ours (x86 hides this; the C++ memory model does not). */
static void relaxed_tas_acquire(void *s, ll_wait_policy *wp)
{
    (void)wp;
    while (ll_xchg((ll_atomic_u32 *)s, 1, LL_RELAXED) != 0) /* BROKEN on purpose: must be acquire */
        ll_pause();
}
static bool relaxed_tas_try(void *s, ll_wait_policy *wp)
{
    (void)wp;
    return ll_xchg((ll_atomic_u32 *)s, 1, LL_RELAXED) == 0; /* BROKEN on purpose: must be acquire */
}
static void word_release(void *s, ll_wait_policy *wp)
{
    (void)wp;
    ll_store_release((ll_atomic_u32 *)s, 0); /* release: pairs with the acquire a correct lock would use */
}
/* The validator's test-then-set: two threads can both see 0 before either stores 1. */
static void tts_acquire(void *s, ll_wait_policy *wp)
{
    (void)wp;
    while (ll_load_acquire((ll_atomic_u32 *)s) != 0) /* acquire: pairs with word_release */
        ll_pause();
    ll_store_relaxed((ll_atomic_u32 *)s, 1); /* BROKEN on purpose: not atomic with the test */
}
static bool tts_try(void *s, ll_wait_policy *wp)
{
    tts_acquire(s, wp);
    return true;
}
/* A ticket lock whose release forgets that a waiter may read the grant concurrently:
 * plain read-modify-write of the grant word is fine (only the holder writes it), so
 * the bug here is the relaxed publication of the grant. */
typedef struct broken_ticket { ll_atomic_u32 next, grant; } broken_ticket;
static void relaxed_ticket_acquire(void *s, ll_wait_policy *wp)
{
    (void)wp;
    broken_ticket *t = (broken_ticket *)s;
    uint32_t me = ll_faa(&t->next, 1, LL_RELAXED); /* relaxed: a ticket number only */
    while (ll_load_acquire(&t->grant) != me)       /* acquire: pairs with the release below */
        ll_pause();
}
static bool relaxed_ticket_try(void *s, ll_wait_policy *wp)
{
    relaxed_ticket_acquire(s, wp);
    return true;
}
static void relaxed_ticket_release(void *s, ll_wait_policy *wp)
{
    (void)wp;
    broken_ticket *t = (broken_ticket *)s;
    ll_store_relaxed(&t->grant, ll_load_relaxed(&t->grant) + 1); /* BROKEN on purpose: must be release */
}

/* tas with a correct acquire whose release touches the word again after its releasing store:
 * the next holder's word freed under it, or, destroyed right after the next holder left, a new
 * lock in the same memory (the model checker's reuse client). */
static void late_tas_acquire(void *s, ll_wait_policy *wp)
{
    (void)wp;
    while (ll_xchg((ll_atomic_u32 *)s, 1, LL_ACQUIRE) != 0) /* acquire: pairs with late_release */
        ll_pause();
}
static bool late_tas_try(void *s, ll_wait_policy *wp)
{
    (void)wp;
    return ll_xchg((ll_atomic_u32 *)s, 1, LL_ACQUIRE) == 0; /* acquire: as above */
}
static void late_release(void *s, ll_wait_policy *wp)
{
    (void)wp;
    ll_store_release((ll_atomic_u32 *)s, 0); /* release: pairs with the acquire exchange */
    ll_store_relaxed((ll_atomic_u32 *)s, 0); /* BROKEN on purpose: after the hand-over store */
}

/* A broken lock's descriptor: spin only, as every lock the checkers run; STATE its state's type. */
#define BROKEN_LOCK(NAME, SUMMARY, STATE, ACQUIRE, TRY, RELEASE)                                      \
    {.name = NAME, .summary = SUMMARY, .policies = LL_SPIN_ONLY, .state_bytes = sizeof(STATE),        \
     .acquire = ACQUIRE, .try_acquire = TRY, .release = RELEASE}
static const ll_lock_ops broken_locks[] = {
    BROKEN_LOCK("broken-relaxed-tas", "tas with a relaxed acquire exchange", ll_atomic_u32,
                relaxed_tas_acquire, relaxed_tas_try, word_release),
    BROKEN_LOCK("broken-test-then-set", "load, then a separate store (the validator's broken lock)", ll_atomic_u32,
                tts_acquire, tts_try, word_release),
    BROKEN_LOCK("broken-relaxed-ticket", "ticket lock whose release publishes the grant relaxed", broken_ticket,
                relaxed_ticket_acquire, relaxed_ticket_try, relaxed_ticket_release),
    BROKEN_LOCK("broken-late-release",
                "tas whose release stores the free word twice (the second after the hand-over)", ll_atomic_u32,
                late_tas_acquire, late_tas_try, late_release),
};
#undef BROKEN_LOCK
enum { NBROKEN = sizeof broken_locks / sizeof broken_locks[0] };

#endif /* LOCKLAB_TESTS_BROKEN_LOCKS_H */
