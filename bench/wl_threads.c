/*
 * null-thread, thread-work, thread-counter — the lightweight-thread runtime (docs/threads.md)
 * measured as in Anderson, Lazowska & Levy (1989), section 3.
 *
 * --threads P is the runtime's processors (worker pthreads); --lock is the spec
 * of every lock inside the runtime; --param alternative=NAME picks A..E, or
 * `pthread`, the peer: the same code on kernel threads (pthread_create and
 * pthread_join, a pthread mutex and condition; P = the concurrent chains or
 * counting threads), so that both are measured the same way.
 *
 * null-thread (the paper's Table 3.2): `chains` chains of threads (one per
 * processor), each thread counting itself and creating the next before it
 * finishes, until the round's threads have run; with join=1 each thread also
 * joins its predecessor (create, start, finish and join), with join=0 they are
 * detached (the paper's exact test).  A warm-up round fills the free lists (the
 * paper's "warm start"), then rounds repeat for the duration.  Extras:
 * ns_per_thread = wall time / threads (the paper's Figure 3.1 per thread; at
 * P = 1 the latency of one thread), chains.
 *
 * thread-work: the same with a grain of work per thread, uniform in
 * 0..2 x work_iters PRNG steps (the paper's Figure 3.3: 300 us on average), and
 * `chains` runnable threads independent of P (Figure 3.4: thread cost against
 * the number of runnable threads).  Extra create_to_start_ns: mean time from a
 * thread's creation to its first instruction.
 *
 * ops = threads run; per_thread_ops = threads run on each processor;
 * exclusion_ok = every thread ran exactly once (their count matches).
 *
 * thread-counter (the paper's section 4, spin-waiting, on the runtime's own
 * threads): one lightweight thread per processor increments a shared counter
 * under the --lock lock (`tas` spin on xchg, `ttas` spin on read, `backoff`
 * Ethernet-style backoff, `anderson` queueing), with cs_iters PRNG steps inside
 * the critical section (Figure 4.2's sweep) — Figure 4.1, extra
 * ns_per_increment.  barrier=1 (Figure 4.3): in rounds, each thread increments
 * once and waits until all have (yielding every 64 polls, so that threads that
 * share a worker make progress); extras barriers, ns_per_barrier_per_thread.
 * The runtime's own locks use the same spec.  ops = increments; exclusion_ok =
 * the counter equals them.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "wl_threads.h"

/* ---- who runs the threads: the runtime (A..E), or the kernel (pthread) ---- */

static unsigned n_alternatives(void)
{
    unsigned n = 0;
    while (llt_alternative_name(n))
        n++;
    return n;
}

const char *wl_threads_alternative_name(unsigned i)
{
    const char *name = llt_alternative_name(i);
    return name ? name : i == n_alternatives() ? "pthread" : NULL;
}

typedef union th_handle {
    llt_thread *l;
    pthread_t p;
} th_handle;

/* A count of arrivals to wait for, under a mutex, with a condition. */
typedef struct th_gate {
    unsigned left; /* set before the threads that arrive are created (their creation publishes it) */
    llt_mutex lm;
    llt_cond lc;
    pthread_mutex_t pm;
    pthread_cond_t pc;
} th_gate;

typedef struct thread_api {
    th_handle (*create)(llt_fn fn, void *arg);
    void (*join)(th_handle t);
    void (*detach)(th_handle t);
    th_handle (*self)(void);
    void (*yield)(void);
    void (*gate_init)(th_gate *g); /* in a thread of the api (the runtime's: llt_current()) */
    void (*gate_arrive)(th_gate *g);
    void (*gate_wait)(th_gate *g); /* until n arrivals */
    void (*gate_destroy)(th_gate *g);
} thread_api;

/* A gate's arrive, wait and destroy over the mutex M and condition C of the API whose
 * calls are named PFX##mutex_lock, PFX##cond_wait, ... (llt_ and pthread_ name them alike):
 * defines NAME##_gate_arrive, NAME##_gate_wait and NAME##_gate_destroy. */
#define TH_GATE_VERBS(NAME, PFX, M, C)                                                   \
    static void NAME##_gate_arrive(th_gate *g)                                           \
    {                                                                                    \
        PFX##mutex_lock(&g->M);                                                          \
        if (--g->left == 0)                                                              \
            PFX##cond_signal(&g->C);                                                     \
        PFX##mutex_unlock(&g->M);                                                        \
    }                                                                                    \
    static void NAME##_gate_wait(th_gate *g)                                             \
    {                                                                                    \
        PFX##mutex_lock(&g->M);                                                          \
        while (g->left > 0)                                                              \
            PFX##cond_wait(&g->C, &g->M);                                                \
        PFX##mutex_unlock(&g->M);                                                        \
    }                                                                                    \
    static void NAME##_gate_destroy(th_gate *g)                                          \
    {                                                                                    \
        PFX##mutex_destroy(&g->M);                                                       \
        PFX##cond_destroy(&g->C);                                                        \
    }

static th_handle llt_api_create(llt_fn fn, void *arg) { return (th_handle){.l = llt_create(fn, arg)}; }
static void llt_api_join(th_handle t) { llt_join(t.l); }
static void llt_api_detach(th_handle t) { llt_detach(t.l); }
static th_handle llt_api_self(void) { return (th_handle){.l = llt_self()}; }
static void llt_gate_init(th_gate *g)
{
    if (llt_mutex_init(&g->lm, llt_current()) != 0 || llt_cond_init(&g->lc, llt_current()) != 0)
        abort();
}
TH_GATE_VERBS(llt, llt_, lm, lc)
static const thread_api llt_api = {llt_api_create, llt_api_join, llt_api_detach, llt_api_self, llt_yield,
                                   llt_gate_init, llt_gate_arrive, llt_gate_wait, llt_gate_destroy};

static th_handle pt_create(llt_fn fn, void *arg)
{
    th_handle t;
    int e = pthread_create(&t.p, NULL, fn, arg);
    if (e != 0) {
        fprintf(stderr, "locklab-bench: pthread_create failed: %s\n", strerror(e));
        exit(1);
    }
    return t;
}
static void pt_join(th_handle t) { pthread_join(t.p, NULL); }
static void pt_detach(th_handle t) { pthread_detach(t.p); }
static th_handle pt_self(void) { return (th_handle){.p = pthread_self()}; }
static void pt_yield(void) { sched_yield(); }
static void pt_gate_init(th_gate *g)
{
    pthread_mutex_init(&g->pm, NULL);
    pthread_cond_init(&g->pc, NULL);
}
TH_GATE_VERBS(pt, pthread_, pm, pc)
static const thread_api pthread_api = {pt_create, pt_join, pt_detach, pt_self, pt_yield,
                                       pt_gate_init, pt_gate_arrive, pt_gate_wait, pt_gate_destroy};

/* The runtime of --threads processors, alternative cfg->param[0], every lock of --lock, idle
 * workers spinning spin_ns; bad input exits 2. */
llt_runtime *wl_threads_start(const bench_config *cfg, uint64_t spin_ns)
{
    char err[256];
    llt_config lc = LLT_CONFIG_DEFAULT;
    lc.alternative = wl_threads_alternative_name((unsigned)cfg->param[0]); /* pthread: llt_start says it is unknown */
    lc.processors = (unsigned)cfg->threads;
    lc.lock_spec = cfg->lock_spec;
    lc.spin_ns = spin_ns;
    llt_runtime *rt = llt_start(&lc, err, sizeof err);
    if (!rt) {
        fprintf(stderr, "locklab-bench: %s\n", err);
        exit(2);
    }
    return rt;
}

/* The api of alternative cfg->param[0], and its runtime (NULL for pthread). */
static const thread_api *api_start(const bench_config *cfg, llt_runtime **rt)
{
    if ((unsigned)cfg->param[0] == n_alternatives()) {
        *rt = NULL;
        return &pthread_api;
    }
    *rt = wl_threads_start(cfg, LLT_DEFAULT_SPIN_NS);
    return &llt_api;
}

/* fn(arg) as a thread of the api: a lightweight one in rt, or the caller. */
static void *api_run(llt_runtime *rt, llt_fn fn, void *arg)
{
    return rt ? llt_run(rt, fn, arg) : fn(arg);
}

/* Runs fn(base + i x stride) for i < n as n threads of the api and joins them: NULL,
 * or (void *)1 out of memory. */
static void *fan_out(const thread_api *api, unsigned n, llt_fn fn, void *base, size_t stride)
{
    th_handle *t = calloc(n, sizeof *t);
    if (!t)
        return (void *)1;
    for (unsigned i = 0; i < n; i++)
        t[i] = api->create(fn, (char *)base + i * stride);
    for (unsigned i = 0; i < n; i++)
        api->join(t[i]);
    free(t);
    return NULL;
}

void *wl_threads_fan_out(unsigned n, llt_fn fn, void *base, size_t stride)
{
    return fan_out(&llt_api, n, fn, base, stride);
}

void *wl_threads_timed_run(llt_runtime *rt, llt_fn fn, void *arg, uint64_t *wall_ns, bench_result *out)
{
    long v0, iv0;
    double c0;
    bench_usage_snapshot(&v0, &iv0, &c0);
    uint64_t t0 = ll_now_ns();
    void *result = api_run(rt, fn, arg);
    *wall_ns = ll_now_ns() - t0;
    bench_usage_snapshot(&out->vcsw, &out->ivcsw, &out->cpu_s);
    out->vcsw -= v0, out->ivcsw -= iv0, out->cpu_s -= c0;
    return result;
}

uint64_t wl_threads_result(bench_result *out, int threads, uint64_t wall_ns)
{
    uint64_t sum = 0;
    for (int i = 0; i < threads; i++)
        sum += out->per_thread_ops[i];
    out->ops = sum;
    out->wall_s = (double)wall_ns / 1e9;
    return sum;
}

/* ---- null-thread, thread-work ---- */

enum { P_ALT, P_ROUND, P_JOIN, P_WORK, P_CHAINS };
#define ALTERNATIVE_PARAM                                                                                      \
    {"alternative", "the paper's thread-management alternative (A..E; a name), or pthread (the kernel's threads)", \
     4, 0, 5, 1}
#define COMMON_PARAMS                                                                                          \
    ALTERNATIVE_PARAM, {"round", "threads per round (the paper: 1000000)", 100000, 1, 1e9, 1},          \
        {"join", "1: each thread joins its predecessor; 0: detached (the paper's Table 3.2)", 1, 0, 1, 1}
static const bench_param null_params[] = {COMMON_PARAMS, {0}};
static const bench_param work_params[] = {
    COMMON_PARAMS,
    {"work_iters", "mean PRNG steps of work per thread (uniform in 0..2x)", 1000, 0, 1e8, 1},
    {"chains", "runnable threads at once (0: one per processor)", 0, 0, 65536, 1},
    {0},
};

typedef struct wl_ctx wl_ctx;
typedef struct chain {
    LL_ALIGNED(LL_SECTOR) wl_ctx *w;
    unsigned slot;         /* pthread: the per_proc entry its threads are added to (chain mod P) */
    uint64_t ran;          /* pthread: threads run (the runtime counts per processor instead) */
    uint64_t left;         /* threads this chain still runs in the round */
    th_handle prev;        /* join=1: the predecessor, joined by its successor */
    bool has_prev;
    uint64_t created_ns;   /* thread-work: when the next thread was created */
    uint64_t latency_sum, latency_n;
    uint64_t rng, sink;
} chain;
typedef struct per_proc {
    LL_ALIGNED(LL_SECTOR) uint64_t threads; /* written only by threads on this processor */
} per_proc;
struct wl_ctx {
    const thread_api *api;
    th_gate done; /* the round's chains */
    unsigned nchains, nprocs;
    int join, timestamps;
    uint64_t work_iters, round;
    double duration_s;
    chain *chains;
    per_proc *procs;
    /* results of the timed rounds */
    uint64_t threads, wall_ns;
    long vcsw, ivcsw;
    double cpu_s;
};

static void *cycle(void *arg)
{
    chain *c = (chain *)arg;
    wl_ctx *w = c->w;
    /* Read before the successor exists: with join=0 the successors may finish the run, and
     * run_common return (w is on its stack), while this thread is still in its create. */
    const thread_api *api = w->api;
    const bool join = w->join;
    if (w->timestamps) {
        c->latency_sum += ll_now_ns() - c->created_ns;
        c->latency_n++;
    }
    if (c->has_prev)
        api->join(c->prev);
    if (api == &llt_api)
        w->procs[llt_processor()].threads++;
    else
        c->ran++; /* pthread: no processors; a chain's threads run one after another */
    if (w->work_iters) {
        uint64_t x = c->rng = bench_xorshift(c->rng);
        uint64_t steps = (uint64_t)(((unsigned __int128)x * (2 * w->work_iters + 1)) >> 64);
        for (uint64_t i = 0; i < steps; i++)
            x = bench_xorshift(x);
        c->sink += x; /* the work's result is used: the loop stays */
    }
    if (--c->left == 0) {
        if (join)
            api->detach(api->self());
        api->gate_arrive(&w->done);
        return NULL;
    }
    c->has_prev = join;
    if (join)
        c->prev = api->self();
    if (w->timestamps)
        c->created_ns = ll_now_ns();
    th_handle t = api->create(cycle, c);
    if (!join)
        api->detach(t); /* not w: see above */
    return NULL;
}

/* One round of n threads over the chains; returns when all ran. */
static void round_of(wl_ctx *w, uint64_t n)
{
    unsigned running = w->nchains < n ? w->nchains : (unsigned)n; /* fewer threads than chains: some idle */
    w->done.left = running;
    for (unsigned i = 0; i < running; i++) {
        chain *c = &w->chains[i];
        c->left = n / w->nchains + (i < n % w->nchains);
        c->has_prev = false;
        c->created_ns = w->timestamps ? ll_now_ns() : 0;
        th_handle t = w->api->create(cycle, c);
        if (!w->join) /* join=1: the head's successor joins it (or, the chain's last, it detaches itself) */
            w->api->detach(t);
    }
    w->api->gate_wait(&w->done);
}

static void *root(void *arg)
{
    wl_ctx *w = (wl_ctx *)arg;
    w->api->gate_init(&w->done);
    round_of(w, w->round < 20000 ? w->round : 20000); /* warm start: free lists and stacks */
    for (unsigned i = 0; i < w->nprocs; i++)
        w->procs[i].threads = 0;
    for (unsigned i = 0; i < w->nchains; i++)
        w->chains[i].latency_sum = w->chains[i].latency_n = w->chains[i].ran = 0;
    double c0;
    long v0, iv0;
    bench_usage_snapshot(&v0, &iv0, &c0);
    uint64_t t0 = ll_now_ns(), deadline = t0 + (uint64_t)(w->duration_s * 1e9), now;
    do {
        round_of(w, w->round);
        w->threads += w->round;
    } while ((now = ll_now_ns()) < deadline);
    w->wall_ns = now - t0;
    bench_usage_snapshot(&w->vcsw, &w->ivcsw, &w->cpu_s);
    w->vcsw -= v0, w->ivcsw -= iv0, w->cpu_s -= c0;
    w->api->gate_destroy(&w->done);
    return NULL;
}

static int run_common(const bench_config *cfg, bench_result *out, bool work)
{
    if (bench_result_alloc(out, cfg->threads) != 0)
        return -1;
    wl_ctx w;
    memset(&w, 0, sizeof w);
    w.nprocs = (unsigned)cfg->threads;
    w.join = cfg->param[P_JOIN] != 0;
    w.round = (uint64_t)cfg->param[P_ROUND];
    w.duration_s = cfg->duration_s;
    w.work_iters = work ? (uint64_t)cfg->param[P_WORK] : 0;
    w.timestamps = work;
    w.nchains = work && cfg->param[P_CHAINS] > 0 ? (unsigned)cfg->param[P_CHAINS] : (unsigned)cfg->threads;
    w.chains = bench_zalloc(sizeof(chain) * w.nchains);
    w.procs = bench_zalloc(sizeof(per_proc) * (size_t)cfg->threads);
    if (!w.chains || !w.procs) {
        free(w.chains);
        free(w.procs);
        return -1;
    }
    llt_runtime *rt; /* started once nothing else can fail: the early returns have none to stop */
    w.api = api_start(cfg, &rt);
    for (unsigned i = 0; i < w.nchains; i++) {
        w.chains[i].w = &w;
        w.chains[i].slot = i % w.nprocs;
        w.chains[i].rng = 0x9e3779b97f4a7c15ull * (i + 1);
    }
    api_run(rt, root, &w);
    if (rt)
        llt_stop(rt);
    for (unsigned i = 0; i < w.nchains; i++)
        w.procs[w.chains[i].slot].threads += w.chains[i].ran;
    for (int i = 0; i < cfg->threads; i++)
        out->per_thread_ops[i] = w.procs[i].threads;
    uint64_t counted = wl_threads_result(out, cfg->threads, w.wall_ns);
    out->ops = w.threads; /* the threads the rounds made; counted: those the processors ran */
    out->exclusion_ok = counted == w.threads;
    uint64_t lat_sum = 0, lat_n = 0;
    for (unsigned i = 0; i < w.nchains; i++)
        lat_sum += w.chains[i].latency_sum, lat_n += w.chains[i].latency_n;
    out->vcsw = w.vcsw, out->ivcsw = w.ivcsw, out->cpu_s = w.cpu_s;
    bench_add_extra(out, "ns_per_thread", (double)w.wall_ns / (double)w.threads);
    bench_add_extra(out, "chains", w.nchains);
    if (work)
        bench_add_extra(out, "create_to_start_ns", lat_n ? (double)lat_sum / (double)lat_n : 0);
    free(w.chains);
    free(w.procs);
    return 0;
}

static int run_null(ll_lock *lock, const bench_config *cfg, bench_result *out)
{
    (void)lock;
    return run_common(cfg, out, false);
}

static int run_work(ll_lock *lock, const bench_config *cfg, bench_result *out)
{
    (void)lock;
    return run_common(cfg, out, true);
}

/* ---- thread-counter: section 4's spin-waiting experiments on the runtime's threads ---- */

enum { S_CS = 1, S_BARRIER };
static const bench_param counter_params[] = {
    ALTERNATIVE_PARAM,
    {"cs_iters", "PRNG steps inside the critical section besides the increment (Figure 4.2)", 0, 0, 1e7, 1},
    {"barrier", "0: increment in a loop (Figure 4.1); 1: barrier rounds, one increment each (Figure 4.3)", 0, 0, 1, 1},
    {0},
};

typedef struct spinner {
    LL_ALIGNED(LL_SECTOR) struct spin_ctx *s;
    uint64_t ops, sink;
} spinner;
typedef struct spin_ctx {
    const thread_api *api;
    ll_lock *lock;
    unsigned n;
    uint64_t cs_iters, deadline;
    int barrier;
    spinner *th;
    LL_ALIGNED(LL_SECTOR) ll_atomic_u64 counter; /* written under lock; barrier waiters read it */
    ll_atomic_u64 stop_round;                    /* barrier: the last round (written under lock) */
    LL_ALIGNED(LL_SECTOR) ll_atomic_u32 stop;    /* counter mode: the interval is over */
} spin_ctx;

/* One critical section: the increment and cs_iters steps of work. */
static uint64_t increment(spinner *me)
{
    spin_ctx *s = me->s;
    ll_lock_acquire(s->lock);
    uint64_t c = ll_load_relaxed(&s->counter) + 1; /* relaxed: under the lock */
    uint64_t x = c;
    for (uint64_t i = 0; i < s->cs_iters; i++)
        x = bench_xorshift(x);
    me->sink += x;
    return c; /* the caller stores it, then releases */
}

static void *spin_body(void *arg)
{
    spinner *me = (spinner *)arg;
    spin_ctx *s = me->s;
    if (!s->barrier) {
        for (unsigned i = 0; ll_load_relaxed(&s->stop) == 0; i++) { /* relaxed: a stop hint */
            uint64_t c = increment(me);
            ll_store_relaxed(&s->counter, c); /* relaxed: under the lock */
            ll_lock_release(s->lock);
            me->ops++;
            if ((i & 63) == 63 && ll_now_ns() >= s->deadline)
                ll_store_relaxed(&s->stop, 1); /* relaxed: a stop hint */
        }
        return NULL;
    }
    for (uint64_t round = 1;; round++) {
        uint64_t c = increment(me), target = round * s->n;
        if (c == target && ll_now_ns() >= s->deadline)
            ll_store_relaxed(&s->stop_round, round); /* relaxed: published by the release store of the counter */
        ll_store_release(&s->counter, c);            /* release: pairs with the waiters' acquire load */
        ll_lock_release(s->lock);
        me->ops++;
        /* Wait for the others (the paper's processors "loop until all are done"); let a
         * thread that shares this worker run now and then. */
        for (unsigned i = 1; ll_load_acquire(&s->counter) < target; i++) { /* acquire: pairs with the store above */
            ll_pause();
            if ((i & 63) == 0)
                s->api->yield();
        }
        if (ll_load_relaxed(&s->stop_round) == round) /* relaxed: ordered by the acquire load of the counter */
            return NULL;
    }
}

static void *spin_root(void *arg)
{
    spin_ctx *s = (spin_ctx *)arg;
    return fan_out(s->api, s->n, spin_body, s->th, sizeof *s->th);
}

static int run_counter(ll_lock *lock, const bench_config *cfg, bench_result *out)
{
    if (bench_result_alloc(out, cfg->threads) != 0)
        return -1;
    spin_ctx *s = bench_zalloc(sizeof *s);
    if (!s)
        return -1;
    s->lock = lock;
    s->n = (unsigned)cfg->threads;
    s->cs_iters = (uint64_t)cfg->param[S_CS];
    s->barrier = cfg->param[S_BARRIER] != 0;
    if (!(s->th = bench_zalloc(sizeof(spinner) * s->n))) {
        free(s);
        return -1;
    }
    for (unsigned i = 0; i < s->n; i++)
        s->th[i].s = s;
    llt_runtime *rt; /* started once nothing else can fail but the run itself */
    s->api = api_start(cfg, &rt);
    s->deadline = ll_now_ns() + (uint64_t)(cfg->duration_s * 1e9);
    uint64_t wall;
    void *failed = wl_threads_timed_run(rt, spin_root, s, &wall, out);
    if (rt)
        llt_stop(rt);
    if (failed) {
        free(s->th);
        free(s);
        return -1;
    }
    for (unsigned i = 0; i < s->n; i++)
        out->per_thread_ops[i] = s->th[i].ops;
    uint64_t sum = wl_threads_result(out, cfg->threads, wall);
    out->exclusion_ok = ll_load_relaxed(&s->counter) == sum; /* relaxed: the workers are joined */
    bench_add_extra(out, "ns_per_increment", (double)wall / (double)(sum ? sum : 1));
    if (s->barrier) {
        uint64_t rounds = ll_load_relaxed(&s->stop_round); /* relaxed: the workers are joined */
        bench_add_extra(out, "barriers", (double)rounds);
        bench_add_extra(out, "ns_per_barrier_per_thread", (double)wall / (double)(rounds ? rounds : 1) / s->n);
    }
    free(s->th);
    free(s);
    return 0;
}

const workload wl_null_thread = {"null-thread",
                                 "lightweight threads: create, start, finish (and join) null threads; ns per thread "
                                 "(--threads = processors, --lock = the runtime's locks)",
                                 null_params, run_null};
const workload wl_thread_work = {"thread-work",
                                 "lightweight threads with a uniform grain of work each; create-to-start latency "
                                 "against runnable threads",
                                 work_params, run_work};
const workload wl_thread_counter = {"thread-counter",
                                    "lightweight threads (one per processor) increment a counter under the lock "
                                    "(spin-waiting, the 1989 paper's section 4; barrier=1: barrier rounds)",
                                    counter_params, run_counter};
