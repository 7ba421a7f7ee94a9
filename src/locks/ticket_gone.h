/*
 * ticket_gone.h — leaving a ticket-numbered queue (ticket, ticket-pb, twa,
 * anderson): the timed acquire of a lock whose waiters are identified only by
 * their ticket number, with nowhere to leave a node.
 *
 * A waiter cannot hand its ticket back: the holder before it will admit it
 * anyway.  So a timed waiter that gives up leaves a note instead, in the lock's
 * `gone` word: "ticket t has left".  When t's turn comes, no thread holds it: the
 * lock is held by a ghost.  Any thread that sees the lock admit t while the note
 * names t takes the note (one CAS) and with it t's turn: a waiter releases that
 * turn at once (admits t + 1: if that is its own ticket, it now holds the lock),
 * try_acquire keeps it (it now holds the lock as t).  Waiters that spin look at
 * the note whenever they look at the lock; waiters that sleep are woken by the
 * departing waiter and re-check (twa, anderson).  The departing waiter, after
 * writing its note, looks once more whether its turn came meanwhile: if so, it
 * takes its note back (the same CAS: exactly one of it and a taker wins) and
 * holds the lock, else it leaves.
 *
 * One note per lock: a timed waiter reserves the word (NONE -> RESERVED) before
 * it takes a ticket, and gives the reservation back once it holds the lock, or
 * its note was taken.  A second timed waiter meanwhile polls try_acquire and the
 * reservation: the timed waiter holding the reservation is served within the
 * waiters ahead of it (the lock's FIFO bound), the others within that bound once
 * they get the reservation, which a departure or an acquisition frees within one
 * queue's worth of handovers (not FIFO among timed waiters).
 *
 *   gone == NONE          no timed waiter holds a ticket
 *   gone == RESERVED      a timed waiter holds (or is taking) a ticket
 *   gone == GONE(t)       ticket t's waiter has left (t modulo 2^30)
 */
#ifndef LOCKLAB_SRC_LOCKS_TICKET_GONE_H
#define LOCKLAB_SRC_LOCKS_TICKET_GONE_H

#include "locklab/ticket.h"

enum { LL_GONE_NONE = 0u, LL_GONE_RESERVED = 1u };

#define LL_GONE(t) ((uint32_t)(t) << 2 | 2u)

/* A ticket lock's try when the lock is free (next == grant): take the next ticket.  Inline, so
 * that each ticket lock's direct verbs (registry.h) inline it; ll_ticket_try_acquire (ticket.c)
 * also takes a ghost's turn. */
LL_INLINE bool ll_ticket_try_free(ll_atomic_u32 *next, ll_atomic_u32 *grant)
{
    uint32_t g = ll_load_acquire(grant); /* acquire: pairs with the release store of grant in ll_ticket_release */
    if (ll_load_relaxed(next) != g) /* relaxed: held (or a ghost's turn): fail without the RMW; the CAS decides */
        return false;
    /* next == g means free; grant cannot move while next == g, so the CAS decides. */
    return ll_cas(next, &g, g + 1, LL_RELAXED); /* relaxed: ordering came from the grant load */
}

/* A ticket lock's release: grant the next ticket.  Inline, as the try above (ticket.c's
 * ll_ticket_release, ticket-pb's). */
LL_INLINE void ll_ticket_grant_next(ll_atomic_u32 *grant)
{
    uint32_t g = ll_load_relaxed(grant); /* relaxed: only the holder writes grant */
    ll_store_release(grant, g + 1);      /* release: the critical section; pairs with the acquire loads of grant */
}

/* The direct verbs' try (registry.h) of a lock whose state begins with an ll_ticket_lock
 * (ticket, ticket-pb, twa): a free lock only, never a ghost's turn, which ll_ticket_try_acquire
 * takes: a waiter queued behind the ghost goes first, as FIFO says. */
LL_INLINE bool ll_ticket_direct_try(void *s, ll_wait_policy *wp)
{
    (void)wp;
    ll_ticket_lock *l = (ll_ticket_lock *)s;
    return ll_ticket_try_free(&l->next, &l->grant);
}

/* Does the note name ticket g, whose turn it is (the caller saw it admitted)? */
LL_INLINE bool ll_gone_names(ll_atomic_u32 *gone, uint32_t g)
{
    return ll_load_relaxed(gone) == LL_GONE(g); /* relaxed: a hint; ll_gone_take's CAS decides */
}

/* Take the note naming g (its turn has come): true if we now hold g's turn. */
LL_INLINE bool ll_gone_take(ll_atomic_u32 *gone, uint32_t g)
{
    uint32_t note = LL_GONE(g);
    /* relaxed: the turn's data came with the admission the caller read (acquire); the
     * departed waiter wrote nothing else we read.  The CAS only decides who holds the turn. */
    return ll_load_relaxed(gone) == note && ll_cas(gone, &note, LL_GONE_NONE, LL_RELAXED);
}

/* A timed waiter before taking a ticket: reserve the note.  False if another holds it. */
LL_INLINE bool ll_gone_reserve(ll_atomic_u32 *gone)
{
    uint32_t none = LL_GONE_NONE;
    /* relaxed: a reservation orders no data (the lock's own words do) */
    return ll_load_relaxed(gone) == LL_GONE_NONE && ll_cas(gone, &none, LL_GONE_RESERVED, LL_RELAXED);
}

/* The reserving waiter holds the lock: give the reservation back. */
LL_INLINE void ll_gone_unreserve(ll_atomic_u32 *gone)
{
    ll_store_relaxed(gone, LL_GONE_NONE); /* relaxed: as ll_gone_reserve; only we change RESERVED */
}

/* The reserving waiter with ticket t gives up: write the note, then look whether
 * admitted(ctx) (our turn came meanwhile).  True: it did, and we took the note back:
 * we hold the lock.  False: we left (the note stays until a taker finds it). */
LL_INLINE bool ll_gone_leave(ll_atomic_u32 *gone, uint32_t t, ll_ready_fn admitted, void *ctx)
{
    /* seq_cst: the note before the look at our admission below, against a waiter that
     * looks at the admission, then at the note (spinning waiters look again and again;
     * sleeping ones are woken by the caller after this returns) */
    ll_store(gone, LL_GONE(t), LL_SEQ_CST);
    ll_fence(LL_SEQ_CST);
    if (!admitted(ctx))
        return false;
    uint32_t note = LL_GONE(t);
    if (!ll_cas(gone, &note, LL_GONE_NONE, LL_RELAXED)) /* relaxed: as ll_gone_take */
        return false; /* a taker won: it holds (or passed on) our turn */
    return true;
}

/* A timed acquire's start: try_acquire(ctx), then the reservation, again and again (while
 * another timed waiter holds the reservation) until one succeeds or deadline_ns.  Returns
 * 2 acquired, 1 reserved (the caller takes a ticket), 0 timed out. */
LL_INLINE int ll_gone_reserve_until(ll_atomic_u32 *gone, ll_ready_fn try_acquire, void *ctx,
                                    const ll_wait_policy *wp, uint64_t deadline_ns)
{
    for (uint32_t steps = 0, i = 1;; i++) {
        if (try_acquire(ctx))
            return 2;
        if (ll_gone_reserve(gone))
            return 1;
        if ((i & 63) == 0 && ll_now_ns() >= deadline_ns)
            return 0;
        ll_wait_relax(wp, &steps);
    }
}

#endif /* LOCKLAB_SRC_LOCKS_TICKET_GONE_H */
