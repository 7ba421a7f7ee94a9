/*
 * uncontended — one thread acquires and releases one lock in a loop while a
 * second thread exists but sleeps (glibc takes cheaper paths in a
 * single-threaded process).  Reports ns per acquire+release pair.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

/* Parks until released: makes the process multi-threaded. */
static ll_atomic_u32 sleeper_release;
static void *sleeper(void *arg)
{
    (void)arg;
    while (ll_load_acquire(&sleeper_release) == 0) /* acquire: pairs with the release store in run */
        ll_futex_wait(&sleeper_release, 0);
    return NULL;
}

static int run(ll_lock *lock, const bench_config *cfg, bench_result *out)
{
    if (cfg->threads != 1) {
        fprintf(stderr, "locklab-bench: bad value '%d' for --threads (valid: uncontended runs 1 thread)\n",
                cfg->threads);
        exit(2);
    }
    if (bench_result_alloc(out, 1) != 0)
        return -1;
    pthread_t s;
    ll_store_relaxed(&sleeper_release, 0);
    pthread_create(&s, NULL, sleeper, NULL);
    out->thread_socket[0] = ll_current_socket();
    for (int i = 0; i < 100000; i++) { /* warm up caches, branch predictors, node cache */
        ll_lock_acquire(lock);
        ll_lock_release(lock);
    }
    long v0, iv0;
    double c0;
    bench_usage_snapshot(&v0, &iv0, &c0);
    enum { BATCH = 10000 };
    uint64_t t0 = ll_now_ns(), deadline = t0 + (uint64_t)(cfg->duration_s * 1e9), pairs = 0, now;
    do {
        for (int i = 0; i < BATCH; i++) {
            ll_lock_acquire(lock);
            ll_lock_release(lock);
        }
        pairs += BATCH;
    } while ((now = ll_now_ns()) < deadline);
    out->wall_s = (double)(now - t0) / 1e9;
    bench_usage_snapshot(&out->vcsw, &out->ivcsw, &out->cpu_s);
    out->cpu_s -= c0;
    out->vcsw -= v0;
    out->ivcsw -= iv0;
    out->ops = pairs;
    out->per_thread_ops[0] = pairs;
    out->ns_per_pair = (double)(now - t0) / (double)pairs;
    out->admissions[0] = 0; /* one thread: the history is trivially "0 0 0 ..." */
    out->logged = 1;
    out->exclusion_ok = 1;  /* nothing to check with one thread */
    ll_store_release(&sleeper_release, 1); /* release: let the sleeper exit */
    ll_futex_wake(&sleeper_release, 1);
    pthread_join(s, NULL);
    return 0;
}

const workload wl_uncontended = {"uncontended", "ns per acquire+release pair, one thread (a second one sleeps)", NULL,
                                 run};
