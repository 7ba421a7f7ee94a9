/* OS hooks of the core layer: futex, yield, monotonic clock (Linux). */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "locklab/core.h"

/* Per-thread syscall counts (read by the profiler; a thread only touches its own). */
static __thread uint64_t futex_waits __attribute__((tls_model("initial-exec")));
static __thread uint64_t futex_wakes __attribute__((tls_model("initial-exec")));

void ll_futex_counts(uint64_t *waits, uint64_t *wakes)
{
    *waits = futex_waits;
    *wakes = futex_wakes;
}

void ll_futex_wait(ll_atomic_u32 *word, uint32_t expected)
{
    futex_waits++;
    /* EAGAIN (value changed) and EINTR are both "re-check and carry on". */
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

void ll_futex_wake(ll_atomic_u32 *word, int n)
{
    futex_wakes++;
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

bool ll_futex_wake_two(ll_atomic_u32 *a, ll_atomic_u32 *b, uint32_t set_to, uint32_t was)
{
    futex_wakes++;
    /* FUTEX_WAKE_OP takes its second count in the timeout argument's place */
    return syscall(SYS_futex, (uint32_t *)a, FUTEX_WAKE_OP_PRIVATE, 1, (void *)(uintptr_t)1, (uint32_t *)b,
                   FUTEX_OP(FUTEX_OP_SET, set_to & 0xfff, FUTEX_OP_CMP_EQ, was & 0xfff)) >= 0;
}

int ll_futex_wait_until(ll_atomic_u32 *word, uint32_t expected, clockid_t clock, const struct timespec *abstime)
{
    int op = FUTEX_WAIT_BITSET_PRIVATE; /* the bitset form takes an absolute time */
    if (clock == CLOCK_REALTIME)
        op |= FUTEX_CLOCK_REALTIME;
    else if (clock != CLOCK_MONOTONIC)
        return EINVAL;
    futex_waits++;
    if (syscall(SYS_futex, (uint32_t *)word, op, expected, abstime, NULL, FUTEX_BITSET_MATCH_ANY) == 0)
        return 0;
    /* EAGAIN (value changed) is "re-check and carry on", like a wake-up; EINTR is the caller's choice. */
    return errno == ETIMEDOUT || errno == EINVAL || errno == EINTR ? errno : 0;
}

void ll_yield(void) { sched_yield(); }

void ll_sleep_ns(uint64_t ns)
{
    struct timespec t = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    /* the system call, not nanosleep(): glibc's nanosleep is a cancellation point, and a lock's
     * wait must not be one (a deferred cancel acting inside an acquire would leave the lock's
     * state half-changed: test_errors.c, "cancel"); glibc's syscall() is not */
    syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &t, NULL);
}

void ll_without_cancel(void (*fn)(void))
{
    int old;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
    fn();
    pthread_setcancelstate(old, &old);
}

/* The calling thread's policy as last asked, and when (ll_now_ns; 0: never). */
static __thread bool realtime __attribute__((tls_model("initial-exec")));
static __thread uint64_t realtime_asked_ns __attribute__((tls_model("initial-exec")));
enum { REALTIME_ASK_EVERY_NS = 1000000 };

bool ll_thread_realtime(void)
{
    uint64_t now = ll_now_ns();
    if (realtime_asked_ns == 0 || now - realtime_asked_ns >= REALTIME_ASK_EVERY_NS) {
        int policy = sched_getscheduler(0) & ~SCHED_RESET_ON_FORK;
        realtime = policy == SCHED_FIFO || policy == SCHED_RR || policy == SCHED_DEADLINE;
        realtime_asked_ns = now;
    }
    return realtime;
}

uint64_t ll_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
