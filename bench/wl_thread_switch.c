/*
 * thread-switch and thread-idle: two costs of the lightweight-thread runtime
 * (docs/threads.md) that the 1989 paper does not measure, with the
 * runtime's targets: a context switch of at most 15 ns, and an idle runtime at 0% CPU.
 *
 * thread-switch: `per_processor` lightweight threads per processor (default 2)
 * yield to each other in a loop (llt_yield: under the yield queue's lock the
 * thread takes the next ready thread, queues itself, and switches straight to
 * it, which releases the lock).  Extra ns_per_switch = wall time x P / yields (one thread-to-thread
 * switch on one processor; at P = 1 two threads take turns).  Extra
 * raw_switch_ns: the architecture's switch alone (llt_ctx_switch between two
 * contexts on the calling pthread, both from one call site, no runtime, no
 * queue), measured for a tenth of --duration before the runtime starts.
 * ops = yields.
 *
 * thread-idle: the runtime runs 4 null threads per processor (its workers are
 * woken), then nothing; after the idle spin budget (`spin_ns`, default
 * LLT_DEFAULT_SPIN_NS) and 50 ms more, the process's CPU time (getrusage) is
 * read across --duration of sleep.  Extras idle_cpu_fraction = that CPU time /
 * (wall time x P): the share of the runtime's processors an idle runtime uses
 * (0 when every worker parked; 1 if they all spun), idle_cpu_s, idle_spin_ns.
 * ops = the null threads run, per processor; wall_s and cpu_util cover the
 * idle interval.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "bench.h"
#include "llt_arch.h" /* the runtime's context switch (src/threads/arch/ARCH) */
#include "wl_threads.h"

/* ---- the architecture's switch alone ---- */

typedef struct raw_pair {
    llt_ctx main, other;
} raw_pair;

/* n switches from *self to *other and back, always from this one call site in
 * both contexts (as two yielding threads switch): the switch's return is then
 * predicted, and what is timed is the switch itself. */
static __attribute__((noinline)) void raw_batch(llt_ctx *self, llt_ctx *other, int n)
{
    for (int i = 0; i < n; i++)
        llt_ctx_switch(self, other);
}

static void raw_bounce(void *arg)
{
    raw_pair *p = (raw_pair *)arg;
    for (;;)
        raw_batch(&p->other, &p->main, 1 << 30);
}

/* ns per llt_ctx_switch, ping-ponging for about `seconds` (the other context's
 * stack is dropped unfinished: it holds nothing). */
static double raw_switch_ns(double seconds)
{
    enum { STACK = 64 << 10, BATCH = 4096 };
    void *stack = mmap(NULL, STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (stack == MAP_FAILED)
        return 0;
    raw_pair p;
    llt_ctx_init(&p.other, stack, STACK, raw_bounce, &p);
    llt_ctx_switch(&p.main, &p.other); /* the other context enters raw_batch */
    uint64_t n = 0, t0 = ll_now_ns(), end = t0 + (uint64_t)(seconds * 1e9), t;
    do {
        raw_batch(&p.main, &p.other, BATCH);
        n += BATCH;
    } while ((t = ll_now_ns()) < end);
    munmap(stack, STACK);
    return (double)(t - t0) / (2.0 * (double)n); /* two switches per round trip */
}

/* ---- thread-switch ---- */

static const bench_param switch_params[] = {
    {"alternative", "the paper's thread-management alternative (A..E; a name; not pthread)", 4, 0, 4, 1},
    {"per_processor", "threads per processor yielding to each other", 2, 2, 64, 1},
    {0},
};

typedef struct yielder {
    LL_ALIGNED(LL_SECTOR) struct switch_ctx *s;
    uint64_t yields;
} yielder;
typedef struct switch_ctx {
    unsigned n;
    uint64_t deadline;
    yielder *th;
    LL_ALIGNED(LL_SECTOR) ll_atomic_u32 stop; /* the interval is over */
} switch_ctx;

static void *yield_body(void *arg)
{
    yielder *me = (yielder *)arg;
    switch_ctx *s = me->s;
    while (ll_load_relaxed(&s->stop) == 0) { /* relaxed: a stop hint; results are read after the joins */
        llt_yield();
        if ((++me->yields & 1023) == 0 && ll_now_ns() >= s->deadline)
            ll_store_relaxed(&s->stop, 1); /* relaxed: a stop hint */
    }
    return NULL;
}

static void *switch_root(void *arg)
{
    switch_ctx *s = (switch_ctx *)arg;
    return wl_threads_fan_out(s->n, yield_body, s->th, sizeof *s->th);
}

static int run_switch(ll_lock *lock, const bench_config *cfg, bench_result *out)
{
    (void)lock;
    double raw = raw_switch_ns(cfg->duration_s / 10);
    llt_runtime *rt = wl_threads_start(cfg, LLT_DEFAULT_SPIN_NS);
    if (bench_result_alloc(out, cfg->threads) != 0)
        return -1;
    switch_ctx *s = bench_zalloc(sizeof *s);
    if (!s)
        return -1;
    s->n = (unsigned)cfg->threads * (unsigned)cfg->param[1];
    if (!(s->th = bench_zalloc(sizeof(yielder) * s->n)))
        return -1;
    for (unsigned i = 0; i < s->n; i++)
        s->th[i].s = s;
    s->deadline = ll_now_ns() + (uint64_t)(cfg->duration_s * 1e9);
    uint64_t wall;
    void *failed = wl_threads_timed_run(rt, switch_root, s, &wall, out);
    llt_stop(rt);
    if (failed)
        return -1;
    for (unsigned i = 0; i < s->n; i++)
        out->per_thread_ops[i % (unsigned)cfg->threads] += s->th[i].yields; /* grouped by thread mod P */
    uint64_t sum = wl_threads_result(out, cfg->threads, wall);
    out->exclusion_ok = true; /* nothing shared to check: every thread finished */
    bench_add_extra(out, "ns_per_switch", (double)wall * cfg->threads / (double)(sum ? sum : 1));
    bench_add_extra(out, "raw_switch_ns", raw);
    free(s->th);
    free(s);
    return 0;
}

/* ---- thread-idle ---- */

static const bench_param idle_params[] = {
    {"alternative", "the paper's thread-management alternative (A..E; a name; not pthread)", 4, 0, 4, 1},
    {"spin_ns", "how long an idle worker spins before it parks (llt_config.spin_ns)", LLT_DEFAULT_SPIN_NS, 0, 1e9,
     1},
    {0},
};

typedef struct idle_ctx {
    unsigned n;            /* null threads to run */
    ll_atomic_u64 *ran;    /* per processor */
} idle_ctx;

static void *count_once(void *arg)
{
    idle_ctx *c = (idle_ctx *)arg;
    ll_faa(&c->ran[llt_processor()], 1, LL_RELAXED); /* relaxed: a count, read after llt_run returns */
    return NULL;
}

/* The workers are woken to run something, then the runtime has nothing to do. */
static void *idle_root(void *arg)
{
    idle_ctx *c = (idle_ctx *)arg;
    return wl_threads_fan_out(c->n, count_once, c, 0); /* stride 0: each gets c */
}

static int run_idle(ll_lock *lock, const bench_config *cfg, bench_result *out)
{
    (void)lock;
    uint64_t spin_ns = (uint64_t)cfg->param[1];
    llt_runtime *rt = wl_threads_start(cfg, spin_ns);
    if (bench_result_alloc(out, cfg->threads) != 0)
        return -1;
    idle_ctx c = {.n = 4 * (unsigned)cfg->threads, .ran = calloc((size_t)cfg->threads, sizeof(ll_atomic_u64))};
    if (!c.ran || llt_run(rt, idle_root, &c) != NULL)
        return -1;
    ll_sleep_ns(spin_ns + 50000000u); /* past the spin budget, whatever the scheduling delays */
    long v0, iv0;
    double c0;
    bench_usage_snapshot(&v0, &iv0, &c0);
    uint64_t t0 = ll_now_ns(), end = t0 + (uint64_t)(cfg->duration_s * 1e9), now;
    while ((now = ll_now_ns()) < end)
        ll_sleep_ns(end - now);
    bench_usage_snapshot(&out->vcsw, &out->ivcsw, &out->cpu_s);
    out->vcsw -= v0, out->ivcsw -= iv0, out->cpu_s -= c0;
    llt_stop(rt);
    for (int i = 0; i < cfg->threads; i++)
        out->per_thread_ops[i] = ll_load_relaxed(&c.ran[i]); /* relaxed: the workers are joined */
    free(c.ran);
    uint64_t sum = wl_threads_result(out, cfg->threads, now - t0);
    out->exclusion_ok = sum == c.n; /* every null thread ran once */
    bench_add_extra(out, "idle_cpu_fraction", out->cpu_s / (out->wall_s * cfg->threads));
    bench_add_extra(out, "idle_cpu_s", out->cpu_s);
    bench_add_extra(out, "idle_spin_ns", (double)spin_ns);
    return 0;
}

const workload wl_thread_switch = {"thread-switch",
                                   "lightweight threads yielding to each other (per_processor per processor); ns per "
                                   "switch, and the architecture's raw switch",
                                   switch_params, run_switch};
const workload wl_thread_idle = {"thread-idle",
                                 "an idle lightweight-thread runtime: its CPU use (getrusage) after the idle spin "
                                 "budget, as a fraction of its processors",
                                 idle_params, run_idle};
