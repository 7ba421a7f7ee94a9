/*
 * Every way into and out of one interposed mutex, at once, on the same mutex:
 * pthread_mutex_lock, trylock, timedlock (which polls), and
 * pthread_cond_timedwait's internal unlock and relock, with signals sent while
 * holding the mutex (deferred to its unlock: wait morphing) and critical
 * sections that sleep (so waiters queue and sleep).  A normal mutex (acr's
 * inline fast path when acr is the lock) and an adaptive one (the generic
 * path over the same lock code) are hammered side by side; a heap mutex is
 * destroyed and freed by the last of its users right after its unlock.
 * Checked: plain counters equal the acquisitions, a plain owner field is never
 * overwritten inside a critical section, every thread finishes (timeout 120 s
 * in run_tests.sh).  Run under LD_PRELOAD by run_tests.sh, once per lock spec.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "locklab/atomics.h"
#include "locklab/core.h" /* ll_rand_next */

enum { THREADS = 12, OPS = 1500, FREE_ROUNDS = 3000, FREE_USERS = 3 };

typedef struct guarded {
    pthread_mutex_t m;
    pthread_cond_t c;
    uint64_t counter;        /* plain: protected by m */
    volatile uint64_t owner; /* plain: protected by m */
    ll_atomic_u64 acquisitions, violations;
} guarded;

static guarded normal, adaptive;

/* Inside g->m: check and bump, maybe wait on the condition variable (unlocks and relocks). */
static void inside(guarded *g, uint64_t me, uint64_t r)
{
    if (g->owner != 0)
        ll_faa(&g->violations, 1, LL_RELAXED);
    g->owner = me;
    uint64_t x = g->counter;
    unsigned kind = (unsigned)(r % 100);
    if (kind < 3)
        test_sleep_us(20 + (long)((r >> 8) % 200));
    else if (kind < 8) {
        g->owner = 0;
        g->counter = x + 1;
        struct timespec t = test_deadline(CLOCK_REALTIME, (50 + (long)((r >> 8) % 500)) * 1000);
        pthread_cond_timedwait(&g->c, &g->m, &t); /* unlock, relock (maybe through a timeout) */
        if (g->owner != 0)
            ll_faa(&g->violations, 1, LL_RELAXED);
        g->owner = me;
        x = g->counter;
        ll_faa(&g->acquisitions, 1, LL_RELAXED); /* the relock is one more acquisition */
    } else if (kind < 20)
        pthread_cond_signal(&g->c); /* deferred to our unlock */
    g->counter = x + 1;
    if (g->owner != me)
        ll_faa(&g->violations, 1, LL_RELAXED);
    g->owner = 0;
    ll_faa(&g->acquisitions, 1, LL_RELAXED);
}

static void *worker(void *p)
{
    uint64_t me = (uint64_t)(uintptr_t)p;
    uint64_t seed = 0x9e3779b97f4a7c15ull * me;
    for (int i = 0; i < OPS; i++) {
        uint64_t r = ll_rand_next(&seed);
        guarded *g = (r & 1) ? &normal : &adaptive;
        unsigned how = (unsigned)((r >> 1) % 10);
        int rc;
        if (how < 5)
            rc = pthread_mutex_lock(&g->m);
        else if (how < 8)
            rc = pthread_mutex_trylock(&g->m);
        else {
            struct timespec t = test_deadline(CLOCK_REALTIME, how == 8 ? 10000 : 2000000);
            rc = pthread_mutex_timedlock(&g->m, &t);
        }
        if (rc == 0) {
            inside(g, me, ll_rand_next(&seed));
            CHECK_EQ(pthread_mutex_unlock(&g->m), 0);
        } else
            CHECK(rc == EBUSY || rc == ETIMEDOUT);
        if ((r >> 20) % 50 == 0)
            test_sleep_us(1 + (long)((r >> 28) % 300)); /* the mutex may go idle */
    }
    return NULL;
}

/* ---- a mutex freed by the last of its users, right after its unlock ---------------- */

typedef struct object {
    pthread_mutex_t m;
    int refs; /* protected by m */
} object;
static object *volatile current[FREE_ROUNDS];
static ll_atomic_u32 published;

static void *free_worker(void *p)
{
    (void)p;
    for (uint32_t r = 0; r < FREE_ROUNDS; r++) {
        while (ll_load_acquire(&published) <= r) /* acquire: the object's initialisation */
            sched_yield();
        object *o = current[r];
        pthread_mutex_lock(&o->m);
        if ((r & 7) == 0)
            test_sleep_us(20);
        bool last = --o->refs == 0;
        pthread_mutex_unlock(&o->m);
        if (last) {
            CHECK_EQ(pthread_mutex_destroy(&o->m), 0);
            memset(o, 0xa5, sizeof *o);
            free(o);
            if (r + 1 < FREE_ROUNDS) {
                object *n = (object *)malloc(sizeof *n);
                pthread_mutex_init(&n->m, NULL);
                n->refs = FREE_USERS;
                current[r + 1] = n;
                ll_store_release(&published, r + 2); /* release: n is initialised */
            }
        }
    }
    return NULL;
}

int main(void)
{
    require_interposed((void *)pthread_mutex_lock);
    init_mutex_of_type(&adaptive.m, PTHREAD_MUTEX_ADAPTIVE_NP);
    pthread_mutex_init(&normal.m, NULL);
    pthread_cond_init(&normal.c, NULL);
    pthread_cond_init(&adaptive.c, NULL);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1));
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    for (guarded *g = &normal; g; g = g == &normal ? &adaptive : NULL) {
        CHECK_EQ(ll_load_relaxed(&g->violations), 0);
        CHECK_EQ(g->counter, ll_load_relaxed(&g->acquisitions));
        CHECK(g->counter > 0);
        CHECK_EQ(pthread_mutex_trylock(&g->m), 0); /* free again */
        CHECK_EQ(pthread_mutex_unlock(&g->m), 0);
    }

    object *o = (object *)malloc(sizeof *o);
    pthread_mutex_init(&o->m, NULL);
    o->refs = FREE_USERS;
    current[0] = o;
    ll_store_release(&published, 1); /* release: o is initialised */
    pthread_t f[FREE_USERS];
    for (int i = 0; i < FREE_USERS; i++)
        pthread_create(&f[i], NULL, free_worker, NULL);
    for (int i = 0; i < FREE_USERS; i++)
        pthread_join(f[i], NULL);
    return test_done("test_mix");
}
