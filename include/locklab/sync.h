/*
 * Condition variables and counting semaphores over any locklab lock, with the
 * queue disciplines of the Malthusian paper (§6.7, §6.10, §6.11):
 *
 *   FIFO      waiters are appended; signal wakes the longest waiter.
 *   LIFO-CR   "mostly LIFO": a waiter is prepended, except with probability
 *             1/append_one_in (default 1000) when it is appended, so that a
 *             few recently active threads circulate (concurrency restriction)
 *             while the tail still drains (long-term fairness).
 *
 * Wait morphing (the Solaris idea of Appendix A's footnote), done the portable
 * way: a signal issued while the caller holds the mutex does not wake the
 * waiter at once (it would only block again on that mutex); it moves the
 * waiter onto the mutex's ll_wake_list, which the mutex owner flushes right
 * after it releases the mutex.  Signals without the mutex held wake at once.
 *
 * The mutex is abstract (ll_mutex_iface), so the same code serves the
 * generic ll_lock handle, the interposer's pthread_mutex_t and anything else
 * with lock/unlock.  An all-zero ll_cond / ll_sem is a valid object using the
 * process default discipline (ll_sync_set_defaults), so PTHREAD_COND_INITIALIZER
 * maps onto it directly.
 *
 * API contract (implementation: src/sync/cond.c, src/sync/sem.c):
 *   - ll_cond_wait returns 0 (signalled, broadcast or spurious) or ETIMEDOUT;
 *     in both cases the mutex is held again on return.  With an abstime, EINVAL
 *     (mutex still held, nothing waited) for a clock other than CLOCK_REALTIME /
 *     CLOCK_MONOTONIC or tv_nsec outside [0, 1e9); ll_sem_wait likewise, but only
 *     when it would block (POSIX).
 *   - abstime == NULL waits forever; otherwise it is an absolute time on clock
 *     (CLOCK_REALTIME or CLOCK_MONOTONIC).
 *   - a waiter that times out after it was signalled still returns 0 and waits
 *     until its deferred wake-up has been delivered (its node lives on its stack).
 *   - options (ll_cond_wait_opts, ll_sem_wait_opts), the POSIX behaviour the
 *     interposer needs: LL_SYNC_EINTR (semaphores only: a signal handler that
 *     interrupts the sleep ends the wait with EINTR, see ll_futex_wait_until;
 *     a condition wait never returns EINTR), LL_SYNC_CANCEL (the sleep is a
 *     POSIX cancellation point: a cancelled waiter leaves the list, passes on
 *     a wake-up it had consumed -- a signal to another waiter, a unit back to
 *     the semaphore -- and a condition waiter re-takes the mutex before the
 *     thread's cleanup handlers run).  A request pending at entry is the
 *     caller's to act on (pthread_testcancel).
 */
#ifndef LOCKLAB_SYNC_H
#define LOCKLAB_SYNC_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "locklab/atomics.h"

LL_API_BEGIN

typedef enum ll_discipline {
    LL_DISCIPLINE_DEFAULT = 0, /* the process default (ll_sync_set_defaults), FIFO unless changed */
    LL_DISCIPLINE_FIFO = 1,
    LL_DISCIPLINE_LIFO_CR = 2,
} ll_discipline;

typedef struct ll_sync_config {
    ll_discipline discipline;
    uint32_t append_one_in; /* LIFO-CR: append with probability 1/append_one_in; 0 = default 1000 */
} ll_sync_config;

/* Parses "fifo" | "lifo-cr[:append_one_in=N]"; -1 with a one-line message naming
 * the bad value and the valid choices. */
int ll_sync_config_parse(const char *text, ll_sync_config *out, char *err, size_t errlen);
/* Process defaults for objects whose discipline is LL_DISCIPLINE_DEFAULT. */
void ll_sync_set_defaults(const ll_sync_config *cond_cfg, const ll_sync_config *sem_cfg);

struct ll_sync_waiter; /* private: lives on the waiting thread's stack */

/* Deferred wake-ups of a mutex: touched only by the mutex holder. */
typedef struct ll_wake_list {
    struct ll_sync_waiter *head;
} ll_wake_list;
/* Wake everyone on the list; call right after releasing the mutex that owns it
 * (take the list first: `ll_wake_list l = m->deferred; m->deferred.head = NULL;
 * unlock(m); ll_wake_list_flush(&l);`). */
void ll_wake_list_flush(ll_wake_list *list);

typedef struct ll_mutex_iface {
    void (*lock)(void *mutex);
    void (*unlock)(void *mutex); /* must flush the mutex's deferred wake list after releasing */
} ll_mutex_iface;

typedef struct ll_cond {
    ll_atomic_u32 guard; /* protects the fields below (a short internal spin lock) */
    uint32_t discipline;
    uint32_t append_one_in;
    ll_atomic_u32 waiters; /* listed waiters: written under guard, read without it by signal and broadcast */
    struct ll_sync_waiter *head, *tail;
} ll_cond; /* 32 bytes: fits in a pthread_cond_t */

void ll_cond_init(ll_cond *c, const ll_sync_config *cfg); /* cfg NULL: defaults */
void ll_cond_destroy(ll_cond *c);                           /* EBUSY-free: caller guarantees no waiters */
int ll_cond_wait(ll_cond *c, const ll_mutex_iface *mi, void *mutex, clockid_t clock,
                 const struct timespec *abstime);
enum { LL_SYNC_EINTR = 1u, LL_SYNC_CANCEL = 2u }; /* options, see the contract above */
int ll_cond_wait_opts(ll_cond *c, const ll_mutex_iface *mi, void *mutex, clockid_t clock,
                      const struct timespec *abstime, unsigned opts); /* LL_SYNC_CANCEL */
/* defer: the wake list of the mutex the caller holds (wait morphing), or NULL to wake now. */
void ll_cond_signal(ll_cond *c, ll_wake_list *defer);
void ll_cond_broadcast(ll_cond *c, ll_wake_list *defer);
/* Wait morphing decided per waiter, for callers that do not know which mutex
 * the waiters use (the interposer): held(mi, mutex) is given the iface and
 * mutex a taken waiter passed to ll_cond_wait (alive: that waiter is blocked
 * until woken and will lock it again) and returns that mutex's deferred wake
 * list if the calling thread holds it, else NULL (the waiter is woken now). */
typedef ll_wake_list *(*ll_held_wake_list_fn)(const ll_mutex_iface *mi, void *mutex);
void ll_cond_signal_morph(ll_cond *c, ll_held_wake_list_fn held);
void ll_cond_broadcast_morph(ll_cond *c, ll_held_wake_list_fn held);

typedef struct ll_sem {
    ll_atomic_u32 guard;
    uint32_t discipline;
    uint32_t append_one_in;
    uint32_t value; /* units available; a post with waiters hands its unit to one directly */
    struct ll_sync_waiter *head, *tail;
} ll_sem; /* 32 bytes: fits in a sem_t */

int ll_sem_init(ll_sem *s, unsigned value, const ll_sync_config *cfg); /* EINVAL if value > INT32_MAX */
void ll_sem_destroy(ll_sem *s);
int ll_sem_wait(ll_sem *s, clockid_t clock, const struct timespec *abstime); /* 0, ETIMEDOUT or EINVAL */
int ll_sem_wait_opts(ll_sem *s, clockid_t clock, const struct timespec *abstime,
                     unsigned opts); /* LL_SYNC_EINTR, LL_SYNC_CANCEL; also EINTR */
int ll_sem_trywait(ll_sem *s);                                               /* 0 or EAGAIN */
int ll_sem_post(ll_sem *s);                                                  /* 0 or EOVERFLOW */
int ll_sem_getvalue(ll_sem *s);                                              /* units available, >= 0 */

/* Barriers (src/sync/barrier.c): one futex word, no lock.  A thread's writes before its
 * wait happen before every thread's actions after the wait of the same round. */
typedef struct ll_barrier {
    LL_SHARED_PLAIN(uint32_t) count; /* threads per round, set by init (a plain field: atomics.h) */
    ll_atomic_u32 arrived;           /* arrivals in the current round */
    ll_atomic_u32 round;             /* the round number (the sleepers' futex word) */
    uint32_t reserved;               /* never touched (the interposer keeps glibc's process-shared flag here) */
    ll_atomic_u32 inside;            /* threads inside wait, + LL_BARRIER_DESTROYING while a destroy waits */
} ll_barrier;                        /* 20 bytes: fits in a pthread_barrier_t */
#define LL_BARRIER_MAX_COUNT (UINT32_MAX / 2) /* glibc's range: counts from here on are EINVAL */
#define LL_BARRIER_DESTROYING (1u << 31)
/* 0, or EINVAL for count 0 or >= LL_BARRIER_MAX_COUNT.  Leaves reserved alone. */
int ll_barrier_init(ll_barrier *b, unsigned count);
/* Wait for count threads (spinning spin_ns, then sleeping); true in exactly one of them per
 * round (PTHREAD_BARRIER_SERIAL_THREAD). */
bool ll_barrier_wait(ll_barrier *b, uint64_t spin_ns);
/* 0 once every thread that returned from, or is leaving, the last wait is gone (the memory
 * may then be freed); EBUSY if threads wait in an unfinished round. */
int ll_barrier_destroy(ll_barrier *b);

LL_API_END
#endif /* LOCKLAB_SYNC_H */
