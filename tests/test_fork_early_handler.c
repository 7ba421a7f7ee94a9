/* A pthread_atfork child handler registered before liblocklab's (a constructor of priority 101,
 * statically linked: it runs first, so its child handler runs before the library's) unlocks a
 * standby lock whose state word names a parent thread as its impatient standby.  The child must
 * see that role as vacant (ll_fork_generation_now: the child's generation already), free the
 * lock, and take it again; a release that handed the lock to the parent's standby would leave it
 * owned by a thread the child does not have (a hang). */
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "locklab/core.h"
#include "locklab/standby.h"

static ll_standby_lock m = LL_STANDBY_INITIALIZER;
static void child_unlock(void) { ll_standby_release(&m, NULL); }
__attribute__((constructor(101))) static void register_early(void) { pthread_atfork(NULL, NULL, child_unlock); }

int main(void)
{
    ll_standby_acquire(&m, NULL);
    /* what a child inherits when another thread is the impatient standby: SPIN|IMPATIENT|ACT, generation 0 */
    ll_store_relaxed(&m.state, 2u | 8u | LL_STANDBY_ACT);
    pid_t pid = fork();
    if (pid == 0) {
        bool ok = ll_load_relaxed(&m.locked) == 0 && ll_standby_acquire_until(&m, ll_now_ns() + 1000000000ull);
        _exit(ok ? 0 : 1);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    bool ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
    printf("%s standby: a child handler that runs before the library's frees a lock whose standby was a parent thread\n",
           ok ? "ok  " : "FAIL");
    return ok ? 0 : 1;
}
