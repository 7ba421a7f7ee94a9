/*
 * pthread_barrier_{init,destroy,wait}: locklab's barrier (src/sync/barrier.c, which
 * says how it works: one futex word, no lock), independent of LOCKLAB_LOCK (it takes
 * no lock, so no lock can break it), replacing glibc's so that a program's barriers
 * are seen (LOCKLAB_VERBOSE's census, config.h) and behave the same whatever lock the
 * rest runs on.  It waits as a spin-then-park waiter: LP_DEFAULT_SPIN_NS, then the futex.
 *
 * Layout over pthread_barrier_t (32 bytes, glibc x86_64): the ll_barrier (sync.h)
 *   offset  field     meaning
 *    0      count     threads per round (1 .. UINT_MAX/2 - 1, glibc's range)
 *    4      arrived   threads arrived in the current round
 *    8      round     the round number: the futex word the others sleep on
 *   12      reserved  glibc's "shared" field: 0 in ours; glibc's process-shared barriers
 *                     (init with PTHREAD_PROCESS_SHARED, handed to glibc) hold its
 *                     FUTEX_SHARED flag (128) there, and every call passes them to glibc
 *   16      inside    threads inside wait, + DESTROYING while a destroy waits for them
 *   20      unused (12 bytes)
 * destroy waits for the threads still leaving the last wait, as glibc's does (the
 * memory may be freed as soon as one thread has returned from it); with threads
 * blocked in an unfinished round (undefined in POSIX) it answers EBUSY.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>

#include "config.h"
#include "locklab/sync.h"
#include "real.h"

#if defined(__x86_64__)
_Static_assert(sizeof(ll_barrier) <= sizeof(pthread_barrier_t), "ll_barrier must fit in a pthread_barrier_t");
#endif
_Static_assert(__builtin_offsetof(ll_barrier, reserved) == 12, "glibc's `shared' field is at offset 12");
#define GLIBC_FUTEX_SHARED 128u

typedef int (*barrier_init_fn)(pthread_barrier_t *, const pthread_barrierattr_t *, unsigned);
typedef int (*barrier_fn)(pthread_barrier_t *);
static barrier_init_fn real_init;
static barrier_fn real_wait, real_destroy;
static pthread_once_t resolved = PTHREAD_ONCE_INIT;

/* glibc's functions, for its process-shared barriers (found as real.c finds the others). */
static void resolve_once(void)
{
    real_init = (barrier_init_fn)lp_real_lookup("pthread_barrier_init");
    real_wait = (barrier_fn)lp_real_lookup("pthread_barrier_wait");
    real_destroy = (barrier_fn)lp_real_lookup("pthread_barrier_destroy");
}
static void resolve(void) { pthread_once(&resolved, resolve_once); }

/* Every entry point's start: the interposer configured, a barrier counted in the census. */
static void enter(const char *fn)
{
    lp_require_init(fn);
    lp_mark_seen(LP_SEEN_BARRIER);
}

/* wait's and destroy's start (enter): the barrier at pb if it is ours; NULL for one of glibc's
 * process-shared barriers, whose calls go to glibc's functions (resolved here). */
static ll_barrier *ours(pthread_barrier_t *pb, const char *fn)
{
    enter(fn);
    ll_barrier *b = (ll_barrier *)pb;
    if (b->reserved != GLIBC_FUTEX_SHARED)
        return b;
    resolve();
    return NULL;
}

int pthread_barrier_init(pthread_barrier_t *pb, const pthread_barrierattr_t *attr, unsigned count)
{
    enter("pthread_barrier_init");
    int pshared = PTHREAD_PROCESS_PRIVATE;
    if (attr)
        pthread_barrierattr_getpshared(attr, &pshared);
    if (pshared != PTHREAD_PROCESS_PRIVATE) {
        resolve();
        return real_init(pb, attr, count);
    }
    ll_barrier *b = (ll_barrier *)pb;
    int rc = ll_barrier_init(b, count); /* EINVAL: untouched, as glibc's */
    if (rc == 0)
        b->reserved = 0; /* ours (a glibc process-shared barrier there before is gone) */
    return rc;
}

int pthread_barrier_wait(pthread_barrier_t *pb)
{
    ll_barrier *b = ours(pb, "pthread_barrier_wait");
    if (b == NULL)
        return real_wait(pb);
    return ll_barrier_wait(b, LP_DEFAULT_SPIN_NS) ? PTHREAD_BARRIER_SERIAL_THREAD : 0;
}

int pthread_barrier_destroy(pthread_barrier_t *pb)
{
    ll_barrier *b = ours(pb, "pthread_barrier_destroy");
    if (b == NULL)
        return real_destroy(pb);
    return ll_barrier_destroy(b);
}
