/* Condition variables and semaphores (src/sync/): what the API contract in
 * include/locklab/sync.h promises, checked by counts and orders, never timings.
 *
 *  1. config strings: good ones parse, bad ones give -1 and a one-line message
 *  2. exact wake order, driven step by step: FIFO; LIFO-CR with append_one_in=1
 *     (pure FIFO) and 4294967295 (pure LIFO); the process default on an all-zero
 *     object; the same for semaphores
 *  3. producer/consumer totals: every message consumed exactly once, several
 *     locks x both disciplines, signals deferred through the mutex (wait morphing)
 *  4. broadcast storm: every waiter returns once per broadcast (no lost or extra wake-ups);
 *     a deferred broadcast moves every listed waiter onto the mutex's wake list
 *  5. timed waits: time out (both clocks, a past deadline), do not time out when
 *     signalled, EINVAL for a bad abstime or clock; the mutex is held on return
 *  6. timeout-after-signal race, looped: a waiter whose signal was deferred
 *     returns 0 exactly when the signal took it; semaphore units are conserved
 *     when timed waits race with posts
 *  7. semaphores: a post with a waiter hands the unit over (no barging); counts
 *     conserved under 8 threads; EAGAIN, ETIMEDOUT, EOVERFLOW, EINVAL
 * A watchdog fails the test if anything hangs (a lost wake-up).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "locklab/core.h"
#include "locklab/locklab.h"
#include "locklab/sync.h"
#include "test_lock.h"
#include "bench_mutex.h" /* the lock under test plus its deferred wakes */
#include "test_util.h"
#include "waitlist.h" /* white box: count a semaphore's listed waiters */

/* ---- a mutex over any locklab lock whose unlock flushes its deferred wakes (bench_mutex.h) ---- */

static void tm_init(bench_mutex *m, const char *spec)
{
    m->lock = test_lock_create(spec);
    m->deferred.head = NULL;
}

static ll_sync_config cfg_of(ll_discipline d, uint32_t append_one_in)
{
    ll_sync_config c;
    c.discipline = d;
    c.append_one_in = append_one_in;
    return c;
}

/* ---- 1. config strings -------------------------------------------------------------- */

static void test_config(void)
{
    ll_sync_config c;
    char err[256];
    CHECK(ll_sync_config_parse("fifo", &c, err, sizeof err) == 0 && c.discipline == LL_DISCIPLINE_FIFO, "fifo");
    CHECK(ll_sync_config_parse("lifo-cr", &c, err, sizeof err) == 0 && c.discipline == LL_DISCIPLINE_LIFO_CR &&
              c.append_one_in == 0,
          "lifo-cr");
    CHECK(ll_sync_config_parse("lifo-cr:append_one_in=7", &c, err, sizeof err) == 0 && c.append_one_in == 7,
          "lifo-cr:append_one_in=7");
    CHECK(ll_sync_config_parse("lifo-cr:append_one_in=4294967295", &c, err, sizeof err) == 0 &&
              c.append_one_in == 4294967295u,
          "append_one_in max");
    const char *bad[] = {"", "FIFO", "lifo", "lifo-crx", "fifo:append_one_in=3", "lifo-cr:", "lifo-cr:p=3",
                         "lifo-cr:append_one_in=0", "lifo-cr:append_one_in=-1", "lifo-cr:append_one_in=4294967296",
                         "lifo-cr:append_one_in=12x", "lifo-cr:append_one_in=", "lifo-cr:append_one_in= 5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        int rc = ll_sync_config_parse(bad[i], &c, err, sizeof err);
        CHECK(rc == -1, "'%s' accepted", bad[i]);
        CHECK(err[0] != '\0' && strchr(err, '\n') == NULL && strstr(err, "fifo | lifo-cr") != NULL,
              "'%s': message not one line naming the choices: %s", bad[i], err);
        CHECK(bad[i][0] == '\0' || strstr(err, bad[i]) != NULL, "'%s': message does not name it: %s", bad[i], err);
    }
}

/* ---- 2. exact wake order ------------------------------------------------------------- */

enum { ORDER_N = 6 };
typedef struct order_case {
    bench_mutex m;
    ll_cond *c;      /* condition-variable case */
    ll_sem *s;       /* semaphore case */
    int waiting;     /* threads that reached the wait (under m) */
    int order[ORDER_N], done;
} order_case;
typedef struct { order_case *oc; int id; } order_arg;

static void *order_waiter(void *p)
{
    order_arg *a = (order_arg *)p;
    order_case *oc = a->oc;
    bench_mutex_lock(&oc->m);
    oc->waiting++;
    if (oc->c) {
        CHECK(ll_cond_wait(oc->c, &bench_mutex_iface, &oc->m, CLOCK_MONOTONIC, NULL) == 0, "cond wait");
    } else {
        bench_mutex_unlock(&oc->m); /* the semaphore waiter is listed once the main thread sees the count and value 0 */
        CHECK(ll_sem_wait(oc->s, CLOCK_MONOTONIC, NULL) == 0, "sem wait");
        bench_mutex_lock(&oc->m);
    }
    oc->order[oc->done++] = a->id;
    bench_mutex_unlock(&oc->m);
    return NULL;
}

static int sem_listed(ll_sem *s)
{
    int n = 0;
    ll_sync_guard_lock(&s->guard);
    for (struct ll_sync_waiter *w = s->head; w; w = w->next)
        n++;
    ll_sync_guard_unlock(&s->guard);
    return n;
}

static int read_locked(bench_mutex *m, int *field)
{
    bench_mutex_lock(m);
    int v = *field;
    bench_mutex_unlock(m);
    return v;
}

/* Waiters arrive one by one (each listed before the next starts); then they are
 * released one at a time and the order they come out in is recorded. */
static void run_order(ll_cond *c, ll_sem *s, int deferred, int expect_lifo, const char *what)
{
    order_case oc;
    memset(&oc, 0, sizeof oc);
    tm_init(&oc.m, "mcs-park");
    oc.c = c;
    oc.s = s;
    pthread_t t[ORDER_N];
    order_arg a[ORDER_N];
    for (int i = 0; i < ORDER_N; i++) {
        a[i].oc = &oc;
        a[i].id = i;
        test_start(&t[i], order_waiter, &a[i]);
        if (c) {
            while (read_locked(&oc.m, &oc.waiting) != i + 1) /* listed: enqueued before it released m */
                ll_yield();
        } else {
            while (read_locked(&oc.m, &oc.waiting) != i + 1 || sem_listed(s) != i + 1)
                ll_yield();
        }
    }
    for (int k = 0; k < ORDER_N; k++) {
        if (c) {
            if (deferred) {
                bench_mutex_lock(&oc.m);
                ll_cond_signal(c, &oc.m.deferred);
                bench_mutex_unlock(&oc.m);
            } else {
                ll_cond_signal(c, NULL);
            }
        } else {
            CHECK(ll_sem_post(s) == 0, "post");
        }
        while (read_locked(&oc.m, &oc.done) != k + 1)
            ll_yield();
    }
    test_join_n(t, ORDER_N);
    int ok = 1;
    for (int k = 0; k < ORDER_N; k++)
        ok &= oc.order[k] == (expect_lifo ? ORDER_N - 1 - k : k);
    CHECK(ok, "%s: order %d %d %d %d %d %d, expected %s", what, oc.order[0], oc.order[1], oc.order[2], oc.order[3],
          oc.order[4], oc.order[5], expect_lifo ? "LIFO" : "FIFO");
    ll_lock_destroy(oc.m.lock);
}

static void test_order(void)
{
    ll_sync_config fifo = cfg_of(LL_DISCIPLINE_FIFO, 0);
    ll_sync_config lifo_as_fifo = cfg_of(LL_DISCIPLINE_LIFO_CR, 1);
    ll_sync_config pure_lifo = cfg_of(LL_DISCIPLINE_LIFO_CR, 4294967295u);
    ll_cond c;
    ll_sem s;
    for (int deferred = 0; deferred <= 1; deferred++) {
        ll_cond_init(&c, &fifo);
        run_order(&c, NULL, deferred, 0, deferred ? "cond fifo, deferred" : "cond fifo");
        ll_cond_init(&c, &lifo_as_fifo);
        run_order(&c, NULL, deferred, 0, "cond lifo-cr append_one_in=1");
        ll_cond_init(&c, &pure_lifo);
        run_order(&c, NULL, deferred, 1, "cond lifo-cr append_one_in=max");
    }
    ll_sem_init(&s, 0, &fifo);
    run_order(NULL, &s, 0, 0, "sem fifo");
    ll_sem_init(&s, 0, &lifo_as_fifo);
    run_order(NULL, &s, 0, 0, "sem lifo-cr append_one_in=1");
    ll_sem_init(&s, 0, &pure_lifo);
    run_order(NULL, &s, 0, 1, "sem lifo-cr append_one_in=max");

    /* All-zero objects follow the process defaults. */
    memset(&c, 0, sizeof c);
    memset(&s, 0, sizeof s);
    run_order(&c, NULL, 1, 0, "all-zero cond, built-in default");
    ll_sync_set_defaults(&pure_lifo, &pure_lifo);
    run_order(&c, NULL, 1, 1, "all-zero cond, default lifo-cr");
    run_order(NULL, &s, 0, 1, "all-zero sem, default lifo-cr");
    ll_cond_init(&c, NULL);
    run_order(&c, NULL, 0, 1, "cond init NULL, default lifo-cr");
    ll_sync_set_defaults(&fifo, &fifo);
    run_order(&c, NULL, 0, 0, "cond init NULL, default back to fifo");
}

/* ---- 3. producer/consumer totals ---------------------------------------------------- */

enum { PC_PRODUCERS = 3, PC_CONSUMERS = 3, PC_PER_PRODUCER = 4000, PC_CAPACITY = 4 };
typedef struct pc_case {
    bench_mutex m;
    ll_cond not_full, not_empty;
    int queue[PC_CAPACITY], head, count;
    int consumed, total;
    unsigned char *seen; /* total entries: how often each message was consumed */
    ll_atomic_u32 next_producer;
} pc_case;

static void *pc_producer(void *p)
{
    pc_case *pc = (pc_case *)p;
    int id = (int)ll_faa(&pc->next_producer, 1, LL_RELAXED); /* relaxed: only a distinct id */
    for (int i = 0; i < PC_PER_PRODUCER; i++) {
        bench_mutex_lock(&pc->m);
        while (pc->count == PC_CAPACITY)
            ll_cond_wait(&pc->not_full, &bench_mutex_iface, &pc->m, CLOCK_MONOTONIC, NULL);
        pc->queue[(pc->head + pc->count++) % PC_CAPACITY] = id * PC_PER_PRODUCER + i;
        ll_cond_signal(&pc->not_empty, (i & 1) ? &pc->m.deferred : NULL); /* both paths */
        bench_mutex_unlock(&pc->m);
    }
    return NULL;
}

static void *pc_consumer(void *p)
{
    pc_case *pc = (pc_case *)p;
    bench_mutex_lock(&pc->m);
    for (;;) {
        while (pc->count == 0 && pc->consumed < pc->total)
            ll_cond_wait(&pc->not_empty, &bench_mutex_iface, &pc->m, CLOCK_MONOTONIC, NULL);
        if (pc->count == 0)
            break; /* all consumed */
        int msg = pc->queue[pc->head];
        pc->head = (pc->head + 1) % PC_CAPACITY;
        pc->count--;
        pc->seen[msg]++;
        if (++pc->consumed == pc->total)
            ll_cond_broadcast(&pc->not_empty, &pc->m.deferred); /* release the other consumers */
        ll_cond_signal(&pc->not_full, &pc->m.deferred);
        bench_mutex_unlock(&pc->m);
        bench_mutex_lock(&pc->m);
    }
    bench_mutex_unlock(&pc->m);
    return NULL;
}

static void test_prodcons(void)
{
    const char *specs[] = {"pthread", "mcs-stp", "ticket-yield", "lifocr-stp"};
    ll_discipline disc[] = {LL_DISCIPLINE_FIFO, LL_DISCIPLINE_LIFO_CR};
    for (size_t si = 0; si < sizeof specs / sizeof specs[0]; si++) {
        for (int di = 0; di < 2; di++) {
            pc_case pc;
            memset(&pc, 0, sizeof pc);
            tm_init(&pc.m, specs[si]);
            ll_sync_config cfg = cfg_of(disc[di], 0);
            ll_cond_init(&pc.not_full, &cfg);
            ll_cond_init(&pc.not_empty, &cfg);
            pc.total = PC_PRODUCERS * PC_PER_PRODUCER;
            pc.seen = (unsigned char *)calloc((size_t)pc.total, 1);
            pthread_t t[PC_PRODUCERS + PC_CONSUMERS];
            for (int i = 0; i < PC_PRODUCERS + PC_CONSUMERS; i++)
                test_start(&t[i], i < PC_PRODUCERS ? pc_producer : pc_consumer, &pc);
            test_join_n(t, PC_PRODUCERS + PC_CONSUMERS);
            int once = 0;
            for (int i = 0; i < pc.total; i++)
                once += pc.seen[i] == 1;
            CHECK(once == pc.total && pc.consumed == pc.total && pc.count == 0,
                  "prodcons %s %s: %d of %d messages consumed exactly once (consumed %d, queued %d)", specs[si],
                  di ? "lifo-cr" : "fifo", once, pc.total, pc.consumed, pc.count);
            CHECK(ll_load_relaxed(&pc.not_full.waiters) == 0 && ll_load_relaxed(&pc.not_empty.waiters) == 0, "prodcons: waiters left listed");
            ll_cond_destroy(&pc.not_full);
            ll_cond_destroy(&pc.not_empty);
            free(pc.seen);
            ll_lock_destroy(pc.m.lock);
        }
    }
}

/* ---- 4. broadcast storm ------------------------------------------------------------- */

enum { STORM_WAITERS = 12, STORM_ROUNDS = 150 };
typedef struct storm_case {
    bench_mutex m;
    ll_cond c;
    int generation, arrived, returns;
} storm_case;

/* Overwrites the stack where ll_cond_wait's frame (and its waiter node) was: a
 * waker that touched the node after letting us return would read garbage. */
static __attribute__((noinline)) void scribble_stack(void)
{
    volatile unsigned char junk[1024];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = 0xA5;
}

static void *storm_waiter(void *p)
{
    storm_case *sc = (storm_case *)p;
    bench_mutex_lock(&sc->m);
    for (int round = 0; round < STORM_ROUNDS; round++) {
        int gen = sc->generation;
        sc->arrived++;
        while (sc->generation == gen) {
            ll_cond_wait(&sc->c, &bench_mutex_iface, &sc->m, CLOCK_MONOTONIC, NULL);
            sc->returns++;
            scribble_stack();
        }
    }
    bench_mutex_unlock(&sc->m);
    return NULL;
}

static void test_broadcast_storm(void)
{
    ll_discipline disc[] = {LL_DISCIPLINE_FIFO, LL_DISCIPLINE_LIFO_CR};
    for (int di = 0; di < 2; di++) {
        storm_case sc;
        memset(&sc, 0, sizeof sc);
        tm_init(&sc.m, "mcs-stp");
        ll_sync_config cfg = cfg_of(disc[di], 0);
        ll_cond_init(&sc.c, &cfg);
        pthread_t t[STORM_WAITERS];
        test_start_n(t, STORM_WAITERS, storm_waiter, &sc, 0);
        for (int round = 0; round < STORM_ROUNDS; round++) {
            for (;;) { /* every waiter is listed for this round (it releases m only inside the wait) */
                bench_mutex_lock(&sc.m);
                if (sc.arrived == STORM_WAITERS * (round + 1))
                    break;
                bench_mutex_unlock(&sc.m);
                ll_yield();
            }
            CHECK(ll_load_relaxed(&sc.c.waiters) == STORM_WAITERS, "storm: %u listed, expected %d", ll_load_relaxed(&sc.c.waiters), STORM_WAITERS);
            ll_cond_signal(&sc.c, NULL); /* one waiter now, the rest by the broadcast: each once */
            sc.generation++;
            ll_cond_broadcast(&sc.c, (round & 1) ? &sc.m.deferred : NULL);
            int deferred = 0;
            for (struct ll_sync_waiter *w = sc.m.deferred.head; w; w = w->wake_next)
                deferred++;
            CHECK(deferred == ((round & 1) ? STORM_WAITERS - 1 : 0) && ll_load_relaxed(&sc.c.waiters) == 0,
                  "storm: broadcast deferred %d waiters and left %u listed", deferred, ll_load_relaxed(&sc.c.waiters));
            bench_mutex_unlock(&sc.m);
        }
        test_join_n(t, STORM_WAITERS);
        /* No spurious returns: exactly one per waiter per round (a lost wake-up hangs instead). */
        CHECK(sc.returns == STORM_WAITERS * STORM_ROUNDS, "storm %s: %d wait returns, expected %d",
              di ? "lifo-cr" : "fifo", sc.returns, STORM_WAITERS * STORM_ROUNDS);
        CHECK(ll_load_relaxed(&sc.c.waiters) == 0, "storm: %u still listed", ll_load_relaxed(&sc.c.waiters));
        ll_cond_signal(&sc.c, NULL); /* no waiters: a no-op */
        ll_cond_broadcast(&sc.c, NULL);
        CHECK(ll_load_relaxed(&sc.c.waiters) == 0 && sc.c.head == NULL, "signal with no waiters changed the list");
        ll_lock_destroy(sc.m.lock);
    }
}

/* ---- 5. timed waits ------------------------------------------------------------------ */

typedef struct timed_case {
    bench_mutex m;
    ll_cond c;
    int waiting, signalled;
    int rc;
} timed_case;

static void *timed_waiter(void *p)
{
    timed_case *tc = (timed_case *)p;
    struct timespec dl = test_deadline(CLOCK_REALTIME, 30L * 1000000000L); /* far: the signal comes first */
    bench_mutex_lock(&tc->m);
    tc->waiting = 1;
    while (!tc->signalled) {
        tc->rc = ll_cond_wait(&tc->c, &bench_mutex_iface, &tc->m, CLOCK_REALTIME, &dl);
        if (tc->rc != 0)
            break;
    }
    bench_mutex_unlock(&tc->m);
    return NULL;
}

static void test_timed(void)
{
    bench_mutex m;
    tm_init(&m, "ttas");
    ll_cond c;
    ll_cond_init(&c, NULL);
    clockid_t clocks[] = {CLOCK_MONOTONIC, CLOCK_REALTIME};
    for (int i = 0; i < 2; i++) {
        struct timespec dl = test_deadline(clocks[i], 20 * 1000000L);
        bench_mutex_lock(&m);
        int rc = ll_cond_wait(&c, &bench_mutex_iface, &m, clocks[i], &dl);
        CHECK(rc == ETIMEDOUT, "timed wait (clock %d) returned %d, expected ETIMEDOUT", (int)clocks[i], rc);
        struct timespec now;
        clock_gettime(clocks[i], &now);
        CHECK(now.tv_sec > dl.tv_sec || (now.tv_sec == dl.tv_sec && now.tv_nsec >= dl.tv_nsec),
              "timed out before the deadline");
        CHECK(!ll_lock_try_acquire(m.lock), "mutex not held after ETIMEDOUT");
        CHECK(ll_load_relaxed(&c.waiters) == 0 && c.head == NULL, "timed-out waiter still listed");
        bench_mutex_unlock(&m);
    }
    struct timespec past = {1, 0};
    bench_mutex_lock(&m);
    CHECK(ll_cond_wait(&c, &bench_mutex_iface, &m, CLOCK_MONOTONIC, &past) == ETIMEDOUT, "past deadline");
    struct timespec bad = {0, 1000000000L};
    CHECK(ll_cond_wait(&c, &bench_mutex_iface, &m, CLOCK_MONOTONIC, &bad) == EINVAL, "tv_nsec = 1e9 accepted");
    bad.tv_nsec = -1;
    CHECK(ll_cond_wait(&c, &bench_mutex_iface, &m, CLOCK_MONOTONIC, &bad) == EINVAL, "tv_nsec = -1 accepted");
    CHECK(ll_cond_wait(&c, &bench_mutex_iface, &m, CLOCK_PROCESS_CPUTIME_ID, &past) == EINVAL, "bad clock accepted");
    CHECK(!ll_lock_try_acquire(m.lock), "mutex not held after EINVAL");
    bench_mutex_unlock(&m);
    ll_cond_destroy(&c);

    /* A timed wait that is signalled well before its deadline returns 0. */
    timed_case tc;
    memset(&tc, 0, sizeof tc);
    tc.m = m;
    ll_cond_init(&tc.c, NULL);
    pthread_t t;
    test_start(&t, timed_waiter, &tc);
    while (read_locked(&tc.m, &tc.waiting) == 0)
        ll_yield();
    bench_mutex_lock(&tc.m);
    tc.signalled = 1;
    ll_cond_signal(&tc.c, &tc.m.deferred);
    bench_mutex_unlock(&tc.m);
    pthread_join(t, NULL);
    CHECK(tc.rc == 0, "signalled timed wait returned %d", tc.rc);
    ll_lock_destroy(m.lock);
}

/* ---- 6. timeout-after-signal race ----------------------------------------------------- */

enum { RACE_LOOPS = 3000 };
typedef struct race_case {
    bench_mutex m;
    ll_cond c;
    ll_sem s;
    ll_atomic_u32 about_to_wait;
    long delay_ns;
    int rc;
} race_case;

static void *race_cond_waiter(void *p)
{
    race_case *rc = (race_case *)p;
    bench_mutex_lock(&rc->m);
    struct timespec dl = test_deadline(CLOCK_MONOTONIC, rc->delay_ns);
    ll_store_release(&rc->about_to_wait, 1); /* release: pairs with main's acquire; m still held */
    rc->rc = ll_cond_wait(&rc->c, &bench_mutex_iface, &rc->m, CLOCK_MONOTONIC, &dl);
    bench_mutex_unlock(&rc->m);
    return NULL;
}

static void *race_sem_waiter(void *p)
{
    race_case *rc = (race_case *)p;
    struct timespec dl = test_deadline(CLOCK_MONOTONIC, rc->delay_ns);
    ll_store_release(&rc->about_to_wait, 1); /* release: pairs with main's acquire */
    rc->rc = ll_sem_wait(&rc->s, CLOCK_MONOTONIC, &dl);
    return NULL;
}

static void spin_ns(long ns)
{
    uint64_t end = ll_now_ns() + (uint64_t)ns;
    while (ll_now_ns() < end)
        ll_pause();
}

/* Start fn, the timed waiter of rc, with a fresh delay from *rng; returns once it
 * is about to wait and a random while longer. */
static pthread_t race_start(race_case *rc, uint64_t *rng, test_thread_fn fn)
{
    *rng = ll_rand_next(rng);
    rc->delay_ns = (long)(*rng % 60000);
    ll_store_relaxed(&rc->about_to_wait, 0); /* relaxed: the thread is created after this */
    pthread_t t;
    test_start(&t, fn, rc);
    while (ll_load_acquire(&rc->about_to_wait) == 0) /* acquire: pairs with the waiter's release */
        ll_yield();
    spin_ns((long)((*rng >> 20) % 60000));
    return t;
}

static void test_timeout_race(void)
{
    race_case rc;
    memset(&rc, 0, sizeof rc);
    tm_init(&rc.m, "mcs-stp");
    ll_cond_init(&rc.c, NULL);
    uint64_t rng = 88172645463325252ull;
    int took_total = 0, timed_out_total = 0, mismatches = 0;
    for (int i = 0; i < RACE_LOOPS; i++) {
        pthread_t t = race_start(&rc, &rng, race_cond_waiter);
        bench_mutex_lock(&rc.m); /* the waiter is listed, or has already timed out and unlinked itself */
        ll_cond_signal(&rc.c, &rc.m.deferred);
        int took = rc.m.deferred.head != NULL;
        if (took && (rng & 1))
            spin_ns(80000); /* let its deadline pass while its wake-up sits on the deferred list */
        bench_mutex_unlock(&rc.m);
        pthread_join(t, NULL);
        took_total += took;
        timed_out_total += rc.rc == ETIMEDOUT;
        mismatches += took != (rc.rc == 0);
    }
    CHECK(mismatches == 0, "timeout race: %d of %d waits disagree with the signal (took %d, timed out %d)",
          mismatches, RACE_LOOPS, took_total, timed_out_total);
    CHECK(ll_load_relaxed(&rc.c.waiters) == 0 && rc.c.head == NULL, "timeout race: waiters left listed");
    printf("timeout race (cond): %d signalled, %d timed out\n", took_total, timed_out_total);

    /* Semaphores: every unit posted is either taken by the timed waiter or still there. */
    ll_sem_init(&rc.s, 0, NULL);
    int acquired = 0;
    mismatches = 0;
    for (int i = 0; i < RACE_LOOPS; i++) {
        pthread_t t = race_start(&rc, &rng, race_sem_waiter);
        CHECK(ll_sem_post(&rc.s) == 0, "post");
        pthread_join(t, NULL);
        acquired += rc.rc == 0;
        if (rc.rc == 0 && ll_sem_trywait(&rc.s) == 0) /* a unit left over although the waiter got one */
            mismatches++;
        else if (rc.rc != 0 && ll_sem_trywait(&rc.s) != 0) /* timed out, but the unit is gone */
            mismatches++;
    }
    CHECK(mismatches == 0, "sem timeout race: %d units not conserved", mismatches);
    CHECK(ll_sem_getvalue(&rc.s) == 0 && rc.s.head == NULL, "sem timeout race: value %d", ll_sem_getvalue(&rc.s));
    printf("timeout race (sem): %d acquired, %d timed out\n", acquired, RACE_LOOPS - acquired);
    ll_sem_destroy(&rc.s);
    ll_cond_destroy(&rc.c);
    ll_lock_destroy(rc.m.lock);
}

/* ---- 7. semaphores ------------------------------------------------------------------- */

enum { SEM_THREADS = 8, SEM_UNITS = 3, SEM_ITERS = 3000 };
typedef struct sem_case {
    ll_sem s;
    ll_atomic_u32 inside, max_inside;
    ll_atomic_u32 timeouts, trywait_fails;
} sem_case;

static void *sem_worker(void *p)
{
    sem_case *sc = (sem_case *)p;
    for (int i = 0; i < SEM_ITERS; i++) {
        int how = i % 3;
        if (how == 0) {
            CHECK(ll_sem_wait(&sc->s, CLOCK_MONOTONIC, NULL) == 0, "sem wait");
        } else if (how == 1) {
            if (ll_sem_trywait(&sc->s) != 0) {
                ll_faa(&sc->trywait_fails, 1, LL_RELAXED); /* relaxed: a statistic */
                continue;
            }
        } else {
            struct timespec dl = test_deadline(CLOCK_MONOTONIC, 20000);
            if (ll_sem_wait(&sc->s, CLOCK_MONOTONIC, &dl) != 0) {
                ll_faa(&sc->timeouts, 1, LL_RELAXED); /* relaxed: a statistic */
                continue;
            }
        }
        uint32_t now = ll_faa(&sc->inside, 1, LL_RELAXED) + 1; /* relaxed: the semaphore orders entries */
        uint32_t max = ll_load_relaxed(&sc->max_inside);
        while (now > max && !ll_cas(&sc->max_inside, &max, now, LL_RELAXED)) /* relaxed: a maximum only */
            ;
        ll_faa(&sc->inside, (uint32_t)-1, LL_RELAXED); /* relaxed: as above */
        CHECK(ll_sem_post(&sc->s) == 0, "sem post");
    }
    return NULL;
}

static void *handoff_waiter(void *p)
{
    CHECK(ll_sem_wait((ll_sem *)p, CLOCK_MONOTONIC, NULL) == 0, "handoff wait");
    return NULL;
}

static void test_semaphore(void)
{
    /* Direct handoff: a post with a waiter listed gives the unit to that waiter; a
     * thread that did not wait (here: trywait right after the post) cannot take it. */
    for (int i = 0; i < 20; i++) {
        ll_sem h;
        ll_sem_init(&h, 0, NULL);
        pthread_t w;
        test_start(&w, handoff_waiter, &h);
        while (sem_listed(&h) != 1)
            ll_yield();
        CHECK(ll_sem_post(&h) == 0, "post");
        CHECK(ll_sem_trywait(&h) == EAGAIN, "a non-waiter barged in and took the unit posted for a waiter");
        CHECK(ll_sem_getvalue(&h) == 0, "value %d after a post with a waiter", ll_sem_getvalue(&h));
        pthread_join(w, NULL);
        ll_sem_destroy(&h);
    }

    ll_discipline disc[] = {LL_DISCIPLINE_FIFO, LL_DISCIPLINE_LIFO_CR};
    for (int di = 0; di < 2; di++) {
        sem_case sc;
        memset(&sc, 0, sizeof sc);
        ll_sync_config cfg = cfg_of(disc[di], 0);
        CHECK(ll_sem_init(&sc.s, SEM_UNITS, &cfg) == 0, "sem init");
        test_run_threads(SEM_THREADS, sem_worker, &sc, 0);
        CHECK(ll_sem_getvalue(&sc.s) == SEM_UNITS, "sem %s: %d units at the end, expected %d",
              di ? "lifo-cr" : "fifo", ll_sem_getvalue(&sc.s), SEM_UNITS);
        CHECK(ll_load_relaxed(&sc.max_inside) <= SEM_UNITS, "sem: %u threads inside at once",
              ll_load_relaxed(&sc.max_inside));
        CHECK(sc.s.head == NULL, "sem: waiters left listed");
        ll_sem_destroy(&sc.s);
    }

    ll_sem s;
    CHECK(ll_sem_init(&s, 0, NULL) == 0, "init 0");
    CHECK(ll_sem_trywait(&s) == EAGAIN, "trywait on 0 is not EAGAIN");
    struct timespec dl = test_deadline(CLOCK_REALTIME, 10 * 1000000L);
    CHECK(ll_sem_wait(&s, CLOCK_REALTIME, &dl) == ETIMEDOUT, "timed wait on 0 is not ETIMEDOUT");
    struct timespec bad = {0, 2000000000L};
    CHECK(ll_sem_wait(&s, CLOCK_MONOTONIC, &bad) == EINVAL, "bad abstime accepted");
    CHECK(ll_sem_post(&s) == 0 && ll_sem_getvalue(&s) == 1, "post");
    CHECK(ll_sem_wait(&s, CLOCK_MONOTONIC, &bad) == 0, "a unit is there: abstime not checked (POSIX)");
    CHECK(ll_sem_init(&s, (unsigned)INT32_MAX + 1u, NULL) == EINVAL, "value > INT32_MAX accepted");
    CHECK(ll_sem_init(&s, INT32_MAX, NULL) == 0, "init INT32_MAX");
    CHECK(ll_sem_post(&s) == EOVERFLOW && ll_sem_getvalue(&s) == INT32_MAX, "post past INT32_MAX");
    CHECK(ll_sem_trywait(&s) == 0 && ll_sem_post(&s) == 0, "trywait/post at INT32_MAX");
    ll_sem_destroy(&s);
}

/* ---- main --------------------------------------------------------------------------- */

static void watchdog(int sig)
{
    (void)sig;
    static const char msg[] = "FAIL test_sync: no progress for 120 s (a lost wake-up?)\n";
    ssize_t n = write(2, msg, sizeof msg - 1);
    (void)n;
    _exit(1);
}

int main(void)
{
    signal(SIGALRM, watchdog);
    alarm(120);
    test_config();
    test_order();
    test_timed();
    test_semaphore();
    test_broadcast_storm();
    test_prodcons();
    test_timeout_race();
    return test_done("test_sync");
}
