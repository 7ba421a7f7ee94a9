/* backoff: TTAS with Ethernet-style randomized exponential backoff (src/locks/backoff.c).
 * Expert verbs: init, acquire, try_acquire, release, is_locked (docs/design.md, "Expert headers"). */
#ifndef LOCKLAB_BACKOFF_H
#define LOCKLAB_BACKOFF_H
#include "wait.h"
LL_API_BEGIN
typedef struct ll_backoff_lock {
    ll_atomic_u32 held;
    uint32_t min_delay, max_delay; /* PAUSE steps; the cap starts at min and doubles up to max */
} ll_backoff_lock;
#define LL_BACKOFF_DEFAULT_MIN 16
#define LL_BACKOFF_DEFAULT_MAX 4096
#define LL_BACKOFF_INITIALIZER { LL_ATOMIC_INIT(0), LL_BACKOFF_DEFAULT_MIN, LL_BACKOFF_DEFAULT_MAX }
/* min_delay <= max_delay (spec keys min, max). */
void ll_backoff_init(ll_backoff_lock *l, uint32_t min_delay, uint32_t max_delay);
LL_LOCK_VERBS(ll_backoff, ll_backoff_lock); /* wp unused: the backoff is the waiting */
LL_API_END
#endif
