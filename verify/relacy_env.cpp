/*
 * The operating system as the model checker sees it: core.h's hooks (futex
 * wait/wake, clock, yield), the per-thread contexts and queue nodes, and the
 * topology, for sources compiled against verify/relacy_atomics.h.
 *
 * futex: one Relacy mutex and condition variable stand for the kernel's futex
 *   hash bucket.  ll_futex_wait(word, expected) compares and enqueues atomically
 *   with respect to every other futex call (as the kernel does under the bucket
 *   lock), then blocks until an ll_futex_wake on the same word picks it.  No
 *   spurious returns are modelled, so a lost wake-up leaves its thread blocked
 *   for ever, which Relacy reports as a deadlock.  A timed wait (ll_futex_wait_until)
 *   yields and times out: the deadline always comes, and a lost wake-up of a timed
 *   waiter is only a delay (not checked; --untimed-parks makes the timed waits on a
 *   parker untimed, so that a lost wake-up there is a deadlock).  (The bucket lock also orders
 *   the futex calls themselves: a fence the protocol needs between them would not
 *   be caught missing; the parker's and wait words' fences sit before the
 *   futex calls, on plain atomics, where the checker sees them.)
 * clock: a virtual nanosecond clock that advances by ll_model_clock_step at every
 *   read (default 1 ms), so every spin budget and patience ends after one round:
 *   spin-then-park policies really park, and time-based fairness paths run.
 * ll_yield, ll_sleep_ns and ll_pause: scheduler yields; no thread runs a
 *   real-time policy (ll_thread_realtime is false).
 * ll_self: one context and parker per simulated thread; queue nodes come from a
 *   pool (uninitialised for the model: below) and are recycled through the threads' caches as in
 *   production (so a late access to a reused node is modelled).
 * LL_THREAD_ELEMENT (core.h): each simulated thread's per-thread elements of the
 *   algorithms that keep one (hemlock, reciprocating), zeroed per iteration as a
 *   new thread's thread-locals are.
 * Fresh memory (relacy_atomics.h): the pool's nodes and the elements start
 *   uninitialised for the model (a read before a store that happens before it is an
 *   error), and an element has a lifetime: another thread's access to it must happen
 *   after its owner's first use of it in the execution (which stands for the
 *   thread-local's initialisation) or LL_ELEMENT_REUSE, and before its next
 *   LL_ELEMENT_REUSE and the owner's end (ll_model_thread_exit), else Relacy reports a
 *   data race.
 * topology: two virtual sockets, thread i on socket i % 2 (the NUMA-aware locks'
 *   cross-socket paths run with two threads); --sockets 1 puts every thread on one.
 */
#include <errno.h>
#include <string.h>

#include "locklab/core.h"
#include "relacy_env.h"

/* ---- per-iteration state ------------------------------------------------------------ */
enum { MODEL_NODES = 4096 }; /* timed acquires that give up may leave nodes to their successors */
enum { MODEL_ELEMENTS = 4 }; /* per-thread elements (LL_THREAD_ELEMENT) per simulated thread */
struct model_slot {
    ll_parker parker;
    ll_thread thread;
    const void *element_tag[MODEL_ELEMENTS]; /* NULL: unused */
    alignas(LL_SECTOR) unsigned char element[MODEL_ELEMENTS][LL_SECTOR];
};
alignas(LL_SECTOR) static model_slot slots[LL_MODEL_MAX_THREADS];
alignas(LL_SECTOR) static unsigned char nodes[MODEL_NODES][LL_QNODE_BYTES];
static unsigned nodes_used;
static uint64_t clock_ns;
uint64_t ll_model_clock_step = 1000000;
bool ll_model_untimed_parks = false;
ll_atomic_u32 ll_fork_generation; /* never changes: the checker does not fork */
uint32_t ll_fork_generation_pending(uint32_t g) { return g & ~LL_FORK_PENDING; } /* never set: no fork here */

struct futex_model {
    rl::mutex bucket;
    rl::condition_variable cv;
    const ll_atomic_u32 *waiting_on[LL_MODEL_MAX_THREADS]; /* under bucket: NULL = not waiting */
    bool woken[LL_MODEL_MAX_THREADS];
};
alignas(futex_model) static unsigned char futex_memory[sizeof(futex_model)]; /* not Relacy's heap */
static futex_model *futexes;
/* Per simulated thread: the lifetime shadow of its elements, written by the owner when it
 * reuses them or exits, read by every other thread's access to them. */
alignas(rl::var<char>) static unsigned char lifetime_memory[LL_MODEL_MAX_THREADS][sizeof(rl::var<char>)];
static rl::var<char> *lifetimes;

void ll_model_begin(void)
{
    ll_model::forget_all();
    memset(slots, 0, sizeof slots);
    memset(nodes, 0, sizeof nodes);
    nodes_used = 0;
    clock_ns = 1;
    for (unsigned i = 0; i < LL_MODEL_MAX_THREADS; i++) {
        slots[i].thread.parker = &slots[i].parker;
        slots[i].thread.index = i;
        slots[i].thread.rng = 0x9E3779B97F4A7C15ull * (i + 1); /* deterministic: iterations replay */
        slots[i].parker.id = i;
    }
    futexes = new (futex_memory) futex_model();
    memset(futexes->waiting_on, 0, sizeof futexes->waiting_on);
    memset(futexes->woken, 0, sizeof futexes->woken);
    lifetimes = reinterpret_cast<rl::var<char> *>(lifetime_memory);
    for (unsigned i = 0; i < LL_MODEL_MAX_THREADS; i++)
        new (&lifetimes[i]) rl::var<char>(0);
}

void ll_model_end(void)
{
    futexes->~futex_model();
    futexes = nullptr;
    for (unsigned i = 0; i < LL_MODEL_MAX_THREADS; i++)
        lifetimes[i].~var();
    ll_model::reset();
}

/* Which slot's element p is in, or -1. */
static int element_owner(const void *p)
{
    for (unsigned i = 0; i < LL_MODEL_MAX_THREADS; i++)
        if ((const unsigned char *)p >= slots[i].element[0] &&
            (const unsigned char *)p < slots[i].element[0] + sizeof slots[i].element)
            return (int)i;
    return -1;
}

ll_model::memory_kind ll_model::memory_of(const void *p)
{
    if ((const unsigned char *)p >= nodes[0] && (const unsigned char *)p < nodes[0] + sizeof nodes)
        return POOL_NODE;
    int owner = element_owner(p);
    return owner < 0 ? PLACED : owner == (int)rl::thread_index() ? OWN_ELEMENT : OTHER_ELEMENT;
}

void ll_model::element_access(const void *p, rl::debug_info_param info)
{
    (void)(char)lifetimes[element_owner(p)](info); /* a read: must happen before the owner's reuse/exit */
}

void ll_model_element_reuse(void) { lifetimes[rl::thread_index()]($) = 1; }
void ll_model_thread_exit(void) { lifetimes[rl::thread_index()]($) = 2; }

ll_thread *ll_model_self(void) { return &slots[rl::thread_index()].thread; }

void *ll_model_thread_element(const void *tag, size_t bytes)
{
    model_slot *s = &slots[rl::thread_index()];
    RL_VERIFY(bytes <= LL_SECTOR);
    for (unsigned i = 0; i < MODEL_ELEMENTS; i++) {
        if (s->element_tag[i] == NULL) {
            s->element_tag[i] = tag; /* first use in this iteration: zeroed by ll_model_begin */
            lifetimes[rl::thread_index()]($) = 3; /* and now live: another thread's access must follow */
        }
        if (s->element_tag[i] == tag)
            return s->element[i];
    }
    RL_VERIFY(!"more per-thread elements than MODEL_ELEMENTS");
    return NULL;
}

void *ll_qnode_refill(void)
{
    RL_ASSERT(nodes_used < MODEL_NODES);
    return nodes[nodes_used++];
}

/* ---- futex ---------------------------------------------------------------------------- */
void ll_futex_wait(ll_atomic_u32 *word, uint32_t expected)
{
    unsigned me = rl::thread_index();
    futexes->bucket.lock($);
    /* relaxed: the bucket lock orders this against the wakers (the kernel's bucket lock) */
    if (ll_load_relaxed(word) == expected) {
        futexes->waiting_on[me] = word;
        futexes->woken[me] = false;
        while (!futexes->woken[me])
            futexes->cv.wait(futexes->bucket, $);
        futexes->waiting_on[me] = NULL;
    }
    futexes->bucket.unlock($);
}

/* Whether word is a simulated thread's parker (ll_parker_park_deadline sleeps on it). */
static bool parker_word(const ll_atomic_u32 *word)
{
    for (unsigned i = 0; i < LL_MODEL_MAX_THREADS; i++)
        if (word == &slots[i].parker.state)
            return true;
    return false;
}

/* A timed wait never blocks in the model: after the compare it lets the other
 * threads run (a yield) and reports that the deadline passed.  (Relacy's own timed
 * waits leave a thread running past the end of an iteration.)  With
 * ll_model_untimed_parks a timed wait on a parker is an untimed one (relacy_env.h). */
int ll_futex_wait_until(ll_atomic_u32 *word, uint32_t expected, clockid_t clock, const struct timespec *abstime)
{
    (void)clock, (void)abstime;
    if (ll_model_untimed_parks && parker_word(word)) {
        ll_futex_wait(word, expected); /* woken only by an unpark: the deadline never comes */
        return 0;
    }
    futexes->bucket.lock($);
    bool sleeps = ll_load_relaxed(word) == expected; /* relaxed: as in ll_futex_wait */
    futexes->bucket.unlock($);
    if (!sleeps)
        return 0;
    rl::yield(1, $);
    return ETIMEDOUT;
}

static void wake_locked(ll_atomic_u32 *word, int n) /* holding the bucket lock */
{
    for (unsigned i = 0; i < LL_MODEL_MAX_THREADS && n > 0; i++)
        if (futexes->waiting_on[i] == word && !futexes->woken[i]) {
            futexes->woken[i] = true;
            n--;
        }
}

void ll_futex_wake(ll_atomic_u32 *word, int n)
{
    futexes->bucket.lock($);
    wake_locked(word, n);
    futexes->cv.notify_all($);
    futexes->bucket.unlock($);
}

/* As the kernel: the operation on b and both wake-ups under the bucket lock. */
bool ll_futex_wake_two(ll_atomic_u32 *a, ll_atomic_u32 *b, uint32_t set_to, uint32_t was)
{
    futexes->bucket.lock($);
    wake_locked(a, 1);
    if (ll_xchg(b, set_to, LL_SEQ_CST) == was) /* seq_cst: the kernel's atomic op is a full barrier */
        wake_locked(b, 1);
    futexes->cv.notify_all($);
    futexes->bucket.unlock($);
    return true;
}

void ll_futex_counts(uint64_t *waits, uint64_t *wakes) { *waits = *wakes = 0; }

/* ---- time, scheduling, topology ------------------------------------------------------- */
uint64_t ll_now_ns(void) { return clock_ns += ll_model_clock_step; }
void ll_yield(void) { rl::yield(1, $); }
void ll_sleep_ns(uint64_t ns)
{
    (void)ns;
    rl::yield(1, $);
}
/* The model's threads run no real-time policy (the engine's real-time naps are not modelled). */
bool ll_thread_realtime(void) { return false; }
uint64_t ll_park_cost_ns(void) { return 20000; }
unsigned ll_model_sockets = 2;
int ll_topology_sockets(void) { return (int)ll_model_sockets; }
int ll_current_socket(void) { return (int)(rl::thread_index() % ll_model_sockets); }
unsigned ll_model_cpus = 2;
int ll_cpus_available(void) { return (int)ll_model_cpus; }
int ll_cpus_placeable(void) { return (int)ll_model_cpus; }
int ll_ncpus(void) { return (int)ll_model_cpus; }
