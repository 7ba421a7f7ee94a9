/*
 * Waiter lists shared by the condition variables (cond.c) and semaphores
 * (sem.c): Malthusian paper §6.10/§6.11 ("an explicit list of waiting
 * threads", appended or prepended by a biased Bernoulli trial).  Internal.
 *
 * A waiter node lives on the waiting thread's stack.  The list (head, tail,
 * prev/next links) is protected by the object's guard, a short spin lock
 * (ll_sync_guard_lock): its critical sections are a few pointer updates.
 *
 * Node state (w->state)
 *   LISTED      on the object's list; a signal/post may take it
 *   CANCELLING  its owner timed out and will unlink it under the guard;
 *               signals skip it (a timed-out waiter does not consume a wake-up)
 *   TAKEN       off the list, chosen by a signal/post; the wake-up is pending
 *               (perhaps on a mutex's deferred ll_wake_list)
 *   WOKEN       wake-up delivered: the owner may return and reuse its stack;
 *               the waker never touches the node after this store
 * LISTED -> TAKEN (signaller, under the guard) and LISTED -> CANCELLING
 * (owner, without the guard) are CASes on the same word, so exactly one wins.
 */
#ifndef LOCKLAB_SYNC_WAITLIST_H
#define LOCKLAB_SYNC_WAITLIST_H

#include "locklab/core.h"
#include "locklab/sync.h"

enum { LL_SYNC_LISTED = 0, LL_SYNC_CANCELLING = 1, LL_SYNC_TAKEN = 2, LL_SYNC_WOKEN = 3 };

struct ll_sync_waiter {
    struct ll_sync_waiter *prev, *next; /* the object's list: under its guard */
    struct ll_sync_waiter *wake_next;   /* a deferred ll_wake_list, or a broadcast's batch */
    ll_parker *parker;                  /* the owner's (never freed) */
    const ll_mutex_iface *mi;           /* condition variables: the mutex the owner waits with */
    void *mutex;                        /*   (read by ll_cond_*_morph while the node is TAKEN) */
    ll_atomic_u32 state;                /* SYNC_* above */
};

/* The list of one object: pointers into its guard, head and tail. */
typedef struct ll_sync_list {
    ll_atomic_u32 *guard;
    struct ll_sync_waiter **head, **tail;
    ll_atomic_u32 *count; /* listed waiters (NULL: not kept): written under the guard */
} ll_sync_list;

/* The guard word: 0 free; else bit 0 (held) and, in bits 1-31, posts deferred to its holder.
 *
 * Signal handlers: sem_post is async-signal-safe (POSIX), so a handler may post a semaphore
 * while the thread it interrupted is taking or holds that semaphore's guard; waiting for the
 * guard would wait for itself.  So each thread marks the guards it is taking or holds (a
 * per-thread element, SYNC_MARKS deep: handlers nest), and a post that finds its semaphore's
 * guard marked by its own thread does not wait: if the guard is held it adds itself to the
 * guard word (one CAS) and returns, and whoever releases the guard (the interrupted thread,
 * or the thread whose hold the interrupted one was waiting out) performs it right after; if
 * it is free, the post takes it as usual (the interrupted thread had not got it yet).  Only
 * semaphores defer posts: the guard is an ll_sem's first field.
 *
 * Nor may a guard's holder wait for anything a signal handler's post could be holding on
 * another thread: no allocation, no lock, under any guard (ll_sync_enqueue takes the
 * caller's context, allocated beforehand).  A post itself allocates nothing and takes no
 * lock but guards; so a post from a handler waits at most for another thread's few
 * pointer updates. */
enum { LL_SYNC_GUARD_HELD = 1, LL_SYNC_GUARD_DEFERRED = 2 };
void ll_sync_guard_lock(ll_atomic_u32 *guard);
void ll_sync_guard_unlock(ll_atomic_u32 *guard);
/* ll_sem_post's first step: true if it was deferred to the holder of guard (above). */
bool ll_sync_guard_defer_post(ll_atomic_u32 *guard);

/* The effective discipline of an object: its own, else the process default (FIFO). */
typedef struct ll_sync_policy {
    ll_discipline discipline;
    uint32_t append_one_in;
} ll_sync_policy;
ll_sync_policy ll_sync_policy_resolve(uint32_t discipline, uint32_t append_one_in, const ll_sync_config *defaults);
extern ll_sync_config ll_sync_cond_defaults, ll_sync_sem_defaults;

/* Under the guard: put w (initialised here, owned by the caller) on the list
 * by the policy: FIFO appends; LIFO-CR appends with probability 1/append_one_in
 * (self's PRNG), else prepends.  self is the caller's ll_self(), taken before the
 * guard: a thread's first ll_self() allocates its context under the arena's lock,
 * and nothing under a guard may wait for a lock (a semaphore's guard: a post in a
 * signal handler on the arena lock's holder would wait for us, and we for it). */
void ll_sync_enqueue(ll_sync_list *l, struct ll_sync_waiter *w, ll_sync_policy p, ll_thread *self);
/* Under the guard: take the first LISTED waiter off the list (TAKEN), or NULL. */
struct ll_sync_waiter *ll_sync_take_first(ll_sync_list *l);
/* Deliver a TAKEN waiter's wake-up; w may be gone as soon as this stores WOKEN. */
void ll_sync_wake(struct ll_sync_waiter *w);
/* Owner side, after ll_sync_enqueue and releasing the guard (and, for a condition
 * variable, the mutex): block until woken (0), until abstime (ETIMEDOUT) or,
 * with LL_SYNC_EINTR in opts, until a signal handler interrupts the sleep
 * (EINTR); a wait that ends without its wake-up withdraws w first.  A waiter
 * taken before it could withdraw waits for its wake-up and returns 0.
 * abstime NULL: no deadline.  LL_SYNC_CANCEL: see ll_sync_block_cancellable. */
int ll_sync_block(ll_sync_list *l, struct ll_sync_waiter *w, clockid_t clock, const struct timespec *abstime,
                  unsigned opts);
/* Owner side, once its wait ended without a wake-up (a deadline, a signal, a
 * cancellation): take w off the list (true), or, if a signal or post took w
 * first, wait until that wake-up has been delivered (it writes to w) and
 * return false: the wake-up was consumed by w's owner. */
bool ll_sync_withdraw(ll_sync_list *l, struct ll_sync_waiter *w);
/* ll_sync_block as a POSIX cancellation point (src/sync/cancel.c, the one file
 * of this layer that uses pthreads): a cancellation acted on while blocked
 * runs cancelled(l, w, obj) -- which must ll_sync_withdraw w and pass on a wake-up w
 * consumed (obj: the object waited on) -- and then the thread's own cleanup handlers. */
typedef void ll_sync_cancelled_fn(ll_sync_list *l, struct ll_sync_waiter *w, void *obj);
int ll_sync_block_cancellable(ll_sync_list *l, struct ll_sync_waiter *w, clockid_t clock,
                              const struct timespec *abstime, unsigned opts, ll_sync_cancelled_fn *cancelled, void *obj);
/* 0 if abstime is NULL or a valid time on CLOCK_REALTIME / CLOCK_MONOTONIC, else EINVAL. */
int ll_sync_check_deadline(clockid_t clock, const struct timespec *abstime);
/* Wait until no waiter is listed (a timed-out one may still be unlinking itself). */
void ll_sync_await_empty(ll_sync_list *l);

#endif
