/*
 * locklab-check: the model-checking driver of the lock clients (tests/clients.h).
 *
 * Each case runs one client on registry locks (include/locklab/registry.h, placed
 * from a spec as the validator's ll_lock_create does) under Relacy: T threads
 * (2 or 3), each making K acquisitions (1 or 2), with the lock sources, the
 * waiting engine and the parker compiled unchanged against the atomics layer's
 * Relacy backend (verify/relacy_atomics.h, verify/relacy_env.cpp).  The data a
 * lock guards is an rl::var: two critical sections not ordered by happens-before
 * are a data race, i.e. a mutual-exclusion (or publication) violation.  Relacy
 * also reports deadlocks (a lost wake-up: a thread parked for ever) and
 * livelocks, and after the threads the counter must equal T x K.
 *
 *   locklab-check [--lock SPEC]... [--broken NAME]... [--client C|locks|all] [--threads 2|3]
 *                 [--acquisitions 1|2] [--sched full|bound|random] [--bound N] [--iterations N]
 *                 [--depth N] [--clock-step NS] [--giveups N] [--discipline fifo|lifo-cr[:append_one_in=N]]
 *                 [--hold N] [--sockets 1|2] [--cpus N] [--untimed-parks] [--expect-fail] [--history]
 * Clients: the validator's (counter, nested, trylock, mixed: --client locks, the
 * default; and timed, run on its own) and the checker's own for src/sync and the
 * locks' reclaim paths (abandon, below);
 * all: every one but reuse (3 threads only); --client may repeat.
 * Schedulers (Relacy's): full = every interleaving and every value a load may read
 * (exhaustive; only small cases end); bound = the same with at most --bound
 * preemptions (default 2; exhaustive within the bound); random = --iterations
 * random executions.  --depth: steps per execution before Relacy calls it a livelock.
 * --giveups N: the timed client's give-ups in a row per thread before a step acquires
 * without a deadline (default 2; 0 = never).
 * --broken NAME: a deliberately broken lock (see broken_locks below).
 * --hold N: each critical section yields N times while it holds the lock (a long or
 * preempted critical section: waiters run out of spinning and take their slow paths).
 * --sockets 1|2: the modelled machine's sockets (default 2, thread i on socket i mod 2;
 * 1: every thread on one socket, where NUMA-aware locks take their single-socket paths).
 * --cpus N: the CPUs the process may run on (ll_cpus_available, ll_cpus_placeable and
 * ll_ncpus; default 2, 1..1024): on 2 or fewer standby's arrivals yield before they park,
 * on more they park after their spin.
 * --untimed-parks: a timed park waits until unparked, its deadline never comes
 * (relacy_env.h): the deliberately broken variant of parkinglot, whose naps recover a
 * wake-up its release misses; with it the lost wake-up is a deadlock (verify.sh).
 * --expect-fail: each case passes iff Relacy finds an error (the broken locks).
 * Prints one line per case and "N passed, N failed"; exit 0 iff all passed,
 * 2 on bad input.
 *
 * Reader-writer locks (include/locklab/rwlock.h): --rwlock SPEC (or --rwlock
 * broken-rw-test-then-add, the deliberately broken one: its readers test the writer
 * flag, then enter) with the rw clients instead of the lock clients:
 *   rw        thread i's n-th acquisition writes if (i + n) % 3 == 0, else reads: a
 *             writer increments the guarded data, a reader reads it twice across a
 *             yield (--hold) and the two must agree; a race is a violation
 *   rw-try    the same, every other acquisition a try (a failed one is retried; after
 *             --giveups failures in a row, the step waits)
 *   rw-timed  the same, every acquisition timed (deadline 1.5 clock steps ahead, at
 *             most --giveups give-ups in a row, then untimed)
 * --client rws: all three.
 *   rw-reuse  (3 threads; not in rws) destroy right after unlock: thread 0 writes once,
 *             thread 1 tries to read until it sees the write, then places a new lock in
 *             the same memory and writes on it, as thread 2 does; a release that
 *             touches the lock after letting the reader in changes the new lock (two
 *             writers: a race on the data)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <fstream>

#include "locklab/registry.h"
#include "locklab/rwlock.h"
#include "locklab/sync.h"
#include "relacy_env.h"

#include "broken_locks.h" /* tests/: the deliberately broken locks, shared with the simulator */

/* ---- a lock under test, placed per iteration -------------------------------------- */
enum { STATE_BYTES = 4096 };
struct lut {
    alignas(LL_SECTOR) unsigned char state[STATE_BYTES];
    alignas(LL_SECTOR) unsigned char owner[LL_SECTOR]; /* the direct verbs' owner word (lut_direct_acquire) */
    const ll_lock_ops *ops;
    ll_wait_policy wp;
    ll_wake_list deferred; /* condition-variable wake-ups morphed onto this lock (holder only) */
};

static void lut_place(lut *l, const ll_spec *spec)
{
    char err[256];
    memset(l->state, 0, sizeof l->state);
    l->ops = spec->ops;
    if (spec->ops->init == NULL) { /* a broken lock: zeros are free */
        l->wp = (ll_wait_policy)LL_WAIT_POLICY_INIT(ll_wait_spin);
        return;
    }
    if (ll_lock_place(spec, LL_DEFAULTS_FIXED, l->state, &l->wp, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "locklab-check: %s\n", err);
        exit(2);
    }
}
static void lut_destroy(lut *l)
{
    if (l->ops->destroy)
        l->ops->destroy(l->state);
}
static void lut_acquire(lut *l) { l->ops->acquire(l->state, &l->wp); }
static bool lut_try(lut *l) { return l->ops->try_acquire(l->state, &l->wp); }
static void lut_release(lut *l) { l->ops->release(l->state, &l->wp); }
/* The direct verbs (the counter client's odd steps), with an owner word of the lock's (raw
 * memory, as the lock's own words): the acquisition must store our id. */
static void lut_direct_acquire(lut *l)
{
    ll_atomic_u64 *owner = (ll_atomic_u64 *)(void *)l->owner;
    uint64_t id = (uint64_t)rl::thread_index() + 1;
    ll_ops_direct_acquire(l->ops, l->state, &l->wp, owner, id);
    RL_ASSERT(ll_load_relaxed(owner) == id); /* relaxed: our own store, under the lock */
}
static void lut_direct_release(lut *l) { ll_ops_direct_release(l->ops, l->state, &l->wp); }

/* The lock as a condition variable's mutex: unlock flushes the morphed wake-ups. */
static void mutex_lock(void *m) { lut_acquire((lut *)m); }
static void mutex_unlock(void *m)
{
    lut *l = (lut *)m;
    ll_wake_list woken = l->deferred;
    l->deferred.head = NULL;
    lut_release(l);
    ll_wake_list_flush(&woken);
}
static const ll_mutex_iface mutex_iface = {mutex_lock, mutex_unlock};

/* ---- the clients ------------------------------------------------------------------------ */
struct shared;
static void client_cs_a(shared *d);
static void client_cs_b(shared *d);
/* timed: a deadline 1.5 clock steps ahead on the model's clock (which advances one step,
 * 1 ms, per read): the adapter's check for a deadline already passed (registry.h,
 * ll_deadline_passed) reads the clock once and lets the attempt queue, and the deadline
 * passes at the waiter's next read: every give-up path runs.
 * At most --giveups N (default 2) give-ups in a row per thread, then the step acquires
 * without a deadline (--giveups 0: retry for ever, as the validator does).  On the
 * model's clock a retry gives up at once, so unbounded retries are unbounded work
 * (each may leave a node for the releasers to skip), which Relacy reports as a
 * livelock once an execution passes --depth steps (docs/verification.md, "The timed
 * client"); a real retry costs its timeout first. */
static unsigned max_giveups = 2;
static bool client_timed(lut *l, shared *d);
#include "clients.h"

/* ---- the checker's own clients: the wait lists of src/sync ------------------------------ *
 *   sem-mutex       a semaphore of 1 as the lock: wait; critical section; post
 *   sem-handoff     thread 0 writes data, then posts once per other thread; each of
 *                   them waits, then reads the data (a race = the post did not publish)
 *   cond-signal     thread 0, once per other thread: lock; tokens++; signal (deferred
 *                   onto the mutex, wait morphing, every other time); unlock.  The
 *                   others: lock; while (!tokens) wait; tokens--; unlock
 *   cond-broadcast  the same with one broadcast for all the tokens
 *   barrier         every thread, in each of K rounds (--acquisitions): writes its own
 *                   slot of the round, waits at a barrier of T (src/sync/barrier.c), then
 *                   reads every thread's slot of the round (a race = the barrier did not
 *                   publish it).  One thread per round is the serial one; the serial
 *                   thread of the last round destroys the barrier at once, while the
 *                   others may still be leaving their wait, and initialises a new one
 *                   in its memory: a leaver's read of the barrier not ordered before the
 *                   destroy's return races with that (its count is a shared plain
 *                   field), and its decrement after it leaves the inside count at -1
 *                   (checked after the threads).  The lock is not used.
 * The mutex of the condition variable is the lock under test.  A lost wake-up
 * leaves a waiter parked for ever: Relacy's deadlock.
 * And one for the reclaim paths of the locks (ll_lock_ops.abandon):
 *   abandon         thread 0 acquires a and keeps it; each other thread, once it sees a
 *                   held, makes one timed acquire of a, which gives up (the lock may keep
 *                   its node: an abandoned node), and says so; thread 0, once all have
 *                   given up, drops a while held (abandon, as the interposer does for a
 *                   mutex destroyed while held: the walk gives back the departed waiters'
 *                   nodes), then acquires and releases b, a fresh lock of the same spec,
 *                   whose nodes come from its cache: the nodes just given back.  The two
 *                   flags are relaxed (they order nothing), so what orders the departed
 *                   waiters' accesses to their nodes before thread 0's reuse is the lock's
 *                   own: a missing order is a race on a node or its use uninitialised.
 *   reuse           (3 threads; not in all) destroy right after unlock: thread 0 takes a
 *                   once and says so while it holds it (a relaxed flag); thread 1, once it
 *                   sees that, takes a (a hand-over, or the lock thread 0 freed), leaves,
 *                   destroys a and places a new lock of the spec in the same memory, and takes
 *                   the new lock once, as thread 2 does once it is placed.  A release that touches the lock after
 *                   what let thread 1 in changes the new lock: two holders, a race on the
 *                   data (the rule of docs/design.md, "a lock may be destroyed after its
 *                   hand-over"). */
enum { SEM_MUTEX = NCLIENTS, SEM_HANDOFF, COND_SIGNAL, COND_BROADCAST, ABANDON, BARRIER, REUSE, NALL };
static const char *const sync_client_names[] = {"sem-mutex", "sem-handoff", "cond-signal", "cond-broadcast", "abandon",
                                                "barrier", "reuse"};
static const char *client_name(int c);

/* The case being checked (read by every iteration). */
static struct {
    ll_spec a, b;
    int client; /* enum client, or one of the checker's own */
    unsigned acquisitions;
    ll_sync_config sync;
} the_case;

static lut lock_a, lock_b;
static ll_sem sem;
static ll_cond cond;
static ll_barrier barrier;
enum { BARRIER_ROUNDS = 2 }; /* --acquisitions at most */

struct shared {
    rl::var<int> counter_a, counter_b; /* plain data guarded by a and b: a race = a violation */
    rl::var<int> tokens;               /* cond-*: guarded by a */
    rl::var<int> message;              /* sem-handoff: written before the posts */
    unsigned giveups[LL_MODEL_MAX_THREADS]; /* timed: each thread's give-ups in a row (its own) */
    ll_atomic_u32 held, gave_up;            /* abandon: a is held; how many have given up (relaxed) */
    ll_atomic_u32 placed;                   /* reuse: the new lock is placed in a's memory */
    rl::var<int> slot[BARRIER_ROUNDS][LL_MODEL_MAX_THREADS]; /* barrier: written by one thread, read by all */
    ll_atomic_u32 serials[BARRIER_ROUNDS];                   /* barrier: serial threads per round (relaxed) */
};

static void abandon_thread(shared *d, unsigned index, unsigned threads)
{
    if (index == 0) {
        lut_acquire(&lock_a);
        client_cs_a(d);
        ll_store_relaxed(&d->held, 1); /* relaxed: orders nothing (client comment) */
        while (ll_load_relaxed(&d->gave_up) != threads - 1) /* relaxed: as held */
            ll_pause();
        if (lock_a.ops->abandon)
            lock_a.ops->abandon(lock_a.state); /* dropped while held: nobody waits on it */
        lut_acquire(&lock_b); /* its nodes: those the walk gave back */
        client_cs_b(d);
        lut_release(&lock_b);
        return;
    }
    while (ll_load_relaxed(&d->held) == 0) /* relaxed: as above */
        ll_pause();
    lut *l = &lock_a;
    bool got = l->ops->acquire_until ? l->ops->acquire_until(l->state, &l->wp, ll_now_ns() + ll_model_clock_step * 3 / 2)
                                     : lut_try(l);
    RL_ASSERT(!got); /* thread 0 holds a until it drops it */
    ll_faa(&d->gave_up, 1, LL_RELAXED); /* relaxed: as above */
}

/* One critical section of a. */
static void take_a_once(shared *d)
{
    lut_acquire(&lock_a);
    client_cs_a(d);
    lut_release(&lock_a);
}

/* The reuse clients' thread 1, done with the old lock (destroyed): a new lock of spec in the
 * same memory, published to thread 2 by placed.  ll_lock_place zeroes the state and runs the
 * lock's init, whose stores through the atomics reset the modelled words (a lock without init,
 * zeros are free, keeps its words' values, which its last release left free); wp NULL keeps
 * the old wait policy, which the other threads read. */
static void place_anew(const ll_spec *spec, void *state, ll_wait_policy *wp, ll_atomic_u32 *placed)
{
    char err[256];
    if (ll_lock_place(spec, LL_DEFAULTS_FIXED, state, wp, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "locklab-check: %s\n", err);
        exit(2);
    }
    ll_store_release(placed, 1); /* release: the placed lock to thread 2's acquire load */
}

/* The reuse clients' thread 2: waits until thread 1 has placed the new lock. */
static void wait_placed(ll_atomic_u32 *placed)
{
    while (!ll_load_acquire(placed)) /* acquire: the placed lock; pairs with place_anew's release */
        ll_pause();
}

/* reuse (3 threads only; the client comment). */
static void reuse_thread(shared *d, unsigned index)
{
    if (index == 0) {
        lut_acquire(&lock_a);
        client_cs_a(d);
        ll_store_relaxed(&d->held, 1); /* relaxed: orders nothing; the lock orders us before thread 1 */
        lut_release(&lock_a);
    } else if (index == 1) {
        while (ll_load_relaxed(&d->held) == 0) /* relaxed: as above */
            ll_pause();
        lut_acquire(&lock_a); /* queued behind thread 0, or after its release */
        RL_ASSERT(d->counter_a($) == 1);
        lut_release(&lock_a);
        lut_destroy(&lock_a);
        place_anew(&the_case.a, lock_a.state, NULL, &d->placed);
        take_a_once(d);
    } else {
        wait_placed(&d->placed);
        take_a_once(d);
    }
}

static void sync_thread(shared *d, unsigned index, unsigned threads)
{
    switch (the_case.client) {
    case SEM_MUTEX:
        for (unsigned n = 0; n < the_case.acquisitions; n++) {
            ll_sem_wait(&sem, CLOCK_MONOTONIC, NULL);
            client_cs_a(d);
            ll_sem_post(&sem);
        }
        break;
    case SEM_HANDOFF:
        if (index == 0) {
            d->message($) = 42;
            for (unsigned k = 1; k < threads; k++)
                ll_sem_post(&sem);
        } else {
            ll_sem_wait(&sem, CLOCK_MONOTONIC, NULL);
            RL_ASSERT(d->message($) == 42);
        }
        break;
    case BARRIER:
        for (unsigned r = 0; r < the_case.acquisitions; r++) {
            d->slot[r][index]($) = (int)r + 1;
            /* no spinning: straight to the futex (each spinning look is 64 pauses, scheduler
             * yields, which no exhaustive search gets through; its loads are the futex loop's) */
            bool serial = ll_barrier_wait(&barrier, 0);
            if (serial)
                ll_faa(&d->serials[r], 1, LL_RELAXED); /* relaxed: counted after the threads */
            for (unsigned j = 0; j < threads; j++)
                RL_ASSERT(d->slot[r][j]($) == (int)r + 1);
            if (serial && r + 1 == the_case.acquisitions) {
                RL_ASSERT(ll_barrier_destroy(&barrier) == 0); /* the others may still be leaving */
                ll_barrier_init(&barrier, threads); /* its memory reused: a leaver's read of it races */
            }
        }
        break;
    case COND_SIGNAL:
    case COND_BROADCAST:
        if (index == 0) {
            for (unsigned k = 1; k < threads; k++) {
                mutex_lock(&lock_a);
                d->tokens($) = d->tokens($) + 1;
                ll_wake_list *defer = k & 1 ? &lock_a.deferred : NULL; /* morphed, then direct */
                if (the_case.client == COND_SIGNAL)
                    ll_cond_signal(&cond, defer);
                else if (k == threads - 1)
                    ll_cond_broadcast(&cond, defer);
                mutex_unlock(&lock_a);
            }
        } else {
            mutex_lock(&lock_a);
            while (d->tokens($) == 0)
                ll_cond_wait(&cond, &mutex_iface, &lock_a, CLOCK_MONOTONIC, NULL);
            d->tokens($) = d->tokens($) - 1;
            mutex_unlock(&lock_a);
        }
        break;
    }
}
static bool client_timed(lut *l, shared *d)
{
    unsigned &giveups = d->giveups[rl::thread_index()];
    if (max_giveups != 0 && giveups >= max_giveups) {
        giveups = 0;
        lut_acquire(l);
        return true;
    }
    bool got = l->ops->acquire_until ? l->ops->acquire_until(l->state, &l->wp, ll_now_ns() + ll_model_clock_step * 3 / 2) : lut_try(l);
    giveups = got ? 0 : giveups + 1;
    return got;
}
/* --hold N: a critical section lets the other threads run N times (scheduler yields) while
 * it holds the lock, as a long or preempted critical section does: the waiters' spin
 * budgets run out and they take their slow paths (a standby that sleeps, a parked waiter). */
static unsigned hold_yields = 0;
static void hold(void)
{
    for (unsigned i = 0; i < hold_yields; i++)
        rl::yield(1, $);
}
static void client_cs_a(shared *d)
{
    int x = d->counter_a($);
    hold();
    d->counter_a($) = x + 1;
}
static void client_cs_b(shared *d)
{
    hold();
    d->counter_b($) = d->counter_b($) + 1;
}

/* A Relacy test whose iterations run in the modelled process (ll_model_begin .. ll_model_end). */
template <class D, int T> struct model_test : rl::test_suite<D, T> {
    model_test() { ll_model_begin(); }
    ~model_test() { ll_model_end(); }
};

template <int T> struct lock_test : model_test<lock_test<T>, T> {
    shared data;
    void before()
    {
        data.counter_a($) = 0;
        data.counter_b($) = 0;
        data.tokens($) = 0;
        data.message($) = 0;
        memset(data.giveups, 0, sizeof data.giveups);
        ll_store_relaxed(&data.held, 0); /* relaxed: before the threads start */
        ll_store_relaxed(&data.gave_up, 0);
        ll_store_relaxed(&data.placed, 0);
        lut_place(&lock_a, &the_case.a);
        lut_place(&lock_b, &the_case.b);
        lock_a.deferred.head = lock_b.deferred.head = NULL;
        ll_sem_init(&sem, the_case.client == SEM_MUTEX ? 1 : 0, &the_case.sync);
        ll_cond_init(&cond, &the_case.sync);
        ll_barrier_init(&barrier, T);
        for (int r = 0; r < BARRIER_ROUNDS; r++) {
            for (int i = 0; i < LL_MODEL_MAX_THREADS; i++)
                data.slot[r][i]($) = 0;
            ll_store_relaxed(&data.serials[r], 0); /* relaxed: before the threads start */
        }
    }
    void thread(unsigned index)
    {
        if (the_case.client == ABANDON)
            abandon_thread(&data, index, T);
        else if (the_case.client == REUSE)
            reuse_thread(&data, index);
        else if (the_case.client >= NCLIENTS)
            sync_thread(&data, index, T);
        else
            for (uint64_t n = 0; n < the_case.acquisitions;)
                if (client_step((enum client)the_case.client, &lock_a, &lock_b, &data, (int)index, n))
                    n++;
                else
                    ll_pause(); /* a failed try_acquire */
        ll_model_thread_exit(); /* our per-thread elements die: nobody may still read them */
    }
    void after()
    {
        int total = the_case.client == ABANDON ? 1 : the_case.client == REUSE ? 3 : (int)(T * the_case.acquisitions);
        bool uses_a = the_case.client < NCLIENTS || the_case.client == SEM_MUTEX || the_case.client == ABANDON ||
                      the_case.client == REUSE;
        bool uses_b = the_case.client == NESTED || the_case.client == MIXED || the_case.client == ABANDON;
        RL_ASSERT(!uses_a || data.counter_a($) == total);
        RL_ASSERT(!uses_b || data.counter_b($) == total);
        RL_ASSERT(data.tokens($) == 0);
        if (the_case.client == BARRIER) {
            for (unsigned r = 0; r < the_case.acquisitions; r++)
                RL_ASSERT(ll_load_relaxed(&data.serials[r]) == 1); /* relaxed: the threads are joined */
            RL_ASSERT(ll_load_relaxed(&barrier.inside) == 0);      /* no leaver after the destroy */
            RL_ASSERT(ll_load_relaxed(&barrier.arrived) == 0);
        }
        ll_sem_destroy(&sem);
        ll_cond_destroy(&cond);
        lut_destroy(&lock_a);
        lut_destroy(&lock_b);
    }
};

/* ---- reader-writer locks ------------------------------------------------------------------ */
enum { RW = NALL, RW_TRY, RW_TIMED, RW_REUSE, NRW };
static const char *const rw_client_names[] = {"rw", "rw-try", "rw-timed", "rw-reuse"};

/* The deliberately broken rwlock: a reader tests the writer flag, then enters (a writer
 * can take the flag and find no reader in between).  Its state: two words. */
struct broken_rw {
    ll_atomic_u32 writer, readers;
};
static uintptr_t brw_read(void *s, ll_wait_policy *)
{
    broken_rw *b = (broken_rw *)s;
    while (ll_load_acquire(&b->writer))
        ll_pause();
    ll_faa(&b->readers, 1, LL_ACQ_REL);
    return 0;
}
static bool brw_read_try(void *s, ll_wait_policy *wp, uintptr_t *t)
{
    *t = brw_read(s, wp);
    return true;
}
static bool brw_read_until(void *s, ll_wait_policy *wp, uint64_t, uintptr_t *t) { return brw_read_try(s, wp, t); }
static void brw_read_release(void *s, ll_wait_policy *, uintptr_t) { ll_faa(&((broken_rw *)s)->readers, (uint32_t)-1, LL_RELEASE); }
static void brw_write(void *s, ll_wait_policy *)
{
    broken_rw *b = (broken_rw *)s;
    uint32_t z = 0;
    while (!ll_cas(&b->writer, &z, 1, LL_ACQUIRE))
        z = 0, ll_pause();
    while (ll_load_acquire(&b->readers))
        ll_pause();
}
static bool brw_write_try(void *s, ll_wait_policy *wp)
{
    brw_write(s, wp);
    return true;
}
static bool brw_write_until(void *s, ll_wait_policy *wp, uint64_t) { return brw_write_try(s, wp); }
static void brw_write_release(void *s, ll_wait_policy *) { ll_store_release(&((broken_rw *)s)->writer, 0); }
static const ll_lock_ops broken_rw_desc = {.name = "broken-rw-test-then-add",
                                           .policies = LL_SPIN_ONLY,
                                           .state_bytes = sizeof(broken_rw),
                                           .lock_bytes = sizeof(broken_rw)};
static const ll_rwlock_ops broken_rw_ops = {&broken_rw_desc, brw_read, brw_read_try, brw_read_until, brw_read_release,
                                            brw_write, brw_write_try, brw_write_until, brw_write_release};

static struct {
    ll_spec spec;
    const ll_rwlock_ops *ops;
} the_rw;
struct rwlut {
    alignas(LL_SECTOR) unsigned char state[STATE_BYTES];
    ll_wait_policy wp;
};
static rwlut rw_lock;

struct rw_shared {
    rl::var<int> data, writes;
    unsigned giveups[LL_MODEL_MAX_THREADS];
    ll_atomic_u32 placed; /* rw-reuse: the lock was placed anew */
};

static void rw_write_once(rw_shared *d)
{
    the_rw.ops->write_acquire(rw_lock.state, &rw_lock.wp);
    int x = d->data($);
    hold();
    d->data($) = x + 1;
    d->writes($) = d->writes($) + 1;
    the_rw.ops->write_release(rw_lock.state, &rw_lock.wp);
}

/* rw-reuse (3 threads only): thread 0 writes once; thread 1 tries to read until it sees that
 * write, leaves and places a new lock in the same memory (a destroy right after the unlock is
 * legal: the write's unlock happened before the read), then writes on the new lock, as thread
 * 2 does once the new lock is placed.  A release that touches the lock after the access that
 * let thread 1 in (thread 0's) changes the new lock: two writers, a race on the data. */
static void rw_reuse_thread(rw_shared *d, unsigned index)
{
    if (index == 0) {
        rw_write_once(d);
    } else if (index == 1) {
        for (int seen = 0; seen == 0; ll_pause()) {
            uintptr_t token = 0;
            if (the_rw.ops->read_try(rw_lock.state, &rw_lock.wp, &token)) {
                seen = d->data($);
                the_rw.ops->read_release(rw_lock.state, &rw_lock.wp, token);
            }
        }
        if (the_rw.ops->desc->destroy)
            the_rw.ops->desc->destroy(rw_lock.state);
        place_anew(&the_rw.spec, rw_lock.state, &rw_lock.wp, &d->placed);
        rw_write_once(d);
    } else {
        wait_placed(&d->placed);
        rw_write_once(d);
    }
}

/* One acquisition of the rw clients: false if a try or timed one gave up. */
static bool rw_step(rw_shared *d, int client, unsigned index, unsigned n)
{
    const ll_rwlock_ops *o = the_rw.ops;
    bool writer = (index + n) % 3 == 0, special = client == RW_TIMED || (client == RW_TRY && ((index + n) & 1));
    unsigned &giveups = d->giveups[index];
    if (special && max_giveups != 0 && giveups >= max_giveups)
        special = false; /* as the timed client: bounded retries (a try against a try can fail for ever) */
    uint64_t deadline = ll_now_ns() + ll_model_clock_step * 3 / 2;
    uintptr_t token = 0;
    bool got = true;
    if (writer) {
        if (!special)
            o->write_acquire(rw_lock.state, &rw_lock.wp);
        else
            got = client == RW_TRY ? o->write_try(rw_lock.state, &rw_lock.wp)
                                   : o->write_acquire_until(rw_lock.state, &rw_lock.wp, deadline);
    } else {
        if (!special)
            token = o->read_acquire(rw_lock.state, &rw_lock.wp);
        else
            got = client == RW_TRY ? o->read_try(rw_lock.state, &rw_lock.wp, &token)
                                   : o->read_acquire_until(rw_lock.state, &rw_lock.wp, deadline, &token);
    }
    giveups = got ? 0 : giveups + 1;
    if (!got)
        return false;
    if (writer) {
        int x = d->data($);
        hold();
        d->data($) = x + 1;
        d->writes($) = d->writes($) + 1;
        o->write_release(rw_lock.state, &rw_lock.wp);
    } else {
        int x = d->data($);
        hold();
        RL_ASSERT(d->data($) == x);
        o->read_release(rw_lock.state, &rw_lock.wp, token);
    }
    return true;
}

template <int T> struct rw_test : model_test<rw_test<T>, T> {
    rw_shared data;
    void before()
    {
        data.data($) = 0;
        data.writes($) = 0;
        memset(data.giveups, 0, sizeof data.giveups);
        ll_store_relaxed(&data.placed, 0); /* relaxed: before the threads start */
        char err[256];
        memset(rw_lock.state, 0, sizeof rw_lock.state);
        if (the_rw.ops == &broken_rw_ops)
            rw_lock.wp = (ll_wait_policy)LL_WAIT_POLICY_INIT(ll_wait_spin);
        else if (ll_lock_place(&the_rw.spec, LL_DEFAULTS_FIXED, rw_lock.state, &rw_lock.wp, NULL, err, sizeof err) != 0) {
            fprintf(stderr, "locklab-check: %s\n", err);
            exit(2);
        }
    }
    void thread(unsigned index)
    {
        if (the_case.client == RW_REUSE) {
            rw_reuse_thread(&data, index);
            ll_model_thread_exit();
            return;
        }
        for (unsigned n = 0; n < the_case.acquisitions;)
            if (rw_step(&data, the_case.client, index, n))
                n++;
            else
                ll_pause();
        ll_model_thread_exit();
    }
    void after()
    {
        int writes = the_case.client == RW_REUSE ? 3 : 0;
        for (unsigned i = 0; the_case.client != RW_REUSE && i < T; i++)
            for (unsigned n = 0; n < the_case.acquisitions; n++)
                writes += (i + n) % 3 == 0;
        RL_ASSERT(data.writes($) == writes && data.data($) == writes);
        if (the_rw.ops->desc->destroy)
            the_rw.ops->desc->destroy(rw_lock.state);
    }
};

static const char *client_name(int c)
{
    return c < NCLIENTS ? client_names[c] : c < NALL ? sync_client_names[c - NCLIENTS] : rw_client_names[c - NALL];
}

/* Copy Relacy's report (the failing execution's history) to stdout, at most 300
 * lines (a livelock's history is the whole --depth). */
static void show(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    int n = 0;
    while (f && fgets(line, sizeof line, f))
        if (n++ < 300)
            fputs(line, stdout);
    if (n > 300)
        printf("... (%d more lines of Relacy's report)\n", n - 300);
    if (f)
        fclose(f);
}

/* The search's settings, from the command line. */
struct run_opts {
    rl::scheduler_type_e sched;
    unsigned iterations, depth, bound, acquisitions;
    bool history, expect_fail;
    const char *report_path;
};

/* One case (the_case or the_rw set up by the caller) under Relacy, `threads` (2 or 3)
 * threads of Test: prints its line, and Relacy's report if it failed or with
 * --history.  True if it passed (failed exactly when expected to). */
template <template <int> class Test>
static bool run_case(const char *spec, int client, int threads, const run_opts &o)
{
    rl::test_params p;
    p.search_type = o.sched;
    p.iteration_count = o.iterations;
    p.execution_depth_limit = o.depth;
    p.context_bound = o.bound;
    p.output_history = o.history;
    p.collect_history = o.history;
    /* Relacy reports to streams that must not allocate while it runs (it
     * replaces operator new): a file opened before, shown if the case fails. */
    std::ofstream report(o.report_path, std::ios::trunc);
    p.progress_stream = &report;
    p.output_stream = &report;
    bool ok = threads == 2 ? rl::simulate<Test<2>>(p) : rl::simulate<Test<3>>(p);
    if (!ok && p.test_result == rl::test_result_success) {
        /* Relacy's replay of the failing iteration did not fail again (it starts
         * from a saved scheduler state): run again, collecting the history. */
        p.collect_history = true;
        report.close();
        report.open(o.report_path, std::ios::trunc);
        ok = threads == 2 ? rl::simulate<Test<2>>(p) : rl::simulate<Test<3>>(p);
    }
    bool pass = ok != o.expect_fail;
    printf("%-6s %-22s %-8s threads=%d acquisitions=%u sched=%s iterations=%llu%s%s\n", pass ? "ok" : "FAIL", spec,
           client_name(client), threads, o.acquisitions, rl::format(o.sched), (unsigned long long)p.stop_iteration,
           ok ? "" : "  error: ", ok ? "" : rl::test_result_str(p.test_result));
    report.close();
    if (!pass || o.history)
        show(o.report_path);
    fflush(stdout);
    return pass;
}

/* ---- command line ------------------------------------------------------------------------ */
static void parse_spec(const char *spec, ll_spec *out)
{
    for (int i = 0; i < NBROKEN; i++)
        if (strcmp(spec, broken_locks[i].name) == 0) {
            memset(out, 0, sizeof *out);
            out->ops = &broken_locks[i];
            out->policy = &ll_wait_spin;
            snprintf(out->name, sizeof out->name, "%s", spec);
            return;
        }
    char err[1024];
    if (ll_spec_parse(spec, out, err, sizeof err) != 0) {
        fprintf(stderr, "locklab-check: %s\n", err);
        exit(2);
    }
}

static unsigned parse_count(const char *flag, const char *v, unsigned lo, unsigned hi)
{
    char *end;
    unsigned long n = strtoul(v, &end, 10);
    if (*v == '\0' || *end != '\0' || n < lo || n > hi) {
        fprintf(stderr, "locklab-check: bad %s '%s' (valid: %u..%u)\n", flag, v, lo, hi);
        exit(2);
    }
    return (unsigned)n;
}

int main(int argc, char **argv)
{
    const char *specs[64], *rwspecs[64];
    int nrw = 0;
    const unsigned rw_clients = ((1u << NRW) - 1) & ~((1u << NALL) - 1) & ~(1u << RW_REUSE); /* rws */
    int nspecs = 0, threads[2] = {2, 3}, nthreads = 2;
    /* locks: the validator's clients but timed, which is run on its own (--client timed):
     * on the model's clock every timed attempt gives up at once (docs/verification.md) */
    const unsigned lock_clients = ((1u << NCLIENTS) - 1) & ~(1u << TIMED);
    unsigned clients = lock_clients, all_clients = ((1u << NALL) - 1) & ~(1u << REUSE), acquisitions = 1, iterations = 20000, depth = 20000,
             bound = 2;
    bool expect_fail = false, history = false, clients_given = false;
    rl::scheduler_type_e sched = rl::sched_random;
    unsigned clock_step = (unsigned)ll_model_clock_step;
    /* The options that take a count: the variable and the valid range. */
    const struct {
        const char *flag;
        unsigned *value;
        unsigned lo, hi;
    } counts[] = {
        {"--acquisitions", &acquisitions, 1, 2},      {"--iterations", &iterations, 1, 1000000000},
        {"--bound", &bound, 1, 100},                  {"--depth", &depth, 100, 10000000},
        {"--giveups", &max_giveups, 0, 1000000},      {"--clock-step", &clock_step, 1, 1000000000},
        {"--hold", &hold_yields, 0, 1000},            {"--sockets", &ll_model_sockets, 1, 2},
        {"--cpus", &ll_model_cpus, 1, 1024},
    };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool counted = false;
        for (const auto &c : counts)
            if (!counted && strcmp(a, c.flag) == 0 && v) {
                *c.value = parse_count(a, argv[++i], c.lo, c.hi);
                counted = true;
            }
        if (counted)
            continue;
        if ((strcmp(a, "--lock") == 0 || strcmp(a, "--broken") == 0) && v) {
            if (nspecs == 64) {
                fprintf(stderr, "locklab-check: too many --lock/--broken: '%s' would be the 65th (valid: at most 64)\n", v);
                return 2;
            }
            specs[nspecs++] = argv[++i];
        } else if (strcmp(a, "--rwlock") == 0 && v) {
            if (nrw == 64) {
                fprintf(stderr, "locklab-check: too many --rwlock: '%s' would be the 65th (valid: at most 64)\n", v);
                return 2;
            }
            rwspecs[nrw++] = argv[++i];
        }
        else if (strcmp(a, "--client") == 0 && v) {
            unsigned c = strcmp(v, "all") == 0 ? all_clients : strcmp(v, "locks") == 0 ? lock_clients
                         : strcmp(v, "rws") == 0 ? rw_clients : 0;
            for (int k = 0; k < NRW; k++)
                if (strcmp(v, client_name(k)) == 0)
                    c = 1u << k;
            clients = (clients_given ? clients : 0) | c; /* repeated --client: the union */
            clients_given = true;
            if (!c) {
                fprintf(stderr, "locklab-check: unknown client '%s' (valid: counter, nested, trylock, mixed, timed, sem-mutex, "
                                "sem-handoff, cond-signal, cond-broadcast, abandon, barrier, reuse, locks, all; rw, rw-try, rw-timed, rw-reuse, rws)\n", v);
                return 2;
            }
            i++;
        } else if (strcmp(a, "--threads") == 0 && v) {
            threads[0] = (int)parse_count(a, v, 2, 3);
            nthreads = 1;
            i++;
        } else if (strcmp(a, "--sched") == 0 && v) {
            if (strcmp(v, "full") == 0)
                sched = rl::sched_full;
            else if (strcmp(v, "bound") == 0)
                sched = rl::sched_bound;
            else if (strcmp(v, "random") == 0)
                sched = rl::sched_random;
            else {
                fprintf(stderr, "locklab-check: unknown scheduler '%s' (valid: full, bound, random)\n", v);
                return 2;
            }
            i++;
        } else if (strcmp(a, "--discipline") == 0 && v) {
            char err[256];
            if (ll_sync_config_parse(v, &the_case.sync, err, sizeof err) != 0) {
                fprintf(stderr, "locklab-check: %s\n", err);
                return 2;
            }
            i++;
        } else if (strcmp(a, "--untimed-parks") == 0) {
            ll_model_untimed_parks = true;
        } else if (strcmp(a, "--expect-fail") == 0) {
            expect_fail = true;
        } else if (strcmp(a, "--history") == 0) {
            history = true;
        } else {
            fprintf(stderr,
                    "locklab-check: bad argument '%s' (valid: --lock SPEC, --broken NAME, --rwlock SPEC, --client C, --threads 2|3, "
                    "--acquisitions 1|2, --sched full|bound|random, --bound N, --iterations N, --depth N, --clock-step NS, "
                    "--giveups N, --discipline D, --hold N, --sockets 1|2, --cpus N, --untimed-parks, --expect-fail, --history)\n",
                    a);
            return 2;
        }
    }
    ll_model_clock_step = clock_step;
    if (nrw > 0 && !clients_given)
        clients = rw_clients;
    if (nspecs == 0 && nrw == 0) {
        fprintf(stderr, "locklab-check: no --lock SPEC, --rwlock SPEC or --broken NAME given (broken: ");
        for (int i = 0; i < NBROKEN; i++)
            fprintf(stderr, "%s%s", i ? ", " : "", broken_locks[i].name);
        fprintf(stderr, ")\n");
        return 2;
    }
    int passed = 0, failed = 0;
    char report_path[] = "/tmp/locklab-check-XXXXXX";
    int fd = mkstemp(report_path);
    if (fd < 0) {
        perror("locklab-check: mkstemp");
        return 2;
    }
    close(fd);
    const run_opts opts = {sched, iterations, depth, bound, acquisitions, history, expect_fail, report_path};
    for (int s = 0; s < nspecs; s++)
        for (int c = 0; c < NALL; c++) {
            if (!(clients & (1u << c)))
                continue;
            parse_spec(specs[s], &the_case.a);
            /* mixed: a lock of another algorithm, as in the validator */
            parse_spec(c != MIXED ? specs[s] : strncmp(specs[s], "mcs", 3) == 0 ? "clh-park" : "mcs-park", &the_case.b);
            the_case.client = c;
            the_case.acquisitions = acquisitions;
            for (int t = 0; t < nthreads; t++)
                if (c != REUSE || threads[t] == 3) /* reuse: 3 threads only */
                    (run_case<lock_test>(specs[s], c, threads[t], opts) ? passed : failed)++;
        }
    for (int s = 0; s < nrw; s++)
        for (int c = NALL; c < NRW; c++) {
            if (!(clients & (1u << c)))
                continue;
            char err[1024];
            if (strcmp(rwspecs[s], broken_rw_desc.name) == 0) {
                the_rw.ops = &broken_rw_ops;
            } else if (ll_rwlock_spec_parse(rwspecs[s], &the_rw.spec, err, sizeof err) != 0) {
                fprintf(stderr, "locklab-check: %s\n", err);
                return 2;
            } else {
                the_rw.ops = ll_rwlock_of(the_rw.spec.ops);
            }
            the_case.client = c;
            the_case.acquisitions = acquisitions;
            for (int t = 0; t < nthreads; t++)
                if (c != RW_REUSE || threads[t] == 3) /* rw-reuse: 3 threads only */
                    (run_case<rw_test>(rwspecs[s], c, threads[t], opts) ? passed : failed)++;
        }
    unlink(report_path);
    printf("%d passed, %d failed\n", passed, failed);
    if (passed + failed == 0) { /* e.g. --client reuse --threads 2: a check that checked nothing must not pass */
        fprintf(stderr, "locklab-check: no case ran: the --client choices apply to none of the specs and thread counts "
                        "given (valid: mutex clients with --lock/--broken, rw clients with --rwlock; reuse and rw-reuse "
                        "with --threads 3 or no --threads)\n");
        return 2;
    }
    return failed ? 1 : 0;
}
