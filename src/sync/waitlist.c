/*
 * Waiter lists of the condition variables and semaphores: enqueue by
 * discipline, take, wake, block with a deadline, and the deferred wake list
 * (wait morphing).  Malthusian paper §6.10, §6.11, Appendix A footnote 40.
 * State machine of a node: waitlist.h.
 */
#include <errno.h>

#include "locklab/wait.h"
#include "waitlist.h"

LL_STATIC_ASSERT((unsigned)LL_SYNC_EINTR == (unsigned)LL_PARK_EINTR && (unsigned)LL_SYNC_CANCEL == (unsigned)LL_PARK_CANCEL, "sync options are park options");

enum { GUARD_SPINS = 100 }; /* PAUSEs before yielding: the holder may have been preempted */

/* The guards this thread is taking or holds (waitlist.h, "Signal handlers"): a stack, since a
 * handler's own semaphore calls nest inside the interrupted one's; deeper nesting is not
 * marked (such a handler waits for the guard as before).  Written only by its thread, read
 * by that thread's handlers: compiler barriers order it against the guard word. */
enum { SYNC_MARKS = 4 };
typedef struct sync_marks {
    ll_atomic_u32 *guard[SYNC_MARKS];
    unsigned depth;
} sync_marks;
LL_THREAD_ELEMENT(sync_marks, my_marks, {{NULL}, 0})

static void mark_push(ll_atomic_u32 *guard)
{
    sync_marks *m = my_marks();
    unsigned d = m->depth;
    if (d < SYNC_MARKS)
        m->guard[d] = guard;
    ll_compiler_barrier(); /* a handler sees the entry once it sees the depth */
    m->depth = d + 1;
    ll_compiler_barrier(); /* marked before we try the guard */
}

static void mark_pop(void)
{
    ll_compiler_barrier(); /* the guard released before its mark goes */
    my_marks()->depth--;
}

static bool marked_by_me(ll_atomic_u32 *guard)
{
    sync_marks *m = my_marks();
    unsigned n = m->depth < SYNC_MARKS ? m->depth : SYNC_MARKS;
    for (unsigned i = 0; i < n; i++)
        if (m->guard[i] == guard)
            return true;
    return false;
}

bool ll_sync_guard_defer_post(ll_atomic_u32 *guard)
{
    if (LL_LIKELY(my_marks()->depth == 0) || !marked_by_me(guard))
        return false;
    uint32_t w = ll_load_relaxed(guard); /* relaxed: the CAS decides */
    while (w & LL_SYNC_GUARD_HELD)
        /* relaxed: only adds to the count that the holder's exchange collects (an RMW on the same word) */
        if (ll_cas(guard, &w, w + LL_SYNC_GUARD_DEFERRED, LL_RELAXED))
            return true;
    return false; /* free: the interrupted thread has not taken it yet, take it as usual */
}

void ll_sync_guard_unlock(ll_atomic_u32 *guard)
{
    uint32_t w = ll_xchg(guard, 0, LL_RELEASE); /* release: list updates before the next holder's acquire CAS */
    mark_pop();
    /* Posts signal handlers deferred to us (a semaphore's guard: waitlist.h); ours now. */
    for (uint32_t n = w / LL_SYNC_GUARD_DEFERRED; n > 0; n--)
        ll_sem_post((ll_sem *)(void *)guard); /* no error to report: the handler's post returned 0 */
}

void ll_sync_guard_lock(ll_atomic_u32 *guard)
{
    mark_push(guard);
    uint32_t steps = 0;
    for (unsigned spins = 0;; spins++) {
        uint32_t expected = 0;
        if (ll_load_relaxed(guard) == 0 && /* relaxed: a hint, the CAS decides */
            ll_cas(guard, &expected, LL_SYNC_GUARD_HELD, LL_ACQUIRE)) /* acquire: pairs with ll_sync_guard_unlock's release */
            return;
        if (spins < GUARD_SPINS) {
            ll_pause();
        } else {
            ll_yield();
            ll_spin_steps(&steps, LL_STEPS_PER_YIELD); /* a real-time caller sleeps (wait.h) */
        }
    }
}

ll_sync_policy ll_sync_policy_resolve(uint32_t discipline, uint32_t append_one_in, const ll_sync_config *defaults)
{
    ll_sync_policy p;
    if (discipline == LL_DISCIPLINE_DEFAULT) {
        discipline = defaults->discipline;
        append_one_in = defaults->append_one_in;
    }
    p.discipline = discipline == LL_DISCIPLINE_LIFO_CR ? LL_DISCIPLINE_LIFO_CR : LL_DISCIPLINE_FIFO;
    p.append_one_in = append_one_in ? append_one_in : 1000;
    return p;
}

void ll_sync_enqueue(ll_sync_list *l, struct ll_sync_waiter *w, ll_sync_policy p, ll_thread *self)
{
    w->parker = self->parker;
    w->wake_next = NULL;
    ll_store_relaxed(&w->state, LL_SYNC_LISTED); /* relaxed: published by the guard's release */
    int append = p.discipline == LL_DISCIPLINE_FIFO ||
                 (uint64_t)(((unsigned __int128)ll_rand_next(&self->rng) * p.append_one_in) >> 64) == 0;
    if (append) {
        w->next = NULL;
        w->prev = *l->tail;
        if (*l->tail)
            (*l->tail)->next = w;
        else
            *l->head = w;
        *l->tail = w;
    } else {
        w->prev = NULL;
        w->next = *l->head;
        if (*l->head)
            (*l->head)->prev = w;
        else
            *l->tail = w;
        *l->head = w;
    }
    if (l->count) /* relaxed: under the guard; read without it only as a hint (cond.c, take_first) */
        ll_store_relaxed(l->count, ll_load_relaxed(l->count) + 1);
}

static void unlink_node(ll_sync_list *l, struct ll_sync_waiter *w)
{
    if (w->prev)
        w->prev->next = w->next;
    else
        *l->head = w->next;
    if (w->next)
        w->next->prev = w->prev;
    else
        *l->tail = w->prev;
    if (l->count) /* relaxed: as in ll_sync_enqueue */
        ll_store_relaxed(l->count, ll_load_relaxed(l->count) - 1);
}

struct ll_sync_waiter *ll_sync_take_first(ll_sync_list *l)
{
    for (struct ll_sync_waiter *w = *l->head; w; w = w->next) {
        uint32_t expected = LL_SYNC_LISTED;
        /* relaxed: only decides LISTED -> TAKEN against the owner's LISTED -> CANCELLING;
         * the owner learns of its wake-up from the release store of WOKEN in ll_sync_wake */
        if (ll_cas(&w->state, &expected, LL_SYNC_TAKEN, LL_RELAXED)) {
            unlink_node(l, w);
            return w;
        }
        /* CANCELLING: its owner timed out and unlinks it itself; skip it */
    }
    return NULL;
}

void ll_sync_wake(struct ll_sync_waiter *w)
{
    ll_parker *parker = w->parker; /* read before the store below lets the owner return */
    ll_store_release(&w->state, LL_SYNC_WOKEN); /* release: pairs with the owner's acquire in woken() */
    ll_parker_unpark(parker); /* parkers are never freed: a late unpark is only a spurious wake */
}

/* ll_sync_wake of a and b with one system call where both sleep (ll_futex_wake_two): a
 * broadcast's waker makes half the calls, and gives a woken waiter that preempts it half
 * the chances to leave the rest asleep until it runs again (a condition-variable barrier
 * of 4 threads: +8%).  The parker protocol is ll_parker_unpark's, with the kernel doing
 * b's exchange. */
static void wake_two(struct ll_sync_waiter *a, struct ll_sync_waiter *b)
{
    ll_parker *pa = a->parker, *pb = b->parker; /* read before the stores below let the owners return */
    ll_store_release(&a->state, LL_SYNC_WOKEN); /* release: pairs with the owner's acquire in woken() */
    ll_store_release(&b->state, LL_SYNC_WOKEN); /* release: as above */
    ll_fence(LL_SEQ_CST); /* publish-before-check: pairs with the fence in the parkers' park */
    bool wake_a = ll_parker_claim(pa);
    LL_STATIC_ASSERT(LL_PARKER_RUN < 2048 && LL_PARKER_SLEEP < 2048, "FUTEX_WAKE_OP's operands have 12 bits");
    /* the kernel does ll_parker_claim's exchange on b (ordered by the fence too) and both
     * wake-ups; if the call fails it did nothing, and the two wake-ups below do it */
    if (wake_a && ll_parker_sleeping(pb) &&
        ll_futex_wake_two(&pa->state, &pb->state, LL_PARKER_RUN, LL_PARKER_SLEEP))
        return;
    if (wake_a)
        ll_futex_wake(&pa->state, 1);
    if (ll_parker_claim(pb))
        ll_futex_wake(&pb->state, 1);
}

void ll_wake_list_flush(ll_wake_list *list)
{
    struct ll_sync_waiter *w = list->head;
    list->head = NULL;
    while (w) {
        struct ll_sync_waiter *next = w->wake_next; /* read before a wake-up lets w's owner return */
        if (next == NULL) {
            ll_sync_wake(w);
            return;
        }
        struct ll_sync_waiter *after = next->wake_next; /* likewise for next */
        wake_two(w, next);
        w = after;
    }
}

static bool woken(void *ctx)
{
    /* acquire: pairs with the release store of WOKEN in ll_sync_wake */
    return ll_load_acquire(&((struct ll_sync_waiter *)ctx)->state) == LL_SYNC_WOKEN;
}

int ll_sync_block(ll_sync_list *l, struct ll_sync_waiter *w, clockid_t clock, const struct timespec *abstime,
                  unsigned opts)
{
    if (abstime == NULL && opts == 0) {
        ll_parker_park_until(w->parker, woken, w);
        return 0;
    }
    int rc = ll_parker_park_opts(w->parker, woken, w, clock, abstime, opts);
    if (rc == 0 || !ll_sync_withdraw(l, w))
        return 0; /* woken, or taken by a signal or post before we could withdraw: the wake-up is ours */
    return rc;
}

bool ll_sync_withdraw(ll_sync_list *l, struct ll_sync_waiter *w)
{
    uint32_t expected = LL_SYNC_LISTED;
    /* relaxed: decides against a signaller's LISTED -> TAKEN; the unlink below is under the guard */
    if (ll_cas(&w->state, &expected, LL_SYNC_CANCELLING, LL_RELAXED)) {
        ll_sync_guard_lock(l->guard);
        unlink_node(l, w);
        ll_sync_guard_unlock(l->guard);
        return true;
    }
    /* Taken by a signal or post before we could withdraw: the wake-up is ours (perhaps still on
     * a mutex's deferred list) and will touch our node, so wait for it. */
    ll_parker_park_until(w->parker, woken, w);
    return false;
}

int ll_sync_check_deadline(clockid_t clock, const struct timespec *abstime)
{
    if (abstime == NULL)
        return 0;
    if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC)
        return EINVAL;
    return abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000L ? EINVAL : 0;
}

void ll_sync_await_empty(ll_sync_list *l)
{
    uint32_t steps = 0;
    for (;;) {
        ll_sync_guard_lock(l->guard);
        bool empty = *l->head == NULL;
        ll_sync_guard_unlock(l->guard);
        if (empty)
            return;
        ll_yield();
        ll_spin_steps(&steps, LL_STEPS_PER_YIELD); /* a real-time caller sleeps (wait.h) */
    }
}
