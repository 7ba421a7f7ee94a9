/*
 * Timed acquisition of a pthread mutex (pthread_mutex_timedlock, _clocklock; C11's
 * mtx_timedlock), and the polling waits the mutex's other files share.
 *
 * One try_acquire, then (EINVAL if tv_nsec is out of range, as glibc checks it only when it
 * would block; a normal mutex the caller holds waits, unqueued, for another thread's unlock
 * or the deadline: lp_mutex_relock_wait) the lock's own timed acquire (ops->acquire_until,
 * registry.h): the timed waiter queues and waits as any waiter does and leaves at the
 * deadline, so it is served within the lock's own bound (docs/interposer.md, "Timed locks",
 * has each lock's).  The deadline is converted to the monotonic clock; if the caller's clock
 * says it has not passed yet when the lock gives up (a CLOCK_REALTIME set back), it waits
 * again.  A CLOCK_REALTIME deadline more than LP_REALTIME_SLICE_NS away is waited for in
 * slices of that length, the caller's clock read again between them, so that a clock set
 * forward past the deadline ends the wait at most a slice late (POSIX: the wait ends when
 * that clock reaches abstime); each slice leaves the queue and joins it again, hence slices
 * long against every lock's patience (mcscr's 50 ms).  A lock without acquire_until (the
 * peers') is polled: try_acquire, spinning for LP_DEFAULT_SPIN_NS, then sleeping 1 us
 * doubling to 1 ms; such a waiter is not queued, so under sustained contention of a FIFO lock
 * it may time out although the lock changed hands many times.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <time.h>

#include "mutex_internal.h"

/* ---- polling -------------------------------------------------------------------------- */

/* Sleep *nap_ns (at most left_ns), then double *nap_ns up to 1 ms. */
static void nap(uint64_t *nap_ns, uint64_t left_ns)
{
    ll_sleep_ns(*nap_ns < left_ns ? *nap_ns : left_ns); /* not a cancellation point, as a timed lock is not */
    *nap_ns = *nap_ns * 2 > 1000000 ? 1000000 : *nap_ns * 2;
}

void lp_spin_or_nap(uint64_t *nap_ns, uint64_t spin_until, uint64_t left_ns)
{
    if (ll_now_ns() < spin_until) {
        for (int i = 0; i < 64; i++)
            ll_pause();
    } else {
        nap(nap_ns, left_ns);
    }
}

/* ---- timed acquisition ----------------------------------------------------------------- */

/* The lock's own timed acquire (acr inline, or ops->acquire_until) until abstime on clock
 * (CLOCK_REALTIME: in slices, see above). */
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

int lp_mutex_lock_until(lp_mutex *m, void *pc, clockid_t clock, const struct timespec *abstime)
{
    lock_ref r = lock_of(m, pc);
    if (LL_UNLIKELY(held_across_fork(m))) { /* would block: check abstime, as below */
        if (abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000)
            return EINVAL;
        if (!lp_await_fork_holder(&m->owner, &lp_cfg.fork_repair, clock, abstime))
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
     * free it before the deadline, so wait for that without queueing in the lock (lp_mutex_relock_wait;
     * also: a timed waiter that gives up may leave its node in the lock, and k42's stays there
     * if the program then drops the held mutex: 128 bytes per cycle; test_memory). */
    if (LL_UNLIKELY(lp_mutex_held_by_me(m)) && !lp_mutex_relock_wait(m, clock, abstime)) {
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
        lp_spin_or_nap(&nap_ns, spin_until, ns_between(&now, abstime));
        if (ops_try_acquire(r)) {
            if (r.prof)
                lp_profile_acquired(r.prof, true, ll_now_ns() - t0);
            return 0;
        }
    }
}
