/* twa: ticket lock with a global waiting array for long-term waiters (src/locks/twa.c).
 * Expert verbs: init, acquire, try_acquire, release, is_locked (docs/design.md, "Expert headers"). */
#ifndef LOCKLAB_TWA_H
#define LOCKLAB_TWA_H
#include "ticket.h"
LL_API_BEGIN
#define LL_TWA_ARRAY_SLOTS 4096
#define LL_TWA_DEFAULT_THRESHOLD 1
typedef struct ll_twa_lock {
    ll_ticket_lock ticket; /* the ticket lock's words and states (its address keys the waiting array) */
    uint32_t threshold;    /* LongTermThreshold (spec key threshold, >= 1); read-only after init */
} ll_twa_lock;
#define LL_TWA_INITIALIZER { LL_TICKET_INITIALIZER, LL_TWA_DEFAULT_THRESHOLD }
void ll_twa_init(ll_twa_lock *l, uint32_t threshold);
LL_LOCK_VERBS(ll_twa, ll_twa_lock);
/* Timed acquire: false if ll_now_ns() reached deadline_ns first (twa.c, "Timed acquire"). */
bool ll_twa_acquire_until(ll_twa_lock *l, ll_wait_policy *wp, uint64_t deadline_ns);
LL_API_END
#endif
