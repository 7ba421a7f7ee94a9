/*
 * How the interposer lays its mutex over glibc's pthread_mutex_t (40 bytes
 * on x86_64 glibc), and the lock/unlock primitives the condition variables
 * reuse.
 *
 *   offset  glibc field         locklab use
 *   ------  ------------------  ------------------------------------------------
 *    0      __lock, __count     owner: holder's thread id (lp_self_id) and fork
 *                               generation (lp_owner_tag), 0 if free
 *    8      __owner, __nusers   deferred: wake-ups to deliver after unlock (sync.h)
 *   16      __kind              glibc's kind, read as is: type (bits 0-1) and
 *                               glibc's flags; written by pthread_mutex_init only
 *   20      __spins, __elision  depth: extra acquisitions by a recursive owner;
 *                               a normal mutex's holder that relocks it marks it
 *                               here (mutex_misuse.c)
 *   24      __list (16 bytes)   the lock: its state (inline mode) or a pointer
 *                               to its out-of-line object (slab.h); out of memory,
 *                               LP_OBJ_FALLBACK and, in the last 8 bytes, the
 *                               fallback lock's state (mutex_object.c)
 *
 * All static initialisers (PTHREAD_MUTEX_INITIALIZER and the RECURSIVE /
 * ERRORCHECK / ADAPTIVE _NP ones) are zeros except __kind, so they are valid
 * unlocked mutexes of the right type without any init call.  Robust, PI/PP
 * and process-shared mutexes carry a glibc flag in __kind (set by glibc's own
 * pthread_mutex_init, to which ours hands them): every later call on them
 * goes to glibc untouched.  glibc marks destroyed mutexes with __kind = -1,
 * and so do we, so a use after destroy gets glibc's EINVAL.
 *
 * The owner is recorded for every type (one relaxed store per lock and per
 * unlock, in a line the lock just touched): errorcheck and recursive need it,
 * and a condition variable signal uses it to tell whether the caller holds the
 * mutex its waiters use, i.e. whether to defer the wake-up (wait morphing, sync.h).
 *
 * fork: the owner word's bits 48..63 hold the fork generation (ll_fork_generation,
 * 16 bits) in which the holder took the mutex, outside the inline fast paths (acr,
 * which repairs itself, and the word locks, which record no waiter).  In a fork
 * child, a mutex whose owner carries an older generation was held at the fork: its
 * lock state may record parent threads (tickets, queue nodes, passive sets) that
 * the child does not have.  Its unlock (by the forking thread, the only one left)
 * re-initialises the lock to free instead of handing it over, and every other
 * acquisition waits for that unlock before touching the lock (mutex_fork.c).
 */
#ifndef LOCKLAB_INTERPOSE_MUTEX_H
#define LOCKLAB_INTERPOSE_MUTEX_H

#include <pthread.h>

#include "locklab/sync.h"
#include "slab.h"

typedef struct lp_mutex {
    ll_atomic_u64 owner;
    ll_wake_list deferred;
    int32_t kind;
    uint32_t depth;
    union {
        unsigned char state[LP_INLINE_STATE_BYTES];
        ll_atomic_ptr obj;
    } lock;
} lp_mutex;

/* The interposer's objects overlay glibc's (the layout tables of this header, cond.c and
 * rwlock.c; checked where glibc's layout is known, x86_64): OURS exactly as large as GLIBC,
 * and OURS.field where glibc keeps __data.glibc_field (which glibc's own calls read). */
#define LP_OVERLAYS(OURS, GLIBC) _Static_assert(sizeof(OURS) == sizeof(GLIBC), #OURS " must overlay " #GLIBC " exactly")
#define LP_AT_GLIBC_FIELD(OURS, field, GLIBC, glibc_field)                                           \
    _Static_assert(__builtin_offsetof(OURS, field) == __builtin_offsetof(GLIBC, __data.glibc_field), \
                   #OURS "." #field " must be glibc's " #glibc_field)

#if defined(__x86_64__)
LP_OVERLAYS(lp_mutex, pthread_mutex_t);
LP_AT_GLIBC_FIELD(lp_mutex, kind, pthread_mutex_t, __kind);
#endif

/* glibc's __kind flags (nptl/pthreadP.h): such mutexes are passed through. */
#define LP_KIND_ROBUST 16
#define LP_KIND_PRIO_INHERIT 32
#define LP_KIND_PRIO_PROTECT 64
#define LP_KIND_PSHARED 128
#define LP_KIND_PASSTHROUGH (LP_KIND_ROBUST | LP_KIND_PRIO_INHERIT | LP_KIND_PRIO_PROTECT | LP_KIND_PSHARED)
#define LP_KIND_TYPE_MASK 3

LL_INLINE bool lp_mutex_passthrough(const lp_mutex *m) { return (m->kind & LP_KIND_PASSTHROUGH) != 0; }

/* A per-thread identity, unique for the life of the process (never 0, never
 * reused): a 64-bit counter value given to each thread at its first call.
 * Not an address: a thread started after the owner exited may get the owner's
 * TLS block back, and must not pass for the owner of the mutexes it left
 * locked (errorcheck unlock EPERM, recursive trylock EBUSY, as glibc). */
extern __thread uint64_t lp_self_tid __attribute__((tls_model("initial-exec")));
LL_COLD uint64_t lp_self_id_assign(void); /* cold: the calling thread's first call */
/* The id again, set by every blocking acquisition on the general path (mutex_general.c,
 * lock_acquire: after the head count; not by a trylock or a timed lock): the direct path's
 * pthread_mutex_lock runs only once it is (mutex.c, "the direct path"). */
extern __thread uint64_t lp_direct_tid __attribute__((tls_model("initial-exec")));
LL_INLINE uint64_t lp_self_id(void)
{
    uint64_t id = lp_self_tid; /* one TLS load on the fast path */
    return LL_LIKELY(id != 0) ? id : lp_self_id_assign();
}

/* The owner word: the holder's id (a counter value: below 2^48 in any process)
 * and, from bit LP_OWNER_GEN_SHIFT, the fork generation it took the mutex in. */
#define LP_OWNER_GEN_SHIFT 48
#define LP_OWNER_ID_MASK ((UINT64_C(1) << LP_OWNER_GEN_SHIFT) - 1)
LL_INLINE uint32_t lp_fork_gen_now(void)
{
    return ll_fork_generation_now();
}
/* What the slow paths store into the owner word: a thread (lp_owner_tag: this one), this
 * fork generation. */
LL_INLINE uint64_t lp_owner_tag_of(uint64_t id) { return id | (uint64_t)(lp_fork_gen_now() & 0xffffu) << LP_OWNER_GEN_SHIFT; }
LL_INLINE uint64_t lp_owner_tag(void) { return lp_owner_tag_of(lp_self_id()); }

/* ---- the owner word of any lock that keeps one: mutexes, out-of-line spinlocks (spin.c) ---- */

/* Is owner a holder's tag from another fork generation than gen (this one)? */
LL_INLINE bool lp_held_before_fork(uint64_t owner, uint32_t gen)
{
    return owner != 0 && (owner >> LP_OWNER_GEN_SHIFT) != (gen & 0xffffu);
}

/* In a fork child, under a lock that records waiters (*repair: the lock has no LL_CAP_FORK_SAFE;
 * read only in a child): is the lock whose owner word is *owner held from before the fork?  Its
 * unlock re-initialises the lock, then stores 0 with release (mutex_fork.c). */
LL_INLINE bool lp_held_across_fork(ll_atomic_u64 *owner, const bool *repair)
{
    uint32_t gen = lp_fork_gen_now();
    if (LL_LIKELY(gen == 0))
        return false;
    /* acquire: pairs with the release store of 0 ending the repair; the re-initialised lock */
    return *repair && lp_held_before_fork(ll_load_acquire(owner), gen);
}

/* Wait, polling, until *owner no longer says held from before the fork (true), or until
 * abstime on clock passes first (false; NULL: no deadline) (mutex_fork.c). */
LL_COLD bool lp_await_fork_holder(ll_atomic_u64 *owner, const bool *repair, clockid_t clock, const struct timespec *abstime);

/* Is owner the calling thread's tag (of any generation)?  Without giving the caller an id: a
 * thread that has none never held a lock. */
LL_INLINE bool lp_owner_is_me_quick(uint64_t owner)
{
    uint64_t id = lp_self_tid;
    return ((owner ^ id) & LP_OWNER_ID_MASK) == 0 && id != 0;
}

/* The id of an owner word whose release an unlock has claimed (lp_owner_claim): no thread's
 * (ids stay below 2^48 - 1). */
#define LP_OWNER_RELEASING LP_OWNER_ID_MASK

/* Claim the release of the hold whose owner word reads seen (a holder's tag): a CAS to its
 * generation with the id LP_OWNER_RELEASING (the generation kept, for the fork check).  Of
 * the unlocks that race for one hold (another thread's, which is misuse, and the holder's
 * own), the one whose claim succeeds releases the lock and clears the word (a store of 0, or
 * a fork repair's release store); the others find a claim or 0 and do nothing: a queue lock
 * released twice hands a node on twice (a crash), a ticket lock skips a ticket (a hang).
 * acquire: pairs with the release store of the holder's tag (after its acquisition), so that
 * a claimant's release of the lock reads the lock state the holder's acquisition wrote. */
LL_INLINE uint64_t lp_owner_claim_of(uint64_t seen) { return (seen & ~LP_OWNER_ID_MASK) | LP_OWNER_RELEASING; }
LL_INLINE bool lp_owner_claim(ll_atomic_u64 *owner, uint64_t seen)
{
    return ll_cas(owner, &seen, lp_owner_claim_of(seen), LL_ACQUIRE);
}

/* The holder's claim, where its unlock is long between its check of the owner word and its
 * release (the general path: a condition wait takes its guard in between; a fork repair places
 * the lock again): false if another thread's unlock claimed the hold first (that one releases). */
LL_INLINE bool lp_owner_claim_mine(ll_atomic_u64 *owner)
{
    uint64_t seen = ll_load_relaxed(owner); /* relaxed: the CAS decides */
    return lp_owner_is_me_quick(seen) && lp_owner_claim(owner, seen);
}

/* The unlock of a lock whose owner word (*owner) does not name the caller: undefined in POSIX.
 * glibc frees its word either way; so not locked (0, or a release claimed): nothing to do;
 * held by another thread: true, the caller claims the release (lp_owner_claim) and releases
 * it for its holder, unless the lock's release needs the holder's own thread
 * (holder_releases: LL_CAP_HOLDER_RELEASES), then ignored.  The holder's unlocks that do not
 * claim (mutex.c's inline and direct paths, a spinlock's unlock outside a fork child) check
 * the word and store 0 a few instructions later: a claim that lands in between waits 1 us for
 * that store and leaves the release to the holder.  Not covered: such a holder preempted
 * between its check and its store for longer (both release).  Each kind said in one line,
 * once per process for mutexes and once for spinlocks, unless LOCKLAB_QUIET (mutex_misuse.c). */
LL_COLD bool lp_unlock_not_owner(ll_atomic_u64 *owner, bool holder_releases, bool spinlock, const void *lock, void *pc);

/* Does the calling thread hold m (a non-passthrough mutex)?  Also if it took m before a fork. */
LL_INLINE bool lp_mutex_held_by_me(lp_mutex *m)
{
    /* relaxed: only this thread ever stores its own id */
    return (ll_load_relaxed(&m->owner) & LP_OWNER_ID_MASK) == lp_self_id();
}

/* The same answer without giving the caller an id: a thread that has none never held a
 * mutex (the entry points' misuse checks, mutex.c). */
LL_INLINE bool lp_mutex_held_by_me_quick(lp_mutex *m)
{
    return lp_owner_is_me_quick(ll_load_relaxed(&m->owner)); /* relaxed: only this thread ever stores its own id */
}

/* Lock / unlock of a non-passthrough mutex for the condition variables
 * (ll_mutex_iface): records the owner; unlock flushes the deferred wake-ups
 * after releasing.  The recursion depth is the caller's business. */
extern const ll_mutex_iface lp_mutex_iface;

/* The entry points with the application's return address (for the profile), for C11's
 * mtx_* (c11.c): pthread_mutex_lock, _trylock, _timedlock, _unlock otherwise, not counted as
 * pthread mutex calls by LOCKLAB_VERBOSE's census (config.h, lp_seen). */
int lp_mutex_lock_at(pthread_mutex_t *pm, void *pc);
int lp_mutex_trylock_at(pthread_mutex_t *pm, void *pc);
int lp_mutex_timedlock_at(pthread_mutex_t *pm, const struct timespec *abstime, void *pc);
int lp_mutex_unlock_at(pthread_mutex_t *pm, void *pc);
/* pthread_mutex_init of a private mutex of this type (PTHREAD_MUTEX_NORMAL, _RECURSIVE, ...). */
int lp_mutex_init_private(pthread_mutex_t *pm, int type, bool ready);
/* The same for the condition variables (cond.c), for C11's cnd_*: abstime NULL waits untimed. */
int lp_cond_wait_at(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abstime, void *pc);
int lp_cond_wake_at(pthread_cond_t *c, bool all, void *pc);
void lp_cond_init_private(pthread_cond_t *c, clockid_t clock);
int lp_cond_destroy_at(pthread_cond_t *c, void *pc);

#endif
