/*
 * Per-thread context: parker, queue-node cache, PRNG, index.
 *
 * Contexts and queue nodes come from the arena (never freed) and are recycled
 * when a thread exits (pthread key destructor); out of memory, from the arena's
 * reserve (core.h), and only once that is spent does a thread abort.  Releasers may touch a
 * waiter's parker or node after that waiter has moved on; recycled memory
 * keeps such a late touch harmless (a spurious wake-up, which every waiter
 * re-checks).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "locklab/core.h"

__thread ll_thread *ll_self_tls __attribute__((tls_model("initial-exec")));

/* A context and its parker, allocated together; a free slot is linked through
 * thread.free_nodes.  A free queue node is linked through its last word
 * (LL_QNODE_LINK), which no lock uses, so a late reader of a recycled node's
 * lock fields never races with the pool. */
typedef struct slot {
    ll_parker parker;
    ll_thread thread;
} slot;
static ll_arena_pool slots = LL_ARENA_POOL_ESSENTIAL(sizeof(slot), LL_SECTOR, offsetof(slot, thread.free_nodes));
static ll_arena_pool qnodes = LL_ARENA_POOL(LL_QNODE_BYTES, LL_SECTOR, LL_QNODE_USABLE); /* nodes of exited threads */

static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;
static ll_atomic_u32 next_index;

static void thread_exit(void *arg)
{
    ll_thread *t = (ll_thread *)arg;
    ll_arena_put_list(&qnodes, t->free_nodes); /* the cache is linked through LL_QNODE_LINK too */
    ll_arena_put(&slots, (char *)t - offsetof(slot, thread));
    ll_self_tls = NULL;
}

static void make_exit_key(void) { pthread_key_create(&exit_key, thread_exit); }

/* Out of memory and the arena's reserve spent (core.h): a thread that cannot have a context
 * or a queue node cannot lock at all.  One line, then abort. */
static LL_COLD __attribute__((noreturn)) void out_of_reserve(const char *what)
{
    static const char head[] = "locklab: out of memory for ";
    static const char tail[] = " (mmap failed and the arena's reserve is spent)\n";
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL); /* write() is a cancellation point; we abort anyway */
    (void)!write(2, head, sizeof head - 1);
    (void)!write(2, what, strlen(what));
    (void)!write(2, tail, sizeof tail - 1);
    abort();
}

ll_thread *ll_thread_init(void)
{
    pthread_once(&exit_key_once, make_exit_key);
    slot *s = (slot *)ll_arena_get(&slots);
    if (s == NULL)
        out_of_reserve("a thread context");
    ll_thread *t = &s->thread;
    t->parker = &s->parker;
    uint32_t index = ll_faa(&next_index, 1, LL_RELAXED); /* relaxed: only uniqueness matters */

    t->free_nodes = NULL;
    t->index = index;
    t->parker->id = index;
    ll_store_relaxed(&t->parker->state, LL_PARKER_RUN);
    uint64_t seed = (ll_now_ns() ^ ((uint64_t)index << 32) ^ (uint64_t)(uintptr_t)t) * 0x9E3779B97F4A7C15ull;
    t->rng = seed ? seed : 1;
    ll_self_tls = t;
    pthread_setspecific(exit_key, t);
    return t;
}

/* The per-thread cache is empty: take a node from exited threads, or carve new ones. */
void *ll_qnode_refill(void)
{
    enum { BATCH = 16 };
    void *n = ll_arena_take(&qnodes);
    if (n)
        return n;
    int batch = BATCH;
    char *block = (char *)ll_arena_alloc((size_t)BATCH * LL_QNODE_BYTES, LL_SECTOR);
    if (block == NULL) { /* out of memory: one node at a time from the reserve */
        batch = 1;
        block = (char *)ll_arena_alloc_essential(LL_QNODE_BYTES, LL_SECTOR);
    }
    if (block == NULL)
        out_of_reserve("a queue node");
    for (int i = 1; i < batch; i++)
        ll_qnode_put(block + (size_t)i * LL_QNODE_BYTES);
    return block;
}
