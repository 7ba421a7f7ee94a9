/*
 * The simulator's engine (docs/simulator.md): a run, and the calls the workloads
 * make that are not memory accesses.
 *
 * A run (sim_run) executes body(i, arg) on cfg->threads simulated threads on the
 * simulated machine until they all return, the run deadlocks, makes no progress
 * or a body reports a violation.  The engine is split by job: engine.h lists its
 * files (sched.c, os.c, cache.c, spin.c, atomics_backend.c) and holds the state
 * they share (E, set up and freed here).
 *
 * Models, here: a run's set-up (the costs in picoseconds, thread i first on CPU
 *   i mod CPUs, each CPU's first slice ending at a seeded point in (0, slice] so
 *   that the CPUs' schedules are not in step), a thread's entry (its own TLS and
 *   core.h context, tls.c and env.c) and exit, and plain computation (sim_compute:
 *   time only; with more busy hardware threads on a core than smt x smt_share
 *   pipelines' worth, each computes at that share).
 *
 * Leaves out: SMT competition for anything but plain computation (memory
 *   operations of siblings do not slow each other); frequency scaling; the cost of
 *   what runs outside a run (a workload's set-up from main: no event, no time).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "engine.h"

struct engine E;

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "locklab-sim: out of memory\n");
        exit(1);
    }
    return p;
}

/* ---- for bodies ------------------------------------------------------------------------------ */
uint64_t sim_now_ps(void) { return E.cur ? E.cur->time : 0; }
bool sim_stopping(void) { return llsim_load(&E.stop_word, 4) != 0; }
/* Plain computation: with more busy hardware threads on the core than its pipelines'
 * worth (smt x smt_share), each gets that share of them (the T5's 8 strands on 2
 * pipelines; docs/simulator.md). */
void sim_compute(double ns)
{
    int busy = E.core_busy[E.cpus[E.cur->cpu].core];
    E.cur->time += ps_of(busy > E.smt_pipes ? ns * busy / E.smt_pipes : ns);
}
void sim_yield_point(void) { sync_point(); }
void sim_preempt_point(void)
{
    if (E.cfg->explore)
        sync_point();
}
int sim_thread_socket(void) { return E.cur ? E.cpus[E.cur->cpu].socket : 0; }
int sim_thread_index(void) { return E.cur ? E.cur->index : 0; }

void sim_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(E.fail_msg, sizeof E.fail_msg, fmt, ap);
    va_end(ap);
    E.outcome = SIM_FAILED;
    E.aborted = true;
    switch_to(NULL);
    abort();
}
const char *sim_fail_message(void) { return E.fail_msg; }

/* ---- a run -------------------------------------------------------------------------------- */
static void thread_entry(void *arg)
{
    sthread *t = (sthread *)arg;
    ll_self_tls = sim_env_thread(t->index); /* in the thread's own TLS */
    E.body(t->index, E.arg);
    t->state = T_DONE;
    E.live--;
    cpu_release(t, t->time);
    if (t->time > E.st.end_ps)
        E.st.end_ps = t->time;
    reschedule();
    abort(); /* a finished thread is never resumed */
}

static void free_run(void)
{
    for (int i = 0; i < E.nthreads; i++)
        munmap(E.threads[i].stack, STACK_BYTES);
    for (uint32_t i = 0; i < E.nwatch; i++)
        free(E.watch[i].w);
    free(E.watch);
    free(E.threads);
    free(E.cpus);
    free(E.core_busy);
    free(E.heap);
    free(E.line_mem);
    for (uint32_t i = 0; E.page_mask && i <= E.page_mask; i++)
        free(E.pages[i].slots);
    free(E.pages);
    free(E.priv);
    free(E.llc);
    free(E.priv_rr);
    free(E.llc_rr);
    free(E.fbucket);
}

sim_outcome sim_run(const sim_config *cfg, sim_body body, void *arg, sim_stats *stats)
{
    const sim_machine *m = cfg->machine;
    memset(&E, 0, sizeof E);
    E.cfg = cfg;
    E.m = m;
    E.body = body;
    E.arg = arg;
    E.rng = (cfg->seed ^ 0x2545F4914F6CDD1Dull) * 0x9E3779B97F4A7C15ull;
    if (!E.rng)
        E.rng = 1;
    E.c_hit = ps_of(m->hit_ns);
    E.c_local = ps_of(m->local_ns);
    E.c_remote = ps_of(m->remote_ns);
    E.c_fill = ps_of(m->fill_ns);
    E.c_rmw = ps_of(m->rmw_ns);
    E.c_pause = ps_of(m->pause_ns);
    E.c_llc = ps_of(m->llc_ns);
    E.c_mem = ps_of(m->mem_ns);
    E.c_slice = ps_of(m->slice_us * 1000);
    E.c_tick = ps_of(m->tick_us * 1000);
    E.c_wake = ps_of(m->wake_us * 1000);
    E.c_switch = ps_of(m->switch_us * 1000);
    E.c_sys = ps_of(m->syscall_ns);
    E.c_spinq = ps_of(m->spinq_ns);
    E.c_clock = ps_of(20);
    E.limit_ps = cfg->end_ps && cfg->drain_ps ? cfg->end_ps + cfg->drain_ps : UINT64_MAX;
    E.nthreads = E.live = cfg->threads;
    E.ncores = m->sockets * m->cores;
    E.ncpus = E.ncores * m->smt;
    E.threads = xcalloc((size_t)cfg->threads, sizeof(sthread));
    E.cpus = xcalloc((size_t)E.ncpus, sizeof(scpu));
    E.core_busy = xcalloc((size_t)E.ncores, sizeof(int));
    E.smt_pipes = m->smt * m->smt_share;
    E.mlp = m->mlp < MAX_MLP ? m->mlp : MAX_MLP;
    E.heap = xcalloc((size_t)cfg->threads + 1, sizeof(sthread *));
    E.fbucket = xcalloc(FBUCKETS, sizeof(sthread *));
    E.priv_sets = (uint32_t)(m->l2_kb * 1024 / 64 / PWAYS);
    E.priv_sets = E.priv_sets ? E.priv_sets : 1;
    E.llc_sets = (uint32_t)(m->llc_mb * 1024 * 1024 / 64 / LWAYS);
    E.llc_sets = E.llc_sets ? E.llc_sets : 1;
    E.priv = xcalloc((size_t)E.ncores * E.priv_sets * PWAYS, sizeof(uint32_t));
    E.priv_rr = xcalloc((size_t)E.ncores * E.priv_sets, 1);
    E.llc = xcalloc((size_t)m->sockets * E.llc_sets * LWAYS, sizeof(uint32_t));
    E.llc_rr = xcalloc((size_t)m->sockets * E.llc_sets, 1);
    page_table_grow();
    E.sharer_words = ((uint32_t)E.ncores + 63) / 64;
    E.line_stride = sizeof(sline) + E.sharer_words * sizeof(uint64_t) <= 32 ? 32 : 64;
    for (int c = 0; c < E.ncpus; c++) {
        E.cpus[c].socket = c % m->sockets;
        E.cpus[c].core = c % E.ncores;
    }
    sim_env_reset(cfg->threads, cfg->seed);
    sim_tls_prepare(cfg->threads);
    for (int i = 0; i < cfg->threads; i++) {
        sthread *t = &E.threads[i];
        t->index = i;
        t->heap_pos = -1;
        t->cpu = i % E.ncpus;
        t->stack = mmap(NULL, STACK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (t->stack == MAP_FAILED) {
            fprintf(stderr, "locklab-sim: cannot map a stack for thread %d of %d\n", i + 1, cfg->threads);
            exit(1);
        }
        mprotect(t->stack, 4096, PROT_NONE); /* guard page */
        llt_ctx_init(&t->ctx, t->stack + 4096, STACK_BYTES - 4096, thread_entry, t);
        make_runnable(t, 0, false);
    }
    /* Out of phase: every CPU's first slice ends at a point drawn in (0, slice] (then the
     * next tick), not all at once.  A real run's threads start one after another and its
     * CPUs' schedules are not in step; with every slice ending together, the threads
     * that run and those that wait swap as two blocks, and a FIFO lock's queue falls in
     * step with them (its successors mostly running). */
    for (int c = 0; c < E.ncpus; c++)
        if (E.cpus[c].cur)
            E.cpus[c].slice_end = at_tick(rnd() % E.c_slice + 1);
    E.outcome = SIM_DONE;
    reschedule(); /* from the main context: runs until the last thread ends (or the run is cut) */
    E.cur = NULL;
    E.st.blocked = E.live;
    for (int i = 0; i < E.nthreads; i++) {
        sthread *t = &E.threads[i];
        if (t->state == T_RUNNING && E.aborted)
            E.st.busy_ps += t->time - t->run_start;
        if (t->time > E.st.end_ps)
            E.st.end_ps = t->time;
    }
    *stats = E.st;
    sim_outcome o = E.outcome;
    free_run();
    return o;
}

