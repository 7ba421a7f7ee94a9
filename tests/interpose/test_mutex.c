/*
 * The interposed pthread_mutex_*: POSIX semantics per type and error code,
 * static initialisers, trylock, timed locks, passthrough mutexes, destroy,
 * 10000 mutexes, mutual exclusion under 8 threads.  Run under LD_PRELOAD by
 * run_tests.sh, once per lock spec (LOCKLAB_LOCK).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "check.h"
#include "locklab/atomics.h"

/* ---- one operation from another thread -------------------------------------------- */
enum op { OP_TRY, OP_UNLOCK, OP_TIMED, OP_CLOCK_MONO, OP_BAD_NSEC };
typedef struct probe {
    pthread_mutex_t *m;
    enum op op;
    long ms;
    int rc;
} probe;
static void *probe_main(void *arg)
{
    probe *p = (probe *)arg;
    struct timespec t;
    switch (p->op) {
    case OP_TRY:
        p->rc = pthread_mutex_trylock(p->m);
        break;
    case OP_UNLOCK:
        p->rc = pthread_mutex_unlock(p->m);
        return NULL;
    case OP_TIMED:
        t = in_ms(CLOCK_REALTIME, p->ms);
        p->rc = pthread_mutex_timedlock(p->m, &t);
        break;
    case OP_CLOCK_MONO:
        t = in_ms(CLOCK_MONOTONIC, p->ms);
        p->rc = pthread_mutex_clocklock(p->m, CLOCK_MONOTONIC, &t);
        break;
    case OP_BAD_NSEC:
        t = in_ms(CLOCK_REALTIME, 1000);
        t.tv_nsec = 1000000000L;
        p->rc = pthread_mutex_timedlock(p->m, &t);
        break;
    }
    if (p->rc == 0)
        pthread_mutex_unlock(p->m);
    return NULL;
}
static int other_thread(pthread_mutex_t *m, enum op op, long ms)
{
    probe p = {m, op, ms, -1};
    test_run_threads(1, probe_main, &p, 0);
    return p.rc;
}

/* ---- per type ------------------------------------------------------------------------ */
static void test_normal(pthread_mutex_t *m)
{
    CHECK_EQ(pthread_mutex_lock(m), 0);
    CHECK_EQ(pthread_mutex_trylock(m), EBUSY);
    CHECK_EQ(other_thread(m, OP_TRY, 0), EBUSY);
    CHECK_EQ(pthread_mutex_unlock(m), 0);
    CHECK_EQ(other_thread(m, OP_TRY, 0), 0);
    CHECK_EQ(pthread_mutex_trylock(m), 0);
    CHECK_EQ(pthread_mutex_unlock(m), 0);
}

static void test_errorcheck(pthread_mutex_t *m)
{
    CHECK_EQ(pthread_mutex_unlock(m), EPERM); /* not locked */
    CHECK_EQ(pthread_mutex_lock(m), 0);
    CHECK_EQ(pthread_mutex_lock(m), EDEADLK);
    CHECK_EQ(pthread_mutex_trylock(m), EBUSY);
    struct timespec t = in_ms(CLOCK_REALTIME, 10);
    CHECK_EQ(pthread_mutex_timedlock(m, &t), EDEADLK);
    CHECK_EQ(other_thread(m, OP_UNLOCK, 0), EPERM);
    CHECK_EQ(other_thread(m, OP_TRY, 0), EBUSY);
    CHECK_EQ(pthread_mutex_unlock(m), 0);
    CHECK_EQ(pthread_mutex_unlock(m), EPERM);
    CHECK_EQ(other_thread(m, OP_TRY, 0), 0);
}

static void test_recursive(pthread_mutex_t *m)
{
    CHECK_EQ(pthread_mutex_unlock(m), EPERM);
    for (int i = 0; i < 5; i++)
        CHECK_EQ(pthread_mutex_lock(m), 0);
    CHECK_EQ(pthread_mutex_trylock(m), 0);
    struct timespec t = in_ms(CLOCK_REALTIME, 10);
    CHECK_EQ(pthread_mutex_timedlock(m, &t), 0);
    CHECK_EQ(other_thread(m, OP_TRY, 0), EBUSY);
    CHECK_EQ(other_thread(m, OP_UNLOCK, 0), EPERM);
    for (int i = 0; i < 6; i++)
        CHECK_EQ(pthread_mutex_unlock(m), 0);
    CHECK_EQ(other_thread(m, OP_TRY, 0), EBUSY); /* still held once */
    CHECK_EQ(pthread_mutex_unlock(m), 0);
    CHECK_EQ(pthread_mutex_unlock(m), EPERM);
    CHECK_EQ(other_thread(m, OP_TRY, 0), 0);
}

static void test_timed(pthread_mutex_t *m)
{
    struct timespec t = in_ms(CLOCK_REALTIME, 50);
    CHECK_EQ(pthread_mutex_timedlock(m, &t), 0); /* free: success */
    CHECK_EQ(other_thread(m, OP_TIMED, 30), ETIMEDOUT);
    CHECK_EQ(other_thread(m, OP_CLOCK_MONO, 30), ETIMEDOUT);
    CHECK_EQ(other_thread(m, OP_BAD_NSEC, 0), EINVAL); /* would block: abstime checked */
    t = in_ms(CLOCK_REALTIME, 10);
    CHECK_EQ(pthread_mutex_clocklock(m, CLOCK_PROCESS_CPUTIME_ID, &t), EINVAL);
    CHECK_EQ(other_thread(m, OP_TIMED, -1000), ETIMEDOUT); /* deadline already passed */
    CHECK_EQ(pthread_mutex_unlock(m), 0);
    CHECK_EQ(other_thread(m, OP_CLOCK_MONO, 1000), 0); /* free: success */
}

/* A timed waiter succeeds once the holder releases before its deadline. */
typedef struct timed_waiter { pthread_mutex_t *m; ll_atomic_u32 started; int rc; } timed_waiter;
static void *timed_waiter_main(void *arg)
{
    timed_waiter *w = (timed_waiter *)arg;
    struct timespec t = in_ms(CLOCK_REALTIME, 10000);
    ll_store_release(&w->started, 1); /* release: pairs with the spin below (nothing else to publish) */
    w->rc = pthread_mutex_timedlock(w->m, &t);
    if (w->rc == 0)
        pthread_mutex_unlock(w->m);
    return NULL;
}
static void test_timed_success_after_wait(pthread_mutex_t *m)
{
    timed_waiter w = {m, LL_ATOMIC_INIT(0), -1};
    pthread_t t;
    CHECK_EQ(pthread_mutex_lock(m), 0);
    test_start(&t, timed_waiter_main, &w);
    while (!ll_load_acquire(&w.started)) /* acquire: pairs with the waiter's release */
        ll_pause();
    struct timespec d = {0, 20 * 1000000L};
    nanosleep(&d, NULL);
    CHECK_EQ(pthread_mutex_unlock(m), 0);
    pthread_join(t, NULL);
    CHECK_EQ(w.rc, 0);
}

static void test_init_types(void)
{
    static const int types[] = {PTHREAD_MUTEX_NORMAL, PTHREAD_MUTEX_ERRORCHECK, PTHREAD_MUTEX_RECURSIVE,
                                PTHREAD_MUTEX_ADAPTIVE_NP};
    for (int i = 0; i < 4; i++) {
        pthread_mutex_t m;
        memset(&m, 0xa5, sizeof m); /* init must not trust old contents */
        CHECK_EQ(init_mutex_of_type(&m, types[i]), 0);
        if (types[i] == PTHREAD_MUTEX_ERRORCHECK)
            test_errorcheck(&m);
        else if (types[i] == PTHREAD_MUTEX_RECURSIVE)
            test_recursive(&m);
        else
            test_normal(&m);
        test_timed(&m);
        CHECK_EQ(pthread_mutex_destroy(&m), 0);
        CHECK_EQ(pthread_mutex_lock(&m), EINVAL); /* destroyed: glibc's answer */
    }
    pthread_mutex_t m;
    CHECK_EQ(pthread_mutex_init(&m, NULL), 0);
    CHECK_EQ(pthread_mutex_lock(&m), 0);
    CHECK_EQ(pthread_mutex_destroy(&m), EBUSY);
    CHECK_EQ(pthread_mutex_unlock(&m), 0);
    CHECK_EQ(pthread_mutex_destroy(&m), 0);
}

/* Robust, PI and process-shared mutexes go to glibc and keep glibc's semantics. */
static void *die_holding(void *arg)
{
    pthread_mutex_lock((pthread_mutex_t *)arg);
    return NULL; /* exits holding a robust mutex */
}
static void test_passthrough(void)
{
    pthread_mutex_t m;
    CHECK_EQ(init_mutex_with(&m, pthread_mutexattr_setrobust, PTHREAD_MUTEX_ROBUST), 0);
    test_run_threads(1, die_holding, &m, 0);
    CHECK_EQ(pthread_mutex_lock(&m), EOWNERDEAD); /* only glibc's robust list can say this */
    CHECK_EQ(pthread_mutex_consistent(&m), 0);
    CHECK_EQ(pthread_mutex_unlock(&m), 0);
    CHECK_EQ(pthread_mutex_destroy(&m), 0);

    pthread_mutexattr_t a; /* two attributes */
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
    CHECK_EQ(pthread_mutex_init(&m, &a), 0);
    CHECK_EQ(pthread_mutex_lock(&m), 0);
    CHECK_EQ(pthread_mutex_lock(&m), EDEADLK);
    CHECK_EQ(pthread_mutex_unlock(&m), 0);
    CHECK_EQ(pthread_mutex_destroy(&m), 0);
    pthread_mutexattr_destroy(&a);

    CHECK_EQ(init_mutex_with(&m, pthread_mutexattr_setpshared, PTHREAD_PROCESS_SHARED), 0);
    test_normal(&m);
    test_timed(&m);
    CHECK_EQ(pthread_mutex_destroy(&m), 0);
}

/* ---- many mutexes, many threads -------------------------------------------------------- */
enum { MANY = 10000, THREADS = 8, ROUNDS = 4000 };
static pthread_mutex_t many[MANY];
static long many_count[MANY];
static pthread_mutex_t shared_counter_mutex = PTHREAD_MUTEX_INITIALIZER;
static long shared_counter; /* not atomic: only the mutex protects it */

static void *hammer(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg * 2654435761u + 1;
    for (int i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&shared_counter_mutex);
        long v = shared_counter;
        if ((i & 15) == 0)
            sched_yield(); /* widen the window a broken lock would lose an update in */
        shared_counter = v + 1;
        pthread_mutex_unlock(&shared_counter_mutex);
        seed = seed * 1103515245u + 12345u;
        int k = (int)((seed >> 8) % MANY);
        pthread_mutex_lock(&many[k]);
        many_count[k]++;
        pthread_mutex_unlock(&many[k]);
    }
    return NULL;
}

static void test_many(void)
{
    for (int i = 0; i < MANY; i++)
        CHECK_EQ(pthread_mutex_init(&many[i], NULL), 0);
    test_run_threads(THREADS, hammer, NULL, 1); /* thread i gets (void *)i: its seed */
    CHECK_EQ(shared_counter, (long)THREADS * ROUNDS);
    long sum = 0;
    for (int i = 0; i < MANY; i++) {
        sum += many_count[i];
        CHECK_EQ(pthread_mutex_destroy(&many[i]), 0);
    }
    CHECK_EQ(sum, (long)THREADS * ROUNDS);
}

static pthread_mutex_t st_normal = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t st_recursive = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static pthread_mutex_t st_errorcheck = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static pthread_mutex_t st_adaptive = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP;

int main(void)
{
    require_interposed((void *)pthread_mutex_lock);
    test_normal(&st_normal);
    test_normal(&st_adaptive);
    test_errorcheck(&st_errorcheck);
    test_recursive(&st_recursive);
    test_timed(&st_normal);
    test_timed(&st_recursive);
    test_timed_success_after_wait(&st_normal);
    test_init_types();
    test_passthrough();
    test_many();
    return test_done("test_mutex");
}
