/* The thread harness shared by the workloads: start together, stop after the
 * interval, join, collect per-thread counts, admissions and rusage deltas. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

static void *alloc_log(void)
{
    void *p = mmap(NULL, (size_t)BENCH_LOG_CAPACITY * sizeof(uint16_t), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

int bench_result_alloc(bench_result *out, int threads)
{
    memset(out, 0, sizeof *out);
    out->per_thread_ops = calloc((size_t)threads, sizeof(uint64_t));
    out->thread_socket = calloc((size_t)threads, sizeof(int));
    out->admissions = alloc_log();
    return out->per_thread_ops && out->thread_socket && out->admissions ? 0 : -1;
}

void bench_result_free(bench_result *r)
{
    free(r->per_thread_ops);
    free(r->thread_socket);
    if (r->admissions)
        munmap(r->admissions, (size_t)BENCH_LOG_CAPACITY * sizeof(uint16_t));
}

void bench_add_extra(bench_result *r, const char *name, double value)
{
    if (r->nextra < BENCH_MAX_EXTRAS)
        r->extra[r->nextra++] = (bench_extra){name, value};
}

void bench_require_memory(const bench_config *cfg, double bytes, const char *what)
{
    double have = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    if (have > 0 && bytes > have / 2) {
        fprintf(stderr,
                "locklab-bench: %s needs %.1f GiB for %s at %d threads (valid: at most half of this machine's "
                "%.1f GiB; lower the parameters or --threads)\n",
                cfg->workload, bytes / (1 << 30), what, cfg->threads, have / (1 << 30));
        exit(2);
    }
}

void bench_usage_snapshot(long *vcsw, long *ivcsw, double *cpu)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    *vcsw = ru.ru_nvcsw;
    *ivcsw = ru.ru_nivcsw;
    *cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

typedef struct start_arg {
    bench_thread *t;
    bench_body body;
} start_arg;

static void *thread_main(void *arg)
{
    start_arg *a = (start_arg *)arg;
    bench_thread *t = a->t;
    bench_shared *sh = t->sh;
    t->socket = ll_current_socket(); /* registers the thread: virtual sockets go round robin */
    ll_faa(&sh->ready, 1, LL_RELAXED);
    while (ll_load_acquire(&sh->go) == 0) /* acquire: pairs with the harness's release of go */
        ll_pause();
    a->body(t);
    return NULL;
}

int bench_run_threads(ll_lock *lock, const bench_config *cfg, bench_result *out, void *ctx, bench_body body)
{
    int n = cfg->threads;
    if (bench_result_alloc(out, n) != 0)
        return -1;
    bench_shared *sh = aligned_alloc(LL_SECTOR, sizeof(bench_shared));
    bench_thread *ts = aligned_alloc(LL_SECTOR, sizeof(bench_thread) * (size_t)n);
    start_arg *args = calloc((size_t)n, sizeof(start_arg));
    if (!sh || !ts || !args)
        return -1;
    memset(sh, 0, sizeof *sh);
    memset(ts, 0, sizeof(bench_thread) * (size_t)n);
    sh->lock = lock;
    sh->cfg = cfg;
    sh->ctx = ctx;
    sh->log = out->admissions;
    wait_hist *hists = cfg->waits ? calloc((size_t)n, sizeof(wait_hist)) : NULL;
    if (cfg->waits && !hists)
        return -1;
    for (int i = 0; i < n; i++) {
        ts[i].waits = hists ? &hists[i] : NULL;
        ts[i].sh = sh;
        ts[i].index = i;
        ts[i].rng = 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1);
        args[i] = (start_arg){&ts[i], body};
        if (pthread_create(&ts[i].tid, NULL, thread_main, &args[i]) != 0) {
            fprintf(stderr, "locklab-bench: cannot create thread %d of %d\n", i + 1, n);
            exit(1);
        }
    }
    while (ll_load_relaxed(&sh->ready) != (uint32_t)n) /* relaxed: just a start barrier */
        ll_yield();
    long v0, iv0;
    double c0;
    bench_usage_snapshot(&v0, &iv0, &c0);
    uint64_t t0 = ll_now_ns();
    ll_store_release(&sh->go, 1); /* release: threads start */
    struct timespec ts_sleep = {(time_t)cfg->duration_s,
                                (long)((cfg->duration_s - (double)(time_t)cfg->duration_s) * 1e9)};
    nanosleep(&ts_sleep, NULL);
    /* The interval ends here: no admission after the stop store is counted, so
     * the time the threads then take to notice it and leave (a queue draining
     * through preempted waiters, a long NCS finishing) is neither in wall_s nor
     * in the rusage deltas. */
    bench_usage_snapshot(&out->vcsw, &out->ivcsw, &out->cpu_s);
    out->wall_s = (double)(ll_now_ns() - t0) / 1e9;
    ll_store_relaxed(&sh->stop, 1); /* relaxed: the joins below order everything */
    for (int i = 0; i < n; i++)
        pthread_join(ts[i].tid, NULL);
    out->vcsw -= v0;
    out->ivcsw -= iv0;
    out->cpu_s -= c0;
    for (int i = 0; i < n; i++) {
        out->per_thread_ops[i] = ts[i].ops;
        out->thread_socket[i] = ts[i].socket;
        out->ops += ts[i].ops;
    }
    out->logged = sh->admitted < BENCH_LOG_CAPACITY ? sh->admitted : BENCH_LOG_CAPACITY;
    out->exclusion_ok = sh->admitted == out->ops;
    if (hists) {
        for (int i = 1; i < n; i++)
            wait_hist_merge(&hists[0], &hists[i]);
        bench_add_wait_extras(out, &hists[0]);
        free(hists);
    }
    free(args);
    free(ts);
    free(sh);
    return 0;
}

void bench_add_wait_extras(bench_result *r, const wait_hist *h)
{
    bench_add_extra(r, "wait_max_ns", (double)h->max_ns);
    bench_add_extra(r, "wait_p99_ns", (double)wait_hist_percentile(h, 0.99));
    bench_add_extra(r, "wait_p999_ns", (double)wait_hist_percentile(h, 0.999));
}
