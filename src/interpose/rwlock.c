/*
 * pthread_rwlock_{init,destroy,rdlock,tryrdlock,timedrdlock,clockrdlock,wrlock,
 * trywrlock,timedwrlock,clockwrlock,unlock} over the rwlock chosen by
 * LOCKLAB_RWLOCK (any spec of include/locklab/rwlock.h; default LP_DEFAULT_RWLOCK).
 *
 * Layout over glibc's pthread_rwlock_t (56 bytes on x86_64):
 *
 *   offset  glibc field                    locklab use
 *   ------  -----------------------------  ---------------------------------------------
 *    0      __readers, __writers           obj: the out-of-line lock object, NULL until
 *                                          the first use (installed once, lazily), or
 *                                          RW_OBJ_FALLBACK (out of memory, below)
 *    8      __wrphase_futex, __writers_f.  writer: the write holder's owner tag (mutex.h:
 *                                          thread id and fork generation), 0 if none
 *   16      __pad3                         fb_gen: the fallback's fork generation
 *   28      __shared                       glibc's: nonzero = process-shared (pass-through)
 *   32      __rwelision .. __pad2          fb_state: the fallback lock (16 bytes)
 *   48      __flags                        glibc's: the kind (PREFER_READER_NP 0,
 *                                          PREFER_WRITER_NP 1, PREFER_WRITER_NONRECURSIVE_NP 2)
 *
 * PTHREAD_RWLOCK_INITIALIZER (and the _NP writer-nonrecursive one) are zeros but
 * __flags: valid unlocked rwlocks without an init call.  A process-shared rwlock is
 * initialised by glibc's own pthread_rwlock_init (which sets __shared), and every
 * later call on it goes to glibc untouched, as process-shared mutexes do.
 *
 * Semantics, every kind (the kinds differ only in glibc's preference, which the
 * configured algorithm replaces; the interposer's own guarantees hold for all):
 *   - a thread may re-take a read lock it holds, also while a writer waits (the
 *     calling thread's read-held set, rwlock.h: a re-entry never reaches the lock);
 *     any number of distinct read locks held at once; EAGAIN (POSIX's "maximum number
 *     of read locks exceeded") only when the set, past its LL_RW_HELD_INLINE inline
 *     entries, cannot map a page for more (out of memory: nothing is held then);
 *   - rdlock or wrlock by the write holder, and wrlock by a read holder: EDEADLK
 *     (glibc: EDEADLK for the first, a hang for the other two); try variants: EBUSY;
 *   - unlock by a thread that holds nothing: EPERM;
 *   - destroy of a write-held rwlock: EBUSY.
 * Timed: EINVAL for a bad clock or tv_nsec first (as glibc, even if it would not
 * block), then one try, then the algorithm's own timed acquire to the deadline
 * converted once to the monotonic clock (a CLOCK_REALTIME set meanwhile does not
 * move it).
 *
 * fork: each object remembers the fork generation it was placed in.  In a child, the
 * first operation on an rwlock from before the fork places its lock anew (its state
 * may count parent threads that the child does not have: a ticket, readers in) -
 * unless a parent thread other than the forking one held it for writing: then it
 * stays held, as glibc's does.  The forking thread's own holds carry over: its write
 * hold is taken again on the new state (by whichever child thread places the lock
 * anew); its read holds, which only its own read-held set knows, are taken again, as
 * many as it had (re-entries too), in the child's fork handler, which places every lock
 * of that set anew while the forking thread is the child's only thread (or earlier, by
 * the forking thread itself: a child handler of another library, registered before ours,
 * that uses the lock).  The forking thread is known from our prepare handler (which runs
 * in it whatever the order of registration), not from our child handler, which may run
 * after another's.
 *
 * Profiling: two records per rwlock, "rwlock-write" (waits and holds of writers,
 * counted by the holder as a mutex's) and "rwlock-read" (every read acquisition,
 * re-entries included, and the waits of those that did not get in at once; atomic
 * counts: readers hold together).
 *
 * Objects: from the core's arena (one pool, stride = the algorithm's state and a
 * header); a destroyed rwlock gives its object back.  An rwlock dropped without
 * destroy (freed memory) keeps its object (std::shared_mutex destroys its rwlock).
 *
 * Out of memory: pthread_rwlock_init answers ENOMEM when no lock object can be had (it
 * binds none: it leaves a spare on the pool for the first use, as mutex_object.c does and for
 * the same reason: an rwlock initialised in a temporary and copied into place must be
 * an rwlock of its own).  A first use that cannot have one (a static initialiser, an
 * ENOMEM ignored) runs that rwlock, until its destroy or re-initialisation, on an
 * inline fallback: readpref-stp (src/locks/rw_readpref.c: one 32-bit word and its
 * patience, 16 bytes, no allocation, waits on its own word) placed in fb_state under
 * the arena's lock, published by RW_OBJ_FALLBACK in obj (release), so that every first
 * user agrees on it.  It is not the configured rwlock, so it is said once on stderr
 * (unless LOCKLAB_QUIET) and counted in LOCKLAB_VERBOSE's exit line; the profiler does
 * not see such an rwlock (its records hang off the object).  The fork repair below
 * applies to it as to an object (fb_gen is its generation).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../api/rw_held.h"
#include "config.h"
#include "env.h"
#include "locklab/rwlock.h"
#include "mutex.h"
#include "profile.h"
#include "real.h"
#include "rwlock.h"

typedef struct lp_rwlock {
    ll_atomic_ptr obj;
    ll_atomic_u64 writer;
    ll_atomic_u32 fb_gen;
    unsigned char pad20[8];
    int32_t shared;
    uint64_t fb_state[2];
    uint32_t flags;
    uint32_t pad52;
} lp_rwlock;
#define RW_OBJ_FALLBACK ((uintptr_t)1)
/* The out-of-memory fallback (header): a readpref spec (place_fallback places readpref's
 * used bytes, LL_RW_READPREF_USED_BYTES, and nothing else). */
#define RW_FALLBACK_SPEC "readpref-stp"

#if defined(__x86_64__)
LP_OVERLAYS(lp_rwlock, pthread_rwlock_t);
LP_AT_GLIBC_FIELD(lp_rwlock, shared, pthread_rwlock_t, __shared);
LP_AT_GLIBC_FIELD(lp_rwlock, flags, pthread_rwlock_t, __flags);
#endif

/* The object's header, after the algorithm's state. */
typedef struct rw_hdr {
    ll_wait_policy wp;
    lp_profile *prof_read, *prof_write; /* NULL unless profiling */
    ll_atomic_u32 gen;                  /* the fork generation the lock was placed in */
    void *link;                         /* the pool's free list */
} rw_hdr;

static struct {
    const ll_rwlock_ops *ops;
    ll_spec spec;
    size_t hdr_offset;
    ll_arena_pool pool;
    bool never_parks;
    const ll_rwlock_ops *fb_ops; /* the out-of-memory fallback (header) */
    ll_spec fb_spec;
    ll_wait_policy fb_wp; /* shared by every fallback lock, as mutex_object.c's fallback shares lp_cfg.wp */
} rw_cfg;
ll_atomic_u64 lp_passthrough_rwlocks;
static ll_atomic_u64 rw_fallbacks; /* rwlocks that run on the fallback */
/* fork (header): the forking thread's lp_self_id, stored by our prepare handler; and the
 * survivor of the fork this process was born of (0: none) with that fork's generation, set by
 * our child handler (in the child's only thread). */
static ll_atomic_u64 forker;
static uint64_t fork_survivor;
static ll_atomic_u32 survivor_gen;

LL_INLINE rw_hdr *hdr_of(void *obj) { return (rw_hdr *)(void *)((char *)obj + rw_cfg.hdr_offset); }
/* The fork generation rw's lock was placed in: its object's, or the fallback's (obj is rw->obj). */
LL_INLINE ll_atomic_u32 *gen_of(lp_rwlock *rw, void *obj)
{
    return obj == (void *)RW_OBJ_FALLBACK ? &rw->fb_gen : &hdr_of(obj)->gen;
}

static const char *kind_name(const lp_rwlock *rw)
{
    return rw->flags == PTHREAD_RWLOCK_PREFER_WRITER_NP                ? "prefer-writer"
           : rw->flags == PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP ? "prefer-writer-nonrecursive"
                                                                       : "prefer-reader";
}

static void fork_repair(lp_rwlock *rw, void *obj);

/* The forking thread of the fork this process was born of (0: none).  Before our child handler
 * has run in a child (another library's child handler, registered before ours, runs first and
 * may use an rwlock), the one our prepare handler stored. */
static uint64_t survivor(void)
{
    /* relaxed: both change only in a prepare handler or in a child's only thread */
    return ll_load_relaxed(&survivor_gen) == lp_fork_gen_now() ? fork_survivor : ll_load_relaxed(&forker);
}

/* lp_self_id, not lp_self_tid: a thread whose only calls were the fast path's read locks has
 * no id yet, and it must still be known in the child. */
static void prepare_fork(void) { ll_store_relaxed(&forker, lp_self_id()); /* relaxed: read in this thread's child */ }

/* Was the lock of this read-held set entry placed before the fork (not yet repaired)?  Not one
 * without an object: the thread's hold was of an rwlock since destroyed or initialised again
 * (misuse), and there is nothing to carry over. */
static bool placed_before_fork(const void *lock, void *arg)
{
    (void)arg;
    lp_rwlock *rw = (lp_rwlock *)lock;
    void *obj = ll_load_relaxed(&rw->obj); /* relaxed: the child's only thread */
    if (obj == NULL)
        return false;
    return ll_load_relaxed(gen_of(rw, obj)) != lp_fork_gen_now(); /* relaxed: as above */
}

/* The child of a fork, in the forking thread, its only thread yet: it is the survivor from
 * now on.  Then its read holds carry over: each lock of its read-held set placed anew, with
 * the holds taken again (fork_repair), before another child thread can place one without
 * them. */
static void child_after_fork(void)
{
    fork_survivor = ll_load_relaxed(&forker); /* relaxed: stored by this thread (prepare_fork) */
    ll_store_relaxed(&survivor_gen, lp_fork_gen_now()); /* relaxed: the child's only thread */
    const void *lock;
    while ((lock = ll_rw_held_find(placed_before_fork, NULL)) != NULL) { /* a repaired lock no longer matches */
        lp_rwlock *rw = (lp_rwlock *)lock;
        fork_repair(rw, ll_load_relaxed(&rw->obj)); /* relaxed: as placed_before_fork */
    }
}

static void report_at_exit(void)
{
    fprintf(stderr, "liblocklab-preload: exit: passed through to glibc: %llu rwlocks (process-shared)\n",
            (unsigned long long)ll_load_relaxed(&lp_passthrough_rwlocks)); /* relaxed: a statistic */
    if (ll_load_relaxed(&rw_fallbacks)) /* relaxed: a statistic */
        fprintf(stderr, "liblocklab-preload: exit: out of memory: %llu rwlocks ran on an inline %s lock instead of %s\n",
                (unsigned long long)ll_load_relaxed(&rw_fallbacks), rw_cfg.fb_spec.name, rw_cfg.spec.name);
}

/* The fallback's spec settled (its keys' defaults) and its shared waiting policy. */
static void configure_fallback(void)
{
    char err[256];
    ll_placement pl;
    ll_rwlock_spec_parse(RW_FALLBACK_SPEC, &rw_cfg.fb_spec, err, sizeof err); /* a constant valid spec */
    ll_lock_place(&rw_cfg.fb_spec, LL_DEFAULTS_FIXED, NULL, NULL, &pl, err, sizeof err); /* sizes only: cannot fail */
    rw_cfg.fb_spec = pl.spec;
    rw_cfg.fb_ops = ll_rwlock_of(pl.spec.ops);
    ll_wait_policy_init(&rw_cfg.fb_wp, pl.spec.policy, pl.spec.spin_ns);
}

void lp_rwlock_configure(void)
{
    char err[512], line[800], echo[65];
    const char *value = lp_env("LOCKLAB_RWLOCK");
    const char *spec = value ? value : LP_DEFAULT_RWLOCK;
    if (ll_rwlock_spec_parse(spec, &rw_cfg.spec, err, sizeof err) != 0) {
        snprintf(line, sizeof line, "liblocklab-preload: LOCKLAB_RWLOCK='%s': %s\n", ll_elide(spec, 64, echo, sizeof echo),
                 err);
        fputs(line, stderr);
        _exit(2);
    }
    ll_placement pl;
    ll_lock_place(&rw_cfg.spec, LL_DEFAULTS_FIXED, NULL, NULL, &pl, err, sizeof err); /* settles the defaults */
    rw_cfg.spec = pl.spec;
    rw_cfg.ops = ll_rwlock_of(pl.spec.ops);
    rw_cfg.hdr_offset = (pl.state_bytes + 15) / 16 * 16;
    size_t stride = (rw_cfg.hdr_offset + sizeof(rw_hdr) + LL_SECTOR - 1) / LL_SECTOR * LL_SECTOR;
    ll_arena_pool pool = LL_ARENA_POOL(stride, LL_SECTOR, rw_cfg.hdr_offset + offsetof(rw_hdr, link));
    rw_cfg.pool = pool;
    /* the locks that wait in glibc's futexes park themselves (LL_CAP_PARKS_ITSELF); the others as their policy says */
    rw_cfg.never_parks = ll_spec_never_parks(pl.spec.ops, pl.spec.policy);
    configure_fallback();
    pthread_atfork(prepare_fork, NULL, child_after_fork);
    if (lp_cfg.verbose)
        fprintf(stderr, "liblocklab-preload: rwlock=%s (%s%s) (%zu bytes per rwlock beyond the pthread_rwlock_t)\n",
                pl.spec.name, value ? "LOCKLAB_RWLOCK" : "default",
                rw_cfg.never_parks ? "; never parks: slow with more threads than CPUs" : "", stride);
    if (lp_cfg.verbose)
        atexit(report_at_exit);
}

const char *lp_rwlock_spec(void) { return rw_cfg.spec.name; }

/* ---- the object ------------------------------------------------------------------------ */
typedef struct install_ctx {
    lp_rwlock *rw;
    void *pc;
} install_ctx;

static void place(void *obj)
{
    char err[256];
    rw_hdr *h = hdr_of(obj);
    /* cannot fail: the settled spec was placed at configuration (sizes) and its init cannot fail */
    ll_lock_place(&rw_cfg.spec, LL_DEFAULTS_FIXED, obj, &h->wp, NULL, err, sizeof err);
}

static bool init_object(void *obj, void *arg)
{
    install_ctx *c = (install_ctx *)arg;
    rw_hdr *h = hdr_of(obj);
    place(obj);
    ll_store_relaxed(&h->gen, lp_fork_gen_now()); /* relaxed: published by the object's install (release) */
    if (lp_profiling) {
        h->prof_read = lp_profile_new(c->rw, "rwlock-read", kind_name(c->rw), false, c->pc);
        h->prof_write = lp_profile_new(c->rw, "rwlock-write", kind_name(c->rw), false, c->pc);
    }
    return true;
}

/* The lock an operation runs on: the object's, or the fallback's. */
typedef struct rw_ref {
    void *state;
    ll_wait_policy *wp;
    const ll_rwlock_ops *ops;
    lp_profile *prof_read, *prof_write; /* NULL unless profiling (and for the fallback) */
} rw_ref;

LL_INLINE rw_ref object_ref(void *obj)
{
    rw_hdr *h = hdr_of(obj);
    rw_ref r = {obj, &h->wp, rw_cfg.ops, h->prof_read, h->prof_write};
    return r;
}

static LL_COLD rw_ref fallback_ref(lp_rwlock *rw)
{
    rw_ref r = {rw->fb_state, &rw_cfg.fb_wp, rw_cfg.fb_ops, NULL, NULL};
    return r;
}

/* Under the arena's lock: the fallback lock free in fb_state (zeros, then its init with the
 * settled keys).  Not ll_lock_place: readpref's state_bytes reserve a whole line against
 * false sharing, of which its verbs use LL_RW_READPREF_USED_BYTES. */
LL_STATIC_ASSERT(LL_RW_READPREF_USED_BYTES <= sizeof(((lp_rwlock *)0)->fb_state), "readpref fits in fb_state");
static void place_fallback(lp_rwlock *rw)
{
    char err[256];
    memset(rw->fb_state, 0, sizeof rw->fb_state);
    rw_cfg.fb_ops->desc->init(rw->fb_state, rw_cfg.fb_spec.params, err, sizeof err); /* stores its patience: cannot fail */
}

/* One line, once per process (unless LOCKLAB_QUIET): an rwlock runs on the fallback. */
static LL_COLD void say_fallback(void)
{
    static ll_atomic_u32 said;
    if (lp_cfg.quiet || ll_xchg(&said, 1, LL_RELAXED) != 0) /* relaxed: only one thread may print */
        return;
    lp_say("liblocklab-preload: out of memory for an rwlock object: such rwlocks run on an inline %s lock "
           "instead of %s (count: LOCKLAB_VERBOSE=1)\n",
           rw_cfg.fb_spec.name, rw_cfg.spec.name); /* no stdio buffer: memory is what just ran out */
}

/* The first use: the object, installed once; or, when none can be had, the fallback
 * marker, stored under the arena's lock (held across the install: it is recursive) so that
 * every first user agrees on one or the other. */
static LL_COLD void *install(lp_rwlock *rw, void *pc)
{
    lp_mark_seen(LP_SEEN_RWLOCK); /* LOCKLAB_VERBOSE's census: its first use installs the object */
    ll_self(); /* this thread's context first, outside the arena's lock (slab.c says why) */
    install_ctx c = {rw, pc};
    bool fell_back = false;
    ll_arena_lock();
    void *obj = ll_arena_install(&rw_cfg.pool, &rw->obj, init_object, &c);
    if (obj == NULL && (obj = ll_load_relaxed(&rw->obj)) == NULL) { /* relaxed: under the arena's lock */
        place_fallback(rw);
        ll_store_relaxed(&rw->fb_gen, lp_fork_gen_now()); /* relaxed: published by the marker's release store */
        obj = (void *)RW_OBJ_FALLBACK;
        ll_store_release(&rw->obj, obj); /* release: the placed fallback before the marker; pairs with ref_of's acquire */
        ll_faa(&rw_fallbacks, 1, LL_RELAXED); /* relaxed: a statistic */
        fell_back = true;
    }
    ll_arena_unlock();
    if (fell_back)
        say_fallback();
    return obj;
}

/* pthread_rwlock_init's question: is there an object for the next install?  A free one, or
 * a fresh one put on the free list (bound to nothing; another first user may take it first,
 * and that install falls back then). */
static bool spare_object(void)
{
    void *obj = ll_arena_get(&rw_cfg.pool);
    if (obj == NULL)
        return false;
    ll_arena_put(&rw_cfg.pool, obj);
    return true;
}

/* rw's object if it has one placed in this fork generation (the common case); else NULL. */
LL_INLINE void *placed_obj(lp_rwlock *rw)
{
    /* acquire: pairs with ll_arena_install's release (the initialised object) */
    void *obj = ll_load_acquire(&rw->obj);
    if (LL_UNLIKELY((uintptr_t)obj <= RW_OBJ_FALLBACK))
        return NULL;
    if (LL_UNLIKELY(ll_load_acquire(&hdr_of(obj)->gen) != lp_fork_gen_now())) /* acquire: fork_repair's release */
        return NULL;
    return obj;
}

/* No object yet, the fallback, or a lock placed before a fork. */
static LL_COLD rw_ref unusual_ref(lp_rwlock *rw, void *pc)
{
    /* acquire: pairs with ll_arena_install's release (the initialised object) or install's
     * (the placed fallback) */
    void *obj = ll_load_acquire(&rw->obj);
    if (obj == NULL)
        obj = install(rw, pc);
    if (LL_UNLIKELY(ll_load_acquire(gen_of(rw, obj)) != lp_fork_gen_now())) /* acquire: fork_repair's release */
        fork_repair(rw, obj);
    return obj == (void *)RW_OBJ_FALLBACK ? fallback_ref(rw) : object_ref(obj);
}

LL_INLINE rw_ref ref_of(lp_rwlock *rw, void *pc)
{
    void *obj = placed_obj(rw);
    return LL_LIKELY(obj != NULL) ? object_ref(obj) : unusual_ref(rw, pc);
}

/* In a fork child: place the lock (the object's, or the fallback) anew once, under the
 * arena's lock. */
static LL_COLD void fork_repair(lp_rwlock *rw, void *obj)
{
    ll_arena_lock();
    bool fallback = obj == (void *)RW_OBJ_FALLBACK;
    ll_atomic_u32 *gen = gen_of(rw, obj);
    uint32_t now = lp_fork_gen_now();
    if (ll_load_relaxed(gen) != now) { /* relaxed: under the arena's lock, which every repair takes */
        uint64_t w = ll_load_relaxed(&rw->writer); /* relaxed: under the arena's lock; the child's first look */
        uint64_t forked = survivor();
        bool survivor_writes = w != 0 && (w & LP_OWNER_ID_MASK) == forked;
        if (w != 0 && !survivor_writes) {
            ll_store_release(gen, now); /* a parent thread's write hold: held for ever, as glibc's */
        } else {
            rw_ref r = fallback ? fallback_ref(rw) : object_ref(obj);
            if (fallback) {
                place_fallback(rw);
            } else {
                if (rw_cfg.ops->desc->destroy)
                    rw_cfg.ops->desc->destroy(obj);
                place(obj);
            }
            if (survivor_writes) { /* the survivor's write hold, taken again for it (we may be another thread) */
                r.ops->write_acquire(r.state, r.wp);
                ll_store_relaxed(&rw->writer, lp_owner_tag_of(forked)); /* relaxed: compared with readers' own ids */
            }
            if (lp_self_tid == forked && ll_rw_held_by_me(rw)) /* our pre-fork read holds: taken again, as many */
                ll_rw_held_retoken(rw, r.ops->read_acquire(r.state, r.wp));
            /* release, last: the holds above are taken again before another thread of the child,
             * reading gen (acquire, ref_of), uses the lock without waiting for this repair */
            ll_store_release(gen, now);
        }
    }
    ll_arena_unlock();
}

/* ---- time ------------------------------------------------------------------------------ */
/* abstime on clock as an ll_now_ns deadline; false for a clock or tv_nsec glibc rejects. */
static bool deadline_of(clockid_t clock, const struct timespec *abstime, uint64_t *out)
{
    if ((clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC) || abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000)
        return false;
    struct timespec now;
    clock_gettime(clock, &now);
    int64_t left = (int64_t)(abstime->tv_sec - now.tv_sec) * 1000000000 + (abstime->tv_nsec - now.tv_nsec);
    *out = ll_now_ns() + (left > 0 ? (uint64_t)left : 0);
    return true;
}

/* ---- the entry points ------------------------------------------------------------------ */
enum how { BLOCK, TRY, TIMED };

LL_INLINE bool passthrough(const lp_rwlock *rw) { return rw->shared != 0; }
LL_INLINE bool write_held_by_me(lp_rwlock *rw)
{
    /* relaxed: only this thread stores its own id */
    return (ll_load_relaxed(&rw->writer) & LP_OWNER_ID_MASK) == lp_self_id();
}

/* A lock the caller did not get (a failed try, a timeout): err, counted in the profile as a
 * failed trylock. */
static int not_taken(lp_profile *prof, int err)
{
    if (prof)
        lp_profile_trylock_failed(prof);
    return err;
}

/* After a failed try, for a reader or a writer (write): a try's EBUSY; else the wait that how
 * says (BLOCK: until held; TIMED: until deadline, else ETIMEDOUT), its start in *t0 when the
 * lock is profiled, and 0 once held (a reader's token in *token).  EBUSY and ETIMEDOUT are
 * counted in the profile (not_taken). */
static int wait_contended(const rw_ref *r, bool write, enum how how, uint64_t deadline, uintptr_t *token, uint64_t *t0)
{
    lp_profile *prof = write ? r->prof_write : r->prof_read;
    if (how == TRY)
        return not_taken(prof, EBUSY);
    *t0 = prof ? ll_now_ns() : 0;
    bool held = true;
    if (how == BLOCK && write)
        r->ops->write_acquire(r->state, r->wp);
    else if (how == BLOCK)
        *token = r->ops->read_acquire(r->state, r->wp);
    else
        held = write ? r->ops->write_acquire_until(r->state, r->wp, deadline)
                     : r->ops->read_acquire_until(r->state, r->wp, deadline, token);
    return held ? 0 : not_taken(prof, ETIMEDOUT);
}

/* The general path of the read locks (the common case: the fast path, below). */
static __attribute__((noinline)) int rdlock(lp_rwlock *rw, enum how how, clockid_t clock, const struct timespec *abstime, void *pc)
{
    uint64_t deadline = 0;
    if (how == TIMED && !deadline_of(clock, abstime, &deadline))
        return EINVAL;
    if (write_held_by_me(rw))
        return how == TRY ? EBUSY : EDEADLK;
    rw_ref r = ref_of(rw, pc);
    if (ll_rw_held_reenter_inline(rw)) {
        if (LL_UNLIKELY(r.prof_read != NULL))
            lp_profile_waited(r.prof_read, false, 0);
        return 0;
    }
    uintptr_t token = 0;
    bool contended = !r.ops->read_try(r.state, r.wp, &token);
    uint64_t t0 = 0;
    int err = contended ? wait_contended(&r, false, how, deadline, &token, &t0) : 0;
    if (err != 0)
        return err;
    if (LL_UNLIKELY(!ll_rw_held_add_inline(rw, token))) {
        r.ops->read_release(r.state, r.wp, token);
        return EAGAIN;
    }
    if (LL_UNLIKELY(r.prof_read != NULL))
        lp_profile_waited(r.prof_read, contended, contended ? ll_now_ns() - t0 : 0);
    return 0;
}

static __attribute__((noinline)) int wrlock(lp_rwlock *rw, enum how how, clockid_t clock, const struct timespec *abstime, void *pc)
{
    uint64_t deadline = 0;
    if (how == TIMED && !deadline_of(clock, abstime, &deadline))
        return EINVAL;
    if (write_held_by_me(rw) || ll_rw_held_by_me_inline(rw))
        return how == TRY ? EBUSY : EDEADLK;
    rw_ref r = ref_of(rw, pc);
    bool contended = !r.ops->write_try(r.state, r.wp);
    uint64_t t0 = 0;
    int err = contended ? wait_contended(&r, true, how, deadline, NULL, &t0) : 0;
    if (err != 0)
        return err;
    ll_store_relaxed(&rw->writer, lp_owner_tag()); /* relaxed: compared only with the reader's own id */
    if (LL_UNLIKELY(r.prof_write != NULL))
        lp_profile_acquired(r.prof_write, contended, contended ? ll_now_ns() - t0 : 0);
    return 0;
}

static __attribute__((noinline)) int unlock(lp_rwlock *rw)
{
    rw_ref r = ref_of(rw, NULL);
    if (write_held_by_me(rw)) {
        if (LL_UNLIKELY(r.prof_write != NULL))
            lp_profile_releasing(r.prof_write);
        ll_store_relaxed(&rw->writer, 0); /* relaxed: the lock's release orders it before the next writer's store */
        r.ops->write_release(r.state, r.wp);
        return 0;
    }
    uintptr_t token;
    int last = ll_rw_held_drop_inline(rw, &token);
    if (last < 0)
        return EPERM;
    if (last == 1)
        r.ops->read_release(r.state, r.wp, token);
    return 0;
}

/* ---- the fast path ---------------------------------------------------------------------
 * The common case of rdlock, tryrdlock, wrlock, trywrlock and unlock, written into their
 * entry points: an rwlock with its object (not the fallback) placed in this fork generation,
 * not profiled, whose writer word is 0 (for a lock: so not write-held by the caller), taken
 * by a thread that holds no read lock (so this is no re-entry, and a wrlock no EDEADLK);
 * released by the holder of its write lock, or of one read hold recorded last in the
 * read-held set's inline array.  Then the algorithm's own try or release, and the set's
 * inline cases (rw_held.h).  Anything else goes to the general functions above, which decide
 * as before: a failed try (contention) too, which tries once more before it waits. */

LL_INLINE int rdlock_fast(lp_rwlock *rw, enum how how, void *pc)
{
    void *obj = placed_obj(rw);
    /* relaxed: this thread's own write hold would be its own store; any other is the try's business */
    if (LL_LIKELY(obj != NULL) && ll_rw_held_tls.n == 0 && ll_load_relaxed(&rw->writer) == 0) {
        rw_hdr *h = hdr_of(obj);
        uintptr_t token = 0;
        if (LL_LIKELY(h->prof_read == NULL) && rw_cfg.ops->read_try(obj, &h->wp, &token)) {
            ll_rw_held_add_inline(rw, token); /* the set was empty: its first inline slot */
            return 0;
        }
    }
    return rdlock(rw, how, CLOCK_REALTIME, NULL, pc);
}

LL_INLINE int wrlock_fast(lp_rwlock *rw, enum how how, void *pc)
{
    void *obj = placed_obj(rw);
    uint64_t id = lp_self_tid;
    /* relaxed: as rdlock_fast's */
    if (LL_LIKELY(obj != NULL) && id != 0 && ll_rw_held_tls.n == 0 && ll_load_relaxed(&rw->writer) == 0) {
        rw_hdr *h = hdr_of(obj);
        if (LL_LIKELY(h->prof_write == NULL) && rw_cfg.ops->write_try(obj, &h->wp)) {
            ll_store_relaxed(&rw->writer, lp_owner_tag_of(id)); /* relaxed: compared only with the reader's own id */
            return 0;
        }
    }
    return wrlock(rw, how, CLOCK_REALTIME, NULL, pc);
}

LL_INLINE int unlock_fast(lp_rwlock *rw)
{
    void *obj = placed_obj(rw);
    if (LL_LIKELY(obj != NULL)) {
        rw_hdr *h = hdr_of(obj);
        uint64_t w = ll_load_relaxed(&rw->writer); /* relaxed: only this thread stores its own id */
        uintptr_t token;
        if (w == 0 && ll_rw_held_pop_newest(rw, &token)) {
            rw_cfg.ops->read_release(obj, &h->wp, token);
            return 0;
        }
        if (w != 0 && (w & LP_OWNER_ID_MASK) == lp_self_tid && h->prof_write == NULL) {
            ll_store_relaxed(&rw->writer, 0); /* relaxed: the lock's release orders it before the next writer's store */
            rw_cfg.ops->write_release(obj, &h->wp);
            return 0;
        }
    }
    return unlock(rw);
}

/* The configuring thread's own calls (config.h, lp_ensure_init): exclusive without the lock. */
#define ENTER(rw, passthrough_call)                                                      \
    do {                                                                                 \
        if (LL_UNLIKELY(passthrough(rw))) {                                              \
            lp_real_resolve();                                                           \
            return passthrough_call;                                                     \
        }                                                                                \
        if (LL_UNLIKELY(!lp_ensure_init()))                                              \
            return 0;                                                                    \
    } while (0)

/* The entry points: pthread_rwlock_VERB with the parameters PARAMS (p, the rwlock, first);
 * glibc's own for a process-shared rwlock and the configuring thread (ENTER, with ARGS), else
 * CALL over rw (the fast path's for the untimed verbs, the general functions' for the timed;
 * __builtin_return_address(0) is the caller of the entry point). */
#define ENTRY_POINT(verb, params, args, call)                                            \
    int pthread_rwlock_##verb params                                                     \
    {                                                                                    \
        lp_rwlock *rw = (lp_rwlock *)p;                                                  \
        ENTER(rw, lp_real.rwlock_##verb args);                                           \
        return call;                                                                     \
    }
#define TIMED_PARAMS (pthread_rwlock_t *p, const struct timespec *abstime)
#define CLOCK_PARAMS (pthread_rwlock_t *p, clockid_t clock, const struct timespec *abstime)
ENTRY_POINT(rdlock, (pthread_rwlock_t *p), (p), rdlock_fast(rw, BLOCK, __builtin_return_address(0)))
ENTRY_POINT(tryrdlock, (pthread_rwlock_t *p), (p), rdlock_fast(rw, TRY, __builtin_return_address(0)))
ENTRY_POINT(clockrdlock, CLOCK_PARAMS, (p, clock, abstime), rdlock(rw, TIMED, clock, abstime, __builtin_return_address(0)))
ENTRY_POINT(timedrdlock, TIMED_PARAMS, (p, abstime), rdlock(rw, TIMED, CLOCK_REALTIME, abstime, __builtin_return_address(0)))
ENTRY_POINT(wrlock, (pthread_rwlock_t *p), (p), wrlock_fast(rw, BLOCK, __builtin_return_address(0)))
ENTRY_POINT(trywrlock, (pthread_rwlock_t *p), (p), wrlock_fast(rw, TRY, __builtin_return_address(0)))
ENTRY_POINT(clockwrlock, CLOCK_PARAMS, (p, clock, abstime), wrlock(rw, TIMED, clock, abstime, __builtin_return_address(0)))
ENTRY_POINT(timedwrlock, TIMED_PARAMS, (p, abstime), wrlock(rw, TIMED, CLOCK_REALTIME, abstime, __builtin_return_address(0)))
ENTRY_POINT(unlock, (pthread_rwlock_t *p), (p), unlock_fast(rw))

int pthread_rwlock_init(pthread_rwlock_t *p, const pthread_rwlockattr_t *attr)
{
    int pshared = PTHREAD_PROCESS_PRIVATE, kind = PTHREAD_RWLOCK_DEFAULT_NP;
    if (attr) {
        pthread_rwlockattr_getpshared(attr, &pshared);
        pthread_rwlockattr_getkind_np(attr, &kind);
    }
    if (pshared != PTHREAD_PROCESS_PRIVATE) {
        lp_real_resolve();
        ll_faa(&lp_passthrough_rwlocks, 1, LL_RELAXED); /* relaxed: a statistic */
        return lp_real.rwlock_init(p, attr); /* glibc sets __shared: later calls pass through */
    }
    lp_rwlock *rw = (lp_rwlock *)p;
    memset(p, 0, sizeof *p);
    rw->flags = (uint32_t)kind;
    /* No object to be had: ENOMEM here (POSIX) rather than the fallback at the first use;
     * none is bound here (header).  While configuring (the configuring thread's own call)
     * there is no pool to ask yet. */
    if (lp_ensure_init() && !spare_object())
        return ENOMEM; /* left a valid unlocked rwlock: a program that uses it anyway gets the fallback */
    return 0;
}

int pthread_rwlock_destroy(pthread_rwlock_t *p)
{
    lp_rwlock *rw = (lp_rwlock *)p;
    ENTER(rw, lp_real.rwlock_destroy(p));
    if (ll_load_relaxed(&rw->writer) != 0) /* relaxed: write-held; a stale view would mean destroy races a lock (misuse) */
        return EBUSY;
    void *obj = ll_load_acquire(&rw->obj); /* acquire: the object's contents */
    if (obj == (void *)RW_OBJ_FALLBACK) {
        ll_store_relaxed(&rw->obj, NULL); /* relaxed: as below; the fallback's state needs no destroy */
    } else if (obj) {
        rw_hdr *h = hdr_of(obj);
        if (rw_cfg.ops->desc->destroy)
            rw_cfg.ops->desc->destroy(obj);
        if (h->prof_read)
            lp_profile_retire(h->prof_read);
        if (h->prof_write)
            lp_profile_retire(h->prof_write);
        h->prof_read = h->prof_write = NULL;
        ll_store_relaxed(&rw->obj, NULL); /* relaxed: no one may use an rwlock being destroyed */
        ll_arena_lock();
        ll_arena_put(&rw_cfg.pool, obj);
        ll_arena_unlock();
    }
    ll_rw_held_forget(rw); /* a destroy by a reader (misuse): its holds die with the lock */
    return 0;
}
