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
#include <sys/mman.h>
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

static char *chunk_next, *chunk_end; /* under slab_mutex: the unused tail of the current chunk */

/* Zeroed, LL_SECTOR-aligned memory, never freed; the caller holds slab_mutex.
 * From mmap, never malloc: a thread's first lock acquisition lands here, and
 * under the LD_PRELOAD interposer that acquisition may come from inside a
 * malloc replacement that locks a pthread mutex (jemalloc does): calling
 * malloc here would re-enter that mutex and deadlock on slab_mutex. */
static void *slab_alloc(size_t bytes)
{
    enum { CHUNK_BYTES = 64 * 1024 };
    bytes = (bytes + LL_SECTOR - 1) / LL_SECTOR * LL_SECTOR;
    if ((size_t)(chunk_end - chunk_next) < bytes) {
        size_t len = bytes > CHUNK_BYTES ? bytes : CHUNK_BYTES;
        void *c = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (c == MAP_FAILED)
            abort(); /* out of memory in the lock library: nothing sane to do */
        chunk_next = (char *)c; /* page-aligned, hence LL_SECTOR-aligned; zeroed */
        chunk_end = chunk_next + len;
    }
    void *p = chunk_next;
    chunk_next += bytes;
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
    enum { BATCH = 16 };
    char *block = NULL;
    pthread_mutex_lock(&slab_mutex);
    free_node *n = free_qnodes;
    if (n)
        free_qnodes = *link_of(n);
    else
        block = (char *)slab_alloc((size_t)BATCH * LL_QNODE_BYTES);
    pthread_mutex_unlock(&slab_mutex);
    if (!n) {
        for (int i = 1; i < BATCH; i++)
            ll_qnode_put(block + (size_t)i * LL_QNODE_BYTES);
        n = (free_node *)(void *)block;
    }
    return n;
}
