/* acr (src/locks/acr.c) under stress, through its expert API: what the
 * validator's short uniform clients rarely reach.
 *
 *  1. stress: 2..64 threads, each a fixed number of operations mixing
 *     acquire, trylock-then-acquire and single trylocks, with critical
 *     sections that are empty, spin a few us, or sleep 20-300 us (so waiters
 *     run out of spin, queue up, sleep as the standby, turn impatient and are
 *     handed the lock: the GRANTED path), and sleeps outside (so the lock goes
 *     idle, the case the lost-wake-up window is about).  Tunables down to
 *     spin_ns=0, patience_ns=0/1000, spinners=1.  Checked: a plain counter
 *     equals the acquisitions, a plain owner field is never overwritten inside
 *     a critical section (two owners), every thread finishes (a thread asleep
 *     forever = a lost wake-up the timed sleeps do not heal: the case fails
 *     after a generous bound and prints the lock words), no single acquisition
 *     waits longer than a (generous) bound, and once all threads are done the
 *     lock records no waiter again (no stale SLEEPING/IMPATIENT/GRANTED flag, no
 *     spinner count, no queue).
 *  2. destroy after unlock: a lock inside an object that the last of its
 *     users frees right after its unlock (here: overwrites with a pattern and
 *     recycles); the pattern must survive, i.e. no release, grant or queue
 *     hand-over touches the lock after the store that frees it.
 *
 *   test_acr [--quick]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "locklab/acr.h"
#include "test_util.h"

static void sleep_ns(uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    nanosleep(&ts, NULL);
}

static void spin_ns(uint64_t ns)
{
    uint64_t until = ll_now_ns() + ns;
    while (ll_now_ns() < until)
        ll_pause();
}

/* ---- 1. stress ------------------------------------------------------------------------ */

enum { MAX_THREADS = 64 };
/* A thread not done this long after the others (or the case's start) is stuck. */
#define STUCK_NS (30ull * 1000000000u)
/* One acquisition waiting this long is a wake-up healed far too late (or not at all). */
#define MAX_WAIT_NS (5ull * 1000000000u)

typedef struct stress_case {
    const char *name;
    uint64_t spin_ns, patience_ns;
    uint32_t spinners;
} stress_case;

typedef struct stress_shared {
    LL_ALIGNED(LL_SECTOR) ll_acr_lock lock;
    ll_acr_params params;
    LL_ALIGNED(LL_SECTOR) uint64_t counter; /* plain: protected by lock */
    volatile uint64_t owner;                /* plain: protected by lock; 0 = nobody */
    LL_ALIGNED(LL_SECTOR) ll_atomic_u32 go, done;
    ll_atomic_u32 violations;
    int ops;
} stress_shared;

typedef struct stress_thread {
    stress_shared *sh;
    pthread_t tid;
    uint64_t id, seed;
    uint64_t acquisitions, max_wait_ns;
    LL_ALIGNED(LL_CACHELINE) ll_atomic_u32 phase; /* 0 outside, 1 acquiring, 2 inside, 3 done */
} stress_thread;

static void critical_section(stress_thread *t, uint64_t r)
{
    stress_shared *sh = t->sh;
    if (sh->owner != 0)
        ll_faa(&sh->violations, 1, LL_RELAXED);
    sh->owner = t->id;
    uint64_t x = sh->counter;
    unsigned kind = (unsigned)(r % 100);
    if (kind < 3)
        sleep_ns(20000 + (r >> 8) % 280000); /* long: waiters queue, sleep, turn impatient */
    else if (kind < 15)
        spin_ns(1000 + (r >> 8) % 9000);
    else
        for (unsigned i = (unsigned)((r >> 8) % 32); i > 0; i--)
            ll_pause();
    sh->counter = x + 1;
    if (sh->owner != t->id)
        ll_faa(&sh->violations, 1, LL_RELAXED);
    sh->owner = 0;
    t->acquisitions++;
}

static void *stress_worker(void *p)
{
    stress_thread *t = (stress_thread *)p;
    stress_shared *sh = t->sh;
    while (ll_load_acquire(&sh->go) == 0) /* acquire: pairs with the release of go */
        ll_pause();
    for (int i = 0; i < sh->ops; i++) {
        uint64_t r = ll_rand_next(&t->seed);
        unsigned how = (unsigned)(r % 10);
        bool got = false;
        ll_store_relaxed(&t->phase, 1);
        uint64_t t0 = ll_now_ns();
        if (how < 6) {
            ll_acr_acquire(&sh->lock, &sh->params);
            got = true;
        } else if (how < 9) {
            /* a few trylocks, then acquire: trylock owners release through the same path */
            for (int k = 0; k < 8 && !(got = ll_acr_try_acquire(&sh->lock)); k++)
                ll_pause();
            if (!got) {
                ll_acr_acquire(&sh->lock, &sh->params);
                got = true;
            }
        } else {
            got = ll_acr_try_acquire(&sh->lock);
        }
        uint64_t waited = ll_now_ns() - t0;
        if (waited > t->max_wait_ns)
            t->max_wait_ns = waited;
        if (got) {
            ll_store_relaxed(&t->phase, 2);
            critical_section(t, ll_rand_next(&t->seed));
            ll_acr_release(&sh->lock);
        }
        ll_store_relaxed(&t->phase, 0);
        unsigned after = (unsigned)((r >> 16) % 100);
        if (after < 4)
            sleep_ns(1000 + (r >> 24) % 200000); /* the lock may go idle: lost wake-ups matter */
        else if (after < 6)
            sched_yield();
    }
    ll_store_relaxed(&t->phase, 3);
    ll_faa(&sh->done, 1, LL_RELEASE); /* release: our acquisitions and counter updates */
    return NULL;
}

static void dump_lock(const char *what, ll_acr_lock *l)
{
    uint32_t s = ll_load_relaxed(&l->state);
    fprintf(stderr, "  %s: locked=%u state=0x%x (sleeping=%u impatient=%u granted=%u spinners=%u) tail=%p\n", what,
            ll_load_relaxed(&l->locked), s, s & 1u, (s >> 1) & 1u, (s >> 2) & 1u, (s >> 8) & 0xffu,
            ll_load_relaxed(&l->tail));
}

static void run_stress(const stress_case *c, int nthreads, int ops)
{
    stress_shared *sh = (stress_shared *)aligned_alloc(LL_SECTOR, sizeof *sh);
    memset(sh, 0, sizeof *sh);
    ll_acr_init(&sh->lock);
    ll_acr_params_init(&sh->params, c->spin_ns, c->patience_ns, c->spinners);
    sh->ops = ops;
    stress_thread *ts = (stress_thread *)aligned_alloc(LL_SECTOR, sizeof(stress_thread) * MAX_THREADS);
    memset(ts, 0, sizeof(stress_thread) * MAX_THREADS);
    for (int i = 0; i < nthreads; i++) {
        ts[i].sh = sh;
        ts[i].id = (uint64_t)i + 1;
        ts[i].seed = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1) ^ (uint64_t)nthreads;
        if (pthread_create(&ts[i].tid, NULL, stress_worker, &ts[i]) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            exit(2);
        }
    }
    uint64_t t0 = ll_now_ns();
    ll_store_release(&sh->go, 1); /* release: the shared setup */
    /* The watchdog: all done, or some thread is stuck (its acquisition never returns). */
    uint32_t seen = 0;
    uint64_t last_progress = t0;
    while (ll_load_acquire(&sh->done) < (uint32_t)nthreads) { /* acquire: pairs with the workers' done */
        sleep_ns(2000000);
        uint32_t d = ll_load_acquire(&sh->done);
        uint64_t now = ll_now_ns();
        if (d != seen) {
            seen = d;
            last_progress = now;
        }
        if (now - last_progress > STUCK_NS) {
            fprintf(stderr, "FAIL stress %s threads=%d: %u of %d threads still not done after %.1f s without progress\n",
                    c->name, nthreads, nthreads - d, nthreads, (double)(now - last_progress) / 1e9);
            dump_lock("lock", &sh->lock);
            for (int i = 0; i < nthreads; i++) {
                uint32_t ph = ll_load_relaxed(&ts[i].phase);
                if (ph != 3)
                    fprintf(stderr, "  thread %d: %s\n", i + 1,
                            ph == 1 ? "acquiring" : ph == 2 ? "inside" : "outside");
            }
            exit(1); /* stuck threads cannot be joined */
        }
    }
    uint64_t acq = 0, max_wait = 0;
    for (int i = 0; i < nthreads; i++) {
        pthread_join(ts[i].tid, NULL);
        acq += ts[i].acquisitions;
        if (ts[i].max_wait_ns > max_wait)
            max_wait = ts[i].max_wait_ns;
    }
    double secs = (double)(ll_now_ns() - t0) / 1e9;
    uint32_t v = ll_load_relaxed(&sh->violations);
    uint32_t st = ll_load_relaxed(&sh->lock.state);
    bool quiet = ll_load_relaxed(&sh->lock.locked) == 0 && (st & LL_ACR_WAITER_BITS) == 0 &&
                 ll_load_relaxed(&sh->lock.tail) == NULL;
    bool ok = v == 0 && sh->counter == acq && quiet && max_wait <= MAX_WAIT_NS;
    printf("%-4s stress %-28s threads=%-2d acquisitions=%-7llu max_wait=%.1f ms %.2f s\n", ok ? "ok" : "FAIL", c->name,
           nthreads, (unsigned long long)acq, (double)max_wait / 1e6, secs);
    CHECK(v == 0, "%s threads=%d: %u mutual-exclusion violations", c->name, nthreads, v);
    CHECK(sh->counter == acq, "%s threads=%d: counter %llu != acquisitions %llu", c->name, nthreads,
          (unsigned long long)sh->counter, (unsigned long long)acq);
    CHECK(quiet, "%s threads=%d: lock holds no waiter once every thread is done", c->name, nthreads);
    if (!quiet)
        dump_lock("lock", &sh->lock);
    CHECK(max_wait <= MAX_WAIT_NS, "%s threads=%d: an acquisition waited %.3f s", c->name, nthreads,
          (double)max_wait / 1e9);
    free(ts);
    free(sh);
}

/* ---- 2. destroy after unlock -------------------------------------------------------------- */

enum { OBJS = 8, USERS = 4, ROUNDS = 5000 };
#define POISON 0xa5u

typedef struct object {
    LL_ALIGNED(LL_CACHELINE) ll_acr_lock lock;
    uint32_t refs; /* plain: protected by lock */
} object;

typedef struct free_shared {
    object objs[OBJS];
    ll_acr_params params;
    LL_ALIGNED(LL_SECTOR) ll_atomic_u32 round; /* objs[round % OBJS] is live */
    ll_atomic_u32 corrupt;
    LL_ALIGNED(LL_SECTOR) ll_atomic_u32 arrived[ROUNDS];
} free_shared;

static bool poisoned(const object *o)
{
    const unsigned char *b = (const unsigned char *)&o->lock;
    for (size_t i = 0; i < sizeof o->lock; i++)
        if (b[i] != POISON)
            return false;
    return true;
}

static void *free_worker(void *p)
{
    free_shared *sh = (free_shared *)p;
    for (uint32_t r = 0; r < ROUNDS; r++) {
        while (ll_load_acquire(&sh->round) < r) /* acquire: the object's (re)initialisation */
            sched_yield();
        object *o = &sh->objs[r % OBJS];
        ll_faa(&sh->arrived[r], 1, LL_RELAXED);
        ll_acr_acquire(&o->lock, &sh->params);
        if ((r & 15) == 0)
            spin_ns(2000); /* let the others run out of spin and queue */
        bool last = --o->refs == 0;
        ll_acr_release(&o->lock);
        if (last) {
            /* "free" it: nobody may touch the lock after the release that let us in.  The object
             * is reused OBJS rounds later; its pattern is checked just before. */
            memset(&o->lock, POISON, sizeof o->lock);
            object *next = &sh->objs[(r + 1) % OBJS];
            if (r + 1 >= OBJS && !poisoned(next))
                ll_faa(&sh->corrupt, 1, LL_RELAXED);
            ll_acr_init(&next->lock);
            next->refs = USERS;
            ll_store_release(&sh->round, r + 1); /* release: the next object is initialised */
        }
    }
    return NULL;
}

static void run_free_after_unlock(void)
{
    free_shared *sh = (free_shared *)aligned_alloc(LL_SECTOR, sizeof *sh);
    memset(sh, 0, sizeof *sh);
    ll_acr_params_init(&sh->params, 0, 1000, 1);
    ll_acr_init(&sh->objs[0].lock);
    sh->objs[0].refs = USERS;
    pthread_t tids[USERS];
    for (int i = 0; i < USERS; i++)
        pthread_create(&tids[i], NULL, free_worker, sh);
    for (int i = 0; i < USERS; i++)
        pthread_join(tids[i], NULL);
    uint32_t bad = ll_load_relaxed(&sh->corrupt);
    printf("%-4s free after unlock: %d rounds, %u objects touched after their last unlock\n", bad ? "FAIL" : "ok",
           ROUNDS, bad);
    CHECK(bad == 0, "%u objects were written after the unlock that freed them", bad);
    free(sh);
}

int main(int argc, char **argv)
{
    bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    static const stress_case cases[] = {
        {"acr", LL_ACR_DEFAULT_SPIN_NS, LL_ACR_DEFAULT_PATIENCE_NS, 0},
        {"spin_ns=0,patience_ns=1000", 0, 1000, 0},
        {"spin_ns=0,patience_ns=0", 0, 0, 0},
        {"spinners=1", LL_ACR_DEFAULT_SPIN_NS, LL_ACR_DEFAULT_PATIENCE_NS, 1},
        {"spin_ns=0,patience_ns=1000,spinners=1", 0, 1000, 1},
        {"spin_ns=100000,patience_ns=20000,spinners=4", 100000, 20000, 4},
    };
    static const int threads[] = {2, 8, 32, 64};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++)
            run_stress(&cases[c], threads[t], quick ? 300 : 2000);
    run_free_after_unlock();
    return test_done("test_acr");
}
