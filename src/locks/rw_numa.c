/*
 * numarw — a NUMA-aware reader-writer lock with per-socket reader indicators,
 * after Calciu, Dice, Lev, Luchangco, Marathe & Shavit, "NUMA-aware
 * reader-writer locks", PPoPP 2013 (C-RW-WP: the writer-preference variant).
 *
 * Readers on different sockets never write the same cache line: each raises
 * and lowers the indicator of its own socket (ll_current_socket; LOCKLAB_TOPOLOGY
 * for virtual sockets), a counter on a line of its own.  A writer takes the
 * writers' ticket (rw_wait.h; the paper uses a cohort lock there, which matters
 * only when writers are many), raises the writer flag, and waits until every
 * socket's indicator is zero.
 *
 * Words:
 *   wflag     WRITER (bit 1): a writer holds the lock or drains the readers;
 *             RSLEEP (bit 0): readers sleep on wflag (rw_wait.h), cleared by the
 *             writer's release
 *   ind[s]    readers in on socket s, << 1; bit 0: the writer sleeps on ind[s]
 *             (set and cleared by the one writer that drains)
 *   win, wout the writers' ticket
 *
 *   reader: wait while WRITER; faa(ind[s], +2); if WRITER is still clear, it is in
 *           (the token is s: the release lowers the same indicator even if the
 *           thread migrated).  Else it lowers ind[s] again and waits (Dekker:
 *           the reader's faa then its load of wflag, the writer's raise of
 *           WRITER then its loads of the indicators, all seq_cst: one of the two
 *           sees the other).
 *   writer: ticket; raise WRITER; wait until each ind[s] == 0.  release: clear
 *           wflag (waiting readers go), advance the ticket.
 *
 * Fairness: writer preference.  A writer waits for the writers ahead of it
 * (FIFO) and for the readers that were in when it raised WRITER (no new reader
 * enters while it waits); readers may wait for a whole stream of writers, as
 * in the paper's C-RW-WP (readers can starve while writers keep coming).
 * A thread's recursive read behind a waiting writer would deadlock here; the
 * callers count re-entries per thread (rwlock.h) and never reach the lock.
 *
 * try: a reader as above without waiting; a writer if the ticket is idle and,
 * once WRITER is raised, every indicator is zero (else it releases again).
 * Timed: a reader gives up while WRITER is set (its indicator lowered, no trace);
 * a writer waits for its ticket as the ticket's timed writers do and gives up
 * during the drain by releasing.
 *
 * Footprint: 64 bytes + 64 bytes per socket, for up to LL_NUMARW_SOCKETS (8)
 * sockets (more sockets share indicators: socket mod 8); nothing per waiter.
 * Policies: all (rw_wait.h).
 */
#include "locklab/rwlock.h"
#include "rw_wait.h"

#define LL_NUMARW_SOCKETS 8
#define WRITER 2u
#define RSLEEP 1u
#define RSTEP 2u
#define WSLEEP 1u

typedef struct numarw_lock {
    LL_ALIGNED(LL_CACHELINE) ll_atomic_u32 wflag;
    ll_rw_ticket w;
    uint32_t nind; /* indicators in use: min(sockets, LL_NUMARW_SOCKETS), set by init */
    struct {
        LL_ALIGNED(LL_CACHELINE) ll_atomic_u32 n;
    } ind[LL_NUMARW_SOCKETS];
} numarw_lock;

static int init(void *s, const uint64_t *p, char *err, size_t errlen)
{
    (void)p, (void)err, (void)errlen;
    numarw_lock *l = (numarw_lock *)s;
    int n = ll_topology_sockets();
    l->nind = n < 1 ? 1u : n > LL_NUMARW_SOCKETS ? (uint32_t)LL_NUMARW_SOCKETS : (uint32_t)n;
    return 0;
}

typedef struct {
    numarw_lock *l;
} flag_ctx;
static bool writer_gone(uint32_t wflag, void *p)
{
    (void)p;
    return !(wflag & WRITER);
}
static bool no_writer(void *p)
{
    /* acquire: the last writer's critical section; pairs with write_release's release xchg */
    return writer_gone(ll_load_acquire(&((flag_ctx *)p)->l->wflag), p);
}

/* One attempt to enter on socket s: true if in. */
static bool enter(numarw_lock *l, uint32_t s)
{
    /* seq_cst (both): the Dekker pair with the writer's raise of WRITER and its loads of
     * the indicators (raise_and_check); the load is also the acquire of the last writer's
     * section (pairs with write_release's release CAS) */
    ll_faa(&l->ind[s].n, RSTEP, LL_SEQ_CST);
    if (!(ll_load(&l->wflag, LL_SEQ_CST) & WRITER))
        return true;
    /* release: nothing read under the lock; the RMW's order on ind is what the writer waits on */
    if (ll_faa(&l->ind[s].n, (uint32_t)-RSTEP, LL_RELEASE) & WSLEEP)
        ll_futex_wake(&l->ind[s].n, 1);
    return false;
}

LL_INLINE uint32_t my_socket(numarw_lock *l) { return (uint32_t)ll_current_socket() % l->nind; }

static uintptr_t read_acquire(void *s, ll_wait_policy *wp)
{
    numarw_lock *l = (numarw_lock *)s;
    uint32_t me = my_socket(l);
    flag_ctx c = {l};
    for (;;) {
        if (!no_writer(&c))
            ll_rw_wait(wp, &l->wflag, RSLEEP, writer_gone, &c, LL_NO_DEADLINE);
        if (enter(l, me))
            return me;
    }
}

static bool read_try(void *s, ll_wait_policy *wp, uintptr_t *token)
{
    (void)wp;
    numarw_lock *l = (numarw_lock *)s;
    flag_ctx c = {l};
    *token = my_socket(l);
    return no_writer(&c) && enter(l, (uint32_t)*token);
}

static bool read_acquire_until(void *s, ll_wait_policy *wp, uint64_t deadline_ns, uintptr_t *token)
{
    numarw_lock *l = (numarw_lock *)s;
    flag_ctx c = {l};
    *token = my_socket(l);
    for (;;) {
        if (!no_writer(&c) && !ll_rw_wait(wp, &l->wflag, RSLEEP, writer_gone, &c, deadline_ns))
            return false;
        if (enter(l, (uint32_t)*token))
            return true;
        if (ll_now_ns() >= deadline_ns)
            return false;
    }
}

static void read_release(void *s, ll_wait_policy *wp, uintptr_t token)
{
    (void)wp;
    numarw_lock *l = (numarw_lock *)s;
    /* release: our reads under the lock before the writer's acquire load of the indicator */
    if (ll_faa(&l->ind[token].n, (uint32_t)-RSTEP, LL_RELEASE) & WSLEEP)
        ll_futex_wake(&l->ind[token].n, 1);
}

/* an indicator (ll_rw_wait loads it with acquire: the departed readers' sections, pairing
 * with their release faa) */
static bool ind_zero(uint32_t ind, void *p)
{
    (void)p;
    return (ind >> 1) == 0;
}

static void raise_flag(numarw_lock *l)
{
    uint32_t v = ll_load_relaxed(&l->wflag); /* relaxed: the CAS validates it */
    /* seq_cst: the Dekker pair with enter() (see there) */
    while (!ll_cas(&l->wflag, &v, v | WRITER, LL_SEQ_CST))
        ;
}

/* Wait (until deadline_ns) for every indicator to drop to zero. */
static bool drain(numarw_lock *l, ll_wait_policy *wp, uint64_t deadline_ns)
{
    for (uint32_t i = 0; i < l->nind; i++) {
        ll_atomic_u32 *ind = &l->ind[i].n;
        /* seq_cst: the writer's side of the Dekker pair (enter) */
        if ((ll_load(ind, LL_SEQ_CST) >> 1) == 0)
            continue;
        bool ok = ll_rw_wait(wp, ind, WSLEEP, ind_zero, NULL, deadline_ns);
        if (ll_load_relaxed(ind) & WSLEEP) /* relaxed: bit 0 is only ours; readers add +-2 */
            ll_faa(ind, (uint32_t)-1, LL_RELAXED);
        if (!ok)
            return false;
    }
    return true;
}

static void write_release(void *s, ll_wait_policy *wp)
{
    (void)wp;
    numarw_lock *l = (numarw_lock *)s;
    /* release: our critical section to the readers' acquire (no_writer, enter) */
    uint32_t v = ll_xchg(&l->wflag, 0, LL_RELEASE);
    if (v & RSLEEP)
        ll_futex_wake(&l->wflag, INT_MAX);
    ll_rw_ticket_release(&l->w);
}

static void write_acquire(void *s, ll_wait_policy *wp)
{
    numarw_lock *l = (numarw_lock *)s;
    ll_rw_ticket_acquire(&l->w, wp);
    raise_flag(l);
    drain(l, wp, LL_NO_DEADLINE);
}

static bool write_try(void *s, ll_wait_policy *wp)
{
    numarw_lock *l = (numarw_lock *)s;
    if (!ll_rw_ticket_try(&l->w))
        return false;
    raise_flag(l);
    for (uint32_t i = 0; i < l->nind; i++)
        if ((ll_load(&l->ind[i].n, LL_SEQ_CST) >> 1) != 0) { /* seq_cst: as drain */
            write_release(s, wp);
            return false;
        }
    return true; /* the seq_cst loads above were the acquire of the departed readers' sections */
}

static bool write_acquire_until(void *s, ll_wait_policy *wp, uint64_t deadline_ns)
{
    numarw_lock *l = (numarw_lock *)s;
    if (!ll_rw_ticket_acquire_until(&l->w, wp, deadline_ns))
        return false;
    raise_flag(l);
    if (drain(l, wp, deadline_ns))
        return true;
    write_release(s, wp);
    return false;
}

static const ll_lock_ops desc = {
    .name = "numarw", .source = "Calciu et al. 2013 (NUMA-aware reader-writer locks, C-RW-WP)",
    .summary = "per-socket reader indicators (a line each), writer flag and FIFO writer ticket: readers of "
        "different sockets share no line",
    .fairness = "writer preference (writers FIFO; a writer waits only for the readers in when it arrived; "
        "readers may starve)",
    .policies = LL_ALL_POLICIES,
    .state_bytes = sizeof(numarw_lock), .lock_bytes = sizeof(numarw_lock),
    .init = init,
};

const ll_rwlock_ops ll_rwlock_numarw = LL_RWLOCK_OPS(&desc);
