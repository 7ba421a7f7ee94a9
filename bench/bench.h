/* locklab-bench internals: a workload runs one measurement and fills a result. */
#ifndef LOCKLAB_BENCH_H
#define LOCKLAB_BENCH_H
#include <stdint.h>

#include "locklab/locklab.h"
#include "metrics.h"

typedef struct bench_config {
    const char *workload;
    const char *lock_spec;
    unsigned long long spin_ns; /* effective spin budget of the lock's policy, 0 if none */
    int threads;
    double duration_s;
} bench_config;

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
} bench_result;

typedef struct workload {
    const char *name;
    const char *summary;
    int (*run)(ll_lock *lock, const bench_config *cfg, bench_result *out);
} workload;

extern const workload *const workloads[]; /* NULL-terminated */
void bench_result_free(bench_result *r);

#endif
