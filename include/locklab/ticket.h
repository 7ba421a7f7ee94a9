/* ticket: classic ticket lock (src/locks/ticket.c); ticket-pb adds proportional backoff (src/locks/ticket_pb.c). */
#ifndef LOCKLAB_TICKET_H
#define LOCKLAB_TICKET_H
#include "wait.h"
#ifdef __cplusplus
extern "C" {
#endif
typedef struct ll_ticket_lock {
    ll_atomic_u32 next;  /* next ticket to hand out */
    ll_atomic_u32 grant; /* ticket now allowed in */
} ll_ticket_lock;
#define LL_TICKET_INITIALIZER { LL_ATOMIC_INIT(0), LL_ATOMIC_INIT(0) }
void ll_ticket_acquire(ll_ticket_lock *l, ll_wait_policy *wp);
bool ll_ticket_try_acquire(ll_ticket_lock *l);
void ll_ticket_release(ll_ticket_lock *l);
/* Proportional backoff: wait (ticket - grant) * unit PAUSE steps between reads of grant. */
/* PAUSE costs ~13 ns on the Intel host measured here (a few ns on others): 64 made a
 * waiter notice its turn ~0.8 us late per position (2.5x slower than 4-8 at 2 threads). */
#define LL_TICKET_PB_DEFAULT_UNIT 4
void ll_ticket_pb_acquire(ll_ticket_lock *l, uint32_t unit);
#ifdef __cplusplus
}
#endif
#endif
