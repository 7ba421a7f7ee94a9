/*
 * Out-of-line lock objects: for locks whose state does not fit in a
 * pthread_mutex_t (config.h, inline_state), each mutex gets one object from
 * here at first use and keeps a pointer to it in its pthread_mutex_t.
 *
 * Storage is the core's arena (core.h: mmap-backed, never malloc, since a
 * malloc replacement may itself lock pthread mutexes; never returned to the
 * OS; fork-safe); destroyed mutexes give their object back to a free list.
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
    void *free_link;         /* the arena pool's free-list link while the object is free */
} lp_objhdr;

extern size_t lp_slab_hdr_offset;
LL_INLINE lp_objhdr *lp_hdr(void *obj) { return (lp_objhdr *)(void *)((char *)obj + lp_slab_hdr_offset); }

void lp_slab_init(void);            /* after lp_cfg.ops is known */
size_t lp_slab_object_bytes(void);  /* stride: memory per out-of-line mutex */
/* The object *slot points to; at the first call for a slot, a new zeroed
 * object, prepared by init(obj, ctx) and then published in *slot (release),
 * all under the arena's lock so that racing first users agree on one object
 * without creating a spare one (ll_arena_install). */
void *lp_slab_install(ll_atomic_ptr *slot, void (*init)(void *obj, void *ctx), void *ctx);
void lp_slab_put(void *obj);

#endif
