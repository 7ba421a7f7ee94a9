/*
 * pthread_barrier_{init,destroy,wait}: a barrier of the interposer's own, on one
 * futex word, independent of LOCKLAB_LOCK (it takes no lock, so no lock can break
 * it), replacing glibc's so that a program's barriers are seen (LOCKLAB_VERBOSE's
 * census, config.h) and behave the same whatever lock the rest runs on.
 *
 * Layout over pthread_barrier_t (32 bytes, glibc x86_64):
 *   offset  field     meaning
 *    0      count     threads per round, set by init (1 .. UINT_MAX/2 - 1, glibc's range)
 *    4      arrived   threads arrived in the current round (reset by its last arrival)
 *    8      round     the round number: the futex word the others sleep on
 *   12      shared    glibc's "shared" field: 0 in ours; glibc's process-shared barriers
 *                     (init with PTHREAD_PROCESS_SHARED, handed to glibc) hold its
 *                     FUTEX_SHARED flag (128) there, and every call passes them to glibc
 *   16      inside    threads between their entry and their last access in wait, plus
 *                     DESTROYING once a destroy waits for them to leave
 *   20      unused (12 bytes)
 *
 * wait: enter (inside + 1), read the round, count in (arrived + 1, acq_rel).  The
 * count-th arrival resets arrived, advances the round (release), wakes every sleeper
 * and returns PTHREAD_BARRIER_SERIAL_THREAD; the others wait until the round changes
 * (spinning LP_DEFAULT_SPIN_NS, then futex waits; a signal handler's EINTR waits
 * again; not a cancellation point, as in POSIX) and return 0.  Then each leaves
 * (inside - 1), its last access to the barrier but a futex wake-up of a destroy.
 *
 * Memory orders: every arrival's increment of arrived is an acq_rel RMW, so the
 * last arrival's acquires every earlier one (a release sequence of RMWs) and its
 * release store of round publishes them all to the sleepers' acquire loads: what
 * any thread wrote before the barrier happens before what any thread does after it.
 *
 * destroy (as glibc's, which waits for the threads still leaving, so that the
 * memory can be freed as soon as one thread has returned from the last wait): with
 * threads blocked in an unfinished round (arrived != 0: undefined in POSIX) it
 * returns EBUSY instead of waiting for ever; else it sets DESTROYING in inside and
 * futex-waits until the leavers are gone (the last one, seeing DESTROYING + 1 in its
 * decrement, wakes it: RMWs of one word, so exactly one sees it).  Its futex wake
 * may touch the memory after destroy returned and the program freed it: a futex
 * wake of a freed or reused word is harmless (EFAULT, or a spurious wake-up that
 * every futex user tolerates), glibc's own argument.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>

#include "config.h"
#include "real.h"

typedef struct lp_barrier {
    uint32_t count;
    ll_atomic_u32 arrived;
    ll_atomic_u32 round;
    uint32_t glibc_shared;
    ll_atomic_u32 inside;
    uint32_t unused[3];
} lp_barrier;
#if defined(__x86_64__)
_Static_assert(sizeof(lp_barrier) == sizeof(pthread_barrier_t), "lp_barrier must overlay pthread_barrier_t exactly");
#endif
_Static_assert(__builtin_offsetof(lp_barrier, glibc_shared) == 12, "glibc's `shared' field is at offset 12");
#define GLIBC_FUTEX_SHARED 128u
#define DESTROYING (1u << 31)
#define MAX_COUNT (UINT_MAX / 2) /* glibc's BARRIER_IN_THRESHOLD: counts from here on are EINVAL */

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

LL_INLINE bool glibc_owned(const lp_barrier *b) { return b->glibc_shared == GLIBC_FUTEX_SHARED; }

/* The start of wait and destroy (fn: its name): the interposer configured, barriers marked
 * seen; pb as ours, or NULL for a process-shared barrier, glibc's (its functions resolved). */
static lp_barrier *enter(pthread_barrier_t *pb, const char *fn)
{
    lp_require_init(fn);
    lp_mark_seen(LP_SEEN_BARRIER);
    lp_barrier *b = (lp_barrier *)pb;
    if (!glibc_owned(b))
        return b;
    resolve();
    return NULL;
}

int pthread_barrier_init(pthread_barrier_t *pb, const pthread_barrierattr_t *attr, unsigned count)
{
    lp_require_init("pthread_barrier_init");
    lp_mark_seen(LP_SEEN_BARRIER);
    int pshared = PTHREAD_PROCESS_PRIVATE;
    if (attr)
        pthread_barrierattr_getpshared(attr, &pshared);
    if (pshared != PTHREAD_PROCESS_PRIVATE) {
        resolve();
        return real_init(pb, attr, count);
    }
    if (count == 0 || count >= MAX_COUNT)
        return EINVAL;
    lp_barrier *b = (lp_barrier *)pb;
    *b = (lp_barrier){.count = count};
    return 0;
}

int pthread_barrier_wait(pthread_barrier_t *pb)
{
    lp_barrier *b = enter(pb, "pthread_barrier_wait");
    if (!b)
        return real_wait(pb);
    ll_faa(&b->inside, 1, LL_RELAXED); /* relaxed: only its RMW order with destroy's matters */
    uint32_t round = ll_load_relaxed(&b->round); /* relaxed: this round cannot end before our arrival below */
    int rc = 0;
    /* acq_rel: the last arrival acquires every earlier one's writes (a release sequence of RMWs) */
    if (ll_faa(&b->arrived, 1, LL_ACQ_REL) + 1 == b->count) {
        ll_store_relaxed(&b->arrived, 0); /* relaxed: no arrival for the next round before the store below */
        ll_store_release(&b->round, round + 1); /* release: everything before the barrier; pairs with the loads below */
        ll_futex_wake(&b->round, INT_MAX);
        rc = PTHREAD_BARRIER_SERIAL_THREAD;
    } else {
        uint64_t spin_until = ll_now_ns() + LP_DEFAULT_SPIN_NS;
        while (ll_load_acquire(&b->round) == round) { /* acquire: pairs with the last arrival's release */
            if (ll_now_ns() < spin_until) {
                for (int i = 0; i < 64; i++)
                    ll_pause();
            } else {
                ll_futex_wait(&b->round, round); /* returns at once if the round moved; EINTR: wait again */
            }
        }
    }
    /* release: our reads of the barrier come before a destroy that sees us gone (its acquire) */
    if (ll_faa(&b->inside, (uint32_t)-1, LL_RELEASE) == (DESTROYING | 1u))
        ll_futex_wake(&b->inside, 1);
    return rc;
}

int pthread_barrier_destroy(pthread_barrier_t *pb)
{
    lp_barrier *b = enter(pb, "pthread_barrier_destroy");
    if (!b)
        return real_destroy(pb);
    if (ll_load_relaxed(&b->arrived) != 0) /* relaxed: threads blocked in a round (misuse): not waited for */
        return EBUSY;
    uint32_t in = ll_faa(&b->inside, DESTROYING, LL_ACQUIRE) + DESTROYING; /* acquire: pairs with the leavers' release */
    while (in != DESTROYING) {
        ll_futex_wait(&b->inside, in);
        in = ll_load_acquire(&b->inside); /* acquire: as above */
    }
    ll_store_relaxed(&b->inside, 0); /* relaxed: nobody uses a destroyed barrier */
    return 0;
}
