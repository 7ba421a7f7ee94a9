/*
 * fork(): the child can lock every mutex that was unlocked at fork time, one
 * the parent held before and released, one never used, a recursive one, and
 * one a parent thread was hammering until just before the fork.  With acr (the
 * default), also the pthread_atfork pattern: a mutex the forking
 * thread holds while a parent thread waits for it (queued, asleep, impatient)
 * is unlocked, relocked and used by new threads in the child, as with glibc.
 * The other locks with waiter records (loiter, mcs-stp, mcscr-stp, ...) do not
 * support that: the child's unlock may hand the mutex to the parent's waiter,
 * which the child does not have (docs/interposer.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static pthread_mutex_t used = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t never_used = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t recursive = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static pthread_mutex_t contended = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static long counter, held_counter;

static void *held_waiter(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&held);
    pthread_mutex_unlock(&held);
    return NULL;
}

/* 20000 increments of *counter under *m: the threads a child (or the parent) starts. */
typedef struct counted {
    pthread_mutex_t *m;
    long *counter;
} counted;
static counted held_count = {&held, &held_counter}, contended_count = {&contended, &counter};

static void *count_worker(void *arg)
{
    counted *c = (counted *)arg;
    for (int i = 0; i < 20000; i++) {
        pthread_mutex_lock(c->m);
        (*c->counter)++;
        pthread_mutex_unlock(c->m);
    }
    return NULL;
}

/* The parent's side of a fork: the child exited, with status 0. */
static void check_child(pid_t pid)
{
    int status = -1;
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    CHECK(WIFEXITED(status));
    CHECK_EQ(WEXITSTATUS(status), 0);
}

/* The atfork pattern: fork while holding `held`, with a parent thread queued on it. */
static void fork_while_held(void)
{
    CHECK_EQ(pthread_mutex_lock(&held), 0);
    pthread_t waiter;
    CHECK_EQ(pthread_create(&waiter, NULL, held_waiter, NULL), 0);
    usleep(30000); /* the waiter queues, sleeps, and (patience 1 ms) turns impatient */
    pid_t pid = fork();
    if (pid == 0) {
        alarm(20); /* a hang is a failure, not a stuck test */
        int bad = pthread_mutex_unlock(&held) != 0;
        bad |= pthread_mutex_lock(&held) != 0;
        bad |= pthread_mutex_unlock(&held) != 0;
        test_run_threads(2, count_worker, &held_count, 0);
        _exit(bad || held_counter != 40000 ? 3 : 0);
    }
    CHECK_EQ(pthread_mutex_unlock(&held), 0);
    CHECK_EQ(pthread_join(waiter, NULL), 0);
    check_child(pid);
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
    test_run_threads(2, count_worker, &contended_count, 0);
    return bad ? 3 : 0;
}

int main(void)
{
    require_interposed((void *)pthread_mutex_lock);
    CHECK_EQ(pthread_mutex_lock(&used), 0);
    CHECK_EQ(pthread_mutex_unlock(&used), 0);
    test_run_threads(2, count_worker, &contended_count, 0);
    for (int round = 0; round < 3; round++) {
        pid_t pid = fork();
        if (pid == 0)
            _exit(child());
        check_child(pid);
    }
    const char *lock = getenv("LOCKLAB_LOCK");
    if (lock == NULL || *lock == '\0' || strncmp(lock, "acr", 3) == 0)
        fork_while_held();
    return check_done("test_fork");
}
