/*
 * The lock behind a pthread mutex, and the mutex's life: pthread_mutex_init and
 * pthread_mutex_destroy, and, for a lock that does not fit inline (lp_cfg.inline_state
 * false: config.h), its out-of-line object (slab.h), installed by the first use of the
 * mutex, with the lock placed in it from the settled spec (lp_cfg.lock) and, when
 * profiling, the mutex's profile record.  pthread_mutex_destroy of a held mutex answers
 * EBUSY; a destroyed mutex answers EINVAL (glibc's answer: mutex.h).
 *
 * Copies: a mutex used and then copied (undefined in POSIX, a separate mutex under glibc)
 * carries its original's object pointer; its first use gives it an object of its own
 * (lp_mutex_rebind_copy; mutex_internal.h, copied).
 *
 * Out of memory: pthread_mutex_init of an out-of-line lock answers ENOMEM when no lock
 * object can be had (it leaves a spare for the first lock, which installs one); a first
 * lock that cannot have one runs that mutex on an inline fallback lock (below, slab.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "mutex_internal.h"
#include "real.h"

typedef struct install_ctx {
    lp_mutex *m;
    void *pc;
} install_ctx;

/* Initialise the lock (state and waiting policy) of an out-of-line object.  The same settled
 * spec placed the scratch lock at lp_init (settled, so it never measures); it fails only out
 * of memory, for a lock whose init allocates (hmcs, anderson). */
bool lp_mutex_place_lock(void *obj)
{
    char err[256];
    return ll_lock_place(&lp_cfg.lock, LL_DEFAULTS_FIXED, obj, &lp_hdr(obj)->wp, NULL, err, sizeof err) == 0;
}

static bool init_object(void *obj, void *arg)
{
    install_ctx *c = (install_ctx *)arg;
    lp_objhdr *h = lp_hdr(obj);
    if (!lp_mutex_place_lock(obj))
        return false;
    h->home = &c->m->lock.obj;
    if (lp_profiling)
        h->prof = lp_profile_new(c->m, "mutex", lp_mutex_type_name(c->m->kind), false, c->pc);
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
LL_COLD void *lp_mutex_install_object(lp_mutex *m, void *pc)
{
    install_ctx c = {m, pc};
    return lp_slab_install(&m->lock.obj, init_object, retire_object, &c, true);
}

/* m is a copy of another mutex (copied): give it an object of its own.  Its users all see
 * the copy (copied() is checked before every use) and agree on the new object. */
LL_COLD void *lp_mutex_rebind_copy(lp_mutex *m, void *obj, void *pc)
{
    /* relaxed: only the slot's value matters; the install publishes the new object (release) */
    (void)ll_cas(&m->lock.obj, &obj, NULL, LL_RELAXED);
    return lp_mutex_install_object(m, pc); /* or the object a racing user installed first */
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

LL_COLD lock_ref lp_mutex_fallback_ref(lp_mutex *m)
{
    lock_ref r = {fallback_state(m), &lp_cfg.wp, &ll_lock_standby, NULL};
    return r;
}

/* ---- init and destroy ------------------------------------------------------------------ */

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

/* The historic aliases glibc still exports (GLIBC_2.2.5); old binaries may call them (lock,
 * trylock, unlock: mutex.c). */
int __pthread_mutex_init(pthread_mutex_t *, const pthread_mutexattr_t *)
    __attribute__((alias("pthread_mutex_init"), copy(pthread_mutex_init)));
int __pthread_mutex_destroy(pthread_mutex_t *) __attribute__((alias("pthread_mutex_destroy"), copy(pthread_mutex_destroy)));
