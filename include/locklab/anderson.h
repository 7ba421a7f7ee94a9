/* anderson: array-based queue lock (src/locks/anderson.c).
 * Expert verbs: init, acquire, try_acquire, release, is_locked (docs/design.md, "Expert headers"). */
#ifndef LOCKLAB_ANDERSON_H
#define LOCKLAB_ANDERSON_H
#include "wait.h"
LL_API_BEGIN
typedef struct ll_anderson_slot { LL_ALIGNED(LL_CACHELINE) ll_atomic_u32 word; } ll_anderson_slot;
typedef struct ll_anderson_lock {
    LL_ALIGNED(LL_SECTOR) ll_atomic_u32 next; /* next ticket (the paper's queueLast) */
    ll_atomic_u32 gone;                       /* a timed waiter's departure note (src/locks/ticket_gone.h) */
    LL_ALIGNED(LL_SECTOR) uint32_t mask;      /* nslots - 1 */
    ll_anderson_slot *slots;                  /* nslots (power of two) lines */
    LL_ALIGNED(LL_SECTOR) uint32_t holder;    /* the holder's ticket: written by the holder only,
                                                 in its own sector (arrivals read mask and slots) */
} ll_anderson_lock;
#define LL_ANDERSON_DEFAULT_SLOTS 64
/* nslots: power of two (spec key slots); slots: nslots of them, zeroed or not,
 * aligned to LL_CACHELINE, owned by the caller and valid while the lock is. */
void ll_anderson_init(ll_anderson_lock *l, ll_anderson_slot *slots, uint32_t nslots);
LL_LOCK_VERBS(ll_anderson, ll_anderson_lock);
/* Timed acquire: false if ll_now_ns() reached deadline_ns first (anderson.c, "Timed acquire"). */
bool ll_anderson_acquire_until(ll_anderson_lock *l, ll_wait_policy *wp, uint64_t deadline_ns);
LL_API_END
#endif
