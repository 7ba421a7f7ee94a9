/* hmcs: two-level hierarchical MCS lock (Chabbi, Fagan & Mellor-Crummey), per-socket MCS + global MCS (src/locks/hmcs.c). */
#ifndef LOCKLAB_HMCS_H
#define LOCKLAB_HMCS_H
#include "mcs.h"
LL_API_BEGIN
/* A thread's node in its socket's queue: the MCS node prefix, whose waiting word
 * (mcs.waiting) holds the status: LL_HMCS_WAIT, a cohort count 1..threshold, or
 * LL_HMCS_ACQUIRE_PARENT; mcs.next is the socket successor, set by the successor. */
typedef struct ll_hmcs_node {
    ll_mcs_node mcs;
} ll_hmcs_node;
#define LL_HMCS_WAIT 0u                   /* keep waiting */
#define LL_HMCS_ACQUIRE_PARENT 0xffffffffu /* you own the socket lock; now acquire the global lock
                                              (with one socket: you own the lock) */
/* status k in 1..threshold: you own the socket lock and the global lock (one socket: the
 * socket lock, which is the whole lock); you are the k-th consecutive holder from this socket */

/* One socket: its queue's tail and its node in the global queue, on separate sectors. */
typedef struct ll_hmcs_socket {
    LL_ALIGNED(LL_SECTOR) ll_atomic_ptr tail;
    LL_ALIGNED(LL_SECTOR) ll_mcs_node global_node; /* used by the socket's current cohort head only */
    ll_mcs_node *global_holder; /* the node the cohort holds the global lock with: global_node, or a
                                   timed cohort head's cache node (hmcs.c); holder only */
} ll_hmcs_socket;

typedef struct ll_hmcs_lock {
    ll_hmcs_socket *sockets; /* nsockets entries, from ll_hmcs_init */
    uint32_t nsockets;
    uint32_t threshold;      /* consecutive same-socket holders before the global lock is released */
    LL_ALIGNED(LL_SECTOR) ll_mcs_lock global;
} ll_hmcs_lock;
#define LL_HMCS_DEFAULT_THRESHOLD 64

/* nsockets = 0: ll_topology_sockets().  Returns 0, or -1 if out of memory. */
int ll_hmcs_init(ll_hmcs_lock *l, uint32_t nsockets, uint32_t threshold);
void ll_hmcs_destroy(ll_hmcs_lock *l);
/* The socket index to pass to acquire (ll_current_socket() folded into range). */
uint32_t ll_hmcs_socket_of_caller(const ll_hmcs_lock *l);
/* Pass the same node and socket (< nsockets) to the matching release (node valid until it returns). */
void ll_hmcs_acquire(ll_hmcs_lock *l, ll_hmcs_node *me, uint32_t socket, ll_wait_policy *wp);
bool ll_hmcs_try_acquire(ll_hmcs_lock *l, ll_hmcs_node *me, uint32_t socket, ll_wait_policy *wp);
void ll_hmcs_release(ll_hmcs_lock *l, ll_hmcs_node *me, uint32_t socket, ll_wait_policy *wp);
/* Timed acquire: false if ll_now_ns() reached deadline_ns first.  me must come from
 * ll_qnode_get(): on false it belongs to the lock (hmcs.c, "Timed acquire"). */
bool ll_hmcs_acquire_until(ll_hmcs_lock *l, ll_hmcs_node *me, uint32_t socket, ll_wait_policy *wp,
                           uint64_t deadline_ns);
/* is_locked: a snapshot, for assertions and statistics.  The holder holds the
 * global lock (a cohort passes it on without freeing it), which is free only
 * when no socket holds or waits for it; with one socket, the socket lock alone
 * (hmcs.c: one level). */
LL_INLINE bool ll_hmcs_is_locked(ll_hmcs_lock *l)
{
    if (l->nsockets == 1) /* acquire: as ll_mcs_is_locked's */
        return ll_load_acquire(&l->sockets[0].tail) != NULL;
    return ll_mcs_is_locked(&l->global);
}
LL_API_END
#endif
