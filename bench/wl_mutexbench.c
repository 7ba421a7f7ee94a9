/*
 * mutexbench — TWA paper §4.1.  T threads loop { acquire; critical section:
 * advance a thread-local PRNG cs_steps (4) steps; release; non-critical
 * section: draw n uniform in [0, ncs_max) (200) and advance the PRNG n steps }.
 * The paper uses std::mt19937; we use xorshift64, so absolute step costs differ.
 *
 * harness_lines=0 is for locklab-sim: the paper's MutexBench writes no shared
 * data in its critical section, but every harness here records each admission
 * in two shared lines (the admission counter and the log: the mutual-exclusion
 * check and the fairness metrics).  With 0 the simulator keeps that record
 * outside simulated memory, so the simulated serial section is the paper's.
 * locklab-bench cannot record an admission for free and refuses 0.
 */
#include <stdio.h>

#include "bench.h"

enum { P_CS_STEPS, P_NCS_MAX, P_HARNESS_LINES };
static const bench_param params[] = {
    {"cs_steps", "PRNG steps inside the critical section", 4, 0, 1e6, 1},
    {"ncs_max", "non-critical section: uniform [0, ncs_max) PRNG steps", 200, 1, 1e8, 1},
    {"harness_lines", "1: admissions recorded in shared lines; 0: outside simulated memory (locklab-sim only)", 1, 0, 1,
     1},
    {0},
};

static void body(bench_thread *t)
{
    ll_lock *lock = t->sh->lock;
    uint64_t cs_steps = (uint64_t)t->sh->cfg->param[P_CS_STEPS];
    uint64_t ncs_max = (uint64_t)t->sh->cfg->param[P_NCS_MAX];
    uint64_t rng = t->rng;
    while (!bench_stopping(t)) {
        if (!bench_enter(t, lock))
            break;
        for (uint64_t i = 0; i < cs_steps; i++)
            rng = bench_xorshift(rng);
        ll_lock_release(lock);
        t->ops++;
        uint64_t steps = (uint64_t)(((unsigned __int128)(rng >> 11) * ncs_max) >> 53);
        for (uint64_t i = 0; i < steps; i++)
            rng = bench_xorshift(rng);
        ll_compiler_barrier();
    }
    t->rng = rng; /* keeps the loops alive */
}

static int run(ll_lock *lock, const bench_config *cfg, bench_result *out)
{
    if (cfg->param[P_HARNESS_LINES] == 0) {
        fprintf(stderr, "locklab-bench: mutexbench harness_lines=0 is for locklab-sim only (valid here: 1; the "
                        "shared admission record is the mutual-exclusion check)\n");
        return BENCH_REFUSED;
    }
    return bench_run_threads(lock, cfg, out, NULL, body);
}

const workload wl_mutexbench = {"mutexbench", "TWA paper 4.1: CS 4 PRNG steps, NCS uniform [0,200) steps", params,
                                run};
