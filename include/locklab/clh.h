/* clh: Craig / Landin-Hagersten queue lock (src/locks/clh.c). */
#ifndef LOCKLAB_CLH_H
#define LOCKLAB_CLH_H
#include "wait.h"
#ifdef __cplusplus
extern "C" {
#endif
/* state: LL_CLH_FREE, LL_CLH_BUSY, or the parker of a successor that sleeps on this node */
typedef struct ll_clh_node { ll_atomic_ptr state; } ll_clh_node;
#define LL_CLH_FREE ((void *)0)
#define LL_CLH_BUSY ((void *)1)
typedef struct ll_clh_lock { ll_atomic_ptr tail; } ll_clh_lock;
/* The lock needs one free node to start: tail = a node in state FREE. */
void ll_clh_init(ll_clh_lock *l, ll_clh_node *initial);
/* Acquire with node me; returns the predecessor's node, which the caller owns
 * after release (nodes migrate: pass the returned node to the next acquire). */
ll_clh_node *ll_clh_acquire(ll_clh_lock *l, ll_clh_node *me, ll_wait_policy *wp);
ll_clh_node *ll_clh_try_acquire(ll_clh_lock *l, ll_clh_node *me); /* NULL if busy */
void ll_clh_release(ll_clh_node *me, ll_wait_policy *wp);
#ifdef __cplusplus
}
#endif
#endif
