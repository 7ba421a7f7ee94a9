/*
 * pthread_mutex_{init,destroy,lock,trylock,timedlock,clocklock,unlock} over
 * the lock chosen by LOCKLAB_LOCK (any spec of the registry), with POSIX
 * semantics per mutex type:
 *
 *   type        relock by owner        unlock by non-owner   trylock by owner
 *   ----------  ---------------------  --------------------  ----------------
 *   normal      deadlock (POSIX),      undefined (POSIX):    EBUSY
 *               outside the lock       as glibc (below)
 *   adaptive    as normal
 *   errorcheck  EDEADLK                EPERM                 EBUSY
 *   recursive   depth + 1 (EAGAIN at   EPERM                 depth + 1
 *               2^32 - 1)
 *
 * pthread_mutex_destroy of a held mutex: EBUSY; a destroyed mutex answers
 * EINVAL (glibc's answer: mutex.h).
 *
 * Misuse glibc survives is survived ("misuse" below; docs/interposer.md): an
 * unlock of a normal mutex that is not locked is ignored, one by a thread that
 * does not hold it releases it for its holder (ignored where the release needs
 * the holder's thread), one line each; a relocking holder waits outside the
 * lock, so an asynchronous cancellation leaves nothing in it and a
 * re-initialisation under it is not taken.  The inline fast paths are as glibc
 * already (their unlock stores 0).
 *
 * Out of memory: pthread_mutex_init of an out-of-line lock answers ENOMEM when
 * no lock object can be had (it leaves a spare for the first lock, which installs
 * one); a first lock that cannot have one runs that mutex on an inline fallback
 * lock ("out of memory" below, slab.h).
 *
 * Timed acquisition (timedlock, clocklock): one try_acquire, then (EINVAL if
 * tv_nsec is out of range, as glibc checks it only when it would block; a
 * normal mutex the caller holds waits, unqueued, for another thread's unlock
 * or the deadline: lock_acquire_until) the lock's own timed acquire (ops->acquire_until, registry.h): the timed waiter
 * queues and waits as any waiter does and leaves at the deadline, so it is
 * served within the lock's own bound (docs/interposer.md, "Timed locks", has
 * each lock's).  The deadline is converted to the monotonic clock; if the
 * caller's clock says it has not passed yet when the lock gives up (a
 * CLOCK_REALTIME set back), it waits again.  A CLOCK_REALTIME deadline more
 * than LP_REALTIME_SLICE_NS away is waited for in slices of that length, the
 * caller's clock read again between them, so that a clock set forward past
 * the deadline ends the wait at most a slice late (POSIX: the wait ends when
 * that clock reaches abstime); each slice leaves the queue and joins it again,
 * hence slices long against every lock's patience (mcscr's 50 ms).  A lock
 * without acquire_until (the
 * peers') is polled: try_acquire, spinning for LP_DEFAULT_SPIN_NS, then
 * sleeping 1 us doubling to 1 ms; such a waiter is not queued, so under
 * sustained contention of a FIFO lock it may time out although the lock
 * changed hands many times.
 *
 * fork: a mutex the forking thread held at the fork is repaired by its unlock
 * in the child (its lock re-initialised, not handed to a parent thread the
 * child does not have); see "fork" below.
 *
 * Profiling (LOCKLAB_PROFILE, profile.h): the lock object of a mutex carries
 * its record (created with the object, so always out-of-line mode); the fast
 * paths test only `prof != NULL`.  Glibc's (passthrough) mutexes are counted
 * per call through proftable.h.
 *
 * Layout and passthrough rules: mutex.h.  Paper context: the Malthusian
 * paper ran all its application experiments by interposing these functions
 * (§6.10, §6.11).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "locklab/parkinglot.h"
#include "locklab/standby.h"
#include "mutex.h"
#include "profile.h"
#include "proftable.h"
#include "real.h"

__thread uint64_t lp_self_tid __attribute__((tls_model("initial-exec")));
static ll_atomic_u64 last_tid;

uint64_t lp_self_id_assign(void)
{
    lp_self_tid = ll_faa(&last_tid, 1, LL_RELAXED) + 1; /* relaxed: only uniqueness matters (the RMW gives it) */
    return lp_self_tid;
}

static const char *type_name(int32_t kind)
{
    if (kind == -1)
        return "destroyed";
    if (kind & LP_KIND_PASSTHROUGH)
        return kind & LP_KIND_ROBUST         ? "robust"
               : kind & LP_KIND_PRIO_INHERIT ? "pi"
               : kind & LP_KIND_PRIO_PROTECT ? "pp"
                                             : "pshared";
    static const char *const names[] = {"normal", "recursive", "errorcheck", "adaptive"};
    return names[kind & LP_KIND_TYPE_MASK];
}

/* ---- time, for the waits that poll (timed locks, fork) ------------------------------- */

static bool before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static uint64_t ns_between(const struct timespec *from, const struct timespec *to)
{
    return (uint64_t)(to->tv_sec - from->tv_sec) * 1000000000u + (uint64_t)to->tv_nsec - (uint64_t)from->tv_nsec;
}

/* Sleep *nap_ns (at most left_ns), then double *nap_ns up to 1 ms. */
static void nap(uint64_t *nap_ns, uint64_t left_ns)
{
    uint64_t ns = *nap_ns < left_ns ? *nap_ns : left_ns;
    struct timespec t = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    nanosleep(&t, NULL);
    *nap_ns = *nap_ns * 2 > 1000000 ? 1000000 : *nap_ns * 2;
}

/* A polling wait's step: 64 PAUSEs until spin_until (ll_now_ns), then nap (above): a wait
 * of a few microseconds does not pay a sleep's timer slack (~50 us). */
static void spin_or_nap(uint64_t *nap_ns, uint64_t spin_until, uint64_t left_ns)
{
    if (ll_now_ns() < spin_until) {
        for (int i = 0; i < 64; i++)
            ll_pause();
    } else {
        nap(nap_ns, left_ns);
    }
}

/* ---- the lock behind a mutex ------------------------------------------------------- */

typedef struct lock_ref {
    void *state;
    ll_wait_policy *wp;
    const ll_lock_ops *ops; /* lp_cfg.ops, or the out-of-memory fallback's (below) */
    lp_profile *prof;       /* NULL unless profiling */
} lock_ref;

typedef struct install_ctx {
    lp_mutex *m;
    void *pc;
} install_ctx;

/* Initialise the lock (state and waiting policy) of an out-of-line object.  The same settled
 * spec placed the scratch lock at lp_init (settled, so it never measures); it fails only out
 * of memory, for a lock whose init allocates (hmcs, anderson). */
static bool place_lock(void *obj)
{
    char err[256];
    return ll_lock_place(&lp_cfg.lock, LL_DEFAULTS_FIXED, obj, &lp_hdr(obj)->wp, NULL, err, sizeof err) == 0;
}

static bool init_object(void *obj, void *arg)
{
    install_ctx *c = (install_ctx *)arg;
    lp_objhdr *h = lp_hdr(obj);
    if (!place_lock(obj))
        return false;
    h->home = &c->m->lock.obj;
    if (lp_profiling)
        h->prof = lp_profile_new(c->m, "mutex", type_name(c->m->kind), false, c->pc);
    return true;
}

/* An object leaving its mutex (destroyed, or dropped without a destroy: slab.h):
 * release what its lock holds, and fold its profile record into its call site's. */
static void retire_object(void *obj)
{
    lp_objhdr *h = lp_hdr(obj);
    if (lp_cfg.ops->abandon) /* a mutex dropped while held: its holder's node */
        lp_cfg.ops->abandon(obj);
    if (lp_cfg.ops->destroy)
        lp_cfg.ops->destroy(obj);
    if (h->prof) {
        lp_profile_retire(h->prof);
        h->prof = NULL;
    }
}

/* First use of a mutex in out-of-line mode: install its object, once (LP_OBJ_FALLBACK when
 * none can be allocated: slab.h). */
static LL_COLD void *install_object(lp_mutex *m, void *pc)
{
    install_ctx c = {m, pc};
    return lp_slab_install(&m->lock.obj, init_object, retire_object, &c, true);
}

/* Is obj the object of m, or of the mutex m was copied from?  A mutex used and then copied
 * (a struct assignment, memcpy; undefined in POSIX, a separate mutex under glibc) carries
 * its original's object pointer: a thread holding the original would block the copy's
 * users, and lock both and deadlock on itself. */
LL_INLINE bool copied(lp_mutex *m, void *obj) { return lp_hdr(obj)->home != &m->lock.obj; }

/* m is a copy of another mutex (copied): give it an object of its own.  Its users all see
 * the copy (copied() is checked before every use) and agree on the new object. */
static LL_COLD void *rebind_copy(lp_mutex *m, void *obj, void *pc)
{
    /* relaxed: only the slot's value matters; the install publishes the new object (release) */
    (void)ll_cas(&m->lock.obj, &obj, NULL, LL_RELAXED);
    return install_object(m, pc); /* or the object a racing user installed first */
}

/* ---- out of memory: the fallback lock --------------------------------------------------
 * A mutex whose lock object cannot be allocated (slab.h: LP_OBJ_FALLBACK in its slot) runs
 * on standby (src/locks/standby.c) kept inline in the second half of its lock field: 8
 * bytes, all-zero when free, no allocation, parking in the global table; its waiting
 * policy is its own (the wp argument is unused).  Not the configured lock, so it is said
 * once on stderr (unless LOCKLAB_QUIET) and counted in LOCKLAB_VERBOSE's exit line; the
 * profiler does not see such a mutex (its record hangs off the object). */
_Static_assert(sizeof(ll_standby_lock) <= LP_INLINE_STATE_BYTES - sizeof(void *), "standby fits beside the slot");
LL_INLINE void *fallback_state(lp_mutex *m) { return m->lock.state + sizeof(void *); }

static LL_COLD lock_ref fallback_ref(lp_mutex *m)
{
    lock_ref r = {fallback_state(m), &lp_cfg.wp, &ll_lock_standby, NULL};
    return r;
}

LL_INLINE lock_ref lock_of(lp_mutex *m, void *pc)
{
    lock_ref r;
    r.ops = lp_cfg.ops;
    if (lp_cfg.inline_state) {
        r.state = m->lock.state;
        r.wp = &lp_cfg.wp;
        r.prof = NULL;
        return r;
    }
    void *obj = ll_load_acquire(&m->lock.obj); /* acquire: pairs with lp_slab_install's release; initialised */
    if (LL_UNLIKELY((uintptr_t)obj <= LP_OBJ_FALLBACK) || LL_UNLIKELY(copied(m, obj))) { /* none yet, a copy, the fallback */
        if (obj == NULL)
            obj = install_object(m, pc);
        else if (obj != (void *)LP_OBJ_FALLBACK)
            obj = rebind_copy(m, obj, pc);
        if (obj == (void *)LP_OBJ_FALLBACK)
            return fallback_ref(m);
    }
    lp_objhdr *h = lp_hdr(obj);
    r.state = obj;
    r.wp = &h->wp;
    r.prof = h->prof;
    return r;
}

/* The configured lock's verbs on a lock: acr's inline expert API when it is the
 * configured lock and lives inline (lp_cfg.acr_inline: no indirect call), else the registry's ops. */
LL_INLINE ll_acr_lock *acr_of(lp_mutex *m) { return (ll_acr_lock *)(void *)m->lock.state; }
LL_INLINE void ops_acquire(lock_ref r)
{
    if (lp_cfg.acr_inline)
        ll_acr_acquire((ll_acr_lock *)r.state, &lp_cfg.acr);
    else
        r.ops->acquire(r.state, r.wp);
}
LL_INLINE bool ops_try_acquire(lock_ref r)
{
    return lp_cfg.acr_inline ? ll_acr_try_acquire((ll_acr_lock *)r.state) : r.ops->try_acquire(r.state, r.wp);
}
LL_INLINE void ops_release(lock_ref r)
{
    if (lp_cfg.acr_inline)
        ll_acr_release((ll_acr_lock *)r.state);
    else
        r.ops->release(r.state, r.wp);
}

/* ---- fork ----------------------------------------------------------------------------
 *
 * In a fork child only the forking thread is left.  A mutex it held at the fork
 * may have had parent threads waiting in its lock (a ticket taken, a queue node
 * linked, a passive set, a per-socket lock): an ordinary unlock would hand the
 * lock to one of them and the child would hang.  The owner word tells which
 * mutexes were held at a fork (its generation, mutex.h).  Under a lock that
 * records waiters (lp_cfg.fork_repair: every lock without LL_CAP_FORK_SAFE; acr,
 * the word locks, parkinglot and standby repair themselves, registry.h):
 *   - the unlock of such a mutex re-initialises its lock to free (inline: zeros,
 *     the free state of every inline lock; out-of-line: placed again in its
 *     object), and only then clears the owner word (release);
 *   - every acquisition first waits while the mutex is held from before the
 *     fork (only that unlock ends it), so no child thread joins the parent's
 *     waiters in the old state; a trylock answers EBUSY, a timed lock waits
 *     until its deadline.
 * Left behind per mutex held across a fork: the holder's queue node and what
 * the lock's init allocated (CLH's node, Anderson's slots, HMCS's records).  A
 * mutex another thread held (or was being handed) at the fork stays taken in
 * the child, as glibc's does.  In a process that never forked, this costs a
 * load of ll_fork_generation on the paths that are not inline fast paths.
 */

LL_INLINE bool held_before_fork(uint64_t owner, uint32_t gen)
{
    return owner != 0 && (owner >> LP_OWNER_GEN_SHIFT) != (gen & 0xffffu);
}

/* In a fork child, under a lock that records waiters: is m held from before the fork? */
LL_INLINE bool held_across_fork(lp_mutex *m)
{
    uint32_t gen = lp_fork_gen_now();
    if (LL_LIKELY(gen == 0))
        return false;
    /* acquire: pairs with release_across_fork's release store; the re-initialised lock */
    return lp_cfg.fork_repair && held_before_fork(ll_load_acquire(&m->owner), gen);
}

/* Nap until held(m) is false (true), or until abstime on clock passes first (false;
 * NULL: no deadline). */
static LL_COLD bool await_not(bool (*held)(lp_mutex *), lp_mutex *m, clockid_t clock, const struct timespec *abstime)
{
    uint64_t nap_ns = 1000, spin_until = ll_now_ns() + LP_DEFAULT_SPIN_NS;
    while (held(m)) {
        struct timespec now;
        if (abstime && (clock_gettime(clock, &now), !before(&now, abstime)))
            return false;
        spin_or_nap(&nap_ns, spin_until, abstime ? ns_between(&now, abstime) : UINT64_MAX);
    }
    return true;
}

/* The unlock of a mutex held from before the fork (the owner word still says so). */
static LL_COLD void release_across_fork(lp_mutex *m)
{
    ll_wake_list deferred = m->deferred;
    m->deferred.head = NULL;
    lock_ref r = lock_of(m, NULL);
    if (r.prof)
        lp_profile_releasing(r.prof);
    if (lp_cfg.inline_state)
        memset(m->lock.state, 0, sizeof m->lock.state); /* no thread reads it until the store below */
    else if (r.ops != lp_cfg.ops)
        memset(r.state, 0, sizeof(ll_standby_lock)); /* the fallback (above): free */
    else
        (void)place_lock(r.state); /* hmcs, anderson out of memory in the child: not handled */
    ll_store_release(&m->owner, 0); /* release: the re-initialised lock; pairs with held_across_fork's acquire */
    ll_wake_list_flush(&deferred);
}

/* ---- misuse that glibc survives --------------------------------------------------------
 *
 * Relock: a thread locks a normal (or adaptive) mutex it holds.  POSIX: it deadlocks; only
 * another thread's unlock (undefined, glibc allows it) can end the wait.  Such a thread must
 * not wait inside the lock: cancelled asynchronously there, it would leave its queue node or
 * ticket behind for ever (the next release hands the lock to a thread that is gone), and a
 * program may re-initialise the mutex under it.  So it waits outside the lock, on the owner
 * word, with a mark in depth (a holder-only field that normal mutexes leave unused): an
 * unlock by another thread changes the owner and leaves the mark; a re-initialisation
 * (pthread_mutex_init, an initialiser assigned) zeroes both, and then, as glibc's waiter
 * sleeping on the old futex word, the thread waits for ever (until abstime) instead of taking
 * the new mutex.  It spins LP_DEFAULT_SPIN_NS (a timed relock with a short deadline pays no
 * sleep's timer slack), then naps, 1 us doubling to 1 ms, in raw syscalls: a lock is no
 * cancellation point, but an asynchronous cancellation acts during them, leaving nothing
 * behind. */
#define LP_RELOCK_MARK 0x52454c4bu /* "RELK" */

static void nap_raw(uint64_t ns)
{
    struct timespec t = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &t, NULL); /* not a cancellation point (glibc's syscall()) */
}

/* Relocking thread: true once another thread unlocked m, false at abstime (NULL: never). */
static LL_COLD bool relock_wait(lp_mutex *m, clockid_t clock, const struct timespec *abstime)
{
    uint64_t mine = ll_load_relaxed(&m->owner); /* relaxed: our own store */
    m->depth = LP_RELOCK_MARK;
    uint64_t nap_ns = 1000, spin_until = ll_now_ns() + LP_DEFAULT_SPIN_NS; /* a short deadline: no sleep's slack */
    bool reinitialised = false;
    for (;;) {
        /* relaxed: the lock's acquire orders what follows; here only a change is looked for */
        if (!reinitialised && ll_load_relaxed(&m->owner) != mine) {
            nap_raw(100000); /* a re-initialisation zeroes the owner first, the depth a moment later */
            if (*(volatile uint32_t *)&m->depth == LP_RELOCK_MARK) { /* volatile: written by a re-initialising thread */
                m->depth = 0;
                return true;
            }
            reinitialised = true; /* glibc's waiter sleeps on: so do we */
        }
        uint64_t left = UINT64_MAX;
        if (abstime) {
            struct timespec now;
            clock_gettime(clock, &now);
            if (!before(&now, abstime)) {
                if (!reinitialised)
                    m->depth = 0; /* still ours */
                return false;
            }
            left = ns_between(&now, abstime);
        }
        if (ll_now_ns() < spin_until) {
            for (int i = 0; i < 64; i++)
                ll_pause();
            continue;
        }
        nap_raw(nap_ns < left ? nap_ns : left);
        nap_ns = nap_ns * 2 > 1000000 ? 1000000 : nap_ns * 2;
    }
}

/* Lines about misuse: one per kind, once per process, unless LOCKLAB_QUIET. */
enum { MISUSE_UNLOCKED, MISUSE_NOT_OWNER_RELEASED, MISUSE_NOT_OWNER_IGNORED, MISUSE_KINDS };
static LL_COLD void say_misuse(int kind, const lp_mutex *m, void *pc)
{
    static ll_atomic_u32 said[MISUSE_KINDS];
    if (lp_cfg.quiet || ll_xchg(&said[kind], 1, LL_RELAXED) != 0) /* relaxed: only one thread may print */
        return;
    static const char *const what[MISUSE_KINDS] = {
        "of a mutex that is not locked: ignored, as glibc does",
        "by a thread that does not hold it: released for its holder, as glibc does",
        "by a thread that does not hold it: ignored (under this lock only the holder can release)",
    };
    char line[300];
    int n = snprintf(line, sizeof line,
                     "liblocklab-preload: pthread_mutex_unlock(%p) %s (undefined in POSIX; called from %p; "
                     "said once)\n", (const void *)m, what[kind], pc);
    if (n > 0)
        (void)!write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

/* Does the lock's release need the holder's own thread (LL_CAP_HOLDER_RELEASES: a
 * per-thread wait element that its successor watches)? */
static bool release_needs_holder(void) { return ll_lock_holder_releases(lp_cfg.ops); }

static LL_COLD void acquire_profiled(lock_ref r)
{
    bool contended = !ops_try_acquire(r);
    uint64_t wait_ns = 0;
    if (contended) {
        uint64_t t0 = ll_now_ns();
        ops_acquire(r);
        wait_ns = ll_now_ns() - t0;
    }
    lp_profile_acquired(r.prof, contended, wait_ns);
}

LL_INLINE void lock_acquire(lp_mutex *m, void *pc)
{
    lp_note_spinning_thread();
    if (LL_UNLIKELY(held_across_fork(m)))
        await_not(held_across_fork, m, CLOCK_MONOTONIC, NULL);
    if (LL_UNLIKELY(lp_mutex_held_by_me_quick(m))) /* a relock (above) */
        relock_wait(m, CLOCK_MONOTONIC, NULL);
    lock_ref r = lock_of(m, pc);
    if (LL_UNLIKELY(r.prof != NULL))
        acquire_profiled(r);
    else
        ops_acquire(r);
}

LL_INLINE bool lock_try_acquire(lp_mutex *m, void *pc)
{
    lock_ref r = lock_of(m, pc);
    bool ok = !held_across_fork(m) && ops_try_acquire(r);
    if (LL_UNLIKELY(r.prof != NULL)) {
        if (ok)
            lp_profile_acquired(r.prof, false, 0);
        else
            lp_profile_trylock_failed(r.prof);
    }
    return ok;
}

LL_INLINE void lock_release(lp_mutex *m)
{
    lock_ref r = lock_of(m, NULL); /* the holder's mutex has its object */
    if (LL_UNLIKELY(r.prof != NULL))
        lp_profile_releasing(r.prof);
    ops_release(r);
}

/* Release, then deliver the wake-ups condition variable signals deferred to
 * this unlock (wait morphing: the woken threads find the mutex free). */
static LL_COLD void release_and_flush(lp_mutex *m)
{
    ll_wake_list deferred = m->deferred;
    m->deferred.head = NULL;
    lock_release(m);
    ll_wake_list_flush(&deferred);
}

LL_INLINE void release(lp_mutex *m)
{
    if (LL_UNLIKELY(held_across_fork(m))) {
        release_across_fork(m);
        return;
    }
    ll_store_relaxed(&m->owner, 0); /* relaxed: the lock's release orders it before the next owner's store */
    if (LL_UNLIKELY(m->deferred.head != NULL)) /* holder-only field */
        release_and_flush(m);
    else
        lock_release(m);
}


/* pthread_mutex_unlock of a normal or adaptive mutex (not the inline fast path) that the
 * caller does not hold: undefined in POSIX.  glibc frees the futex word either way; so
 * not locked: nothing to do; held by another thread: the lock is released for its holder,
 * where the lock's release does not need the holder's own thread, else ignored. */
static LL_COLD int unlock_not_owner(lp_mutex *m, void *pc)
{
    if (ll_load_relaxed(&m->owner) == 0) { /* relaxed: an unlock racing with a lock is misuse anyway */
        say_misuse(MISUSE_UNLOCKED, m, pc);
        return 0;
    }
    if (release_needs_holder()) {
        say_misuse(MISUSE_NOT_OWNER_IGNORED, m, pc);
        return 0;
    }
    say_misuse(MISUSE_NOT_OWNER_RELEASED, m, pc);
    release(m);
    return 0;
}

/* ---- timed acquisition ---------------------------------------------------------------- */

/* The lock's own timed acquire (acr inline, or ops->acquire_until) until abstime on clock
 * (CLOCK_REALTIME: in slices, see the header). */
static bool ops_acquire_until(lock_ref r, clockid_t clock, const struct timespec *abstime)
{
    for (;;) {
        struct timespec now;
        clock_gettime(clock, &now);
        if (!before(&now, abstime))
            return false;
        uint64_t left = ns_between(&now, abstime);
        if (clock == CLOCK_REALTIME && left > LP_REALTIME_SLICE_NS)
            left = LP_REALTIME_SLICE_NS;
        uint64_t deadline = ll_now_ns() + left;
        if (lp_cfg.acr_inline ? ll_acr_acquire_until((ll_acr_lock *)r.state, &lp_cfg.acr, deadline)
                              : r.ops->acquire_until(r.state, r.wp, deadline))
            return true;
    }
}

static int lock_acquire_until(lp_mutex *m, void *pc, clockid_t clock, const struct timespec *abstime)
{
    lock_ref r = lock_of(m, pc);
    if (LL_UNLIKELY(held_across_fork(m))) { /* would block: check abstime, as below */
        if (abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000)
            return EINVAL;
        if (!await_not(held_across_fork, m, clock, abstime))
            return ETIMEDOUT;
    }
    if (ops_try_acquire(r)) {
        if (r.prof)
            lp_profile_acquired(r.prof, false, 0);
        return 0;
    }
    if (abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000)
        return EINVAL;
    /* A normal mutex this thread holds: only another thread's unlock (glibc allows it) can
     * free it before the deadline, so wait for that without queueing in the lock (relock_wait;
     * also: a timed waiter that gives up may leave its node in the lock, and k42's stays there
     * if the program then drops the held mutex: 128 bytes per cycle; test_memory). */
    if (LL_UNLIKELY(lp_mutex_held_by_me(m)) && !relock_wait(m, clock, abstime)) {
        if (r.prof)
            lp_profile_trylock_failed(r.prof); /* a timed lock that gave up counts as a failed try */
        return ETIMEDOUT;
    }
    uint64_t t0 = ll_now_ns(), spin_until = t0 + LP_DEFAULT_SPIN_NS;
    if (lp_cfg.acr_inline || r.ops->acquire_until) {
        lp_note_spinning_thread();
        if (!ops_acquire_until(r, clock, abstime)) {
            if (r.prof)
                lp_profile_trylock_failed(r.prof); /* a timed lock that gave up counts as a failed try */
            return ETIMEDOUT;
        }
        if (r.prof)
            lp_profile_acquired(r.prof, true, ll_now_ns() - t0);
        return 0;
    }
    uint64_t nap_ns = 1000;
    for (;;) {
        struct timespec now;
        clock_gettime(clock, &now);
        if (!before(&now, abstime)) {
            if (r.prof)
                lp_profile_trylock_failed(r.prof); /* a timed lock that gave up counts as a failed try */
            return ETIMEDOUT;
        }
        spin_or_nap(&nap_ns, spin_until, ns_between(&now, abstime));
        if (ops_try_acquire(r)) {
            if (r.prof)
                lp_profile_acquired(r.prof, true, ll_now_ns() - t0);
            return 0;
        }
    }
}

/* ---- glibc's mutexes ----------------------------------------------------------------- */

LL_INLINE void count_passthrough(pthread_mutex_t *pm, void *pc)
{
    if (LL_UNLIKELY(lp_profiling)) {
        lp_profile *p = lp_proftable_get(pm, "mutex", type_name(((lp_mutex *)pm)->kind), true, pc);
        if (p)
            lp_profile_passthrough_op(p);
    }
}

enum how { BLOCK, TRY, TIMED };

static int passthrough_lock(pthread_mutex_t *pm, enum how how, clockid_t clock, const struct timespec *abstime)
{
    switch (how) {
    case BLOCK:
        return lp_real.mutex_lock(pm);
    case TRY:
        return lp_real.mutex_trylock(pm);
    default:
        return lp_real.mutex_clocklock(pm, clock, abstime);
    }
}

/* ---- the entry points --------------------------------------------------------------- */

/* Every lock operation but the fast path of normal and adaptive mutexes. */
static LL_COLD int lock_slow(pthread_mutex_t *pm, void *pc, enum how how, clockid_t clock,
                             const struct timespec *abstime)
{
    lp_mutex *m = (lp_mutex *)pm;
    if (lp_mutex_passthrough(m)) {
        count_passthrough(pm, pc);
        return passthrough_lock(pm, how, clock, abstime);
    }
    int type = m->kind & LP_KIND_TYPE_MASK;
    if ((type == PTHREAD_MUTEX_RECURSIVE || type == PTHREAD_MUTEX_ERRORCHECK) && lp_mutex_held_by_me(m)) {
        if (type == PTHREAD_MUTEX_ERRORCHECK)
            return how == TRY ? EBUSY : EDEADLK;
        if (m->depth == UINT32_MAX)
            return EAGAIN;
        m->depth++;
        return 0;
    }
    int rc = 0;
    if (how == BLOCK)
        lock_acquire(m, pc);
    else if (how == TRY)
        rc = lock_try_acquire(m, pc) ? 0 : EBUSY;
    else
        rc = lock_acquire_until(m, pc, clock, abstime);
    if (rc == 0) {
        ll_store_relaxed(&m->owner, lp_owner_tag()); /* relaxed: read by others only to compare with their own id */
        if (type == PTHREAD_MUTEX_RECURSIVE)
            m->depth = 0;
    }
    return rc;
}

LL_INLINE bool fast_kind(const lp_mutex *m) { return m->kind == PTHREAD_MUTEX_NORMAL || m->kind == PTHREAD_MUTEX_ADAPTIVE_NP; }

/* The entry points' test: the inlined fast path for a normal mutex (config.h, lp_fast), or
 * LP_FAST_NONE for every other kind or configuration. */
LL_INLINE uint32_t fast_path(const lp_mutex *m)
{
    uint32_t fast = ll_load_acquire(&lp_fast); /* acquire: pairs with the release store ending configure */
    return LL_LIKELY(m->kind == PTHREAD_MUTEX_NORMAL) ? fast : (uint32_t)LP_FAST_NONE;
}

_Static_assert(offsetof(ll_acr_lock, locked) == 0 && offsetof(ll_acr_lock, state) == 4 && LL_ACR_SLEEPING == 1u,
               "acr keeps the inline word contract (config.h)");
_Static_assert(offsetof(ll_parkinglot_lock, locked) == 0 && offsetof(ll_parkinglot_lock, parked) == 4,
               "parkinglot keeps the inline word contract (config.h)");
_Static_assert(offsetof(ll_standby_lock, locked) == 0 && offsetof(ll_standby_lock, state) == 4 && LL_STANDBY_ACT == 1u,
               "standby keeps the inline word contract (config.h)");
/* The inline locks' two words (config.h, "the inline word contract"): the lock word, 0 free and
 * 1 held, and the waiter word, whose bit 0 says a release must take the lock's own slow path. */
LL_INLINE ll_atomic_u32 *word_of(lp_mutex *m) { return (ll_atomic_u32 *)(void *)m->lock.state; }
LL_INLINE ll_atomic_u32 *waiter_word_of(lp_mutex *m) { return (ll_atomic_u32 *)(void *)(m->lock.state + 4); }
LL_INLINE ll_parkinglot_lock *parkinglot_of(lp_mutex *m) { return (ll_parkinglot_lock *)(void *)m->lock.state; }
LL_INLINE ll_standby_lock *standby_of(lp_mutex *m) { return (ll_standby_lock *)(void *)m->lock.state; }
LL_INLINE bool word_try_acquire(lp_mutex *m)
{
    uint32_t free_ = 0;
    /* acquire: pairs with the store-release of the lock's release (inline or its own) */
    return ll_cas(word_of(m), &free_, 1, LL_ACQUIRE);
}

/* The condition variables' relock (cond.c through lp_mutex_iface) and unlock. */
static void iface_lock(void *mutex)
{
    lp_mutex *m = (lp_mutex *)mutex;
    if (fast_path(m) == LP_FAST_STANDBY) { /* woken from a condition variable (standby.h) */
        if (!word_try_acquire(m))
            ll_standby_acquire_woken(standby_of(m));
    } else {
        lock_acquire(m, NULL);
    }
    ll_store_relaxed(&m->owner, lp_owner_tag()); /* relaxed: compared only with the reader's own id */
}
static void iface_unlock(void *mutex) { release((lp_mutex *)mutex); }
const ll_mutex_iface lp_mutex_iface = {iface_lock, iface_unlock};

/* The inline fast path's CAS failed: the lock's own acquire, then the owner. */
static LL_COLD int lock_inline_contended(lp_mutex *m, uint32_t fast)
{
    if (LL_UNLIKELY(lp_mutex_held_by_me(m))) { /* a relock ("misuse"): wait outside the lock */
        relock_wait(m, CLOCK_MONOTONIC, NULL);
        if (word_try_acquire(m))
            goto held;
    }
    if (fast == LP_FAST_STANDBY) {
        ll_standby_acquire_slow(standby_of(m));
    } else if (fast == LP_FAST_PARKINGLOT) {
        ll_parkinglot_acquire_slow(parkinglot_of(m));
    } else if (fast == LP_FAST_ACR) {
        ll_acr_acquire_slow(acr_of(m), &lp_cfg.acr);
    } else {
        lp_note_spinning_thread();
        lp_cfg.ops->acquire(m->lock.state, &lp_cfg.wp);
    }
held:
    ll_store_relaxed(&m->owner, lp_self_id()); /* relaxed: compared only with the reader's own id */
    return 0;
}

/* LOCKLAB_VERBOSE=1 (config.h, lp_seen): the first pthread mutex call (not C11's) past the
 * fast path marks pthread mutexes as used and opens the inline fast path (lp_fast_verbose). */
LL_INLINE void census(bool c11)
{
    if (LL_UNLIKELY(lp_cfg.verbose) && !c11 && !(ll_load_relaxed(&lp_seen) & LP_SEEN_MUTEX))
        lp_census_mutex();
}

/* pthread_mutex_lock past the inline fast path.  Out of line, as every slow path of the entry
 * points: then the fast path needs no stack frame. */
static LL_COLD int lock_general(pthread_mutex_t *pm, void *pc, bool c11)
{
    lp_mutex *m = (lp_mutex *)pm;
    if (LL_UNLIKELY(!lp_ensure_init()))
        return 0; /* called while configuring: exclusive without the lock (config.h) */
    census(c11);
    if (LL_LIKELY(fast_kind(m))) {
        lock_acquire(m, pc);
        ll_store_relaxed(&m->owner, lp_owner_tag()); /* relaxed: compared only with the reader's own id */
        return 0;
    }
    return lock_slow(pm, pc, BLOCK, CLOCK_REALTIME, NULL);
}

/* ---- the direct path (LP_FAST_OPS) -------------------------------------------------------
 * A lock with no inline word (every lock but the inline kinds of config.h), not profiled: the
 * entry points call its verbs straight, after the one test that covers what the general path
 * checks and can be true here: no id yet (a thread's first mutex call), any fork in the
 * process's history (the fork repair's checks need the generation), a relock (the owner
 * word is ours), deferred wake-ups at unlock, a mutex with no object yet, a copy of another
 * mutex, the out-of-memory fallback.  Each of those, and an unlock by a thread that does
 * not hold the mutex, goes to the general path, which decides as before.  The configuration
 * (lock placement, kind, census) was settled when lp_fast became LP_FAST_OPS. */
/* The configured lock's state and waiting policy, as lock_of finds them, or false when the
 * mutex has no object yet, runs on the out-of-memory fallback or (if lock) is a copy (the
 * general path's cases).  An unlock skips the copy check: its mutex's lock got its own
 * object at the lock that this unlock ends. */
LL_INLINE bool direct_state(lp_mutex *m, void **state, ll_wait_policy **wp, bool lock)
{
    if (lp_cfg.inline_state) {
        *state = m->lock.state;
        *wp = &lp_cfg.wp;
        return true;
    }
    void *obj = ll_load_acquire(&m->lock.obj); /* acquire: pairs with lp_slab_install's release; initialised */
    if (LL_UNLIKELY((uintptr_t)obj <= LP_OBJ_FALLBACK) || (lock && LL_UNLIKELY(copied(m, obj))))
        return false;
    *state = obj;
    *wp = &lp_hdr(obj)->wp;
    return true;
}

/* A process that never forked (and is not forking now): the direct path's condition, read
 * without ll_fork_generation_now's call (a call would keep the arguments in saved registers). */
LL_INLINE bool never_forked(void)
{
    return ll_load_relaxed(&ll_fork_generation) == 0; /* relaxed: changes only around a fork */
}

/* pthread_mutex_lock on the direct path. */
static __attribute__((noinline)) int lock_direct(pthread_mutex_t *pm, void *pc, bool c11)
{
    lp_mutex *m = (lp_mutex *)pm;
    uint64_t id = lp_self_tid;
    uint64_t owner = ll_load_relaxed(&m->owner); /* relaxed: only this thread ever stores its own id */
    if (LL_UNLIKELY(id == 0 || !never_forked() || ((owner ^ id) & LP_OWNER_ID_MASK) == 0))
        return lock_general(pm, pc, c11);
    void *state;
    ll_wait_policy *wp;
    if (!direct_state(m, &state, &wp, true))
        return lock_general(pm, pc, c11); /* it installs the object (first lock, a copy) */
    lp_note_spinning_thread();
    lp_cfg.ops->acquire(state, wp);
    ll_store_relaxed(&m->owner, id); /* relaxed: compared only with the reader's own id; generation 0 */
    return 0;
}

/* The application's return address for the profile: C11's, passed on by c11.c (c11_pc), or
 * that of the pthread entry point this is inlined into, read only on the paths that use it
 * (an argument read at entry would cost the fast path a load). */
#define CALLER_PC() (c11 ? c11_pc : __builtin_return_address(0))

/* pthread_mutex_lock's body; c11: called by mtx_lock (c11.c), which is not a pthread mutex use
 * for LOCKLAB_VERBOSE's census (config.h, lp_seen). */
LL_INLINE int mutex_lock(pthread_mutex_t *pm, void *c11_pc, bool c11)
{
    lp_mutex *m = (lp_mutex *)pm;
    uint32_t fast = fast_path(m);
    if (LL_UNLIKELY(fast == LP_FAST_NONE))
        return lock_general(pm, CALLER_PC(), c11);
    if (fast == LP_FAST_OPS)
        return lock_direct(pm, CALLER_PC(), c11);
    ll_rmw_lead(word_of(m)); /* the CAS may follow the last unlock's RMW-free release: atomics.h; 1.2 ns here */
    if (LL_UNLIKELY(!word_try_acquire(m)))
        return lock_inline_contended(m, fast);
    ll_store_relaxed(&m->owner, lp_self_id()); /* relaxed: compared only with the reader's own id */
    return 0;
}

int pthread_mutex_lock(pthread_mutex_t *pm) { return mutex_lock(pm, NULL, false); }
int lp_mutex_lock_at(pthread_mutex_t *pm, void *pc) { return mutex_lock(pm, pc, true); }

LL_INLINE int mutex_trylock(pthread_mutex_t *pm, void *c11_pc, bool c11)
{
    lp_mutex *m = (lp_mutex *)pm;
    uint32_t fast = fast_path(m);
    if (fast == LP_FAST_OPS && LL_LIKELY(never_forked())) { /* the direct path (above) */
        void *state;
        ll_wait_policy *wp;
        if (!direct_state(m, &state, &wp, true))
            goto general; /* no object yet, a copy, the fallback */
        if (!lp_cfg.ops->try_acquire(state, wp))
            return EBUSY;
        ll_store_relaxed(&m->owner, lp_self_id()); /* relaxed: compared only with the reader's own id */
        return 0;
    }
    if (LL_LIKELY(fast != LP_FAST_NONE && fast != LP_FAST_OPS)) {
        /* the inline word contract's try, as acr's and parkinglot's own: relaxed: a held word
         * fails without taking its line; the CAS validates a free one */
        if (ll_load_relaxed(word_of(m)) != 0 || !word_try_acquire(m))
            return EBUSY;
        ll_store_relaxed(&m->owner, lp_self_id()); /* relaxed: compared only with the reader's own id */
        return 0;
    }
general:
    if (LL_UNLIKELY(!lp_ensure_init()))
        return 0; /* called while configuring: exclusive without the lock (config.h) */
    census(c11);
    if (LL_LIKELY(fast_kind(m))) {
        if (!lock_try_acquire(m, CALLER_PC()))
            return EBUSY;
        ll_store_relaxed(&m->owner, lp_owner_tag()); /* relaxed: compared only with the reader's own id */
        return 0;
    }
    return lock_slow(pm, CALLER_PC(), TRY, CLOCK_REALTIME, NULL);
}
int pthread_mutex_trylock(pthread_mutex_t *pm) { return mutex_trylock(pm, NULL, false); }
int lp_mutex_trylock_at(pthread_mutex_t *pm, void *pc) { return mutex_trylock(pm, pc, true); }

static int clocklock(pthread_mutex_t *pm, void *pc, clockid_t clock, const struct timespec *abstime, bool c11)
{
    if (LL_UNLIKELY(!lp_ensure_init()))
        return 0; /* called while configuring: exclusive without the lock (config.h) */
    census(c11);
    if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC)
        return EINVAL;
    return lock_slow(pm, pc, TIMED, clock, abstime);
}

int pthread_mutex_clocklock(pthread_mutex_t *pm, clockid_t clock, const struct timespec *abstime)
{
    return clocklock(pm, __builtin_return_address(0), clock, abstime, false);
}

int pthread_mutex_timedlock(pthread_mutex_t *pm, const struct timespec *abstime)
{
    return clocklock(pm, __builtin_return_address(0), CLOCK_REALTIME, abstime, false);
}
int lp_mutex_timedlock_at(pthread_mutex_t *pm, const struct timespec *abstime, void *pc)
{
    return clocklock(pm, pc, CLOCK_REALTIME, abstime, true);
}

/* pthread_mutex_unlock past the inline fast path: out of line, as lock_general. */
static LL_COLD int unlock_general(pthread_mutex_t *pm, void *pc, bool c11)
{
    lp_mutex *m = (lp_mutex *)pm;
    if (LL_UNLIKELY(!lp_ensure_init()))
        return 0; /* called while configuring: its lock did not touch the mutex (config.h) */
    census(c11);
    if (LL_LIKELY(fast_kind(m))) {
        if (LL_UNLIKELY(!lp_mutex_held_by_me_quick(m)))
            return unlock_not_owner(m, pc);
        release(m);
        return 0;
    }
    if (lp_mutex_passthrough(m)) {
        count_passthrough(pm, pc);
        return lp_real.mutex_unlock(pm);
    }
    int type = m->kind & LP_KIND_TYPE_MASK;
    if (type == PTHREAD_MUTEX_RECURSIVE || type == PTHREAD_MUTEX_ERRORCHECK) {
        if (!lp_mutex_held_by_me(m))
            return EPERM;
        if (m->depth > 0) {
            m->depth--;
            return 0;
        }
    }
    release(m);
    return 0;
}

/* The inline fast path's release found work: deferred wake-ups, or a waiter word saying the lock's
 * own release must run (it re-reads the word: a waiter may have left meanwhile). */
static LL_COLD int unlock_inline_contended(lp_mutex *m, uint32_t fast)
{
    if (m->deferred.head != NULL) /* holder-only field */
        release_and_flush(m);
    else if (fast == LP_FAST_STANDBY)
        ll_standby_release(standby_of(m), &lp_cfg.wp);
    else if (fast == LP_FAST_PARKINGLOT)
        ll_parkinglot_release(parkinglot_of(m), &lp_cfg.wp);
    else if (fast == LP_FAST_ACR)
        ll_acr_release(acr_of(m));
    else
        ll_store_release(word_of(m), 0); /* release: the critical section; pairs with the acquiring CAS/xchg */
    return 0;
}

/* The direct path's unlock (above). */
static __attribute__((noinline)) int unlock_direct(pthread_mutex_t *pm, void *pc, bool c11)
{
    lp_mutex *m = (lp_mutex *)pm;
    uint64_t id = lp_self_tid;
    /* relaxed: only this thread ever stores its own id; deferred is a holder-only field */
    if (LL_UNLIKELY(id == 0 || !never_forked() || ll_load_relaxed(&m->owner) != id || m->deferred.head != NULL))
        return unlock_general(pm, pc, c11);
    void *state;
    ll_wait_policy *wp;
    if (!direct_state(m, &state, &wp, false))
        return unlock_general(pm, pc, c11); /* the out-of-memory fallback */
    ll_store_relaxed(&m->owner, 0); /* relaxed: the lock's release orders it before the next owner's store */
    lp_cfg.ops->release(state, wp);
    return 0;
}

LL_INLINE int mutex_unlock(pthread_mutex_t *pm, void *c11_pc, bool c11)
{
    lp_mutex *m = (lp_mutex *)pm;
    uint32_t fast = fast_path(m);
    if (LL_UNLIKELY(fast == LP_FAST_NONE))
        return unlock_general(pm, CALLER_PC(), c11);
    if (fast == LP_FAST_OPS)
        return unlock_direct(pm, CALLER_PC(), c11);
    ll_store_relaxed(&m->owner, 0); /* relaxed: the lock's release orders it before the next owner's store */
    /* relaxed: the waiter word as each inline lock's own release reads it (acr.h, parkinglot.h, standby.h:
     * a waiter that announces after this load is found by its timed sleep) */
    if (LL_UNLIKELY((m->deferred.head != NULL) | (ll_load_relaxed(waiter_word_of(m)) & 1u)))
        return unlock_inline_contended(m, fast);
    ll_store_release(word_of(m), 0); /* release: the critical section; pairs with the acquiring CAS */
    return 0;
}
int pthread_mutex_unlock(pthread_mutex_t *pm) { return mutex_unlock(pm, NULL, false); }
int lp_mutex_unlock_at(pthread_mutex_t *pm, void *pc) { return mutex_unlock(pm, pc, true); }

int pthread_mutex_init(pthread_mutex_t *pm, const pthread_mutexattr_t *attr)
{
    bool ready = lp_ensure_init(); /* false while configuring (config.h): only our own kinds need no config */
    int type = PTHREAD_MUTEX_DEFAULT, robust = PTHREAD_MUTEX_STALLED, protocol = PTHREAD_PRIO_NONE,
        pshared = PTHREAD_PROCESS_PRIVATE;
    if (attr) {
        pthread_mutexattr_gettype(attr, &type);
        pthread_mutexattr_getrobust(attr, &robust);
        pthread_mutexattr_getprotocol(attr, &protocol);
        pthread_mutexattr_getpshared(attr, &pshared);
    }
    if (robust != PTHREAD_MUTEX_STALLED || protocol != PTHREAD_PRIO_NONE || pshared != PTHREAD_PROCESS_PRIVATE) {
        if (!ready)
            lp_init_recursion_fatal("pthread_mutex_init (robust, PI/PP or process-shared)");
        ll_faa(&lp_passthrough_mutexes, 1, LL_RELAXED); /* relaxed: a statistic */
        int rc = lp_real.mutex_init(pm, attr);          /* glibc flags __kind: later calls pass through */
        count_passthrough(pm, __builtin_return_address(0));
        return rc;
    }
    if (ready)
        census(false);
    return lp_mutex_init_private(pm, type, ready);
}

int lp_mutex_init_private(pthread_mutex_t *pm, int type, bool ready)
{
    lp_mutex *m = (lp_mutex *)pm;
    memset(pm, 0, sizeof *pm);
    m->kind = type;
    /* Out-of-line: no memory for a lock object answers ENOMEM here (POSIX) rather than at the
     * first lock (which falls back then: slab.h).  The object is not bound to the mutex here:
     * one initialised in a temporary and copied into place (a container's push_back; undefined
     * in POSIX, plain data under glibc) must be a mutex of its own, and the temporary's address
     * must not hand its object over when a mutex is initialised there again (slab.h, the
     * registry).  So a spare object waits on the pool for the first lock, which installs one. */
    if (ready && !lp_cfg.inline_state && !lp_slab_spare())
        return ENOMEM; /* the mutex is left zeroed: a program that uses it anyway gets the fallback */
    return 0;
}

int pthread_mutex_destroy(pthread_mutex_t *pm)
{
    bool ready = lp_ensure_init(); /* false while configuring (config.h): no lock object exists yet */
    lp_mutex *m = (lp_mutex *)pm;
    if (lp_mutex_passthrough(m)) {
        if (!ready)
            lp_init_recursion_fatal("pthread_mutex_destroy (robust, PI/PP or process-shared)");
        count_passthrough(pm, __builtin_return_address(0));
        return lp_real.mutex_destroy(pm);
    }
    if (ll_load_relaxed(&m->owner) != 0) /* relaxed: held; a stale view would mean destroy races a lock (misuse) */
        return EBUSY;
    void *obj = !ready || lp_cfg.inline_state ? NULL : ll_load_acquire(&m->lock.obj); /* acquire: the object's contents */
    if (obj) {
        if (obj != (void *)LP_OBJ_FALLBACK && !copied(m, obj)) /* a copy's object is its original's */
            lp_slab_put(obj, retire_object);
        ll_store_relaxed(&m->lock.obj, NULL); /* relaxed: no one may use a mutex being destroyed */
    }
    m->kind = -1; /* as glibc: a later use gets EINVAL (passthrough to glibc) */
    return 0;
}

/* The historic aliases glibc still exports (GLIBC_2.2.5); old binaries may call them. */
int __pthread_mutex_init(pthread_mutex_t *, const pthread_mutexattr_t *)
    __attribute__((alias("pthread_mutex_init"), copy(pthread_mutex_init)));
int __pthread_mutex_destroy(pthread_mutex_t *) __attribute__((alias("pthread_mutex_destroy"), copy(pthread_mutex_destroy)));
int __pthread_mutex_lock(pthread_mutex_t *) __attribute__((alias("pthread_mutex_lock"), copy(pthread_mutex_lock)));
int __pthread_mutex_trylock(pthread_mutex_t *) __attribute__((alias("pthread_mutex_trylock"), copy(pthread_mutex_trylock)));
int __pthread_mutex_unlock(pthread_mutex_t *) __attribute__((alias("pthread_mutex_unlock"), copy(pthread_mutex_unlock)));
