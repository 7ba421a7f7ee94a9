/* mcscr: MCS with concurrency restriction (Dice, Malthusian Locks §4) (src/locks/mcscr.c). */
#ifndef LOCKLAB_MCSCR_H
#define LOCKLAB_MCSCR_H
#include "mcs.h"
LL_API_BEGIN
typedef struct ll_mcscr_node {
    ll_mcs_node mcs; /* the MCS node prefix: chain next, waiting (1 wait, 0 owner), socket (mcscrn), parker */
    /* passive-set links (newer/older neighbour): read and written only by the lock holder */
    struct ll_mcscr_node *newer, *older;
    uint64_t since;  /* ll_now_ns() when culled into the passive set (lock holder only; patience_ns);
                      * bit 0: cpu_aware found the owner parked (mcscr.c) */
} ll_mcscr_node;
/* A list of culled nodes, newest first (lock holder only). */
typedef struct ll_mcscr_list { ll_mcscr_node *newest, *eldest; } ll_mcscr_list;
typedef struct ll_mcscr_lock {
    ll_atomic_ptr tail;                      /* the MCS tail */
    ll_mcscr_list passive;                   /* passive set: lock holder only */
    uint32_t fairness;                       /* 1/fairness: chance per unlock to grant the eldest passive thread */
    uint32_t defer_ns;                       /* on a deficit, wait this long for an arrival before waking a parked thread */
    uint32_t warm;                           /* 1: anticipatory warm-up of the passive set (see mcscr.c) */
    uint32_t patience_ns;                    /* serve the eldest passive thread once it has waited this long (0 = off) */
    uint32_t cpu_aware;                      /* 1: no wake-up on the critical path (see mcscr.c); mcscrn: always 0 */
    uint32_t hysteresis;                     /* cpu_aware: cull a surplus seen at this many contended releases in a row */
    uint32_t surplus;                        /* ... the count so far (lock holder only) */
} ll_mcscr_lock;
/* A passive node's waiting word: 1 wait, 0 you own the lock, LL_MCSCR_REACTIVATED (cpu_aware):
 * you left the passive set, arrive again. */
enum { LL_MCSCR_REACTIVATED = 2 };
#define LL_MCSCR_DEFAULT_FAIRNESS 1000
/* About one futex wake-up (tens of microseconds; ll_park_cost_ns measures it): deferring for
 * less never delays an admission by more than waking the parked thread would (docs/papers.md,
 * RandArray). */
#define LL_MCSCR_DEFAULT_DEFER_NS 25000
#define LL_MCSCR_DEFAULT_PATIENCE_NS 50000000
#define LL_MCSCR_DEFAULT_HYSTERESIS 4
#define LL_MCSCR_INITIALIZER                                                                     \
    { LL_ATOMIC_INIT(NULL), {NULL, NULL}, LL_MCSCR_DEFAULT_FAIRNESS, LL_MCSCR_DEFAULT_DEFER_NS, 1, \
      LL_MCSCR_DEFAULT_PATIENCE_NS, 1, LL_MCSCR_DEFAULT_HYSTERESIS, 0 }
/* fairness >= 1 (1 = always prefer the eldest passive thread); defer_ns 0 = never defer;
 * warm 0 or 1; patience_ns 0 = no time bound on passive waiting; cpu_aware 0 or 1 (see mcscr.c);
 * hysteresis >= 1 (cpu_aware only; 1 = cull at once).  fairness=1000, defer_ns=0, warm=0, patience_ns=0,
 * cpu_aware=0 is the paper's MCSCR (culling all surplus). */
void ll_mcscr_init(ll_mcscr_lock *l, uint32_t fairness, uint32_t defer_ns, uint32_t warm, uint32_t patience_ns,
                   uint32_t cpu_aware, uint32_t hysteresis);
/* The node must stay valid from acquire until the matching release returns. */
void ll_mcscr_acquire(ll_mcscr_lock *l, ll_mcscr_node *me, ll_wait_policy *wp);
void ll_mcscr_release(ll_mcscr_lock *l, ll_mcscr_node *me, ll_wait_policy *wp);
/* Timed acquire: false if ll_now_ns() reached deadline_ns first.  me must come from
 * ll_qnode_get(): on false it belongs to the lock (mcscr.c, "Timed acquire"). */
bool ll_mcscr_acquire_until(ll_mcscr_lock *l, ll_mcscr_node *me, ll_wait_policy *wp, uint64_t deadline_ns);
/* As MCS: CAS tail NULL -> me, so it fails while anyone is queued (with cpu_aware=1 it
 * may succeed while passive threads wait: they are the holder's to serve). */
bool ll_mcscr_try_acquire(ll_mcscr_lock *l, ll_mcscr_node *me);
/* is_locked: a snapshot, for assertions and statistics.  tail is NULL only when
 * free (a deficit frees the lock and keeps the passive set: tail -> NULL). */
LL_INLINE bool ll_mcscr_is_locked(ll_mcscr_lock *l)
{
    return ll_load_acquire(&l->tail) != NULL; /* acquire: as a successful try_acquire (pairs with the freeing CAS) */
}
LL_API_END
#endif
