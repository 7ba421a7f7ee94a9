/*
 * invalidation — twa-ticket-waiting-array.txt, Fig. 1 (the Invalidation
 * Diameter benchmark).  Thread 0 is the writer: it loops on an atomic
 * fetch-and-add to a shared word that sits alone in its 128-byte sector.  The
 * other T-1 threads are readers looping on loads: of that same word
 * (same_line=1, the paper's setting: every add must invalidate the readers'
 * copies) or of a word in a different sector (same_line=0, the control: no
 * invalidations).  The writer's throughput shows the cost of the invalidation
 * diameter, which is what a ticket lock's grant field pays at handover.
 *
 * The lock under test is not used (locklab-bench still requires --lock; any
 * spec does; it is not touched).  How to read the harness metrics here:
 * per_thread_ops[i] is thread i's loop count (adds for thread 0, loads for the
 * others) and ops their sum; there are no admissions, so lwss, mttr and
 * socket_switches describe an empty history and mean nothing; gini/rstddev
 * compare loop counts; exclusion_ok is true because there is nothing to check.
 *
 * Parameters: same_line (1).
 * Extras: writer_ops_s (writer adds per second: the paper's y-axis),
 * reader_loads_s (all readers' loads per second).
 * Differs from the paper: one run per invocation (the paper took the median of
 * 100 because of NUMA placement; use --runs), and on 2 cores at most one
 * reader runs beside the writer at a time.
 */
#include "bench.h"

enum { P_SAME_LINE };
static const bench_param params[] = {
    {"same_line", "1: readers load the written word; 0: a word in another sector", 1, 0, 1, 1},
    {0},
};

typedef struct invalidation_ctx {
    LL_ALIGNED(LL_SECTOR) ll_atomic_u64 written;
    LL_ALIGNED(LL_SECTOR) ll_atomic_u64 elsewhere;
    LL_ALIGNED(LL_SECTOR) int same_line;
} invalidation_ctx;

static void body(bench_thread *t)
{
    invalidation_ctx *c = t->sh->ctx;
    uint64_t loops = 0;
    if (t->index == 0) {
        while (!bench_stopping(t)) {
            ll_faa(&c->written, 1, LL_RELAXED); /* relaxed: only the line's coherence traffic is measured */
            loops++;
        }
    } else {
        ll_atomic_u64 *watched = c->same_line ? &c->written : &c->elsewhere;
        uint64_t sum = 0;
        while (!bench_stopping(t)) {
            sum += ll_load_relaxed(watched); /* relaxed: a plain read of the line, nothing is published */
            loops++;
        }
        t->local = (void *)(uintptr_t)sum; /* keeps the loads alive */
    }
    t->ops = loops;
}

static int run(ll_lock *lock, const bench_config *cfg, bench_result *out)
{
    static invalidation_ctx c;
    ll_store_relaxed(&c.written, 0); /* relaxed: before the threads start */
    ll_store_relaxed(&c.elsewhere, 0);
    c.same_line = cfg->param[P_SAME_LINE] != 0;
    int rc = bench_run_threads(lock, cfg, out, &c, body);
    if (rc != 0)
        return rc;
    /* No admissions, nothing to check: the harness compared 0 admissions with the loop counts. */
    out->exclusion_ok = 1;
    bench_add_extra(out, "writer_ops_s", (double)out->per_thread_ops[0] / out->wall_s);
    bench_add_extra(out, "reader_loads_s", (double)(out->ops - out->per_thread_ops[0]) / out->wall_s);
    return 0;
}

const workload wl_invalidation = {"invalidation",
                                  "TWA Fig. 1: one fetch-and-add writer, T-1 readers; writer_ops_s (lock unused)",
                                  params, run};
