/*
 * twa — Ticket lock augmented with a Waiting Array.
 * Source: Dice & Kogan, "TWA — Ticket Locks Augmented with a Waiting Array",
 * Euro-Par 2019, §2.
 *
 * Lock words: those of the ticket lock (next, grant), same states.  Plus one
 * array of 4096 wait words shared by all TWA locks in the process:
 *   slot = ((ticket * 127) ^ address of lock) & 4095        (the paper's hash)
 *   slot value = notification sequence << 1 | sleepers bit
 * A waiter more than `threshold` (LongTermThreshold, 1) places from the front
 * is a long-term waiter: it waits on its slot instead of grant.  Release
 * stores grant = k (the handover, first) and then bumps slot(k + threshold)
 * with an atomic add, promoting the thread that is now `threshold` away to
 * short-term waiting on grant.  So at most ~threshold threads poll grant and
 * the handover store invalidates few caches.  Slot collisions are benign:
 * a waiter re-checks grant after every change of its slot.
 *
 * Parking (twa-park/stp/astp): long-term waiters sleep on their slot with a
 * futex (ll_waitword_*).  A short-term waiter whose budget runs out sleeps on
 * slot(its ticket); release then also kicks slot(k) if a sleeper flag is set
 * there.  The spin variant is exactly the paper's algorithm.
 *
 * Timed acquire (ll_twa_acquire_until): as the ticket lock's (ticket.c): a
 * timed waiter takes a ticket and at its deadline leaves a note "ticket t has
 * left" (src/locks/ticket_gone.h); it then bumps slot(t + 1), so that its
 * successor, if asleep as a short-term waiter, wakes and sleeps on slot(t)
 * instead, which the release admitting t kicks: the successor takes t's turn.
 * A timed waiter is served after the waiters ahead of it, as any.
 * Fairness: strict FIFO.
 * Footprint: 16 bytes per lock (the ticket lock's 12, threshold); 16 KiB array shared by all locks; nothing
 * per waiting thread.  Policies: all.
 */
#include "locklab/registry.h"
#include "locklab/twa.h"
#include "ticket_gone.h"

LL_ALIGNED(LL_SECTOR) static ll_atomic_u32 wait_array[LL_TWA_ARRAY_SLOTS];

/* Adjacent tickets land 127 words (508 B) apart: different 128-B sectors. */
static ll_atomic_u32 *slot_of(const ll_twa_lock *l, uint32_t ticket)
{
    return &wait_array[((uintptr_t)ticket * 127u ^ (uintptr_t)l) & (LL_TWA_ARRAY_SLOTS - 1)];
}

typedef struct { ll_twa_lock *l; uint32_t ticket, threshold; } twa_wait_ctx;

static int32_t distance(const twa_wait_ctx *c)
{
    /* acquire: the previous holder's critical section; pairs with the release store of grant in ll_twa_release */
    return (int32_t)(c->ticket - ll_load_acquire(&c->l->ticket.grant));
}
/* The lock is held by a ghost: a timed waiter left, and its turn came (ticket_gone.h). */
static bool ghost(const twa_wait_ctx *c)
{
    /* acquire: the previous holder's critical section, as in distance() */
    return ll_gone_names(&c->l->ticket.gone, ll_load_acquire(&c->l->ticket.grant));
}
static bool still_long_term(void *p) { return distance((twa_wait_ctx *)p) > (int32_t)((twa_wait_ctx *)p)->threshold; }
static bool still_waiting(void *p) { return distance((twa_wait_ctx *)p) != 0 && !ghost((twa_wait_ctx *)p); }
static bool granted(void *p) { return distance((twa_wait_ctx *)p) == 0 || ghost((twa_wait_ctx *)p); }
static bool not_admitted(void *p) { return distance((twa_wait_ctx *)p) != 0; }
static bool admitted(void *p) { return distance((twa_wait_ctx *)p) == 0; }

static void twa_admit(ll_twa_lock *l, uint32_t k, bool parks);

/* The slot a short-term waiter with ticket tx sleeps on: its own, or, if ticket tx - 1
 * has left (a timed waiter), that one's, which the release admitting tx - 1 kicks. */
static ll_atomic_u32 *short_term_slot(ll_twa_lock *l, uint32_t tx)
{
    return slot_of(l, ll_load_relaxed(&l->ticket.gone) == LL_GONE(tx - 1) ? tx - 1 : tx); /* relaxed: a hint,
        re-checked by still_waiting after the sleep announcement; the departing waiter bumps slot(tx) */
}

LL_COLD static void twa_wait(ll_twa_lock *l, uint32_t tx, uint32_t threshold, ll_wait_policy *wp)
{
    twa_wait_ctx c = {l, tx, threshold};
    for (;;) {
        int32_t dx = distance(&c);
        if (dx == 0)
            return;
        uint32_t g = tx - (uint32_t)dx;
        if (LL_UNLIKELY(ll_gone_names(&l->ticket.gone, g)) && ll_gone_take(&l->ticket.gone, g)) {
            twa_admit(l, g + 1, ll_wait_may_park(wp)); /* g's waiter left: its turn is ours, pass it on */
            continue;
        }
        if (dx > (int32_t)threshold) {
            /* Long-term: sample the slot, re-check grant, then wait for the slot to move. */
            ll_atomic_u32 *slot = slot_of(l, tx);
            /* acquire: pairs with the acq_rel faa in ll_waitword_bump (from ll_twa_release), so a
             * slot change we saw comes with the grant store before it */
            uint32_t v = ll_load_acquire(slot);
            if (still_long_term(&c))
                ll_waitword_wait(wp, slot, v, still_long_term, &c);
            continue;
        }
        /* Short-term: poll grant (and a ghost's turn); a parking policy may give up and sleep. */
        bool spun = ll_spin_phase(wp, granted, &c);
        ll_wait_feedback(wp, spun);
        if (spun)
            continue; /* admitted, or a ghost's turn to take: the top of the loop decides */
        ll_atomic_u32 *slot = short_term_slot(l, tx);
        ll_waitword_sleep(slot, ll_load_acquire(slot), still_waiting, &c); /* acquire: as above (ll_waitword_bump) */
    }
}

void ll_twa_init(ll_twa_lock *l, uint32_t threshold)
{
    ll_ticket_init(&l->ticket);
    l->threshold = threshold;
}

void ll_twa_acquire(ll_twa_lock *l, ll_wait_policy *wp)
{
    uint32_t tx = ll_faa(&l->ticket.next, 1, LL_RELAXED); /* relaxed: ordering comes from reading grant */
    /* acquire: pairs with the release store of grant in ll_twa_release (the previous holder's) */
    if (LL_UNLIKELY(ll_load_acquire(&l->ticket.grant) != tx))
        twa_wait(l, tx, l->threshold, wp);
}

/* The ticket lock's (which also takes a ghost's turn: ticket_gone.h). */
bool ll_twa_try_acquire(ll_twa_lock *l) { return ll_ticket_try_acquire(&l->ticket); }

/* Admit ticket k (the holder of k - 1 releases). */
static void twa_admit(ll_twa_lock *l, uint32_t k, bool parks)
{
    /* Read everything we need from the lock first: after the handover it may be destroyed. */
    ll_atomic_u32 *promote = slot_of(l, k + l->threshold), *owner = slot_of(l, k); /* the array is global */
    ll_atomic_u32 *departed = slot_of(l, k - 1);
    /* release: the handover, before anything else; pairs with the acquire loads of grant in
     * ll_twa_acquire and distance() (twa_wait) */
    ll_store_release(&l->ticket.grant, k);
    ll_waitword_bump(promote);      /* promote the next long-term waiter */
    if (parks) {
        /* seq_cst: the handover before we look for sleepers, one fence for both kicks; pairs with
         * the sleeper's fence between its announcement and its re-check (ll_waitword_sleep_until).
         * The handover's store precedes the bump's RMW: on x86-64 that RMW orders it before the
         * kicks' loads, and the fence costs nothing (atomics.h) */
        ll_fence_after_rmw();
        ll_waitword_kick_fenced(owner); /* the new owner, if it slept as a short-term waiter (or its
                                           successor, sleeping there because k's waiter left: ticket_gone.h) */
        /* k's waiter may sleep on slot(k - 1) instead: it saw the note "k - 1 left" and
         * announced itself there after the admission of k - 1 kicked it, while the note's
         * taker (us, or a try_acquire whose release this is) had taken the note but not
         * yet admitted k.  Its re-check then saw neither a ghost nor its turn. */
        ll_waitword_kick_fenced(departed);
    }
}

void ll_twa_release(ll_twa_lock *l, ll_wait_policy *wp)
{
    /* relaxed: only the holder writes grant */
    twa_admit(l, ll_load_relaxed(&l->ticket.grant) + 1, ll_wait_may_park(wp));
}

static bool twa_try(void *l) { return ll_twa_try_acquire((ll_twa_lock *)l); }

/* Timed: reserve the departure note, take a ticket, and wait (spin per policy, then sleep
 * on slot(tx), woken by the promotion and by the admission) until the deadline; then leave
 * a note and wake our successor, which then watches our slot (ticket_gone.h). */
bool ll_twa_acquire_until(ll_twa_lock *l, ll_wait_policy *wp, uint64_t deadline_ns)
{
    int r = ll_gone_reserve_until(&l->ticket.gone, twa_try, l, wp, deadline_ns); /* the lock at once, or the note's reservation */
    if (r != 1)
        return r == 2;
    twa_wait_ctx c = {l, ll_faa(&l->ticket.next, 1, LL_RELAXED), l->threshold}; /* relaxed: as in ll_twa_acquire */
    ll_atomic_u32 *slot = slot_of(l, c.ticket);
    while (!admitted(&c) && ll_now_ns() < deadline_ns) {
        bool spun = ll_spin_phase_until(wp, admitted, &c, deadline_ns);
        if (spun || !ll_wait_may_park(wp))
            continue;
        /* acquire: as in twa_wait (ll_waitword_bump) */
        ll_waitword_sleep_until(slot, ll_load_acquire(slot), not_admitted, &c, deadline_ns);
    }
    if (admitted(&c)) {
        ll_gone_unreserve(&l->ticket.gone);
        return true;
    }
    if (ll_gone_leave(&l->ticket.gone, c.ticket, admitted, &c))
        return true;
    ll_waitword_bump(slot_of(l, c.ticket + 1)); /* our successor may sleep on its slot: watch ours now */
    return false;
}

bool ll_twa_is_locked(ll_twa_lock *l) { return ll_ticket_is_locked(&l->ticket); }

static const ll_param params[] = {
    {"threshold", "LongTermThreshold: waiters farther than this wait on the array", 1, 1024, LL_TWA_DEFAULT_THRESHOLD},
    {NULL, NULL, 0, 0, 0},
};
LL_INIT_ADAPTER(ll_twa_init((ll_twa_lock *)s, (uint32_t)p[0]))
LL_LOCK_ADAPTER(ll_twa_lock, ll_twa)
LL_TIMED_ADAPTER(ll_twa_lock, ll_twa)
LL_STATIC_ASSERT(offsetof(ll_twa_lock, ticket) == 0, "the direct try reads the ticket at the state's start");
LL_DIRECT_VERBS_BY(ll_ticket_direct_try)

const ll_lock_ops ll_lock_twa = {
    .name = "twa", .source = "Dice & Kogan 2019, TWA (ticket lock + waiting array)",
    .summary = "ticket lock; long-term waiters wait on a shared array",
    .fairness = "FIFO", .policies = LL_ALL_POLICIES, .params = params,
    .state_bytes = sizeof(ll_twa_lock), .lock_bytes = sizeof(ll_ticket_lock), .init = init, LL_OPS_VERBS,
};
