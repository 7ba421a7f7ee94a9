/*
 * Waits that are POSIX cancellation points (LL_SYNC_CANCEL): the interposer's
 * pthread_cond_*wait and sem_*wait.  The one file of the sync layer that uses
 * pthreads, so that the rest compiles against any threads backend.
 *
 * The sleep itself is cancellable (ll_parker_park_opts, LL_PARK_CANCEL:
 * asynchronous cancellation around the futex syscall, as glibc does for its
 * own waits); a cancellation acted on there unwinds through
 * ll_sync_block_cancellable, whose cleanup handler runs the caller's
 * `cancelled` (leave the wait list, pass on a wake-up already consumed,
 * re-take the mutex) before the thread's own handlers run.
 */
#include <pthread.h>

#include "waitlist.h"

int ll_sync_block_cancellable(ll_sync_list *l, struct ll_sync_waiter *w, clockid_t clock,
                              const struct timespec *abstime, unsigned opts, void (*cancelled)(void *), void *arg)
{
    int rc;
    pthread_cleanup_push(cancelled, arg);
    rc = ll_sync_block(l, w, clock, abstime, opts | LL_SYNC_CANCEL);
    pthread_cleanup_pop(0);
    return rc;
}
