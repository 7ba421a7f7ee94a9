/*
 * Workloads of locklab-bench.
 *
 * uncontended  One thread acquires and releases one lock in a loop while a
 *              second thread exists but sleeps (glibc takes cheaper paths in a
 *              single-threaded process).  Reports ns per acquire+release pair.
 * mutexbench   TWA paper §4.1: T threads loop { acquire; critical section:
 *              advance a thread-local PRNG 4 steps; release; non-critical
 *              section: draw n uniform in [0,200) and advance the PRNG n
 *              steps }.  The paper uses std::mt19937; we use xorshift64, so
 *              absolute step costs differ.
 * mutexbench records the admission order inside the critical section (one
 * 2-byte store and a shared non-atomic counter, which also checks mutual
 * exclusion); uncontended times the bare acquire+release pair.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "bench.h"
#include "locklab/core.h"

#define LOG_CAPACITY (128u << 20) /* admissions recorded (256 MiB of address space, touched as used) */

typedef struct shared {
    ll_lock *lock;
    LL_ALIGNED(LL_SECTOR) ll_atomic_u32 go;
    ll_atomic_u32 stop;
    ll_atomic_u32 ready;
    LL_ALIGNED(LL_SECTOR) uint64_t admitted; /* protected by the lock under test */
    uint16_t *log;
} shared;

typedef struct worker {
    LL_ALIGNED(LL_SECTOR) shared *sh;
    pthread_t tid;
    uint16_t index;
    uint64_t ops;
    int socket;
} worker;

static void *alloc_log(void)
{
    void *p = mmap(NULL, (size_t)LOG_CAPACITY * sizeof(uint16_t), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* The critical section's bookkeeping: admission order + exclusion check. */
static inline void record_admission(shared *sh, uint16_t me)
{
    uint64_t n = sh->admitted;
    if (n < LOG_CAPACITY)
        sh->log[n] = me;
    sh->admitted = n + 1;
}

static inline uint64_t xorshift(uint64_t x)
{
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
}

static void *mutexbench_worker(void *arg)
{
    worker *w = (worker *)arg;
    shared *sh = w->sh;
    uint64_t rng = 0x9E3779B97F4A7C15ull * (w->index + 1);
    w->socket = ll_current_socket(); /* registers the thread: virtual sockets go round robin */
    ll_faa(&sh->ready, 1, LL_RELAXED);
    while (ll_load_acquire(&sh->go) == 0) /* acquire: pairs with main's release of go */
        ll_pause();
    uint64_t ops = 0;
    while (ll_load_relaxed(&sh->stop) == 0) { /* relaxed: a stop hint, results joined later */
        ll_lock_acquire(sh->lock);
        if (ll_load_relaxed(&sh->stop) != 0) { /* admitted after the interval: not counted */
            ll_lock_release(sh->lock);
            break;
        }
        record_admission(sh, w->index);
        for (int i = 0; i < 4; i++)
            rng = xorshift(rng);
        ll_lock_release(sh->lock);
        ops++;
        uint64_t steps = ((rng >> 11) * 200) >> 53;
        for (uint64_t i = 0; i < steps; i++)
            rng = xorshift(rng);
        ll_compiler_barrier();
    }
    w->ops = ops + (rng == 0); /* rng use keeps the loops alive; rng is never 0 */
    return NULL;
}

/* Parks forever until released: makes the process multi-threaded. */
static ll_atomic_u32 sleeper_release;
static void *sleeper(void *arg)
{
    (void)arg;
    while (ll_load_acquire(&sleeper_release) == 0) /* acquire: pairs with the release store below */
        ll_futex_wait(&sleeper_release, 0);
    return NULL;
}

static double seconds_since(uint64_t t0) { return (double)(ll_now_ns() - t0) / 1e9; }

static void usage_snapshot(long *vcsw, long *ivcsw, double *cpu)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    *vcsw = ru.ru_nvcsw;
    *ivcsw = ru.ru_nivcsw;
    *cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

static int alloc_result(bench_result *out, int threads)
{
    memset(out, 0, sizeof *out);
    out->per_thread_ops = calloc((size_t)threads, sizeof(uint64_t));
    out->thread_socket = calloc((size_t)threads, sizeof(int));
    out->admissions = alloc_log();
    return out->per_thread_ops && out->thread_socket && out->admissions ? 0 : -1;
}

void bench_result_free(bench_result *r)
{
    free(r->per_thread_ops);
    free(r->thread_socket);
    if (r->admissions)
        munmap(r->admissions, (size_t)LOG_CAPACITY * sizeof(uint16_t));
}

static int run_mutexbench(ll_lock *lock, const bench_config *cfg, bench_result *out)
{
    if (alloc_result(out, cfg->threads) != 0)
        return -1;
    shared *sh = aligned_alloc(LL_SECTOR, sizeof(shared));
    memset(sh, 0, sizeof *sh);
    sh->lock = lock;
    sh->log = out->admissions;
    worker *ws = aligned_alloc(LL_SECTOR, sizeof(worker) * (size_t)cfg->threads);
    memset(ws, 0, sizeof(worker) * (size_t)cfg->threads);
    for (int t = 0; t < cfg->threads; t++) {
        ws[t].sh = sh;
        ws[t].index = (uint16_t)t;
        if (pthread_create(&ws[t].tid, NULL, mutexbench_worker, &ws[t]) != 0) {
            fprintf(stderr, "locklab-bench: cannot create thread %d of %d\n", t + 1, cfg->threads);
            exit(1);
        }
    }
    while (ll_load_relaxed(&sh->ready) != (uint32_t)cfg->threads) /* relaxed: just a start barrier */
        ll_yield();
    long v0, iv0;
    double c0;
    usage_snapshot(&v0, &iv0, &c0);
    uint64_t t0 = ll_now_ns();
    ll_store_release(&sh->go, 1); /* release: workers start */
    struct timespec ts = {(time_t)cfg->duration_s, (long)((cfg->duration_s - (double)(time_t)cfg->duration_s) * 1e9)};
    nanosleep(&ts, NULL);
    ll_store_relaxed(&sh->stop, 1); /* relaxed: joins below order everything */
    for (int t = 0; t < cfg->threads; t++)
        pthread_join(ws[t].tid, NULL);
    out->wall_s = seconds_since(t0);
    usage_snapshot(&out->vcsw, &out->ivcsw, &out->cpu_s);
    out->vcsw -= v0;
    out->ivcsw -= iv0;
    out->cpu_s -= c0;
    for (int t = 0; t < cfg->threads; t++) {
        out->per_thread_ops[t] = ws[t].ops;
        out->thread_socket[t] = ws[t].socket;
        out->ops += ws[t].ops;
    }
    out->logged = sh->admitted < LOG_CAPACITY ? sh->admitted : LOG_CAPACITY;
    out->exclusion_ok = sh->admitted == out->ops;
    free(ws);
    free(sh);
    return 0;
}

static int run_uncontended(ll_lock *lock, const bench_config *cfg, bench_result *out)
{
    if (cfg->threads != 1) {
        fprintf(stderr, "locklab-bench: uncontended runs 1 thread (got --threads %d)\n", cfg->threads);
        exit(2);
    }
    if (alloc_result(out, 1) != 0)
        return -1;
    pthread_t s;
    ll_store_relaxed(&sleeper_release, 0);
    pthread_create(&s, NULL, sleeper, NULL);
    out->thread_socket[0] = ll_current_socket();
    for (int i = 0; i < 100000; i++) { /* warm up caches, branch predictors, node cache */
        ll_lock_acquire(lock);
        ll_lock_release(lock);
    }
    long v0, iv0;
    double c0;
    usage_snapshot(&v0, &iv0, &c0);
    enum { BATCH = 10000 };
    uint64_t t0 = ll_now_ns(), deadline = t0 + (uint64_t)(cfg->duration_s * 1e9), pairs = 0, now;
    do {
        for (int i = 0; i < BATCH; i++) {
            ll_lock_acquire(lock);
            ll_lock_release(lock);
        }
        pairs += BATCH;
    } while ((now = ll_now_ns()) < deadline);
    out->wall_s = (double)(now - t0) / 1e9;
    usage_snapshot(&out->vcsw, &out->ivcsw, &out->cpu_s);
    out->vcsw -= v0;
    out->ivcsw -= iv0;
    out->cpu_s -= c0;
    out->ops = pairs;
    out->per_thread_ops[0] = pairs;
    out->ns_per_pair = (double)(now - t0) / (double)pairs;
    out->admissions[0] = 0; /* one thread: the history is trivially "0 0 0 ..." */
    out->logged = 1;
    out->exclusion_ok = 1;  /* nothing to check with one thread */
    ll_store_release(&sleeper_release, 1); /* release: let the sleeper exit */
    ll_futex_wake(&sleeper_release, 1);
    pthread_join(s, NULL);
    return 0;
}

static const workload w_uncontended = {"uncontended", "ns per acquire+release pair, one thread (a second one sleeps)",
                                       run_uncontended};
static const workload w_mutexbench = {"mutexbench", "TWA paper 4.1: CS 4 PRNG steps, NCS uniform [0,200) steps",
                                      run_mutexbench};
const workload *const workloads[] = {&w_uncontended, &w_mutexbench, NULL};
