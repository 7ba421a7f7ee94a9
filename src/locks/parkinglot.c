/*
 * parkinglot — a lock of two words whose waiters park in a process-global
 * table keyed by the lock's address: the design of WebKit's WTF::Lock
 * (Pizlo, "Locking in WebKit", 2016) and of Rust's parking_lot (Amanieu
 * d'Antras; its RawMutex and parking_lot_core), with a store release.  A lock
 * costs eight bytes of the caller's memory and nothing else: no allocation,
 * no destroy.
 *
 * Lock words:
 *   locked  0 free, 1 held
 *   parked  1: some thread may be parked in the table under this lock's
 *           address; set by a waiter (under the bucket's lock) before it
 *           parks, cleared under the bucket's lock by a releaser or a leaving
 *           waiter when the last one goes, or by the next release when a
 *           waiter set it and then found the lock free
 *   (0,0) free; (1,0) held; (1,1) held, waiters parked; (0,1) free with waiters
 *   parked (a woken waiter or an arrival will take it: barging)
 * WTF::Lock and parking_lot keep both in one byte and release with a CAS.
 * Two words let the release be a load of parked and a store to locked: an
 * uncontended pair costs one RMW (glibc's costs two).  One word would need a
 * CAS, or a load of the word the acquiring CAS just wrote, which stalls on x86
 * (a locked instruction's store is not forwarded to a later load).  What the
 * two words buy, measured: docs/sota.md ("Where our results may differ").
 * The table (src/locks/park_table.h, shared by every parkinglot lock): 256
 * buckets hashed by address, each a small lock and a FIFO list of parked
 * waiters (a queue-node slot per parked thread).
 * Acquire: CAS locked 0 -> 1 ((0,0) -> (1,0)).  Else (slow path): while the
 * lock is free, CAS it (barging: (0,p) -> (1,p)); while nobody is parked, spin
 * up to LL_PARKINGLOT_SPINS rounds; then lock the bucket, set parked ((1,0) ->
 * (1,1)), and if the lock is still held, append ourselves and park until a
 * releaser sets our token.  Token HANDOFF:
 * the lock is ours.  Token RETRY: the lock was freed for us to compete for;
 * spin again, and if we must park again we go back to our place in the
 * bucket's list, ordered by first park (the front, since a woken waiter was
 * its lock's first; a waiter that left after a nap goes behind older ones).
 * Release: if parked reads 0, store locked = 0 ((1,0) -> (0,0)) and touch
 * nothing more (the lock may be destroyed at once).  The price of having no RMW: the waiter's
 * "set parked, then check locked" (seq_cst) and the releaser's "load parked,
 * then store locked" (no fence) are a Dekker pair with a fence on one side
 * only, so a waiter that announces while the release's store is still in its
 * store buffer can park although the release read parked as 0: a lost
 * wake-up, the lock free and the waiter asleep.  Its announcement stays, so
 * the next release by anyone unparks the lock's first waiter; and a parked
 * waiter sleeps in naps (LL_PARKINGLOT_NAP_NS, 1 ms, doubling up to 128 ms):
 * after each, if the lock is free, it leaves the list and competes again.  A
 * lost wake-up thus costs its waiter one nap (1 ms: it happens as it parks),
 * never a hang (tests/test_expert_api.c makes one by hand).
 * Else (parked read 1): lock the bucket, unlink the first waiter with our
 * address, and either hand it the lock directly (a fair unlock: it has been
 * waiting since its first park for >= LL_PARKINGLOT_FAIR_NS and the bucket's
 * fair timer has expired; locked stays 1: (1,1) -> (1,1), or (1,0) for the
 * last waiter; the timer is re-armed uniformly in [0, 2 x FAIR_NS)) or free
 * the lock and let it compete ((1,1) -> (0,1), or (0,0) for the last);
 * parked stays 1 iff more waiters remain; set its token, unlock the bucket,
 * unpark it.  With nobody to unpark, clear parked and free the lock ((1,1) ->
 * (0,0)).  The lock is last touched
 * by those stores: after them it may be destroyed (the bucket, the node and
 * the parker are ours).
 * Choices: the spin is parking_lot's SpinWait (3 rounds of 2, 4, 8 PAUSEs, then
 * 7 rounds that yield the CPU; WTF::Lock yields 40 times): a spin that only
 * pauses loses to glibc where holders yield inside the critical section
 * (sysbench threads; docs/sota.md);
 * fairness needs both parking_lot's per-bucket random timer (mean FAIR_NS)
 * and the waiter's own wait (FAIR_NS since its first park), and a waiter that parks again goes back to its place by first park, so the
 * eldest parked waiter of a lock is the one unparked and, past FAIR_NS, handed
 * the lock at the next fair unlock.  The timer is what keeps handoffs rare
 * when every waiter has waited FAIR_NS (oversubscribed: 64 threads on 2 CPUs):
 * a handoff to a parked thread leaves the lock idle for a wake-up (tens of
 * microseconds), and with the per-waiter rule alone every release becomes one
 * (measured: docs/results/2026-11-24-sota.md).
 * Fork: the child's table is emptied (park_table.h, "Fork"); a parked word
 * still set is then cleared by the lock's next release, which finds nobody to
 * unpark.
 *
 * Timed acquire (ll_parkinglot_acquire_until): as acquire, with the park cut
 * at the deadline (parking_lot's park_until).  A waiter that wakes timed out
 * takes the bucket lock and looks at its token: still WAITING, it unlinks
 * itself and, if it was its lock's last parked waiter, clears parked (as a
 * releaser unparking the last one would), and leaves after one last try of
 * the lock (a release may have missed it during that last nap, which ends
 * with no look at the lock of its own: "Release"); set, a releaser came
 * first and it goes on as woken (HANDOFF: it owns the lock, although its
 * deadline passed; RETRY: it competes once more).  The bucket lock decides the
 * race: the releaser sets tokens and the leaver unlinks only under it.  A
 * timed waiter lets pass what any waiter does (below) until its deadline.
 *
 * Fairness: none short-term (barging: running threads take a freed lock before
 * a woken waiter); eventual: a parked waiter gets a direct handoff once it has
 * waited FAIR_NS (0.5 ms), is the first of its lock's parked waiters (which it
 * becomes after at most as many unlocks as there are waiters ahead of it),
 * and its bucket's fair timer has expired (at most 2 x FAIR_NS after the
 * bucket's previous fair unlock).
 * Footprint: 8 bytes per lock; a 128-B queue-node slot per parked thread (40 B
 * used); 16 KiB shared by all locks.  Policies: its own (spin, then park in the
 * table), registered as spin.
 */
#include "locklab/parkinglot.h"
#include "locklab/registry.h"
#include "park_table.h"

enum { RETRY = 1, HANDOFF = 2 }; /* a parked waiter's token (PT_WAITING until a releaser sets one) */
enum { PAUSE_ROUNDS = 3 };

/* ---- acquire --------------------------------------------------------------------------- */

/* Spin round n (1..LL_PARKINGLOT_SPINS) of an arrival: the first PAUSE_ROUNDS rounds pause
 * 2^n times; later ones yield, so that a holder we share a CPU with (oversubscribed, or a
 * holder that itself yields) runs instead of our spin.  A real-time caller never yields
 * to a lower priority: it only pauses (its rounds are bounded, then it parks). */
static void pl_spin_round(uint32_t n)
{
    if (n > PAUSE_ROUNDS && !ll_thread_realtime()) {
        ll_yield();
        return;
    }
    for (uint32_t i = 0; i < 1u << (n < PAUSE_ROUNDS ? n : PAUSE_ROUNDS); i++)
        ll_pause();
}

/* park_table.h's questions: what does a nap find (stay while l is held: its release will unpark l's first waiter)? */
static int pl_look(void *l) { return ll_load_relaxed(&((ll_parkinglot_lock *)l)->locked) != 0 ? PT_STAY : PT_LEAVE; /* relaxed: a hint */ }
/* ... and l's last parked waiter left: nobody to unpark (under the bucket lock). */
static void pl_last_left(void *l) { ll_store_relaxed(&((ll_parkinglot_lock *)l)->parked, 0); /* relaxed: parked changes only under the bucket lock */ }

enum { PL_RETRY = 0, PL_HANDED = 1, PL_TIMED_OUT = 2 };

/* Announce (parked = 1) and park in l's bucket if l is still held, until a releaser sets our token or
 * deadline_ns (LL_NO_DEADLINE: none).  again: we parked before in this acquisition (since is
 * when we first did): a waiter woken to compete was l's eldest and goes back to the front; one
 * that left after a nap goes back to its place among l's waiters, not in front of older ones.
 * Returns PL_HANDED (the lock is ours), PL_RETRY (not
 * parked, or woken to compete) or PL_TIMED_OUT (we left). */
static int pl_park(ll_parkinglot_lock *l, uint64_t since, bool again, uint64_t deadline_ns)
{
    pt_bucket *b = pt_bucket_of(l);
    pt_lock(b);
    /* seq_cst (store and load): our announcement, then the check that l is still held, the
     * waiter's half of a Dekker pair whose releaser's half (load parked, store locked) has no
     * fence: a release that missed us is found by our naps ("Release").  Left set if l is
     * free: a hint, cleared by the next release, which finds nobody. */
    ll_store(&l->parked, 1, LL_SEQ_CST);
    if (ll_load(&l->locked, LL_SEQ_CST) == 0) {
        pt_unlock(b);
        return PL_RETRY;
    }
    pt_waiter *w = pt_enqueue(b, l, since, again, -1);
    pt_unlock(b);
    int slept = pt_sleep(b, w, l, deadline_ns, NULL, LL_PARKINGLOT_NAP_NS, LL_PARKINGLOT_NAP_MAX_NS, pl_look, pl_last_left);
    bool handed = slept == PT_WOKEN && ll_load_relaxed(&w->token) == HANDOFF; /* relaxed: pt_token_set acquired it */
    ll_qnode_put(w);
    return handed ? PL_HANDED : slept == PT_TIMED_OUT ? PL_TIMED_OUT : PL_RETRY;
}

bool ll_parkinglot_acquire_until(ll_parkinglot_lock *l, uint64_t deadline_ns)
{
    uint32_t spins = 0;
    uint64_t since = 0;
    for (;;) {
        uint32_t free_ = 0;
        /* relaxed: the CAS validates it; acquire: pairs with the releasing stores (release, release_slow) */
        if (ll_load_relaxed(&l->locked) == 0 && ll_cas(&l->locked, &free_, 1, LL_ACQUIRE))
            return true;
        bool timed = deadline_ns != LL_NO_DEADLINE;
        if (timed && ll_now_ns() >= deadline_ns)
            return false; /* nothing of ours to undo (a timed waiter's spin stops at its deadline too) */
        if (ll_load_relaxed(&l->parked) == 0 && spins < LL_PARKINGLOT_SPINS) { /* relaxed: a hint */
            pl_spin_round(++spins); /* nobody parked yet: spin a little */
            continue;
        }
        bool again = since != 0;
        if (!again)
            since = ll_now_ns();
        int r = pl_park(l, since, again, deadline_ns);
        if (r == PL_HANDED)
            return true; /* handed over: locked was kept for us */
        if (r == PL_TIMED_OUT) /* one last look: a release that missed us ("Release") may have freed
                                * l during our last nap, which ends at the deadline with no look of its own */
            return ll_parkinglot_try_acquire(l);
        spins = 0;
    }
}

LL_COLD void ll_parkinglot_acquire_slow(ll_parkinglot_lock *l) { ll_parkinglot_acquire_until(l, LL_NO_DEADLINE); }

bool ll_parkinglot_try_acquire(ll_parkinglot_lock *l)
{
    uint32_t free_ = 0;
    /* relaxed: the CAS validates it; acquire: as in the slow path */
    return ll_load_relaxed(&l->locked) == 0 && ll_cas(&l->locked, &free_, 1, LL_ACQUIRE);
}

/* ---- release --------------------------------------------------------------------------- */

/* parked was set: we hold the lock; parked changes only under the bucket lock, which we take. */
LL_COLD void ll_parkinglot_release_slow(ll_parkinglot_lock *l)
{
    pt_bucket *b = pt_bucket_of(l);
    pt_lock(b);
    pt_waiter *found = NULL, *prev = NULL, *found_prev = NULL;
    bool more = false;
    for (pt_waiter *w = ll_plain_load(&b->head); w != NULL && !more; prev = w, w = ll_plain_load(&w->next)) {
        if (ll_plain_load(&w->key) != (const void *)l)
            continue;
        if (found) /* another of l's waiters remains */
            more = true;
        else /* the one we unpark: l's first */
            found = w, found_prev = prev;
    }
    ll_parker *p = NULL;
    if (found == NULL) {
        ll_store_relaxed(&l->parked, 0);  /* relaxed: under the bucket lock, before the lock is freed */
        ll_store_release(&l->locked, 0); /* release: the critical section to the next acquiring CAS */
    } else {
        pt_unlink(b, found, found_prev);
        p = ll_plain_load(&found->parker); /* before the token store: then the node may be reused */
        bool handoff = pt_fair_due(&b->stamp[0], found, ll_now_ns(), LL_PARKINGLOT_FAIR_NS);
        ll_store_relaxed(&l->parked, more); /* relaxed: under the bucket lock */
        if (!handoff) /* release: the critical section to the next acquiring CAS (locked stays 1 for a handoff) */
            ll_store_release(&l->locked, 0);
        /* release: (HANDOFF) the critical section to the waiter; pairs with the acquire in pt_token_set */
        ll_store_release(&found->token, handoff ? HANDOFF : RETRY);
    }
    pt_unlock(b);
    ll_wake(p); /* after the bucket's release: the woken thread may need the bucket at once */
}

/* ---- registry adapter ------------------------------------------------------------------- */

LL_INIT_ADAPTER(ll_parkinglot_init((ll_parkinglot_lock *)s))
LL_LOCK_ADAPTER(ll_parkinglot_lock, ll_parkinglot)
LL_DIRECT_VERBS()
LL_OWN_WAIT_TIMED_ADAPTER(ll_parkinglot_lock, ll_parkinglot)

const ll_lock_ops ll_lock_parkinglot = {
    .name = "parkinglot", .source = "WebKit WTF::Lock (Pizlo 2016) / Rust parking_lot",
    .summary = "two words (locked, parked), a store release; waiters spin a little, then park in a global "
        "address-hashed table",
    .fairness = "none short-term (barging); a waiter parked 0.5 ms is handed the lock at its bucket's next fair "
        "unlock (timer mean 0.5 ms)",
    .policies = LL_SPIN_ONLY, .caps = LL_CAP_PARKS_ITSELF | LL_CAP_FORK_SAFE | LL_CAP_WAKE_INTO_HELD,
    LL_OPS_STATE_IS(ll_parkinglot_lock), .waiter_bytes = sizeof(pt_waiter), .init = init, LL_OPS_VERBS,
};
