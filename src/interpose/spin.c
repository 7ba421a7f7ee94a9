/*
 * pthread_spin_{init,destroy,lock,trylock,unlock} over one of locklab's locks
 * that never sleep, chosen by LOCKLAB_SPIN=SPEC (default ttas):
 *
 *   - SPEC is any lock spec (locklab-bench --list, with keys) whose waiting never
 *     blocks in the kernel (ll_spec_never_parks: the spin policy, the bare name, or
 *     the yield policy, -yield): a pthread spinlock's users expect a busy wait.  A
 *     spec that parks (mcs-stp, standby, acr, ...) is refused with one line, as any
 *     bad value.  Independent of LOCKLAB_LOCK, whose default parks.
 *   - Default ttas: glibc's own spinlock is a test-and-set spinning on a read, so the
 *     default keeps its algorithm and its 4 bytes, and adds what the waiting engine
 *     gives every locklab lock: real-time waiters sleep between polls instead of
 *     starving a lower-priority holder for ever (wait.h), and the oversubscription
 *     warning below.  A FIFO spinlock is one variable away (LOCKLAB_SPIN=ticket,
 *     mcs, clh, ...).
 *
 * Where the lock lives (pthread_spinlock_t is a 4-byte int):
 *   - inline, in the int, when the spec's state fits in 4 bytes, is all zeros
 *     once initialised and needs no destroy (ll_placement.inlinable: tas, ttas): 0 is
 *     free (glibc's x86-64 word is 1 when free: the two cannot share a spinlock);
 *   - otherwise out of line: the int holds a handle (1, 2, ...; 0: none yet) of an
 *     object from the arena (never malloc; mmap-backed, fork-safe: core.h), found
 *     through a two-level directory (DIR_SIZE blocks of BLOCK objects, published
 *     once each and never moved or freed, so a lock's lookup is two dependent loads
 *     and takes no lock).  Each object records the address of the spinlock it
 *     belongs to; a lock whose int holds no handle of an object that belongs to it
 *     (a byte copy of another spinlock, memory never initialised) gets one installed
 *     at its first use, once (under the arena's lock, which installs serialise on).
 *     pthread_spin_init installs eagerly, so it is where allocation fails (ENOMEM),
 *     and re-initialising a spinlock reuses its object; destroy gives the object back
 *     (free list) and zeroes the int.  glibc's destroy does nothing, so many
 *     programs never call it: a registry keyed by the spinlock's address (under the
 *     arena's lock, touched at install and destroy only) finds the object of a
 *     spinlock dropped without destroy when a spinlock at the same address is
 *     initialised again, and recycles it, so memory stays flat whenever addresses
 *     come back (as slab.h does for mutexes).
 *
 * pshared: glibc's spinlock is a plain word whether process-shared or not, and so
 * is an inline one here (tas, ttas: the default).  An out-of-line lock lives in this
 * process's memory (its object, queue nodes, parkers), which another process cannot
 * reach, so under such a LOCKLAB_SPIN a spinlock initialised PTHREAD_PROCESS_SHARED is
 * the int itself, a test-and-test-and-set word tagged PSHARED (PSHARED free, PSHARED | 1
 * held; handles stay below it), as process-shared mutexes stay glibc's; the verbose exit
 * line counts them.  Such a word records no owner (the misuse repairs below are not made)
 * and waits as the waiting engine's plain spin, whatever the spec's policy.  Every process
 * sharing a spinlock must run the interposer with a LOCKLAB_SPIN of the same placement
 * (inline 0 is free, a tagged word PSHARED; glibc's own x86-64 word is 1 when free).
 *
 * fork and misuse: an out-of-line object keeps an owner word, as a mutex does, and so gets
 * the mutex's fork repair and its survival of unlocks by a thread that does not hold the
 * lock (the entry points, below); an inline lock is a word that records no waiter, as glibc's.
 *
 * More threads than CPUs: as for a mutex lock that never parks (config.c), the
 * threads taking spinlocks are counted, and once they outnumber the CPUs one line
 * on stderr says so (once per process; LOCKLAB_QUIET=1 silences it).
 * LOCKLAB_VERBOSE=1 prints the spinlock configuration at start (a line of its own,
 * after the interposer's), and at exit the most threads that took spinlocks at once
 * (if any did); the census at exit counts "spinlocks" (config.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "env.h"
#include "mutex.h"

#define LP_DEFAULT_SPIN_LOCK "ttas"

typedef struct spin_hdr {
    ll_atomic_u64 owner;            /* the holder's tag (mutex.h, lp_owner_tag), 0 if free */
    ll_wait_policy wp;              /* the object's waiting policy */
    ll_atomic_ptr key;              /* the spinlock it belongs to (NULL while free): written under the
                                     * arena's lock, read by object_of without it (relaxed: see there) */
    void *link;                     /* registry chain while in use, free list while free */
    uint32_t handle;
} spin_hdr;

static struct {
    bool inline_state;
    bool fork_repair;     /* out of line: the lock records waiters (no LL_CAP_FORK_SAFE) */
    bool holder_releases; /* out of line: only the holder's thread can release (LL_CAP_HOLDER_RELEASES) */
    const ll_lock_ops *ops;
    ll_wait_policy wp; /* inline mode */
    ll_spec spec;      /* settled (ll_lock_place) */
    size_t hdr_offset, stride;
    char text[200];
} spin;

/* A process-shared spinlock under an out-of-line spec (header, "pshared"): the int, PSHARED
 * free, PSHARED | 1 held.  Handles are below DIR_SIZE x BLOCK (2^24), so never tagged. */
#define PSHARED 0x80000000u
static ll_atomic_u32 pshared_inits; /* LOCKLAB_VERBOSE's exit line */

/* Is w, a value of a spinlock's int, a process-shared word?  Every store to such a word after
 * its init keeps the tag, and no handle has it, so any value read says which kind the spinlock
 * is; other words with bit 31 (garbage, memory never initialised) are not tagged: they get an
 * object, as the header says. */
LL_INLINE bool is_pshared(uint32_t w) { return (w | 1u) == (PSHARED | 1u); }
LL_INLINE bool pshared_word(const pthread_spinlock_t *l)
{
    return is_pshared(ll_load_relaxed((ll_atomic_u32 *)(void *)l)); /* relaxed: any value says (is_pshared) */
}
/* The int of out-of-line spinlock l, read once by each verb for both questions: a process-shared
 * word, or a handle (object_of).  Acquire: pairs with install's release of the handle. */
LL_INLINE uint32_t spin_word(pthread_spinlock_t *l) { return ll_load_acquire((ll_atomic_u32 *)(void *)l); }

LL_INLINE bool pshared_try(pthread_spinlock_t *l)
{
    uint32_t free_ = PSHARED;
    /* relaxed load: a held word fails without taking its line; acquire CAS: pairs with the
     * unlock's release store */
    return ll_load_relaxed((ll_atomic_u32 *)(void *)l) == PSHARED &&
           ll_cas((ll_atomic_u32 *)(void *)l, &free_, PSHARED | 1u, LL_ACQUIRE);
}

/* The waiting engine's spin (wait.h): PAUSEs, a yield every 1024 (a holder preempted on our CPU
 * runs), and for a real-time caller naps instead (the holder may be of a lower priority). */
static LL_COLD void pshared_acquire(pthread_spinlock_t *l)
{
    for (uint32_t steps = 0; !pshared_try(l);) {
        ll_pause();
        ll_spin_steps(&steps, 1);
        if (steps % 1024 == 0)
            ll_yield();
    }
}

/* ---- configuration ------------------------------------------------------------------- */

static LL_ALIGNED(LL_SECTOR) unsigned char scratch[4096];
static void report_at_exit(void);

void lp_spin_configure(void)
{
    const char *value = lp_env("LOCKLAB_SPIN");
    bool given = value != NULL;
    if (!given)
        value = LP_DEFAULT_SPIN_LOCK;
    char line[800], echo[LP_ECHO + 1];
    ll_placement pl;
    lp_lock_settle("LOCKLAB_SPIN", value, echo, &pl);
    if (!ll_spec_never_parks(pl.spec.ops, pl.spec.policy)) {
        snprintf(line, sizeof line,
                 "LOCKLAB_SPIN='%s': %s may sleep, and a pthread spinlock must spin (valid: a spec whose policy "
                 "spins or yields, e.g. ttas (default), tas, backoff, ticket, mcs, clh, anderson, k42, twa, "
                 "mcscr, cna, hemlock, or NAME-yield)",
                 echo, pl.spec.name);
        lp_die(line);
    }
    lp_lock_place_scratch("LOCKLAB_SPIN", echo, &pl, scratch, sizeof scratch, &spin.wp);
    spin.ops = pl.spec.ops;
    spin.fork_repair = !ll_lock_fork_safe(spin.ops);
    spin.holder_releases = ll_lock_holder_releases(spin.ops);
    spin.spec = pl.spec;
    spin.inline_state = pl.inlinable && pl.state_bytes <= sizeof(pthread_spinlock_t) &&
                        pl.state_align <= LL_SECTOR;
    if (spin.ops->destroy)
        spin.ops->destroy(scratch);
    spin.hdr_offset = (pl.state_bytes + _Alignof(spin_hdr) - 1) / _Alignof(spin_hdr) * _Alignof(spin_hdr);
    spin.stride = (spin.hdr_offset + sizeof(spin_hdr) + LL_SECTOR - 1) / LL_SECTOR * LL_SECTOR;
    snprintf(spin.text, sizeof spin.text, "%s (%s; %s)", pl.spec.name, given ? "LOCKLAB_SPIN" : "default",
             spin.inline_state ? "inline in the int" : "out-of-line");
    if (lp_cfg.verbose) {
        fprintf(stderr, "liblocklab-preload: spinlocks: %s, %zu bytes per spinlock beyond the int\n", spin.text,
                spin.inline_state ? (size_t)0 : spin.stride);
        atexit(report_at_exit);
    }
}

/* ---- out-of-line objects: handles, directory, registry ---------------------------------- */

enum { BLOCK = 256, DIR_SIZE = 1u << 16 }; /* up to 16 M spinlocks out of line */
LL_STATIC_ASSERT((uint64_t)BLOCK * DIR_SIZE < PSHARED, "handles stay below the process-shared tag");
static ll_atomic_ptr directory[DIR_SIZE];  /* block i: objects i * BLOCK + 1 .. (i + 1) * BLOCK */
/* Under the arena's lock: */
static uint32_t next_handle = 1;
static void *free_objects;
static void **buckets;
static size_t nbuckets, nregistered;
static uint32_t epoch; /* the arena epoch free_objects and the registry belong to (slab.c's rule) */

LL_INLINE spin_hdr *hdr_of(void *obj) { return (spin_hdr *)(void *)((char *)obj + spin.hdr_offset); }
LL_INLINE const void *key_of(void *obj) { return ll_load_relaxed(&hdr_of(obj)->key); }
LL_INLINE void set_key(void *obj, const volatile void *key) { ll_store_relaxed(&hdr_of(obj)->key, (void *)(uintptr_t)key); }

/* The object of handle h, or NULL if h names none. */
LL_INLINE void *object_at(uint32_t h)
{
    uint32_t i = h - 1;
    if (LL_UNLIKELY(h == 0 || i / BLOCK >= DIR_SIZE))
        return NULL;
    char *block = (char *)ll_load_acquire(&directory[i / BLOCK]); /* acquire: pairs with new_object's release */
    return block ? block + (size_t)(i % BLOCK) * spin.stride : NULL;
}

static void state_current(void)
{
    if (LL_UNLIKELY(epoch != ll_arena_epoch())) { /* a fork child discarded the arena's state (slab.c) */
        free_objects = NULL;
        buckets = NULL;
        nbuckets = nregistered = 0;
        epoch = ll_arena_epoch();
    }
}

static size_t bucket_of(const volatile void *key, size_t n)
{
    return (size_t)(((uint64_t)(uintptr_t)key >> 2) * 0x9E3779B97F4A7C15ull >> 32) & (n - 1);
}

/* Under the arena's lock: unlink and return the object registered for key, or NULL. */
static void *registry_take(const pthread_spinlock_t *key)
{
    if (nbuckets == 0)
        return NULL;
    for (void **link = &buckets[bucket_of(key, nbuckets)]; *link; link = &hdr_of(*link)->link) {
        if (key_of(*link) == (const void *)key) {
            void *obj = *link;
            *link = hdr_of(obj)->link;
            nregistered--;
            return obj;
        }
    }
    return NULL;
}

static void registry_add(void *obj)
{
    if (nregistered >= 2 * nbuckets) {
        size_t n = nbuckets ? nbuckets * 2 : 1024;
        void **b = (void **)ll_arena_alloc(n * sizeof *b, LL_CACHELINE);
        if (b) {
            for (size_t i = 0; i < nbuckets; i++)
                for (void *o = buckets[i], *next; o; o = next) {
                    next = hdr_of(o)->link;
                    size_t k = bucket_of(key_of(o), n);
                    hdr_of(o)->link = b[k];
                    b[k] = o;
                }
            buckets = b;
            nbuckets = n;
        }
    }
    if (nbuckets == 0)
        return; /* out of memory for the table: not recycled if dropped */
    size_t k = bucket_of(key_of(obj), nbuckets);
    hdr_of(obj)->link = buckets[k];
    buckets[k] = obj;
    nregistered++;
}

/* Under the arena's lock: a free object, or a new one (NULL: out of memory). */
static void *new_object(void)
{
    if (free_objects) {
        void *obj = free_objects;
        free_objects = hdr_of(obj)->link;
        return obj;
    }
    uint32_t i = next_handle - 1;
    if (i / BLOCK >= DIR_SIZE)
        return NULL;
    if (ll_load_relaxed(&directory[i / BLOCK]) == NULL) { /* relaxed: written only under the arena's lock */
        void *block = ll_arena_alloc((size_t)BLOCK * spin.stride, LL_SECTOR);
        if (block == NULL)
            return NULL;
        ll_store_release(&directory[i / BLOCK], block); /* release: the zeroed block; pairs with object_at */
    }
    next_handle++; /* last: a fork in the middle leaves a consistent counter */
    void *obj = object_at(i + 1);
    hdr_of(obj)->handle = i + 1;
    return obj;
}

static void place(void *obj)
{
    char err[256];
    /* Cannot fail: the same settled spec placed the scratch lock at configuration. */
    ll_lock_place(&spin.spec, LL_DEFAULTS_FIXED, obj, &hdr_of(obj)->wp, NULL, err, sizeof err);
}

/* The object of spinlock l, installed in it unless another thread did so meanwhile
 * (reinit, pthread_spin_init: a fresh lock even if l had one).  NULL: out of memory. */
static LL_COLD void *install(pthread_spinlock_t *l, bool reinit)
{
    ll_self(); /* this thread's context first, outside the arena's lock (slab.c says why) */
    ll_arena_lock();
    state_current();
    ll_atomic_u32 *word = (ll_atomic_u32 *)(void *)l;
    uint32_t now = ll_load_relaxed(word); /* relaxed: installs are serialised by the arena's lock */
    void *obj = object_at(now);
    if (obj && key_of(obj) == (const void *)l && !reinit) { /* another thread installed it meanwhile */
        ll_arena_unlock();
        return obj;
    }
    obj = registry_take(l); /* a spinlock dropped at this address, or this one re-initialised */
    if (obj == NULL)
        obj = new_object();
    if (obj == NULL) {
        ll_arena_unlock();
        return NULL;
    }
    set_key(obj, l); /* relaxed: the word's release store below publishes it with the lock */
    place(obj);
    ll_store_relaxed(&hdr_of(obj)->owner, 0); /* relaxed: as the key (a recycled object may say held) */
    registry_add(obj);
    ll_store_release(word, hdr_of(obj)->handle); /* release: the placed lock; pairs with spin_word's acquire */
    ll_arena_unlock();
    return obj;
}

/* The object of spinlock l, whose int read h (spin_word), installed at its first use if the
 * program never called init. */
LL_INLINE void *object_of(pthread_spinlock_t *l, uint32_t h)
{
    void *obj = object_at(h);
    /* relaxed: spin_word's acquire load ordered this object's installation for l before it;
     * another key means the handle is stale, copied or garbage, and install decides under its lock */
    if (LL_LIKELY(obj != NULL && key_of(obj) == (const void *)l))
        return obj;
    obj = install(l, false);
    if (obj == NULL) {
        lp_say("liblocklab-preload: out of memory for a spinlock's lock object (LOCKLAB_SPIN=%s)\n",
               spin.spec.name); /* in a lock: no cancellation point */
        _exit(2);
    }
    return obj;
}

/* ---- more threads than CPUs ------------------------------------------------------------ */

static __thread bool counted __attribute__((tls_model("initial-exec")));
static lp_headcount spinners = LP_HEADCOUNT_INIT; /* config.h */
static void make_key(void) { pthread_key_create(&spinners.key, lp_headcount_exit); }

static LL_COLD void count_thread(void)
{
    counted = true;
    lp_headcount_join(&spinners, make_key,
                      "liblocklab-preload: spinlocks (LOCKLAB_SPIN=%s) never park and %u threads now take them on %d CPUs: "
                      "a holder preempted while others spin costs them a time slice; use fewer threads, a mutex, or set "
                      "LOCKLAB_QUIET=1 to silence this line\n",
                      spin.spec.name);
}

/* A real-time waiter: as a mutex's lock that never parks (config.c), one line once. */
__thread bool lp_spin_waiting __attribute__((tls_model("initial-exec")));
static ll_atomic_u32 realtime_warned;
static ll_atomic_u64 realtime_naps;

void lp_spin_realtime_napped(void)
{
    ll_faa(&realtime_naps, 1, LL_RELAXED); /* relaxed: a statistic */
    lp_say_once(&realtime_warned,
                "liblocklab-preload: spinlocks (LOCKLAB_SPIN=%s) never park and a real-time thread (SCHED_FIFO/RR) "
                "waits for one: spinning would starve a lower-priority holder on its CPU, so such waiters sleep "
                "between polls (1 us to 1 ms: slow); use a mutex, or set LOCKLAB_QUIET=1 to silence this line\n",
                spin.spec.name);
}

/* LOCKLAB_VERBOSE=1: the most threads that took spinlocks at once, if any did, and the
 * real-time waiters' naps. */
static void report_at_exit(void)
{
    uint32_t max = ll_load_relaxed(&spinners.max); /* relaxed: a statistic */
    if (max)
        fprintf(stderr, "liblocklab-preload: exit: spinlocks (LOCKLAB_SPIN=%s) never park: up to %u threads took them at once on %d CPUs; "
                "real-time waiters slept %llu times (wait.h)\n",
                spin.spec.name, (unsigned)max, ll_cpus_available(), (unsigned long long)ll_load_relaxed(&realtime_naps));
    uint32_t shared = ll_load_relaxed(&pshared_inits); /* relaxed: a statistic */
    if (shared)
        fprintf(stderr, "liblocklab-preload: exit: %u process-shared spinlock inits ran on an inline test-and-test-and-set "
                "word, not on %s (its state is this process's)\n", (unsigned)shared, spin.spec.name);
}

/* ---- the entry points ------------------------------------------------------------------- */

/* Every entry point starts with this.  false: called by the thread that configures the
 * interposer, from inside the configuration (a malloc replacement that takes spinlocks):
 * every other thread waits until it is complete, so the call is served without touching
 * the spinlock, as mutex.c serves such mutex calls (config.h, lp_ensure_init); a
 * spinlock initialised then is zeroed, a free inline lock or, out of line, one whose
 * object is installed at its first use. */
LL_INLINE bool enter(void)
{
    if (LL_UNLIKELY(!lp_ensure_init()))
        return false;
    lp_mark_seen(LP_SEEN_SPIN);
    if (LL_UNLIKELY(!counted))
        count_thread();
    return true;
}

int pthread_spin_init(pthread_spinlock_t *l, int pshared)
{
    if (LL_UNLIKELY(!lp_ensure_init())) {
        memset((void *)l, 0, sizeof *l);
        return 0;
    }
    lp_mark_seen(LP_SEEN_SPIN);
    if (spin.inline_state) {
        memset((void *)l, 0, sizeof *l); /* the free state of an inlinable lock (ll_placement) */
        return 0;
    }
    if (pshared != PTHREAD_PROCESS_PRIVATE) {
        ll_faa(&pshared_inits, 1, LL_RELAXED); /* relaxed: a statistic */
        ll_store_relaxed((ll_atomic_u32 *)(void *)l, PSHARED); /* relaxed: published by whatever shares l */
        return 0;
    }
    return install(l, true) ? 0 : ENOMEM;
}

int pthread_spin_destroy(pthread_spinlock_t *l)
{
    if (LL_UNLIKELY(!lp_ensure_init()))
        return 0; /* during the configuration: no object exists yet */
    lp_mark_seen(LP_SEEN_SPIN);
    if (spin.inline_state || pshared_word(l))
        return 0;
    ll_arena_lock();
    state_current();
    ll_atomic_u32 *word = (ll_atomic_u32 *)(void *)l;
    void *obj = object_at(ll_load_relaxed(word)); /* relaxed: under the arena's lock */
    if (obj && key_of(obj) == (const void *)l) {
        registry_take(l);
        if (spin.ops->destroy)
            spin.ops->destroy(obj);
        set_key(obj, NULL); /* relaxed: under the arena's lock; nobody may use a spinlock being destroyed */
        hdr_of(obj)->link = free_objects;
        free_objects = obj;
        ll_store_relaxed(word, 0); /* relaxed: nobody may use a spinlock being destroyed */
    }
    ll_arena_unlock();
    return 0;
}

/* Out of line, each object's owner word (mutex.h) says who holds it and since which fork
 * generation, as a mutex's does, for the same two repairs (mutex_fork.c, mutex_misuse.c):
 *   - fork: in a child, a spinlock the forking thread held at the fork may have parent
 *     threads queued in its lock (a ticket taken, a queue node linked); its unlock places
 *     the lock again, free, instead of handing it to a waiter the child does not have, and
 *     every acquisition first waits (outside the lock) for that unlock;
 *   - misuse: an unlock of a spinlock that is not held is ignored (glibc's word is simply
 *     stored free again), one by a thread that does not hold it releases it for its holder
 *     (ignored under a lock whose release needs the holder's thread), one line each.
 * Inline (tas, ttas: a word, no waiter recorded), glibc's behaviour already. */
LL_INLINE ll_atomic_u64 *owner_of(void *obj) { return &hdr_of(obj)->owner; }

LL_INLINE void spin_lock(pthread_spinlock_t *l)
{
    if (spin.inline_state) {
        spin.ops->acquire((void *)l, &spin.wp);
        return;
    }
    uint32_t h = spin_word(l);
    if (LL_UNLIKELY(is_pshared(h))) {
        if (!pshared_try(l))
            pshared_acquire(l);
        return;
    }
    void *obj = object_of(l, h);
    if (LL_UNLIKELY(lp_held_across_fork(owner_of(obj), &spin.fork_repair)))
        lp_await_fork_holder(owner_of(obj), &spin.fork_repair, CLOCK_MONOTONIC, NULL);
    spin.ops->acquire(obj, &hdr_of(obj)->wp);
    ll_store_release(owner_of(obj), lp_owner_tag()); /* release: pairs with lp_owner_claim's acquire (mutex.h) */
}

int pthread_spin_lock(pthread_spinlock_t *l)
{
    if (LL_UNLIKELY(!enter()))
        return 0;
    bool outer = lp_spin_waiting; /* a signal handler's spinlock inside another's wait */
    lp_spin_waiting = true;       /* the waiting engine's real-time naps are a spinlock's (config.c) */
    spin_lock(l);
    lp_spin_waiting = outer;
    return 0;
}

int pthread_spin_trylock(pthread_spinlock_t *l)
{
    if (LL_UNLIKELY(!enter()))
        return 0;
    if (spin.inline_state)
        return spin.ops->try_acquire((void *)l, &spin.wp) ? 0 : EBUSY;
    uint32_t h = spin_word(l);
    if (LL_UNLIKELY(is_pshared(h)))
        return pshared_try(l) ? 0 : EBUSY;
    void *obj = object_of(l, h);
    if (lp_held_across_fork(owner_of(obj), &spin.fork_repair) || !spin.ops->try_acquire(obj, &hdr_of(obj)->wp))
        return EBUSY;
    ll_store_release(owner_of(obj), lp_owner_tag()); /* release: pairs with lp_owner_claim's acquire (mutex.h) */
    return 0;
}

int pthread_spin_unlock(pthread_spinlock_t *l)
{
    if (LL_UNLIKELY(!lp_ensure_init()))
        return 0; /* its lock, taken during the configuration, did not touch the spinlock */
    if (spin.inline_state) {
        spin.ops->release((void *)l, &spin.wp);
        return 0;
    }
    uint32_t h = spin_word(l);
    if (LL_UNLIKELY(is_pshared(h))) {
        ll_store_release((ll_atomic_u32 *)(void *)l, PSHARED); /* release: the critical section; pairs with pshared_try */
        return 0;
    }
    void *obj = object_of(l, h);
    uint64_t seen = ll_load_relaxed(owner_of(obj)); /* relaxed: only this thread ever stores its own id */
    if (LL_UNLIKELY(!lp_owner_is_me_quick(seen))) {
        if (!lp_unlock_not_owner(owner_of(obj), spin.holder_releases, true, (const void *)l, __builtin_return_address(0)))
            return 0;
    } else if (LL_UNLIKELY(lp_held_across_fork(owner_of(obj), &spin.fork_repair)) && !lp_owner_claim(owner_of(obj), seen)) {
        return 0; /* the repair below is long: the holder claims first (mutex.h); another unlock did */
    }
    if (LL_UNLIKELY(lp_held_across_fork(owner_of(obj), &spin.fork_repair))) {
        place(obj); /* free; no thread touches the lock until the store below */
        ll_store_release(owner_of(obj), 0); /* release: the placed lock; pairs with lp_held_across_fork's acquire */
        return 0;
    }
    ll_store_relaxed(owner_of(obj), 0); /* relaxed: the lock's release orders it before the next owner's store */
    spin.ops->release(obj, &hdr_of(obj)->wp);
    return 0;
}
