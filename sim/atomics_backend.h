/*
 * The simulator's atomics backend: include/locklab/atomics.h's types and verbs for
 * the sources compiled into locklab-sim (sim/CMakeLists.txt selects it with
 * LL_ATOMICS_BACKEND="atomics_backend.h"; atomics.h says what a backend defines).
 *
 * Plain words: every verb is an event of the simulator's engine, which runs one
 * simulated thread at a time on one OS thread (atomics_backend.c: a scheduling
 * point, then the word's line is accessed at the thread's simulated time).
 * Sequentially consistent: the orders are recorded, not modelled.  C only.
 */
#ifndef LOCKLAB_SIM_ATOMICS_BACKEND_H
#define LOCKLAB_SIM_ATOMICS_BACKEND_H

#ifdef __cplusplus
#error "the simulator's atomics backend: compile the sources as C"
#endif

#include <stdbool.h>
#include <stdint.h>

#define LL_ALIGNED(n) _Alignas(n)
typedef enum { LL_RELAXED, LL_ACQUIRE, LL_RELEASE, LL_ACQ_REL, LL_SEQ_CST } ll_order;
typedef struct { uint32_t v; } ll_atomic_u32;
typedef struct { uint64_t v; } ll_atomic_u64;
typedef struct { void *v; } ll_atomic_ptr;
#define LL_ATOMIC_INIT(x) { x }

/* atomics_backend.c: size is 4 or 8 bytes; cas writes the observed value to *expected on failure. */
uint64_t llsim_load(const void *p, unsigned size);
void llsim_store(void *p, uint64_t v, unsigned size);
uint64_t llsim_xchg(void *p, uint64_t v, unsigned size);
bool llsim_cas(void *p, void *expected, uint64_t desired, unsigned size);
uint64_t llsim_faa(void *p, uint64_t d, unsigned size);
void ll_fence(ll_order o); /* seq_cst: drains the store buffer, about a locked instruction; others free */
void ll_pause(void);       /* a PAUSE: its cost, or a sleep after an unchanged spin iteration (spin.c) */

#define LL_DEFINE_OPS(T, A, S)                                                                  \
    LL_INLINE T ll_load_##S(A *p, ll_order o) { (void)o; return (T)(uintptr_t)llsim_load(p, sizeof(T)); } \
    LL_INLINE void ll_store_##S(A *p, T x, ll_order o) { (void)o; llsim_store(p, (uint64_t)(uintptr_t)x, sizeof(T)); } \
    LL_INLINE T ll_xchg_##S(A *p, T x, ll_order o) { (void)o; return (T)(uintptr_t)llsim_xchg(p, (uint64_t)(uintptr_t)x, sizeof(T)); } \
    LL_INLINE bool ll_cas_##S(A *p, T *e, T d, ll_order o) { (void)o; return llsim_cas(p, e, (uint64_t)(uintptr_t)d, sizeof(T)); }
LL_DEFINE_OPS(uint32_t, ll_atomic_u32, u32)
LL_DEFINE_OPS(uint64_t, ll_atomic_u64, u64)
LL_DEFINE_OPS(void *, ll_atomic_ptr, ptr)
#undef LL_DEFINE_OPS
LL_INLINE uint32_t ll_faa_u32(ll_atomic_u32 *p, uint32_t d, ll_order o) { (void)o; return (uint32_t)llsim_faa(p, d, 4); }
LL_INLINE uint64_t ll_faa_u64(ll_atomic_u64 *p, uint64_t d, ll_order o) { (void)o; return llsim_faa(p, d, 8); }

#endif /* LOCKLAB_SIM_ATOMICS_BACKEND_H */
