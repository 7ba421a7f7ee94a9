/* twa: ticket lock with a global waiting array for long-term waiters (src/locks/twa.c). */
#ifndef LOCKLAB_TWA_H
#define LOCKLAB_TWA_H
#include "ticket.h"
#ifdef __cplusplus
extern "C" {
#endif
typedef ll_ticket_lock ll_twa_lock; /* same words and states as the ticket lock */
#define LL_TWA_INITIALIZER LL_TICKET_INITIALIZER
#define LL_TWA_ARRAY_SLOTS 4096
#define LL_TWA_DEFAULT_THRESHOLD 1
void ll_twa_acquire(ll_twa_lock *l, uint32_t threshold, ll_wait_policy *wp);
bool ll_twa_try_acquire(ll_twa_lock *l);
void ll_twa_release(ll_twa_lock *l, uint32_t threshold, ll_wait_policy *wp);
#ifdef __cplusplus
}
#endif
#endif
