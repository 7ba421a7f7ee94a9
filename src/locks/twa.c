/*
 * twa — Ticket lock augmented with a Waiting Array.
 * Source: Dice & Kogan, "TWA — Ticket Locks Augmented with a Waiting Array"
 * (twa-ticket-waiting-array.txt §2).
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
 * Fairness: strict FIFO.
 * Footprint: 8 bytes per lock; 16 KiB array shared by all locks; nothing
 * per waiting thread.  Policies: all.
 */
#include "locklab/registry.h"
#include "locklab/twa.h"

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
static bool still_long_term(void *p) { return distance((twa_wait_ctx *)p) > (int32_t)((twa_wait_ctx *)p)->threshold; }
static bool still_waiting(void *p) { return distance((twa_wait_ctx *)p) != 0; }
static bool granted(void *p) { return distance((twa_wait_ctx *)p) == 0; }

LL_COLD static void twa_wait(ll_twa_lock *l, uint32_t tx, uint32_t threshold, ll_wait_policy *wp)
{
    twa_wait_ctx c = {l, tx, threshold};
    for (;;) {
        int32_t dx = distance(&c);
        if (dx == 0)
            return;
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
        /* Short-term: poll grant; a parking policy may give up and sleep on slot(tx). */
        bool spun = ll_spin_phase(wp, granted, &c);
        ll_wait_feedback(wp, spun);
        if (spun)
            return;
        ll_atomic_u32 *slot = slot_of(l, tx);
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

bool ll_twa_try_acquire(ll_twa_lock *l) { return ll_ticket_try_acquire(&l->ticket); }

void ll_twa_release(ll_twa_lock *l, ll_wait_policy *wp)
{
    /* Read everything we need from the lock first: after the handover it may be destroyed. */
    uint32_t k = ll_load_relaxed(&l->ticket.grant) + 1; /* relaxed: only the holder writes grant */
    ll_atomic_u32 *promote = slot_of(l, k + l->threshold), *owner = slot_of(l, k); /* the array is global */
    bool parks = ll_wait_may_park(wp);
    /* release: the handover, before anything else; pairs with the acquire loads of grant in
     * ll_twa_acquire and distance() (twa_wait) */
    ll_store_release(&l->ticket.grant, k);
    ll_waitword_bump(promote);      /* promote the next long-term waiter */
    if (parks)
        ll_waitword_kick(owner); /* the new owner, if it slept as a short-term waiter */
}

bool ll_twa_is_locked(ll_twa_lock *l) { return ll_ticket_is_locked(&l->ticket); }

static const ll_param params[] = {
    {"threshold", "LongTermThreshold: waiters farther than this wait on the array", 1, 1024, LL_TWA_DEFAULT_THRESHOLD},
    {NULL, NULL, 0, 0, 0},
};
LL_INIT_ADAPTER(ll_twa_init((ll_twa_lock *)s, (uint32_t)p[0]))
LL_LOCK_ADAPTER(ll_twa_lock, ll_twa)

const ll_lock_ops ll_lock_twa = {
    "twa", "Dice & Kogan 2019, TWA (ticket lock + waiting array)", "ticket lock; long-term waiters wait on a shared array",
    "FIFO", LL_ALL_POLICIES, params, sizeof(ll_twa_lock), sizeof(ll_ticket_lock), 0,
    init, NULL, acquire, try_acquire, release,
};
