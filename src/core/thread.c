/*
 * Per-thread context: parker, queue-node cache, PRNG, index.
 *
 * Contexts and queue nodes come from never-freed slabs and are recycled when
 * a thread exits (pthread key destructor).  Releasers may touch a waiter's
 * parker or node after that waiter has moved on; recycled memory keeps such a
 * late touch harmless (a spurious wake-up, which every waiter re-checks).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "locklab/core.h"

__thread ll_thread *ll_self_tls __attribute__((tls_model("initial-exec")));

/* A free queue node is linked through its last word (LL_QNODE_LINK), which no
 * lock uses, so a late reader of a recycled node's lock fields never races with the pool. */
typedef struct free_node free_node;
static free_node **link_of(free_node *n) { return (free_node **)&LL_QNODE_LINK(n); }

/* Cold paths below take this mutex (glibc's, never interposed by us: this
 * file is compiled into the library, and the interposer uses its own path). */
static pthread_mutex_t slab_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;
static ll_thread *free_threads;      /* recycled contexts (linked via free_nodes) */
static free_node *free_qnodes;       /* nodes returned by exited threads */
static uint32_t next_index;

static void *slab_alloc(size_t bytes)
{
    void *p = NULL;
    if (posix_memalign(&p, LL_SECTOR, bytes) != 0)
        abort(); /* out of memory in the lock library: nothing sane to do */
    memset(p, 0, bytes);
    return p;
}

static void thread_exit(void *arg)
{
    ll_thread *t = (ll_thread *)arg;
    pthread_mutex_lock(&slab_mutex);
    free_node *n = (free_node *)t->free_nodes;
    while (n) {
        free_node *next = *link_of(n);
        *link_of(n) = free_qnodes;
        free_qnodes = n;
        n = next;
    }
    t->free_nodes = (void *)free_threads;
    free_threads = t;
    pthread_mutex_unlock(&slab_mutex);
    ll_self_tls = NULL;
}

static void make_exit_key(void) { pthread_key_create(&exit_key, thread_exit); }

ll_thread *ll_thread_init(void)
{
    pthread_once(&exit_key_once, make_exit_key);
    pthread_mutex_lock(&slab_mutex);
    ll_thread *t = free_threads;
    if (t) {
        free_threads = (ll_thread *)t->free_nodes;
    } else {
        struct slot { ll_parker parker; ll_thread thread; };
        struct slot *s = (struct slot *)slab_alloc(sizeof(struct slot)); /* never freed */
        t = &s->thread;
        t->parker = &s->parker;
    }
    uint32_t index = next_index++;
    pthread_mutex_unlock(&slab_mutex);

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
    pthread_mutex_lock(&slab_mutex);
    free_node *n = free_qnodes;
    if (n)
        free_qnodes = *link_of(n);
    pthread_mutex_unlock(&slab_mutex);
    if (!n) {
        enum { BATCH = 16 };
        char *block = (char *)slab_alloc((size_t)BATCH * LL_QNODE_BYTES);
        for (int i = 1; i < BATCH; i++)
            ll_qnode_put(block + (size_t)i * LL_QNODE_BYTES);
        n = (free_node *)(void *)block;
    }
    return n;
}
