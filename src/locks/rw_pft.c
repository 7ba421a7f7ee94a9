/*
 * pft — the compact phase-fair ticket reader-writer lock (PF-T) of Brandenburg
 * & Anderson, "Spin-based reader-writer synchronization for multiprocessor
 * real-time systems", Real-Time Systems 46(1), 2010 (ECRTS 2009), §4 and
 * Listing 3.
 *
 * Phase fairness: reader phases and writer phases alternate whenever both
 * kinds wait.  A reader that arrives while a writer holds or waits for the
 * lock waits for at most that one writer phase; a writer waits for the writers
 * ahead of it (FIFO, by ticket) and for at most one reader phase (the readers
 * that were in when it announced itself).  So neither side starves: a reader
 * waits at most one writer critical section (plus the readers' exit), a writer
 * at most (writers ahead + 1) x (one writer phase + one reader phase).
 *
 * Words (each 32 bits; 16 bytes per lock):
 *   rin   readers that have entered, << 8 (RINC), and in the low byte:
 *         PHID (bit 0)   the present writer's phase
 *         PRES (bit 1)   a writer is present (holds or drains the readers)
 *         RSLEEP (bit 2) readers sleep on rin (rw_wait.h), cleared by the
 *                        writer's release that also clears PRES
 *         LAST (bit 3)   the last writer's phase, kept when PRES is cleared:
 *                        the next writer announces the other one
 *   rout  readers that have left, << 8; bit 0: the writer sleeps on rout
 *         waiting for the readers to drain (set and cleared by that writer,
 *         the only thread that ever waits on rout)
 *   win, wout  the writers' ticket (rw_wait.h)
 *
 *   reader: v = faa(rin, RINC); if v has PRES: wait while rin's PRES|PHID == v's
 *           (the writer it saw leaves; the next one has the other phase).
 *           release: faa(rout, RINC).
 *   writer: take a ticket, wait for its turn; announce: CAS rin's low byte to
 *           PRES | phase (the opposite of LAST): from now new readers wait; r =
 *           rin's count at that CAS; wait until rout == r (the readers counted
 *           in r have left).  release: clear PRES|PHID|RSLEEP, LAST = its phase
 *           (readers go), advance the ticket (the next writer announces itself
 *           only after that, so the readers admitted by this release are
 *           exactly those counted in its r: phase fairness).
 *
 * The phase.  The paper takes the ticket's parity; here the phase alternates per
 * announcement instead, and a writer that has announced never gives up (it
 * drains whatever it counted).  Together they make "rin shows the phase I saw"
 * mean "the writer I saw is still there": the next announcing writer shows the
 * other phase and cannot finish its drain before this reader has seen that (it
 * counted the reader).  A writer that gave up after announcing, or a ticket
 * taken without an announcement, would break the alternation and let a later
 * writer show the waiting reader's phase again while counting it: deadlock.
 *
 * Why these choices.  Counters instead of a reader count that goes up and down:
 * a writer needs one snapshot (r) and then waits for one word to reach it, while
 * arriving and leaving readers touch different words (rin, rout): the paper's
 * point, and what makes it compact (no per-thread state).
 *
 * try: a reader enters only if no writer is present (if one announced between
 * its look and its arrival, it leaves as a timed reader does, below); a writer
 * only if no writer holds or waits and no reader is in: it announces with a CAS
 * that succeeds only on the rin it saw, whose count equals rout's (so it never
 * has readers to drain, and never announces and then gives up).
 * Timed acquire: a reader that gives up while the writer it saw is still present
 * takes its arrival back (CAS rin - RINC, only while rin shows that writer's
 * phase: see "The phase"; that writer's snapshot did not count it and the next
 * writer's has not been taken); if that writer left meanwhile, the reader holds
 * the lock.  A writer waits for its ticket as the ticket's timed writers do
 * (rw_wait.h: it takes one only when the writers' queue is empty), then, holding
 * the turn, for a moment when no reader is in, and announces as try does; at
 * its deadline it gives the turn back.  So a timed writer is served only when
 * the readers pause (reader preference for timed writers, as glibc's rwlock has
 * for every writer), but it never leaves a phase or a ticket behind.
 *
 * Recursive readers: a re-entry by a thread that holds the lock for reading
 * behind a present writer would deadlock here (as in the paper); the callers
 * count re-entries per thread and never reach the lock (rwlock.h).
 *
 * Footprint: 16 bytes per lock (the state is padded to a 64-byte line), nothing
 * per waiter (sleepers are in the kernel's futex queue).  Policies: all; waits
 * spin per the policy and then sleep on the word (rw_wait.h).
 */
#include "locklab/rwlock.h"
#include "rw_wait.h"

#define RINC 0x100u
#define PHID 1u
#define PRES 2u
#define RSLEEP 4u
#define LAST 8u
#define WBITS (PRES | PHID)
#define WSLEEP 1u
#define COUNT(x) ((x) & ~0xffu)

typedef struct pft_lock {
    ll_atomic_u32 rin, rout;
    ll_rw_ticket w;
} pft_lock;

typedef struct {
    pft_lock *l;
    uint32_t w; /* the writer phase the reader waits out */
} phase_ctx;
/* rin (ll_rw_wait loads it with acquire: the writer's section, pairing with write_release's release CAS) */
static bool phase_over(uint32_t rin, void *p) { return (rin & WBITS) != ((phase_ctx *)p)->w; }

static uintptr_t read_acquire(void *s, ll_wait_policy *wp)
{
    pft_lock *l = (pft_lock *)s;
    /* acquire: with no writer present, the last writer's section (its release CAS on rin is
     * in rin's release sequence); else phase_over's load orders it */
    uint32_t w = ll_faa(&l->rin, RINC, LL_ACQUIRE) & WBITS;
    if (w != 0) {
        phase_ctx c = {l, w};
        ll_rw_wait(wp, &l->rin, RSLEEP, phase_over, &c, LL_NO_DEADLINE);
    }
    return 0;
}

/* A reader that arrived (its RINC in rin) behind writer phase w and will not wait longer:
 * take the arrival back if that writer is still present (false), else it holds the lock. */
static bool read_leave(pft_lock *l, uint32_t w)
{
    uint32_t v = ll_load_relaxed(&l->rin); /* relaxed: the CAS validates it */
    while ((v & WBITS) == w)
        /* relaxed: a departure orders nothing (the reader read nothing under the lock) */
        if (ll_cas(&l->rin, &v, v - RINC, LL_RELAXED))
            return false;
    (void)ll_load_acquire(&l->rin); /* acquire: the writer's section, as phase_over (the reads above were relaxed;
                                     * every write of rin is an RMW: the release sequence reaches this load) */
    return true;
}

static bool read_try(void *s, ll_wait_policy *wp, uintptr_t *token)
{
    (void)wp;
    pft_lock *l = (pft_lock *)s;
    *token = 0;
    if (ll_load_relaxed(&l->rin) & WBITS) /* relaxed: a hint; the faa decides */
        return false;
    uint32_t w = ll_faa(&l->rin, RINC, LL_ACQUIRE) & WBITS; /* acquire: as read_acquire */
    return w == 0 || read_leave(l, w);
}

static bool read_acquire_until(void *s, ll_wait_policy *wp, uint64_t deadline_ns, uintptr_t *token)
{
    pft_lock *l = (pft_lock *)s;
    *token = 0;
    uint32_t w = ll_faa(&l->rin, RINC, LL_ACQUIRE) & WBITS; /* acquire: as read_acquire */
    if (w == 0)
        return true;
    phase_ctx c = {l, w};
    return ll_rw_wait(wp, &l->rin, RSLEEP, phase_over, &c, deadline_ns) || read_leave(l, w);
}

static void read_release(void *s, ll_wait_policy *wp, uintptr_t token)
{
    (void)wp, (void)token;
    pft_lock *l = (pft_lock *)s;
    /* release: our reads under the lock before a writer's acquire load of rout (drained) */
    if (ll_faa(&l->rout, RINC, LL_RELEASE) & WSLEEP)
        ll_futex_wake(&l->rout, 1); /* the one writer that drains */
}

typedef struct {
    pft_lock *l;
    uint32_t r; /* rin's reader count when the writer announced itself */
} drain_ctx;
/* rout (loaded with acquire: the departed readers' sections, pairing with read_release's faa) */
static bool drained(uint32_t rout, void *p) { return COUNT(rout) == ((drain_ctx *)p)->r; }

/* The announcement's new low byte over v: PRES and the phase opposite to LAST. */
LL_INLINE uint32_t announced(uint32_t v) { return COUNT(v) | (v & RSLEEP) | (v & LAST) | PRES | ((v & LAST) ? 0u : PHID); }

/* Our ticket's turn came: announce (new readers wait), return the readers to drain. */
static uint32_t announce(pft_lock *l)
{
    uint32_t v = ll_load_relaxed(&l->rin); /* relaxed: the CAS validates it */
    /* acq_rel.  acquire: the readers that entered before us (their faa) before our drain
     * check; release: nothing we wrote (ordering with readers is rout's job) - the RMW's
     * place in rin's order is what splits readers into before and after us */
    while (!ll_cas(&l->rin, &v, announced(v), LL_ACQ_REL))
        ;
    return COUNT(v);
}

/* Holding the turn: announce only if no reader is in (true), else nothing (false). */
static bool announce_if_empty(pft_lock *l)
{
    uint32_t v = ll_load_relaxed(&l->rin); /* relaxed: the CAS validates it */
    /* acquire: the departed readers' sections; pairs with read_release's release faa.
     * rout only grows and never passes rin: equal counts on the rin the CAS still finds
     * mean every reader that arrived has left. */
    if (COUNT(ll_load_acquire(&l->rout)) != COUNT(v))
        return false;
    return ll_cas(&l->rin, &v, announced(v), LL_ACQ_REL); /* acq_rel: as announce */
}

/* The drain is over: take back our sleeper's bit on rout, if we set it (only we touch it). */
static void drain_done(pft_lock *l)
{
    if (ll_load_relaxed(&l->rout) & WSLEEP) /* relaxed: only this writer sets or clears it */
        ll_faa(&l->rout, (uint32_t)-1, LL_RELAXED); /* relaxed: readers add RINC only; bit 0 is ours */
}

static void write_release(void *s, ll_wait_policy *wp)
{
    (void)wp;
    pft_lock *l = (pft_lock *)s;
    uint32_t v = ll_load_relaxed(&l->rin); /* relaxed: the CAS validates it */
    /* release: our critical section to the readers' acquire (phase_over, their faa) */
    while (!ll_cas(&l->rin, &v, COUNT(v) | ((v & PHID) ? LAST : 0u), LL_RELEASE))
        ;
    if (v & RSLEEP)
        ll_futex_wake(&l->rin, INT_MAX);
    ll_rw_ticket_release(&l->w);
}

static void write_acquire(void *s, ll_wait_policy *wp)
{
    pft_lock *l = (pft_lock *)s;
    ll_rw_ticket_acquire(&l->w, wp);
    drain_ctx c = {l, announce(l)};
    if (!drained(ll_load_acquire(&l->rout), &c)) { /* acquire: as drained */
        ll_rw_wait(wp, &l->rout, WSLEEP, drained, &c, LL_NO_DEADLINE);
        drain_done(l);
    }
}

static bool write_try(void *s, ll_wait_policy *wp)
{
    (void)wp;
    pft_lock *l = (pft_lock *)s;
    /* relaxed: a hint (readers in); announce_if_empty decides */
    if (COUNT(ll_load_relaxed(&l->rin)) != COUNT(ll_load_relaxed(&l->rout)) || !ll_rw_ticket_try(&l->w))
        return false;
    if (announce_if_empty(l))
        return true;
    ll_rw_ticket_release(&l->w); /* a reader came in between: give the turn back, unannounced */
    return false;
}

typedef struct {
    pft_lock *l;
} empty_ctx;
/* rout (rin only grows while we hold the turn unannounced, which makes this false) */
static bool no_reader_in(uint32_t rout, void *p)
{
    /* relaxed: a hint for the waiting; announce_if_empty decides */
    return COUNT(rout) == COUNT(ll_load_relaxed(&((empty_ctx *)p)->l->rin));
}

static bool write_acquire_until(void *s, ll_wait_policy *wp, uint64_t deadline_ns)
{
    pft_lock *l = (pft_lock *)s;
    if (!ll_rw_ticket_acquire_until(&l->w, wp, deadline_ns))
        return false;
    empty_ctx c = {l};
    bool ok;
    /* readers in make no_reader_in true only by leaving, which changes rout (our futex word) */
    while (!(ok = announce_if_empty(l)) &&
           (no_reader_in(ll_load_relaxed(&l->rout), &c) || ll_rw_wait(wp, &l->rout, WSLEEP, no_reader_in, &c, deadline_ns)) &&
           ll_now_ns() < deadline_ns)
        ;
    drain_done(l);
    if (!ok)
        ll_rw_ticket_release(&l->w); /* never announced: only the turn to give back */
    return ok;
}

static const ll_lock_ops desc = {
    .name = "pft", .source = "Brandenburg & Anderson 2010 (PF-T, phase-fair ticket)",
    .summary = "phase-fair ticket rwlock: readers and writers alternate in phases; two reader counters, a "
        "writer ticket",
    .fairness = "phase-fair (a reader waits <= 1 writer phase; writers FIFO, each waits <= 1 reader phase per "
        "writer ahead)",
    .policies = LL_ALL_POLICIES,
    .state_bytes = LL_CACHELINE, .lock_bytes = sizeof(pft_lock),
};

const ll_rwlock_ops ll_rwlock_pft = LL_RWLOCK_OPS(&desc);
