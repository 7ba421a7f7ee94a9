/*
 * A model of glibc's default reader-writer lock (PTHREAD_RWLOCK_PREFER_READER_NP;
 * nptl's pthread_rwlock since glibc 2.25) on the atomics layer, standing in for
 * pthread_rwlock_* in src/locks/rw_pthread.c under the simulator
 * (sim/pthread_shim.h).  Written from the algorithm's published description (the
 * design comment of glibc's rwlock: one __readers word with the reader count and
 * the phase, a primary writer that owns the write lock while the readers drain,
 * further writers asleep on a futex of their own), keeping its policy and its
 * futex traffic and leaving out what rwbench never exercises (the writer-preferring
 * kinds, process sharing, the phase-switch shortcuts of readers arriving in a
 * write phase that has not started):
 *
 *   r = readers << 3 | SLEEP (4: someone sleeps on r) | WRPHASE (2) | WRLOCKED (1)
 *   rdlock    fetch_add a reader; in unless WRPHASE (reader preference: a primary
 *             writer waiting for the readers to drain holds no reader back); else
 *             back out and sleep on r until the write phase ends
 *   rdunlock  CAS a reader out; the last one out while WRLOCKED starts the write
 *             phase (sets WRPHASE) and wakes the sleepers on r
 *   wrlock    CAS WRLOCKED in (and WRPHASE too if no reader is in: then in); the
 *             primary writer sleeps on r until a last reader sets WRPHASE; a writer
 *             that finds WRLOCKED taken sleeps on the writers' futex (seq), counted
 *             in nwait, and tries again when woken
 *   wrunlock  CAS WRLOCKED, WRPHASE and SLEEP out, wake every sleeper on r (the
 *             readers of the write phase); then seq + 1 and, if a writer sleeps, wake one
 * Fairness: readers first; writers among themselves barge (a woken writer competes
 * with every running one), as glibc's.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "pthread_shim.h"
#include "sim.h"

enum { WRLOCKED = 1u, WRPHASE = 2u, SLEEP = 4u, RONE = 8u };

typedef struct grw {
    ll_atomic_u32 r;
    ll_atomic_u32 seq;   /* the writers' futex: + 1 at each write unlock */
    ll_atomic_u32 nwait; /* writers asleep on seq */
} grw;
_Static_assert(sizeof(grw) <= sizeof(pthread_rwlock_t), "the model lives in the pthread_rwlock_t");

static grw *of(pthread_rwlock_t *l) { return (grw *)(void *)l; }

int llsim_rwlock_init(pthread_rwlock_t *l, const pthread_rwlockattr_t *attr)
{
    (void)attr;
    memset(l, 0, sizeof *l);
    return 0;
}

int llsim_rwlock_destroy(pthread_rwlock_t *l)
{
    (void)l;
    return 0;
}

/* Sleep on w while it reads v | SLEEP (setting SLEEP first); 0, or ETIMEDOUT at abstime. */
static int sleep_on_r(grw *g, uint32_t v, const struct timespec *abstime)
{
    if (!(v & SLEEP) && !ll_cas(&g->r, &v, v | SLEEP, LL_RELAXED)) /* relaxed: the futex compares */
        return 0;                                                  /* changed: look again */
    return ll_futex_wait_until(&g->r, v | SLEEP, CLOCK_REALTIME, abstime) == ETIMEDOUT ? ETIMEDOUT : 0;
}

/* A reader out (leaving, or backing out of a write phase): the last one out while a primary
 * writer waits starts the write phase and wakes the sleepers. */
static void reader_out(grw *g)
{
    uint32_t v = ll_load_relaxed(&g->r), n; /* relaxed: the CAS validates it */
    do {
        n = v - RONE;
        if (n >> 3 == 0 && (n & WRLOCKED))
            n = (n | WRPHASE) & ~SLEEP;
    } while (!ll_cas(&g->r, &v, n, LL_RELEASE)); /* release: the read section to the writer's acquire */
    if ((v & SLEEP) && !(n & SLEEP))
        ll_futex_wake(&g->r, INT_MAX);
}

static bool read_try(grw *g)
{
    /* acquire: the last writer's section (its releasing CAS) */
    if (!(ll_faa(&g->r, RONE, LL_ACQUIRE) & WRPHASE))
        return true;
    reader_out(g); /* a primary writer that claimed meanwhile may be waiting for this count */
    return false;
}

static int read_lock(grw *g, const struct timespec *abstime)
{
    while (!read_try(g)) {
        uint32_t v = ll_load_relaxed(&g->r); /* relaxed: sleep_on_r's CAS and futex compare it */
        if ((v & WRPHASE) && sleep_on_r(g, v, abstime) == ETIMEDOUT)
            return ETIMEDOUT;
    }
    return 0;
}

int llsim_rwlock_rdlock(pthread_rwlock_t *l) { return read_lock(of(l), NULL); }
int llsim_rwlock_tryrdlock(pthread_rwlock_t *l) { return read_try(of(l)) ? 0 : EBUSY; }
int llsim_rwlock_timedrdlock(pthread_rwlock_t *l, const struct timespec *abstime) { return read_lock(of(l), abstime); }

/* WRLOCKED in (true: primary; *in: the write phase started too, no reader was in). */
static bool write_claim(grw *g, bool *in)
{
    uint32_t v = ll_load_relaxed(&g->r); /* relaxed: the CAS validates it */
    while (!(v & WRLOCKED)) {
        uint32_t n = v | WRLOCKED | (v >> 3 == 0 ? WRPHASE : 0);
        /* acquire: the departed readers' and the last writer's sections */
        if (ll_cas(&g->r, &v, n, LL_ACQUIRE)) {
            *in = (n & WRPHASE) != 0;
            return true;
        }
    }
    return false;
}

/* The write lock was given back: a writer asleep on seq may claim it (one woken). */
static void wake_a_writer(grw *g)
{
    ll_faa(&g->seq, 1, LL_SEQ_CST); /* seq_cst: before the nwait load; pairs with write_lock's */
    if (ll_load(&g->nwait, LL_SEQ_CST))
        ll_futex_wake(&g->seq, 1);
}

static int write_lock(grw *g, const struct timespec *abstime)
{
    bool in = false;
    while (!write_claim(g, &in)) { /* a secondary writer: sleep on seq while WRLOCKED stays */
        ll_faa(&g->nwait, 1, LL_SEQ_CST); /* seq_cst: counted before the check; pairs with wrunlock's */
        uint32_t s = ll_load(&g->seq, LL_SEQ_CST);
        int rc = ll_load(&g->r, LL_SEQ_CST) & WRLOCKED ? ll_futex_wait_until(&g->seq, s, CLOCK_REALTIME, abstime) : 0;
        ll_faa(&g->nwait, (uint32_t)-1, LL_RELAXED); /* relaxed: a count */
        if (rc == ETIMEDOUT)
            return ETIMEDOUT;
    }
    while (!in) { /* the primary writer: the last reader out starts the write phase */
        /* acquire: pairs with the last reader's releasing CAS that set WRPHASE */
        uint32_t v = ll_load_acquire(&g->r);
        if (v & WRPHASE)
            break;
        if (sleep_on_r(g, v, abstime) == ETIMEDOUT && !(ll_load_acquire(&g->r) & WRPHASE)) { /* acquire: as above */
            uint32_t w = ll_load_relaxed(&g->r), n; /* give the claim back: relaxed: the CAS validates it */
            do
                n = w & ~(WRLOCKED | SLEEP);
            while (!(w & WRPHASE) && !ll_cas(&g->r, &w, n, LL_RELAXED));
            if (w & WRPHASE) /* the phase started meanwhile: in after all */
                break;
            if (w & SLEEP)
                ll_futex_wake(&g->r, INT_MAX);
            wake_a_writer(g);
            return ETIMEDOUT;
        }
    }
    return 0;
}

int llsim_rwlock_wrlock(pthread_rwlock_t *l) { return write_lock(of(l), NULL); }
int llsim_rwlock_timedwrlock(pthread_rwlock_t *l, const struct timespec *abstime) { return write_lock(of(l), abstime); }
int llsim_rwlock_trywrlock(pthread_rwlock_t *l)
{
    grw *g = of(l);
    uint32_t v = 0;
    /* acquire: the departed readers' and the last writer's sections */
    return ll_cas(&g->r, &v, WRLOCKED | WRPHASE, LL_ACQUIRE) ? 0 : EBUSY;
}

int llsim_rwlock_unlock(pthread_rwlock_t *l)
{
    grw *g = of(l);
    uint32_t v = ll_load_relaxed(&g->r), n; /* relaxed: the CAS validates it */
    if (v & WRPHASE) { /* the writer: only it can be in during a write phase */
        do
            n = v & ~(WRLOCKED | WRPHASE | SLEEP);
        while (!ll_cas(&g->r, &v, n, LL_SEQ_CST)); /* release: its section; seq_cst: before the nwait load */
        if (v & SLEEP)
            ll_futex_wake(&g->r, INT_MAX);
        wake_a_writer(g);
        return 0;
    }
    reader_out(g);
    return 0;
}
