/*
 * locklab-bench internals.  A workload runs one measurement and fills a
 * bench_result; most workloads are a per-thread body handed to the shared
 * harness (bench_run_threads), which starts the threads together, stops them
 * after the duration, records the admission order and the rusage deltas.
 *
 * A thread body follows this shape (the admission check also verifies mutual
 * exclusion with a non-atomic counter):
 *
 *     while (!bench_stopping(t)) {
 *         if (!bench_enter(t, lock))   // acquire and admit; released again after the interval
 *             break;
 *         ... critical section ...
 *         ll_lock_release(lock);
 *         t->ops++;
 *         ... non-critical section ...
 *     }
 */
#ifndef LOCKLAB_BENCH_H
#define LOCKLAB_BENCH_H
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "locklab/core.h"
#include "locklab/locklab.h"
#include "metrics.h"

#define BENCH_MAX_PARAMS 16
#define BENCH_MAX_EXTRAS 12
#define BENCH_LOG_CAPACITY (128u << 20) /* admissions recorded (256 MiB of address space, touched as used) */

/* A workload parameter, given as --param key=value; values are doubles checked against [min, max]. */
typedef struct bench_param {
    const char *key;
    const char *help;
    double def, min, max;
    int integer; /* 1: the value must be a whole number */
} bench_param;
/* Parameters whose values are names (alternative=local-readyq): the valid names of
 * key (names(i), i = 0, 1, ...; NULL past the last), or NULL for a numeric key.  The
 * value is the name's index; def, min and max are indices too (workloads.c); --json
 * prints the name. */
typedef const char *(*bench_names_fn)(unsigned i);
bench_names_fn bench_param_names(const char *key);

typedef struct bench_config {
    const char *workload;
    const bench_param *params; /* the workload's (--json prints the named ones by name) */
    const char *lock_spec;
    unsigned long long spin_ns; /* effective spin budget of the lock's policy, 0 if none */
    int threads;
    double duration_s;
    double param[BENCH_MAX_PARAMS]; /* in the order of the workload's params */
    int waits; /* --waits: time every acquisition (bench_enter), extras wait_max_ns, wait_p99_ns, wait_p999_ns */
} bench_config;

typedef struct bench_extra {
    const char *name; /* JSON key: lower_case, a literal */
    double value;
} bench_extra;

typedef struct bench_result {
    double wall_s;
    uint64_t ops;
    uint64_t *per_thread_ops; /* threads entries */
    int *thread_socket;       /* threads entries */
    uint16_t *admissions;     /* admission history (prefix, if the log filled up) */
    size_t logged;
    int exclusion_ok;         /* the unprotected counter matched the sum of per-thread ops */
    double ns_per_pair;       /* uncontended only; 0 otherwise */
    long vcsw, ivcsw;
    double cpu_s;
    bench_extra extra[BENCH_MAX_EXTRAS]; /* workload-specific results */
    int nextra;
} bench_result;

/* run's result: 0, -1 (out of memory) or BENCH_REFUSED (it printed one line on a
 * parameter value it cannot honour here: exit status 2). */
enum { BENCH_REFUSED = -2 };

typedef struct workload {
    const char *name;
    const char *summary;
    const bench_param *params; /* NULL or terminated by {NULL} */
    int (*run)(ll_lock *lock, const bench_config *cfg, bench_result *out);
} workload;

extern const workload *const workloads[]; /* NULL-terminated */
/* rwbench's extras (bench/wl_rwbench.c; the simulator's rwbench too): per-thread reads and
 * writes, and the merged waits of each role. */
void rwbench_extras(bench_result *out, const uint64_t *reads, const uint64_t *writes, int n, const wait_hist *rwait,
                    const wait_hist *wwait);
void bench_result_free(bench_result *r);
int bench_result_alloc(bench_result *out, int threads);
void bench_add_extra(bench_result *r, const char *name, double value);
/* The extras wait_max_ns, wait_p99_ns, wait_p999_ns of a run's merged acquisition waits. */
void bench_add_wait_extras(bench_result *r, const wait_hist *h);
/* The process's voluntary / involuntary context switches and CPU seconds so far. */
void bench_usage_snapshot(long *vcsw, long *ivcsw, double *cpu);
/* Workloads touch their data before the interval: a footprint of `bytes` over
 * half the physical memory is bad input (one line naming `what`, exit 2). */
void bench_require_memory(const bench_config *cfg, double bytes, const char *what);

/* ---- the JSON contract (json.c) ---- */
/* Whole numbers (counts) exactly, anything else with 6 significant digits. */
const char *bench_format_extra(double v, char *buf, size_t len);
/* One result as a JSON object on stdout, without its closing brace: the caller may
 * add keys (",\"key\":value") and closes it. */
void bench_print_json_fields(const bench_config *cfg, const bench_result *r, const fairness *f, bool oversubscribed,
                             const char *topology);

/* ---- the thread harness ---- */

typedef struct bench_shared {
    ll_lock *lock;
    const bench_config *cfg;
    void *ctx; /* the workload's shared state */
    LL_ALIGNED(LL_SECTOR) ll_atomic_u32 go;
    ll_atomic_u32 stop;
    ll_atomic_u32 ready;
    LL_ALIGNED(LL_SECTOR) uint64_t admitted; /* protected by the lock under test */
    uint16_t *log;
} bench_shared;

typedef struct bench_thread {
    LL_ALIGNED(LL_SECTOR) bench_shared *sh;
    pthread_t tid;
    int index;
    int socket;
    uint64_t ops;  /* the body counts its completed operations here */
    uint64_t rng;  /* seeded per thread, never 0 */
    void *local;   /* the body's private state, if it wants one */
    wait_hist *waits; /* with --waits: this thread's acquisition waits (bench_enter), else NULL */
} bench_thread;

typedef void (*bench_body)(bench_thread *t);

/* Runs body on cfg->threads threads for cfg->duration_s; fills out (ops, per-thread
 * ops, sockets, admissions, exclusion check, rusage).  Returns -1 out of memory. */
int bench_run_threads(ll_lock *lock, const bench_config *cfg, bench_result *out, void *ctx, bench_body body);

/* size bytes, sector-aligned (a workload's shared and per-thread records) and zeroed; NULL
 * out of memory.  free() releases them. */
static inline void *bench_zalloc(size_t size)
{
    void *p = NULL;
    if (posix_memalign(&p, LL_SECTOR, size) != 0)
        return NULL;
    memset(p, 0, size);
    return p;
}

static inline int bench_stopping(const bench_thread *t)
{
    return ll_load_relaxed(&t->sh->stop) != 0; /* relaxed: a stop hint, results are joined later */
}

/* Call first thing in the critical section.  0: the interval is over (release
 * and leave, this admission is not counted); 1: admission recorded. */
static inline int bench_admit(bench_thread *t)
{
    bench_shared *sh = t->sh;
    if (bench_stopping(t))
        return 0;
    uint64_t n = sh->admitted;
    if (n < BENCH_LOG_CAPACITY)
        sh->log[n] = (uint16_t)t->index;
    sh->admitted = n + 1;
    return 1;
}

/* ll_lock_acquire then bench_admit: 1 admitted, holding lock; 0 the interval
 * is over (lock released again: leave). */
static inline int bench_enter(bench_thread *t, ll_lock *lock)
{
    if (LL_UNLIKELY(t->waits != NULL)) {
        uint64_t t0 = ll_now_ns();
        ll_lock_acquire(lock);
        wait_hist_add(t->waits, ll_now_ns() - t0);
    } else {
        ll_lock_acquire(lock);
    }
    if (!bench_admit(t)) {
        ll_lock_release(lock);
        return 0;
    }
    return 1;
}

/* The non-critical section's parameter of the key-set workloads (keymap, lrucache, randarray). */
#define BENCH_NCS_STEPS_PARAM {"ncs_steps", "PRNG steps in the non-critical section", 1000, 0, 1e8, 1}

static inline uint64_t bench_xorshift(uint64_t x)
{
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
}

/* Uniform in [0, n) from the thread's generator. */
static inline uint64_t bench_rand_below(bench_thread *t, uint64_t n)
{
    t->rng = bench_xorshift(t->rng);
    return (uint64_t)(((unsigned __int128)t->rng * n) >> 64);
}

#endif
