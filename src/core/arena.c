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
 * - Fork: the prepare handler takes nothing.  It used to hold the arena's
 *   lock from the prepare phase to the parent and child handlers, and another
 *   library's prepare handler that runs after ours (it registered first: a
 *   constructor that ran before ours) could then wait for a mutex whose
 *   holder needed the arena (its first thread context, a lock object, a
 *   queue node): the fork waited for the holder and the holder for the fork,
 *   for ever.  No handler of ours can be sure to run last in the prepare
 *   phase (prepare handlers run in the reverse order of registration), so
 *   instead the child repairs what the fork may have cut in two: if another
 *   thread held the arena's lock at the fork (it is still taken in the child,
 *   where that thread does not exist), its work may be half done, so the child
 *   discards the arena's shared state (the current chunk, every pool's free
 *   list: leaked in the child, never given out twice), bumps the epoch
 *   (ll_arena_epoch: a caller's own state under the arena's lock, such as
 *   the interposer's registry of lock objects, is discarded with it) and
 *   frees the lock.  The repair runs at the child's first arena call
 *   (repair_if_child), which may come from a child handler registered before
 *   ours, or else in our child handler.  A fork while no other thread was
 *   inside the arena discards nothing.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "locklab/core.h"

static ll_atomic_u32 arena_lock;                   /* 0 free, 1 held */
static __thread unsigned held __attribute__((tls_model("initial-exec"))); /* this thread's depth */
static char *chunk_next, *chunk_end;               /* under arena_lock: the unused tail of the current chunk */
static uint32_t epoch;                             /* under arena_lock: bumped when a fork child discards the state */

/* Fork (header): 1 from our prepare handler until our parent or child handler;
 * forking_pid tells the child of that fork (another pid) from its parent. */
static ll_atomic_u32 forking, forking_pid;
enum { FORKING = 1, REPAIRING = 2 };

/* In the child of a fork, the first arena call (or our child handler) comes here with
 * the child's only thread, or with one a child handler started: one repairs, others
 * wait for it.  A lock still taken was taken by a thread of the parent. */
static LL_COLD void repair_child(void)
{
    uint32_t expected = FORKING;
    /* acquire: nothing to order (the child's memory is the fork's copy); the CAS elects the repairer */
    if (!ll_cas(&forking, &expected, REPAIRING, LL_ACQUIRE)) {
        uint32_t turns = 0;
        while (ll_load_acquire(&forking) != 0) /* acquire: pairs with the repairer's release store */
            ll_yield_turn(&turns);
        return;
    }
    /* relaxed: no thread of the child has taken it (they wait above; this one, if it holds
     * it, forked inside the arena, and it is its own) */
    if (held == 0 && ll_load_relaxed(&arena_lock) != 0) {
        chunk_next = chunk_end = NULL;       /* the next allocation maps a new chunk */
        epoch++;                             /* pools and callers' state: discarded at their next use */
        ll_store_relaxed(&arena_lock, 0);    /* relaxed: published by the release store below */
    }
    ll_store_release(&forking, 0); /* release: the repaired arena, for threads that waited above */
}

LL_INLINE void repair_if_child(void)
{
    /* acquire: the pid stored before it (fork_prepare); in the parent a thread that sees
     * FORKING finds its own pid there, the child of that fork another one */
    if (LL_UNLIKELY(ll_load_acquire(&forking) != 0) && ll_load_relaxed(&forking_pid) != (uint32_t)getpid())
        repair_child();
}

static void arena_acquire(void)
{
    if (held) {
        held++; /* this thread already owns the arena */
        return;
    }
    repair_if_child();
    held = 1;
    uint32_t turns = 0; /* a real-time caller naps: its holder may be a lower priority on this CPU */
    while (ll_load_relaxed(&arena_lock) != 0 || /* relaxed: a hint; the xchg decides */
           ll_xchg(&arena_lock, 1, LL_ACQUIRE) != 0) /* acquire: pairs with arena_release; see the arena as left */
        ll_yield_turn(&turns);
}

static void arena_release(void)
{
    if (--held == 0)
        ll_store_release(&arena_lock, 0); /* release: publish the chunk and free lists */
}

static void fork_prepare(void)
{
    ll_store_relaxed(&forking_pid, (uint32_t)getpid()); /* relaxed: published by the release below */
    ll_store_release(&forking, FORKING); /* release: our pid before the flag; pairs with repair_if_child */
}
static void fork_parent(void) { ll_store_relaxed(&forking, 0); /* relaxed: a thread that still reads FORKING finds its own pid */ }
static void fork_child(void)
{
    if (ll_load_relaxed(&forking) != 0) /* relaxed: the child's first arena call may have repaired already */
        repair_child();
}

/* Registered at load time, before any thread of the program can fork. */
__attribute__((constructor)) static void arena_register_fork_handlers(void)
{
    pthread_atfork(fork_prepare, fork_parent, fork_child);
}

uint32_t ll_arena_epoch(void) { return epoch; }

/* Out of memory (mmap fails): what a thread cannot lock without (its context, its queue
 * nodes: essential pools, ll_arena_alloc_essential) comes from this reserve, zeroed .bss that
 * costs no memory until used (a page at a time); everything else (lock objects, which have a
 * fallback, profile records, tables) gets NULL.  Not refilled: it carries a process through
 * memory exhaustion, where its threads' contexts and nodes are recycled (thread.c). */
static char reserve[LL_ARENA_RESERVE_BYTES] __attribute__((aligned(4096)));
static size_t reserve_used; /* under arena_lock; not reset by a fork child's repair (a half-done carve leaks) */

/* Under arena_lock. */
static void *carve_reserve(size_t bytes, size_t align)
{
    size_t at = (reserve_used + align - 1) & ~(align - 1);
    if (at > sizeof reserve || sizeof reserve - at < bytes)
        return NULL;
    reserve_used = at + bytes;
    return reserve + at;
}

/* Under arena_lock. */
static void *bump(size_t bytes, size_t align, bool essential)
{
    char *p = (char *)(((uintptr_t)chunk_next + align - 1) & ~(uintptr_t)(align - 1));
    if (chunk_next == NULL || p > chunk_end || (size_t)(chunk_end - p) < bytes) {
        size_t len = bytes > LL_ARENA_CHUNK_BYTES ? (bytes + 4095) & ~(size_t)4095 : LL_ARENA_CHUNK_BYTES;
        void *c = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (c == MAP_FAILED)
            return essential ? carve_reserve(bytes, align) : NULL; /* the chunk's tail stays usable */
        p = (char *)c; /* page-aligned, hence aligned for every align <= 4096; zeroed */
        chunk_end = p + len;
    }
    chunk_next = p + bytes;
    return p;
}

#define LINK(pool, block) (*(void **)(void *)((char *)(block) + (pool)->link))

/* Under arena_lock: pool's free list, empty if a fork child discarded it (header). */
static void **free_list(ll_arena_pool *pool)
{
    if (LL_UNLIKELY(pool->epoch != epoch)) {
        pool->free = NULL; /* blocks of the parent's: leaked */
        pool->epoch = epoch;
    }
    return &pool->free;
}

/* Under arena_lock: a recycled block of pool (if any), else a fresh one of
 * bytes (if bytes > 0), else NULL. */
static void *pop_or_bump(ll_arena_pool *pool, size_t bytes, size_t align, bool essential)
{
    void *b = pool ? *free_list(pool) : NULL;
    if (b)
        pool->free = LINK(pool, b);
    else if (bytes)
        b = bump(bytes, align, essential);
    return b;
}

static void *locked_pop_or_bump(ll_arena_pool *pool, size_t bytes, size_t align, bool essential)
{
    arena_acquire();
    void *b = pop_or_bump(pool, bytes, align, essential);
    arena_release();
    return b;
}

void *ll_arena_alloc(size_t bytes, size_t align) { return locked_pop_or_bump(NULL, bytes, align, false); }
void *ll_arena_alloc_essential(size_t bytes, size_t align) { return locked_pop_or_bump(NULL, bytes, align, true); }
void *ll_arena_get(ll_arena_pool *pool) { return locked_pop_or_bump(pool, pool->bytes, pool->align, pool->essential); }
void *ll_arena_take(ll_arena_pool *pool) { return locked_pop_or_bump(pool, 0, 0, false); }

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
    void **list = free_list(pool);
    LINK(pool, last) = *list;
    *list = first;
    arena_release();
}

void ll_arena_put(ll_arena_pool *pool, void *block)
{
    LINK(pool, block) = NULL; /* a list of one */
    ll_arena_put_list(pool, block);
}

void *ll_arena_install(ll_arena_pool *pool, ll_atomic_ptr *slot, bool (*init)(void *block, void *ctx), void *ctx)
{
    arena_acquire();
    void *b = ll_load_relaxed(slot); /* relaxed: under arena_lock, which ordered the installer's store */
    if (b == NULL && (b = pop_or_bump(pool, pool->bytes, pool->align, pool->essential)) != NULL) {
        memset(b, 0, pool->bytes);
        if (init(b, ctx)) {
            ll_store_release(slot, b); /* release: the initialised block before its pointer */
        } else {
            LINK(pool, b) = *free_list(pool); /* back to the pool; the slot stays empty */
            pool->free = b;
            b = NULL;
        }
    }
    arena_release();
    return b;
}
