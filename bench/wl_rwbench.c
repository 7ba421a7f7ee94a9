/*
 * rwbench — a reader-writer workload: T threads loop { draw an operation: a read
 * with probability read_pct / 100, else a write; read: rdlock; critical section:
 * read the shared record (cs_steps PRNG steps over its words) and check it is
 * consistent; rdunlock.  write: wrlock; critical section: rewrite the record
 * (cs_steps PRNG steps); wrunlock; non-critical section: uniform [0, ncs_max)
 * PRNG steps }.  The lock is an rwlock spec (--lock pft-stp, bravo, pthread: see
 * --list-rwlocks); "pthread" is glibc's pthread_rwlock_t.
 *
 * Every acquisition's wait is timed per role.  Extras: reads, writes, read_ops_s,
 * write_ops_s, write_wait_max_ns, write_wait_p99_ns, read_wait_max_ns,
 * read_wait_p99_ns, and per-role fairness (max/min ops among the threads, of their
 * reads and of their writes: read_max_min, write_max_min).  The admission log and
 * the exclusion check cover the writes (readers share the lock, so they cannot
 * write the harness's plain counter): exclusion_ok also requires every reader to
 * have seen a consistent record.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "locklab/rwlock.h"

enum { P_READ_PCT, P_CS_STEPS, P_NCS_MAX };
static const bench_param params[] = {
    {"read_pct", "percentage of operations that read (the others write)", 90, 0, 100, 0},
    {"cs_steps", "PRNG steps inside each critical section (read or write)", 4, 0, 1e6, 1},
    {"ncs_max", "non-critical section: uniform [0, ncs_max) PRNG steps", 200, 1, 1e8, 1},
    {0},
};

typedef struct rw_ctx {
    ll_rwlock *rw;
    LL_ALIGNED(LL_SECTOR) uint64_t a, b; /* the record: b == a whenever no writer is inside */
    LL_ALIGNED(LL_SECTOR) ll_atomic_u64 inconsistent;
} rw_ctx;

typedef struct rw_local {
    uint64_t reads, writes;
    wait_hist rwait, wwait;
} rw_local;

static void body(bench_thread *t)
{
    rw_ctx *c = (rw_ctx *)t->sh->ctx;
    rw_local *me = (rw_local *)t->local;
    const bench_config *cfg = t->sh->cfg;
    uint64_t cs_steps = (uint64_t)cfg->param[P_CS_STEPS], ncs_max = (uint64_t)cfg->param[P_NCS_MAX];
    uint64_t read_below = (uint64_t)(cfg->param[P_READ_PCT] * 10.0 + 0.5); /* per mille */
    uint64_t rng = t->rng;
    while (!bench_stopping(t)) {
        rng = bench_xorshift(rng);
        bool read = (rng >> 11) % 1000 < read_below;
        uint64_t t0 = ll_now_ns();
        if (read) {
            ll_rwlock_rdlock(c->rw);
            wait_hist_add(&me->rwait, ll_now_ns() - t0);
            uint64_t a = *(volatile uint64_t *)&c->a, x = a;
            for (uint64_t i = 0; i < cs_steps; i++)
                x = bench_xorshift(x | 1);
            if (*(volatile uint64_t *)&c->b != a)
                ll_faa(&c->inconsistent, 1, LL_RELAXED); /* relaxed: a count read after the join */
            ll_rwlock_rdunlock(c->rw);
            rng ^= x & 1;
            me->reads++;
        } else {
            ll_rwlock_wrlock(c->rw);
            wait_hist_add(&me->wwait, ll_now_ns() - t0);
            if (!bench_admit(t)) {
                ll_rwlock_wrunlock(c->rw);
                break;
            }
            uint64_t x = c->a + 1;
            c->a = x;
            for (uint64_t i = 0; i < cs_steps; i++)
                x = bench_xorshift(x | 1);
            ll_compiler_barrier();
            c->b = c->a;
            ll_rwlock_wrunlock(c->rw);
            me->writes++;
        }
        t->ops++;
        uint64_t steps = (uint64_t)(((unsigned __int128)(rng >> 11) * ncs_max) >> 53);
        for (uint64_t i = 0; i < steps; i++)
            rng = bench_xorshift(rng);
        ll_compiler_barrier();
    }
    t->rng = rng;
}

static __thread rw_local *my_local;
static rw_local *locals;
static int nlocals;
static void body_with_local(bench_thread *t)
{
    t->local = &locals[t->index];
    my_local = t->local;
    body(t);
}

void rwbench_extras(bench_result *out, const uint64_t *reads, const uint64_t *writes, int n, const wait_hist *rwait,
                    const wait_hist *wwait)
{
    uint64_t nr = 0, nw = 0;
    for (int i = 0; i < n; i++)
        nr += reads[i], nw += writes[i];
    bench_add_extra(out, "reads", (double)nr);
    bench_add_extra(out, "writes", (double)nw);
    bench_add_extra(out, "read_ops_s", (double)nr / out->wall_s);
    bench_add_extra(out, "write_ops_s", (double)nw / out->wall_s);
    bench_add_extra(out, "write_wait_max_ns", (double)wwait->max_ns);
    bench_add_extra(out, "write_wait_p99_ns", (double)wait_hist_percentile(wwait, 0.99));
    bench_add_extra(out, "read_wait_max_ns", (double)rwait->max_ns);
    bench_add_extra(out, "read_wait_p99_ns", (double)wait_hist_percentile(rwait, 0.99));
    bench_add_extra(out, "read_max_min", metric_max_min_json(reads, n));
    bench_add_extra(out, "write_max_min", metric_max_min_json(writes, n));
}

static int run(ll_lock *lock, const bench_config *cfg, bench_result *out)
{
    (void)lock;
    char err[512];
    rw_ctx *c = bench_zalloc(sizeof *c);
    if (!c)
        return -1;
    c->rw = ll_rwlock_create(cfg->lock_spec, err, sizeof err);
    if (!c->rw) {
        fprintf(stderr, "locklab-bench: %s\n", err);
        free(c);
        return BENCH_REFUSED;
    }
    nlocals = cfg->threads;
    locals = (rw_local *)calloc((size_t)nlocals, sizeof(rw_local));
    if (!locals)
        return -1;
    int rc = bench_run_threads(NULL, cfg, out, c, body_with_local);
    if (rc == 0) {
        uint64_t reads = 0, writes = 0, *r = calloc((size_t)nlocals, 8), *w = calloc((size_t)nlocals, 8);
        wait_hist rw_, ww;
        memset(&rw_, 0, sizeof rw_);
        memset(&ww, 0, sizeof ww);
        for (int i = 0; i < nlocals; i++) {
            reads += locals[i].reads;
            writes += locals[i].writes;
            r[i] = locals[i].reads;
            w[i] = locals[i].writes;
            wait_hist_merge(&rw_, &locals[i].rwait);
            wait_hist_merge(&ww, &locals[i].wwait);
        }
        /* the harness compared its admissions (the writes) with every operation */
        out->exclusion_ok = out->logged == (writes < BENCH_LOG_CAPACITY ? writes : BENCH_LOG_CAPACITY) &&
                            ll_load_relaxed(&c->inconsistent) == 0 && c->a == writes; /* relaxed: joined */
        rwbench_extras(out, r, w, nlocals, &rw_, &ww);
        free(r);
        free(w);
    }
    free(locals);
    locals = NULL;
    ll_rwlock_destroy(c->rw);
    free(c);
    return rc;
}

const workload wl_rwbench = {"rwbench",
                             "reader-writer: read_pct% reads (90), CS cs_steps (4), NCS [0,200) steps; --lock is an "
                             "rwlock spec (--list-rwlocks); waits and fairness per role",
                             params, run};
