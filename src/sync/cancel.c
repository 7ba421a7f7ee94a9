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

typedef struct cancel_context {
    ll_sync_list *l;
    struct ll_sync_waiter *w;
    ll_sync_cancelled_fn *cancelled;
    void *obj;
} cancel_context;

static void run_cancelled(void *arg)
{
    cancel_context *cc = (cancel_context *)arg;
    cc->cancelled(cc->l, cc->w, cc->obj);
}

int ll_sync_block_cancellable(ll_sync_list *l, struct ll_sync_waiter *w, clockid_t clock,
                              const struct timespec *abstime, unsigned opts, ll_sync_cancelled_fn *cancelled, void *obj)
{
    int rc;
    cancel_context cc = {l, w, cancelled, obj};
    pthread_cleanup_push(run_cancelled, &cc);
    rc = ll_sync_block(l, w, clock, abstime, opts | LL_SYNC_CANCEL);
    pthread_cleanup_pop(0);
    return rc;
}
