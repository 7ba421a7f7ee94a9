/*
 * pthread_cond_{init,destroy,wait,timedwait,clockwait,signal,broadcast} over
 * locklab's condition variables (include/locklab/sync.h, src/sync/cond.c):
 * FIFO or mostly-LIFO ("lifo-cr", the Malthusian paper's CR condition
 * variable, §6.10) as LOCKLAB_COND says, with wait morphing (Appendix A,
 * footnote on the Solaris mutex): a signal or broadcast issued while the caller
 * holds the waiters' mutex moves the waiters onto that mutex's deferred wake
 * list, and the mutex's unlock wakes them after releasing, so a woken waiter
 * never finds the mutex still held by its signaller; which wake-ups are
 * deferred depends on the lock (LOCKLAB_COND_MORPH, config.h).
 *
 * Layout over pthread_cond_t (48 bytes, glibc x86_64):
 *   offset  content
 *    0      ll_cond (32 bytes): all zeros (PTHREAD_COND_INITIALIZER) is an
 *           empty condition variable with the process default discipline
 *   32      clock of pthread_cond_timedwait (pthread_condattr_setclock): 0 realtime, 1 monotonic
 *   36      glibc's __wrefs: always 0 in ours
 *   40      unused (0)
 *
 * Process-shared condition variables are glibc's: our pthread_cond_init hands
 * them to glibc, which sets bit 0 of __wrefs (its "process-shared" flag) at
 * offset 36; every later call sees that bit and passes the call to glibc
 * untouched.  Waiting on such a condition variable with a mutex that is not
 * glibc's (passthrough) returns EINVAL: glibc would unlock our mutex with its
 * own internal function.
 * A (private) condition variable used with a passthrough mutex (robust,
 * PI/PP) stays ours, and its waits release and re-take the mutex through
 * glibc's own functions, so the mutex keeps glibc's semantics (a robust
 * mutex's EOWNERDEAD is returned by the wait).
 *
 * Profiling (LOCKLAB_PROFILE): one record per condition variable
 * (proftable.h), with the waits and their durations; glibc's are counted per call.
 *
 * POSIX behaviour: the waits are cancellation points (a request pending at
 * entry acts there, with the mutex held; one made while blocked interrupts the
 * sleep, and the waiter leaves the wait list, passes on a signal it had
 * consumed and re-takes the mutex before the cleanup handlers run: sync.h,
 * LL_SYNC_CANCEL); a signal handler never makes a wait return EINTR (the sleep
 * starts again).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "config.h"
#include "mutex.h"
#include "profile.h"
#include "proftable.h"
#include "real.h"

typedef struct lp_cond {
    ll_cond c;
    uint32_t monotonic;
    ll_atomic_u32 glibc_wrefs;
    void *unused;
} lp_cond;
#if defined(__x86_64__)
LP_OVERLAYS(lp_cond, pthread_cond_t);
LP_AT_GLIBC_FIELD(lp_cond, glibc_wrefs, pthread_cond_t, __wrefs);
#endif
#define GLIBC_COND_PSHARED 1u /* bit 0 of glibc's __wrefs */

LL_INLINE bool glibc_owned(lp_cond *c)
{
    return ll_load_relaxed(&c->glibc_wrefs) & GLIBC_COND_PSHARED; /* relaxed: set once, by init, before sharing */
}

/* The profile record of c when profiling (NULL otherwise); glibc's: counts this call. */
static lp_profile *profile_of(lp_cond *c, void *pc)
{
    return LL_LIKELY(!lp_profiling) ? NULL : lp_proftable_sync(c, "cond", glibc_owned(c), &lp_cfg.cond, pc);
}

/* ---- a passthrough mutex, locked and unlocked through glibc ------------------------ */
typedef struct glibc_mutex_ref {
    pthread_mutex_t *m;
    int lock_rc; /* of the re-acquisition: 0, or EOWNERDEAD / ENOTRECOVERABLE for robust mutexes */
} glibc_mutex_ref;
static void glibc_lock(void *ref)
{
    glibc_mutex_ref *g = (glibc_mutex_ref *)ref;
    g->lock_rc = lp_real.mutex_lock(g->m);
}
static void glibc_unlock(void *ref) { lp_real.mutex_unlock(((glibc_mutex_ref *)ref)->m); }
static const ll_mutex_iface glibc_mutex_iface = {glibc_lock, glibc_unlock};

enum wait_kind { WAIT, TIMEDWAIT, CLOCKWAIT };

/* The wait itself (a cancellation point), timed for the profile when profiling. */
static int profiled_wait(lp_profile *p, lp_cond *c, const ll_mutex_iface *mi, void *mutex, clockid_t clock,
                         const struct timespec *abstime)
{
    if (LL_LIKELY(p == NULL))
        return ll_cond_wait_opts(&c->c, mi, mutex, clock, abstime, LL_SYNC_CANCEL);
    uint64_t t0 = ll_now_ns();
    int rc = ll_cond_wait_opts(&c->c, mi, mutex, clock, abstime, LL_SYNC_CANCEL);
    lp_profile_waited(p, true, ll_now_ns() - t0);
    return rc;
}

/* The recursion depth of a mutex released by a wait, restored once it is held again. */
typedef struct depth_ref {
    lp_mutex *m;
    uint32_t depth;
} depth_ref;
static void restore_depth(void *arg)
{
    depth_ref *d = (depth_ref *)arg;
    d->m->depth = d->depth;
}

/* A wait with a recursive mutex held depth + 1 times: the depth is restored when the
 * mutex is held again, also when cancelled (the handlers see the depth they left). */
static int wait_restoring_depth(lp_profile *p, lp_cond *c, lp_mutex *m, uint32_t depth, clockid_t clock,
                                const struct timespec *abstime)
{
    depth_ref d = {m, depth};
    int rc;
    pthread_cleanup_push(restore_depth, &d);
    rc = profiled_wait(p, c, &lp_mutex_iface, m, clock, abstime);
    pthread_cleanup_pop(1);
    return rc;
}

static int cond_wait(pthread_cond_t *pc, pthread_mutex_t *pm, enum wait_kind kind, clockid_t clock,
                     const struct timespec *abstime, void *caller)
{
    lp_require_init(kind == WAIT ? "pthread_cond_wait" : kind == TIMEDWAIT ? "pthread_cond_timedwait" : "pthread_cond_clockwait");
    lp_cond *c = (lp_cond *)pc;
    lp_mutex *m = (lp_mutex *)pm;
    lp_profile *p = profile_of(c, caller);
    if (glibc_owned(c)) {
        if (!lp_mutex_passthrough(m))
            return EINVAL;
        return kind == WAIT        ? lp_real.cond_wait(pc, pm)
               : kind == TIMEDWAIT ? lp_real.cond_timedwait(pc, pm, abstime)
                                   : lp_real.cond_clockwait(pc, pm, clock, abstime);
    }
    pthread_testcancel(); /* a cancellation point: a pending request acts here, the mutex held */
    if (kind == TIMEDWAIT)
        clock = c->monotonic ? CLOCK_MONOTONIC : CLOCK_REALTIME;
    if (lp_mutex_passthrough(m)) {
        glibc_mutex_ref g = {pm, 0};
        int rc = profiled_wait(p, c, &glibc_mutex_iface, &g, clock, abstime);
        return g.lock_rc ? g.lock_rc : rc;
    }
    if (!lp_mutex_held_by_me(m))
        return EPERM;
    uint32_t depth = m->depth; /* a recursive mutex is released entirely while waiting */
    if (LL_LIKELY(depth == 0)) /* nothing to restore: the last owner released with depth 0 */
        return profiled_wait(p, c, &lp_mutex_iface, m, clock, abstime);
    return wait_restoring_depth(p, c, m, depth, clock, abstime);
}

int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    lp_mark_seen(LP_SEEN_COND);
    return cond_wait(c, m, WAIT, CLOCK_REALTIME, NULL, __builtin_return_address(0));
}
int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abstime)
{
    lp_mark_seen(LP_SEEN_COND);
    return cond_wait(c, m, TIMEDWAIT, CLOCK_REALTIME, abstime, __builtin_return_address(0));
}
int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clock, const struct timespec *abstime)
{
    lp_mark_seen(LP_SEEN_COND);
    return cond_wait(c, m, CLOCKWAIT, clock, abstime, __builtin_return_address(0));
}
int lp_cond_wait_at(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abstime, void *pc)
{
    return abstime ? cond_wait(c, m, TIMEDWAIT, CLOCK_REALTIME, abstime, pc) : cond_wait(c, m, WAIT, CLOCK_REALTIME, NULL, pc);
}

/* The deferred wake list for a waiter that waits with (mi, mutex): its mutex's,
 * if it is ours (not glibc's) and the caller holds it.  Decided per taken
 * waiter (ll_cond_signal_morph), whose mutex is alive, never from a mutex
 * remembered in the condition variable (it may be stale, even freed). */
static ll_wake_list *held_wake_list(const ll_mutex_iface *mi, void *mutex)
{
    lp_mutex *m = (lp_mutex *)mutex;
    return mi == &lp_mutex_iface && lp_mutex_held_by_me(m) ? &m->deferred : NULL;
}

/* pthread_cond_signal (all = false) and pthread_cond_broadcast (all = true);
 * caller: the application's return address, for the profile. */
LL_INLINE int cond_wake(pthread_cond_t *pc, bool all, void *caller)
{
    lp_cond *c = (lp_cond *)pc;
    if (LL_UNLIKELY(!lp_ensure_init())) {
        if (glibc_owned(c))
            lp_init_recursion_fatal(all ? "pthread_cond_broadcast (process-shared)"
                                        : "pthread_cond_signal (process-shared)");
        return 0; /* called while configuring: no thread can be waiting on it (config.h) */
    }
    profile_of(c, caller);
    if (glibc_owned(c))
        return all ? lp_real.cond_broadcast(pc) : lp_real.cond_signal(pc);
    if (all && lp_cfg.morph_broadcast)
        ll_cond_broadcast_morph(&c->c, held_wake_list);
    else if (all)
        ll_cond_broadcast(&c->c, NULL);
    else if (lp_cfg.morph_signal)
        ll_cond_signal_morph(&c->c, held_wake_list);
    else
        ll_cond_signal(&c->c, NULL);
    return 0;
}

int pthread_cond_signal(pthread_cond_t *pc)
{
    lp_mark_seen(LP_SEEN_COND);
    return cond_wake(pc, false, __builtin_return_address(0));
}

int pthread_cond_broadcast(pthread_cond_t *pc)
{
    lp_mark_seen(LP_SEEN_COND);
    return cond_wake(pc, true, __builtin_return_address(0));
}
int lp_cond_wake_at(pthread_cond_t *pc, bool all, void *caller) { return cond_wake(pc, all, caller); }

int pthread_cond_init(pthread_cond_t *pc, const pthread_condattr_t *attr)
{
    bool ready = lp_ensure_init(); /* false while configuring (config.h): only our own need no config */
    int pshared = PTHREAD_PROCESS_PRIVATE;
    clockid_t clock = CLOCK_REALTIME;
    if (attr) {
        pthread_condattr_getpshared(attr, &pshared);
        pthread_condattr_getclock(attr, &clock);
    }
    if (pshared != PTHREAD_PROCESS_PRIVATE) {
        if (!ready)
            lp_init_recursion_fatal("pthread_cond_init (process-shared)");
        ll_faa(&lp_passthrough_conds, 1, LL_RELAXED); /* relaxed: a statistic */
        int rc = lp_real.cond_init(pc, attr);         /* sets bit 0 of __wrefs: later calls pass through */
        profile_of((lp_cond *)pc, __builtin_return_address(0));
        return rc;
    }
    lp_mark_seen(LP_SEEN_COND);
    lp_cond_init_private(pc, clock);
    return 0;
}

void lp_cond_init_private(pthread_cond_t *pc, clockid_t clock)
{
    lp_cond *c = (lp_cond *)pc;
    memset(pc, 0, sizeof *pc);
    ll_cond_init(&c->c, NULL); /* the process default discipline (LOCKLAB_COND) */
    c->monotonic = clock == CLOCK_MONOTONIC;
}

int pthread_cond_destroy(pthread_cond_t *pc) { return lp_cond_destroy_at(pc, __builtin_return_address(0)); }

int lp_cond_destroy_at(pthread_cond_t *pc, void *caller)
{
    bool ready = lp_ensure_init(); /* false while configuring (config.h): only our own need no config */
    lp_cond *c = (lp_cond *)pc;
    if (!ready && glibc_owned(c))
        lp_init_recursion_fatal("pthread_cond_destroy (process-shared)");
    profile_of(c, caller);
    if (glibc_owned(c))
        return lp_real.cond_destroy(pc);
    ll_cond_destroy(&c->c);
    return 0;
}
