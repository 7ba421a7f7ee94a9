/*
 * readpref — reader preference with a bounded writer wait: the policy of glibc's
 * default rwlock (readers enter whenever no writer holds the lock, even while
 * writers wait: they never sleep behind a waiting writer, so a reader-heavy load
 * runs at the readers' pace), plus the bound glibc lacks: a writer that has waited
 * `patience_ns` (default 1 ms) for the readers to drain turns urgent, and from then
 * on new readers wait until it has been in.  locklab's design: reader
 * preference is what makes glibc fast on a machine with more threads than CPUs
 * (phase-fair and writer-preferring locks park and wake every reader at each writer
 * phase: pft, numarw), and patience is the Malthusian paper's answer to the
 * starvation that comes with it (a waiter that has waited long enough is served).
 *
 * One word w (32 bits; 4 bytes per lock):
 *   WHELD   (bit 0)   a writer holds the lock
 *   URGENT  (bit 1)   a writer has waited patience_ns: readers wait (cleared by the
 *                     writer that enters next; a still waiting urgent writer sets it again)
 *   SLEEP   (bit 2)   someone sleeps on w (readers for !(WHELD|URGENT), writers for
 *                     "no writer, no reader"); cleared, with a wake-up of all sleepers,
 *                     by the RMW that may let them go: a writer's release, the last
 *                     reader's release, an urgent writer that gives up
 *   USPIN   (bit 3)   one urgent writer spins for the lock (the spinner): the next
 *                     writer's release hands it the lock
 *   GRANTED (bit 4)   a releasing writer handed the lock to the spinner (WHELD kept)
 *   HANDED  (bit 5)   the holder was handed the lock: no writer may become the spinner
 *                     until it has released (so a handover never follows a handover)
 *   count   (<< 6)    readers in
 * Transitions (bits named; count as noted):
 *   reader: faa count + 1; if the old w had WHELD|URGENT, back out (as a release)
 *           and wait (policy, then sleep on w) for a w without them.  release: CAS
 *           count - 1, and SLEEP cleared (wake) if it was the last (one RMW: the lock
 *           is not touched after the release but for the futex wake).
 *   writer: (count 0, no WHELD) -> (WHELD), URGENT cleared: CAS.  Readers keep
 *           entering while it waits, until patience_ns has passed: then (x) -> (x|URGENT),
 *           and the readers in drain.  An urgent writer claims the spinner's role,
 *           (x) -> (x|USPIN) unless x has USPIN, GRANTED or HANDED, spins (PAUSE, then
 *           yield) and enters by the CAS above (USPIN cleared too) or by a grant; after
 *           SPIN_BUDGET_NS it gives the role up, (x|USPIN) -> (x), and sleeps as any writer.
 *           Writers otherwise barge among themselves (a running writer takes the lock
 *           before a sleeping one wakes: with more threads than CPUs a FIFO hand-over to
 *           a parked writer costs a wake-up per write, the collapse every FIFO lock shows
 *           here; the spinner runs, so handing it the lock idles nothing).
 *   release (writer): (WHELD|USPIN|x) -> (WHELD|GRANTED|x), URGENT cleared, sleepers
 *           left asleep; the spinner takes it, (WHELD|GRANTED) -> (WHELD|HANDED).
 *           Otherwise CAS WHELD, URGENT, HANDED and SLEEP out (wake).
 *
 * Fairness: readers are never held up by a writer that has waited less than
 * patience_ns; an urgent writer waits for the read sections in progress and, once it
 * is the spinner, for at most one writer's section (the holder's, or that of one that
 * barges in; either hands over at its release) while sections are shorter than
 * SPIN_BUDGET_NS; before that it waits for the other spinners and for writers that
 * barge in while it sleeps (unbounded in theory,
 * as among glibc's writers; each barging entry clears URGENT, which the urgent one
 * sets again).  Readers get the lock between handovers: a handed holder's release
 * frees it for everyone.  A
 * recursive read behind an urgent writer would deadlock: the callers count
 * re-entries per thread (rwlock.h) and never reach the lock.
 * try: a reader as above without waiting; a writer if no writer holds and no
 * reader is in.  Timed: a reader waits to its deadline and leaves no trace; a
 * writer waits as above (a spinner gives the role up at the deadline, and is in if
 * a grant came first); if it gives up while urgent, it clears URGENT (waking the
 * readers it held up; another urgent writer sets it again).
 * Memory orders: the acquiring CASes and the releasing RMWs pair as named at each; the
 * grant is a release CAS whose section the spinner acquires by its acquire load of
 * GRANTED (and the acquire RMW that takes it); the other bit changes are relaxed:
 * they hand over no data (a stale view spins, sleeps or retries once more).
 * Footprint: 16 bytes per lock (the word and the patience; one line in the state),
 * nothing per waiter.
 * Policies: all (rw_wait.h).
 */
#include "locklab/rwlock.h"
#include "rw_wait.h"

#define WHELD 1u
#define URGENT 2u
#define SLEEP 4u
#define USPIN 8u
#define GRANTED 16u
#define HANDED 32u
#define RONE 64u
#define READERS(v) ((v) >> 6)
/* The spinning urgent writer PAUSEs this long, then yields between looks; after
 * SPIN_BUDGET_NS it gives the role up and sleeps (standby.c's standby does the same). */
#define SPIN_PAUSE_NS 2000u
#define SPIN_BUDGET_NS 200000u

typedef struct readpref_lock {
    ll_atomic_u32 w;
    uint64_t patience_ns;
} readpref_lock;
LL_STATIC_ASSERT(sizeof(readpref_lock) == LL_RW_READPREF_USED_BYTES, "rwlock.h's LL_RW_READPREF_USED_BYTES");

static const ll_param params[] = {
    {"patience_ns", "a writer waits this long for the readers, then new readers wait", 0, 10000000000ull, 1000000},
    {NULL, NULL, 0, 0, 0},
};

static int init(void *s, const uint64_t *p, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    ((readpref_lock *)s)->patience_ns = p[0];
    return 0;
}

static bool reader_may_enter(uint32_t v, void *ctx)
{
    (void)ctx;
    return !(v & (WHELD | URGENT));
}

static void release_word(readpref_lock *l, uint32_t delta, uint32_t bits, bool last_reader_only);

/* One attempt: a reader in unless a writer holds or is urgent (false: not now, no trace).
 * One fetch-and-add, as glibc's readers: a CAS loop would retry under the readers' own
 * traffic.  A reader that finds WHELD or URGENT in the old value backs out as a reader
 * leaves (the writer's CAS of WHELD needs a count of zero, so it waited for that). */
static bool read_enter(readpref_lock *l)
{
    if (!reader_may_enter(ll_load_relaxed(&l->w), NULL)) /* relaxed: a hint; the faa decides */
        return false;
    /* acquire: the last writer's section; pairs with write_release's release CAS */
    if (reader_may_enter(ll_faa(&l->w, RONE, LL_ACQUIRE), NULL))
        return true;
    release_word(l, (uint32_t)-RONE, 0, true);
    return false;
}

static uintptr_t read_acquire(void *s, ll_wait_policy *wp)
{
    readpref_lock *l = (readpref_lock *)s;
    while (!read_enter(l))
        ll_rw_wait(wp, &l->w, SLEEP, reader_may_enter, NULL, LL_NO_DEADLINE);
    return 0;
}

static bool read_try(void *s, ll_wait_policy *wp, uintptr_t *token)
{
    (void)wp;
    *token = 0;
    return read_enter((readpref_lock *)s);
}

static bool read_acquire_until(void *s, ll_wait_policy *wp, uint64_t deadline_ns, uintptr_t *token)
{
    readpref_lock *l = (readpref_lock *)s;
    *token = 0;
    while (!read_enter(l))
        if (!ll_rw_wait(wp, &l->w, SLEEP, reader_may_enter, NULL, deadline_ns) && ll_now_ns() >= deadline_ns)
            return false;
    return true;
}

/* Clear `bits` (and SLEEP) from w with `delta` added, in one RMW with the given order; wake
 * the sleepers if SLEEP was set and `wake_if(new value)`. */
static void release_word(readpref_lock *l, uint32_t delta, uint32_t bits, bool last_reader_only)
{
    uint32_t v = ll_load_relaxed(&l->w), n; /* relaxed: the CAS validates it */
    do {
        n = v + delta;
        if (!last_reader_only || READERS(n) == 0)
            n &= ~(bits | SLEEP);
        /* release: our section (a reader's reads, a writer's writes) to the next holder's
         * acquire (read_enter's CAS, the writer's CAS of WHELD) */
    } while (!ll_cas(&l->w, &v, n, LL_RELEASE));
    if ((v & SLEEP) && !(n & SLEEP))
        ll_futex_wake(&l->w, INT_MAX);
}

static void read_release(void *s, ll_wait_policy *wp, uintptr_t token)
{
    (void)wp, (void)token;
    release_word((readpref_lock *)s, (uint32_t)-RONE, 0, true);
}

static bool writer_may_enter(uint32_t v, void *ctx)
{
    (void)ctx;
    return READERS(v) == 0 && !(v & WHELD);
}

/* CAS WHELD in (and URGENT and `also` out) if no writer holds and no reader is in. */
static bool write_enter(readpref_lock *l, uint32_t also)
{
    uint32_t v = ll_load_relaxed(&l->w); /* relaxed: the CAS validates it */
    while (writer_may_enter(v, NULL))
        /* acquire: the departed readers' and the last writer's sections (their release CASes) */
        if (ll_cas(&l->w, &v, (v | WHELD) & ~(URGENT | also), LL_ACQUIRE))
            return true;
    return false;
}

/* The head writer gives up while urgent: clear URGENT, waking the readers it held up. */
static void give_up_urgency(readpref_lock *l)
{
    uint32_t v = ll_load_relaxed(&l->w), n; /* relaxed: the CAS validates it */
    do
        n = v & ~(URGENT | SLEEP);
    while (!ll_cas(&l->w, &v, n, LL_RELAXED)); /* relaxed: no data handed over */
    if (v & SLEEP)
        ll_futex_wake(&l->w, INT_MAX);
}

/* Set `bit` in w; false if w has a bit of `unless` (then nothing changed). */
static bool set_bit(readpref_lock *l, uint32_t bit, uint32_t unless)
{
    uint32_t v = ll_load_relaxed(&l->w); /* relaxed: the CAS validates it */
    do
        if (v & unless)
            return false;
    while (!ll_cas(&l->w, &v, v | bit, LL_RELAXED)); /* relaxed: readers and writers only read the bits */
    return true;
}

/* The spinning urgent writer was handed the lock: (WHELD|GRANTED) -> (WHELD|HANDED). */
static void take_granted(readpref_lock *l)
{
    uint32_t v = ll_load_relaxed(&l->w); /* relaxed: the CAS validates it */
    /* acquire (the RMW reads the granting release CAS's value or a later one): its section */
    while (!ll_cas(&l->w, &v, (v & ~GRANTED) | HANDED, LL_ACQUIRE))
        ;
}

/* The urgent writer holds USPIN: spin for the lock, which a releasing writer hands over
 * (GRANTED) and the last reader leaves free; true: in.  false (the budget or the deadline
 * passed): USPIN given up, unless a grant came first (then in, true). */
static bool spin_urgent(readpref_lock *l, uint64_t deadline_ns)
{
    uint64_t from = ll_now_ns(), spun = 0;
    for (uint32_t round = 1;; round++) {
        /* acquire: pairs with write_release's release CAS that set GRANTED */
        uint32_t v = ll_load_acquire(&l->w);
        if (v & GRANTED)
            return take_granted(l), true;
        if (writer_may_enter(v, NULL) && write_enter(l, USPIN))
            return true;
        if (round % 16 == 0) {
            uint64_t now = ll_now_ns();
            spun = now - from;
            if (now >= deadline_ns || spun >= SPIN_BUDGET_NS) {
                v = ll_load_relaxed(&l->w); /* relaxed: the CAS validates it */
                while (!(v & GRANTED) && !ll_cas(&l->w, &v, v & ~USPIN, LL_RELAXED)) /* relaxed: orders nothing */
                    ;
                if (!(v & GRANTED))
                    return false;
                return take_granted(l), true;
            }
        }
        if (spun > SPIN_PAUSE_NS && !ll_thread_realtime()) {
            ll_yield();
        } else {
            for (int i = 0; i < 8; i++)
                ll_pause();
        }
    }
}

/* In (true), or deadline_ns passed (false, nothing left behind). */
static bool write_wait(readpref_lock *l, ll_wait_policy *wp, uint64_t deadline_ns)
{
    uint64_t patient_until = ll_now_ns() + l->patience_ns;
    bool urgent = false, spun_out = false;
    while (!write_enter(l, 0)) {
        if (urgent) {
            (void)set_bit(l, URGENT, URGENT); /* again, if a writer that barged in cleared it */
            if (!spun_out && set_bit(l, USPIN, USPIN | GRANTED | HANDED)) { /* the spinning urgent writer: the next writer's release hands over */
                if (spin_urgent(l, deadline_ns))
                    return true;
                spun_out = true; /* sleep before spinning again */
                continue;
            }
        }
        uint64_t until = urgent || patient_until > deadline_ns ? deadline_ns : patient_until;
        bool ok = ll_rw_wait(wp, &l->w, SLEEP, writer_may_enter, NULL, until);
        spun_out = false;
        if (ok)
            continue;
        uint64_t now = ll_now_ns();
        if (now >= deadline_ns) {
            if (write_enter(l, 0))
                return true;
            if (urgent)
                give_up_urgency(l);
            return false;
        }
        if (!urgent && now >= patient_until) {
            (void)set_bit(l, URGENT, URGENT);
            urgent = true;
        }
    }
    return true;
}

static void write_acquire(void *s, ll_wait_policy *wp)
{
    write_wait((readpref_lock *)s, wp, LL_NO_DEADLINE);
}

static bool write_try(void *s, ll_wait_policy *wp)
{
    (void)wp;
    readpref_lock *l = (readpref_lock *)s;
    /* relaxed: a hint (a held line is not taken for nothing); write_enter decides */
    return writer_may_enter(ll_load_relaxed(&l->w), NULL) && write_enter(l, 0);
}

static bool write_acquire_until(void *s, ll_wait_policy *wp, uint64_t deadline_ns)
{
    return write_wait((readpref_lock *)s, wp, deadline_ns);
}

static void write_release(void *s, ll_wait_policy *wp)
{
    (void)wp;
    readpref_lock *l = (readpref_lock *)s;
    uint32_t v = ll_load_relaxed(&l->w); /* relaxed: the CAS validates it */
    while (v & USPIN) /* (WHELD|USPIN) -> (WHELD|GRANTED): the spinning urgent writer's, sleepers stay asleep */
        /* release: our section to the urgent writer's acquire load of GRANTED */
        if (ll_cas(&l->w, &v, (v & ~(USPIN | URGENT)) | GRANTED, LL_RELEASE))
            return;
    release_word(l, 0, WHELD | URGENT | HANDED, false);
}

static const ll_lock_ops desc = {
    .name = "readpref", .source = "locklab: glibc's reader preference + Malthusian-style writer patience",
    .summary = "readers enter unless a writer holds or has waited patience_ns; writers barge",
    .fairness = "reader preference; after patience_ns (1 ms) a writer holds new readers back, and one such "
        "writer at a time spins and is handed the lock by the next writer's release (the others barge)",
    .policies = LL_ALL_POLICIES, .params = params,
    .state_bytes = LL_CACHELINE, .lock_bytes = sizeof(readpref_lock),
    .init = init,
};

const ll_rwlock_ops ll_rwlock_readpref = LL_RWLOCK_OPS(&desc);
