/*
 * The simulator's workloads: locklab-bench's mutexbench and randarray (bench/
 * wl_mutexbench.c, bench/wl_randarray.c: their parameter tables, same meaning), with
 * their plain computation turned into simulated time (a PRNG step costs the
 * machine's `step`) and their array accesses into simulated loads and stores.
 *
 * The harness part is locklab-bench's (bench/harness.c): every thread loops
 * { acquire; admit (record the admission in the shared log; the admission
 * counter is a shared line, as in locklab-bench); critical section; release;
 * count; non-critical section } until the stop flag the engine sets at the end
 * of the interval.  A thread that finds itself admitted while another is inside
 * marks a mutual-exclusion violation (exclusion_ok false).  mutexbench's
 * harness_lines=0 keeps the same record without simulating its memory
 * operations (the papers' MutexBench has no shared data in its critical section).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "locklab/rwlock.h"
#include "simwl.h"

static inline uint64_t xorshift(uint64_t x)
{
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
}
static inline uint64_t below(uint64_t rng, uint64_t n) { return (uint64_t)(((unsigned __int128)rng * n) >> 64); }

/* ---- harness ------------------------------------------------------------------------- */
static bool enter(wl_run *r, int i, bool harness_lines)
{
    uint64_t t0 = sim_now_ps();
    ll_lock_acquire(r->lock);
    wait_hist_add(&r->waits[i], (sim_now_ps() - t0) / 1000u);
    if (sim_stopping()) {
        ll_lock_release(r->lock);
        return false;
    }
    if (r->in_cs)
        r->violated = true;
    r->in_cs = true;
    /* bench_admit (bench/bench.h): n = admitted (a load: it waits for the line, which
     * the previous holder's increment left in its cache); log[n] = i; admitted = n + 1 */
    if (harness_lines)
        sim_data_load(&r->admitted, false); /* log[n] needs n */
    if (r->admitted < r->logcap) {
        if (harness_lines)
            sim_data_store(&r->log[r->admitted]); /* the log: 32 entries a line, written by turns */
        r->log[r->admitted] = (uint16_t)i;
    }
    if (harness_lines)
        sim_data_store(&r->admitted); /* the admission counter: a shared line, as in locklab-bench */
    r->admitted++;
    return true;
}

static void leave(wl_run *r, int i, bool harness_lines)
{
    /* Without the harness's lines nothing in the critical section is a scheduling point:
     * give a thread that (by a broken lock) got in meanwhile the chance to see in_cs. */
    if (!harness_lines)
        sim_yield_point();
    r->in_cs = false;
    ll_lock_release(r->lock);
    r->ops[i]++;
}

/* ---- mutexbench ------------------------------------------------------------------------- */
enum { MB_CS_STEPS, MB_NCS_MAX, MB_HARNESS_LINES }; /* bench/wl_mutexbench.c's parameters, in order */

static void mb_body(wl_run *r, int i)
{
    const sim_machine *m = r->machine;
    double cs_ns = r->param[MB_CS_STEPS] * m->step_ns;
    uint64_t ncs_max = (uint64_t)r->param[MB_NCS_MAX];
    bool harness_lines = r->param[MB_HARNESS_LINES] != 0;
    uint64_t rng = r->rng[i];
    while (!sim_stopping()) {
        if (!enter(r, i, harness_lines))
            break;
        sim_compute(cs_ns);
        for (uint64_t k = 0; k < (uint64_t)r->param[MB_CS_STEPS]; k++)
            rng = xorshift(rng);
        leave(r, i, harness_lines);
        uint64_t steps = (uint64_t)(((unsigned __int128)(rng >> 11) * ncs_max) >> 53);
        sim_compute((double)steps * m->step_ns);
        rng = xorshift(rng); /* the NCS's own draws are not replayed: one step keeps the sequence moving */
    }
}

/* ---- randarray ------------------------------------------------------------------------- */
/* bench/wl_randarray.c's parameters, in order; private_ints, shared_ints = 0: the machine's L2/4 */
enum { RA_PRIVATE_INTS, RA_SHARED_INTS, RA_NCS_LOADS, RA_CS_LOADS, RA_CS_STORES };

typedef struct ra_ctx {
    char *region; /* address space only: the simulator never touches the arrays' memory */
    size_t bytes;
    uint64_t shared_ints, private_ints;
} ra_ctx;

static uint64_t ra_auto_ints(const wl_run *r) { return (uint64_t)(r->machine->l2_kb * 1024 / 4 / 4); }

static int ra_setup(wl_run *r)
{
    ra_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return -1;
    c->shared_ints = r->param[RA_SHARED_INTS] > 0 ? (uint64_t)r->param[RA_SHARED_INTS] : ra_auto_ints(r);
    c->private_ints = r->param[RA_PRIVATE_INTS] > 0 ? (uint64_t)r->param[RA_PRIVATE_INTS] : ra_auto_ints(r);
    c->bytes = (c->shared_ints + c->private_ints * (uint64_t)r->threads) * sizeof(uint32_t) + 4096;
    c->region = mmap(NULL, c->bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (c->region == MAP_FAILED) {
        free(c);
        return -1;
    }
    r->ctx = c;
    return 0;
}

/* n random accesses to arr[0..len): the draws are made RA_AHEAD accesses in advance,
 * so that the simulator's host can fetch what it will need for each (sim_host_prefetch:
 * no event); the draws themselves, and so the run, are the same. */
enum { RA_AHEAD = 4 }; /* 2 x the engine's HINT_LAG */
static uint64_t ra_accesses(const uint32_t *arr, uint64_t len, uint64_t n, uint64_t rng, double step, bool stores)
{
    uint64_t ring[RA_AHEAD + 1], x = rng;
    for (int j = 0; j <= RA_AHEAD; j++)
        ring[j] = x = xorshift(x);
    for (uint64_t k = 0; k < n; k++) {
        rng = ring[k % (RA_AHEAD + 1)];
        ring[k % (RA_AHEAD + 1)] = x = xorshift(x);
        if (k + RA_AHEAD < n)
            sim_host_prefetch(&arr[below(ring[(k + RA_AHEAD) % (RA_AHEAD + 1)], len)]);
        sim_compute(step);
        const uint32_t *slot = &arr[below(rng, len)];
        if (stores)
            sim_data_store((void *)slot);
        else
            sim_data_load(slot, true);
    }
    return rng;
}

static void ra_body(wl_run *r, int i)
{
    const ra_ctx *c = r->ctx;
    const uint32_t *shared = (const uint32_t *)c->region;
    const uint32_t *priv = shared + c->shared_ints + c->private_ints * (uint64_t)i;
    uint64_t ncs = (uint64_t)r->param[RA_NCS_LOADS], cs = (uint64_t)r->param[RA_CS_LOADS];
    bool stores = r->param[RA_CS_STORES] != 0;
    double step = r->machine->step_ns;
    uint64_t rng = r->rng[i];
    while (!sim_stopping()) {
        if (!enter(r, i, true))
            break;
        rng = ra_accesses(shared, c->shared_ints, cs, rng, step, stores);
        leave(r, i, true);
        rng = ra_accesses(priv, c->private_ints, ncs, rng, step, false);
    }
}

static void ra_finish(wl_run *r, bench_result *out)
{
    ra_ctx *c = r->ctx;
    bench_add_extra(out, "l2_kib", r->machine->l2_kb);
    bench_add_extra(out, "l2_from_sysfs", 0);
    bench_add_extra(out, "private_kib", (double)(c->private_ints * sizeof(uint32_t)) / 1024);
    bench_add_extra(out, "shared_kib", (double)(c->shared_ints * sizeof(uint32_t)) / 1024);
    bench_add_extra(out, "llc_miss_rate", r->stats.llc_accesses ? (double)r->stats.llc_misses / r->stats.llc_accesses : 0);
    munmap(c->region, c->bytes);
    free(c);
}

/* ---- rwbench ------------------------------------------------------------------------- */
/* bench/wl_rwbench.c's parameters, in order, and its loop: a read with probability read_pct %
 * (rdlock; read the record's two words with cs_steps PRNG steps between; they must agree),
 * else a write (wrlock; admitted as the harness admits; rewrite the record); then the NCS.
 * The record's words are a line each, read by every reader and written by each writer. */
enum { RW_READ_PCT, RW_CS_STEPS, RW_NCS_MAX };

typedef struct rw_ctx {
    ll_rwlock *rw;
    LL_ALIGNED(LL_SECTOR) uint64_t a; /* the record: b == a whenever no writer is inside */
    LL_ALIGNED(LL_SECTOR) uint64_t b;
    uint64_t *reads, *writes;
    wait_hist *rwait, *wwait;
    int readers_in; /* plain: the harness's own bookkeeping (cooperative threads, no cost) */
    bool writer_in, inconsistent;
} rw_ctx;

static int rw_setup(wl_run *r)
{
    rw_ctx *c = aligned_alloc(LL_SECTOR, sizeof(rw_ctx));
    if (!c)
        return -1;
    memset(c, 0, sizeof *c);
    char err[512];
    c->rw = ll_rwlock_create(r->spec, err, sizeof err);
    c->reads = calloc((size_t)r->threads, sizeof(uint64_t));
    c->writes = calloc((size_t)r->threads, sizeof(uint64_t));
    c->rwait = calloc((size_t)r->threads, sizeof(wait_hist));
    c->wwait = calloc((size_t)r->threads, sizeof(wait_hist));
    if (!c->rw || !c->reads || !c->writes || !c->rwait || !c->wwait)
        return -1;
    r->ctx = c;
    return 0;
}

static void rw_body(wl_run *r, int i)
{
    rw_ctx *c = r->ctx;
    double step = r->machine->step_ns;
    uint64_t cs = (uint64_t)r->param[RW_CS_STEPS], ncs_max = (uint64_t)r->param[RW_NCS_MAX];
    uint64_t read_below = (uint64_t)(r->param[RW_READ_PCT] * 10.0 + 0.5); /* per mille */
    uint64_t rng = r->rng[i];
    while (!sim_stopping()) {
        rng = xorshift(rng);
        bool read = (rng >> 11) % 1000 < read_below;
        uint64_t t0 = sim_now_ps();
        if (read) {
            ll_rwlock_rdlock(c->rw);
            wait_hist_add(&c->rwait[i], (sim_now_ps() - t0) / 1000u);
            c->readers_in++;
            if (c->writer_in)
                r->violated = true;
            sim_data_load(&c->a, false);
            uint64_t a = c->a;
            sim_compute((double)cs * step);
            sim_data_load(&c->b, false);
            if (c->b != a)
                c->inconsistent = true;
            c->readers_in--;
            ll_rwlock_rdunlock(c->rw);
            c->reads[i]++;
        } else {
            ll_rwlock_wrlock(c->rw);
            wait_hist_add(&c->wwait[i], (sim_now_ps() - t0) / 1000u);
            if (sim_stopping()) {
                ll_rwlock_wrunlock(c->rw);
                break;
            }
            if (c->writer_in || c->readers_in)
                r->violated = true;
            c->writer_in = true;
            if (r->admitted < r->logcap)
                r->log[r->admitted] = (uint16_t)i;
            r->admitted++;
            sim_data_store(&c->a);
            c->a++;
            sim_compute((double)cs * step);
            sim_data_store(&c->b);
            c->b = c->a;
            c->writer_in = false;
            ll_rwlock_wrunlock(c->rw);
            c->writes[i]++;
        }
        r->ops[i]++;
        uint64_t steps = (uint64_t)(((unsigned __int128)(rng >> 11) * ncs_max) >> 53);
        sim_compute((double)steps * step);
        rng = xorshift(rng);
    }
}

static void rw_finish(wl_run *r, bench_result *out)
{
    rw_ctx *c = r->ctx;
    uint64_t writes = 0;
    for (int i = 0; i < r->threads; i++) {
        writes += c->writes[i];
        if (i > 0) {
            wait_hist_merge(&c->rwait[0], &c->rwait[i]);
            wait_hist_merge(&c->wwait[0], &c->wwait[i]);
        }
    }
    if (c->inconsistent || r->admitted != writes)
        out->exclusion_ok = false;
    rwbench_extras(out, c->reads, c->writes, r->threads, &c->rwait[0], &c->wwait[0]);
    free(c->reads), free(c->writes), free(c->rwait), free(c->wwait);
    /* the rwlock is not destroyed: a run cut short may leave threads inside it */
}

extern const workload wl_mutexbench, wl_randarray, wl_rwbench; /* bench/: names, summaries, parameters */

/* bench/workloads.c's, for the JSON (bench/json.c): these workloads' parameters are all numbers. */
bench_names_fn bench_param_names(const char *key)
{
    (void)key;
    return NULL;
}
const sim_workload sim_workloads[] = {
    {&wl_mutexbench, NULL, mb_body, NULL, false},
    {&wl_randarray, ra_setup, ra_body, ra_finish, false},
    {&wl_rwbench, rw_setup, rw_body, rw_finish, true},
    {NULL, NULL, NULL, NULL, false},
};

/* ---- a run ---------------------------------------------------------------------------- */
static void thread_body(int i, void *arg)
{
    wl_run *r = arg;
    r->socket[i] = ll_current_socket();
    r->workload->body(r, i);
}

int sim_workload_run(wl_run *r, const sim_config *cfg, bench_result *out)
{
    int n = cfg->threads;
    if (bench_result_alloc(out, n) != 0)
        return -1;
    r->threads = n;
    r->ops = out->per_thread_ops;
    r->socket = out->thread_socket;
    r->log = out->admissions;
    r->logcap = BENCH_LOG_CAPACITY;
    r->rng = calloc((size_t)n, sizeof(uint64_t));
    r->waits = calloc((size_t)n, sizeof(wait_hist));
    if (!r->rng || !r->waits)
        return -1;
    for (int i = 0; i < n; i++) {
        uint64_t x = 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1) ^ (cfg->seed * 0xD1B54A32D192ED03ull);
        r->rng[i] = x ? x : 1;
    }
    if (r->workload->setup && r->workload->setup(r) != 0)
        return -1;
    r->outcome = sim_run(cfg, thread_body, r, &r->stats);
    out->wall_s = (double)cfg->end_ps / 1e12;
    for (int i = 0; i < n; i++)
        out->ops += out->per_thread_ops[i];
    out->logged = r->admitted < r->logcap ? r->admitted : r->logcap;
    out->exclusion_ok = !r->violated && (r->workload->rwlock || r->admitted == out->ops);
    out->vcsw = (long)r->stats.vcsw;
    out->ivcsw = (long)r->stats.ivcsw;
    out->cpu_s = (double)r->stats.busy_ps / 1e12 * out->wall_s / ((double)(r->stats.end_ps ? r->stats.end_ps : 1) / 1e12);
    if (r->workload->finish)
        r->workload->finish(r, out);
    for (int i = 1; i < n; i++)
        wait_hist_merge(&r->waits[0], &r->waits[i]);
    bench_add_wait_extras(out, &r->waits[0]);
    free(r->waits);
    free(r->rng);
    return 0;
}
