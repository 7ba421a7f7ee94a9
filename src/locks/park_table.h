/*
 * park_table.h — the parking table of the locks that keep nothing per waiter in
 * the lock word (parkinglot, standby): a fixed table of PT_BUCKETS buckets,
 * hashed by the lock's address, each a small lock (an acr lock, 16 bytes:
 * robust under oversubscription, never calls pthread) and a list of parked
 * waiters, FIFO by each waiter's first park.  The design of WebKit's
 * WTF::ParkingLot (Pizlo 2016) and Rust's parking_lot_core, with a fixed size
 * (256 buckets, 16 KiB) instead of growing with the thread count: collisions
 * only share a bucket's lock and list.  Private to src/locks; each including
 * file has its own table (static), as ts_standby.h's helpers are its own.
 *
 * A waiter is a queue-node slot (ll_qnode_get) of its own thread, linked while
 * it is parked: key (the lock's address), token (WAITING until a releaser
 * sets it), parker, since (when this acquisition first parked), socket.  Every
 * list field is read and written under the bucket's lock; the token is what a
 * releaser hands over: it stores it (release) after its last use of the node,
 * and the waiter's park ends when it reads it set (acquire, pt_token_set).
 * "Releaser" here is whoever wakes a waiter: a lock's release, or (standby) an
 * arrival that parks and wakes the eldest into the standby role.
 *
 * Naps (pt_sleep): a lock's release reads its waiters' word without a fence
 * (parkinglot.c, standby.c: "Release"), so a release can miss a waiter that
 * announces itself as the release's store leaves; the waiter then sleeps in
 * naps (the lock's NAP_NS, doubling to NAP_MAX_NS) and, after one, if the
 * lock's look() says nobody will pass it on (PT_LEAVE; PT_LEAVE_IF_ELDEST:
 * only the lock's eldest waiter), leaves the list and competes again: a lost
 * wake-up costs its waiter a nap, never a hang.  A lock may also give a first
 * look, taken before the first nap (standby's, a moment after the waiter's
 * announcement, finds most such misses at once).
 *
 * Fork: the child of a fork has one thread, so none of the table's parked
 * waiters exists there, and a bucket lock another thread held at the fork
 * would stay held for good.  A pthread_atfork child handler therefore empties
 * the table and frees the bucket locks (the lost waiters' nodes were their
 * threads' own, gone with them).  Child handlers registered before ours (a
 * library's constructor that runs first) run before it and may unlock a
 * contended lock: our prepare handler, which runs before any fork whatever
 * the order, records the pid, and pt_lock, through which a thread first uses a
 * bucket in a process, repairs the table first if it finds itself in a child
 * of that fork (a parked waiter's leave takes its bucket lock directly: it
 * parked in this process, after any fork).
 */
#ifndef LOCKLAB_SRC_LOCKS_PARK_TABLE_H
#define LOCKLAB_SRC_LOCKS_PARK_TABLE_H

#include <pthread.h>
#include <unistd.h>

#include "locklab/acr.h"

enum { PT_BUCKETS = 256, PT_WAITING = 0 };

typedef struct pt_waiter {
    /* plain fields shared by the waiter and the releasers (atomics.h): under the bucket's lock */
    LL_SHARED_PLAIN(struct pt_waiter *) next;
    LL_SHARED_PLAIN(const void *) key;   /* the lock's address */
    ll_atomic_u32 token;                 /* PT_WAITING until a releaser sets the lock's token */
    LL_SHARED_PLAIN(ll_parker *) parker; /* read by the releaser before the token store */
    LL_SHARED_PLAIN(uint64_t) since;     /* when this acquisition first parked (ll_now_ns) */
    LL_SHARED_PLAIN(int32_t) socket;     /* where it parked (ll_current_socket), or -1 */
} pt_waiter;
LL_STATIC_ASSERT(sizeof(pt_waiter) <= LL_QNODE_USABLE, "waiter must fit a queue-node slot");

typedef struct pt_bucket {
    LL_ALIGNED(LL_CACHELINE) ll_acr_lock lock;
    LL_SHARED_PLAIN(pt_waiter *) head; /* FIFO by since, under lock */
    LL_SHARED_PLAIN(pt_waiter *) tail;
    ll_atomic_u64 stamp[2]; /* times of the lock's own: parkinglot's fair timer [0]; standby's rotation [0], fair timer [1] */
} pt_bucket;

static pt_bucket pt_table[PT_BUCKETS];
/* The bucket locks' tunables: acr's defaults, one spinner (critical sections are a few list steps). */
static const ll_acr_params pt_bucket_params = {LL_ACR_DEFAULT_SPIN_NS, LL_ACR_DEFAULT_PATIENCE_NS, 1};

LL_INLINE pt_bucket *pt_bucket_of(const void *key)
{
    uint64_t h = (uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15ull; /* Fibonacci hashing */
    return &pt_table[h >> (64 - 8)];
}
LL_STATIC_ASSERT(PT_BUCKETS == 1 << 8, "pt_bucket_of takes the top 8 bits");

/* ---- fork (header) ------------------------------------------------------------------- */
static ll_atomic_u32 pt_forking;     /* 1 from our prepare handler to our parent/child handler */
static ll_atomic_u32 pt_forking_pid; /* the forking process's pid, set before pt_forking */
static void pt_fork_child(void)
{
    for (size_t i = 0; i < PT_BUCKETS; i++) {
        ll_acr_init(&pt_table[i].lock); /* relaxed stores: the child runs one thread here */
        ll_plain_store(&pt_table[i].head, NULL);
        ll_plain_store(&pt_table[i].tail, NULL);
    }
    ll_store_relaxed(&pt_forking, 0); /* relaxed: the child runs one thread here */
}
static void pt_fork_prepare(void)
{
    ll_store_relaxed(&pt_forking_pid, (uint32_t)getpid()); /* relaxed: published by the release below */
    /* release: our pid, for a thread that sees pt_forking set (a stale pid from before a fork
     * of our parent's would make it think itself in a child); pairs with pt_lock's acquire */
    ll_store_release(&pt_forking, 1);
}
static void pt_fork_parent(void) { ll_store_relaxed(&pt_forking, 0); /* relaxed: a thread that still reads 1 finds its own pid */ }
__attribute__((constructor)) static void pt_register_fork(void) { pthread_atfork(pt_fork_prepare, pt_fork_parent, pt_fork_child); }

/* Take bucket b's lock (first repairing the table in a fork child whose handler has not run yet). */
LL_INLINE void pt_lock(pt_bucket *b)
{
    /* acquire: the pid stored before it (pt_fork_prepare).  In the parent a thread that sees 1
     * finds its own pid there and does nothing; the child of the fork sees 1 until
     * pt_fork_child runs, and another pid. */
    if (LL_UNLIKELY(ll_load_acquire(&pt_forking) != 0) && (uint32_t)getpid() != ll_load_relaxed(&pt_forking_pid))
        pt_fork_child();
    ll_acr_acquire(&b->lock, &pt_bucket_params);
}
LL_INLINE void pt_unlock(pt_bucket *b) { ll_acr_release(&b->lock); }

/* ---- the lists (under the bucket's lock) ---------------------------------------------- */

/* A new waiter of key, linked: at the back, or (again: it parked before in this acquisition,
 * since is when it first did) before the first waiter of key that first parked later.  socket:
 * where it parks, for a lock that prefers socket-local waiters (-1: the lock does not ask). */
static pt_waiter *pt_enqueue(pt_bucket *b, const void *key, uint64_t since, bool again, int32_t socket)
{
    pt_waiter *w = (pt_waiter *)ll_qnode_get();
    ll_plain_store(&w->key, key);
    ll_plain_store(&w->parker, ll_self()->parker);
    ll_plain_store(&w->since, since);
    ll_plain_store(&w->socket, socket);
    ll_store_relaxed(&w->token, PT_WAITING); /* relaxed: a releaser sees w only through the bucket lock */
    pt_waiter *prev = ll_plain_load(&b->tail), *v = NULL;
    if (again) {
        prev = NULL, v = ll_plain_load(&b->head);
        while (v && (ll_plain_load(&v->key) != key || ll_plain_load(&v->since) <= since)) {
            prev = v;
            v = ll_plain_load(&v->next);
        }
    }
    ll_plain_store(&w->next, v);
    if (prev)
        ll_plain_store(&prev->next, w);
    else
        ll_plain_store(&b->head, w);
    if (!v)
        ll_plain_store(&b->tail, w);
    return w;
}

/* Unlink w, whose predecessor in b's list is prev (NULL: w is the head). */
static void pt_unlink(pt_bucket *b, pt_waiter *w, pt_waiter *prev)
{
    pt_waiter *next = ll_plain_load(&w->next);
    if (prev)
        ll_plain_store(&prev->next, next);
    else
        ll_plain_store(&b->head, next);
    if (ll_plain_load(&b->tail) == w)
        ll_plain_store(&b->tail, prev);
}

/* pt_fair_due's test without its re-arming: would the next release hand w the lock? */
static bool pt_fair_would_be_due(ll_atomic_u64 *timer, pt_waiter *w, uint64_t now, uint64_t fair_ns)
{
    /* relaxed (the timer): written and read under the bucket lock */
    return now - ll_plain_load(&w->since) >= fair_ns && now >= ll_load_relaxed(timer);
}
/* The fair unlock (parkinglot's, standby's): is w, the waiter a release picked, to be handed the
 * lock?  Yes once it has waited fair_ns since its first park and the bucket's timer (*timer) has
 * run out; the timer is then re-armed uniformly in [0, 2 x fair_ns), mean fair_ns, so that
 * handoffs, which leave the lock idle for a wake-up, stay rare. */
static bool pt_fair_due(ll_atomic_u64 *timer, pt_waiter *w, uint64_t now, uint64_t fair_ns)
{
    if (!pt_fair_would_be_due(timer, w, now, fair_ns))
        return false;
    ll_store_relaxed(timer, now + ll_rand_below(2 * fair_ns));
    return true;
}

/* Unlink w (in b's list); true if another waiter of key remains. */
static bool pt_remove(pt_bucket *b, pt_waiter *w, const void *key)
{
    pt_waiter *prev = NULL, *before_w = NULL;
    bool more = false;
    for (pt_waiter *v = ll_plain_load(&b->head); v != NULL; v = ll_plain_load(&v->next)) {
        if (v == w) {
            before_w = prev;
            continue; /* prev stays: w goes */
        }
        more = more || ll_plain_load(&v->key) == key;
        prev = v;
    }
    pt_unlink(b, w, before_w);
    return more;
}

/* ---- parked --------------------------------------------------------------------------- */

LL_INLINE bool pt_token_set(void *p)
{
    /* acquire: the releaser's writes before its token store (a handoff's critical section, a
     * standby's WAKING); pairs with the release store of the token in the lock's release */
    return ll_load_acquire(&((pt_waiter *)p)->token) != PT_WAITING;
}

/* Is w the eldest waiter of key in b's list (the first of key's)? */
static bool pt_eldest(pt_bucket *b, const pt_waiter *w, const void *key)
{
    pt_waiter *v = ll_plain_load(&b->head);
    while (v != NULL && ll_plain_load(&v->key) != key)
        v = ll_plain_load(&v->next);
    return v == w;
}

enum { PT_WOKEN = 0, PT_RETRY = 1, PT_TIMED_OUT = 2 };
/* What a nap's end finds (a lock's look): stay parked, leave to compete, or leave only if the
 * lock's eldest waiter (the others stay, and keep the FIFO order among the parked). */
enum { PT_STAY = 0, PT_LEAVE = 1, PT_LEAVE_IF_ELDEST = 2 };

/* Parked (w in b's list, under lock's address): sleep until a releaser sets w's token
 * (PT_WOKEN: read the token), in naps (header): after each, as look(lock) says, stay (the nap
 * doubles) or leave and compete (PT_RETRY; PT_LEAVE_IF_ELDEST: only if pt_eldest, else stay);
 * first_look (NULL: none) answers the same question once before the first nap (a leave then
 * returns PT_RETRY, even past deadline_ns);
 * at deadline_ns leave (PT_TIMED_OUT).  Leaving (under the bucket lock) loses to a releaser
 * that set the token first (PT_WOKEN); the last waiter of the lock to leave calls
 * last_left(lock) under the bucket lock.  w is out of the list on return. */
static int pt_sleep(pt_bucket *b, pt_waiter *w, void *lock, uint64_t deadline_ns, int (*first_look)(void *lock),
                    uint64_t nap_ns, uint64_t nap_max_ns, int (*look)(void *lock), void (*last_left)(void *lock))
{
    uint64_t nap = 0; /* the last nap's length; 0: none yet */
    for (bool napping = first_look == NULL;; napping = true) {
        bool last = false; /* this nap ends at the deadline */
        if (napping) {
            nap = nap == 0 ? nap_ns : nap < nap_max_ns / 2 ? 2 * nap : nap_max_ns;
            uint64_t now = ll_now_ns();
            last = deadline_ns - now <= nap || deadline_ns <= now;
            uint64_t until_ns = last ? deadline_ns : now + nap;
            struct timespec until = {(time_t)(until_ns / 1000000000u), (long)(until_ns % 1000000000u)};
            if (ll_parker_park_deadline(ll_plain_load(&w->parker), pt_token_set, w, CLOCK_MONOTONIC, &until))
                return PT_WOKEN;
        }
        int found = last ? PT_LEAVE : napping ? look(lock) : first_look(lock);
        if (found == PT_STAY)
            continue;
        ll_acr_acquire(&b->lock, &pt_bucket_params); /* not pt_lock: we parked in this process, after any fork */
        /* relaxed: releasers set the token only under this bucket lock, which orders it */
        bool left = ll_load_relaxed(&w->token) == PT_WAITING;
        if (left && found == PT_LEAVE_IF_ELDEST && !pt_eldest(b, w, lock)) {
            pt_unlock(b);
            continue;
        }
        if (left && !pt_remove(b, w, lock))
            last_left(lock);
        pt_unlock(b);
        if (!left) {
            (void)pt_token_set(w); /* a releaser came first: acquire its token */
            return PT_WOKEN;
        }
        return last ? PT_TIMED_OUT : PT_RETRY;
    }
}

#endif /* LOCKLAB_SRC_LOCKS_PARK_TABLE_H */
