/*
 * rwgate — glibc's reader preference on one counting word, with the writers, and the
 * readers a writer holds back, waiting in a standby mutex (the gate) instead of on the
 * word.  locklab's design: readpref's policy (readers enter unless a writer holds the
 * lock or has waited patience_ns) over the Malthusian paper's bounded spinning (Dice,
 * "Malthusian Locks", EuroSys 2017: one spinning waiter, the others parked), which
 * standby.c, the interposer's default mutex, implements.
 *
 * Why.  On one word, every waiter waits on the word: a reader behind a writer, the
 * writers behind readers and each other.  Spinning, they all re-read it after each
 * change (a faa of a reader), which a many-core machine serialises: on the simulated
 * presets at threads = CPUs readpref-stp runs at 0.2-0.9x glibc's rwlock with most
 * CPUs busy spinning (docs/rwlock.md, "On many cores").  Parked, they are all woken by
 * each release that may let one of them go.  Here at most one thread waits on the
 * word: the writer that holds the gate, for the readers in to leave.  Everyone else waits in the gate, whose standby
 * spins and whose other waiters sleep and are woken one at a time, so the threads that
 * wait stay off the lines that the running ones use; the gate barges, as the default
 * mutex does, so that on 2 CPUs and 256 threads a write does not wait for a wake-up.
 *
 * Words:
 *   w      readers in << 3, and
 *          WHELD  (bit 0)  a writer holds the lock
 *          URGENT (bit 1)  the gate's writer has waited patience_ns: new readers wait
 *          SLEEP  (bit 2)  the gate's writer sleeps on w until the count is 0
 *   gate   a standby lock (include/locklab/standby.h), on a line of its own: the
 *          readers' faa on w and the writers' gate do not share a line
 * Only the gate's holder sets WHELD, URGENT or SLEEP.  It clears URGENT and SLEEP
 * before it gives the gate back, WHELD just after (below).
 *   reader: faa(w, +1); in unless the old value had WHELD or URGENT.  Else faa(w, -1)
 *           (as a release) and take the gate: while it holds the gate no writer is in
 *           or urgent (a WHELD still set is the last writer's, out of its section and
 *           past the gate), so faa(w, +1) lets it in; it gives the gate back.
 *           release: faa(w, -1); the last reader out with SLEEP set wakes the writer
 *           (which clears SLEEP when it takes w).
 *   writer: take the gate; CAS (count 0, WHELD clear) -> WHELD, clearing URGENT and
 *           SLEEP, waiting (the policy's spin, then asleep on w with SLEEP set:
 *           rw_wait.h) while readers are in; after patience_ns it sets URGENT and the
 *           readers drain.  release: give the gate back, then faa(w, -WHELD), waking
 *           the next gate's writer if it sleeps.
 * Destroy after unlock (a reader that got in may destroy the lock at once, and the
 * memory hold a new lock): each release's last access to the lock is its releasing
 * faa on w, then at most a futex wake on the address (harmless, rw_wait.h).  Hence the
 * writer's order, gate then WHELD (the other order let a reader in, and its destroy
 * and a new lock in the same memory, before the gate's release store, which then freed
 * the new lock's gate under its writer), and no CAS after the reader's faa.
 * A reader's way in and out is one RMW each, never a CAS loop: a CAS retries under the
 * readers' own traffic (readpref leaves by a CAS, and collapses on the simulated
 * presets: docs/rwlock.md, "On many cores").  Nothing is read
 * before the faa: a load would fetch the line shared and the faa fetch it again.
 *
 * Fairness: reader preference until a writer has held the gate patience_ns; then new
 * readers wait, and the writer waits for the read sections in progress.  Writers, and
 * the readers held back, are served in the gate's order (standby.c, "Fairness":
 * barging; its standby waits at most its patience plus a section, a parked waiter is
 * handed the gate once it has waited its fair time).  The readers held back by a writer
 * come in through the gate one after another, between the writers.  A recursive read
 * behind an urgent writer would deadlock: the callers count re-entries per thread
 * (rwlock.h) and never reach the lock.
 * try: a reader as the first faa above, without the gate (fails while a writer holds or
 * is urgent); a writer if it gets the gate at once, no reader is in and the last
 * writer's WHELD is gone (else it gives the gate back).  Timed: a reader waits for the gate to its deadline (it has backed out
 * of w already: no trace); a writer waits for the gate and then for the readers; at its
 * deadline it clears URGENT and SLEEP and gives the gate back.
 * Memory orders: the reader's faa that lets it in is acquire (the last writer's section,
 * from the writer's release faa); the reader's release faa is release (its section, to
 * the writer's acquire CAS of WHELD); the gate orders itself (standby.c).  The other
 * changes of w are relaxed: they hand over no data.
 * Footprint: 24 bytes used (w, patience_ns, the gate) in a 128-byte state (two lines);
 * per waiter: standby's (a 128-byte queue-node slot while parked).  Fork: the gate's
 * roles are per fork generation (standby.c); the interposer places a lock from before
 * a fork anew in the child.
 * Policies: all: the policy is the way the gate's writer waits for the readers to
 * leave; the gate waits its own way (spin, then park in standby's table: ordered, with no
 * small-machine yields, which would let a waiter pass the parked writers).
 */
#include "locklab/rwlock.h"
#include "locklab/standby.h"
#include "rw_wait.h"

#define WHELD 1u
#define URGENT 2u
#define SLEEP 4u
#define RONE 8u
#define READERS(v) ((v) >> 3)

typedef struct rwgate_lock {
    ll_atomic_u32 w;
    uint64_t patience_ns;
    LL_ALIGNED(LL_CACHELINE) ll_standby_lock gate;
} rwgate_lock;
LL_STATIC_ASSERT(sizeof(rwgate_lock) == 2 * LL_CACHELINE, "rwgate's state is two lines");

static const ll_param params[] = {
    {"patience_ns", "the gate's writer waits this long for the readers, then new readers wait", 0, 10000000000ull,
     1000000},
    {NULL, NULL, 0, 0, 0},
};

static int init(void *s, const uint64_t *p, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    rwgate_lock *l = (rwgate_lock *)s;
    ll_store_relaxed(&l->w, 0); /* relaxed: before any other thread sees the lock */
    l->patience_ns = p[0];
    ll_standby_init(&l->gate);
    return 0;
}

/* A reader out (a release, or a back-out): the last one out wakes the writer asleep on w.
 * Nothing but the wake after the faa: the lock may be destroyed by then (header). */
static void reader_out(rwgate_lock *l)
{
    /* release: our read section to the writer's acquire CAS of WHELD */
    uint32_t v = ll_faa(&l->w, (uint32_t)-RONE, LL_RELEASE);
    if (LL_UNLIKELY(READERS(v) == 1 && (v & SLEEP)))
        ll_futex_wake(&l->w, INT_MAX);
}

/* One attempt, no trace if it fails: in unless a writer holds w or is urgent. */
static bool read_enter(rwgate_lock *l)
{
    /* acquire: the last writer's section; pairs with write_release's release faa */
    if (LL_LIKELY(!(ll_faa(&l->w, RONE, LL_ACQUIRE) & (WHELD | URGENT))))
        return true;
    reader_out(l);
    return false;
}

/* The reader holds the gate: no writer is in or urgent (header), so it is in. */
static void read_through_gate(rwgate_lock *l)
{
    ll_faa(&l->w, RONE, LL_ACQUIRE); /* acquire: as read_enter's */
    ll_standby_release(&l->gate, NULL);
}

static uintptr_t read_acquire(void *s, ll_wait_policy *wp)
{
    (void)wp; /* the gate waits its own way */
    rwgate_lock *l = (rwgate_lock *)s;
    if (!read_enter(l)) {
        ll_standby_acquire_ordered(&l->gate);
        read_through_gate(l);
    }
    return 0;
}

static bool read_try(void *s, ll_wait_policy *wp, uintptr_t *token)
{
    (void)wp;
    *token = 0;
    return read_enter((rwgate_lock *)s);
}

static bool read_acquire_until(void *s, ll_wait_policy *wp, uint64_t deadline_ns, uintptr_t *token)
{
    (void)wp;
    rwgate_lock *l = (rwgate_lock *)s;
    *token = 0;
    if (read_enter(l))
        return true;
    if (!ll_standby_acquire_ordered_until(&l->gate, deadline_ns))
        return false;
    read_through_gate(l);
    return true;
}

static void read_release(void *s, ll_wait_policy *wp, uintptr_t token)
{
    (void)wp, (void)token;
    reader_out((rwgate_lock *)s);
}

/* No reader in, and the last writer's WHELD cleared (it gives the gate back first). */
static bool writer_may_enter(uint32_t v, void *ctx)
{
    (void)ctx;
    return READERS(v) == 0 && !(v & WHELD);
}

/* The gate's holder: WHELD in (URGENT and SLEEP out) if no reader is in. */
static bool write_enter(rwgate_lock *l)
{
    uint32_t v = ll_load_relaxed(&l->w); /* relaxed: the CAS validates it */
    while (writer_may_enter(v, NULL))
        /* acquire: the departed readers' sections (their release faa) and the last writer's
         * (its release faa of WHELD; also ordered by the gate) */
        if (ll_cas(&l->w, &v, (v | WHELD) & ~(URGENT | SLEEP), LL_ACQUIRE))
            return true;
    return false;
}

/* The gate's holder waits for the readers in to leave and takes w (true), or gives up at
 * deadline_ns (false, URGENT and SLEEP cleared; the gate still held). */
static bool write_drain(rwgate_lock *l, ll_wait_policy *wp, uint64_t deadline_ns)
{
    uint64_t patient_until = ll_now_ns() + l->patience_ns;
    bool urgent = false;
    while (!write_enter(l)) {
        uint64_t until = urgent || patient_until > deadline_ns ? deadline_ns : patient_until;
        if (ll_rw_wait(wp, &l->w, SLEEP, writer_may_enter, NULL, until))
            continue;
        uint64_t now = ll_now_ns();
        if (now >= deadline_ns) {
            if (write_enter(l))
                return true;
            uint32_t v = ll_load_relaxed(&l->w); /* relaxed: the CAS validates it */
            while (!ll_cas(&l->w, &v, v & ~(URGENT | SLEEP), LL_RELAXED)) /* relaxed: no data handed over */
                ;
            return false;
        }
        if (!urgent && now >= patient_until) {
            ll_faa(&l->w, URGENT, LL_RELAXED); /* relaxed: readers only read the bit; only we set it */
            urgent = true;
        }
    }
    return true;
}

static void write_acquire(void *s, ll_wait_policy *wp)
{
    rwgate_lock *l = (rwgate_lock *)s;
    ll_standby_acquire_ordered(&l->gate);
    write_drain(l, wp, LL_NO_DEADLINE);
}

static bool write_try(void *s, ll_wait_policy *wp)
{
    rwgate_lock *l = (rwgate_lock *)s;
    if (!ll_standby_try_acquire(&l->gate))
        return false;
    if (write_enter(l))
        return true;
    ll_standby_release(&l->gate, wp);
    return false;
}

static bool write_acquire_until(void *s, ll_wait_policy *wp, uint64_t deadline_ns)
{
    rwgate_lock *l = (rwgate_lock *)s;
    if (!ll_standby_acquire_ordered_until(&l->gate, deadline_ns))
        return false;
    if (write_drain(l, wp, deadline_ns))
        return true;
    ll_standby_release(&l->gate, wp);
    return false;
}

static void write_release(void *s, ll_wait_policy *wp)
{
    rwgate_lock *l = (rwgate_lock *)s;
    /* the gate first: once WHELD is out a reader may get in and destroy the lock (header).
     * The gate's release store carries our section to its next holder. */
    ll_standby_release(&l->gate, wp);
    /* release: our section to the readers' acquire faa and the next gate writer's acquire CAS */
    if (ll_faa(&l->w, (uint32_t)-WHELD, LL_RELEASE) & SLEEP)
        ll_futex_wake(&l->w, INT_MAX); /* the next gate's writer sleeps for WHELD to go */
}

static const ll_lock_ops desc = {
    .name = "rwgate",
    .source = "locklab: glibc's reader preference + writer patience, waiters in a standby mutex (Malthusian)",
    .summary = "readers enter with one faa unless a writer holds or has waited patience_ns; writers, and the "
        "readers they hold back, wait in a standby mutex (one spinner, the others parked)",
    .fairness = "reader preference; after patience_ns (1 ms) the gate's writer holds new readers back; writers and "
        "held-back readers are served in the standby gate's order (barging, bounded by its fair handoff)",
    .policies = LL_ALL_POLICIES, .params = params,
    .state_bytes = sizeof(rwgate_lock), .lock_bytes = 24,
    .init = init,
};

const ll_rwlock_ops ll_rwlock_rwgate = LL_RWLOCK_OPS(&desc);
