/*
 * A CLOCK_REALTIME of this process only, which a test may set without
 * CAP_SYS_TIME (run_tests.sh clockset, test_clockset.c): preloaded before the
 * interposer, its clock_settime(CLOCK_REALTIME) records an offset instead of
 * setting the system's clock, and its clock_gettime(CLOCK_REALTIME) adds that
 * offset; every other clock is the kernel's.  The kernel knows nothing of the
 * offset, so it only tests code that reads the clock itself (the interposer's
 * timed mutex locks), not waits the kernel times (FUTEX_CLOCK_REALTIME).
 * The test program checks that this library is loaded (fakeclock_loaded) before
 * it sets the clock: without it, as root, it would set the machine's clock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int fakeclock_loaded = 1;
static _Atomic long long offset_ns; /* added to CLOCK_REALTIME */

static long long ns_of(const struct timespec *t) { return (long long)t->tv_sec * 1000000000LL + t->tv_nsec; }

int clock_gettime(clockid_t clock, struct timespec *t)
{
    if (syscall(SYS_clock_gettime, clock, t) != 0) /* the kernel's, not the vDSO: no recursion */
        return -1;
    if (clock == CLOCK_REALTIME) {
        long long ns = ns_of(t) + atomic_load(&offset_ns);
        t->tv_sec = (time_t)(ns / 1000000000LL);
        t->tv_nsec = (long)(ns % 1000000000LL);
    }
    return 0;
}

int clock_settime(clockid_t clock, const struct timespec *t)
{
    struct timespec real;
    if (clock != CLOCK_REALTIME || syscall(SYS_clock_gettime, CLOCK_REALTIME, &real) != 0) {
        errno = EINVAL;
        return -1;
    }
    atomic_store(&offset_ns, ns_of(t) - ns_of(&real));
    return 0;
}
