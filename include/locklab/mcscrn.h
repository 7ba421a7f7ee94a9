/* mcscrn: NUMA-aware MCSCR (Dice, Malthusian Locks §9.1) (src/locks/mcscrn.c). */
#ifndef LOCKLAB_MCSCRN_H
#define LOCKLAB_MCSCRN_H
#include "mcscr.h"
LL_API_BEGIN
/* mcscr's node: the owner's socket is recorded in mcs.socket when it enqueues to wait. */
typedef ll_mcscr_node ll_mcscrn_node;
typedef struct ll_mcscrn_lock {
    ll_mcscr_lock cr;      /* tail, passive list (culled surplus of the home socket), fairness, defer_ns,
                              warm, patience_ns: as mcscr, whose release code mcscrn extends */
    /* lock holder only: */
    ll_mcscr_list remote;  /* culled waiters of other sockets */
    int32_t home;          /* the preferred socket */
    uint32_t rehome;       /* 1/rehome: chance per unlock to move home to the eldest remote thread's socket */
} ll_mcscrn_lock;
/* mcscr's defaults (its spec keys are mcscr's, plus rehome) */
#define LL_MCSCRN_DEFAULT_FAIRNESS LL_MCSCR_DEFAULT_FAIRNESS
#define LL_MCSCRN_DEFAULT_REHOME 1000
#define LL_MCSCRN_DEFAULT_DEFER_NS LL_MCSCR_DEFAULT_DEFER_NS
#define LL_MCSCRN_DEFAULT_PATIENCE_NS LL_MCSCR_DEFAULT_PATIENCE_NS
#define LL_MCSCRN_INITIALIZER                                                                    \
    { { LL_ATOMIC_INIT(NULL), {NULL, NULL}, LL_MCSCRN_DEFAULT_FAIRNESS, LL_MCSCRN_DEFAULT_DEFER_NS, 1,  \
        LL_MCSCRN_DEFAULT_PATIENCE_NS, 0, 1, 0 },                                                       \
      {NULL, NULL}, 0, LL_MCSCRN_DEFAULT_REHOME }
/* fairness, rehome >= 1; defer_ns 0 = never defer; warm 0 or 1; patience_ns 0 = no time bound. */
void ll_mcscrn_init(ll_mcscrn_lock *l, uint32_t fairness, uint32_t rehome, uint32_t defer_ns, uint32_t warm,
                    uint32_t patience_ns);
/* The node must stay valid from acquire until the matching release returns. */
void ll_mcscrn_acquire(ll_mcscrn_lock *l, ll_mcscrn_node *me, ll_wait_policy *wp);
void ll_mcscrn_release(ll_mcscrn_lock *l, ll_mcscrn_node *me, ll_wait_policy *wp);
/* Timed acquire, as ll_mcscr_acquire_until (me from ll_qnode_get(); on false the lock's). */
bool ll_mcscrn_acquire_until(ll_mcscrn_lock *l, ll_mcscrn_node *me, ll_wait_policy *wp, uint64_t deadline_ns);
/* As mcscr's try-acquire: CAS tail NULL -> me. */
bool ll_mcscrn_try_acquire(ll_mcscrn_lock *l, ll_mcscrn_node *me);
LL_INLINE bool ll_mcscrn_is_locked(ll_mcscrn_lock *l) { return ll_mcscr_is_locked(&l->cr); } /* a snapshot */
LL_API_END
#endif
