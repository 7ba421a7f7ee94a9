/*
 * ticket-pb — ticket lock with proportional backoff.
 * Source: Mellor-Crummey & Scott 1991; Boyd-Wickizer, Kaashoek, Morris &
 * Zeldovich, "Non-scalable locks are dangerous", Linux Symposium 2012, and
 * the lecture slides on it ("Making ticket spinlock scalable").  A waiter k places from the front delays about
 * k * unit PAUSE steps before it reads grant again, so reads of grant (and the
 * invalidation traffic of each release) fall roughly to one per waiter per
 * handover.  The constant is machine- and load-dependent (spec key unit).
 *
 * Lock words: those of ticket (next, grant), same states.
 * Fairness: strict FIFO.
 * Footprint: 8 bytes per lock (+4 for unit in the generic handle), nothing per waiter.
 * Policies: spin only (the backoff is the waiting policy).
 */
#include "locklab/registry.h"
#include "locklab/ticket_pb.h"
#include "ticket_gone.h"

LL_COLD static void ticket_pb_wait(ll_ticket_lock *l, uint32_t t, uint32_t g, uint32_t unit)
{
    uint32_t steps = 0;
    do {
        if (LL_UNLIKELY(ll_gone_names(&l->gone, g)) && ll_gone_take(&l->gone, g)) {
            ll_ticket_release(l, NULL); /* g's waiter left: its turn is ours, pass it on (ticket_gone.h) */
            continue;
        }
        uint64_t delay = (uint64_t)(t - g) * unit; /* t - g: waiters ahead, wrap-safe */
        ll_spin_steps(&steps, delay < LL_RT_CHECK_STEPS ? (uint32_t)delay + 1 : LL_RT_CHECK_STEPS); /* real-time: sleep (wait.h) */
        for (uint64_t d = delay; d > 0; d--)
            ll_pause();
    } while ((g = ll_load_acquire(&l->grant)) != t); /* acquire: pairs with the release store of grant */
}

void ll_ticket_pb_init(ll_ticket_pb_lock *l, uint32_t unit)
{
    ll_ticket_init(&l->ticket);
    l->unit = unit;
}

void ll_ticket_pb_acquire(ll_ticket_pb_lock *l, ll_wait_policy *wp)
{
    (void)wp; /* the backoff is the waiting policy */
    uint32_t t = ll_faa(&l->ticket.next, 1, LL_RELAXED); /* relaxed: ordering comes from reading grant */
    uint32_t g = ll_load_acquire(&l->ticket.grant);      /* acquire: pairs with the release store of grant */
    if (LL_UNLIKELY(g != t))
        ticket_pb_wait(&l->ticket, t, g, l->unit);
}

bool ll_ticket_pb_try_acquire(ll_ticket_pb_lock *l) { return ll_ticket_try_acquire(&l->ticket); }
void ll_ticket_pb_release(ll_ticket_pb_lock *l, ll_wait_policy *wp)
{
    (void)wp;
    ll_ticket_grant_next(&l->ticket.grant); /* inline: the direct verbs' release is a store */
}
bool ll_ticket_pb_is_locked(ll_ticket_pb_lock *l) { return ll_ticket_is_locked(&l->ticket); }

static const ll_param params[] = {
    {"unit", "PAUSE steps of delay per waiter ahead", 1, 1u << 16, LL_TICKET_PB_DEFAULT_UNIT},
    {NULL, NULL, 0, 0, 0},
};
LL_INIT_ADAPTER(ll_ticket_pb_init((ll_ticket_pb_lock *)s, (uint32_t)p[0]))
LL_LOCK_ADAPTER(ll_ticket_pb_lock, ll_ticket_pb)
/* Timed: the ticket lock's (ticket.c), which waits with the plain spin delay, not the backoff. */
static bool acquire_until(void *s, ll_wait_policy *wp, uint64_t deadline_ns)
{
    if (ll_deadline_passed(deadline_ns))
        return try_acquire(s, wp);
    return ll_ticket_acquire_until(&((ll_ticket_pb_lock *)s)->ticket, wp, deadline_ns);
}

LL_STATIC_ASSERT(offsetof(ll_ticket_pb_lock, ticket) == 0, "the direct try reads the ticket at the state's start");
LL_DIRECT_VERBS_BY(ll_ticket_direct_try)

const ll_lock_ops ll_lock_ticket_pb = {
    .name = "ticket-pb", .source = "Mellor-Crummey & Scott 1991 (proportional backoff)",
    .summary = "ticket lock, delay proportional to queue position",
    .fairness = "FIFO", .policies = LL_SPIN_ONLY, .params = params,
    .state_bytes = sizeof(ll_ticket_pb_lock), .lock_bytes = sizeof(ll_ticket_lock), .init = init, LL_OPS_VERBS,
};
