/*
 * The simulator's atomics backend (atomics_backend.h, the header that
 * include/locklab/atomics.h includes for locklab-sim): the verbs the lock sources
 * call, each an event of the engine (docs/simulator.md).
 *
 * Models: every llsim_load/store/xchg/cas/faa (atomics.h's ll_load, ll_store, ...
 *   on a 4- or 8-byte word) is a scheduling point (sched.c) and then an access of
 *   the word's line (cache.c): a load, a store into the store buffer, or a locked
 *   read-modify-write (a failed CAS too, as x86's LOCK CMPXCHG).  The value is read
 *   and written in plain memory when the access takes effect.  ll_fence(seq_cst)
 *   drains the store buffer and costs about a locked instruction (MFENCE); weaker
 *   fences are free (x86-TSO).  ll_pause is a PAUSE (spin.c).  Outside a run (a
 *   lock's init from main) a verb is a plain access and no event.
 *
 * Leaves out: the memory orders, which are recorded, not modelled: execution is
 *   sequentially consistent (the model checker, verify/, explores weak behaviours).
 */
#include "engine.h"

static inline uint64_t get(const void *p, unsigned size) { return size == 4 ? *(const uint32_t *)p : *(const uint64_t *)p; }
static inline void put(void *p, uint64_t v, unsigned size)
{
    if (size == 4)
        *(uint32_t *)p = (uint32_t)v;
    else
        *(uint64_t *)p = v;
}

uint64_t llsim_load(const void *p, unsigned size)
{
    if (OUTSIDE_RUN())
        return get(p, size);
    sync_point();
    access_line(p, LOAD);
    return get(p, size);
}

void llsim_store(void *p, uint64_t v, unsigned size)
{
    if (OUTSIDE_RUN()) {
        put(p, v, size);
        return;
    }
    sync_point();
    access_line(p, STORE);
    put(p, v, size);
}

uint64_t llsim_xchg(void *p, uint64_t v, unsigned size)
{
    if (OUTSIDE_RUN()) {
        uint64_t old = get(p, size);
        put(p, v, size);
        return old;
    }
    sync_point();
    access_line(p, RMW);
    uint64_t old = get(p, size);
    put(p, v, size);
    return old;
}

bool llsim_cas(void *p, void *expected, uint64_t desired, unsigned size)
{
    if (!OUTSIDE_RUN()) {
        sync_point();
        access_line(p, RMW); /* a failed CAS still takes the line exclusive (x86 LOCK CMPXCHG) */
    }
    uint64_t old = get(p, size), exp = get(expected, size);
    if (old == exp) {
        put(p, desired, size);
        return true;
    }
    put(expected, old, size);
    return false;
}

uint64_t llsim_faa(void *p, uint64_t d, unsigned size)
{
    if (!OUTSIDE_RUN()) {
        sync_point();
        access_line(p, RMW);
    }
    uint64_t old = get(p, size);
    put(p, old + d, size);
    return old;
}

void ll_fence(ll_order o)
{
    if (OUTSIDE_RUN() || o != LL_SEQ_CST)
        return; /* acquire/release fences are free on x86 (TSO) */
    sync_point();
    drain(E.cur);
    E.cur->time += E.c_rmw; /* MFENCE: about a locked instruction */
}

void ll_pause(void)
{
    if (OUTSIDE_RUN())
        return;
    sthread *me = E.cur;
    sync_point(); /* a spinner lets earlier threads run (exploration: a random one) */
    if (E.cfg->explore)
        return;
    spin_pause(me);
}
