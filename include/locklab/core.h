/*
 * locklab core: the operating-system services lock algorithms may use, and the
 * per-thread context (parker, queue-node cache, PRNG, socket).
 *
 * Like atomics.h, this is a seam: a simulator build provides its own
 * ll_futex_wait/ll_futex_wake/ll_yield/ll_now_ns and everything above it
 * (parker, waiting policies, locks) recompiles unchanged.
 */
#ifndef LOCKLAB_CORE_H
#define LOCKLAB_CORE_H

#include <time.h>

#include "atomics.h"

LL_API_BEGIN

/* ---- OS hooks (src/core/os.c) -------------------------------------------- */
/* Sleep while *word == expected (returns on wake, on mismatch, or spuriously). */
void ll_futex_wait(ll_atomic_u32 *word, uint32_t expected);
/* Wake up to n threads sleeping in ll_futex_wait on word. */
void ll_futex_wake(ll_atomic_u32 *word, int n);
/* Two wake-ups in one system call (FUTEX_WAKE_OP), atomically: store set_to in *b, wake
 * one thread sleeping on a, and, if *b held was, one sleeping on b.  set_to and was must
 * fit in 12 bits.  false: the call failed (a sandbox that forbids it, an emulator that
 * lacks it) and did nothing; the caller wakes both another way. */
bool ll_futex_wake_two(ll_atomic_u32 *a, ll_atomic_u32 *b, uint32_t set_to, uint32_t was);
/* Sleep while *word == expected, at most until the absolute time abstime on
 * clock (CLOCK_REALTIME or CLOCK_MONOTONIC; abstime NULL: no deadline).
 * Returns 0 (woken, mismatch or spurious), ETIMEDOUT, EINTR (a signal handler
 * ran: always for a deadline, and without one only for a handler installed
 * without SA_RESTART, which the kernel does not restart), or EINVAL (a clock or
 * abstime the kernel rejects). */
int ll_futex_wait_until(ll_atomic_u32 *word, uint32_t expected, clockid_t clock, const struct timespec *abstime);
void ll_yield(void);
uint64_t ll_now_ns(void); /* monotonic clock */
/* Sleep about ns nanoseconds (less if a signal handler runs).  Unlike ll_yield, this lets
 * threads of a lower real-time priority run.  Not a cancellation point. */
void ll_sleep_ns(uint64_t ns);
/* Run fn with the caller's cancellation disabled: for the one-time set-ups a lock's first use
 * may run (reading sysfs and cgroup files, joining the park-cost threads: cancellation points),
 * which must not make a lock acquisition a cancellation point. */
void ll_without_cancel(void (*fn)(void));
/* Does the calling thread run under a real-time policy (SCHED_FIFO, SCHED_RR,
 * SCHED_DEADLINE)?  Then ll_yield never lets a lower-priority thread run, and a
 * thread that spins can starve a lower-priority lock holder on its CPU forever.
 * Cached per thread and asked again (sched_getscheduler) when the answer is over
 * 1 ms old, so a pthread_setschedparam is noticed within a millisecond. */
bool ll_thread_realtime(void);
/* A real-time caller's n-th nap in a wait that cannot park: 1 us << n, at most 1 ms. */
LL_INLINE uint64_t ll_realtime_nap_ns(uint32_t n) { return n >= 10 ? 1000000u : 1000u << n; }
/* One turn of a wait for another thread that cannot park (a spin on a flag the other
 * thread clears): ll_yield, or for a real-time caller, for which ll_yield never runs a
 * lower-priority thread (the one waited for may be one, on this CPU), a nap of
 * ll_realtime_nap_ns(*turns), counting the turns (start them at 0).  For the library's own
 * waits (the arena, the interposer's set-up); a lock's waits use the waiting engine's
 * ll_spin_steps (wait.h), whose naps also count as the chosen lock's real-time sleeps. */
LL_INLINE void ll_yield_turn(uint32_t *turns)
{
    if (ll_thread_realtime())
        ll_sleep_ns(ll_realtime_nap_ns((*turns)++));
    else
        ll_yield();
}
/* The calling thread's number of futex waits (parks) and wakes so far. */
void ll_futex_counts(uint64_t *waits, uint64_t *wakes);

/* What one park/unpark costs a waiter (median one-way futex wake-to-run
 * latency between two CPUs), measured once per process at first use by two
 * short-lived threads (src/core/parkcost.c); the default spin budget of the
 * stp/astp waiting policies (Karlin et al.: spin as long as blocking costs,
 * 2-competitive). */
uint64_t ll_park_cost_ns(void);

/* ---- fork (src/core/fork.c) --------------------------------------------------- */
/* Incremented in the child of every fork(): lock state tagged with an older value
 * describes waiters of threads the child does not have (acr.c, standby.c; the
 * interposer's mutex owner word, src/interpose/mutex.h).  Read it through
 * ll_fork_generation_now(): from our prepare handler until our parent or child
 * handler, bit LL_FORK_PENDING is set, and a child handler registered before ours
 * (which runs before it) must already see the child's generation. */
extern ll_atomic_u32 ll_fork_generation;
#define LL_FORK_PENDING 0x80000000u
uint32_t ll_fork_generation_pending(uint32_t g); /* cold: g has LL_FORK_PENDING */
LL_INLINE uint32_t ll_fork_generation_now(void)
{
    uint32_t g = ll_load_relaxed(&ll_fork_generation); /* relaxed: changes only around a fork */
    return LL_UNLIKELY(g & LL_FORK_PENDING) ? ll_fork_generation_pending(g) : g;
}

/* ---- Parker: a per-thread binary "wake permit" (src/core/parker.c) ------------
 *
 * state   meaning
 * -----   ---------------------------------------------------------------
 * RUN     owner is running (spinning or working); wakers do nothing
 * SLEEP   owner announced it may block in the kernel; a waker must flip the
 *         state to RUN and issue one futex wake
 *
 * Protocol (Dekker-style, no lost wake-ups):
 *   waiter: state=SLEEP; fence; re-check condition; futex_wait(state, SLEEP)
 *   waker:  publish condition; fence; if state==SLEEP && xchg(state,RUN)==SLEEP: wake
 * Either the waiter sees the published condition, or the waker sees SLEEP.
 * The wake syscall is issued only when the waiter really announced sleep.
 * Parkers are never freed (recycled when a thread exits), so a late waker
 * touching a parker whose thread has moved on causes at most a spurious
 * return, which every caller tolerates by re-checking its condition.
 */
enum { LL_PARKER_RUN = 0, LL_PARKER_SLEEP = 1 };
typedef struct ll_parker {
    LL_ALIGNED(LL_CACHELINE) ll_atomic_u32 state;
    uint32_t id; /* thread index, for debugging */
} ll_parker;

/* A waiting condition: true when the waiter may proceed (must read with acquire). */
typedef bool (*ll_ready_fn)(void *ctx);
/* Park on self once: announce, re-check ready(ctx), block until woken (or a
 * spurious return).  Returns ready(ctx).  A waker that publishes and then
 * unparks is never missed. */
bool ll_parker_park(ll_parker *self, ll_ready_fn ready, void *ctx);
/* Park until ready(ctx) holds. */
LL_INLINE void ll_parker_park_until(ll_parker *self, ll_ready_fn ready, void *ctx)
{
    while (!ll_parker_park(self, ready, ctx))
        ;
}
/* Park until ready(ctx) holds or the absolute time abstime on clock has
 * passed (see ll_futex_wait_until).  Returns true if ready, false on timeout
 * (an abstime the kernel rejects counts as already passed). */
bool ll_parker_park_deadline(ll_parker *self, ll_ready_fn ready, void *ctx, clockid_t clock,
                             const struct timespec *abstime);
/* Options of ll_parker_park_opts (POSIX waits of the interposer). */
enum {
    LL_PARK_EINTR = 1u,  /* a signal handler that interrupts the sleep ends the wait: EINTR */
    LL_PARK_CANCEL = 2u, /* the sleep is a POSIX cancellation point: asynchronous cancellation is
                          * enabled around the futex wait only, and a cancellation acted on there
                          * unwinds through the caller, which must have pushed a cleanup handler */
};
/* Park until ready(ctx) holds (0), the absolute time abstime on clock has
 * passed (ETIMEDOUT; also for an abstime the kernel rejects; NULL: no
 * deadline) or, with LL_PARK_EINTR, a signal handler interrupted the sleep
 * (EINTR, see ll_futex_wait_until). */
int ll_parker_park_opts(ll_parker *self, ll_ready_fn ready, void *ctx, clockid_t clock, const struct timespec *abstime,
                        unsigned opts);
/* Take back p's announcement of sleep: true if its owner slept (or was about to) and the
 * caller must wake it with a futex wake on p->state.  Call after the publish-before-check
 * fence of ll_parker_unpark. */
LL_INLINE bool ll_parker_claim(ll_parker *p)
{
    return ll_load_relaxed(&p->state) == LL_PARKER_SLEEP &&
           ll_xchg(&p->state, LL_PARKER_RUN, LL_RELAXED) == LL_PARKER_SLEEP; /* relaxed: ordered by the caller's fence */
}

/* Wake the owner of p if it announced sleep.  Call after publishing the condition. */
LL_INLINE void ll_parker_unpark(ll_parker *p)
{
    ll_fence(LL_SEQ_CST); /* publish-before-check: pairs with the fence in park */
    if (ll_parker_claim(p))
        ll_futex_wake(&p->state, 1);
}

/* Has p's owner announced that it sleeps (or is about to)?  A hint: relaxed. */
LL_INLINE bool ll_parker_sleeping(ll_parker *p)
{
    return ll_load_relaxed(&p->state) == LL_PARKER_SLEEP; /* relaxed: only a hint */
}

/* ---- Arena (src/core/arena.c) ------------------------------------------------
 * The one allocator of memory kept for the life of the process: mmap-backed
 * (never malloc), never returned to the OS, one lock (recursive per thread;
 * fork(): a child where another thread held it discards the arena's shared
 * state and frees it, arena.c).  Cold paths only. */
#define LL_ARENA_CHUNK_BYTES (1u << 20) /* mmap granularity (larger requests get their own mapping) */
/* Out of memory, essential blocks (below) come from a reserve of this many bytes (.bss). */
#define LL_ARENA_RESERVE_BYTES (256u << 10)
/* Zeroed memory of bytes, aligned to align (a power of two <= 4096); NULL if mmap fails. */
void *ll_arena_alloc(size_t bytes, size_t align);
/* ... and if mmap fails, from the reserve (thread contexts, queue nodes: what a thread
 * cannot lock without); NULL once that is spent too. */
void *ll_arena_alloc_essential(size_t bytes, size_t align);

/* A free list of fixed-size blocks for callers that reuse them.  A free block
 * is linked through the pointer at byte offset link, so a late reader of a
 * recycled block's other fields never races with the list. */
typedef struct ll_arena_pool {
    size_t bytes, align, link;
    void *free;     /* under the arena's lock */
    uint32_t epoch; /* under the arena's lock: free is valid while it equals ll_arena_epoch() */
    bool essential; /* fresh blocks from the reserve when mmap fails (ll_arena_alloc_essential) */
} ll_arena_pool;
#define LL_ARENA_POOL(bytes, align, link) { (bytes), (align), (link), NULL, 0, false }
#define LL_ARENA_POOL_ESSENTIAL(bytes, align, link) { (bytes), (align), (link), NULL, 0, true }
/* A recycled block (contents as its last user left them, but for the link)
 * or a fresh zeroed one; NULL if mmap fails. */
void *ll_arena_get(ll_arena_pool *pool);
/* A recycled block, or NULL if the pool has none. */
void *ll_arena_take(ll_arena_pool *pool);
void ll_arena_put(ll_arena_pool *pool, void *block);
/* Give back a NULL-terminated list already linked through the pool's link word. */
void ll_arena_put_list(ll_arena_pool *pool, void *first);
/* Hold the arena's lock (recursive per thread) across several calls, so that a
 * caller's own bookkeeping of blocks stays consistent with the pool (the
 * interposer's registry of lock objects). */
void ll_arena_lock(void);
void ll_arena_unlock(void);
/* Under the arena's lock: changes when a fork child discards the arena's state
 * because a thread that the child does not have held the lock at the fork (its
 * work may be half done).  A caller that keeps state of its own under the
 * arena's lock records the epoch with it and discards that state when the
 * epoch differs. */
uint32_t ll_arena_epoch(void);
/* The block *slot points to; at the first call for a slot, a zeroed block from
 * pool, prepared by init(block, ctx) and then published in *slot (release),
 * all under the arena's lock, so that racing first users agree on one block
 * without creating a spare (init may allocate from the arena again).  NULL if
 * mmap fails, or if init returns false (it could not prepare the block: the
 * block goes back to the pool and *slot stays NULL). */
void *ll_arena_install(ll_arena_pool *pool, ll_atomic_ptr *slot, bool (*init)(void *block, void *ctx), void *ctx);

/* ---- Per-thread context (src/core/thread.c) ---------------------------------- */
typedef struct ll_thread {
    ll_parker *parker;
    void *free_nodes;   /* per-thread cache of queue nodes (LL_QNODE_BYTES each) */
    uint64_t rng;       /* xorshift64 state, never 0 */
    uint32_t index;     /* 0,1,2,... in order of first use (virtual socket = index % N) */
} ll_thread;

extern __thread ll_thread *ll_self_tls __attribute__((tls_model("initial-exec")));
ll_thread *ll_thread_init(void);
#ifndef ll_self /* an atomics backend whose threads share one OS thread defines its own (atomics.h) */
LL_INLINE ll_thread *ll_self(void)
{
    ll_thread *t = ll_self_tls;
    return LL_LIKELY(t != NULL) ? t : ll_thread_init();
}
/* The calling thread's context, or NULL before its first ll_self: no call, for a fast path
 * that takes its slow path (which calls ll_self) on NULL. */
LL_INLINE ll_thread *ll_self_if_any(void) { return ll_self_tls; }
#else
#define ll_self_if_any() ll_self()
#endif

/* LL_THREAD_ELEMENT(T, name, zero) defines `T *name(void)`: the calling thread's one T,
 * zeroed when the thread starts, for an algorithm that keeps one wait element per
 * thread whatever the locks it holds (hemlock, reciprocating).  zero: T's all-zero
 * initialiser, a constant (a C++ build needs one for a __thread object whose
 * default constructor leaves fields unset).  Natively a static initial-exec
 * __thread variable, so name() costs what taking a thread-local's address does (no
 * call, no load of ll_self, no test).  An atomics backend whose threads share one OS
 * thread defines its own (atomics.h; the model checker keeps one T per modelled
 * thread). */
#ifndef LL_THREAD_ELEMENT
#define LL_THREAD_ELEMENT(T, name, ...)                                                          \
    static __thread T name##_tls __attribute__((tls_model("initial-exec"))) = __VA_ARGS__;      \
    LL_INLINE T *name(void) { return &name##_tls; }
#endif
/* LL_THREAD_ELEMENT_EXTERN(T, name) declares in a header the same `T *name(void)` for an
 * element that every translation unit shares (an inline fast path's and its slow path's);
 * LL_THREAD_ELEMENT_DEFINE(T, name, zero) defines it in one unit.  Natively an exported
 * initial-exec __thread variable; the backends that define LL_THREAD_ELEMENT define these. */
#ifndef LL_THREAD_ELEMENT_EXTERN
#define LL_THREAD_ELEMENT_EXTERN(T, name)                                                        \
    extern __thread T name##_tls __attribute__((tls_model("initial-exec")));                     \
    LL_INLINE T *name(void) { return &name##_tls; }
#define LL_THREAD_ELEMENT_DEFINE(T, name, ...) __thread T name##_tls __attribute__((tls_model("initial-exec"))) = __VA_ARGS__;
#endif

/* LL_ELEMENT_REUSE(): the calling thread starts a new use of its per-thread element: by
 * the algorithm's protocol every other thread's access to it from the previous use is
 * over (hemlock's acknowledgement, reciprocating's grant).  Nothing natively; an
 * atomics backend may define its own (atomics.h; the model checker checks the claim:
 * an access by another thread that does not happen before this is a data race there). */
#ifndef LL_ELEMENT_REUSE
#define LL_ELEMENT_REUSE() ((void)0)
#endif

/* Queue nodes for locks that need one per waiting thread (MCS, CLH, ...).
 * Fixed-size, 128-byte aligned, contents undefined on return; locks may use
 * the first LL_QNODE_USABLE (56) bytes (the cache's free-list link follows); never returned
 * to the OS, so a releaser that touches a node after its owner moved on reads
 * valid memory. */
#define LL_QNODE_BYTES 128
/* Bytes a lock may use at the start of a node; the cache's free-list link
 * follows them, so taking a node from the cache touches one cache line. */
#define LL_QNODE_USABLE (LL_CACHELINE - sizeof(void *))
#define LL_QNODE_LINK(n) (*(void **)(void *)((char *)(n) + LL_QNODE_USABLE))
void *ll_qnode_refill(void);
LL_INLINE void *ll_qnode_get(void)
{
    ll_thread *self = ll_self();
    void *n = self->free_nodes;
    if (LL_UNLIKELY(n == NULL))
        return ll_qnode_refill();
    self->free_nodes = LL_QNODE_LINK(n);
    return n;
}
/* A node from the calling thread's cache without a call: NULL if the thread has no context yet
 * or its cache is empty (then take ll_qnode_get's way).  ll_qnode_untake gives it back. */
LL_INLINE void *ll_qnode_take(ll_thread *self)
{
    void *n = self ? self->free_nodes : NULL;
    if (LL_LIKELY(n != NULL))
        self->free_nodes = LL_QNODE_LINK(n);
    return n;
}
LL_INLINE void ll_qnode_untake(ll_thread *self, void *node)
{
    LL_QNODE_LINK(node) = self->free_nodes;
    self->free_nodes = node;
}
LL_INLINE void ll_qnode_put(void *node)
{
    ll_thread *self = ll_self_if_any();
    if (LL_UNLIKELY(self == NULL)) /* a thread with no context yet (abandon's caller may be one) */
        self = ll_self();
    ll_qnode_untake(self, node);
}

/* ---- PRNG: thread-local xorshift64 ------------------------------------------- */
LL_INLINE uint64_t ll_rand_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}
LL_INLINE uint64_t ll_rand(void) { return ll_rand_next(&ll_self()->rng); }
/* Uniform in [0, n), n > 0 (multiply-shift; bias negligible for small n). */
LL_INLINE uint64_t ll_rand_below(uint64_t n) { return (uint64_t)(((unsigned __int128)ll_rand() * n) >> 64); }

/* ---- Messages (src/core/elide.c) ------------------------------------------- */
/* s as a one-line message echoes it: as is when it has at most max bytes, else
 * its first and last bytes around "..." (max bytes in all), so that what the
 * message says after the value (the reason, the valid choices) survives any
 * length of input.  buf holds at least max + 1 bytes; returns buf. */
const char *ll_elide(const char *s, size_t max, char *buf, size_t buflen);

/* ---- Topology (src/core/topology.c) ------------------------------------------ */
/* Parse LOCKLAB_TOPOLOGY (NULL or "" = real topology).  Returns 0, or -1 with a
 * one-line message in err naming the bad value and the valid forms. */
int ll_topology_configure(const char *value, char *err, size_t errlen);
/* Initialise from the environment once; on a bad value returns -1 and err. */
int ll_topology_init_from_env(char *err, size_t errlen);
int ll_topology_sockets(void);
const char *ll_topology_describe(void); /* e.g. "real:1", "sockets=2" */
int ll_current_socket(void);   /* socket of the calling thread (virtual or real) */
int ll_cpu_socket(int cpu);    /* real socket of a CPU, from sysfs */
int ll_ncpus(void);
/* CPUs this process may run on at once: min(affinity mask, cgroup cpu.max quota), read once (src/core/cpus.c). */
int ll_cpus_available(void);
/* CPUs this process's threads may be placed on: the affinity mask's, without the quota (a
 * quota of 2 CPUs on a 64-CPU machine still spreads the threads over 64), read once. */
int ll_cpus_placeable(void);

LL_API_END
#endif /* LOCKLAB_CORE_H */
