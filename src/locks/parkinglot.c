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
 * uncontended pair costs one RMW (~10 ns through the interposer, glibc's two
 * RMWs ~13).  One word would need a load of the word the acquiring CAS just
 * wrote, which on the CPU measured here stalls ~4.7 ns (the CAS's store is not
 * forwarded), or a CAS.
 * The table (PL_BUCKETS buckets, hashed by address, shared by every lock):
 * each bucket has a small lock of its own (an acr lock, 16 bytes: robust
 * under oversubscription, never calls pthread) and a FIFO list of parked
 * waiters (a queue-node slot per parked thread: key = the lock's address,
 * token, parker, when it first parked).
 *
 * Acquire: CAS locked 0 -> 1.  Else (slow path): while the lock is free, CAS
 * it (barging); while nobody is parked, spin up to LL_PARKINGLOT_SPINS
 * rounds; then lock the bucket, set parked, and if the lock is still held,
 * append ourselves and park until a releaser sets our token.  Token HANDOFF:
 * the lock is ours.  Token RETRY: the lock was freed for us to compete for;
 * spin again, and if we must park again we go back to our place in the
 * bucket's list, ordered by first park (the front, since a woken waiter was
 * its lock's first; a waiter that left after a nap goes behind older ones).
 * Release: if parked reads 0, store locked = 0 and touch nothing more (the
 * lock may be destroyed at once).  The price of having no RMW: the waiter's
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
 * fair timer has expired; locked stays 1; the timer is re-armed uniformly in
 * [0, 2 x FAIR_NS)) or free the lock and let it compete; parked stays 1 iff
 * more waiters remain; set its token, unlock the bucket, unpark it.  With
 * nobody to unpark, clear parked and free the lock.  The lock is last touched
 * by those stores: after them it may be destroyed (the bucket, the node and
 * the parker are ours).
 * Choices: the spin is parking_lot's SpinWait (3 rounds of 2, 4, 8 PAUSEs, then
 * 7 rounds that yield the CPU; WTF::Lock yields 40 times): a spin that only
 * paused (40 x 32 PAUSEs, ~60 us here) cost 0.40x glibc on sysbench threads,
 * whose holders yield inside the critical section (an unproven guess, below);
 * fairness needs both parking_lot's per-bucket random timer (mean FAIR_NS)
 * and the waiter's own wait (FAIR_NS since its first park), and a waiter that parks again goes back to its place by first park, so the
 * eldest parked waiter of a lock is the one unparked and, past FAIR_NS, handed
 * the lock at the next fair unlock.  The timer is what keeps handoffs rare
 * when every waiter has waited FAIR_NS (oversubscribed: 64 threads on 2 CPUs):
 * a handoff to a parked thread leaves the lock idle for a wake-up (~30 us),
 * and with the per-waiter rule alone every release became one (MutexBench at
 * 64 threads: 0.13x glibc).  The table has a fixed size (256 buckets, 16 KiB) instead of growing
 * with the thread count: collisions only share a bucket's lock and list.
 * Fork: the child of a fork has one thread, so none of the table's parked
 * waiters exists there, and a bucket lock that another thread held at the fork
 * would stay held for good (the child's next park or release in that bucket
 * would hang).  A pthread_atfork child handler therefore starts the child with
 * an empty table and free bucket locks (the lost waiters' nodes were their
 * threads' own, gone with them); a parked word still set is then cleared by
 * the lock's next release, which finds nobody to unpark.  Child handlers
 * registered before ours run before it (another library's constructor that
 * runs first): our prepare handler, which runs before any fork whatever the
 * order, records the pid, and the slow paths (pl_park, release_slow) that
 * find themselves in a child of that fork empty the table first.
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
#include <pthread.h>
#include <unistd.h>

#include "locklab/acr.h"
#include "locklab/parkinglot.h"
#include "locklab/registry.h"

enum { WAITING = 0, RETRY = 1, HANDOFF = 2 }; /* a parked waiter's token */
enum { PL_BUCKETS = 256, PAUSE_ROUNDS = 3 };

typedef struct pl_waiter {
    /* plain fields shared by the waiter and the releasers (atomics.h): under the bucket's lock */
    LL_SHARED_PLAIN(struct pl_waiter *) next;
    LL_SHARED_PLAIN(const void *) key;   /* the lock's address */
    ll_atomic_u32 token;                 /* WAITING until a releaser sets RETRY or HANDOFF */
    LL_SHARED_PLAIN(ll_parker *) parker; /* read by the releaser before the token store */
    LL_SHARED_PLAIN(uint64_t) since;     /* when this acquisition first parked (ll_now_ns) */
} pl_waiter;
LL_STATIC_ASSERT(sizeof(pl_waiter) <= LL_QNODE_USABLE, "waiter must fit a queue-node slot");

typedef struct pl_bucket {
    LL_ALIGNED(LL_CACHELINE) ll_acr_lock lock;
    LL_SHARED_PLAIN(pl_waiter *) head; /* FIFO, under lock (atomics.h: a plain field, shared) */
    LL_SHARED_PLAIN(pl_waiter *) tail;
    LL_SHARED_PLAIN(uint64_t) fair_at; /* ll_now_ns after which the next unpark may be a handoff; under lock */
} pl_bucket;

static pl_bucket pl_table[PL_BUCKETS];
/* The bucket locks' tunables: acr's defaults, one spinner (critical sections are a few list steps). */
static const ll_acr_params pl_bucket_params = {LL_ACR_DEFAULT_SPIN_NS, LL_ACR_DEFAULT_PATIENCE_NS, 1};

static pl_bucket *bucket_of(const void *key)
{
    uint64_t h = (uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15ull; /* Fibonacci hashing */
    return &pl_table[h >> (64 - 8)];
}
LL_STATIC_ASSERT(PL_BUCKETS == 1 << 8, "bucket_of takes the top 8 bits");

/* The child of a fork (header): an empty table, every bucket lock free. */
static ll_atomic_u32 pl_forking; /* 1 from our prepare handler to our parent/child handler */
static ll_atomic_u32 pl_forking_pid; /* the forking process's pid, set before pl_forking */
static void pl_fork_child(void)
{
    for (size_t i = 0; i < PL_BUCKETS; i++) {
        ll_acr_init(&pl_table[i].lock); /* relaxed stores: the child runs one thread here */
        ll_plain_store(&pl_table[i].head, NULL);
        ll_plain_store(&pl_table[i].tail, NULL);
    }
    ll_store_relaxed(&pl_forking, 0); /* relaxed: the child runs one thread here */
}
/* The child handlers registered before ours (a library's constructor that runs before
 * liblocklab's, or before the preloaded interposer's) run before pl_fork_child, and may unlock
 * a mutex whose parked word is set: release_slow would then take a bucket lock a parent thread
 * held at the fork (a hang) or hand the lock to a parent waiter the child does not have (the
 * mutex stays locked).  Prepare handlers run in the reverse order, so ours has run before any
 * fork: the slow paths below repair the table first if they find themselves in the child. */
static void pl_fork_prepare(void)
{
    ll_store_relaxed(&pl_forking_pid, (uint32_t)getpid()); /* relaxed: published by the release below */
    /* release: our pid, for a thread that sees pl_forking set (a stale pid from before a fork
     * of our parent's would make it think itself in a child); pairs with pl_repair_if_child */
    ll_store_release(&pl_forking, 1);
}
static void pl_fork_parent(void) { ll_store_relaxed(&pl_forking, 0); /* relaxed: a thread that still reads 1 finds its own pid */ }
LL_INLINE void pl_repair_if_child(void)
{
    /* acquire: the pid stored before it (pl_fork_prepare).  In the parent a thread that sees
     * 1 finds its own pid there and does nothing; the child of the fork sees 1 until
     * pl_fork_child runs, and another pid. */
    if (LL_UNLIKELY(ll_load_acquire(&pl_forking) != 0) && (uint32_t)getpid() != ll_load_relaxed(&pl_forking_pid))
        pl_fork_child();
}
__attribute__((constructor)) static void pl_register_fork_child(void) { pthread_atfork(pl_fork_prepare, pl_fork_parent, pl_fork_child); }

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

static bool token_set(void *p)
{
    /* acquire: the releaser's critical section (HANDOFF); pairs with the release store of
     * token in ll_parkinglot_release_slow */
    return ll_load_acquire(&((pl_waiter *)p)->token) != WAITING;
}

/* A timed waiter leaves (header): under the bucket lock, if no releaser set w's token,
 * unlink w and, if it was l's last parked waiter, clear parked.  True if it left. */
static bool pl_leave(ll_parkinglot_lock *l, pl_bucket *b, pl_waiter *w)
{
    ll_acr_acquire(&b->lock, &pl_bucket_params);
    /* relaxed: releasers set the token only under this bucket lock, which orders it */
    bool left = ll_load_relaxed(&w->token) == WAITING;
    if (left) {
        pl_waiter *prev = NULL;
        bool more = false;
        for (pl_waiter *v = ll_plain_load(&b->head); v != NULL; v = ll_plain_load(&v->next)) {
            if (v == w) {
                if (prev)
                    ll_plain_store(&prev->next, ll_plain_load(&w->next));
                else
                    ll_plain_store(&b->head, ll_plain_load(&w->next));
                if (ll_plain_load(&b->tail) == w)
                    ll_plain_store(&b->tail, prev);
                continue; /* prev stays: w is out */
            }
            more = more || ll_plain_load(&v->key) == (const void *)l;
            prev = v;
        }
        if (!more) /* relaxed: parked is set and cleared only under this bucket lock */
            ll_store_relaxed(&l->parked, 0);
    }
    ll_acr_release(&b->lock);
    return left;
}

enum { PL_RETRY = 0, PL_HANDED = 1, PL_TIMED_OUT = 2, PL_WOKEN = 3 };

/* Parked (w in b's list): sleep until a releaser sets w's token (PL_WOKEN: look at the token),
 * in naps (header, "Release"): after each, if l is free, a release may have missed our
 * announcement and none may come for us: leave and compete again (PL_RETRY).  At deadline_ns leave (PL_TIMED_OUT).  Leaving loses to a releaser that set
 * the token first (PL_WOKEN). */
static int pl_sleep(ll_parkinglot_lock *l, pl_bucket *b, pl_waiter *w, uint64_t deadline_ns)
{
    uint64_t nap = LL_PARKINGLOT_NAP_NS;
    for (;;) {
        uint64_t now = ll_now_ns();
        bool last = deadline_ns - now <= nap || deadline_ns <= now; /* this nap ends at the deadline */
        uint64_t until_ns = last ? deadline_ns : now + nap;
        struct timespec until = {(time_t)(until_ns / 1000000000u), (long)(until_ns % 1000000000u)};
        if (ll_parker_park_deadline(ll_plain_load(&w->parker), token_set, w, CLOCK_MONOTONIC, &until))
            return PL_WOKEN;
        /* relaxed: a hint; pl_leave decides under the bucket lock */
        if (!last && ll_load_relaxed(&l->locked) != 0) {
            nap = nap < LL_PARKINGLOT_NAP_MAX_NS / 2 ? 2 * nap : LL_PARKINGLOT_NAP_MAX_NS;
            continue; /* held: its release sees our announcement, long visible, and unparks l's first waiter */
        }
        if (!pl_leave(l, b, w)) {
            (void)token_set(w); /* a releaser came first (pl_leave saw its token): acquire it */
            return PL_WOKEN;
        }
        return last ? PL_TIMED_OUT : PL_RETRY;
    }
}

/* Announce (parked = 1) and park in l's bucket if l is still held, until a releaser sets our token or
 * deadline_ns (LL_NO_DEADLINE: none).  again: we parked before in this acquisition (since is
 * when we first did).
 * Returns PL_HANDED (the lock is ours), PL_RETRY (not
 * parked, or woken to compete) or PL_TIMED_OUT (we left). */
static int pl_park(ll_parkinglot_lock *l, uint64_t since, bool again, uint64_t deadline_ns)
{
    pl_bucket *b = bucket_of(l);
    pl_repair_if_child();
    ll_acr_acquire(&b->lock, &pl_bucket_params);
    /* seq_cst (store and load): our announcement, then the check that l is still held, the
     * waiter's half of a Dekker pair whose releaser's half (load parked, store locked) has no
     * fence: a release that missed us is found by our naps ("Release").  Left set if l is
     * free: a hint, cleared by the next release, which finds nobody. */
    ll_store(&l->parked, 1, LL_SEQ_CST);
    if (ll_load(&l->locked, LL_SEQ_CST) == 0) {
        ll_acr_release(&b->lock);
        return PL_RETRY;
    }
    pl_waiter *w = (pl_waiter *)ll_qnode_get();
    ll_plain_store(&w->key, l);
    ll_plain_store(&w->parker, ll_self()->parker);
    ll_plain_store(&w->since, since);
    ll_store_relaxed(&w->token, WAITING); /* relaxed: a releaser sees w only through the bucket lock */
    if (again) {
        /* Before the first waiter of l that parked later than we first did: a waiter woken to
         * compete was l's eldest and goes back to the front; one that left after a nap goes back
         * to its place among l's waiters, not in front of older ones. */
        pl_waiter *prev = NULL, *v = ll_plain_load(&b->head);
        while (v && (ll_plain_load(&v->key) != (const void *)l || ll_plain_load(&v->since) <= since)) {
            prev = v;
            v = ll_plain_load(&v->next);
        }
        ll_plain_store(&w->next, v);
        if (prev)
            ll_plain_store(&prev->next, w);
        else
            ll_plain_store(&b->head, w);
        if (!v)
            ll_plain_store(&b->tail, w);
    } else {
        ll_plain_store(&w->next, NULL);
        if (ll_plain_load(&b->tail))
            ll_plain_store(&ll_plain_load(&b->tail)->next, w);
        else
            ll_plain_store(&b->head, w);
        ll_plain_store(&b->tail, w);
    }
    ll_acr_release(&b->lock);
    int slept = pl_sleep(l, b, w, deadline_ns);
    if (slept != PL_WOKEN) { /* we left the list: timed out, or our announcement was lost */
        ll_qnode_put(w);
        return slept;
    }
    bool handed = ll_load_relaxed(&w->token) == HANDOFF; /* relaxed: token_set acquired it */
    ll_qnode_put(w);
    return handed ? PL_HANDED : PL_RETRY;
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
    pl_bucket *b = bucket_of(l);
    pl_repair_if_child();
    ll_acr_acquire(&b->lock, &pl_bucket_params);
    pl_waiter *found = NULL, *prev = NULL;
    bool more = false;
    for (pl_waiter *w = ll_plain_load(&b->head); w != NULL;) {
        pl_waiter *next = ll_plain_load(&w->next);
        if (ll_plain_load(&w->key) == (const void *)l && found == NULL) { /* unlink the one we unpark: l's first */
            if (prev)
                ll_plain_store(&prev->next, next);
            else
                ll_plain_store(&b->head, next);
            if (ll_plain_load(&b->tail) == w)
                ll_plain_store(&b->tail, prev);
            found = w;
        } else {
            more = more || ll_plain_load(&w->key) == (const void *)l;
            prev = w;
        }
        w = next;
    }
    ll_parker *p = NULL;
    if (found == NULL) {
        ll_store_relaxed(&l->parked, 0);  /* relaxed: under the bucket lock, before the lock is freed */
        ll_store_release(&l->locked, 0); /* release: the critical section to the next acquiring CAS */
    } else {
        p = ll_plain_load(&found->parker); /* before the token store: then the node may be reused */
        uint64_t now = ll_now_ns();
        bool handoff = now - ll_plain_load(&found->since) >= LL_PARKINGLOT_FAIR_NS && now >= ll_plain_load(&b->fair_at);
        if (handoff) /* re-arm the bucket's timer: uniform in [0, 2 x FAIR_NS), mean FAIR_NS */
            ll_plain_store(&b->fair_at, now + ll_rand_below(2u * LL_PARKINGLOT_FAIR_NS));
        ll_store_relaxed(&l->parked, more); /* relaxed: under the bucket lock */
        if (!handoff) /* release: the critical section to the next acquiring CAS (locked stays 1 for a handoff) */
            ll_store_release(&l->locked, 0);
        /* release: (HANDOFF) the critical section to the waiter; pairs with the acquire in token_set */
        ll_store_release(&found->token, handoff ? HANDOFF : RETRY);
    }
    ll_acr_release(&b->lock);
    ll_wake(p); /* after the bucket's release: the woken thread may need the bucket at once */
}

/* ---- registry adapter ------------------------------------------------------------------- */

LL_INIT_ADAPTER(ll_parkinglot_init((ll_parkinglot_lock *)s))
LL_LOCK_ADAPTER(ll_parkinglot_lock, ll_parkinglot)
static bool acquire_until(void *s, ll_wait_policy *wp, uint64_t deadline_ns)
{
    if (ll_deadline_passed(deadline_ns))
        return try_acquire(s, wp); /* its own waiting (header): wp unused */
    return ll_parkinglot_acquire_until((ll_parkinglot_lock *)s, deadline_ns);
}

const ll_lock_ops ll_lock_parkinglot = {
    "parkinglot", "WebKit WTF::Lock (Pizlo 2016) / Rust parking_lot",
    "two words (locked, parked), a store release; waiters spin a little, then park in a global address-hashed table",
    "none short-term (barging); a waiter parked 0.5 ms is handed the lock at its bucket's next fair unlock (timer mean 0.5 ms)", LL_SPIN_ONLY, NULL,
    sizeof(ll_parkinglot_lock), sizeof(ll_parkinglot_lock), sizeof(pl_waiter),
    init, NULL, acquire, try_acquire, release, acquire_until, NULL,
};
