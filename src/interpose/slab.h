/*
 * Out-of-line lock objects: for locks whose state does not fit in a
 * pthread_mutex_t (config.h, inline_state), each mutex gets one object from
 * here at first use and keeps a pointer to it in its pthread_mutex_t.
 *
 * Storage is the core's arena (core.h: mmap-backed, never malloc, since a
 * malloc replacement may itself lock pthread mutexes; never returned to the
 * OS; fork-safe); destroyed mutexes give their object back to a free list.
 *
 * Mutexes dropped without a destroy (a std::mutex: trivial destructor; a
 * mutex zeroed, re-initialised over a live one, or freed, perhaps while held)
 * cannot tell us.  A registry of the objects in use, keyed by the address of
 * their slot (the mutex's lock word), finds them when a mutex at the same
 * address installs an object again (its slot is NULL, yet an object is still
 * registered for it: the old mutex is gone) and recycles them.  So memory
 * stays flat whenever addresses come back (malloc reuses freed blocks, a
 * variable is re-initialised); an object of an address never used for a
 * mutex again stays allocated (one per such address).
 *
 * Object layout (stride lp_slab_object_bytes(), LL_SECTOR-aligned):
 *   [0, state_bytes)          the lock algorithm's state (ll_lock_ops.state_bytes)
 *   [hdr_offset, +sizeof hdr) lp_objhdr: the per-lock waiting policy and profile
 */
#ifndef LOCKLAB_INTERPOSE_SLAB_H
#define LOCKLAB_INTERPOSE_SLAB_H

#include <stddef.h>

#include "locklab/wait.h"

/* Bytes of lock state an inline mutex holds (config.h). */
#define LP_INLINE_STATE_BYTES 16

struct lp_profile;
typedef struct lp_objhdr {
    struct lp_profile *prof; /* the lock's profile record, NULL when not profiling; set before publication */
    ll_wait_policy wp;       /* per lock, so an adaptive policy adapts per lock */
    ll_atomic_ptr *slot;     /* the slot it is installed in (registry key; NULL: not registered) */
    ll_atomic_ptr *home;     /* a mutex's object: that mutex's slot; another mutex whose slot holds it is a copy (mutex_object.c) */
    void *link;              /* the registry's chain while in use, the pool's free list while free */
} lp_objhdr;

extern size_t lp_slab_hdr_offset;
LL_INLINE lp_objhdr *lp_hdr(void *obj) { return (lp_objhdr *)(void *)((char *)obj + lp_slab_hdr_offset); }

void lp_slab_init(void);            /* after lp_cfg.ops is known */
size_t lp_slab_object_bytes(void);  /* stride: memory per out-of-line mutex */
/* The object *slot points to; at the first call for a slot, a new zeroed
 * object, prepared by init(obj, ctx) (false: it could not) and then published in *slot (release),
 * all under the arena's lock so that racing first users agree on one object
 * without creating a spare one (ll_arena_install).  An object of a dropped
 * mutex found meanwhile (the registry above) is given to retire(obj), which
 * releases what the lock holds (its algorithm's destroy, a held queue node, a
 * profile record), and recycled. */
void *lp_slab_install(ll_atomic_ptr *slot, bool (*init)(void *obj, void *ctx), void (*retire)(void *obj), void *ctx,
                      bool fallback);
/* Out of memory (the arena cannot map memory, or init could not prepare the object: a lock
 * whose init allocates): lp_slab_install returns NULL if !fallback (*slot stays NULL: the
 * caller answers ENOMEM), else stores LP_OBJ_FALLBACK in *slot, for good, and returns it: that
 * mutex then runs on a fallback lock that needs no memory (mutex_object.c), said once on stderr
 * and counted in lp_slab_fallbacks.  The marker, under the arena's lock, so that every
 * first user of the slot agrees on it.  A slot is re-armed only by zeroing it (init). */
#define LP_OBJ_FALLBACK ((uintptr_t)1)
extern ll_atomic_u64 lp_slab_fallbacks;
/* Is there a lock object for the next lp_slab_install?  A free one, or a fresh one made and
 * put on the free list; false if mmap fails (pthread_mutex_init's ENOMEM).  Binds nothing to
 * a slot; another first user may take the spare first (that install falls back then). */
bool lp_slab_spare(void);
/* A destroyed mutex's object: retire(obj), then back to the free list (under the arena's lock). */
void lp_slab_put(void *obj, void (*retire)(void *obj));

#endif
