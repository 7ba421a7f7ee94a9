/* Shared by the lightweight-thread workloads (wl_threads.c, wl_thread_switch.c). */
#ifndef LOCKLAB_BENCH_WL_THREADS_H
#define LOCKLAB_BENCH_WL_THREADS_H
#include "bench.h"
#include "locklab/threads.h"

/* The values of the `alternative` parameter (bench_param_names): the runtime's
 * five (llt_alternative_name), then "pthread", the kernel's threads: a peer of
 * null-thread, thread-work and thread-counter (not of thread-switch, thread-idle). */
const char *wl_threads_alternative_name(unsigned i);
/* The runtime of --threads processors, alternative cfg->param[0] (the workload's
 * first parameter; pthread is bad input), every lock of --lock, idle workers
 * spinning spin_ns before they park; bad input: one line, exit 2. */
llt_runtime *wl_threads_start(const bench_config *cfg, uint64_t spin_ns);
/* In a lightweight thread: runs fn(base + i x stride) for i < n as n threads of
 * its runtime and joins them.  NULL, or (void *)1 out of memory. */
void *wl_threads_fan_out(unsigned n, llt_fn fn, void *base, size_t stride);
/* fn(arg) as a lightweight thread of rt (llt_run), or on the caller if rt is NULL;
 * its result.  *wall_ns and out's vcsw, ivcsw and cpu_s cover the call. */
void *wl_threads_timed_run(llt_runtime *rt, llt_fn fn, void *arg, uint64_t *wall_ns, bench_result *out);
/* The end of a run, once out->per_thread_ops holds each of the threads processors' counts:
 * ops = their sum (returned: the exclusion check's count; a workload whose ops count
 * something else sets them after), wall_s from wall_ns.
 * thread_socket and logged stay as bench_result_alloc left them, 0: one socket,
 * no lock admissions (the history metrics have no data). */
uint64_t wl_threads_result(bench_result *out, int threads, uint64_t wall_ns);
#endif
