/* The simulator's workloads (workloads.c) and what main.c needs of them. */
#ifndef LOCKLAB_SIM_SIMWL_H
#define LOCKLAB_SIM_SIMWL_H

#include "bench.h" /* bench_param, bench_result: locklab-bench's (bench/) */
#include "sim.h"

typedef struct wl_run wl_run;
typedef struct sim_workload {
    const workload *bench;   /* locklab-bench's: name, summary, parameters (keys, defaults, ranges) */
    int (*setup)(wl_run *r); /* may be NULL */
    void (*body)(wl_run *r, int index);
    void (*finish)(wl_run *r, bench_result *out); /* extras; may be NULL */
    bool rwlock;                                   /* --lock is an rwlock spec (setup creates it) */
} sim_workload;
extern const sim_workload sim_workloads[]; /* terminated by a NULL bench */

struct wl_run {
    const sim_workload *workload;
    const sim_machine *machine;
    ll_lock *lock;       /* NULL for an rwlock workload */
    const char *spec;    /* --lock as given */
    const double *param; /* in the order of workload->params */
    int threads;
    void *ctx;
    /* the admission record (bench/harness.c's); plain: only the holder writes */
    LL_ALIGNED(LL_SECTOR) uint64_t admitted;
    bool in_cs, violated;
    uint16_t *log;
    size_t logcap;
    uint64_t *ops, *rng;
    wait_hist *waits; /* per thread: every acquisition's wait in simulated ns (free: no simulated clock read) */
    int *socket;
    sim_outcome outcome;
    sim_stats stats;
};

/* Run r->workload under cfg; fills out as locklab-bench's harness does. */
int sim_workload_run(wl_run *r, const sim_config *cfg, bench_result *out);

#endif
