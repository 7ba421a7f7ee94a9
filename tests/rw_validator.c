/*
 * The reader-writer validator: every registered rwlock x waiting policy runs these
 * clients through the generic handle (include/locklab/rwlock.h), with plain
 * (non-atomic) data:
 *
 *   mixed      each thread's steps are reads (share 90%) or writes; a writer
 *              checks that nobody else is inside, bumps a plain counter and
 *              writes two plain words (a, then after a delay b = a); a reader
 *              checks that no writer is inside and that a == b all along.
 *              -> writers exclude everyone, counter == write acquisitions.
 *   trytimed   the same, every other acquisition (by role) a try or a timed one
 *              with a 0-4 us timeout (many give up; the driver retries).
 *   overlap    readers only: each holds the lock until it has seen another
 *              reader inside at the same time (or 20 ms): readers must share.
 *   recursive  one thread takes the read lock, lets a writer start waiting, then
 *              takes the read lock again (rdlock, try, timed), releases all; the
 *              writer must get in.  A lock that stops new readers behind a writer
 *              deadlocks here unless re-entries are recognised.
 *   wakeup     a writer holds the lock while the other threads block for it
 *              (half readers, half writers), then releases: every one must get in
 *              (a lost wake-up hangs: the watchdog fails the case after 60 s).
 *
 *   rw_validator [--client C|all] [--threads N] [--duration S] [--lock SPEC]... [--broken]
 * Prints one line per case and "N passed, N failed"; exit 0 iff all passed (with
 * --broken: iff the deliberately broken rwlock, whose readers test the writer flag
 * and then enter with a gap, was caught by the mixed client).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "locklab/rwlock.h"
#include "test_util.h"
#include "validator_driver.h"

enum client { MIXED, TRYTIMED, OVERLAP, RECURSIVE, WAKEUP, NCLIENTS };
static const char *const client_names[] = {"mixed", "trytimed", "overlap", "recursive", "wakeup"};

/* ---- the deliberately broken rwlock: readers test, then enter --------------------------- */
typedef struct broken {
    ll_atomic_u32 writer, readers;
} broken;
static void broken_rd(broken *b)
{
    while (ll_load_acquire(&b->writer))
        ll_pause();
    for (int i = 0; i < 20; i++) /* the gap that makes it wrong */
        ll_pause();
    ll_faa(&b->readers, 1, LL_ACQ_REL);
}
static void broken_rdunlock(broken *b) { ll_faa(&b->readers, (uint32_t)-1, LL_RELEASE); }
static void broken_wr(broken *b)
{
    uint32_t z = 0;
    while (!ll_cas(&b->writer, &z, 1, LL_ACQUIRE))
        z = 0, ll_pause();
    while (ll_load_acquire(&b->readers))
        ll_pause();
}
static void broken_wrunlock(broken *b) { ll_store_release(&b->writer, 0); }

/* A lock under test: a registry rwlock (generic handle) or the broken one. */
typedef struct rlut {
    LL_ALIGNED(LL_SECTOR) ll_rwlock *h;
    broken b;
} rlut;
static void rd(rlut *l) { l->h ? ll_rwlock_rdlock(l->h) : broken_rd(&l->b); }
static void rdunlock(rlut *l) { l->h ? ll_rwlock_rdunlock(l->h) : broken_rdunlock(&l->b); }
static void wr(rlut *l) { l->h ? ll_rwlock_wrlock(l->h) : broken_wr(&l->b); }
static void wrunlock(rlut *l) { l->h ? ll_rwlock_wrunlock(l->h) : broken_wrunlock(&l->b); }

typedef struct shared {
    rlut *l;
    enum client client;
    LL_ALIGNED(LL_SECTOR) ll_atomic_u32 stop;
    LL_ALIGNED(LL_SECTOR) ll_atomic_u32 readers_in; /* readers inside (atomic: they share) */
    ll_atomic_u32 max_readers;
    LL_ALIGNED(LL_SECTOR) int writer_in;            /* plain, protected by the write lock */
    uint64_t counter;                               /* plain, protected by the write lock */
    uint64_t a, b;                                  /* plain: a == b whenever no writer is inside */
    LL_ALIGNED(LL_SECTOR) ll_atomic_u32 violations; /* atomic: readers report too */
    ll_atomic_u64 timeouts;
} shared;

typedef struct worker {
    LL_ALIGNED(LL_SECTOR) shared *sh;
    uint64_t reads, writes;
    int index;
} worker;

static void violation(shared *sh) { ll_faa(&sh->violations, 1, LL_RELAXED); /* relaxed: a count read after join */ }

static void write_section(shared *sh)
{
    if (sh->writer_in++ != 0 || ll_load_relaxed(&sh->readers_in) != 0) /* relaxed: a check; the lock orders */
        violation(sh);
    uint64_t x = sh->a;
    sh->a = x + 1;
    for (int i = 0; i < 8; i++)
        ll_pause();
    ll_compiler_barrier();
    sh->b = x + 1;
    sh->counter++;
    sh->writer_in--;
}

static void read_section(shared *sh)
{
    uint32_t n = ll_faa(&sh->readers_in, 1, LL_RELAXED) + 1; /* relaxed: a count; the lock orders the data */
    uint32_t m = ll_load_relaxed(&sh->max_readers);
    while (n > m && !ll_cas(&sh->max_readers, &m, n, LL_RELAXED))
        ;
    uint64_t a = *(volatile uint64_t *)&sh->a;
    for (int i = 0; i < 8; i++)
        ll_pause();
    uint64_t b = *(volatile uint64_t *)&sh->b, a2 = *(volatile uint64_t *)&sh->a;
    if (a != b || a != a2 || *(volatile int *)&sh->writer_in != 0)
        violation(sh);
    ll_faa(&sh->readers_in, (uint32_t)-1, LL_RELAXED);
}

/* A role in mixed / trytimed: how it takes the lock (blocking, try, timed), its section, its release. */
typedef struct role {
    void (*lock)(rlut *l);
    bool (*try_lock)(ll_rwlock *h);
    bool (*lock_for)(ll_rwlock *h, unsigned long long ns);
    void (*section)(shared *sh);
    void (*unlock)(rlut *l);
} role;
static const role writer_role = {wr, ll_rwlock_trywrlock, ll_rwlock_wrlock_for, write_section, wrunlock};
static const role reader_role = {rd, ll_rwlock_tryrdlock, ll_rwlock_rdlock_for, read_section, rdunlock};

/* One step of mixed / trytimed: false if nothing was acquired (a failed try or timed). */
static bool mixed_step(shared *sh, worker *w, uint64_t n)
{
    rlut *l = sh->l;
    bool writer = ll_rand_below(10) == 0, special = sh->client == TRYTIMED && ((n + (uint64_t)w->index) & 1);
    bool timed = special && ll_rand_below(2);
    const role *r = writer ? &writer_role : &reader_role;
    if (special && l->h) {
        if (timed ? !r->lock_for(l->h, ll_rand_below(4000)) : !r->try_lock(l->h)) {
            ll_faa(&sh->timeouts, 1, LL_RELAXED); /* relaxed: a statistic */
            return false;
        }
    } else {
        r->lock(l);
    }
    r->section(sh);
    r->unlock(l);
    if (writer)
        w->writes++;
    else
        w->reads++;
    return true;
}

/* overlap: hold the read lock until another reader is seen inside, or 20 ms. */
static void overlap_step(shared *sh, worker *w)
{
    rd(sh->l);
    uint32_t n = ll_faa(&sh->readers_in, 1, LL_RELAXED) + 1; /* relaxed: a count */
    uint64_t until = ll_now_ns() + 20000000u;
    while (n < 2 && ll_now_ns() < until && !ll_load_relaxed(&sh->stop))
        n = ll_load_relaxed(&sh->readers_in); /* relaxed: a count */
    uint32_t m = ll_load_relaxed(&sh->max_readers);
    while (n > m && !ll_cas(&sh->max_readers, &m, n, LL_RELAXED))
        ;
    ll_faa(&sh->readers_in, (uint32_t)-1, LL_RELAXED);
    rdunlock(sh->l);
    w->reads++;
}

static void *worker_main(void *arg)
{
    worker *w = (worker *)arg;
    shared *sh = w->sh;
    for (uint64_t n = 0; ll_load_relaxed(&sh->stop) == 0; n++) /* relaxed: a stop hint; join orders results */
        if (sh->client == OVERLAP)
            overlap_step(sh, w);
        else if (!mixed_step(sh, w, n))
            ll_pause();
    return NULL;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

/* mixed, trytimed, overlap: T workers for `seconds`.  Returns 1 if the checks held. */
static int run_workers(rlut *l, enum client c, int threads, double seconds, char *detail, size_t dlen)
{
    shared *sh = vd_zalloc(sizeof *sh);
    sh->l = l;
    sh->client = c;
    worker *ws = VD_RUN_WORKERS(sh, threads, seconds);
    uint64_t reads = 0, writes = 0;
    for (int t = 0; t < threads; t++) {
        reads += ws[t].reads;
        writes += ws[t].writes;
    }
    uint32_t v = ll_load_relaxed(&sh->violations), maxr = ll_load_relaxed(&sh->max_readers); /* relaxed: joined */
    int ok = v == 0 && sh->counter == writes && reads + writes > 0;
    if (c == OVERLAP)
        ok = ok && (threads < 2 || maxr >= 2);
    snprintf(detail, dlen, "reads=%llu writes=%llu max_readers=%u violations=%u timeouts=%llu",
             (unsigned long long)reads, (unsigned long long)writes, maxr, v,
             (unsigned long long)ll_load_relaxed(&sh->timeouts));
    free(ws);
    free(sh);
    return ok;
}

/* ---- recursive ------------------------------------------------------------------------ */
typedef struct rec_ctx {
    rlut *l;
    ll_atomic_u32 go, done;
} rec_ctx;
static void *rec_writer(void *p)
{
    rec_ctx *c = (rec_ctx *)p;
    while (!ll_load_acquire(&c->go)) /* acquire: pairs with the reader's release store */
        ll_pause();
    wr(c->l);
    wrunlock(c->l);
    ll_store_release(&c->done, 1); /* release: nothing but the fact */
    return NULL;
}
static int run_recursive(rlut *l, int rounds, char *detail, size_t dlen)
{
    for (int r = 0; r < rounds; r++) {
        rec_ctx c;
        memset(&c, 0, sizeof c);
        c.l = l;
        pthread_t t;
        test_start(&t, rec_writer, &c);
        rd(l);
        ll_store_release(&c.go, 1); /* release: nothing but the signal */
        sleep_s(0.002);             /* the writer is now waiting (or about to) */
        rd(l);                      /* must not deadlock */
        bool tried = ll_rwlock_tryrdlock(l->h), timed = ll_rwlock_rdlock_for(l->h, 1000000);
        if (!tried || !timed) {
            snprintf(detail, dlen, "round %d: a re-entry by try (%d) or timed (%d) failed", r, tried, timed);
            return 0;
        }
        if (ll_load_acquire(&c.done)) { /* acquire: as rec_writer's release */
            snprintf(detail, dlen, "round %d: the writer got in while a reader held the lock", r);
            return 0;
        }
        rdunlock(l);
        rdunlock(l);
        rdunlock(l);
        rdunlock(l);
        pthread_join(t, NULL);
    }
    snprintf(detail, dlen, "rounds=%d", rounds);
    return 1;
}

/* ---- wakeup ------------------------------------------------------------------------------ */
typedef struct wake_ctx {
    rlut *l;
    int index;
    ll_atomic_u32 *in;
} wake_ctx;
static void *wake_waiter(void *p)
{
    wake_ctx *c = (wake_ctx *)p;
    if (c->index & 1) {
        wr(c->l);
        wrunlock(c->l);
    } else {
        rd(c->l);
        rdunlock(c->l);
    }
    ll_faa(c->in, 1, LL_RELAXED); /* relaxed: a count read after join */
    return NULL;
}
static int run_wakeup(rlut *l, int threads, int rounds, char *detail, size_t dlen)
{
    int waiters = threads > 1 ? threads - 1 : 1;
    for (int r = 0; r < rounds; r++) {
        ll_atomic_u32 in = LL_ATOMIC_INIT(0);
        wr(l);
        pthread_t t[64];
        wake_ctx c[64];
        for (int i = 0; i < waiters && i < 64; i++) {
            c[i].l = l;
            c[i].index = i + r;
            c[i].in = &in;
            test_start(&t[i], wake_waiter, &c[i]);
        }
        sleep_s(0.003); /* let them block (and park, under the parking policies) */
        wrunlock(l);
        for (int i = 0; i < waiters && i < 64; i++)
            pthread_join(t[i], NULL);
        if (ll_load_relaxed(&in) != (uint32_t)(waiters < 64 ? waiters : 64)) { /* relaxed: joined */
            snprintf(detail, dlen, "round %d: %u of %d waiters got in", r, ll_load_relaxed(&in), waiters);
            return 0;
        }
    }
    snprintf(detail, dlen, "rounds=%d waiters=%d", rounds, waiters);
    return 1;
}

static int validate(const char *spec, int client, int threads, double seconds)
{
    enum client c = (enum client)client;
    rlut *l = vd_zalloc(sizeof(rlut));
    char err[512], detail[256] = "";
    l->h = ll_rwlock_create(spec, err, sizeof err);
    if (!l->h) {
        fprintf(stderr, "rw_validator: %s\n", err);
        exit(2);
    }
    int ok = c == RECURSIVE ? run_recursive(l, 5, detail, sizeof detail)
             : c == WAKEUP  ? run_wakeup(l, threads, 3, detail, sizeof detail)
                            : run_workers(l, c, threads, seconds, detail, sizeof detail);
    printf("%-6s %-22s %-9s threads=%d %s\n", ok ? "ok" : "FAIL", spec, client_names[c], threads, detail);
    ll_rwlock_destroy(l->h);
    free(l);
    return ok;
}

/* One round of --broken: the mixed client on the rwlock whose readers test, then enter. */
static int broken_round(int threads)
{
    rlut *l = vd_zalloc(sizeof(rlut));
    char detail[256];
    int held = run_workers(l, MIXED, threads ? threads : 4, 0.5, detail, sizeof detail);
    free(l);
    return held;
}

VALIDATOR_MAIN(.prog = "rw_validator", .broken_line = "broken rwlock %s by the rw validator", .once = 1u << RECURSIVE,
               .watchdog_s = 60, .list = ll_rwlock_list)
