/*
 * fork(): the child can lock every mutex that was unlocked at fork time, one
 * the parent held before and released, one never used, a recursive one, and
 * one a parent thread was hammering until just before the fork.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static pthread_mutex_t used = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t never_used = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t recursive = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static pthread_mutex_t contended = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 20000; i++) {
        pthread_mutex_lock(&contended);
        counter++;
        pthread_mutex_unlock(&contended);
    }
    return NULL;
}

static int child(void)
{
    int bad = 0;
    bad |= pthread_mutex_lock(&used) != 0;
    bad |= pthread_mutex_unlock(&used) != 0;
    bad |= pthread_mutex_trylock(&never_used) != 0;
    bad |= pthread_mutex_unlock(&never_used) != 0;
    bad |= pthread_mutex_lock(&recursive) != 0;
    bad |= pthread_mutex_lock(&recursive) != 0;
    bad |= pthread_mutex_unlock(&recursive) != 0;
    bad |= pthread_mutex_unlock(&recursive) != 0;
    bad |= pthread_mutex_lock(&contended) != 0;
    bad |= pthread_mutex_unlock(&contended) != 0;
    /* The child can start threads that use the mutexes, too. */
    test_run_threads(2, worker, NULL, 0);
    return bad ? 3 : 0;
}

int main(void)
{
    require_interposed((void *)pthread_mutex_lock);
    CHECK_EQ(pthread_mutex_lock(&used), 0);
    CHECK_EQ(pthread_mutex_unlock(&used), 0);
    test_run_threads(2, worker, NULL, 0);
    for (int round = 0; round < 3; round++) {
        pid_t pid = fork();
        if (pid == 0)
            _exit(child());
        int status = -1;
        CHECK_EQ(waitpid(pid, &status, 0), pid);
        CHECK(WIFEXITED(status));
        CHECK_EQ(WEXITSTATUS(status), 0);
    }
    return check_done("test_fork");
}
