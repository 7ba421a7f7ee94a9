/* cna: Dice & Kogan compact NUMA-aware lock, an MCS variant with a secondary queue (src/locks/cna.c). */
#ifndef LOCKLAB_CNA_H
#define LOCKLAB_CNA_H
#include "mcs.h"
LL_API_BEGIN
typedef struct ll_cna_node {
    /* The MCS node prefix: next (successor in the main or the secondary queue), waiting
     * (1 = keep waiting, 0 = you own the lock), socket (the owner's if it had to wait,
     * else -1), parker (read by whichever holder grants this node). */
    ll_mcs_node mcs;
    /* Written by the granting holder before it clears mcs.waiting, read by the owner
     * after: LL_CNA_GRANTED = the secondary queue is empty; else its head. */
    void *sec;
    struct ll_cna_node *sec_tail;  /* in a secondary head only: the secondary tail (holders only) */
    uint64_t sec_since;            /* in a secondary head only: when a holder first timed it (0 = not yet) */
} ll_cna_node;
#define LL_CNA_GRANTED ((void *)(uintptr_t)1)

/* The whole lock: one word, the tail of the main queue. */
typedef struct ll_cna_lock { ll_atomic_ptr tail; } ll_cna_lock;
#define LL_CNA_INITIALIZER { LL_ATOMIC_INIT(NULL) }

/* Tunables (spec keys of the same names). */
typedef struct ll_cna_params {
    /* Keep the lock on the holder's socket with probability 1 - 2^-shift (paper: 0xffff
     * mask, i.e. 16); 0 = never (FIFO, like MCS). */
    unsigned keep_local_shift;
    /* Shuffle reduction (paper §6): with an empty secondary queue, search the main queue
     * only with probability 2^-shift; 0 = always search (the paper's base algorithm),
     * 8 = the paper's THRESHOLD2 = 0xff. */
    unsigned shuffle_shift;
    /* locklab extension, not in the paper: also flush the secondary queue once its head
     * has waited about this long (checked on 1 in 64 releases); 0 = off (pure paper). */
    uint64_t flush_ns;
} ll_cna_params;
#define LL_CNA_DEFAULT_KEEP_LOCAL_SHIFT 16
#define LL_CNA_DEFAULT_SHUFFLE_SHIFT 0
#define LL_CNA_DEFAULT_FLUSH_NS 10000000u /* 10 ms */
#define LL_CNA_PARAMS_DEFAULT { LL_CNA_DEFAULT_KEEP_LOCAL_SHIFT, LL_CNA_DEFAULT_SHUFFLE_SHIFT, LL_CNA_DEFAULT_FLUSH_NS }

/* The node must stay valid from acquire until the matching release returns. */
void ll_cna_acquire(ll_cna_lock *l, ll_cna_node *me, ll_wait_policy *wp);
bool ll_cna_try_acquire(ll_cna_lock *l, ll_cna_node *me);
/* Timed acquire: false if ll_now_ns() reached deadline_ns first.  me must come from
 * ll_qnode_get(): on false it belongs to the lock (abandoned; a later release recycles it). */
bool ll_cna_acquire_until(ll_cna_lock *l, ll_cna_node *me, ll_wait_policy *wp, uint64_t deadline_ns);
/* Release with the default tunables. */
void ll_cna_release(ll_cna_lock *l, ll_cna_node *me, ll_wait_policy *wp);
/* init: as LL_CNA_INITIALIZER; is_locked: a snapshot (tail is NULL only when free). As mcs. */
LL_INLINE void ll_cna_init(ll_cna_lock *l) { ll_store_relaxed(&l->tail, NULL); /* relaxed: as ll_mcs_init */ }
LL_INLINE bool ll_cna_is_locked(ll_cna_lock *l)
{
    return ll_load_acquire(&l->tail) != NULL; /* acquire: as ll_mcs_is_locked */
}
void ll_cna_release_tuned(ll_cna_lock *l, ll_cna_node *me, ll_wait_policy *wp, const ll_cna_params *p);
LL_API_END
#endif
