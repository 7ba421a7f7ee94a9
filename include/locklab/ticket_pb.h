/* ticket-pb: the ticket lock with proportional backoff (src/locks/ticket_pb.c).
 * Expert verbs: init, acquire, try_acquire, release, is_locked (docs/design.md, "Expert headers"). */
#ifndef LOCKLAB_TICKET_PB_H
#define LOCKLAB_TICKET_PB_H
#include "ticket.h"
LL_API_BEGIN
/* Proportional backoff: wait (ticket - grant) * unit PAUSE steps between reads of grant. */
/* A small unit: a PAUSE costs from a few to over a hundred cycles depending on the CPU, and
 * every waiter ahead adds unit PAUSEs to the time a waiter takes to notice its turn; large
 * units (64) made the handover several times slower at 2 threads. */
#define LL_TICKET_PB_DEFAULT_UNIT 4
typedef struct ll_ticket_pb_lock {
    ll_ticket_lock ticket; /* the ticket lock's words and states */
    uint32_t unit;         /* PAUSE steps per waiter ahead (spec key unit); read-only after init */
} ll_ticket_pb_lock;
#define LL_TICKET_PB_INITIALIZER { LL_TICKET_INITIALIZER, LL_TICKET_PB_DEFAULT_UNIT }
void ll_ticket_pb_init(ll_ticket_pb_lock *l, uint32_t unit);
LL_LOCK_VERBS(ll_ticket_pb, ll_ticket_pb_lock); /* wp unused: the backoff is the waiting */
LL_API_END
#endif
