/* mcs: Mellor-Crummey & Scott queue lock with explicit queue nodes (src/locks/mcs.c). */
#ifndef LOCKLAB_MCS_H
#define LOCKLAB_MCS_H
#include "wait.h"
#ifdef __cplusplus
extern "C" {
#endif
typedef struct ll_mcs_node {
    ll_atomic_ptr next;    /* successor's node, set by the successor */
    ll_atomic_u32 waiting; /* 1 while the owner of this node must wait */
    ll_parker *parker;     /* owner's parker, read by the predecessor */
} ll_mcs_node;
typedef struct ll_mcs_lock { ll_atomic_ptr tail; } ll_mcs_lock;
#define LL_MCS_INITIALIZER { LL_ATOMIC_INIT(NULL) }
/* The node must stay valid from acquire until the matching release returns. */
void ll_mcs_acquire(ll_mcs_lock *l, ll_mcs_node *me, ll_wait_policy *wp);
bool ll_mcs_try_acquire(ll_mcs_lock *l, ll_mcs_node *me);
void ll_mcs_release(ll_mcs_lock *l, ll_mcs_node *me, ll_wait_policy *wp);
#ifdef __cplusplus
}
#endif
#endif
