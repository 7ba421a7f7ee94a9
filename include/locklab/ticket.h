/* ticket: classic ticket lock (src/locks/ticket.c); ticket-pb, the same lock
 * with proportional backoff, is locklab/ticket_pb.h.
 * Expert verbs: init, acquire, try_acquire, release, is_locked (docs/design.md, "Expert headers"). */
#ifndef LOCKLAB_TICKET_H
#define LOCKLAB_TICKET_H
#include "wait.h"
LL_API_BEGIN
typedef struct ll_ticket_lock {
    ll_atomic_u32 next;  /* next ticket to hand out */
    ll_atomic_u32 grant; /* ticket now allowed in */
    ll_atomic_u32 gone;  /* a timed waiter's departure note (src/locks/ticket_gone.h) */
} ll_ticket_lock;
#define LL_TICKET_INITIALIZER { LL_ATOMIC_INIT(0), LL_ATOMIC_INIT(0), LL_ATOMIC_INIT(0) }
void ll_ticket_init(ll_ticket_lock *l);
LL_LOCK_VERBS(ll_ticket, ll_ticket_lock); /* wp: spin or yield */
/* Timed acquire: false if ll_now_ns() reached deadline_ns first (ticket.c, "Timed acquire"). */
bool ll_ticket_acquire_until(ll_ticket_lock *l, ll_wait_policy *wp, uint64_t deadline_ns);
LL_API_END
#endif
