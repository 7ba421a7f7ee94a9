/*
 * A model of glibc's default and adaptive mutexes (nptl lowlevellock) on the
 * atomics layer, standing in for pthread_mutex_* in src/locks/pthread.c under
 * the simulator (sim/pthread_shim.h).  Written from the algorithm's description
 * (the lock word 0 free / 1 held / 2 held with possible sleepers, as
 * src/locks/pthread.c summarises it; glibc manual "Tunables" for the adaptive
 * spin count):
 *   lock     CAS 0 -> 1; else (adaptive: spin, reading the word and retrying the
 *            CAS, at most min(100, 2 x average + 10) times; the average moves 1/8
 *            towards each wait's count); then exchange 2 in until the old value
 *            is 0, futex-waiting on 2 between tries
 *   unlock   exchange 0 in; if the old value was 2, wake one sleeper
 */
#include <errno.h>
#include <string.h>

#include "pthread_shim.h"
#include "sim.h"

typedef struct lll {
    ll_atomic_u32 word;
    uint32_t adaptive;
    int32_t spins; /* running average of the adaptive spin (holder-only, as in glibc) */
} lll;
_Static_assert(sizeof(lll) <= sizeof(pthread_mutex_t), "the model lives in the pthread_mutex_t");
enum { MAX_ADAPTIVE_SPIN = 100 };

static lll *of(pthread_mutex_t *m) { return (lll *)(void *)m; }

int llsim_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr)
{
    int type = PTHREAD_MUTEX_NORMAL;
    if (attr)
        pthread_mutexattr_gettype(attr, &type);
    memset(m, 0, sizeof *m);
    of(m)->adaptive = type == PTHREAD_MUTEX_ADAPTIVE_NP;
    return 0;
}

int llsim_mutex_destroy(pthread_mutex_t *m)
{
    (void)m;
    return 0;
}

static bool try_word(lll *l)
{
    uint32_t zero = 0;
    return ll_cas(&l->word, &zero, 1, LL_ACQUIRE); /* acquire: the critical section after the unlock's exchange */
}

/* The contended path: mark the word 2 and sleep until an exchange finds it free.
 * Returns 0, or ETIMEDOUT at abstime (NULL: none). */
static int lock_wait(lll *l, const struct timespec *abstime)
{
    while (ll_xchg(&l->word, 2, LL_ACQUIRE) != 0) /* acquire: as try_word */
        if (ll_futex_wait_until(&l->word, 2, CLOCK_REALTIME, abstime) == ETIMEDOUT)
            return ETIMEDOUT;
    return 0;
}

int llsim_mutex_lock(pthread_mutex_t *m)
{
    lll *l = of(m);
    if (try_word(l))
        return 0;
    if (l->adaptive) {
        int32_t max = l->spins * 2 + 10, n = 0;
        max = max < MAX_ADAPTIVE_SPIN ? max : MAX_ADAPTIVE_SPIN;
        for (;;) {
            if (n++ >= max) {
                lock_wait(l, NULL);
                break;
            }
            ll_pause();
            if (ll_load_relaxed(&l->word) == 0 && try_word(l)) /* relaxed: a hint before the CAS */
                break;
        }
        l->spins += (n - l->spins) / 8;
        return 0;
    }
    return lock_wait(l, NULL);
}

int llsim_mutex_trylock(pthread_mutex_t *m) { return try_word(of(m)) ? 0 : EBUSY; }

int llsim_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime)
{
    lll *l = of(m);
    return try_word(l) ? 0 : lock_wait(l, abstime);
}

int llsim_mutex_unlock(pthread_mutex_t *m)
{
    lll *l = of(m);
    if (ll_xchg(&l->word, 0, LL_RELEASE) == 2) /* release: the critical section to the next acquire */
        ll_futex_wake(&l->word, 1);
    return 0;
}

int llsim_clock_gettime(clockid_t clock, struct timespec *ts)
{
    (void)clock; /* every clock is the simulated time */
    uint64_t ns = ll_now_ns();
    ts->tv_sec = (time_t)(ns / 1000000000u);
    ts->tv_nsec = (long)(ns % 1000000000u);
    return 0;
}
