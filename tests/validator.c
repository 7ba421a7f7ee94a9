/*
 * The validator: every registered lock x waiting policy runs the same small
 * clients, and mutual exclusion is checked with plain (non-atomic) data.
 *
 * Clients: counter, nested, trylock, mixed, timed (tests/clients.h, written once
 * and also run by the model checker verify/check.cpp); here each runs for a fixed
 * time with T threads.  Lock a's critical section is
 *   x = counter; delay; counter = x + 1; occupancy check
 * -> counter must equal the number of acquisitions, occupancy never > 1.
 * A deliberately broken lock (test-then-set with a gap) must be caught: that
 * is the test that proves the checker can fail.
 *
 *   validator [--client counter|nested|trylock|mixed|timed|all] [--threads N] [--duration S]
 *             [--lock SPEC]... [--broken]
 * Prints one line per case and "N passed, N failed".  Exit 0 iff all passed
 * (with --broken: iff the broken lock was caught).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "locklab/locklab.h"
#include "locklab/registry.h"
#include "test_util.h"
#include "validator_driver.h"
#include "../src/api/handle.h" /* ll_lock_direct_acquire, _release */

/* ---- the deliberately broken lock --------------------------------------------------- */
/* "Test, then set": two threads can both see 0 before either stores 1. */
static void broken_acquire(void *s, ll_wait_policy *wp)
{
    (void)wp;
    ll_atomic_u32 *w = (ll_atomic_u32 *)s;
    for (;;) {
        while (ll_load_acquire(w) != 0)
            ll_pause();
        for (int i = 0; i < 20; i++) /* the gap that makes it wrong */
            ll_pause();
        ll_store_relaxed(w, 1);
        return;
    }
}
static bool broken_try(void *s, ll_wait_policy *wp)
{
    broken_acquire(s, wp);
    return true;
}
static void broken_release(void *s, ll_wait_policy *wp)
{
    (void)wp;
    ll_store_release((ll_atomic_u32 *)s, 0);
}

/* A lock under test: either a registry lock (via the generic handle) or the broken one. */
typedef struct lut {
    ll_lock *handle;
    ll_wait_policy wp;
    LL_ALIGNED(LL_SECTOR) ll_atomic_u32 broken_word;
} lut;
static void lut_acquire(lut *l) { l->handle ? ll_lock_acquire(l->handle) : broken_acquire(&l->broken_word, &l->wp); }
static bool lut_try(lut *l) { return l->handle ? ll_lock_try_acquire(l->handle) : broken_try(&l->broken_word, &l->wp); }
static void lut_release(lut *l) { l->handle ? ll_lock_release(l->handle) : broken_release(&l->broken_word, &l->wp); }
/* The direct verbs (the counter client's odd steps), with an owner word of this thread's:
 * an acquisition through them must store our id in it (the interposer's owner word). */
static __thread ll_atomic_u64 lut_owner;
static void lut_direct_acquire(lut *l)
{
    if (l->handle == NULL) {
        broken_acquire(&l->broken_word, &l->wp);
        return;
    }
    ll_store_relaxed(&lut_owner, 0); /* relaxed: this thread's word alone */
    uint64_t id = (uint64_t)(uintptr_t)&lut_owner; /* unique per thread */
    ll_lock_direct_acquire(l->handle, &lut_owner, id);
    if (ll_load_relaxed(&lut_owner) != id) { /* relaxed: as above */
        fprintf(stderr, "validator: %s: the direct acquire did not store the owner\n", ll_lock_name(l->handle));
        exit(1);
    }
}
static void lut_direct_release(lut *l)
{
    if (l->handle == NULL)
        broken_release(&l->broken_word, &l->wp);
    else
        ll_lock_direct_release(l->handle);
}
static bool lut_timed(lut *l, uint64_t ns)
{
    return l->handle ? ll_lock_acquire_for(l->handle, ns) : broken_try(&l->broken_word, &l->wp);
}

/* ---- clients (tests/clients.h, shared with the model checker verify/check.cpp) ---- */
typedef struct shared shared;
static void client_cs_a(shared *sh);
static void client_cs_b(shared *sh);
static bool client_timed(lut *l, shared *sh);
#include "clients.h"

struct shared {
    lut *a, *b;
    enum client client;
    LL_ALIGNED(LL_SECTOR) ll_atomic_u32 stop;
    LL_ALIGNED(LL_SECTOR) uint64_t counter_a; /* plain data, protected by a */
    uint64_t counter_b;                       /* plain data, protected by b */
    int inside;                               /* plain occupancy count, protected by a */
    int violations;                           /* plain, protected by a (only if it works...) */
    LL_ALIGNED(LL_SECTOR) ll_atomic_u64 timeouts; /* timed: acquires that gave up (a statistic) */
};

typedef struct worker {
    LL_ALIGNED(LL_SECTOR) shared *sh;
    uint64_t acquired;
    int index;
} worker;

static void critical_section(shared *sh, uint64_t *counter)
{
    if (++sh->inside != 1)
        sh->violations++;
    uint64_t x = *counter;
    for (int i = 0; i < 8; i++) /* widen the window a broken lock needs */
        ll_pause();
    ll_compiler_barrier();
    *counter = x + 1;
    sh->inside--;
}

static void client_cs_a(shared *sh) { critical_section(sh, &sh->counter_a); }
static void client_cs_b(shared *sh) { sh->counter_b++; }
/* timed: a timeout of 0-4 us */
static bool client_timed(lut *l, shared *sh)
{
    if (lut_timed(l, ll_rand_below(4000)))
        return true;
    ll_faa(&sh->timeouts, 1, LL_RELAXED); /* relaxed: a statistic */
    return false;
}

static void *worker_main(void *arg)
{
    worker *w = (worker *)arg;
    shared *sh = w->sh;
    uint64_t n = 0;
    while (ll_load_relaxed(&sh->stop) == 0) /* relaxed: a stop hint; join orders results */
        if (client_step(sh->client, sh->a, sh->b, sh, w->index, n))
            n++;
        else
            ll_pause(); /* a failed try_acquire or timed acquire */
    w->acquired = n;
    return NULL;
}

static uint64_t last_timeouts; /* the timed client's give-ups in the last case */

/* Runs one case; returns 1 if mutual exclusion held (nested/mixed: for both locks). */
static int run_case(lut *a, lut *b, enum client c, int threads, double seconds, uint64_t *total_out)
{
    shared *sh = vd_zalloc(sizeof *sh);
    sh->a = a;
    sh->b = b;
    sh->client = c;
    worker *ws = VD_RUN_WORKERS(sh, threads, seconds);
    uint64_t total = 0;
    for (int t = 0; t < threads; t++)
        total += ws[t].acquired;
    int ok = sh->counter_a == total && sh->violations == 0 && ((c != NESTED && c != MIXED) || sh->counter_b == total);
    *total_out = total;
    last_timeouts = ll_load_relaxed(&sh->timeouts); /* relaxed: the workers were joined */
    free(ws);
    free(sh);
    return ok;
}

static void make_lut(lut *l, const char *spec)
{
    memset(l, 0, sizeof *l);
    if (!spec) {
        l->wp = (ll_wait_policy)LL_WAIT_POLICY_INIT(ll_wait_spin);
        return;
    }
    char err[512];
    l->handle = ll_lock_create(spec, err, sizeof err);
    if (!l->handle) {
        fprintf(stderr, "validator: %s\n", err);
        exit(2);
    }
}

static void free_lut(lut *l) { ll_lock_destroy(l->handle); }

static int validate(const char *spec, int client, int threads, double seconds)
{
    enum client c = (enum client)client;
    lut *a = aligned_alloc(LL_SECTOR, sizeof(lut)), *b = aligned_alloc(LL_SECTOR, sizeof(lut));
    make_lut(a, spec);
    make_lut(b, c != MIXED ? spec : strncmp(spec, "mcs", 3) == 0 ? "clh-park" : "mcs-park");
    uint64_t total;
    int ok = run_case(a, b, c, threads, seconds, &total);
    /* A case that made no progress proves nothing; on a loaded machine a short
     * case can be starved of CPU, so retry it once, longer, before failing. */
    if (ok && total == 0)
        ok = run_case(a, b, c, threads, seconds * 20, &total);
    if (total == 0)
        ok = 0;
    printf("%-6s %-16s %-8s threads=%d acquisitions=%llu", ok ? "ok" : "FAIL", spec, client_names[c], threads,
           (unsigned long long)total);
    if (c == TIMED)
        printf(" timeouts=%llu", (unsigned long long)last_timeouts);
    printf("\n");
    free_lut(a);
    free_lut(b);
    free(a);
    free(b);
    return ok;
}

/* One round of --broken: the counter client on the test-then-set lock. */
static int broken_round(int threads)
{
    lut *a = aligned_alloc(LL_SECTOR, sizeof(lut));
    make_lut(a, NULL);
    uint64_t total;
    int held = run_case(a, a, COUNTER, threads ? threads : 2, 0.5, &total);
    free(a);
    return held;
}

VALIDATOR_MAIN(.prog = "validator", .broken_line = "broken lock %s by the validator", .watchdog_s = 120,
               .list = ll_lock_list)
