/* The driver both validators share (tests/validator.c for mutexes,
 * tests/rw_validator.c for reader-writer locks): the command line, the
 * watchdog, the list of specs, the loop over specs x clients x thread counts,
 * the --broken rounds and the summary line.  A validator fills a
 * validator_driver with its clients and cases and returns validator_main(...)
 * from main, which VALIDATOR_MAIN writes (end of this file):
 *
 *   <prog> [--client C|all] [--threads N] [--duration S] [--lock SPEC]... [--broken]
 *
 * Without --lock every spec the registry lists (d->list) is run; without
 * --threads each client runs at 2, 3 and 8 threads, except the clients in
 * d->once, which run once at 2.  Each case runs under a watchdog of
 * d->watchdog_s seconds: a lock that deadlocks or loses a wake-up fails the
 * case loudly instead of hanging CI.  Prints "N passed, N failed"; exit 0 iff
 * all passed (with --broken: iff the broken lock was caught in one of 20
 * rounds), 2 on a bad argument.
 */
#ifndef LOCKLAB_VALIDATOR_DRIVER_H
#define LOCKLAB_VALIDATOR_DRIVER_H
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "locklab/locklab.h"
#include "test_util.h"

typedef struct validator_driver {
    const char *prog;                /* "validator": error messages and the watchdog's line */
    const char *broken_line;         /* "broken lock %s by the validator" (%s: caught / NOT caught) */
    const char *const *client_names; /* indexed by client */
    int nclients;
    unsigned once;        /* bit c: client c runs once, at 2 threads (unless --threads) */
    unsigned watchdog_s;  /* a case that takes longer is a hang */
    void (*list)(void (*fn)(const char *spec, void *arg), void *arg); /* every registered spec */
    /* Runs one case, prints its line; 1 if it passed. */
    int (*validate)(const char *spec, int client, int threads, double seconds);
    /* One round against the deliberately broken lock (threads 0: its default);
     * 1 if the checks held, that is: the broken lock was NOT caught. */
    int (*broken_round)(int threads);
} validator_driver;

static char vd_hang[160]; /* "FAIL   <prog> watchdog: ...", written before any case runs */
static char vd_case[200];  /* the case running now */

static void vd_watchdog(int sig)
{
    (void)sig;
    write(2, vd_hang, strlen(vd_hang));
    write(2, vd_case, strlen(vd_case));
    write(2, "\n", 1);
    _exit(1);
}

typedef struct {
    const char **specs;
    int n;
} vd_spec_list;

static void vd_collect(const char *spec, void *arg)
{
    vd_spec_list *l = (vd_spec_list *)arg;
    if (l->n < 256)
        l->specs[l->n++] = strdup(spec);
}

static int vd_bad_client(const validator_driver *d, const char *c)
{
    fprintf(stderr, "%s: unknown client '%s' (valid: ", d->prog, c);
    for (int k = 0; k < d->nclients; k++)
        fprintf(stderr, "%s, ", d->client_names[k]);
    fprintf(stderr, "all)\n");
    return 2;
}

static int validator_main(const validator_driver *d, int argc, char **argv)
{
    const char *only[64];
    int nonly = 0, threads = 0, broken = 0, all_clients = (1 << d->nclients) - 1, clients = all_clients;
    double seconds = 0.15;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--lock") == 0 && i + 1 < argc && nonly < 64)
            only[nonly++] = argv[++i];
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (strcmp(argv[i], "--duration") == 0 && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (strcmp(argv[i], "--broken") == 0)
            broken = 1;
        else if (strcmp(argv[i], "--client") == 0 && i + 1 < argc) {
            const char *c = argv[++i];
            clients = strcmp(c, "all") == 0 ? all_clients : 0;
            for (int k = 0; k < d->nclients; k++)
                if (strcmp(c, d->client_names[k]) == 0)
                    clients = 1 << k;
            if (!clients)
                return vd_bad_client(d, c);
        } else {
            fprintf(stderr, "%s: bad argument '%s' (valid: --client C, --threads N, --duration S, --lock SPEC, --broken)\n",
                    d->prog, argv[i]);
            return 2;
        }
    }
    snprintf(vd_hang, sizeof vd_hang, "FAIL   %s watchdog: a case made no progress for %u s (hang): ", d->prog,
             d->watchdog_s);
    signal(SIGALRM, vd_watchdog);
    char topo_err[256];
    if (ll_topology_init_from_env(topo_err, sizeof topo_err) != 0) { /* NUMA-aware locks read it at creation */
        fprintf(stderr, "%s: %s\n", d->prog, topo_err);
        return 2;
    }
    if (broken) {
        /* Up to 20 rounds: the checker must catch the broken lock. */
        int caught = 0;
        for (int round = 0; round < 20 && !caught; round++)
            caught = !d->broken_round(threads);
        printf("%s ", caught ? "ok" : "FAIL");
        printf(d->broken_line, caught ? "caught" : "NOT caught");
        printf("\n%d passed, %d failed\n", caught, !caught);
        return caught ? 0 : 1;
    }
    const char *all[256];
    vd_spec_list list = {all, 0};
    if (nonly) {
        memcpy(all, only, sizeof(char *) * (size_t)nonly);
        list.n = nonly;
    } else {
        d->list(vd_collect, &list);
    }
    static const int thread_counts[] = {2, 3, 8};
    int passed = 0, failed = 0;
    for (int s = 0; s < list.n; s++)
        for (int c = 0; c < d->nclients; c++) {
            if (!(clients & (1 << c)))
                continue;
            int once = threads || (d->once & (1u << c));
            for (int t = 0; t < (once ? 1 : 3); t++) {
                int n = threads ? threads : thread_counts[t];
                snprintf(vd_case, sizeof vd_case, "%s %s threads=%d", list.specs[s], d->client_names[c], n);
                alarm(d->watchdog_s);
                int ok = d->validate(list.specs[s], c, n, seconds);
                alarm(0);
                fflush(stdout);
                ok ? passed++ : failed++;
            }
        }
    for (int s = 0; !nonly && s < list.n; s++)
        free((void *)list.specs[s]);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

/* n zeroed bytes, sector-aligned (a case's shared block and workers: no false sharing
 * with their neighbours); free() them. */
static void *vd_zalloc(size_t n)
{
    void *p = aligned_alloc(LL_SECTOR, (n + LL_SECTOR - 1) / LL_SECTOR * LL_SECTOR);
    if (!p) {
        perror("aligned_alloc");
        exit(1);
    }
    return memset(p, 0, n);
}

/* A case's run: `threads` workers, worker i running fn(workers + i * stride), for `seconds`;
 * then *stop set (the workers' loop condition) and all joined. */
static void vd_run(int threads, test_thread_fn fn, void *workers, size_t stride, double seconds, ll_atomic_u32 *stop)
{
    pthread_t *t = (pthread_t *)malloc(sizeof(pthread_t) * (size_t)threads);
    if (!t) {
        perror("malloc");
        exit(1);
    }
    test_start_n(t, threads, fn, workers, stride);
    test_sleep_us((long)(seconds * 1e6));
    ll_store_relaxed(stop, 1); /* relaxed: a stop hint; the joins order the rest */
    test_join_n(t, threads);
    free(t);
}

/* A case's workers, in a validator whose source names them `worker` (members sh and index)
 * and their loop worker_main: `threads` of them, zeroed but for sh (SH) and their index,
 * run for `seconds` over SH until SH->stop (vd_run).  Yields them: free() them. */
#define VD_RUN_WORKERS(SH, THREADS, SECONDS)                                                             \
    ({                                                                                                   \
        worker *ws_ = (worker *)vd_zalloc(sizeof(worker) * (size_t)(THREADS));                           \
        for (int t_ = 0; t_ < (THREADS); t_++) {                                                         \
            ws_[t_].sh = (SH);                                                                           \
            ws_[t_].index = t_;                                                                          \
        }                                                                                                \
        vd_run((THREADS), worker_main, ws_, sizeof(worker), (SECONDS), &(SH)->stop);                     \
        ws_;                                                                                             \
    })

/* The main of a validator whose source names its parts after the driver's fields
 * (client_names, NCLIENTS, validate, broken_round); the other fields are the arguments:
 *   VALIDATOR_MAIN(.prog = "validator", .broken_line = "...", .watchdog_s = 120, .list = ll_lock_list) */
#define VALIDATOR_MAIN(...)                                                                              \
    int main(int argc, char **argv)                                                                      \
    {                                                                                                    \
        static const validator_driver d = {.client_names = client_names, .nclients = NCLIENTS,          \
                                           .validate = validate, .broken_round = broken_round, __VA_ARGS__}; \
        return validator_main(&d, argc, argv);                                                           \
    }
#endif
