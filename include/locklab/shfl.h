/* shfl: ShflLock (Kashyap et al., SOSP 2019), a TS lock with an MCS queue of waiters that
 * its head reorders by socket off the critical path (src/locks/shfl.c).
 * Expert verbs: init, acquire, try_acquire, release, is_locked (docs/design.md, "Expert
 * headers"); the slow path takes its queue node from the per-thread cache. */
#ifndef LOCKLAB_SHFL_H
#define LOCKLAB_SHFL_H
#include "mcs.h"
#include "ts_gate.h"
LL_API_BEGIN
typedef struct ll_shfl_node {
    ll_mcs_node mcs; /* the MCS prefix: next, waiting (1 keep waiting, 0 you are the head), socket, parker */
    uint32_t batch;  /* same-socket waiters a run of shuffling has promoted up to this one (shufflers write it) */
} ll_shfl_node;
typedef struct ll_shfl_lock {
    ll_ts_gate gate;      /* the TS lock and the head's impatient flag (ts_gate.h) */
    ll_atomic_ptr tail;   /* the waiters' MCS queue; its head spins on the gate */
    uint32_t max_batch;   /* spec key max_batch; read-only after init */
    uint32_t patience_us; /* spec key patience_ns / 1000; read-only after init */
} ll_shfl_lock;
/* A run of shuffling promotes at most this many same-socket waiters (then FIFO again). */
#define LL_SHFL_DEFAULT_MAX_BATCH 128u
/* The head's patience before it stops the barging, as fissile's. */
#define LL_SHFL_DEFAULT_PATIENCE_NS 1000000u
#define LL_SHFL_INITIALIZER \
    { LL_TS_GATE_INITIALIZER, LL_ATOMIC_INIT(NULL), LL_SHFL_DEFAULT_MAX_BATCH, LL_SHFL_DEFAULT_PATIENCE_NS / 1000u }
void ll_shfl_init(ll_shfl_lock *l, uint32_t max_batch, uint64_t patience_ns);
void ll_shfl_acquire_slow(ll_shfl_lock *l, ll_wait_policy *wp);
/* Timed acquire: true if we own the lock, false if deadline_ns (ll_now_ns clock) passed first. */
bool ll_shfl_acquire_until(ll_shfl_lock *l, ll_wait_policy *wp, uint64_t deadline_ns);

/* ll_shfl_try_acquire, _acquire, _release, _is_locked: the gate's fast paths (ts_gate.h,
 * which explains their orders). */
LL_TS_GATE_FAST_PATHS(ll_shfl)
LL_API_END
#endif
