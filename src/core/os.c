/* OS hooks of the core layer: futex, yield, monotonic clock (Linux). */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "locklab/core.h"

void ll_futex_wait(ll_atomic_u32 *word, uint32_t expected)
{
    /* EAGAIN (value changed) and EINTR are both "re-check and carry on". */
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

void ll_futex_wake(ll_atomic_u32 *word, int n)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

void ll_yield(void) { sched_yield(); }

uint64_t ll_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
