/*
 * The atomics layer's Relacy backend (include/locklab/atomics.h, LL_BACKEND_RELACY):
 * the lock sources compile unchanged, as C++, and every verb becomes an operation
 * of the Relacy model checker (Dmitry Vyukov's Relacy Race Detector, Debian
 * relacy-dev), which explores thread interleavings and the C++11 memory model's
 * weak behaviours (stale reads of relaxed/acquire loads, store buffering without
 * seq_cst fences), and reports data races on rl::var, deadlocks and livelocks.
 *
 * Layout: ll_atomic_u32/u64/ptr keep the production layout (one word), so every
 * struct, static assertion and "state is all zeros" rule of the sources holds.
 * The modelled atomic of a word lives in a side table keyed by its address and
 * is created at the word's first use, holding zero as if written before every
 * thread started: a word that is read before any store must hold zeros (a placed
 * lock's state, a fresh queue node, a parker), else the check fails.  The table is emptied
 * at the end of every iteration (ll_model_reset, verify/relacy_env.cpp).
 * Consequence: after a word's first verb its plain memory is stale; the sources
 * only touch atomics through the verbs, and the checker zeroes a lock's memory
 * only before its init.
 *
 * Every verb is a macro so that Relacy's history names the caller's file and
 * line ($).  g++ 12 cannot compile Relacy's std shim (relacy_std.hpp), so this
 * uses the rl:: types directly.
 */
#ifndef LOCKLAB_VERIFY_RELACY_ATOMICS_H
#define LOCKLAB_VERIFY_RELACY_ATOMICS_H

#ifndef __cplusplus
#error "LL_BACKEND_RELACY: compile the sources as C++ (-x c++)"
#endif

/* relacy.hpp without its tail, which redefines new, delete, malloc, free,
 * assert and errno for the whole translation unit. */
#include <relacy/base.hpp>
#include <relacy/context.hpp>
#include <relacy/context_base_impl.hpp>
#include <relacy/backoff.hpp>
#include <relacy/atomic_fence.hpp>
#include <relacy/atomic.hpp>
#include <relacy/var.hpp>
#include <relacy/thread_local.hpp>
#include <relacy/test_suite.hpp>
#include <relacy/dyn_thread.hpp>
#include <relacy/stdlib/mutex.hpp>
#include <relacy/stdlib/condition_variable.hpp>
#include <relacy/stdlib/semaphore.hpp>
#include <relacy/stdlib/event.hpp>

#include <new>

#define LL_ALIGNED(n) alignas(n)
typedef rl::memory_order ll_order;
#define LL_RELAXED rl::mo_relaxed
#define LL_ACQUIRE rl::mo_acquire
#define LL_RELEASE rl::mo_release
#define LL_ACQ_REL rl::mo_acq_rel
#define LL_SEQ_CST rl::mo_seq_cst
typedef struct { uint32_t v; } ll_atomic_u32; /* v: the initial value only (see above) */
typedef struct { uint64_t v; } ll_atomic_u64;
typedef struct { void *v; } ll_atomic_ptr;
#define LL_ATOMIC_INIT(x) { x }

struct ll_thread;
/* The calling simulated thread's context (core.h's ll_self; verify/relacy_env.cpp). */
struct ll_thread *ll_model_self(void);
/* The calling simulated thread's per-thread element of a lock algorithm (core.h's
 * LL_THREAD_ELEMENT), bytes <= LL_SECTOR, told apart by tag; zeroed per execution. */
void *ll_model_thread_element(const void *tag, size_t bytes);

namespace ll_model {
/* The modelled atomics of words of type T, by address: an open-addressing table
 * in static memory (Relacy replaces the global operator new with its own
 * per-iteration heap, so the table allocates nothing). */
/* A modelled word: initialised to zero as if before every thread started ("strong
 * init"; a lazily created rl::atomic would be uninitialised for threads that did
 * not see its first store). */
template <class T> using cell_t = rl::generic_atomic<T, true>;
template <class T> struct table {
    enum { CAP = 4096 }; /* a power of two; the largest case uses a few hundred words */
    const void *key[CAP];
    alignas(cell_t<T>) unsigned char cell[CAP][sizeof(cell_t<T>)];
    unsigned used[CAP], nused;
    static table &get()
    {
        static table t;
        return t;
    }
};
/* The modelled atomic of the word at raw; created at first use with *raw as its value. */
template <class T> inline cell_t<T> &cell(T *raw, rl::debug_info_param info, bool first_is_store = false)
{
    table<T> &t = table<T>::get();
    unsigned h = (unsigned)(((uintptr_t)raw >> 2) * 2654435761u) & (table<T>::CAP - 1);
    while (t.key[h] != nullptr && t.key[h] != raw)
        h = (h + 1) & (table<T>::CAP - 1);
    cell_t<T> *a = reinterpret_cast<cell_t<T> *>(t.cell[h]);
    if (t.key[h] == nullptr) {
        /* the creation and its initial store are one step: no other thread may see
         * the key before the value */
        rl::preemption_disabler atomically(rl::ctx());
        RL_VERIFY(t.nused < table<T>::CAP / 2);
        t.key[h] = raw;
        t.used[t.nused++] = h;
        new (a) cell_t<T>();
        /* and a relaxed store of the same zero: Relacy's strong init leaves the
         * record's per-thread "first seen" stamps as a recycled record had them, which
         * can let a spinning thread read that record for ever (a false livelock);
         * a store's record is clean, and after its next yield a thread reads no
         * older than what it has seen. */
        a->store(T(), rl::mo_relaxed, info);
        /* a word read before any store holds zeros (placed locks, fresh nodes, parkers) */
        RL_ASSERT(first_is_store || *raw == T());
    }
    return *a;
}
template <class T> inline void clear()
{
    table<T> &t = table<T>::get();
    for (unsigned i = 0; i < t.nused; i++) {
        reinterpret_cast<cell_t<T> *>(t.cell[t.used[i]])->~generic_atomic();
        t.key[t.used[i]] = nullptr;
    }
    t.nused = 0;
}
/* Drop the entries a failed iteration left (Relacy abandons it without running
 * the test's destructor; its atomics went with that simulation). */
template <class T> inline void forget()
{
    table<T> &t = table<T>::get();
    for (unsigned i = 0; i < t.nused; i++)
        t.key[t.used[i]] = nullptr;
    t.nused = 0;
}
inline void forget_all()
{
    forget<uint32_t>();
    forget<uint64_t>();
    forget<void *>();
}
/* Destroy every modelled atomic (end of an iteration: Relacy checks for leaks). */
inline void reset()
{
    clear<uint32_t>();
    clear<uint64_t>();
    clear<void *>();
}
inline rl::memory_order cas_failure_order(rl::memory_order o)
{
    return o == rl::mo_acq_rel ? rl::mo_acquire : o == rl::mo_release ? rl::mo_relaxed : o;
}

/* The verbs; A is ll_atomic_u32/u64/ptr, value arguments convert to its word type. */
template <class A> using word_t = decltype(A::v);
template <class A> inline word_t<A> load(A *p, ll_order o, rl::debug_info_param i) { return cell(&p->v, i).load(o, i); }
template <class A> inline void store(A *p, word_t<A> x, ll_order o, rl::debug_info_param i) { cell(&p->v, i, true).store(x, o, i); }
template <class A> inline word_t<A> xchg(A *p, word_t<A> x, ll_order o, rl::debug_info_param i)
{
    return cell(&p->v, i).exchange(x, o, i);
}
template <class A> inline bool cas(A *p, word_t<A> *e, word_t<A> d, ll_order o, rl::debug_info_param i)
{
    return cell(&p->v, i).compare_exchange_strong(*e, d, o, i, cas_failure_order(o), i);
}
template <class A> inline word_t<A> faa(A *p, word_t<A> d, ll_order o, rl::debug_info_param i)
{
    return cell(&p->v, i).fetch_add(d, o, i);
}
} // namespace ll_model

#define ll_load(p, o) ll_model::load((p), (o), $)
#define ll_store(p, x, o) ll_model::store((p), (x), (o), $)
#define ll_xchg(p, x, o) ll_model::xchg((p), (x), (o), $)
#define ll_cas(p, e, d, o) ll_model::cas((p), (e), (d), (o), $)
#define ll_faa(p, d, o) ll_model::faa((p), (d), (o), $)
#define ll_fence(o) rl::atomic_thread_fence((o), $)
/* A spin-loop step: let the scheduler run another thread (Relacy's fair schedulers
 * then treat the loop as waiting, not as progress). */
#define ll_pause() rl::yield(1, $)

#endif /* LOCKLAB_VERIFY_RELACY_ATOMICS_H */
