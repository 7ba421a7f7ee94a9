/*
 * locklab atomics layer: the only way lock algorithms touch shared memory.
 *
 * Every lock in src/locks/ is written against these types and verbs and
 * nothing else (no _Atomic, no <stdatomic.h>, no syscalls).  They compile to C11
 * atomics (or std::atomic when the same source is compiled as C++).
 *
 * Types:  ll_atomic_u32, ll_atomic_u64, ll_atomic_ptr (opaque; use the verbs).
 * Verbs:  ll_load(p, order)            ll_load_relaxed(p) / ll_load_acquire(p)
 *         ll_store(p, v, order)        ll_store_relaxed(p, v) / ll_store_release(p, v)
 *         ll_xchg(p, v, order)         returns the old value
 *         ll_cas(p, &expected, desired, order)  strong CAS; on failure writes
 *                                      the observed value to expected
 *         ll_faa(p, delta, order)      fetch-and-add, returns the old value (integers)
 *         ll_fence(order), ll_pause()
 *         ll_rmw_lead(p)               a store to lead a fast path's RMW of *p (below)
 *         ll_fence_after_rmw()         a seq_cst fence right after an RMW (below)
 * Orders: LL_RELAXED, LL_ACQUIRE, LL_RELEASE, LL_ACQ_REL, LL_SEQ_CST.
 *
 * Another backend: define LL_ATOMICS_BACKEND as a header name, quotes included
 * (-DLL_ATOMICS_BACKEND='"my_atomics.h"'), and this header includes it instead of
 * the hardware's.  That header defines ll_order and LL_RELAXED ... LL_SEQ_CST,
 * LL_ALIGNED(n), the types above (one word each, as here, so that every layout
 * and static assertion holds) with LL_ATOMIC_INIT, ll_fence(o), ll_pause(), and
 * the verbs: in C as ll_load_u32/_u64/_ptr, ll_store_*, ll_xchg_*, ll_cas_* and
 * ll_faa_u32/_u64 (this header names them ll_load ... over the three types), or as
 * the macros ll_load ... themselves; in C++ as ll_load ... (overloads or macros).
 * It may define ll_rmw_lead(p), ll_fence_after_rmw() and ll_plain_load/ll_plain_store
 * (else: no-op, ll_fence(LL_SEQ_CST) and plain accesses), and, for core.h, ll_self(),
 * LL_THREAD_ELEMENT and LL_ELEMENT_REUSE (a backend that runs many threads on one OS
 * thread must).
 * locklab builds two: the model checker's, verify/relacy_atomics.h (Relacy,
 * docs/verification.md), and the simulator's, sim/atomics_backend.h
 * (docs/simulator.md); verify/CMakeLists.txt and sim/CMakeLists.txt select them.
 */
#ifndef LOCKLAB_ATOMICS_H
#define LOCKLAB_ATOMICS_H

#include <stddef.h>
#include <stdint.h>

#include "api.h"

#define LL_CACHELINE 64
/* Two lines: adjacent-line prefetchers pull pairs, so hot words that must not
 * false-share are kept 128 bytes apart (TWA paper §4). */
#define LL_SECTOR 128

#define LL_INLINE static inline __attribute__((always_inline))
#define LL_COLD __attribute__((noinline, cold))
/* Inline all the function calls, as far as they go (the interposer's direct verbs: registry.h);
 * under another atomics backend (the model checker's), none: its atomics are large. */
#if defined(LL_ATOMICS_BACKEND)
#define LL_FLATTEN
#else
#define LL_FLATTEN __attribute__((flatten))
#endif
/* The uncontended pair's functions (the interposer's entry points and direct verbs): placed
 * together in the text's hot part, whatever else the library holds (docs/interposer.md,
 * "Cost of the uncontended pair"). */
#define LL_HOT __attribute__((hot))
#ifdef __cplusplus
#define LL_STATIC_ASSERT(c, msg) static_assert(c, msg)
#define LL_ALIGNOF(T) alignof(T)
#else
#define LL_STATIC_ASSERT(c, msg) _Static_assert(c, msg)
#define LL_ALIGNOF(T) _Alignof(T)
#endif
#define LL_LIKELY(x) __builtin_expect(!!(x), 1)
#define LL_UNLIKELY(x) __builtin_expect(!!(x), 0)

#if defined(LL_ATOMICS_BACKEND)
/* ---- another backend (above): the model checker's, the simulator's ---------- */
#include LL_ATOMICS_BACKEND

#else
#if defined(__x86_64__) || defined(__i386__)
LL_INLINE void ll_pause(void) { __builtin_ia32_pause(); }
#elif defined(__aarch64__)
LL_INLINE void ll_pause(void) { __asm__ __volatile__("yield" ::: "memory"); }
#else
LL_INLINE void ll_pause(void) { __asm__ __volatile__("" ::: "memory"); }
#endif

#if defined(__cplusplus)
/* ---- C++ backend: same names, overloads instead of _Generic ---------------- */
#include <atomic>
#define LL_ALIGNED(n) alignas(n)
typedef std::memory_order ll_order;
#define LL_RELAXED std::memory_order_relaxed
#define LL_ACQUIRE std::memory_order_acquire
#define LL_RELEASE std::memory_order_release
#define LL_ACQ_REL std::memory_order_acq_rel
#define LL_SEQ_CST std::memory_order_seq_cst
typedef struct { std::atomic<uint32_t> v; } ll_atomic_u32;
typedef struct { std::atomic<uint64_t> v; } ll_atomic_u64;
typedef struct { std::atomic<void *> v; } ll_atomic_ptr;
#define LL_ATOMIC_INIT(x) { x }

static inline std::memory_order ll_cas_failure_order(std::memory_order o)
{
    return o == LL_ACQ_REL ? LL_ACQUIRE : o == LL_RELEASE ? LL_RELAXED : o;
}
#define LL_DEFINE_OPS(T, A)                                                             \
    static inline T ll_load(A *p, ll_order o) { return p->v.load(o); }                 \
    static inline void ll_store(A *p, T x, ll_order o) { p->v.store(x, o); }           \
    static inline T ll_xchg(A *p, T x, ll_order o) { return p->v.exchange(x, o); }     \
    static inline bool ll_cas(A *p, T *e, T d, ll_order o)                              \
    { return p->v.compare_exchange_strong(*e, d, o, ll_cas_failure_order(o)); }
LL_DEFINE_OPS(uint32_t, ll_atomic_u32)
LL_DEFINE_OPS(uint64_t, ll_atomic_u64)
LL_DEFINE_OPS(void *, ll_atomic_ptr)
#undef LL_DEFINE_OPS
static inline uint32_t ll_faa(ll_atomic_u32 *p, uint32_t d, ll_order o) { return p->v.fetch_add(d, o); }
static inline uint64_t ll_faa(ll_atomic_u64 *p, uint64_t d, ll_order o) { return p->v.fetch_add(d, o); }
static inline void ll_fence(ll_order o) { std::atomic_thread_fence(o); }

#else
/* ---- C11 backend ------------------------------------------------------------ */
#include <stdatomic.h>
#include <stdbool.h>
#define LL_ALIGNED(n) _Alignas(n)
typedef memory_order ll_order;
#define LL_RELAXED memory_order_relaxed
#define LL_ACQUIRE memory_order_acquire
#define LL_RELEASE memory_order_release
#define LL_ACQ_REL memory_order_acq_rel
#define LL_SEQ_CST memory_order_seq_cst
typedef struct { _Atomic uint32_t v; } ll_atomic_u32;
typedef struct { _Atomic uint64_t v; } ll_atomic_u64;
typedef struct { _Atomic(void *) v; } ll_atomic_ptr;
#define LL_ATOMIC_INIT(x) { x }

LL_INLINE memory_order ll_cas_failure_order(memory_order o)
{
    return o == LL_ACQ_REL ? LL_ACQUIRE : o == LL_RELEASE ? LL_RELAXED : o;
}
#define LL_DEFINE_OPS(T, A, S)                                                              \
    LL_INLINE T ll_load_##S(A *p, ll_order o) { return atomic_load_explicit(&p->v, o); }   \
    LL_INLINE void ll_store_##S(A *p, T x, ll_order o) { atomic_store_explicit(&p->v, x, o); } \
    LL_INLINE T ll_xchg_##S(A *p, T x, ll_order o) { return atomic_exchange_explicit(&p->v, x, o); } \
    LL_INLINE bool ll_cas_##S(A *p, T *e, T d, ll_order o)                                  \
    { return atomic_compare_exchange_strong_explicit(&p->v, e, d, o, ll_cas_failure_order(o)); }
LL_DEFINE_OPS(uint32_t, ll_atomic_u32, u32)
LL_DEFINE_OPS(uint64_t, ll_atomic_u64, u64)
LL_DEFINE_OPS(void *, ll_atomic_ptr, ptr)
#undef LL_DEFINE_OPS
LL_INLINE uint32_t ll_faa_u32(ll_atomic_u32 *p, uint32_t d, ll_order o) { return atomic_fetch_add_explicit(&p->v, d, o); }
LL_INLINE uint64_t ll_faa_u64(ll_atomic_u64 *p, uint64_t d, ll_order o) { return atomic_fetch_add_explicit(&p->v, d, o); }
LL_INLINE void ll_fence(ll_order o) { atomic_thread_fence(o); }
#endif
#endif /* LL_ATOMICS_BACKEND */

#if !defined(__cplusplus) && !defined(ll_load) /* C: one verb name over the three types */
#define LL_PICK(p, op) _Generic((p), ll_atomic_u32 *: op##_u32, ll_atomic_u64 *: op##_u64, ll_atomic_ptr *: op##_ptr)
#define ll_load(p, o) LL_PICK(p, ll_load)(p, o)
#define ll_store(p, x, o) LL_PICK(p, ll_store)(p, x, o)
#define ll_xchg(p, x, o) LL_PICK(p, ll_xchg)(p, x, o)
#define ll_cas(p, e, d, o) LL_PICK(p, ll_cas)(p, e, d, o)
#define ll_faa(p, d, o) _Generic((p), ll_atomic_u32 *: ll_faa_u32, ll_atomic_u64 *: ll_faa_u64)(p, d, o)
#endif

#define ll_load_relaxed(p) ll_load(p, LL_RELAXED)
#define ll_load_acquire(p) ll_load(p, LL_ACQUIRE)
#define ll_store_relaxed(p, x) ll_store(p, x, LL_RELAXED)
#define ll_store_release(p, x) ll_store(p, x, LL_RELEASE)

/* ll_rmw_lead(p): one store to the caller's own stack, placed just before a fast
 * path's read-modify-write of *p that would otherwise follow the previous one (the
 * last release, or the acquire) with no store in between, at the same offset within
 * a 64-byte line as p.  Why: on some x86-64 parts a locked RMW issued with no store
 * since the previous locked RMW takes a nanosecond or more longer, and a store helps
 * only at p's offset within a line (elsewhere the cost depended on the stack's
 * position, i.e. on the size of the environment).  Where it pays is measured, not
 * assumed: docs/results/2026-11-24-performance.md (the Xeon it was found on) and
 * docs/interposer.md, "Cost of the uncontended pair" (the AMD EPYC measured since).
 * MCS gets such a store for free from its node's initialisation; hemlock, lifocr,
 * loiter and the interposer's inline fast path lead their RMWs with this.  Not a
 * fence and orders nothing; a no-op off x86-64 and under another backend (unless it
 * defines its own). */
#if defined(__x86_64__) && !defined(LL_ATOMICS_BACKEND)
#define ll_rmw_lead(p)                                                                                   \
    do {                                                                                                 \
        unsigned char ll_lead_buf_[2 * LL_CACHELINE]; /* a line-aligned slot at any offset */          \
        unsigned char *ll_lead_ = (unsigned char *)(((uintptr_t)ll_lead_buf_ + LL_CACHELINE - 1) &       \
                                                    ~(uintptr_t)(LL_CACHELINE - 1)) +                    \
                                  ((uintptr_t)(const void *)(p) & (LL_CACHELINE - 1));                   \
        __asm__ __volatile__("movb $0, %0" : "=m"(*ll_lead_));                                           \
    } while (0)
#elif !defined(ll_rmw_lead)
#define ll_rmw_lead(p) ((void)(p))
#endif

/* ll_fence_after_rmw(): ll_fence(LL_SEQ_CST) placed after a read-modify-write (as Linux's
 * smp_mb__after_atomic), for a fence whose accesses to order before it all precede that
 * RMW and whose accesses to order after it all follow the fence.  On x86-64 a locked RMW is
 * itself a full barrier (loads and stores are not reordered with locked instructions), so
 * there it only keeps the compiler from moving accesses across it; elsewhere, and under
 * another backend (the model checker's and the simulator's, which then check and time the
 * fence), it is the fence. */
#if defined(__x86_64__) && !defined(LL_ATOMICS_BACKEND)
#define ll_fence_after_rmw() __asm__ __volatile__("" ::: "memory")
#elif !defined(ll_fence_after_rmw)
#define ll_fence_after_rmw() ll_fence(LL_SEQ_CST)
#endif

/* Plain (non-atomic) fields that more than one thread reads or writes, ordered by the
 * lock's atomics (a waiter's parker published by its link store; a holder-only field
 * handed from holder to holder by the lock itself):
 *   LL_SHARED_PLAIN(T) name;     declares one (the field's storage is one T, as a plain T)
 *   ll_plain_load(&x->name)      reads it, ll_plain_store(&x->name, v) writes it.
 * Natively these are plain accesses (the same generated code as a plain T field).  A
 * backend may define its own: in the model checker every access is race-checked by
 * Relacy like an rl::var, so an order that fails to publish such a field is a data
 * race there (verify/relacy_atomics.h; docs/verification.md). */
#define LL_SHARED_PLAIN(T) struct { T v; }
#define LL_SHARED_PLAIN_INIT(x) { x }
#ifndef ll_plain_load
#define ll_plain_load(p) ((p)->v)
#define ll_plain_store(p, x) ((void)((p)->v = (x)))
#endif

/* Compiler-only barrier: keeps the compiler from caching a plain variable
 * across a spin loop iteration (used by benchmarks, never for ordering). */
#define ll_compiler_barrier() __asm__ __volatile__("" ::: "memory")

#endif /* LOCKLAB_ATOMICS_H */
