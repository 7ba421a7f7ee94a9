/*
 * bravo, bravo-pthread — BRAVO, "Biased Locking for Reader-Writer Locks", Dice &
 * Kogan, USENIX ATC 2019: reader bias over any reader-writer lock (the
 * underlying lock: readpref for `bravo`, glibc's pthread_rwlock_t for
 * `bravo-pthread`, the paper's BRAVO-P).
 *
 * One global visible-readers table (LL_BRAVO_SLOTS pointer slots, shared by all
 * locks) and per lock a bias flag (rbias) and an inhibit-until time.  Each lock
 * uses a window of the table: LL_BRAVO_WINDOW consecutive slots (by default 1024,
 * 128 lines of 8) from a line-aligned base hashed from its address.  Thread i
 * (ll_self()->index: 0, 1, 2, ... in order of first use, never reused) publishes
 * in line 2a or 2(a - 64) + 1 of the window, a = i mod 128 (the even lines
 * first), at slot ((i / 128) + r) mod 8 of it, r a rotation hashed from the
 * lock's address.
 *
 *   reader, fast path (rbias set): CAS its slot of the lock's window from
 *     NULL to the lock, then re-read rbias: still set, it holds the lock for
 *     reading without writing any shared line of the lock (the token is the
 *     slot; its release stores NULL there).  Otherwise (slot taken by a
 *     collision, or rbias cleared meanwhile) it clears its slot and takes the
 *     underlying lock for reading; then, if rbias is clear and the inhibit
 *     time has passed, it sets rbias again (it holds the lock for reading, so
 *     no writer is in).
 *   writer: takes the underlying lock for writing (new slow-path readers are
 *     out), and if rbias is set, revokes the bias: clears rbias, then scans the
 *     lock's window and waits until no slot of it holds the lock (fast-path readers
 *     that published before the clear have left; later ones see it clear and
 *     take the slow path).  The revocation's cost c sets inhibit-until = now +
 *     N x c (N = `inhibit`, the paper's 9): the bias comes back only after that,
 *     which bounds the writers' total revocation cost to ~1/(N+1) of the time.
 *   Dekker pair: the reader's CAS of its slot then its load of rbias, the
 *     writer's store of rbias then its loads of the slots, all seq_cst: either
 *     the reader sees rbias clear (and backs off) or the writer sees its slot.
 *
 * Fairness: the underlying lock's (readpref: reader preference with a writer
 * patience bound; glibc: reader preference),
 * plus: while the bias is on, a writer also waits for the fast-path readers in
 * at its revocation (no new ones enter: rbias is clear).  A recursive read by a
 * thread whose first hold took the fast path would, after a revocation, queue
 * behind the writer on the underlying lock: the callers count re-entries per
 * thread (rwlock.h), so it never reaches the lock.
 *
 * The revocation waits for each reader still published: it spins (PAUSE) for
 * LL_BRAVO_SPIN_NS, then sleeps 1 us doubling to 1 ms between looks, under every
 * policy: a fast-path reader's release is then one store, with no wake-up to
 * issue (the paper's writers spin; readers' critical sections are short, and the
 * inhibit time makes revocations rare).  Timed writers give up during the scan at
 * their deadline: they turn the bias back on (a fast-path reader may still be
 * inside: the next writer must scan again, which it does only if it finds the
 * bias on) and release the underlying lock; write_try likewise gives up at the
 * first published reader.
 *
 * destroy: a fast-path reader that never released (a destroy while another thread
 * read-holds the lock: undefined in POSIX, glibc's destroy does nothing) would leave its
 * slot naming the lock, and a lock placed later at the same address (an allocator's, the
 * interposer's pool) would see a reader there and its writers would wait for ever.  So
 * destroy scans the lock's window (1024 loads) and replaces each slot naming the lock by a value
 * that names no lock: it stays taken (other readers treat it as a collision) until that
 * reader's release stores NULL there, as it would have, so a late release clears only its
 * own slot.  The fast paths are unchanged.
 *
 * fork: the first lock placed in a child empties the table (its entries are the
 * parent's readers); every lock from before the fork must be placed again before
 * it is used in the child (the interposer does so: src/interpose/rwlock.c).
 *
 * Why a window, not the paper's hash of (lock, thread) over the whole table: a
 * revocation, and a destroy, scan only the slots a reader of the lock can use,
 * 1024 instead of 4096 (8 KiB instead of 32 KiB): about a quarter of the loads,
 * and of the inhibit time after a revocation that waits for no reader (N x its
 * cost).  Why 1024 and one line per thread: a slot's CAS and release store
 * take its line, so readers whose slots share a line pay line transfers on
 * their fast path, a reader counter split eight ways; up to 128 threads of
 * consecutive indexes each have a line of their own here, where 256 slots
 * packed 8 to a line made 100%-read runs 1.6-7x slower in the simulator
 * (docs/rwlock.md, "BRAVO's window").  The even lines first: the first 64
 * threads' lines are 128 bytes apart, as atomics.h keeps hot words apart from
 * the adjacent-line prefetcher (which the simulator does not model).  The
 * rotation: without it, up to 128 threads would use only slot 0 of each line,
 * 512 slots of the table for all locks together.
 * Collisions: live readers of one lock whose indexes agree mod 1024 share a
 * slot (the later one of such a pair reads through the underlying lock while
 * the other is in): a pool created together collides only beyond 1024 threads;
 * threads of a program that keeps creating new ones collide as random slots in
 * 1024 would (64 readers: 2 pairs expected, against 0.5 in the paper's 4096).
 * Two locks' windows overlap when their bases are within 128 lines, about half
 * of all pairs of locks: thread i of one and thread j of the other share a
 * slot where their lines and their rotated slots coincide, fixed pairs of
 * threads where the paper's hash spreads collisions; equal bases (1 pair of
 * locks in 512) with equal rotations (1 in 8) make every thread's slots for
 * the two locks the same, and its second read of the pair the slow one.
 *
 * Footprint: 64 bytes (rbias, inhibit time) + the underlying lock per lock;
 * 32 KiB shared table (4096 slots of 8 bytes), of which a revocation or a destroy reads the
 * lock's 8 KiB window.  Tokens: fast-path readers'
 * are LL_RW_TOKEN_LIMIT + slot, the underlying lock's are its own (below
 * LL_RW_TOKEN_LIMIT).  Policies: those of the underlying lock (readpref: all;
 * glibc: its own waiting).
 */
#include "locklab/rwlock.h"

#ifdef LL_BACKEND_RELACY
/* The model checker: a window of 2 "lines" of one slot, so that each scan is 2 steps, threads
 * 0 and 2 share a slot (the collision path is checked) and a window based at slot 7 wraps. */
#define LL_BRAVO_SLOTS 8u
#define LL_BRAVO_WINDOW 2u
#define BRAVO_PER_LINE 1u
#else
#define LL_BRAVO_SLOTS 4096u
#ifndef LL_BRAVO_WINDOW
#define LL_BRAVO_WINDOW 1024u /* header, "Why a window" */
#endif
#define BRAVO_PER_LINE (LL_CACHELINE / 8u) /* 8-byte slots per cache line */
#endif
#define BRAVO_LINES (LL_BRAVO_WINDOW / BRAVO_PER_LINE)
LL_STATIC_ASSERT((LL_BRAVO_SLOTS & (LL_BRAVO_SLOTS - 1u)) == 0 && (LL_BRAVO_WINDOW & (LL_BRAVO_WINDOW - 1u)) == 0 &&
                     (BRAVO_PER_LINE & (BRAVO_PER_LINE - 1u)) == 0 && BRAVO_LINES >= 2u && LL_BRAVO_WINDOW <= LL_BRAVO_SLOTS,
                 "bravo: the table, the window and the slots per line are powers of two; the window, of 2 lines or more, "
                 "within the table");
#define LL_BRAVO_SPIN_NS 20000u

LL_ALIGNED(LL_SECTOR) static ll_atomic_ptr bravo_table[LL_BRAVO_SLOTS];
/* The fork generation (core.h) the table's entries belong to. */
static ll_atomic_u32 table_gen;

typedef struct bravo_lock {
    ll_atomic_u32 rbias;
    uint32_t inhibit_n; /* N: the spec key `inhibit` */
    ll_atomic_u64 inhibit_until;
    const ll_rwlock_ops *under;
    LL_ALIGNED(LL_CACHELINE) unsigned char state[]; /* the underlying lock */
} bravo_lock;

static const ll_param params[] = {
    {"inhibit", "bias stays off for N x the revocation's cost (paper: 9)", 0, 1000, 9},
    {NULL, NULL, 0, 0, 0},
};

/* Fibonacci hashing of l's address: its window's base (bits 40 up) and rotation (bits 20 up). */
static uint64_t hash_of(const bravo_lock *l) { return (uint64_t)(uintptr_t)l * 0x9e3779b97f4a7c15ull; }
/* The first slot of l's window, at the start of a line. */
static uint32_t base_of(const bravo_lock *l)
{
    return (uint32_t)(hash_of(l) >> 40) & (LL_BRAVO_SLOTS - 1u) & ~(BRAVO_PER_LINE - 1u);
}
/* Slot k of the window that starts at base (the scans: k in order, line by line). */
static uint32_t window_slot(uint32_t base, uint32_t k) { return (base + k) & (LL_BRAVO_SLOTS - 1u); }
/* The calling thread's slot for l (header, "Why a window"): with a = i mod LINES and
 * b = (i / LINES) mod PER_LINE, line 2a (a < LINES/2) or 2(a - LINES/2) + 1 of the window,
 * slot (b + l's rotation) mod PER_LINE of it.  A bijection of i mod WINDOW onto the window. */
static uint32_t slot_of(const bravo_lock *l)
{
    uint32_t i = ll_self()->index, a = i % BRAVO_LINES, b = (i / BRAVO_LINES) % BRAVO_PER_LINE;
    uint32_t line = 2u * (a % (BRAVO_LINES / 2u)) + a / (BRAVO_LINES / 2u);
    uint32_t rot = (uint32_t)(hash_of(l) >> 20) % BRAVO_PER_LINE;
    return window_slot(base_of(l), line * BRAVO_PER_LINE + (b + rot) % BRAVO_PER_LINE);
}

/* The first lock placed in a fork child empties the table: its entries are the parent's
 * readers, whose releases will never come (the forking thread's own read holds are taken
 * again on the locks placed anew: the interposer, rwlock.c, "fork").  A lock from before the
 * fork must be placed again before it is used in the child (the interposer does). */
static void table_for_this_generation(void)
{
    uint32_t g = ll_fork_generation_now();
    if (LL_LIKELY(ll_load_relaxed(&table_gen) == g)) /* relaxed: changes only in a fork child, placed under the caller's lock */
        return;
    for (uint32_t i = 0; i < LL_BRAVO_SLOTS; i++)
        ll_store_relaxed(&bravo_table[i], NULL); /* relaxed: no child thread reads the table before this placement */
    ll_store_relaxed(&table_gen, g);
}

static int init_over(void *s, const uint64_t *p, const ll_rwlock_ops *under, char *err, size_t errlen)
{
    bravo_lock *l = (bravo_lock *)s;
    table_for_this_generation();
    l->under = under;
    l->inhibit_n = (uint32_t)p[0];
    ll_store_relaxed(&l->rbias, 1); /* relaxed: before any other thread sees the lock */
    return under->desc->init && under != &ll_rwlock_readpref ? under->desc->init(l->state, NULL, err, errlen) : 0;
}
static int init_readpref(void *s, const uint64_t *p, char *err, size_t errlen)
{
    /* readpref's own key (patience_ns) at its default: BRAVO's spec carries only its own keys */
    static const uint64_t under_params[] = {1000000};
    bravo_lock *l = (bravo_lock *)s;
    int rc = init_over(s, p, &ll_rwlock_readpref, err, errlen);
    return rc == 0 ? ll_rwlock_readpref.desc->init(l->state, under_params, err, errlen) : rc;
}
static int init_pthread(void *s, const uint64_t *p, char *err, size_t errlen)
{
    return init_over(s, p, &ll_rwlock_pthread, err, errlen);
}
/* What destroy leaves in the slot of a fast-path reader still in (header, "destroy"). */
static const char stale_reader = 0;

static void destroy(void *s)
{
    bravo_lock *l = (bravo_lock *)s;
    uint32_t base = base_of(l);
    for (uint32_t k = 0; k < LL_BRAVO_WINDOW; k++) {
        uint32_t i = window_slot(base, k);
        void *mine = l;
        /* relaxed: nobody may use a lock being destroyed, and a lock later placed at this address
         * is published to its users by whatever publishes the memory (the interposer: its
         * install's release); the CAS leaves alone a slot its reader just released */
        if (ll_load_relaxed(&bravo_table[i]) == mine)
            ll_cas(&bravo_table[i], &mine, (void *)&stale_reader, LL_RELAXED);
    }
    if (l->under->desc->destroy)
        l->under->desc->destroy(l->state);
}

/* The fast path: true and *token if the reader is in through its slot. */
static bool fast_read(bravo_lock *l, uintptr_t *token)
{
    if (!ll_load_relaxed(&l->rbias)) /* relaxed: a hint; the re-read below decides */
        return false;
    uint32_t i = slot_of(l);
    void *none = NULL;
    /* relaxed load: a taken slot is a collision, left alone.  seq_cst CAS: the Dekker pair with revoke() */
    if (ll_load_relaxed(&bravo_table[i]) != NULL || !ll_cas(&bravo_table[i], &none, (void *)l, LL_SEQ_CST))
        return false;
    /* seq_cst: the Dekker pair (above); also acquire: the last writer's section, through the
     * slow reader that set rbias after taking the underlying lock (its release store) */
    if (ll_load(&l->rbias, LL_SEQ_CST)) {
        *token = LL_RW_TOKEN_LIMIT + i;
        return true;
    }
    ll_store_relaxed(&bravo_table[i], NULL); /* relaxed: we read nothing under the lock */
    return false;
}

/* A slow-path reader holds the underlying lock: restore the bias once the inhibit time is over. */
static void maybe_rebias(bravo_lock *l)
{
    /* relaxed: hints; a writer cannot be in while we hold the lock for reading */
    if (!ll_load_relaxed(&l->rbias) && ll_now_ns() >= ll_load_relaxed(&l->inhibit_until))
        /* release: the last writer's section (which we acquired through the underlying lock)
         * to the fast-path readers' seq_cst load of rbias */
        ll_store_release(&l->rbias, 1);
}

static uintptr_t read_acquire(void *s, ll_wait_policy *wp)
{
    bravo_lock *l = (bravo_lock *)s;
    uintptr_t t;
    if (fast_read(l, &t))
        return t;
    t = l->under->read_acquire(l->state, wp);
    maybe_rebias(l);
    return t;
}

static bool read_try(void *s, ll_wait_policy *wp, uintptr_t *token)
{
    bravo_lock *l = (bravo_lock *)s;
    if (fast_read(l, token))
        return true;
    if (!l->under->read_try(l->state, wp, token))
        return false;
    maybe_rebias(l);
    return true;
}

static bool read_acquire_until(void *s, ll_wait_policy *wp, uint64_t deadline_ns, uintptr_t *token)
{
    bravo_lock *l = (bravo_lock *)s;
    if (fast_read(l, token))
        return true;
    if (!l->under->read_acquire_until(l->state, wp, deadline_ns, token))
        return false;
    maybe_rebias(l);
    return true;
}

static void read_release(void *s, ll_wait_policy *wp, uintptr_t token)
{
    bravo_lock *l = (bravo_lock *)s;
    if (token >= LL_RW_TOKEN_LIMIT)
        /* release: our reads under the lock before the revoking writer's acquire load of the slot */
        ll_store_release(&bravo_table[token - LL_RW_TOKEN_LIMIT], NULL);
    else
        l->under->read_release(l->state, wp, token);
}

/* Holding the underlying lock for writing: revoke the bias (see the header).  false if
 * deadline_ns passed first (the bias stays off). */
static bool revoke(bravo_lock *l, uint64_t deadline_ns)
{
    if (!ll_load_relaxed(&l->rbias)) /* relaxed: only holders of the underlying lock change it */
        return true;
    ll_store(&l->rbias, 0, LL_SEQ_CST); /* seq_cst: the Dekker pair with fast_read (and the scan's loads) */
    uint64_t start = ll_now_ns();
    uint32_t base = base_of(l);
    for (uint32_t k = 0; k < LL_BRAVO_WINDOW; k++) {
        uint32_t i = window_slot(base, k);
        uint64_t nap = 1000, spin_end = 0;
        /* seq_cst: the Dekker pair with fast_read's CAS and re-read of rbias (after our store of
         * rbias); also acquire: the reader's section, pairing with read_release's release store */
        while (ll_load(&bravo_table[i], LL_SEQ_CST) == (void *)l) {
            uint64_t now = ll_now_ns();
            if (now >= deadline_ns) {
                /* Give up: the bias back on, so that the next writer scans again (the readers
                 * still published may be inside; a writer that found rbias clear would not
                 * look).  release: the last writer's section, which we acquired through the
                 * underlying lock, to the fast-path readers' seq_cst load of rbias */
                ll_store_release(&l->rbias, 1);
                return false;
            }
            if (spin_end == 0)
                spin_end = now + LL_BRAVO_SPIN_NS;
            if (now < spin_end) {
                for (int k = 0; k < 64; k++)
                    ll_pause();
            } else {
                ll_sleep_ns(nap);
                nap = nap * 2 > 1000000 ? 1000000 : nap * 2;
            }
        }
    }
    uint64_t now = ll_now_ns();
    /* relaxed: read by slow-path readers under the underlying lock, which orders it */
    ll_store_relaxed(&l->inhibit_until, now + (now - start) * l->inhibit_n);
    return true;
}

static void write_acquire(void *s, ll_wait_policy *wp)
{
    bravo_lock *l = (bravo_lock *)s;
    l->under->write_acquire(l->state, wp);
    revoke(l, LL_NO_DEADLINE);
}

static bool write_try(void *s, ll_wait_policy *wp)
{
    bravo_lock *l = (bravo_lock *)s;
    if (!l->under->write_try(l->state, wp))
        return false;
    if (revoke(l, 0 /* no waiting: any published reader fails it */))
        return true;
    l->under->write_release(l->state, wp);
    return false;
}

static bool write_acquire_until(void *s, ll_wait_policy *wp, uint64_t deadline_ns)
{
    bravo_lock *l = (bravo_lock *)s;
    if (!l->under->write_acquire_until(l->state, wp, deadline_ns))
        return false;
    if (revoke(l, deadline_ns))
        return true;
    l->under->write_release(l->state, wp);
    return false;
}

static void write_release(void *s, ll_wait_policy *wp)
{
    bravo_lock *l = (bravo_lock *)s;
    l->under->write_release(l->state, wp);
}

/* The state: the bias words on a line, then the underlying lock (its state_bytes). */
#define BRAVO_STATE(UNDER_BYTES) (sizeof(bravo_lock) + (UNDER_BYTES))

static const ll_lock_ops desc_readpref = {
    .name = "bravo", .source = "Dice & Kogan 2019 (BRAVO), USENIX ATC; over readpref",
    .summary = "reader bias through a global visible-readers table (one CAS on a slot of its own per read), "
        "over readpref",
    .fairness = "readpref's (reader preference, writer patience 1 ms); a revoking writer also waits for the "
        "fast-path readers in at its revocation",
    .policies = LL_ALL_POLICIES, .params = params,
    .state_bytes = BRAVO_STATE(LL_CACHELINE), .lock_bytes = 64 + 24,
    .init = init_readpref, .destroy = destroy,
};
static const ll_lock_ops desc_pthread = {
    .name = "bravo-pthread", .source = "Dice & Kogan 2019 (BRAVO-P), USENIX ATC; over glibc's pthread_rwlock_t",
    .summary = "reader bias through a global visible-readers table, over glibc's rwlock (the paper's BRAVO-P)",
    .fairness = "glibc's (reader preference); a revoking writer also waits for the fast-path readers in at its "
        "revocation",
    .policies = LL_SPIN_ONLY, .caps = LL_CAP_PARKS_ITSELF, .params = params,
    .state_bytes = BRAVO_STATE(64), .lock_bytes = 64 + 56,
    .init = init_pthread, .destroy = destroy,
};

const ll_rwlock_ops ll_rwlock_bravo = LL_RWLOCK_OPS(&desc_readpref);
const ll_rwlock_ops ll_rwlock_bravo_pthread = LL_RWLOCK_OPS(&desc_pthread);
