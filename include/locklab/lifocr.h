/* lifocr: LIFO lock with concurrency restriction, Dice's LIFO-CR (src/locks/lifocr.c).
 * Expert verbs: init, acquire, try_acquire, release, is_locked (docs/design.md, "Expert headers"). */
#ifndef LOCKLAB_LIFOCR_H
#define LOCKLAB_LIFOCR_H
#include "wait.h"
LL_API_BEGIN
/* A waiter's stack node (a queue-node slot, taken from the per-thread cache
 * only while the thread waits). */
typedef struct ll_lifocr_node {
    ll_atomic_ptr next;    /* node below this one, or LL_LIFOCR_LOCKED at the bottom; written by the
                              pusher before the push, afterwards only by lock holders */
    ll_atomic_u32 waiting; /* 1 while the owner must wait; the granting holder stores 0 */
    LL_SHARED_PLAIN(ll_parker *) parker; /* owner's parker, read by the granting holder */
    LL_SHARED_PLAIN(uint64_t) since;     /* ll_now_ns() when the owner pushed (0 if patience_ns = 0); read by holders */
} ll_lifocr_node;
typedef struct ll_lifocr_lock {
    ll_atomic_ptr top; /* NULL free; LL_LIFOCR_LOCKED held, no waiters; else the most recent waiter */
    uint32_t fairness; /* each contended unlock grants the eldest waiter with probability 1/fairness; 0 = never */
    uint32_t patience_ns; /* locklab extension: a contended unlock grants the eldest waiter once it has
                             waited this long; 0 = off (the paper's algorithm) */
    LL_SHARED_PLAIN(uint64_t) check_at; /* patience_ns: no eldest waiter is overdue before this time (ll_now_ns);
                             read and written only by holders */
} ll_lifocr_lock;
#define LL_LIFOCR_LOCKED ((void *)1)
#define LL_LIFOCR_DEFAULT_FAIRNESS 1000
#define LL_LIFOCR_DEFAULT_PATIENCE_NS 50000000u /* 50 ms */
#define LL_LIFOCR_INITIALIZER { LL_ATOMIC_INIT(NULL), LL_LIFOCR_DEFAULT_FAIRNESS, LL_LIFOCR_DEFAULT_PATIENCE_NS, LL_SHARED_PLAIN_INIT(0) }
/* fairness, patience_ns: the spec keys (0 = off for either). */
void ll_lifocr_init(ll_lifocr_lock *l, uint32_t fairness, uint32_t patience_ns);
/* No node in the API: a contended acquire takes one from the per-thread cache
 * and returns it as soon as it owns the lock (the granting holder unlinked it). */
LL_LOCK_VERBS(ll_lifocr, ll_lifocr_lock);
/* Timed acquire: false if ll_now_ns() reached deadline_ns first (lifocr.c, "Timed acquire"). */
bool ll_lifocr_acquire_until(ll_lifocr_lock *l, ll_wait_policy *wp, uint64_t deadline_ns);
LL_API_END
#endif
