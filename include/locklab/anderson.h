/* anderson: array-based queue lock (src/locks/anderson.c). */
#ifndef LOCKLAB_ANDERSON_H
#define LOCKLAB_ANDERSON_H
#include "wait.h"
#ifdef __cplusplus
extern "C" {
#endif
typedef struct ll_anderson_slot { LL_ALIGNED(LL_CACHELINE) ll_atomic_u32 word; } ll_anderson_slot;
typedef struct ll_anderson_lock {
    LL_ALIGNED(LL_SECTOR) ll_atomic_u32 next; /* next ticket (the paper's queueLast) */
    LL_ALIGNED(LL_SECTOR) uint32_t mask;      /* nslots - 1 */
    ll_anderson_slot *slots;                  /* nslots (power of two) lines */
} ll_anderson_lock;
#define LL_ANDERSON_DEFAULT_SLOTS 64
/* nslots: power of two; slots: nslots zeroed or not, aligned to LL_CACHELINE. */
void ll_anderson_init(ll_anderson_lock *l, ll_anderson_slot *slots, uint32_t nslots);
/* Returns the caller's ticket, to pass to release. */
uint32_t ll_anderson_acquire(ll_anderson_lock *l, ll_wait_policy *wp);
bool ll_anderson_try_acquire(ll_anderson_lock *l, uint32_t *ticket);
void ll_anderson_release(ll_anderson_lock *l, uint32_t ticket, ll_wait_policy *wp);
#ifdef __cplusplus
}
#endif
#endif
