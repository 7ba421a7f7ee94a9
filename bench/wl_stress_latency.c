/*
 * stress-latency — malthusian-locks.txt §6.3, the stress_latency benchmark of
 * libslock (David et al. 2013), run there as "-a 200 -p 5000": T threads loop
 * { acquire; delay loop of cs_iters (200) iterations; release; delay loop of
 * ncs_iters (5000) iterations }.  Cycle-bound: the only shared location is the
 * lock itself, and the NCS touches no memory.
 *
 * Parameters: cs_iters (200), ncs_iters (5000).
 * Differs from libslock: the delay loop is an empty counted loop that the
 * compiler cannot remove (the counter passes through an asm statement each
 * iteration), about one cycle per iteration, not libslock's own delay routine.
 */
#include "bench.h"

enum { P_CS_ITERS, P_NCS_ITERS };
static const bench_param params[] = {
    {"cs_iters", "delay-loop iterations inside the critical section", 200, 0, 1e9, 1},
    {"ncs_iters", "delay-loop iterations outside the critical section", 5000, 0, 1e9, 1},
    {0},
};

static inline void delay_loop(uint64_t iterations)
{
    for (uint64_t i = 0; i < iterations; i++)
        __asm__ __volatile__("" : "+r"(i)); /* opaque counter: the loop stays */
}

static void body(bench_thread *t)
{
    ll_lock *lock = t->sh->lock;
    const uint64_t cs_iters = (uint64_t)t->sh->cfg->param[P_CS_ITERS];
    const uint64_t ncs_iters = (uint64_t)t->sh->cfg->param[P_NCS_ITERS];
    while (!bench_stopping(t)) {
        if (!bench_enter(t, lock))
            break;
        delay_loop(cs_iters);
        ll_lock_release(lock);
        t->ops++;
        delay_loop(ncs_iters);
    }
}

static int run(ll_lock *lock, const bench_config *cfg, bench_result *out)
{
    return bench_run_threads(lock, cfg, out, NULL, body);
}

const workload wl_stress_latency = {"stress-latency", "Malthusian 6.3 (libslock): CS 200 delay iterations, NCS 5000",
                                    params, run};
