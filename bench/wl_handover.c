/*
 * handover — lock handover latency: the time from a release to the return of
 * the next acquire by a different thread (the successor).  The holder stamps
 * ll_now_ns() into a word protected by the lock just before releasing it; each
 * acquirer reads the stamp right after acquiring and, when the previous holder
 * was another thread, records now - stamp.  A re-acquisition by the same
 * thread (barging, CR) is not a handover and is not sampled.  The measure
 * follows the handover path the TWA paper (§1-§3) and the Malthusian paper
 * reason about; no paper figure reports it directly.
 *
 * Loop: acquire; sample; cs_steps (4) PRNG steps; stamp; release; ncs_steps
 * (0) PRNG steps.  With ncs_steps=0 the lock stays saturated, so a sample is
 * pure handover; with a long NCS a sample also contains time the lock lay free.
 * Samples go to per-thread buffers of max_samples (65536) entries allocated
 * before the interval; later handovers are counted but not kept.
 *
 * Parameters: cs_steps (4), ncs_steps (0), max_samples (65536).  Needs >= 2 threads.
 * Extras: handover_p50_ns, handover_p99_ns, handover_mean_ns (over the kept
 * samples, nearest-rank percentiles; left out if there were none), handovers
 * (count), handover_samples (kept).
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

enum { P_CS_STEPS, P_NCS_STEPS, P_MAX_SAMPLES };
static const bench_param params[] = {
    {"cs_steps", "PRNG steps inside the critical section", 4, 0, 1e6, 1},
    {"ncs_steps", "PRNG steps outside the critical section", 0, 0, 1e8, 1},
    {"max_samples", "latency samples kept per thread", 65536, 1, 1 << 24, 1},
    {0},
};

typedef struct handover_ctx {
    uint64_t stamp_ns; /* protected by the lock under test: when the last holder released */
    int last_holder;   /* protected by the lock; -1 before the first release */
    uint64_t **samples;       /* per thread, max_samples entries */
    uint64_t *kept, *handovers; /* per thread, written once at the end */
    uint64_t max_samples, cs_steps, ncs_steps;
} handover_ctx;

static void body(bench_thread *t)
{
    ll_lock *lock = t->sh->lock;
    handover_ctx *c = t->sh->ctx;
    uint64_t *samples = c->samples[t->index];
    const uint64_t max_samples = c->max_samples, cs_steps = c->cs_steps, ncs_steps = c->ncs_steps;
    const int self = t->index;
    uint64_t rng = t->rng, kept = 0, handovers = 0;
    while (!bench_stopping(t)) {
        ll_lock_acquire(lock);
        uint64_t acquired = ll_now_ns();
        if (!bench_admit(t)) {
            ll_lock_release(lock);
            break;
        }
        if (c->last_holder != self && c->last_holder >= 0) {
            if (kept < max_samples)
                samples[kept++] = acquired - c->stamp_ns;
            handovers++;
        }
        for (uint64_t i = 0; i < cs_steps; i++)
            rng = bench_xorshift(rng);
        c->last_holder = self;
        c->stamp_ns = ll_now_ns();
        ll_lock_release(lock);
        t->ops++;
        for (uint64_t i = 0; i < ncs_steps; i++)
            rng = bench_xorshift(rng);
        ll_compiler_barrier();
    }
    c->kept[t->index] = kept;
    c->handovers[t->index] = handovers;
    t->rng = rng; /* keeps the loops alive */
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int run(ll_lock *lock, const bench_config *cfg, bench_result *out)
{
    int n = cfg->threads;
    if (n < 2) {
        fprintf(stderr, "locklab-bench: bad value '%d' for --threads (valid: handover needs at least 2)\n", n);
        exit(2);
    }
    handover_ctx c = {.last_holder = -1,
                      .max_samples = (uint64_t)cfg->param[P_MAX_SAMPLES],
                      .cs_steps = (uint64_t)cfg->param[P_CS_STEPS],
                      .ncs_steps = (uint64_t)cfg->param[P_NCS_STEPS]};
    c.samples = calloc((size_t)n, sizeof(uint64_t *));
    c.kept = calloc((size_t)n, sizeof(uint64_t));
    c.handovers = calloc((size_t)n, sizeof(uint64_t));
    uint64_t *all = malloc((size_t)n * c.max_samples * sizeof(uint64_t));
    if (!c.samples || !c.kept || !c.handovers || !all)
        return -1;
    for (int t = 0; t < n; t++) {
        c.samples[t] = all + (size_t)t * c.max_samples;
        for (uint64_t i = 0; i < c.max_samples; i += 512) /* fault the pages in before the interval */
            c.samples[t][i] = 0;
    }
    int rc = bench_run_threads(lock, cfg, out, &c, body);
    if (rc == 0) {
        /* Compact the kept samples to the front of `all`, then sort. */
        uint64_t total = 0, handovers = 0;
        double sum = 0;
        for (int t = 0; t < n; t++) {
            for (uint64_t i = 0; i < c.kept[t]; i++) {
                all[total++] = c.samples[t][i];
                sum += (double)c.samples[t][i];
            }
            handovers += c.handovers[t];
        }
        qsort(all, total, sizeof(uint64_t), compare_u64);
        if (total) {
            bench_add_extra(out, "handover_p50_ns", (double)all[(total + 1) / 2 - 1]);
            bench_add_extra(out, "handover_p99_ns", (double)all[(total * 99 + 99) / 100 - 1]);
            bench_add_extra(out, "handover_mean_ns", sum / (double)total);
        }
        bench_add_extra(out, "handovers", (double)handovers);
        bench_add_extra(out, "handover_samples", (double)total);
    }
    free(all);
    free(c.samples);
    free(c.kept);
    free(c.handovers);
    return rc;
}

const workload wl_handover = {"handover", "release-to-successor latency (p50/p99 ns), saturated lock", params, run};
