/* clh: Craig / Landin-Hagersten queue lock (src/locks/clh.c).
 * Expert verbs: init, acquire, try_acquire, release, is_locked (docs/design.md,
 * "Expert headers"), plus destroy (the lock owns one queue node). */
#ifndef LOCKLAB_CLH_H
#define LOCKLAB_CLH_H
#include "wait.h"
LL_API_BEGIN
/* A queue node.  state: LL_CLH_FREE, LL_CLH_BUSY, or the parker of a successor
 * that sleeps on this node.  Nodes migrate: a releaser's node passes to its
 * successor and the releaser keeps its predecessor's, so the lock takes them
 * from the per-thread queue-node cache (ll_qnode_get) and returns them there. */
typedef struct ll_clh_node { ll_atomic_ptr state; } ll_clh_node;
#define LL_CLH_FREE ((void *)0)
#define LL_CLH_BUSY ((void *)1)
typedef struct ll_clh_lock {
    ll_atomic_ptr tail;               /* the most recent arrival's node; never NULL after init */
    ll_clh_node *holder, *holder_pred; /* the holder's node and its predecessor's: holder only */
} ll_clh_lock;
/* No static initialiser: the lock needs one free node to start (taken from the cache). */
void ll_clh_init(ll_clh_lock *l);
void ll_clh_destroy(ll_clh_lock *l); /* the lock must be free: returns its node to the cache */
LL_LOCK_VERBS(ll_clh, ll_clh_lock);
/* Timed acquire: false if ll_now_ns() reached deadline_ns first (clh.c, "Timed acquire"). */
bool ll_clh_acquire_until(ll_clh_lock *l, ll_wait_policy *wp, uint64_t deadline_ns);
LL_API_END
#endif
