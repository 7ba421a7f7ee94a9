/*
 * The atomics layer's Relacy backend (include/locklab/atomics.h's LL_ATOMICS_BACKEND,
 * which verify/CMakeLists.txt sets to this header for locklab-check):
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
 * Fresh memory is the exception: a word of a queue node from the model's pool or of
 * a per-thread element (LL_THREAD_ELEMENT) starts *uninitialised* (as production's
 * ll_qnode_get promises nothing about a node's contents): its modelled atomic is
 * created without an initial value, and a thread that reads it without having seen
 * (by happens-before or by reading it) a store to it is reported by Relacy
 * ("uninitialised access"), so an order whose only job is to publish a node's
 * initialisation is checked (docs/verification.md, "What is compiled": fresh memory).
 * A per-thread element also has a lifetime: another thread's access to it must
 * happen before its owner reuses it (ll_model_element_reuse, core.h's
 * LL_ELEMENT_REUSE) or exits (ll_model_thread_exit), else Relacy reports a race.
 *
 * Shared plain fields (atomics.h's LL_SHARED_PLAIN, ll_plain_load/ll_plain_store)
 * keep their value in their own memory; each access also reads or writes an rl::var
 * shadow of the field (a side table keyed by address, as for the atomics), so two
 * accesses not ordered by happens-before, one a store, are a data race.
 *
 * Every verb is a macro so that Relacy's history names the caller's file and
 * line ($).  g++ 12 cannot compile Relacy's std shim (relacy_std.hpp), so this
 * uses the rl:: types directly.
 */
#ifndef LOCKLAB_VERIFY_RELACY_ATOMICS_H
#define LOCKLAB_VERIFY_RELACY_ATOMICS_H

#ifndef __cplusplus
#error "the Relacy backend: compile the sources as C++ (-x c++)"
#endif

/* For a source that must know it runs under the model checker (rw_bravo.c: a smaller table). */
#define LL_BACKEND_RELACY 1

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
#include <string.h>

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
/* core.h's LL_ELEMENT_REUSE: the calling thread reuses its elements (verify/relacy_env.cpp). */
void ll_model_element_reuse(void);

namespace ll_model {
/* verify/relacy_env.cpp: where p is: placed memory (a lock, a parker, the checker's data),
 * a node of the model's pool, or a per-thread element of the calling thread or another's. */
enum memory_kind { PLACED, POOL_NODE, OWN_ELEMENT, OTHER_ELEMENT };
memory_kind memory_of(const void *p);
/* Another thread's element is accessed: a race unless it happens after the owner's first
 * use of it (its thread-start initialisation, published by the owner) or latest reuse,
 * and before its next reuse or exit (a read of the element's lifetime shadow). */
void element_access(const void *p, rl::debug_info_param info);

/* The modelled atomics of words of type T, by address: an open-addressing table
 * in static memory (Relacy replaces the global operator new with its own
 * per-iteration heap, so the table allocates nothing).  C: the cell type. */
template <class C> struct table {
    enum { CAP = 4096 }; /* a power of two; the largest case uses a few hundred words */
    const void *key[CAP];
    alignas(C) unsigned char cell[CAP][sizeof(C)];
    unsigned used[CAP], nused;
    static table &get()
    {
        static table t;
        return t;
    }
    /* The slot of key raw: found, or claimed (*fresh set) */
    C *find(const void *raw, bool *created)
    {
        unsigned h = (unsigned)(((uintptr_t)raw >> 2) * 2654435761u) & (CAP - 1);
        while (key[h] != nullptr && key[h] != raw)
            h = (h + 1) & (CAP - 1);
        *created = key[h] == nullptr;
        if (*created) {
            RL_VERIFY(nused < CAP / 2);
            key[h] = raw;
            used[nused++] = h;
        }
        return reinterpret_cast<C *>(cell[h]);
    }
    void clear() /* destroy every entry (end of an iteration: Relacy checks for leaks) */
    {
        for (unsigned i = 0; i < nused; i++) {
            reinterpret_cast<C *>(cell[used[i]])->~C();
            key[used[i]] = nullptr;
        }
        nused = 0;
    }
    /* Drop the entries a failed iteration left (Relacy abandons it without running
     * the test's destructor; its objects went with that simulation). */
    void forget()
    {
        for (unsigned i = 0; i < nused; i++)
            key[used[i]] = nullptr;
        nused = 0;
    }
};
/* A modelled word of placed memory: initialised to zero as if before every thread started
 * ("strong init"; a lazily created rl::atomic would be uninitialised for threads that did
 * not see its first store).  Of fresh memory: uninitialised until its first store. */
template <class T> using cell_t = rl::generic_atomic<T, true>;
template <class T> using fresh_cell_t = rl::generic_atomic<T, false>;
/* The modelled atomic of the word at raw in placed memory; created at first use holding zero. */
template <class T> inline cell_t<T> &cell(T *raw, rl::debug_info_param info, bool first_is_store)
{
    bool created;
    cell_t<T> *a = table<cell_t<T>>::get().find(raw, &created);
    if (created) {
        /* the creation and its initial store are one step: no other thread may see
         * the key before the value */
        rl::preemption_disabler atomically(rl::ctx());
        new (a) cell_t<T>();
        /* and a relaxed store of the same zero: Relacy's strong init leaves the
         * record's per-thread "first seen" stamps as a recycled record had them, which
         * can let a spinning thread read that record for ever (a false livelock);
         * a store's record is clean, and after its next yield a thread reads no
         * older than what it has seen. */
        a->store(T(), rl::mo_relaxed, info);
        /* a word read before any store holds zeros (placed locks, parkers) */
        RL_ASSERT(first_is_store || *raw == T());
    }
    return *a;
}
/* The modelled atomic of the word at raw in a pool node: created without a value. */
template <class T> inline fresh_cell_t<T> &fresh_cell(T *raw)
{
    bool created;
    fresh_cell_t<T> *a = table<fresh_cell_t<T>>::get().find(raw, &created);
    if (created)
        new (a) fresh_cell_t<T>();
    return *a;
}
/* f(the modelled atomic of the word at raw), whichever memory it is in.  An element's
 * words hold the zero of the thread-local's initialiser from the start (strong init);
 * that another thread's access happens after the owner's first use of the element (which
 * stands for its thread's start) is checked by element_access. */
template <class T, class F> inline auto with_cell(T *raw, rl::debug_info_param info, bool first_is_store, F f)
{
    memory_kind kind = memory_of(raw);
    if (kind == POOL_NODE)
        return f(fresh_cell(raw));
    if (kind == OTHER_ELEMENT)
        element_access(raw, info);
    return f(cell(raw, info, first_is_store));
}

/* The shared plain fields used in this iteration (address, size), zeroed when the next
 * one starts (zero_plain_fields): a field keeps its value in its own memory, and one in
 * static memory (parkinglot's bucket table: its list heads and fair timers) would
 * otherwise carry an iteration's values into the next, which then starts from another
 * state than a fresh process does (and a failed iteration's replay would differ). */
struct plain_fields {
    enum { CAP = 2048 }; /* as many as the shadow table holds */
    void *at[CAP];
    size_t bytes[CAP];
    unsigned n;
    static plain_fields &get()
    {
        static plain_fields f;
        return f;
    }
};
inline void zero_plain_fields()
{
    plain_fields &f = plain_fields::get();
    for (unsigned i = 0; i < f.n; i++)
        memset(f.at[i], 0, f.bytes[i]);
    f.n = 0;
}
/* The race-checked shadow of a shared plain field (LL_SHARED_PLAIN) of the given size,
 * by address; created at its first access as written then by the accessing thread.  A
 * field of a pool node read before any write is garbage: an error (an element's reads
 * its thread-start zero). */
typedef rl::var<char> shadow_t;
inline shadow_t &shadow(const void *raw, size_t bytes, bool is_store, rl::debug_info_param info)
{
    memory_kind kind = memory_of(raw);
    if (kind == OTHER_ELEMENT)
        element_access(raw, info);
    bool created;
    shadow_t *v = table<shadow_t>::get().find(raw, &created);
    if (created) {
        new (v) shadow_t(0);
        RL_ASSERT(is_store || kind != POOL_NODE); /* a fresh node's field read before any write */
        plain_fields &f = plain_fields::get();
        RL_VERIFY(f.n < plain_fields::CAP);
        f.at[f.n] = const_cast<void *>(raw);
        f.bytes[f.n++] = bytes;
    }
    return *v;
}
template <class T> inline T plain_load(const T *p, rl::debug_info_param info)
{
    (void)(char)shadow(p, sizeof *p, false, info)(info); /* a plain read: a race with an unordered store is reported */
    return *p;
}
template <class T> struct same { typedef T type; }; /* x converts to the field's type, as in an assignment */
template <class T> inline void plain_store(T *p, typename same<T>::type x, rl::debug_info_param info)
{
    shadow(p, sizeof *p, true, info)(info) = 0; /* a plain write: a race with any unordered access is reported */
    *p = x;
}

/* Every table of modelled objects: f(table) for each. */
template <class F> inline void for_each_table(F f)
{
    f(table<cell_t<uint32_t>>::get());
    f(table<cell_t<uint64_t>>::get());
    f(table<cell_t<void *>>::get());
    f(table<fresh_cell_t<uint32_t>>::get());
    f(table<fresh_cell_t<uint64_t>>::get());
    f(table<fresh_cell_t<void *>>::get());
    f(table<shadow_t>::get());
}
inline void forget_all()
{
    for_each_table([](auto &t) { t.forget(); });
    zero_plain_fields(); /* every iteration starts as a fresh process: static plain fields at zero */
}
/* Destroy every modelled object (end of an iteration: Relacy checks for leaks). */
inline void reset()
{
    for_each_table([](auto &t) { t.clear(); });
}
inline rl::memory_order cas_failure_order(rl::memory_order o)
{
    return o == rl::mo_acq_rel ? rl::mo_acquire : o == rl::mo_release ? rl::mo_relaxed : o;
}

/* The verbs; A is ll_atomic_u32/u64/ptr, value arguments convert to its word type. */
template <class A> using word_t = decltype(A::v);
template <class A> inline word_t<A> load(A *p, ll_order o, rl::debug_info_param i)
{
    return with_cell(&p->v, i, false, [&](auto &c) { return c.load(o, i); });
}
template <class A> inline void store(A *p, word_t<A> x, ll_order o, rl::debug_info_param i)
{
    with_cell(&p->v, i, true, [&](auto &c) { c.store(x, o, i); });
}
template <class A> inline word_t<A> xchg(A *p, word_t<A> x, ll_order o, rl::debug_info_param i)
{
    return with_cell(&p->v, i, false, [&](auto &c) { return c.exchange(x, o, i); });
}
template <class A> inline bool cas(A *p, word_t<A> *e, word_t<A> d, ll_order o, rl::debug_info_param i)
{
    return with_cell(&p->v, i, false,
                     [&](auto &c) { return c.compare_exchange_strong(*e, d, o, i, cas_failure_order(o), i); });
}
template <class A> inline word_t<A> faa(A *p, word_t<A> d, ll_order o, rl::debug_info_param i)
{
    return with_cell(&p->v, i, false, [&](auto &c) { return c.fetch_add(d, o, i); });
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
/* atomics.h's shared plain fields, race-checked (above) */
#define ll_plain_load(p) ll_model::plain_load(&(p)->v, $)
#define ll_plain_store(p, x) ll_model::plain_store(&(p)->v, (x), $)

/* core.h's per-thread hooks: every modelled thread runs on one OS thread, so its
 * context (ll_self) and its per-thread elements (LL_THREAD_ELEMENT: one T per
 * modelled thread, zeroed per execution, told apart by the address of a
 * per-definition tag) are the environment's, and LL_ELEMENT_REUSE is checked
 * (verify/relacy_env.cpp). */
#define ll_self() ll_model_self()
#define LL_THREAD_ELEMENT(T, name, ...)                                                          \
    static const char name##_tag = 0;                                                            \
    LL_INLINE T *name(void) { return (T *)ll_model_thread_element(&name##_tag, sizeof(T)); }
#define LL_THREAD_ELEMENT_EXTERN(T, name)                                                        \
    extern const char name##_tag;                                                                \
    LL_INLINE T *name(void) { return (T *)ll_model_thread_element(&name##_tag, sizeof(T)); }
#define LL_THREAD_ELEMENT_DEFINE(T, name, ...) const char name##_tag = 0;
#define LL_ELEMENT_REUSE() ll_model_element_reuse()

#endif /* LOCKLAB_VERIFY_RELACY_ATOMICS_H */
