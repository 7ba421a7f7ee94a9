/*
 * The arena: the one allocator of memory that lives as long as the process
 * (thread contexts and queue nodes, the interposer's lock objects and profile
 * records).  Declared in core.h.
 *
 * - From mmap, never malloc: a thread's first lock acquisition allocates here,
 *   and under the LD_PRELOAD interposer that acquisition may come from inside
 *   a malloc replacement that locks a pthread mutex (jemalloc does); calling
 *   malloc here would re-enter it.
 * - Never returned to the OS: a releaser that touches a waiter's parker or
 *   node after the waiter moved on reads valid memory.
 * - One lock, a test-and-set lock with yield (cold paths only; no pthread
 *   mutex, so nothing here can call back into the interposer that serves
 *   pthread_mutex_* on top of this arena).  It is recursive per thread:
 *   ll_arena_install runs its caller's init under it, and that init may
 *   allocate again (a profile record, a queue node).
 * - Fork: the forking thread owns the arena from the prepare handler until
 *   the parent and child handlers.  Another library's fork handler, run after
 *   ours in the prepare phase, may lock a mutex that has no lock object yet:
 *   it then allocates as the owner (recursion), and no other thread can be
 *   inside the arena when the child is created.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

#include "locklab/core.h"

static ll_atomic_u32 arena_lock;                   /* 0 free, 1 held */
static __thread unsigned held __attribute__((tls_model("initial-exec"))); /* this thread's depth */
static char *chunk_next, *chunk_end;               /* under arena_lock: the unused tail of the current chunk */

static void arena_acquire(void)
{
    if (held++)
        return; /* this thread already owns the arena */
    while (ll_load_relaxed(&arena_lock) != 0 || /* relaxed: a hint; the xchg decides */
           ll_xchg(&arena_lock, 1, LL_ACQUIRE) != 0) /* acquire: pairs with arena_release; see the arena as left */
        ll_yield();
}

static void arena_release(void)
{
    if (--held == 0)
        ll_store_release(&arena_lock, 0); /* release: publish the chunk and free lists */
}

/* Registered at load time, before any thread of the program can fork. */
__attribute__((constructor)) static void arena_register_fork_handlers(void)
{
    pthread_atfork(arena_acquire, arena_release, arena_release); /* the child has only the forking thread */
}

/* Under arena_lock. */
static void *bump(size_t bytes, size_t align)
{
    char *p = (char *)(((uintptr_t)chunk_next + align - 1) & ~(uintptr_t)(align - 1));
    if (chunk_next == NULL || p > chunk_end || (size_t)(chunk_end - p) < bytes) {
        size_t len = bytes > LL_ARENA_CHUNK_BYTES ? (bytes + 4095) & ~(size_t)4095 : LL_ARENA_CHUNK_BYTES;
        void *c = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (c == MAP_FAILED)
            return NULL;
        p = (char *)c; /* page-aligned, hence aligned for every align <= 4096; zeroed */
        chunk_end = p + len;
    }
    chunk_next = p + bytes;
    return p;
}

#define LINK(pool, block) (*(void **)(void *)((char *)(block) + (pool)->link))

/* Under arena_lock: a recycled block of pool (if any), else a fresh one of
 * bytes (if bytes > 0), else NULL. */
static void *pop_or_bump(ll_arena_pool *pool, size_t bytes, size_t align)
{
    void *b = pool ? pool->free : NULL;
    if (b)
        pool->free = LINK(pool, b);
    else if (bytes)
        b = bump(bytes, align);
    return b;
}

static void *locked_pop_or_bump(ll_arena_pool *pool, size_t bytes, size_t align)
{
    arena_acquire();
    void *b = pop_or_bump(pool, bytes, align);
    arena_release();
    return b;
}

void *ll_arena_alloc(size_t bytes, size_t align) { return locked_pop_or_bump(NULL, bytes, align); }
void *ll_arena_get(ll_arena_pool *pool) { return locked_pop_or_bump(pool, pool->bytes, pool->align); }
void *ll_arena_take(ll_arena_pool *pool) { return locked_pop_or_bump(pool, 0, 0); }

void ll_arena_lock(void) { arena_acquire(); }
void ll_arena_unlock(void) { arena_release(); }

void ll_arena_put_list(ll_arena_pool *pool, void *first)
{
    if (first == NULL)
        return;
    void *last = first;
    while (LINK(pool, last) != NULL) /* the caller's own list: no lock needed to walk it */
        last = LINK(pool, last);
    arena_acquire();
    LINK(pool, last) = pool->free;
    pool->free = first;
    arena_release();
}

void ll_arena_put(ll_arena_pool *pool, void *block)
{
    LINK(pool, block) = NULL; /* a list of one */
    ll_arena_put_list(pool, block);
}

void *ll_arena_install(ll_arena_pool *pool, ll_atomic_ptr *slot, void (*init)(void *block, void *ctx), void *ctx)
{
    arena_acquire();
    void *b = ll_load_relaxed(slot); /* relaxed: under arena_lock, which ordered the installer's store */
    if (b == NULL && (b = pop_or_bump(pool, pool->bytes, pool->align)) != NULL) {
        memset(b, 0, pool->bytes);
        init(b, ctx);
        ll_store_release(slot, b); /* release: the initialised block before its pointer */
    }
    arena_release();
    return b;
}
