/*
 * The arena across fork() (src/core/arena.c, "Fork"): a fork while another
 * thread is inside the arena.
 *
 * A thread installs a block whose init waits, under the arena's lock, until
 * the fork has returned in the parent, after taking a block from a pool and
 * carving a fresh one (a thread caught in the middle of the arena's work).
 *   - The parent's fork must not wait for it: the arena's prepare handler used
 *     to take the arena's lock, so the fork waited for that thread, which
 *     waited for the fork (a hang: the alarm fails the test).
 *   - The child, where that thread does not exist and the arena's lock is
 *     still taken, must use the arena as if nothing happened: allocate, get
 *     and put pool blocks, install, start threads (their contexts come from
 *     the arena); blocks must be distinct from each other and from those the
 *     vanished thread had taken, and zeroed where fresh.
 *   - Both from a child handler that runs before the arena's own (registered
 *     first, by a high-priority constructor) and from the child's main code.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "locklab/core.h"
#include "test_util.h"

enum { BLOCK = 256, N = 64 };
static ll_arena_pool pool = LL_ARENA_POOL(BLOCK, 64, 0);
static ll_atomic_ptr slot_parent, slot_child;
static ll_atomic_u32 inside, forked;
static void *taken_by_vanished[2]; /* what the thread inside the arena took before the fork */
static const size_t taken_bytes[2] = {BLOCK, 3 * BLOCK};

static bool wait_for_fork(void *block, void *ctx)
{
    (void)block;
    (void)ctx;
    taken_by_vanished[0] = ll_arena_take(&pool);            /* recursive: a recycled block */
    taken_by_vanished[1] = ll_arena_alloc(3 * BLOCK, 64);    /* a fresh one */
    ll_store_release(&inside, 1); /* release: taken_by_vanished before the fork reads it */
    while (!ll_load_acquire(&forked)) /* acquire: nothing but the fact */
        usleep(1000);
    return true;
}

static void *enter_arena(void *arg)
{
    (void)arg;
    ll_arena_install(&pool, &slot_parent, wait_for_fork, NULL);
    return NULL;
}

static bool no_init(void *block, void *ctx)
{
    (void)ctx;
    memset(block, 0x5a, BLOCK);
    return true;
}

static void *child_thread(void *arg)
{
    (void)arg;
    ll_thread *t = ll_self();
    void *node = ll_qnode_get();
    ll_qnode_put(node);
    return t != NULL && node != NULL ? (void *)1 : NULL;
}

/* In the child: the arena works, and gives out nothing twice. */
static int use_arena(const char *where)
{
    int bad = 0;
    void *got[N];
    for (int i = 0; i < N; i++) {
        got[i] = i % 2 ? ll_arena_get(&pool) : ll_arena_alloc(BLOCK, 64);
        if (got[i] == NULL) {
            fprintf(stderr, "%s: allocation %d failed\n", where, i);
            return 1;
        }
        if (i % 2 == 0)
            for (int b = 0; b < BLOCK; b++)
                bad |= ((unsigned char *)got[i])[b] != 0;
        memset(got[i], 0xee, BLOCK);
    }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            bad |= i != j && got[i] == got[j];
    for (int i = 0; i < N; i++)
        for (int k = 0; k < 2; k++)
            bad |= taken_by_vanished[k] && (char *)got[i] < (char *)taken_by_vanished[k] + taken_bytes[k] &&
                   (char *)got[i] + BLOCK > (char *)taken_by_vanished[k];
    for (int i = 1; i < N; i += 2)
        ll_arena_put(&pool, got[i]);
    if (bad)
        fprintf(stderr, "%s: the arena gave out a block twice, or a fresh one not zeroed\n", where);
    return bad;
}

static volatile int early_bad = -1;
static void early_child_handler(void) { early_bad = use_arena("child handler before the arena's"); }
__attribute__((constructor(101))) static void register_early(void) { pthread_atfork(NULL, NULL, early_child_handler); }

static int child(void)
{
    alarm(10);
    int bad = early_bad != 0;
    if (ll_arena_epoch() == 0) { /* the child's only thread: no lock needed to read it */
        fprintf(stderr, "child: the arena was not repaired (its lock was taken at the fork)\n");
        bad = 1;
    }
    bad |= use_arena("child");
    void *b = ll_arena_install(&pool, &slot_child, no_init, NULL);
    bad |= b == NULL || ((unsigned char *)b)[0] != 0x5a;
    pthread_t t;
    void *ok = NULL;
    test_start(&t, child_thread, NULL);
    pthread_join(t, &ok);
    bad |= ok == NULL;
    return bad ? 3 : 0;
}

int main(void)
{
    /* Some recycled blocks in the pool, and this thread's context, before the fork. */
    void *warm[8];
    for (int i = 0; i < 8; i++)
        warm[i] = ll_arena_get(&pool);
    for (int i = 0; i < 8; i++)
        ll_arena_put(&pool, warm[i]);
    ll_self();
    alarm(30); /* a fork that waits for the thread inside the arena never returns */
    pthread_t t;
    test_start(&t, enter_arena, NULL);
    while (!ll_load_acquire(&inside)) /* acquire: pairs with the release in wait_for_fork */
        usleep(1000);
    pid_t pid = fork();
    if (pid == 0)
        _exit(child());
    ll_store_release(&forked, 1); /* release: nothing but the fact */
    int status = -1;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "fork or waitpid failed");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d (signal %d)", WEXITSTATUS(status),
          WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    pthread_join(t, NULL);
    CHECK(ll_load_acquire(&slot_parent) != NULL, "the parent's install did not finish");
    return test_done("arena_fork");
}
