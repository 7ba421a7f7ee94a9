/* fissile: Dice & Kogan's Fissile lock, a test-and-set fast path in front of a CNA slow path
 * (src/locks/fissile.c).  Expert verbs: init, acquire, try_acquire, release, is_locked
 * (docs/design.md, "Expert headers"); the slow path takes its CNA node from the per-thread cache. */
#ifndef LOCKLAB_FISSILE_H
#define LOCKLAB_FISSILE_H
#include "cna.h"
#include "ts_gate.h"
LL_API_BEGIN
typedef struct ll_fissile_lock {
    ll_ts_gate gate;      /* the outer test-and-set lock and the standby's impatient flag */
    ll_cna_lock inner;    /* the slow path's queue; its holder is the standby */
    uint64_t patience_ns; /* spec key patience_ns; read-only after init */
} ll_fissile_lock;
/* The standby's patience before it stops the barging (the paper bounds bypass by a
 * tunable; 1 ms: long against a handover, short against a scheduling quantum). */
#define LL_FISSILE_DEFAULT_PATIENCE_NS 1000000u
#define LL_FISSILE_INITIALIZER { LL_TS_GATE_INITIALIZER, LL_CNA_INITIALIZER, LL_FISSILE_DEFAULT_PATIENCE_NS }
void ll_fissile_init(ll_fissile_lock *l, uint64_t patience_ns);
void ll_fissile_acquire_slow(ll_fissile_lock *l, ll_wait_policy *wp);
/* Timed acquire: true if we own the lock, false if deadline_ns (ll_now_ns clock) passed first. */
bool ll_fissile_acquire_until(ll_fissile_lock *l, ll_wait_policy *wp, uint64_t deadline_ns);

/* ll_fissile_try_acquire, _acquire, _release, _is_locked: the gate's fast paths
 * (include/locklab/ts_gate.h, which explains their orders). */
LL_TS_GATE_FAST_PATHS(ll_fissile)
LL_API_END
#endif
