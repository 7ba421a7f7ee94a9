/* mcscrn: NUMA-aware MCSCR (Dice, Malthusian Locks §9.1) (src/locks/mcscrn.c). */
#ifndef LOCKLAB_MCSCRN_H
#define LOCKLAB_MCSCRN_H
#include "wait.h"
#ifdef __cplusplus
extern "C" {
#endif
typedef struct ll_mcscrn_node {
    ll_atomic_ptr next;    /* chain successor's node, set by the successor */
    ll_atomic_u32 waiting; /* 1 while the owner of this node must wait */
    int32_t socket;        /* owner's socket (ll_current_socket()) when it enqueued to wait */
    ll_parker *parker;     /* owner's parker, read by whoever grants the node */
    /* links in the passive or the remote list: read and written only by the lock holder */
    struct ll_mcscrn_node *newer, *older;
    uint64_t since;        /* ll_now_ns() when culled into a list (lock holder only; patience_ns) */
} ll_mcscrn_node;
typedef struct ll_mcscrn_list { ll_mcscrn_node *newest, *eldest; } ll_mcscrn_list;
typedef struct ll_mcscrn_lock {
    ll_atomic_ptr tail;     /* the MCS tail */
    /* lock holder only: */
    ll_mcscrn_list passive; /* culled surplus waiters of the home socket */
    ll_mcscrn_list remote;  /* culled waiters of other sockets */
    int32_t home;           /* the preferred socket */
    uint32_t fairness;      /* 1/fairness: chance per unlock to grant the eldest passive thread */
    uint32_t rehome;        /* 1/rehome: chance per unlock to move home to the eldest remote thread's socket */
    uint32_t defer_ns;      /* before waking a parked thread to serve it, wait this long for an arrival */
    uint32_t warm;          /* 1: anticipatory warm-up of the passive list (see mcscr.c) */
    uint32_t patience_ns;   /* serve the eldest listed thread once it has waited this long (0 = off) */
} ll_mcscrn_lock;
#define LL_MCSCRN_DEFAULT_FAIRNESS 1000
#define LL_MCSCRN_DEFAULT_REHOME 1000
#define LL_MCSCRN_DEFAULT_DEFER_NS 25000 /* as LL_MCSCR_DEFAULT_DEFER_NS */
#define LL_MCSCRN_DEFAULT_PATIENCE_NS 50000000
#define LL_MCSCRN_INITIALIZER                                                                    \
    { LL_ATOMIC_INIT(NULL), {NULL, NULL}, {NULL, NULL}, 0, LL_MCSCRN_DEFAULT_FAIRNESS,           \
      LL_MCSCRN_DEFAULT_REHOME, LL_MCSCRN_DEFAULT_DEFER_NS, 1, LL_MCSCRN_DEFAULT_PATIENCE_NS }
/* fairness, rehome >= 1; defer_ns 0 = never defer; warm 0 or 1; patience_ns 0 = no time bound. */
void ll_mcscrn_init(ll_mcscrn_lock *l, uint32_t fairness, uint32_t rehome, uint32_t defer_ns, uint32_t warm,
                    uint32_t patience_ns);
/* The node must stay valid from acquire until the matching release returns. */
void ll_mcscrn_acquire(ll_mcscrn_lock *l, ll_mcscrn_node *me, ll_wait_policy *wp);
bool ll_mcscrn_try_acquire(ll_mcscrn_lock *l, ll_mcscrn_node *me);
void ll_mcscrn_release(ll_mcscrn_lock *l, ll_mcscrn_node *me, ll_wait_policy *wp);
#ifdef __cplusplus
}
#endif
#endif
