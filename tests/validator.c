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
#include <signal.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "locklab/locklab.h"
#include "locklab/registry.h"
#include "test_util.h"

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
static bool lut_timed(lut *l, uint64_t ns)
{
    return l->handle ? ll_lock_acquire_for(l->handle, ns) : broken_try(&l->broken_word, &l->wp);
}

/* ---- clients (tests/clients.h, shared with the model checker verify/check.cpp) ---- */
typedef struct shared shared;
static void client_cs_a(shared *sh);
static void client_cs_b(shared *sh);
static bool client_timed(lut *l, shared *sh);
#define CLIENT_LOCK lut
#define CLIENT_DATA shared
#define client_acquire lut_acquire
#define client_try lut_try
#define client_release lut_release
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
    pthread_t tid;
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
    shared *sh = aligned_alloc(LL_SECTOR, sizeof *sh);
    memset(sh, 0, sizeof *sh);
    sh->a = a;
    sh->b = b;
    sh->client = c;
    worker *ws = aligned_alloc(LL_SECTOR, sizeof(worker) * (size_t)threads);
    memset(ws, 0, sizeof(worker) * (size_t)threads);
    for (int t = 0; t < threads; t++) {
        ws[t].sh = sh;
        ws[t].index = t;
        test_start(&ws[t].tid, worker_main, &ws[t]);
    }
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&ts, NULL);
    ll_store_relaxed(&sh->stop, 1);
    uint64_t total = 0;
    for (int t = 0; t < threads; t++) {
        pthread_join(ws[t].tid, NULL);
        total += ws[t].acquired;
    }
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

static int passed, failed;
static const char *current_case = "";

/* A lock that deadlocks or loses a wake-up hangs its case: fail loudly instead of hanging CI. */
static void watchdog(int sig)
{
    (void)sig;
    static const char msg[] = "FAIL   validator watchdog: a case made no progress for 120 s (hang): ";
    write(2, msg, sizeof msg - 1);
    write(2, current_case, strlen(current_case));
    write(2, "\n", 1);
    _exit(1);
}

static void validate(const char *spec, enum client c, int threads, double seconds)
{
    lut *a = aligned_alloc(LL_SECTOR, sizeof(lut)), *b = aligned_alloc(LL_SECTOR, sizeof(lut));
    make_lut(a, spec);
    make_lut(b, c != MIXED ? spec : strncmp(spec, "mcs", 3) == 0 ? "clh-park" : "mcs-park");
    static char label[160];
    snprintf(label, sizeof label, "%s %s threads=%d", spec ? spec : "broken", client_names[c], threads);
    current_case = label;
    alarm(120);
    uint64_t total;
    int ok = run_case(a, b, c, threads, seconds, &total);
    /* A case that made no progress proves nothing; on a loaded machine a short
     * case can be starved of CPU, so retry it once, longer, before failing. */
    if (ok && total == 0)
        ok = run_case(a, b, c, threads, seconds * 20, &total);
    if (total == 0)
        ok = 0;
    alarm(0);
    printf("%-6s %-16s %-8s threads=%d acquisitions=%llu", ok ? "ok" : "FAIL", spec ? spec : "broken",
           client_names[c], threads, (unsigned long long)total);
    if (c == TIMED)
        printf(" timeouts=%llu", (unsigned long long)last_timeouts);
    printf("\n");
    fflush(stdout);
    ok ? passed++ : failed++;
    free_lut(a);
    free_lut(b);
    free(a);
    free(b);
}

typedef struct { const char **specs; int n; } spec_list;
static void collect(const char *spec, void *arg)
{
    spec_list *l = (spec_list *)arg;
    l->specs[l->n++] = strdup(spec);
}

int main(int argc, char **argv)
{
    const char *only[64];
    int nonly = 0, threads = 0, broken = 0, clients = (1 << NCLIENTS) - 1;
    double seconds = 0.15;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--lock") == 0 && i + 1 < argc)
            only[nonly++] = argv[++i];
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (strcmp(argv[i], "--duration") == 0 && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (strcmp(argv[i], "--broken") == 0)
            broken = 1;
        else if (strcmp(argv[i], "--client") == 0 && i + 1 < argc) {
            const char *c = argv[++i];
            clients = strcmp(c, "all") == 0 ? (1 << NCLIENTS) - 1 : 0;
            for (int k = 0; k < NCLIENTS; k++)
                if (strcmp(c, client_names[k]) == 0)
                    clients = 1 << k;
            if (!clients) {
                fprintf(stderr, "validator: unknown client '%s' (valid: counter, nested, trylock, mixed, timed, all)\n", c);
                return 2;
            }
        } else {
            fprintf(stderr, "validator: bad argument '%s' (valid: --client C, --threads N, --duration S, --lock SPEC, --broken)\n",
                    argv[i]);
            return 2;
        }
    }
    signal(SIGALRM, watchdog);
    char topo_err[256];
    if (ll_topology_init_from_env(topo_err, sizeof topo_err) != 0) { /* NUMA-aware locks read it at creation */
        fprintf(stderr, "validator: %s\n", topo_err);
        return 2;
    }
    if (broken) {
        /* Try for up to ~10 s: the checker must catch the broken lock. */
        int caught = 0;
        for (int round = 0; round < 20 && !caught; round++) {
            lut *a = aligned_alloc(LL_SECTOR, sizeof(lut));
            make_lut(a, NULL);
            uint64_t total;
            caught = !run_case(a, a, COUNTER, threads ? threads : 2, 0.5, &total);
            free(a);
        }
        printf("%s broken lock %s by the validator\n", caught ? "ok" : "FAIL", caught ? "caught" : "NOT caught");
        printf("%d passed, %d failed\n", caught, !caught);
        return caught ? 0 : 1;
    }
    const char *all[256];
    spec_list list = {all, 0};
    if (nonly) {
        memcpy(all, only, sizeof(char *) * (size_t)nonly);
        list.n = nonly;
    } else {
        ll_lock_list(collect, &list);
    }
    const int thread_counts[] = {2, 3, 8};
    for (int s = 0; s < list.n; s++)
        for (int c = 0; c < NCLIENTS; c++) {
            if (!(clients & (1 << c)))
                continue;
            if (threads)
                validate(list.specs[s], (enum client)c, threads, seconds);
            else
                for (int t = 0; t < 3; t++)
                    validate(list.specs[s], (enum client)c, thread_counts[t], seconds);
        }
    for (int s = 0; !nonly && s < list.n; s++)
        free((void *)list.specs[s]);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
