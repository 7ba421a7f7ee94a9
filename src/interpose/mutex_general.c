/*
 * The pthread mutex's general path: what the fast paths of the entry points (mutex.c) leave
 * to it, with POSIX semantics per mutex type:
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
 * A destroyed mutex answers EINVAL (glibc's answer: mutex.h).  Robust, PI/PP and
 * process-shared mutexes go to glibc untouched (passthrough, mutex.h).
 *
 * Misuse glibc survives is survived (mutex_misuse.c; docs/interposer.md): an unlock of a
 * normal mutex that is not locked is ignored, one by a thread that does not hold it releases
 * it for its holder (ignored where the release needs the holder's thread), one line each; a
 * relocking holder waits outside the lock.  The inline fast paths are as glibc already
 * (their unlock stores 0).
 *
 * Profiling (LOCKLAB_PROFILE, profile.h): the lock object of a mutex carries its record
 * (created with the object, so always out-of-line mode); the paths here test only
 * `prof != NULL`.  Glibc's (passthrough) mutexes are counted per call through proftable.h.
 *
 * Also the condition variables' relock and unlock of a mutex (lp_mutex_iface, cond.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>

#include "mutex_internal.h"
#include "real.h"

const char *lp_mutex_type_name(int32_t kind)
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

/* ---- acquire and release, as every path past the fast paths does them -------------- */

/* Does the lock's release need the holder's own thread (LL_CAP_HOLDER_RELEASES: a
 * per-thread wait element that its successor watches)? */
static bool release_needs_holder(void) { return ll_lock_holder_releases(lp_cfg.ops); }

static LL_COLD void acquire_profiled(lock_ref r)
{
    bool contended = !ops_try_acquire(r);
    uint64_t t0 = contended ? ll_now_ns() : 0, wait_ns = 0;
    if (contended) {
        ops_acquire(r);
    } else if (r.ops == &ll_lock_standby && ll_standby_turn_ends((ll_standby_lock *)r.state)) {
        /* the try took standby by its CAS: the turn it ends goes back to the queue (or competes
         * again: ll_standby_requeue), as on the fast path (mutex.c, lock_inline_parked), and its
         * wait counts as contended */
        contended = true, t0 = ll_now_ns();
        ll_standby_requeue((ll_standby_lock *)r.state);
    }
    if (contended)
        wait_ns = ll_now_ns() - t0;
    lp_profile_acquired(r.prof, contended, wait_ns);
}

LL_INLINE void lock_acquire(lp_mutex *m, void *pc)
{
    lp_note_spinning_thread();
    if (LL_UNLIKELY(lp_direct_tid == 0))
        lp_direct_tid = lp_self_id(); /* counted (above): the direct path may lock for this thread */
    if (LL_UNLIKELY(held_across_fork(m)))
        lp_await_fork_holder(&m->owner, &lp_cfg.fork_repair, CLOCK_MONOTONIC, NULL);
    if (LL_UNLIKELY(lp_mutex_held_by_me_quick(m))) /* a relock: mutex_misuse.c */
        lp_mutex_relock_wait(m, CLOCK_MONOTONIC, NULL);
    lock_ref r = lock_of(m, pc);
    if (LL_UNLIKELY(r.prof != NULL))
        acquire_profiled(r);
    else
        ops_acquire(r);
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
LL_COLD void lp_mutex_release_and_flush(lp_mutex *m)
{
    ll_wake_list deferred = m->deferred;
    m->deferred.head = NULL;
    lock_release(m);
    ll_wake_list_flush(&deferred);
}

LL_INLINE void release(lp_mutex *m)
{
    if (LL_UNLIKELY(held_across_fork(m))) {
        lp_mutex_release_across_fork(m);
        return;
    }
    ll_store_relaxed(&m->owner, 0); /* relaxed: the lock's release orders it before the next owner's store */
    if (LL_UNLIKELY(m->deferred.head != NULL)) /* holder-only field */
        lp_mutex_release_and_flush(m);
    else
        lock_release(m);
}

/* The holder's release on this path (an unlock, a condition wait's): claimed first
 * (lp_owner_claim_mine, mutex.h), so that it and an unlock by another thread never both
 * release, however long this thread took since its check of the owner word. */
LL_INLINE void holder_release(lp_mutex *m)
{
    if (lp_owner_claim_mine(&m->owner))
        release(m);
}

/* pthread_mutex_unlock of a normal or adaptive mutex (not the inline fast path) that the
 * caller does not hold: lp_unlock_not_owner decides (mutex.h). */
static LL_COLD int unlock_not_owner(lp_mutex *m, void *pc)
{
    if (lp_unlock_not_owner(&m->owner, release_needs_holder(), false, m, pc))
        release(m);
    return 0;
}

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

/* Every lock operation but the fast path of normal and adaptive mutexes. */
LL_COLD int lp_mutex_lock_slow(pthread_mutex_t *pm, void *pc, enum how how, clockid_t clock,
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
        rc = lp_mutex_lock_until(m, pc, clock, abstime);
    if (rc == 0) {
        ll_store_release(&m->owner, lp_owner_tag()); /* release: pairs with lp_owner_claim's acquire (mutex.h) */
        if (type == PTHREAD_MUTEX_RECURSIVE)
            m->depth = 0;
    }
    return rc;
}

/* ---- past the entry points' fast paths ------------------------------------------------ */

/* pthread_mutex_lock past the inline fast path.  Out of line, as every slow path of the entry
 * points: then the fast path needs no stack frame. */
LL_COLD int lp_mutex_lock_general(pthread_mutex_t *pm, void *pc, bool c11)
{
    lp_mutex *m = (lp_mutex *)pm;
    if (LL_UNLIKELY(!lp_ensure_init()))
        return 0; /* called while configuring: exclusive without the lock (config.h) */
    census(c11);
    if (LL_LIKELY(fast_kind(m))) {
        lock_acquire(m, pc);
        ll_store_release(&m->owner, lp_owner_tag()); /* release: pairs with lp_owner_claim's acquire (mutex.h) */
        return 0;
    }
    return lp_mutex_lock_slow(pm, pc, BLOCK, CLOCK_REALTIME, NULL);
}

/* pthread_mutex_unlock past the inline fast path: out of line, as lp_mutex_lock_general. */
LL_COLD int lp_mutex_unlock_general(pthread_mutex_t *pm, void *pc, bool c11)
{
    lp_mutex *m = (lp_mutex *)pm;
    if (LL_UNLIKELY(!lp_ensure_init()))
        return 0; /* called while configuring: its lock did not touch the mutex (config.h) */
    census(c11);
    if (LL_LIKELY(fast_kind(m))) {
        if (LL_UNLIKELY(!lp_mutex_held_by_me_quick(m)))
            return unlock_not_owner(m, pc);
        holder_release(m);
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
    holder_release(m);
    return 0;
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
    ll_store_release(&m->owner, lp_owner_tag()); /* release: pairs with lp_owner_claim's acquire (mutex.h) */
}
static void iface_unlock(void *mutex) { holder_release((lp_mutex *)mutex); }
const ll_mutex_iface lp_mutex_iface = {iface_lock, iface_unlock};

