/* mcs: Mellor-Crummey & Scott queue lock with explicit queue nodes (src/locks/mcs.c).
 *
 * ll_mcs_node is also the common prefix of every MCS-family node: mcscr,
 * mcscrn, cna and hmcs nodes start with an ll_mcs_node named `mcs`, and the
 * queue steps they share (enqueue, link, wait, hand the tail on, grant,
 * warm-up) live once, in src/locks/mcs_queue.h. */
#ifndef LOCKLAB_MCS_H
#define LOCKLAB_MCS_H
#include "wait.h"
LL_API_BEGIN
typedef struct ll_mcs_node {
    ll_atomic_ptr next;    /* successor's node, set by the successor */
    ll_atomic_u32 waiting; /* the node word: mcs and the CR/NUMA variants 1 = keep waiting, 0 = you own
                              the lock; hmcs stores its status here (LL_HMCS_WAIT = keep waiting) */
    LL_SHARED_PLAIN(int32_t) socket; /* owner's socket, recorded when it links in to wait, by the NUMA-aware locks
                              only (cna, mcscrn); fills what would be padding */
    LL_SHARED_PLAIN(ll_parker *) parker; /* owner's parker, read by whoever grants the node */
} ll_mcs_node;
typedef struct ll_mcs_lock { ll_atomic_ptr tail; } ll_mcs_lock;
#define LL_MCS_INITIALIZER { LL_ATOMIC_INIT(NULL) }
/* The node must stay valid from acquire until the matching release returns. */
void ll_mcs_acquire(ll_mcs_lock *l, ll_mcs_node *me, ll_wait_policy *wp);
bool ll_mcs_try_acquire(ll_mcs_lock *l, ll_mcs_node *me);
void ll_mcs_release(ll_mcs_lock *l, ll_mcs_node *me, ll_wait_policy *wp);
/* Timed acquire: false if ll_now_ns() reached deadline_ns first.  me must come from
 * ll_qnode_get(): on false it belongs to the lock (recycled by a later release). */
bool ll_mcs_acquire_until(ll_mcs_lock *l, ll_mcs_node *me, ll_wait_policy *wp, uint64_t deadline_ns);
/* init: as LL_MCS_INITIALIZER (relaxed: like pthread_mutex_init, publish the lock yourself). */
LL_INLINE void ll_mcs_init(ll_mcs_lock *l) { ll_store_relaxed(&l->tail, NULL); }
/* is_locked: a snapshot, for assertions and statistics (tail is NULL only when free). */
LL_INLINE bool ll_mcs_is_locked(ll_mcs_lock *l)
{
    return ll_load_acquire(&l->tail) != NULL; /* acquire: as a successful try_acquire (pairs with the freeing CAS) */
}
LL_API_END
#endif
